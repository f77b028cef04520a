//! UUID page tokens, as the Metrics API hands them out: opaque, valid 24 hours from issue,
//! and bound to the query that made them (a token of one series cannot page another).
//!
//! The token maps, in memory, to the period start of the last point of the previous page.
//! Expiry is measured on the injected [`Clock`]. The table is bounded: expired tokens are
//! dropped as new ones are issued, and past [`MAX_TOKENS`] the oldest go first.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use uuid::Uuid;

use super::clock::Clock;
use crate::error::ApiError;

/// How long a token stays valid, seconds.
pub const TOKEN_TTL: u64 = 24 * 60 * 60;

/// At most this many live tokens are kept.
pub const MAX_TOKENS: usize = 100_000;

#[derive(Debug, Clone)]
struct Entry {
    query: String,
    cursor: u64,
    issued: u64,
}

/// The live page tokens of one server.
#[derive(Debug)]
pub struct TokenTable {
    clock: Arc<dyn Clock>,
    entries: Mutex<HashMap<Uuid, Entry>>,
}

impl TokenTable {
    /// An empty table on `clock`.
    pub fn new(clock: Arc<dyn Clock>) -> Self {
        Self {
            clock,
            entries: Mutex::new(HashMap::new()),
        }
    }

    /// Issues a token for the page after `cursor` of the series `query` names.
    pub fn issue(&self, query: &str, cursor: u64) -> String {
        let now = self.clock.now();
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if entries.len() >= MAX_TOKENS {
            entries.retain(|_, e| now.saturating_sub(e.issued) < TOKEN_TTL);
        }
        while entries.len() >= MAX_TOKENS {
            let Some(oldest) = entries
                .iter()
                .min_by_key(|(_, e)| e.issued)
                .map(|(k, _)| *k)
            else {
                break;
            };
            entries.remove(&oldest);
        }
        let token = Uuid::new_v4();
        entries.insert(
            token,
            Entry {
                query: query.to_owned(),
                cursor,
                issued: now,
            },
        );
        token.to_string()
    }

    /// The cursor behind `token` for the series `query` names; a 400 naming the problem when
    /// the token is malformed, unknown, expired or from another query.
    pub fn redeem(&self, query: &str, token: &str) -> Result<u64, ApiError> {
        let Ok(id) = Uuid::parse_str(token) else {
            return Err(ApiError::bad(
                "pageToken must be a UUID issued by this server",
            ));
        };
        let now = self.clock.now();
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        let Some(entry) = entries.get(&id).cloned() else {
            return Err(ApiError::bad(
                "pageToken is unknown: it was not issued by this server (or the server restarted); request the first page again",
            ));
        };
        if now.saturating_sub(entry.issued) >= TOKEN_TTL {
            entries.remove(&id);
            return Err(ApiError::bad(
                "pageToken has expired: page tokens are valid for 24 hours; request the first page again",
            ));
        }
        if entry.query != query {
            return Err(ApiError::bad(
                "pageToken belongs to a different query: keep the other parameters of the request that returned it",
            ));
        }
        Ok(entry.cursor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics_api::clock::VirtualClock;

    #[test]
    fn tokens_expire_after_a_day_and_stay_bound() {
        let clock = VirtualClock::at(1_000);
        let table = TokenTable::new(Arc::new(clock.clone()));
        let t = table.issue("a", 42);
        assert_eq!(table.redeem("a", &t).unwrap(), 42);
        assert!(table.redeem("b", &t).is_err());
        assert!(table.redeem("a", "nope").is_err());
        clock.advance(TOKEN_TTL - 1);
        assert_eq!(table.redeem("a", &t).unwrap(), 42);
        clock.advance(1);
        let err = table.redeem("a", &t).unwrap_err().to_string();
        assert!(err.contains("expired"), "{err}");
    }
}
