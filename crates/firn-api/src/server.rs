//! Building the app ([`app`]) and serving it ([`serve`]).
//!
//! Layers, outermost first: a path fix-up (`%3A` → `:` so custom methods such as
//! `transactions%3AlistStaking` route like `transactions:listStaking`), then inside the router
//! the usage log (`usage::record`, so rate-limited and refused requests are logged too), the
//! request metrics, the body size and time limits, and the API key and rate-limit check.
//! Unknown paths and wrong methods answer 404 in the official error format.

use std::future::Future;

use axum::Router;
use axum::extract::{DefaultBodyLimit, Request};
use axum::http::Uri;
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use tokio::net::TcpListener;

use crate::error::ApiError;
use crate::state::AppState;
use crate::{limits, metrics, routes, usage};

/// The whole Data API as an axum `Router`, ready to serve or to call with
/// `tower::ServiceExt::oneshot`.
pub fn app(state: AppState) -> Router {
    let body_limit = state.config.body_limit;
    let api = routes::router(&state)
        .fallback(not_found)
        .method_not_allowed_fallback(not_found)
        .layer(middleware::from_fn_with_state(
            state.clone(),
            limits::auth_and_rate_limit,
        ))
        .layer(middleware::from_fn_with_state(
            state.clone(),
            limits::size_and_time,
        ))
        .layer(DefaultBodyLimit::max(body_limit))
        .layer(middleware::from_fn_with_state(
            state.clone(),
            metrics::track,
        ))
        .layer(middleware::from_fn_with_state(state.clone(), usage::record))
        .with_state(state);
    Router::new()
        .fallback_service(api)
        .layer(middleware::from_fn(decode_colons))
}

async fn not_found(request: Request) -> Response {
    ApiError::not_found(format!(
        "Cannot {} {}",
        request.method(),
        request.uri().path()
    ))
    .into_response()
}

/// Rewrites `%3A`/`%3a` in the path to `:`: clients that escape the colon of a custom
/// method must reach the same route.
async fn decode_colons(mut request: Request, next: Next) -> Response {
    let path = request.uri().path();
    if path.contains("%3A") || path.contains("%3a") {
        let fixed = path.replace("%3A", ":").replace("%3a", ":");
        let mut parts = request.uri().clone().into_parts();
        let pq = match request.uri().query() {
            Some(q) => format!("{fixed}?{q}"),
            None => fixed,
        };
        if let Ok(pq) = pq.parse() {
            parts.path_and_query = Some(pq);
            if let Ok(uri) = Uri::from_parts(parts) {
                *request.uri_mut() = uri;
            }
        }
    }
    next.run(request).await
}

/// Serves the Data API on `listener` until `shutdown` completes, then finishes the requests in
/// flight.
pub async fn serve(
    listener: TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let limits = state.config.http;
    let store = state.store.clone();
    let webhooks = state.config.webhooks.clone();
    let webhook_store = state.store.clone();
    let network = state.config.network.clone();
    let exports = state.config.exports.run.then(|| state.clone());
    let app = app(state);
    if let Ok(addr) = listener.local_addr() {
        tracing::info!(target: "api", %addr, "serving the Data API");
    }
    // Commits by other processes (an indexer writing the same database) move the store's
    // generation; read it often, so cached pages give way to theirs within this period.
    let watcher = tokio::spawn(async move {
        let mut tick = tokio::time::interval(GENERATION_POLL);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            if let Err(e) = store.refresh_generation().await {
                tracing::debug!(target: "api", error = %e, "reading the store generation");
            }
        }
    });
    // The webhook dispatcher and the export worker stop with the server, giving up their
    // leases, so another process takes their work over at once.
    let dispatcher = webhooks.deliver.then(|| {
        Beside::spawn(|stopped| crate::webhooks::run(webhook_store, network, webhooks, stopped))
    });
    let exporter =
        exports.map(|state| Beside::spawn(|stopped| crate::operations::run(state, stopped)));
    let served = firn_http::serve(listener, app, limits, shutdown).await;
    watcher.abort();
    for worker in [dispatcher, exporter].into_iter().flatten() {
        worker.stop().await;
    }
    served
}

/// A task that runs beside the server until told to stop.
struct Beside {
    stop: tokio::sync::oneshot::Sender<()>,
    task: tokio::task::JoinHandle<()>,
}

impl Beside {
    /// Spawns `start(stopped)`, where `stopped` completes once [`Beside::stop`] is called.
    fn spawn<F>(start: impl FnOnce(std::pin::Pin<Box<dyn Future<Output = ()> + Send>>) -> F) -> Self
    where
        F: Future<Output = ()> + Send + 'static,
    {
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(start(Box::pin(async move {
            let _ = stopped.await;
        })));
        Self { stop, task }
    }

    /// Tells the task to stop and waits until it has.
    async fn stop(self) {
        let _ = self.stop.send(());
        let _ = self.task.await;
    }
}

/// How often [`serve`] reads the store generation other processes move.
pub const GENERATION_POLL: std::time::Duration = std::time::Duration::from_millis(50);
