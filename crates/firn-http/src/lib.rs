//! Serving HTTP/1.1 for every listener firn opens (the node RPC, the Data API, the Metrics
//! API), bounded against clients that hold connections open, send slowly or stop reading.
//!
//! `axum::serve` has no limits: any number of connections, no time limit on a request's
//! head, none on a keep-alive connection left idle, none on a response the client never
//! reads. [`serve`] is the same accept loop with [`ServeLimits`]:
//! - at most `max_connections` at once: past it, the loop stops accepting and new connections
//!   wait in the kernel's backlog until one closes (no work, no memory, for the extra ones);
//! - a request's head must arrive within `header_timeout`, counted from when the connection
//!   waits for it, so a connection idle between keep-alive requests is closed after it too;
//! - a write the client does not take within `write_timeout` closes the connection;
//! - heads larger than `max_header_bytes` are refused;
//! - on shutdown it stops accepting, lets requests in flight finish for `shutdown_grace`,
//!   then closes what is left.
//!
//! Limits on requests themselves (body size, handler time, requests in flight) belong to each
//! API, which answers them in its own error format.
//!
//! ```no_run
//! # async fn run() -> std::io::Result<()> {
//! let app = axum::Router::new().route("/", axum::routing::get(|| async { "hello" }));
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
//! firn_http::serve(listener, app, firn_http::ServeLimits::default(), std::future::pending()).await
//! # }
//! ```

pub mod metrics;
pub mod outbound;
mod stall;
pub mod usage;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tower::ServiceExt;
use tracing::{debug, warn};

use crate::stall::StallGuard;

/// What one listener allows its clients.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServeLimits {
    /// Connections open at once; more wait in the kernel's backlog.
    pub max_connections: usize,
    /// Time for a request's head to arrive, and for an idle keep-alive connection to send
    /// the next one.
    pub header_timeout: Duration,
    /// Time a response write may wait for the client to read.
    pub write_timeout: Duration,
    /// Largest request head (request line and headers), bytes.
    pub max_header_bytes: usize,
    /// Time requests in flight get to finish once shutdown starts.
    pub shutdown_grace: Duration,
}

impl Default for ServeLimits {
    fn default() -> Self {
        Self {
            max_connections: 8192,
            header_timeout: Duration::from_secs(10),
            write_timeout: Duration::from_secs(30),
            max_header_bytes: 64 * 1024,
            shutdown_grace: Duration::from_secs(30),
        }
    }
}

/// Serves `app` on `listener` within `limits` until `shutdown` completes, then lets the
/// requests in flight finish (for at most `limits.shutdown_grace`). Handlers can read the
/// client's address as `ConnectInfo<SocketAddr>`, as with axum's
/// `into_make_service_with_connect_info`.
pub async fn serve<F>(
    listener: TcpListener,
    app: Router,
    limits: ServeLimits,
    shutdown: F,
) -> std::io::Result<()>
where
    F: Future<Output = ()> + Send + 'static,
{
    let max = limits.max_connections.clamp(1, Semaphore::MAX_PERMITS);
    let slots = Arc::new(Semaphore::new(max));
    let (closing, _) = tokio::sync::watch::channel(false);
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .max_buf_size(limits.max_header_bytes.max(8192))
        .keep_alive(true);
    tokio::pin!(shutdown);
    loop {
        // Take a slot first: at capacity, stop accepting rather than accept and drop.
        let slot = tokio::select! {
            slot = slots.clone().acquire_owned() => match slot {
                Ok(slot) => slot,
                Err(_) => break,
            },
            () = &mut shutdown => break,
        };
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    // Out of file descriptors and the like: back off instead of spinning.
                    warn!(target: "http", %error, "accepting a connection failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        let io = TokioIo::new(StallGuard::new(stream, limits.write_timeout));
        let app = app.clone();
        let service = hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
            let mut request = request.map(axum::body::Body::new);
            request.extensions_mut().insert(ConnectInfo(peer));
            app.clone().oneshot(request)
        });
        let mut connection = builder.serve_connection(io, service).with_upgrades();
        let mut close = closing.subscribe();
        tokio::spawn(async move {
            let done = tokio::select! {
                done = &mut connection => Some(done),
                _ = close.wait_for(|closing| *closing) => None,
            };
            // Shutting down: finish the request in flight, then close.
            let done = match done {
                Some(done) => done,
                None => {
                    std::pin::Pin::new(&mut connection).graceful_shutdown();
                    connection.await
                }
            };
            if let Err(error) = done {
                debug!(target: "http", %peer, %error, "connection closed");
            }
            drop(slot);
        });
    }
    drop(listener);
    let _ = closing.send(true);
    // Every connection holds a slot: all slots back means all connections closed.
    let all = u32::try_from(max).unwrap_or(u32::MAX);
    if tokio::time::timeout(limits.shutdown_grace, slots.acquire_many(all))
        .await
        .is_err()
    {
        warn!(target: "http", grace_secs = limits.shutdown_grace.as_secs(), "requests still in flight after the shutdown grace period; closing them");
    }
    Ok(())
}

/// The address a request came from, when served by [`serve`].
pub fn peer_of<B>(request: &axum::http::Request<B>) -> Option<SocketAddr> {
    request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0)
}
