//! Mounting endpoints on paths, limits, binding and graceful shutdown.
//!
//! [`RpcRouter`] maps paths to [`Endpoint`]s (an [`crate::AvaServer`] or [`crate::EthServer`],
//! or anything else that answers HTTP) and builds an `axum::Router`, testable in process with
//! `tower::ServiceExt::oneshot` or served with [`spawn`] / [`serve`].

use std::future::{Future, poll_fn};
use std::net::{Ipv4Addr, SocketAddr};
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes, HttpBody};
use axum::extract::RawPathParams;
use axum::http::{HeaderValue, Request, StatusCode, header};
use axum::response::Response;
use axum::routing::any;
use firn_http::metrics::RouteMetrics;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tracing::{debug, info};

/// A boxed, sendable future.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// go-ethereum's default request body limit (5 MiB), used for both envelopes.
pub const DEFAULT_BODY_LIMIT: usize = 5 * 1024 * 1024;
/// AvalancheGo's default HTTP write timeout (30 s), used as the per-request handler timeout.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// AvalancheGo's default HTTP port.
pub const DEFAULT_PORT: u16 = 9650;

/// Limits applied to every request of a router.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest request body read, in bytes.
    pub body_limit: usize,
    /// How long a handler (or a whole batch) may run; `None` = no limit.
    pub request_timeout: Option<Duration>,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            body_limit: DEFAULT_BODY_LIMIT,
            request_timeout: Some(DEFAULT_REQUEST_TIMEOUT),
        }
    }
}

/// Something that answers the HTTP requests of one path. [`crate::AvaServer`] and
/// [`crate::EthServer`] implement it; implement it for other handlers mounted next to them.
pub trait Endpoint: Send + Sync + 'static {
    /// Answers one HTTP request under `limits`.
    fn serve(self: Arc<Self>, request: Request<Body>, limits: Limits) -> BoxFuture<Response>;
}

/// Finds the endpoint for a path parameter (e.g. the chain of `/ext/bc/{chain}/rpc`); `None`
/// answers 404.
pub type Resolver = Arc<dyn Fn(&str) -> Option<Arc<dyn Endpoint>> + Send + Sync>;

#[derive(Clone)]
enum Route {
    Fixed(Arc<dyn Endpoint>),
    PerParam(Resolver),
}

/// Errors building a router.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum RouteError {
    /// A path that does not start with `/` or has unbalanced braces.
    #[error("invalid route path {0:?}")]
    InvalidPath(String),
    /// A per-parameter route without exactly one `{param}` segment.
    #[error("route path {0:?} must have exactly one {{param}} segment")]
    ParamCount(String),
    /// A fixed route with a `{param}` segment.
    #[error("route path {0:?} has a {{param}} segment but a fixed endpoint")]
    UnexpectedParam(String),
    /// Two routes that differ only in their parameter names (`/a/{x}` and `/a/{y}`).
    #[error("route path {0:?} conflicts with another route")]
    Conflict(String),
    /// An alias of a path that was never mounted.
    #[error("alias {alias:?} points at unmounted path {target:?}")]
    UnknownAliasTarget {
        /// The alias path.
        alias: String,
        /// The missing target path.
        target: String,
    },
}

/// Paths → endpoints, with shared [`Limits`]; [`RpcRouter::build`] makes the `axum::Router`.
///
/// ```
/// use std::sync::Arc;
/// use firn_rpc::{AvaServer, AvaService, EthServer, RpcRouter};
///
/// async fn height(_: (), _: ()) -> Result<u64, String> { Ok(7) }
/// let p = AvaServer::new(()).service(AvaService::new("platform").method("getHeight", height));
/// let eth = EthServer::new(()).method("eth_blockNumber", |_: (), (): ()| async { Ok::<_, String>("0x7") });
/// let app: axum::Router = RpcRouter::new()
///     .mount("/ext/bc/P", Arc::new(p))
///     .alias("/ext/P", "/ext/bc/P")
///     .mount("/ext/bc/C/rpc", Arc::new(eth))
///     .build()
///     .unwrap();
/// ```
#[derive(Clone, Default)]
pub struct RpcRouter {
    routes: Vec<(String, Route)>,
    aliases: Vec<(String, String)>,
    limits: Limits,
    metrics: Option<Arc<RouteMetrics>>,
}

