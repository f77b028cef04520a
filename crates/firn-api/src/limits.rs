//! Per-request guards, as axum middleware: API keys, rate limits, the body size limit and the
//! request time limit. Each answers in the official error format.
//!
//! API keys: when the operator configures keys, a request carrying an unknown key gets a 401;
//! with `require_api_key`, so does one carrying none. Keys are compared in constant time (as
//! SHA-256 digests), and a client's failed attempts are themselves rate limited, so keys
//! cannot be guessed fast.
//!
//! Rate limits are fixed windows per API key (requests with a configured key) or per client
//! (every other request: its IPv4 address, or its IPv6 /64, the block one user holds); both
//! are off unless configured. A key the server does not check is no identity: such requests
//! count against their address, so random keys cannot dodge the address's limit. Memory is
//! bounded whatever clients send: at most [`MAX_TRACKED`] clients have windows of their own,
//! and newcomers past that share one window until old ones expire. Responses under a limit
//! carry the IETF draft headers `ratelimit-policy`, `ratelimit-limit`, `ratelimit-remaining`
//! and `ratelimit-reset`; a 429 adds `retry-after`.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};

use crate::config::RateLimit;
use crate::error::ApiError;
use crate::state::AppState;

/// The API key headers: the official one and the one the spec names.
pub const API_KEY_HEADERS: [&str; 2] = ["x-glacier-api-key", "x-service-api-key"];

/// Clients with windows of their own, at most; past it newcomers share one.
pub const MAX_TRACKED: usize = 100_000;

/// Failed key checks a client may make per minute before it gets 429s.
const AUTH_FAILURES_PER_MINUTE: u64 = 30;

/// Who a request is counted against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Client {
    /// A configured key, by its index in the configuration.
    Key(usize),
    /// An IPv4 address, or an IPv6 /64.
    Address(IpAddr),
    /// Every newcomer while the table is full.
    Overflow,
}

impl Client {
    /// The address a request is counted against: IPv6 cut to its /64.
    fn of(ip: IpAddr) -> Self {
        match ip {
            IpAddr::V4(_) => Self::Address(ip),
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => Self::Address(IpAddr::V4(v4)),
                None => {
                    let s = v6.segments();
                    Self::Address(IpAddr::V6(Ipv6Addr::new(
                        s[0], s[1], s[2], s[3], 0, 0, 0, 0,
                    )))
                }
            },
        }
    }
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

/// Fixed windows per client, at most [`MAX_TRACKED`] of them.
#[derive(Debug)]
struct Windows {
    by_client: Mutex<HashMap<Client, Window>>,
}

impl Windows {
    fn new() -> Self {
        Self {
            by_client: Mutex::new(HashMap::new()),
        }
    }

    /// Counts one request of `client` under `limit` at `now`.
    fn count(&self, client: Client, limit: RateLimit, now: Instant) -> Quota {
        let mut windows = self.by_client.lock().unwrap_or_else(|e| e.into_inner());
        let mut client = client;
        if !windows.contains_key(&client) && windows.len() >= MAX_TRACKED {
            windows.retain(|_, w| now.duration_since(w.started) < limit.window);
            if windows.len() >= MAX_TRACKED {
                client = Client::Overflow;
            }
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
        Quota {
            limit,
            remaining: limit.requests.saturating_sub(w.used),
            reset_secs: left.as_secs() + u64::from(left.subsec_nanos() > 0),
            allowed,
        }
    }

    fn len(&self) -> usize {
        self.by_client
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .len()
    }
}

/// The configured keys and the rate limits.
#[derive(Debug)]
pub struct RateLimiter {
    /// SHA-256 of each configured key: compared in constant time.
    key_digests: Vec<[u8; 32]>,
    per_key: Option<RateLimit>,
    per_ip: Option<RateLimit>,
    requests: Windows,
    auth_failures: Windows,
}

/// What the key check decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum KeyCheck {
    /// A configured key, by index.
    Known(usize),
    /// No key sent, or keys are not checked.
    Anonymous,
    /// A key was sent and is not one of the configured ones.
    Unknown,
}

impl RateLimiter {
    /// A limiter for `keys` with the given limits (`None` = unlimited).
    pub fn new(keys: &[String], per_key: Option<RateLimit>, per_ip: Option<RateLimit>) -> Self {
        Self {
            key_digests: keys.iter().map(|k| digest(k.as_bytes())).collect(),
            per_key,
            per_ip,
            requests: Windows::new(),
            auth_failures: Windows::new(),
        }
    }

    fn check_key(&self, sent: Option<&[u8]>) -> KeyCheck {
        let Some(sent) = sent else {
            return KeyCheck::Anonymous;
        };
        if self.key_digests.is_empty() {
            return KeyCheck::Anonymous;
        }
        let sent = digest(sent);
        // Every configured key is compared, each in constant time: no early exit to time.
        let mut found = None;
        for (i, known) in self.key_digests.iter().enumerate() {
            if constant_time_eq(known, &sent) {
                found = Some(i);
            }
        }
        found.map_or(KeyCheck::Unknown, KeyCheck::Known)
    }

    fn check(&self, client: Client, now: Instant) -> Option<Quota> {
        let limit = match client {
            Client::Key(_) => self.per_key?,
            Client::Address(_) | Client::Overflow => self.per_ip?,
        };
        Some(self.requests.count(client, limit, now))
    }

