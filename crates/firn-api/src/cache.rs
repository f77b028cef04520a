//! Rendered responses kept by request and store generation: a GET a route answered from the
//! store alone is answered again with the same bytes for as long as the store's generation
//! ([`firn_store::Store::generation`]) has not moved — an indexed page never changes between
//! commits, so rendering it once per commit is enough. Every such response carries an `ETag`
//! (a hash of its body) and `Cache-Control: no-cache`, and a request whose `If-None-Match`
//! names the current tag gets a bodiless 304, cached or not.
//!
//! Only the routes that read nothing but the store are wrapped ([`crate::routes::router`]);
//! the node-backed native balances, health, the signature aggregator and the Metrics API are
//! not. The cache is bounded in entries and bytes; a response larger than
//! [`MAX_CACHED_BODY`] is served but not kept, and when full the oldest entries go first.

use std::collections::{HashMap, VecDeque};
use std::hash::Hasher;
use std::sync::Mutex;

use axum::body::HttpBody as _;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;

use crate::state::AppState;

/// The largest body kept.
pub const MAX_CACHED_BODY: usize = 1024 * 1024;
/// The most responses kept.
pub const MAX_ENTRIES: usize = 65_536;

#[derive(Debug)]
struct Entry {
    generation: u64,
    etag: HeaderValue,
    content_type: Option<HeaderValue>,
    body: Bytes,
}

#[derive(Debug, Default)]
struct Inner {
    entries: HashMap<String, Entry>,
    /// Keys by insertion, oldest first (a key may appear again after a re-insert).
    order: VecDeque<String>,
    bytes: usize,
}

/// The responses, at most `capacity` bytes of bodies.
#[derive(Debug)]
pub struct ResponseCache {
    capacity: usize,
    inner: Mutex<Inner>,
}