impl std::fmt::Debug for RpcRouter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RpcRouter")
            .field(
                "paths",
                &self.routes.iter().map(|(p, _)| p).collect::<Vec<_>>(),
            )
            .field("aliases", &self.aliases)
            .field("limits", &self.limits)
            .field("metrics", &self.metrics.is_some())
            .finish()
    }
}

fn param_count(path: &str) -> Option<usize> {
    let mut count = 0;
    for segment in path.split('/') {
        let open = segment.matches('{').count();
        let close = segment.matches('}').count();
        match (open, close) {
            (0, 0) => {}
            (1, 1) if segment.starts_with('{') && segment.ends_with('}') && segment.len() > 2 => {
                count += 1;
            }
            _ => return None,
        }
    }
    Some(count)
}

/// The path with parameter names erased: routes of one shape conflict in axum.
fn route_shape(path: &str) -> String {
    path.split('/')
        .map(|seg| if seg.starts_with('{') { "{}" } else { seg })
        .collect::<Vec<_>>()
        .join("/")
}

impl RpcRouter {
    /// An empty router with default [`Limits`].
    pub fn new() -> Self {
        Self::default()
    }

    /// Replaces the limits applied to every request.
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Records every request in `metrics`, under its route pattern.
    pub fn metrics(mut self, metrics: Arc<RouteMetrics>) -> Self {
        self.metrics = Some(metrics);
        self
    }

    fn put(mut self, path: &str, route: Route) -> Self {
        self.routes.retain(|(p, _)| p != path);
        self.routes.push((path.to_owned(), route));
        self
    }

    /// Serves `endpoint` at `path` (e.g. `/ext/bc/P`); a later mount of the same path wins.
    pub fn mount(self, path: &str, endpoint: Arc<dyn Endpoint>) -> Self {
        self.put(path, Route::Fixed(endpoint))
    }

    /// Serves the path pattern `path` (one `{param}` segment, e.g. `/ext/bc/{chain}/rpc`) with
    /// the endpoint `resolve` returns for the parameter's value; `None` answers 404.
    pub fn mount_per_param<F>(self, path: &str, resolve: F) -> Self
    where
        F: Fn(&str) -> Option<Arc<dyn Endpoint>> + Send + Sync + 'static,
    {
        self.put(path, Route::PerParam(Arc::new(resolve)))
    }

    /// Serves `alias` (e.g. `/ext/P`) exactly as the mounted `target` (e.g. `/ext/bc/P`).
    pub fn alias(mut self, alias: &str, target: &str) -> Self {
        self.aliases.push((alias.to_owned(), target.to_owned()));
        self
    }

    /// Checks the paths and builds the `axum::Router`; unknown paths answer 404
    /// `404 page not found` as Go's mux does.
    pub fn build(self) -> Result<Router, RouteError> {
        let mut routes = self.routes;
        for (alias, target) in self.aliases {
            let route = routes
                .iter()
                .find(|(p, _)| *p == target)
                .map(|(_, r)| r.clone())
                .ok_or_else(|| RouteError::UnknownAliasTarget {
                    alias: alias.clone(),
                    target: target.clone(),
                })?;
            routes.retain(|(p, _)| *p != alias);
            routes.push((alias, route));
        }
        let limits = self.limits;
        let mut router = Router::new();
        let mut shapes = std::collections::HashSet::new();
        for (path, route) in routes {
            if !path.starts_with('/') {
                return Err(RouteError::InvalidPath(path));
            }
            let params = param_count(&path).ok_or_else(|| RouteError::InvalidPath(path.clone()))?;
            if !shapes.insert(route_shape(&path)) {
                return Err(RouteError::Conflict(path));
            }
            router = match route {
                Route::Fixed(endpoint) => {
                    if params != 0 {
                        return Err(RouteError::UnexpectedParam(path));
                    }
                    router.route(
                        &path,
                        any(move |req: Request<Body>| endpoint.clone().serve(req, limits)),
                    )
                }
                Route::PerParam(resolve) => {
                    if params != 1 {
                        return Err(RouteError::ParamCount(path));
                    }
                    router.route(
                        &path,
                        any(move |params: RawPathParams, req: Request<Body>| {
                            let endpoint =
                                params.iter().next().and_then(|(_, value)| resolve(value));
                            async move {
                                match endpoint {
                                    Some(e) => e.serve(req, limits).await,
                                    None => not_found().await,
                                }
                            }
                        }),
                    )
                }
            };
        }
        let router = router.fallback(not_found);
        Ok(match self.metrics {
            Some(m) => router.layer(axum::middleware::from_fn_with_state(
                m,
                firn_http::metrics::track,
            )),
            None => router,
        })
    }
}

