//! The key page tokens are signed with, so that a token cannot be forged or altered, and so
//! that every `firn serve` behind one load balancer accepts the tokens any of them issued: the
//! operator gives them all the same secret (`--page-token-secret`). Without one, a process
//! signs with a random key of its own, and its tokens are good only with it.
//!
//! A tag is the first 16 bytes of HMAC-SHA256 over the token's parts (each length-prefixed, so
//! no two sequences of parts sign alike), checked in constant time.

use hmac::digest::KeyInit;
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

/// Bytes of a token's tag.
pub const TAG_LEN: usize = 16;

/// The key page tokens are signed with: 32 secret bytes, zero-padded to SHA-256's block (as
/// HMAC pads a shorter key anyway).
#[derive(Clone)]
pub struct TokenKey([u8; 64]);

impl std::fmt::Debug for TokenKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TokenKey(..)")
    }
}

impl TokenKey {
    /// The key an operator's secret gives: every process with the same secret signs alike.
    pub fn from_secret(secret: &str) -> Self {
        let mut key = [0u8; 64];
        key[..32].copy_from_slice(&Sha256::digest(secret.as_bytes()));
        Self(key)
    }

    /// A random key, for a process whose tokens need not be accepted by others.
    pub fn random() -> Self {
        let mut key = [0u8; 64];
        key[..16].copy_from_slice(uuid::Uuid::new_v4().as_bytes());
        key[16..32].copy_from_slice(uuid::Uuid::new_v4().as_bytes());
        Self(key)
    }

    /// The tag of `parts`.
    pub fn tag(&self, parts: &[&[u8]]) -> [u8; TAG_LEN] {
        let mut mac = <Hmac<Sha256> as KeyInit>::new(&self.0.into());
        for part in parts {
            mac.update(&(part.len() as u64).to_be_bytes());
            mac.update(part);
        }
        let full = mac.finalize().into_bytes();
        let mut tag = [0u8; TAG_LEN];
        tag.copy_from_slice(&full[..TAG_LEN]);
        tag
    }

    /// Whether `tag` is the tag of `parts`, compared in constant time.
    pub fn verify(&self, parts: &[&[u8]], tag: &[u8]) -> bool {
        let want = self.tag(parts);
        tag.len() == TAG_LEN && want.iter().zip(tag).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0
    }
}

impl Default for TokenKey {
    fn default() -> Self {
        Self::random()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_depend_on_key_and_every_part() {
        let a = TokenKey::from_secret("shared");
        let b = TokenKey::from_secret("shared");
        let tag = a.tag(&[b"query", b"cursor"]);
        assert!(
            b.verify(&[b"query", b"cursor"], &tag),
            "same secret, same tags"
        );
        assert!(!TokenKey::from_secret("other").verify(&[b"query", b"cursor"], &tag));
        assert!(!a.verify(&[b"query", b"cursoR"], &tag));
        assert!(
            !a.verify(&[b"quer", b"ycursor"], &tag),
            "parts are length-prefixed"
        );
        assert!(!a.verify(&[b"query", b"cursor"], &tag[..8]));
        assert!(!TokenKey::random().verify(&[b"query", b"cursor"], &tag));
    }
}
