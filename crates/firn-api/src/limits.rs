//! Per-request guards, as axum middleware: API keys, rate limits, the body size limit and the
//! request time limit. Each answers in the official error format.
//!
//! Rate limits are fixed windows per API key (requests with a valid key) or per client IP
//! (requests without one); both are off unless configured. Responses under a limit carry the
//! IETF draft headers `ratelimit-policy`, `ratelimit-limit`, `ratelimit-remaining` and
//! `ratelimit-reset`; a 429 adds `retry-after`.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::config::RateLimit;
use crate::error::ApiError;
use crate::state::AppState;

/// The API key headers: the official one and the one the spec names.
pub const API_KEY_HEADERS: [&str; 2] = ["x-glacier-api-key", "x-service-api-key"];

/// Who a request is counted against.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Client {
    Key(String),
    Ip(IpAddr),
}

#[derive(Debug, Clone, Copy)]
struct Window {
    started: Instant,
    used: u64,
}

/// Where a client stands in its window after a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Quota {
    limit: RateLimit,
    remaining: u64,
    reset_secs: u64,
    allowed: bool,
}

/// Fixed-window counters per API key and per IP.
#[derive(Debug)]
pub struct RateLimiter {
    per_key: Option<RateLimit>,
    per_ip: Option<RateLimit>,
    windows: Mutex<HashMap<Client, Window>>,
}

/// Above this many tracked clients, expired windows are dropped.
const PRUNE_ABOVE: usize = 10_000;

impl RateLimiter {
    /// A limiter with the given limits (`None` = unlimited).
    pub fn new(per_key: Option<RateLimit>, per_ip: Option<RateLimit>) -> Self {
        Self {
            per_key,
            per_ip,
            windows: Mutex::new(HashMap::new()),
        }
    }

    fn check(&self, client: Client, now: Instant) -> Option<Quota> {
        let limit = match client {
            Client::Key(_) => self.per_key?,
            Client::Ip(_) => self.per_ip?,
        };
        let mut windows = self.windows.lock().unwrap_or_else(|e| e.into_inner());
        if windows.len() > PRUNE_ABOVE {
            windows.retain(|_, w| now.duration_since(w.started) < limit.window);
        }
        let w = windows.entry(client).or_insert(Window {
            started: now,
            used: 0,
        });
        if now.duration_since(w.started) >= limit.window {
            *w = Window {
                started: now,
                used: 0,
            };
        }
        let allowed = w.used < limit.requests;
        if allowed {
            w.used += 1;
        }
        let left = limit.window.saturating_sub(now.duration_since(w.started));
        Some(Quota {
            limit,
            remaining: limit.requests.saturating_sub(w.used),
            reset_secs: left.as_secs() + u64::from(left.subsec_nanos() > 0),
            allowed,
        })
    }
}

fn sent_key(headers: &HeaderMap) -> Option<String> {
    API_KEY_HEADERS
        .iter()
        .find_map(|h| headers.get(*h))
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
}

fn client_ip(request: &Request) -> IpAddr {
    request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0.ip())
        .unwrap_or(IpAddr::V4(Ipv4Addr::LOCALHOST))
}

fn set(headers: &mut HeaderMap, name: &'static str, value: String) {
    if let Ok(v) = HeaderValue::from_str(&value) {
        headers.insert(name, v);
    }
}

fn quota_headers(headers: &mut HeaderMap, q: &Quota) {
    set(
        headers,
        "ratelimit-policy",
        format!("{};w={}", q.limit.requests, q.limit.window.as_secs()),
    );
    set(headers, "ratelimit-limit", q.limit.requests.to_string());
    set(headers, "ratelimit-remaining", q.remaining.to_string());
    set(headers, "ratelimit-reset", q.reset_secs.to_string());
}

/// Checks the API key (401 for an unknown one when keys are configured) and the rate limit
/// (429 over it), and adds the rate-limit headers.
pub async fn auth_and_rate_limit(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let key = sent_key(request.headers());
    if let Some(k) = &key
        && !state.config.api_keys.is_empty()
        && !state.config.api_keys.iter().any(|known| known == k)
    {
        return ApiError::Unauthorized("Invalid API key".to_owned()).into_response();
    }
    let client = match key {
        Some(k) => Client::Key(k),
        None => Client::Ip(client_ip(&request)),
    };
    let Some(quota) = state.limiter.check(client, Instant::now()) else {
        return next.run(request).await;
    };
    let mut response = if quota.allowed {
        next.run(request).await
    } else {
        ApiError::TooManyRequests {
            retry_after: quota.reset_secs,
        }
        .into_response()
    };
    quota_headers(response.headers_mut(), &quota);
    response
}

/// Refuses bodies over the configured size (by `content-length`; the JSON extractor enforces
/// the same limit while reading) and ends handlers that run past the time limit with a 503.
pub async fn size_and_time(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    let limit = state.config.body_limit;
    if declared.is_some_and(|n| n > limit as u64) {
        return ApiError::PayloadTooLarge(format!("request body is larger than {limit} bytes"))
            .into_response();
    }
    let timeout: Duration = state.config.request_timeout;
    match tokio::time::timeout(timeout, next.run(request)).await {
        Ok(response) => response,
        Err(_) => ApiError::Unavailable(format!(
            "request did not finish within {} ms",
            timeout.as_millis()
        ))
        .into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_count_and_reset() {
        let limit = RateLimit {
            requests: 2,
            window: Duration::from_secs(60),
        };
        let l = RateLimiter::new(None, Some(limit));
        let t0 = Instant::now();
        let ip = Client::Ip(IpAddr::V4(Ipv4Addr::LOCALHOST));
        assert!(
            l.check(Client::Key("k".into()), t0).is_none(),
            "keys unlimited"
        );
        assert_eq!(l.check(ip.clone(), t0).unwrap().remaining, 1);
        assert!(l.check(ip.clone(), t0).unwrap().allowed);
        let third = l.check(ip.clone(), t0).unwrap();
        assert!(!third.allowed);
        assert_eq!(third.reset_secs, 60);
        assert!(l.check(ip, t0 + Duration::from_secs(60)).unwrap().allowed);
    }
}