async fn not_found() -> Response {
    text_response(
        StatusCode::NOT_FOUND,
        "404 page not found\n".to_owned(),
        true,
    )
}

/// A `text/plain; charset=utf-8` response, as Go's `http.Error` (with `nosniff`) or gorilla's
/// `WriteError` (without) write them.
pub(crate) fn text_response(status: StatusCode, body: String, nosniff: bool) -> Response {
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    if nosniff {
        headers.insert(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        );
    }
    response
}

/// Reads at most `limit` bytes of `body`; the flag says whether more was sent.
pub async fn read_body(body: Body, limit: usize) -> Result<(Bytes, bool), axum::Error> {
    let mut body = std::pin::pin!(body);
    let mut buf: Vec<u8> = Vec::new();
    while let Some(frame) = poll_fn(|cx| body.as_mut().poll_frame(cx)).await {
        let Ok(data) = frame?.into_data() else {
            continue;
        };
        let room = limit - buf.len();
        if data.len() > room {
            buf.extend_from_slice(&data[..room]);
            return Ok((Bytes::from(buf), true));
        }
        buf.extend_from_slice(&data);
    }
    Ok((Bytes::from(buf), false))
}

/// `127.0.0.1:port`: firn listens on loopback unless told otherwise.
pub fn loopback(port: u16) -> SocketAddr {
    SocketAddr::from((Ipv4Addr::LOCALHOST, port))
}

/// Serves `router` on `listener` (within [`firn_http::ServeLimits`]' defaults: bounded
/// connections, header, idle and write timeouts) until `shutdown` completes, then lets
/// in-flight requests finish.
pub async fn serve<F>(listener: TcpListener, router: Router, shutdown: F) -> std::io::Result<()>
where
    F: Future<Output = ()> + Send + 'static,
{
    firn_http::serve(
        listener,
        router,
        firn_http::ServeLimits::default(),
        shutdown,
    )
    .await
}

/// A server started by [`spawn`].
#[derive(Debug)]
pub struct ServerHandle {
    addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: JoinHandle<std::io::Result<()>>,
}

impl ServerHandle {
    /// The address it listens on (the real port when bound to port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://<addr>`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Stops accepting connections, waits for in-flight requests and returns the server's
    /// outcome.
    pub async fn shutdown(mut self) -> std::io::Result<()> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        match (&mut self.task).await {
            Ok(result) => result,
            Err(e) => Err(std::io::Error::other(e)),
        }
    }
}

/// Binds `addr` (use [`loopback`]) and serves `router` on a background task.
pub async fn spawn(addr: SocketAddr, router: Router) -> std::io::Result<ServerHandle> {
    spawn_on(TcpListener::bind(addr).await?, router)
}

/// Serves `router` on `listener`, bound already, on a background task.
pub fn spawn_on(listener: TcpListener, router: Router) -> std::io::Result<ServerHandle> {
    let addr = listener.local_addr()?;
    let (stop, stopped) = oneshot::channel::<()>();
    info!(%addr, "rpc server listening");
    let task = tokio::spawn(async move {
        let result = serve(listener, router, async {
            let _ = stopped.await;
        })
        .await;
        debug!(%addr, "rpc server stopped");
        result
    });
    Ok(ServerHandle {
        addr,
        stop: Some(stop),
        task,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn param_segments_are_counted() {
        assert_eq!(param_count("/ext/bc/P"), Some(0));
        assert_eq!(param_count("/ext/bc/{chain}/rpc"), Some(1));
        assert_eq!(param_count("/ext/bc/{chain"), None);
        assert_eq!(param_count("/ext/{}/x"), None);
    }

    #[tokio::test]
    async fn body_is_cut_at_the_limit() {
        let (b, cut) = read_body(Body::from("abcdef"), 4).await.unwrap();
        assert_eq!((&b[..], cut), (&b"abcd"[..], true));
        let (b, cut) = read_body(Body::from("abcd"), 4).await.unwrap();
        assert_eq!((&b[..], cut), (&b"abcd"[..], false));
    }
}
