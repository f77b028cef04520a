//! Usage recording shared by every service whose requests count as API usage (the Data API,
//! the node RPC): a handler's middleware builds a [`RequestLog`] and hands it to a
//! [`UsageRecorder`]; a background task takes batches from the matching [`UsageQueue`] and
//! writes them wherever the process keeps them (`firn-api`'s flusher: the store).
//!
//! Recording never slows or fails a request: the queue is bounded and [`UsageRecorder::record`]
//! never waits. When the queue is full the log is dropped and counted
//! ([`UsageRecorder::dropped`]). This crate knows no storage, so the node (which must not
//! depend on the store) records through the same type as the Data API.
//!
//! ```
//! use firn_http::usage::{RequestKind, RequestLog, UsageRecorder};
//!
//! let (recorder, mut queue) = UsageRecorder::channel(2);
//! for _ in 0..3 {
//!     recorder.record(RequestLog::new(RequestKind::Data, "/v1/health-check"));
//! }
//! assert_eq!(queue.drain(10).len(), 2);
//! assert_eq!(recorder.dropped(), 1);
//! ```

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use axum::http::{HeaderMap, header};
use tokio::sync::mpsc;

/// Longest path kept, bytes: a request cannot fill the log with a huge URL.
pub const MAX_PATH: usize = 512;
/// Longest header value (`Host`, `User-Agent`) or method list kept, bytes.
pub const MAX_FIELD: usize = 256;

/// Which API served a request (the official `requestType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequestKind {
    /// The Data API.
    Data,
    /// The node JSON-RPC.
    Rpc,
}

impl RequestKind {
    /// `data` or `rpc`.
    pub fn as_str(self) -> &'static str {
        match self {
            RequestKind::Data => "data",
            RequestKind::Rpc => "rpc",
        }
    }
}

/// One served request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestLog {
    /// When it arrived, Unix ms.
    pub time_ms: u64,
    /// Hex SHA-256 of its API key; empty without one.
    pub api_key_id: String,
    /// Which API served it.
    pub kind: RequestKind,
    /// Its path (at most [`MAX_PATH`] bytes).
    pub path: String,
    /// The chain it addressed (an EVM chain ID); empty when none.
    pub chain_id: String,
    /// Its JSON-RPC method(s), comma-separated (at most [`MAX_FIELD`] bytes).
    pub rpc_method: String,
    /// Node RPC to a primary-network endpoint.
    pub primary_network: bool,
    /// HTTP status answered.
    pub status: u16,
    /// Time to answer, ms.
    pub duration_ms: u64,
    /// Client IP address; empty when unknown.
    pub ip: String,
    /// `Host` header (capped).
    pub host: String,
    /// `User-Agent` header (capped).
    pub user_agent: String,
}

impl RequestLog {
    /// A log of a request to `path` arriving now; the rest is filled in by the caller.
    pub fn new(kind: RequestKind, path: &str) -> Self {
        let time_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
            .unwrap_or(0);
        Self {
            time_ms,
            api_key_id: String::new(),
            kind,
            path: cap(path, MAX_PATH),
            chain_id: String::new(),
            rpc_method: String::new(),
            primary_network: false,
            status: 0,
            duration_ms: 0,
            ip: String::new(),
            host: String::new(),
            user_agent: String::new(),
        }
    }

    /// A log of `request` arriving now: its path, `Host`, `User-Agent` and client address (the
    /// `ConnectInfo` [`crate::serve`] adds).
    pub fn of_request<B>(kind: RequestKind, request: &axum::http::Request<B>) -> Self {
        let ip = request
            .extensions()
            .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
            .map(|c| c.0.ip());
        Self::new(kind, request.uri().path()).with_client(request.headers(), ip)
    }

    /// This log, answered with `status` after the time since `started`.
    pub fn answered(mut self, status: u16, started: std::time::Instant) -> Self {
        self.status = status;
        self.duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        self
    }

    /// This log with the client's `Host` and `User-Agent` (capped) and its IP, if known.
    pub fn with_client(mut self, headers: &HeaderMap, ip: Option<std::net::IpAddr>) -> Self {
        let value = |name| {
            headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(|v| cap(v, MAX_FIELD))
                .unwrap_or_default()
        };
        self.host = value(header::HOST);
        self.user_agent = value(header::USER_AGENT);
        self.ip = ip.map(|ip| ip.to_string()).unwrap_or_default();
        self
    }
}

/// `s` cut to at most `max` bytes, on a character boundary.
pub fn cap(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_owned();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s[..end].to_owned()
}

/// The sending side: cheap to clone, shared by every handler of the process.
#[derive(Debug, Clone)]
pub struct UsageRecorder {
    tx: mpsc::Sender<RequestLog>,
    dropped: Arc<AtomicU64>,
}

/// The receiving side, owned by the one task that writes the logs.
#[derive(Debug)]
pub struct UsageQueue {
    rx: mpsc::Receiver<RequestLog>,
}

impl UsageRecorder {
    /// A recorder and its queue, holding at most `capacity` logs not yet taken.
    pub fn channel(capacity: usize) -> (Self, UsageQueue) {
        let (tx, rx) = mpsc::channel(capacity.max(1));
        (
            Self {
                tx,
                dropped: Arc::default(),
            },
            UsageQueue { rx },
        )
    }

    /// Queues `log` without waiting; drops (and counts) it when the queue is full or closed.
    pub fn record(&self, log: RequestLog) {
        if self.tx.try_send(log).is_err() {
            self.dropped.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Logs dropped so far.
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }
}

impl UsageQueue {
    /// Waits for at least one log, then takes up to `max` of those queued; `None` once every
    /// recorder is gone and the queue is empty.
    pub async fn next_batch(&mut self, max: usize) -> Option<Vec<RequestLog>> {
        let mut batch = Vec::new();
        let n = self.rx.recv_many(&mut batch, max.max(1)).await;
        (n > 0).then_some(batch)
    }

    /// Takes up to `max` of the logs queued now, without waiting.
    pub fn drain(&mut self, max: usize) -> Vec<RequestLog> {
        let mut batch = Vec::new();
        while batch.len() < max {
            match self.rx.try_recv() {
                Ok(log) => batch.push(log),
                Err(_) => break,
            }
        }
        batch
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_values_are_cut_on_char_boundaries() {
        assert_eq!(cap("abc", 5), "abc");
        assert_eq!(cap("aé", 2), "a");
        let mut headers = HeaderMap::new();
        headers.insert(header::USER_AGENT, "x".repeat(1000).parse().unwrap());
        let log = RequestLog::new(RequestKind::Rpc, &"/p".repeat(1000)).with_client(&headers, None);
        assert_eq!(
            (log.path.len(), log.user_agent.len()),
            (MAX_PATH, MAX_FIELD)
        );
    }
}
