//! The Metrics API's page tokens: opaque, valid 24 hours from issue, bound to the query that
//! made them (a token of one series cannot page another), and stateless, so that any of several
//! `firn serve` processes sharing a [`TokenKey`] accepts a token another one issued, and no
//! memory grows however many tokens clients collect.
//!
//! A token is base64url (no padding) of 8 bytes of query fingerprint, the issue time and the
//! cursor's words (the period start of the last point of the previous page, or a list's
//! keyset; 8 bytes each, big-endian) and a 16-byte tag signing them all. Expiry is measured
//! on the injected [`Clock`].

use std::sync::Arc;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest, Sha256};

use super::clock::Clock;
use crate::error::ApiError;
use crate::signing::{TAG_LEN, TokenKey};

/// How long a token stays valid, seconds.
pub const TOKEN_TTL: u64 = 24 * 60 * 60;

const FINGERPRINT_LEN: usize = 8;

/// Most words a cursor may have.
const MAX_WORDS: usize = 4;

/// Issues and redeems the page tokens of one service.
#[derive(Debug)]
pub struct TokenTable {
    clock: Arc<dyn Clock>,
    key: TokenKey,
}

fn fingerprint(query: &str) -> [u8; FINGERPRINT_LEN] {
    let digest = Sha256::digest(query.as_bytes());
    let mut out = [0u8; FINGERPRINT_LEN];
    out.copy_from_slice(&digest[..FINGERPRINT_LEN]);
    out
}

impl TokenTable {
    /// Tokens on `clock`, signed with `key`.
    pub fn new(clock: Arc<dyn Clock>, key: TokenKey) -> Self {
        Self { clock, key }
    }

    /// A token for the page after `cursor` of the series `query` names.
    pub fn issue(&self, query: &str, cursor: u64) -> String {
        self.issue_words(query, &[cursor])
    }

    /// A token for the page after the keyset `words` (at most four) of the list `query` names.
    pub fn issue_words(&self, query: &str, words: &[u64]) -> String {
        let fp = fingerprint(query);
        let issued = self.clock.now().to_be_bytes();
        let cursor: Vec<u8> = words
            .iter()
            .take(MAX_WORDS)
            .flat_map(|w| w.to_be_bytes())
            .collect();
        let mut bytes = Vec::with_capacity(FINGERPRINT_LEN + 8 + cursor.len() + TAG_LEN);
        bytes.extend_from_slice(&fp);
        bytes.extend_from_slice(&issued);
        bytes.extend_from_slice(&cursor);
        bytes.extend_from_slice(&self.key.tag(&[query.as_bytes(), &issued, &cursor]));
        URL_SAFE_NO_PAD.encode(bytes)
    }

    /// The cursor behind `token` for the series `query` names; a 400 naming the problem when
    /// the token is malformed, forged, expired or from another query.
    pub fn redeem(&self, query: &str, token: &str) -> Result<u64, ApiError> {
        match self.redeem_words(query, token)?.as_slice() {
            [word] => Ok(*word),
            _ => Err(not_ours()),
        }
    }

    /// The keyset words behind `token` for the list `query` names (errors as [`Self::redeem`]).
    pub fn redeem_words(&self, query: &str, token: &str) -> Result<Vec<u64>, ApiError> {
        let bytes = URL_SAFE_NO_PAD
            .decode(token)
            .ok()
            .filter(|b| {
                let words = b.len().saturating_sub(FINGERPRINT_LEN + 8 + TAG_LEN);
                b.len() > FINGERPRINT_LEN + 8 + TAG_LEN && words % 8 == 0 && words / 8 <= MAX_WORDS
            })
            .ok_or_else(not_ours)?;
        let (fp, rest) = bytes.split_at(FINGERPRINT_LEN);
        let (issued, rest) = rest.split_at(8);
        let (cursor, tag) = rest.split_at(rest.len() - TAG_LEN);
        if fp != fingerprint(query) {
            return Err(ApiError::bad(
                "pageToken belongs to a different query: keep the other parameters of the request that returned it",
            ));
        }
        if !self.key.verify(&[query.as_bytes(), issued, cursor], tag) {
            return Err(ApiError::bad(
                "pageToken is unknown: it was not issued by this service (or was changed); request the first page again",
            ));
        }
        let word = |b: &[u8]| {
            let mut w = [0u8; 8];
            w.copy_from_slice(b);
            u64::from_be_bytes(w)
        };
        if self.clock.now().saturating_sub(word(issued)) >= TOKEN_TTL {
            return Err(ApiError::bad(
                "pageToken has expired: page tokens are valid for 24 hours; request the first page again",
            ));
        }
        Ok(cursor.chunks(8).map(word).collect())
    }
}

fn not_ours() -> ApiError {
    ApiError::bad("pageToken is not a page token issued by this service")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics_api::clock::VirtualClock;

    #[test]
    fn tokens_expire_after_a_day_and_stay_bound() {
        let clock = VirtualClock::at(1_000);
        let key = TokenKey::from_secret("shared");
        let table = TokenTable::new(Arc::new(clock.clone()), key.clone());
        let t = table.issue("a", 42);
        assert_eq!(table.redeem("a", &t).unwrap(), 42);
        assert!(table.redeem("b", &t).is_err());
        assert!(table.redeem("a", "nope").is_err());
        // Another process with the same secret accepts it; one with another key does not.
        let peer = TokenTable::new(Arc::new(clock.clone()), key);
        assert_eq!(peer.redeem("a", &t).unwrap(), 42);
        let stranger = TokenTable::new(Arc::new(clock.clone()), TokenKey::random());
        let err = stranger.redeem("a", &t).unwrap_err().to_string();
        assert!(err.contains("not issued by this service"), "{err}");
        // Keysets of several words; a one-word reader refuses them.
        let k = table.issue_words("a", &[7, 8, 9]);
        assert_eq!(table.redeem_words("a", &k).unwrap(), [7, 8, 9]);
        assert!(table.redeem("a", &k).is_err());
        clock.advance(TOKEN_TTL - 1);
        assert_eq!(table.redeem("a", &t).unwrap(), 42);
        clock.advance(1);
        let err = table.redeem("a", &t).unwrap_err().to_string();
        assert!(err.contains("expired"), "{err}");
    }
}