    /// Counts a failed key check of `client`; whether it may still try.
    fn failed_auth(&self, client: Client, now: Instant) -> Quota {
        let limit = RateLimit {
            requests: AUTH_FAILURES_PER_MINUTE,
            window: Duration::from_secs(60),
        };
        self.auth_failures.count(client, limit, now)
    }

    /// Clients tracked (for tests and `/metrics`).
    pub fn tracked(&self) -> usize {
        self.requests.len() + self.auth_failures.len()
    }
}

fn digest(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// Equal, in time that does not depend on where the bytes differ.
fn constant_time_eq(a: &[u8; 32], b: &[u8; 32]) -> bool {
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

pub(crate) fn sent_key(headers: &HeaderMap) -> Option<&[u8]> {
    API_KEY_HEADERS
        .iter()
        .find_map(|h| headers.get(*h))
        .map(|v| v.as_bytes())
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

/// Checks the API key (401 for an unknown one when keys are configured, and for none when
/// they are required; a client's 401s are rate limited) and the rate limit (429 over it), and
/// adds the rate-limit headers.
pub async fn auth_and_rate_limit(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let now = Instant::now();
    let address = Client::of(client_ip(&request));
    let limiter = &state.limiter;
    let refused = match limiter.check_key(sent_key(request.headers())) {
        KeyCheck::Known(i) => Ok(Client::Key(i)),
        KeyCheck::Anonymous if state.config.require_api_key => {
            Err("An API key is required: send it in the x-glacier-api-key header")
        }
        KeyCheck::Anonymous => Ok(address),
        KeyCheck::Unknown => Err("Invalid API key"),
    };
    let client = match refused {
        Ok(client) => client,
        Err(message) => {
            let tries = limiter.failed_auth(address, now);
            if !tries.allowed {
                return ApiError::TooManyRequests {
                    retry_after: tries.reset_secs,
                    reason: None,
                }
                .into_response();
            }
            return ApiError::Unauthorized(message.to_owned()).into_response();
        }
    };
    let Some(quota) = limiter.check(client, now) else {
        return next.run(request).await;
    };
    let mut response = if quota.allowed {
        next.run(request).await
    } else {
        ApiError::TooManyRequests {
            retry_after: quota.reset_secs,
            reason: None,
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

    fn per_minute(requests: u64) -> Option<RateLimit> {
        Some(RateLimit {
            requests,
            window: Duration::from_secs(60),
        })
    }

    #[test]
    fn windows_count_and_reset() {
        let l = RateLimiter::new(&[], None, per_minute(2));
        let t0 = Instant::now();
        let ip = Client::of(IpAddr::V4(Ipv4Addr::LOCALHOST));
        assert!(l.check(Client::Key(0), t0).is_none(), "keys unlimited");
        assert_eq!(l.check(ip, t0).unwrap().remaining, 1);
        assert!(l.check(ip, t0).unwrap().allowed);
        let third = l.check(ip, t0).unwrap();
        assert!(!third.allowed);
        assert_eq!(third.reset_secs, 60);
        assert!(l.check(ip, t0 + Duration::from_secs(60)).unwrap().allowed);
    }

    #[test]
    fn keys_are_known_by_digest_and_unchecked_keys_are_anonymous() {
        let keys = ["alpha".to_owned(), "beta".to_owned()];
        let l = RateLimiter::new(&keys, None, None);
        assert_eq!(l.check_key(Some(b"beta")), KeyCheck::Known(1));
        assert_eq!(l.check_key(Some(b"gamma")), KeyCheck::Unknown);
        assert_eq!(l.check_key(Some(b"")), KeyCheck::Unknown);
        assert_eq!(l.check_key(None), KeyCheck::Anonymous);
        let open = RateLimiter::new(&[], None, None);
        assert_eq!(open.check_key(Some(b"anything")), KeyCheck::Anonymous);
    }

    #[test]
    fn an_ipv6_client_is_its_slash_64() {
        let a: IpAddr = "2001:db8:1:2:aaaa::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:bbbb::9".parse().unwrap();
        let c: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(Client::of(a), Client::of(b));
        assert_ne!(Client::of(a), Client::of(c));
        let mapped: IpAddr = "::ffff:10.0.0.1".parse().unwrap();
        assert_eq!(Client::of(mapped), Client::of("10.0.0.1".parse().unwrap()));
    }

    #[test]
    fn memory_stays_bounded_whatever_clients_send() {
        let l = RateLimiter::new(&[], None, per_minute(1_000));
        let t0 = Instant::now();
        let client = |i: u128| Client::of(IpAddr::V6(Ipv6Addr::from((i << 64) | 1)));
        for i in 0..MAX_TRACKED as u128 {
            assert!(l.check(client(i), t0).unwrap().allowed);
        }
        // Newcomers past the cap share one window: the table stops growing, and together
        // they get one client's allowance.
        let late: Vec<bool> = (0..2_000u128)
            .map(|i| {
                l.check(client(MAX_TRACKED as u128 + i), t0)
                    .unwrap()
                    .allowed
            })
            .collect();
        assert!(l.tracked() <= MAX_TRACKED + 1, "{}", l.tracked());
        assert_eq!(late.iter().filter(|a| **a).count(), 1_000);
        // Once the old windows expire, newcomers get windows of their own again.
        let later = t0 + Duration::from_secs(61);
        assert_eq!(
            l.check(client(u64::MAX as u128), later).unwrap().remaining,
            999
        );
    }
}