impl ResponseCache {
    /// A cache of at most `capacity` bytes of bodies (0 keeps nothing).
    pub fn new(capacity: usize) -> Self {
        Self {
            capacity,
            inner: Mutex::new(Inner::default()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The response kept for `key` at `generation`, if any.
    fn get(&self, key: &str, generation: u64) -> Option<(HeaderValue, Option<HeaderValue>, Bytes)> {
        let inner = self.lock();
        let e = inner.entries.get(key)?;
        (e.generation == generation)
            .then(|| (e.etag.clone(), e.content_type.clone(), e.body.clone()))
    }

    fn put(&self, key: String, entry: Entry) {
        let size = entry.body.len();
        if self.capacity == 0 || size > MAX_CACHED_BODY || size > self.capacity {
            return;
        }
        let mut inner = self.lock();
        if let Some(old) = inner.entries.remove(&key) {
            inner.bytes -= old.body.len();
        }
        while inner.bytes + size > self.capacity || inner.entries.len() >= MAX_ENTRIES {
            let Some(oldest) = inner.order.pop_front() else {
                break;
            };
            if let Some(old) = inner.entries.remove(&oldest) {
                inner.bytes -= old.body.len();
            }
        }
        inner.bytes += size;
        inner.order.push_back(key.clone());
        inner.entries.insert(key, entry);
        // Re-inserted keys leave stale names behind in `order`; keep it from growing past
        // twice the entries.
        if inner.order.len() > 2 * inner.entries.len() + 64 {
            let Inner { entries, order, .. } = &mut *inner;
            let mut seen = std::collections::HashSet::new();
            order.retain(|k| entries.contains_key(k) && seen.insert(k.clone()));
        }
    }

    /// Bytes of bodies kept now.
    pub fn bytes(&self) -> usize {
        self.lock().bytes
    }
}

/// The tag of a body: 64 bits of a keyed hash, quoted.
fn etag_of(body: &[u8]) -> HeaderValue {
    // A fixed key: every process tags the same body alike, so tags survive restarts and
    // load balancers.
    let mut h = std::collections::hash_map::DefaultHasher::new();
    h.write(body);
    HeaderValue::from_str(&format!("\"{:016x}\"", h.finish()))
        .unwrap_or_else(|_| HeaderValue::from_static("\"0\""))
}

/// Whether `If-None-Match` in `headers` names `etag` (or is `*`).
fn not_modified(headers: &HeaderMap, etag: &HeaderValue) -> bool {
    let Ok(tag) = etag.to_str() else {
        return false;
    };
    headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|t| t.trim().trim_start_matches("W/"))
        .any(|t| t == "*" || t == tag)
}

fn respond(
    headers: &HeaderMap,
    etag: HeaderValue,
    content_type: Option<HeaderValue>,
    body: Bytes,
) -> Response {
    let fresh = not_modified(headers, &etag);
    let mut response = if fresh {
        let mut r = Response::new(Body::empty());
        *r.status_mut() = StatusCode::NOT_MODIFIED;
        r
    } else {
        let mut r = Response::new(Body::from(body));
        if let Some(ct) = content_type {
            r.headers_mut().insert(header::CONTENT_TYPE, ct);
        }
        r
    };
    let h = response.headers_mut();
    h.insert(header::ETAG, etag);
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

/// Middleware (`axum::middleware::from_fn_with_state`) for the store-only routes.
pub async fn cached(State(state): State<AppState>, request: Request, next: Next) -> Response {
    if request.method() != Method::GET {
        return next.run(request).await;
    }
    let key = request.uri().path_and_query().map_or_else(
        || request.uri().path().to_owned(),
        |pq| pq.as_str().to_owned(),
    );
    // Read before rendering: a commit during the render leaves the entry stale, not wrong.
    let generation = state.store.generation();
    if let Some((etag, content_type, body)) = state.responses.get(&key, generation) {
        return respond(request.headers(), etag, content_type, body);
    }
    let headers = request.headers().clone();
    let response = next.run(request).await;
    let small = response
        .body()
        .size_hint()
        .exact()
        .is_some_and(|n| n <= MAX_CACHED_BODY as u64);
    if response.status() != StatusCode::OK || !small {
        return response;
    }
    let (parts, body) = response.into_parts();
    let Ok(body) = axum::body::to_bytes(body, MAX_CACHED_BODY).await else {
        let mut r = Response::from_parts(parts, Body::empty());
        *r.status_mut() = StatusCode::INTERNAL_SERVER_ERROR;
        return r;
    };
    let etag = etag_of(&body);
    let content_type = parts.headers.get(header::CONTENT_TYPE).cloned();
    state.responses.put(
        key,
        Entry {
            generation,
            etag: etag.clone(),
            content_type: content_type.clone(),
            body: body.clone(),
        },
    );
    respond(&headers, etag, content_type, body)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(generation: u64, body: &'static [u8]) -> Entry {
        Entry {
            generation,
            etag: etag_of(body),
            content_type: None,
            body: Bytes::from_static(body),
        }
    }

    #[test]
    fn entries_answer_only_at_their_generation_and_stay_in_budget() {
        let c = ResponseCache::new(10);
        c.put("/a".into(), entry(1, b"aaaa"));
        assert!(c.get("/a", 1).is_some());
        assert!(c.get("/a", 2).is_none(), "a commit since");
        c.put("/b".into(), entry(1, b"bbbb"));
        c.put("/c".into(), entry(1, b"cccc"));
        assert!(c.get("/a", 1).is_none(), "the oldest went first");
        assert_eq!(c.bytes(), 8);
        c.put("/big".into(), entry(1, b"too large for it"));
        assert!(c.get("/big", 1).is_none());
        let off = ResponseCache::new(0);
        off.put("/empty".into(), entry(1, b""));
        assert!(
            off.get("/empty", 1).is_none(),
            "a cache of 0 bytes keeps nothing"
        );
        for i in 0..1_000 {
            c.put("/b".into(), entry(i, b"bb"));
        }
        assert_eq!(c.bytes(), 6);
        assert!(
            c.lock().order.len() < 200,
            "re-inserts do not grow the order"
        );
    }

    #[test]
    fn if_none_match_lists_and_weak_tags() {
        let tag = etag_of(b"x");
        let mut h = HeaderMap::new();
        assert!(!not_modified(&h, &tag));
        let listed = format!("\"other\", W/{}", tag.to_str().unwrap());
        h.insert(
            header::IF_NONE_MATCH,
            HeaderValue::from_str(&listed).unwrap(),
        );
        assert!(not_modified(&h, &tag));
        h.insert(header::IF_NONE_MATCH, HeaderValue::from_static("*"));
        assert!(not_modified(&h, &tag));
        assert_ne!(etag_of(b"x"), etag_of(b"y"));
    }
}
