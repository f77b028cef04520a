//! Opaque page tokens over the store's keyset cursors, bound to the query that made them and
//! signed.
//!
//! A token is base64url (no padding) of 8 bytes of query fingerprint, the store cursor's text
//! ([`PageCursor::to_token`]) and a 16-byte tag signing both with the server's
//! [`TokenKey`](crate::signing::TokenKey). The fingerprint is a SHA-256 prefix of the path and
//! every query pair except `pageToken` and `pageSize`, sorted: a token sent with other filters
//! (or to another path) is refused with a 400 instead of silently paging a different list; a
//! token whose tag does not check (forged, altered, or signed with another key) is refused with
//! a 400 before its cursor is read. Tokens never expire: a keyset cursor stays meaningful as
//! blocks are added, which is also why pages neither repeat nor skip rows under inserts.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use firn_store::{PageCursor, PageRequest};
use sha2::{Digest, Sha256};

use crate::params::Query;
use crate::signing::{TAG_LEN, TokenKey};

/// Longest token accepted (as the official clients check).
pub const MAX_TOKEN_LEN: usize = 512;

const FINGERPRINT_LEN: usize = 8;

/// The query a page belongs to, to bind the next page's token to, and the key it is signed
/// with.
#[derive(Debug, Clone)]
pub struct Binding {
    fingerprint: [u8; FINGERPRINT_LEN],
    key: TokenKey,
}

impl Binding {
    /// The binding of `path` with `query`'s filters, signed with `key`.
    pub fn of(path: &str, query: &Query, key: &TokenKey) -> Self {
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
        let mut fingerprint = [0u8; FINGERPRINT_LEN];
        fingerprint.copy_from_slice(&digest[..FINGERPRINT_LEN]);
        Self {
            fingerprint,
            key: key.clone(),
        }
    }

    /// The token of the page after `cursor`.
    pub fn token<C: PageCursor>(&self, cursor: &C) -> String {
        let cursor = cursor.to_token();
        let mut bytes = self.fingerprint.to_vec();
        bytes.extend_from_slice(cursor.as_bytes());
        bytes.extend_from_slice(&self.key.tag(&[&self.fingerprint, cursor.as_bytes()]));
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
    /// Reads `pageSize` (1..=`max`, default `default`) and `pageToken` (signed with `key`) for
    /// a list at `path`. Problems are recorded; [`Query::finish`] reports them.
    pub fn paging<C: PageCursor>(
        &mut self,
        path: &str,
        key: &TokenKey,
        default: u32,
        max: u32,
    ) -> Paging<C> {
        let binding = Binding::of(path, self, key);
        let limit = self
            .u64_in("pageSize", 1, u64::from(max))
            .and_then(|n| u32::try_from(n).ok())
            .unwrap_or(default);
        let after = match self.str("pageToken").map(str::to_owned) {
            None => None,
            Some(token) => self.decode_token(&token, &binding),
        };
        Paging {
            request: PageRequest { limit, after },
            binding,
        }
    }

    fn decode_token<C: PageCursor>(&mut self, token: &str, binding: &Binding) -> Option<C> {
        if token.len() > MAX_TOKEN_LEN || !valid_charset(token) {
            self.error(format!(
                "pageToken must be at most {MAX_TOKEN_LEN} characters of [A-Za-z0-9+/=_-:.]"
            ));
            return None;
        }
        let bytes = match URL_SAFE_NO_PAD.decode(token) {
            Ok(b) if b.len() > FINGERPRINT_LEN + TAG_LEN => b,
            _ => {
                self.error("pageToken is invalid");
                return None;
            }
        };
        let (fingerprint, rest) = bytes.split_at(FINGERPRINT_LEN);
        let (cursor, tag) = rest.split_at(rest.len() - TAG_LEN);
        if fingerprint != binding.fingerprint {
            self.error(
                "pageToken was issued for a different query: send the same path and filters as the request that returned it",
            );
            return None;
        }
        if !binding.key.verify(&[fingerprint, cursor], tag) {
            self.error(
                "pageToken is invalid: it was not issued by this service (or was changed); request the first page again",
            );
            return None;
        }
        let cursor = std::str::from_utf8(cursor)
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
        let key = TokenKey::random();
        let q = Query::parse("addresses=a&pageSize=5");
        let b = Binding::of("/p", &q, &key);
        let cursor = TxCursor {
            height: 42,
            index: 3,
        };
        let token = b.token(&cursor);
        assert!(token.len() <= MAX_TOKEN_LEN && valid_charset(&token));

        let mut same = Query::parse(&format!("pageSize=7&addresses=a&pageToken={token}"));
        let p = same.paging::<TxCursor>("/p", &key, 10, 100);
        assert!(same.finish().is_ok());
        assert_eq!(p.request.after, Some(cursor));
        assert_eq!(p.request.limit, 7);

        let mut other = Query::parse(&format!("addresses=b&pageToken={token}"));
        other.paging::<TxCursor>("/p", &key, 10, 100);
        assert!(other.finish().is_err());

        // Signed with another key (another service, or a forgery): refused before its cursor
        // is read.
        let mut foreign = Query::parse(&format!("addresses=a&pageToken={token}"));
        foreign.paging::<TxCursor>("/p", &TokenKey::random(), 10, 100);
        let err = foreign.finish().unwrap_err().to_string();
        assert!(err.contains("not issued by this service"), "{err}");
        // An altered cursor breaks the tag.
        let mut raw = URL_SAFE_NO_PAD.decode(&token).unwrap();
        raw[FINGERPRINT_LEN] ^= 1;
        let altered = URL_SAFE_NO_PAD.encode(raw);
        let mut q = Query::parse(&format!("addresses=a&pageToken={altered}"));
        q.paging::<TxCursor>("/p", &key, 10, 100);
        assert!(q.finish().is_err());

        for junk in ["!!", "abc", &"a".repeat(600)] {
            let mut q = Query::parse(&format!("pageToken={junk}"));
            q.paging::<TxCursor>("/p", &key, 10, 100);
            assert!(q.finish().is_err(), "{junk}");
        }
    }
}
