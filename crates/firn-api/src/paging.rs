//! Opaque page tokens over the store's keyset cursors, bound to the query that made them.
//!
//! A token is base64url (no padding) of 8 bytes of query fingerprint followed by the store
//! cursor's text ([`PageCursor::to_token`]). The fingerprint is a SHA-256 prefix of the path
//! and every query pair except `pageToken` and `pageSize`, sorted: a token sent with other
//! filters (or to another path) is refused with a 400 instead of silently paging a different
//! list. Tokens never expire: a keyset cursor stays meaningful as blocks are added, which is
//! also why pages neither repeat nor skip rows under inserts.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use firn_store::{PageCursor, PageRequest};
use sha2::{Digest, Sha256};

use crate::params::Query;

/// Longest token accepted (as the official clients check).
pub const MAX_TOKEN_LEN: usize = 512;

const FINGERPRINT_LEN: usize = 8;

/// The query a page belongs to, to bind the next page's token to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Binding([u8; FINGERPRINT_LEN]);

impl Binding {
    /// The binding of `path` with `query`'s filters.
    pub fn of(path: &str, query: &Query) -> Self {
        let mut pairs: Vec<&(String, String)> = query
            .pairs()
            .iter()
            .filter(|(k, _)| k != "pageToken" && k != "pageSize")
            .collect();
        pairs.sort();
        let mut h = Sha256::new();
        h.update(path.as_bytes());
        for (k, v) in pairs {
            h.update([0u8]);
            h.update(k.as_bytes());
            h.update([1u8]);
            h.update(v.as_bytes());
        }
        let digest = h.finalize();
        let mut out = [0u8; FINGERPRINT_LEN];
        out.copy_from_slice(&digest[..FINGERPRINT_LEN]);
        Self(out)
    }

    /// The token of the page after `cursor`.
    pub fn token<C: PageCursor>(&self, cursor: &C) -> String {
        let mut bytes = self.0.to_vec();
        bytes.extend_from_slice(cursor.to_token().as_bytes());
        URL_SAFE_NO_PAD.encode(bytes)
    }

    /// `Some(token)` for a page that has a next one.
    pub fn next<C: PageCursor>(&self, cursor: Option<&C>) -> Option<String> {
        cursor.map(|c| self.token(c))
    }
}

fn valid_charset(token: &str) -> bool {
    token
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"+/=_-:.".contains(&b))
}

/// What a list handler needs to page: the store request and the binding for the next token.
#[derive(Debug, Clone)]
pub struct Paging<C> {
    /// The page to ask the store for.
    pub request: PageRequest<C>,
    /// The query the next token is bound to.
    pub binding: Binding,
}

impl Query {
    /// Reads `pageSize` (1..=`max`, default `default`) and `pageToken` for a list at `path`.
    /// Problems are recorded; [`Query::finish`] reports them.
    pub fn paging<C: PageCursor>(&mut self, path: &str, default: u32, max: u32) -> Paging<C> {
        let binding = Binding::of(path, self);
        let limit = self
            .u64_in("pageSize", 1, u64::from(max))
            .and_then(|n| u32::try_from(n).ok())
            .unwrap_or(default);
        let after = match self.str("pageToken").map(str::to_owned) {
            None => None,
            Some(token) => self.decode_token(&token, binding),
        };
        Paging {
            request: PageRequest { limit, after },
            binding,
        }
    }

    fn decode_token<C: PageCursor>(&mut self, token: &str, binding: Binding) -> Option<C> {
        if token.len() > MAX_TOKEN_LEN || !valid_charset(token) {
            self.error(format!(
                "pageToken must be at most {MAX_TOKEN_LEN} characters of [A-Za-z0-9+/=_-:.]"
            ));
            return None;
        }
        let bytes = match URL_SAFE_NO_PAD.decode(token) {
            Ok(b) if b.len() > FINGERPRINT_LEN => b,
            _ => {
                self.error("pageToken is invalid");
                return None;
            }
        };
        if bytes[..FINGERPRINT_LEN] != binding.0 {
            self.error(
                "pageToken was issued for a different query: send the same path and filters as the request that returned it",
            );
            return None;
        }
        let cursor = std::str::from_utf8(&bytes[FINGERPRINT_LEN..])
            .ok()
            .and_then(|text| C::from_token(text).ok());
        if cursor.is_none() {
            self.error("pageToken is invalid");
        }
        cursor
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use firn_store::page::TxCursor;

    #[test]
    fn tokens_round_trip_and_are_bound_to_the_query() {
        let q = Query::parse("addresses=a&pageSize=5");
        let b = Binding::of("/p", &q);
        let cursor = TxCursor {
            height: 42,
            index: 3,
        };
        let token = b.token(&cursor);
        assert!(token.len() <= MAX_TOKEN_LEN && valid_charset(&token));

        let mut same = Query::parse(&format!("pageSize=7&addresses=a&pageToken={token}"));
        let p = same.paging::<TxCursor>("/p", 10, 100);
        assert!(same.finish().is_ok());
        assert_eq!(p.request.after, Some(cursor));
        assert_eq!(p.request.limit, 7);

        let mut other = Query::parse(&format!("addresses=b&pageToken={token}"));
        other.paging::<TxCursor>("/p", 10, 100);
        assert!(other.finish().is_err());

        for junk in ["!!", "abc", &"a".repeat(600)] {
            let mut q = Query::parse(&format!("pageToken={junk}"));
            q.paging::<TxCursor>("/p", 10, 100);
            assert!(q.finish().is_err(), "{junk}");
        }
    }
}
