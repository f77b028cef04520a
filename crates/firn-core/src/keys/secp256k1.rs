//! secp256k1 keys, recoverable signatures and the addresses derived from them.
//!
//! AvalancheGo's conventions, which this module follows byte for byte:
//! - a signature is 65 bytes `r ‖ s ‖ v`, `v` the recovery ID (0 or 1, not 27/28), over
//!   `sha256(message)`; signers always produce low-S signatures and recovery rejects high-S
//!   ones ("mutated signature") so a signature cannot be malleated into a second valid one;
//! - an address's [`ShortId`] is `ripemd160(sha256(33-byte compressed public key))`;
//! - the EVM address is the last 20 bytes of `keccak256` of the 64-byte uncompressed public
//!   key without its `0x04` prefix, printed with the EIP-55 mixed-case checksum;
//! - a private key's text form is `PrivateKey-` + cb58 of its 32 bytes.
//!
//! All operations use libsecp256k1's static global context: building a context per call
//! costs more than the signature itself.

use crate::encoding::{EncodingError, cb58_decode, cb58_encode};
use crate::ids::ShortId;
use ripemd::Ripemd160;
use secp256k1::SECP256K1;
use secp256k1::ecdsa::{self, RecoveryId};
use sha2::{Digest, Sha256};
use sha3::Keccak256;
use std::fmt;
use std::str::FromStr;

/// The prefix of a private key's string form.
pub const PRIVATE_KEY_PREFIX: &str = "PrivateKey-";
/// Length of a private key.
pub const PRIVATE_KEY_LEN: usize = 32;
/// Length of a compressed public key.
pub const COMPRESSED_PUBLIC_KEY_LEN: usize = 33;
/// Length of an uncompressed public key (with its `0x04` prefix).
pub const UNCOMPRESSED_PUBLIC_KEY_LEN: usize = 65;
/// Length of a recoverable signature `r ‖ s ‖ v`.
pub const SIGNATURE_LEN: usize = 65;

/// `n / 2` for the secp256k1 group order `n`, big-endian. A signature whose `s` is above
/// this is the "high-S" twin of a valid one and is rejected.
const HALF_ORDER: [u8; 32] = [
    0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0x5d, 0x57, 0x6e, 0x73, 0x57, 0xa4, 0x50, 0x1d, 0xdf, 0xe9, 0x2f, 0x46, 0x68, 0x1b, 0x20, 0xa0,
];

/// What is wrong with a secp256k1 key or signature.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    #[error("private key is zero or not below the secp256k1 group order")]
    InvalidPrivateKey,
    #[error("private key strings start with {PRIVATE_KEY_PREFIX}")]
    MissingPrivateKeyPrefix,
    #[error("invalid private key string: {0}")]
    PrivateKeyString(EncodingError),
    #[error("public key must be 33 (compressed) or 65 (uncompressed) bytes, got {0}")]
    PublicKeyLength(usize),
    #[error("public key is not a point on secp256k1 in compressed or uncompressed form")]
    InvalidPublicKey,
    #[error("signature must be 65 bytes (r ‖ s ‖ v), got {0}")]
    SignatureLength(usize),
    #[error("signature recovery id is {0}, expected 0 or 1")]
    InvalidRecoveryId(u8),
    #[error("mutated signature: s is in the upper half of the group order")]
    MutatedSignature,
    #[error("invalid signature: r or s is out of range or no public key recovers from it")]
    InvalidSignature,
}

/// A secp256k1 private key.
///
/// Its secret bytes are overwritten when it is dropped (a volatile write, as `zeroize`
/// does; libsecp256k1 erases with its own invalid-key marker rather than zeros). Copies
/// handed out by [`PrivateKey::to_bytes`] are the caller's to erase. `Debug` shows only
/// the key's short ID. It keeps its public key, so [`PrivateKey::public_key`] is free.
pub struct PrivateKey {
    secret: secp256k1::SecretKey,
    public: PublicKey,
}

impl PrivateKey {
    /// Builds a key from its 32 big-endian bytes; they must be in `[1, n − 1]`.
    pub fn from_bytes(bytes: &[u8; 32]) -> Result<Self, KeyError> {
        let secret = secp256k1::SecretKey::from_byte_array(bytes)
            .map_err(|_| KeyError::InvalidPrivateKey)?;
        Ok(Self::from_secret(secret))
    }

    fn from_secret(secret: secp256k1::SecretKey) -> Self {
        let public = PublicKey(secp256k1::PublicKey::from_secret_key_global(&secret));
        Self { secret, public }
    }

    /// The 32 big-endian secret bytes.
    pub fn to_bytes(&self) -> [u8; 32] {
        self.secret.secret_bytes()
    }

    /// Derives a key deterministically: `sha256(seed ‖ index as u32 BE)`, re-hashed with
    /// sha256 until it is a valid scalar (all but a ~2⁻¹²⁸ fraction of digests already are).
    pub fn from_seed(seed: &[u8], index: u32) -> Self {
        let mut h = Sha256::new();
        h.update(seed);
        h.update(index.to_be_bytes());
        let mut digest: [u8; 32] = h.finalize().into();
        loop {
            if let Ok(secret) = secp256k1::SecretKey::from_byte_array(&digest) {
                return Self::from_secret(secret);
            }
            digest = Sha256::digest(digest).into();
        }
    }

    /// `PrivateKey-` + cb58 of the secret bytes, as AvalancheGo prints it.
    pub fn to_cb58_string(&self) -> String {
        format!("{PRIVATE_KEY_PREFIX}{}", cb58_encode(&self.to_bytes()))
    }

    /// The public key.
    pub fn public_key(&self) -> PublicKey {
        self.public
    }

    /// Signs a 32-byte hash. The signature is low-S (libsecp256k1 normalises it) with a
    /// deterministic RFC 6979 nonce, so the same key and hash always give the same bytes.
    pub fn sign_hash(&self, hash: &[u8; 32]) -> RecoverableSignature {
        let msg = secp256k1::Message::from_digest(*hash);
        let mut sig = SECP256K1.sign_ecdsa_recoverable(&msg, &self.secret);
        let mut retry = 0u32;
        loop {
            let (recid, rs) = sig.serialize_compact();
            let v = match recid {
                RecoveryId::Zero => 0,
                RecoveryId::One => 1,
                // Recovery IDs 2 and 3 mean the nonce point's x overflowed n (probability
                // about 2⁻¹²⁷); the 65-byte format cannot carry them, so re-sign with extra
                // nonce data, which stays deterministic.
                RecoveryId::Two | RecoveryId::Three => {
                    retry += 1;
                    let mut extra = [0u8; 32];
                    extra[..4].copy_from_slice(&retry.to_be_bytes());
                    sig =
                        SECP256K1.sign_ecdsa_recoverable_with_noncedata(&msg, &self.secret, &extra);
                    continue;
                }
            };
            let mut out = [0u8; SIGNATURE_LEN];
            out[..64].copy_from_slice(&rs);
            out[64] = v;
            return RecoverableSignature(out);
        }
    }

    /// Signs `sha256(msg)`, as AvalancheGo's `PrivateKey.Sign` does.
    pub fn sign(&self, msg: &[u8]) -> RecoverableSignature {
        self.sign_hash(&Sha256::digest(msg).into())
    }
}

impl Drop for PrivateKey {
    fn drop(&mut self) {
        self.secret.non_secure_erase();
    }
}

impl fmt::Debug for PrivateKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PrivateKey")
            .field("short_id", &self.public.short_id())
            .finish_non_exhaustive()
    }
}

impl FromStr for PrivateKey {
    type Err = KeyError;

    /// Parses `PrivateKey-` + cb58 of 32 bytes.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let body = s
            .strip_prefix(PRIVATE_KEY_PREFIX)
            .ok_or(KeyError::MissingPrivateKeyPrefix)?;
        let raw = zeroize::Zeroizing::new(cb58_decode(body).map_err(KeyError::PrivateKeyString)?);
        let bytes: &[u8; 32] = raw.as_slice().try_into().map_err(|_| {
            KeyError::PrivateKeyString(EncodingError::WrongLength {
                expected: PRIVATE_KEY_LEN,
                actual: raw.len(),
            })
        })?;
        Self::from_bytes(bytes)
    }
}

/// A secp256k1 public key. Equality and hashing are over the point (its compressed bytes).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PublicKey(secp256k1::PublicKey);

impl PublicKey {
    /// Parses a 33-byte compressed (`0x02`/`0x03` ‖ x) or 65-byte uncompressed
    /// (`0x04` ‖ x ‖ y) key. The hybrid `0x06`/`0x07` forms are rejected, as AvalancheGo does.
    pub fn from_slice(bytes: &[u8]) -> Result<Self, KeyError> {
        match (bytes.len(), bytes.first()) {
            (COMPRESSED_PUBLIC_KEY_LEN, Some(0x02 | 0x03))
            | (UNCOMPRESSED_PUBLIC_KEY_LEN, Some(0x04)) => secp256k1::PublicKey::from_slice(bytes)
                .map(Self)
                .map_err(|_| KeyError::InvalidPublicKey),
            (COMPRESSED_PUBLIC_KEY_LEN | UNCOMPRESSED_PUBLIC_KEY_LEN, _) => {
                Err(KeyError::InvalidPublicKey)
            }
            (len, _) => Err(KeyError::PublicKeyLength(len)),
        }
    }

    /// The 33-byte compressed form.
    pub fn compressed(&self) -> [u8; 33] {
        self.0.serialize()
    }

    /// The 65-byte uncompressed form, `0x04 ‖ x ‖ y`.
    pub fn uncompressed(&self) -> [u8; 65] {
        self.0.serialize_uncompressed()
    }

    /// The address bytes: `ripemd160(sha256(compressed))`.
    pub fn short_id(&self) -> ShortId {
        let sha = Sha256::digest(self.compressed());
        ShortId(Ripemd160::digest(sha).into())
    }

    /// The EVM address: the last 20 bytes of `keccak256(x ‖ y)`.
    pub fn eth_address(&self) -> [u8; 20] {
        let uncompressed = self.uncompressed();
        let digest = Keccak256::digest(&uncompressed[1..]);
        let mut out = [0u8; 20];
        out.copy_from_slice(&digest[12..]);
        out
    }

    /// The EVM address as `0x` + EIP-55 mixed-case checksummed hex.
    pub fn eth_address_checksummed(&self) -> String {
        eip55(&self.eth_address())
    }

    /// True if `sig` is a valid signature of `hash` by this key: AvalancheGo's rule, the key
    /// recovered from the signature (which must be low-S with `v` ∈ {0, 1}) equals this one.
    pub fn verify_hash(&self, hash: &[u8; 32], sig: &RecoverableSignature) -> bool {
        recover(hash, sig).is_ok_and(|pk| pk == *self)
    }
}

impl fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PublicKey(0x{})", hex::encode(self.compressed()))
    }
}

/// `0x` + the address in hex, each letter upper-cased where the matching nibble of
/// `keccak256(lowercase hex)` is 8 or more (EIP-55).
fn eip55(addr: &[u8; 20]) -> String {
    let lower = hex::encode(addr);
    let digest = Keccak256::digest(lower.as_bytes());
    let mut out = String::with_capacity(42);
    out.push_str("0x");
    for (i, c) in lower.chars().enumerate() {
        let byte = digest[i / 2];
        let nibble = if i % 2 == 0 { byte >> 4 } else { byte & 0x0f };
        out.push(if nibble >= 8 {
            c.to_ascii_uppercase()
        } else {
            c
        });
    }
    out
}

/// A 65-byte recoverable signature `r ‖ s ‖ v` (`v` = recovery ID, 0 or 1), as it appears
/// in AvalancheGo credentials. Holding one says nothing about its validity: see [`recover`].
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct RecoverableSignature(pub [u8; 65]);

impl RecoverableSignature {
    /// Builds one from a slice of exactly 65 bytes (no validity check).
    pub fn from_slice(bytes: &[u8]) -> Result<Self, KeyError> {
        bytes
            .try_into()
            .map(Self)
            .map_err(|_| KeyError::SignatureLength(bytes.len()))
    }

    /// The raw bytes.
    pub fn as_bytes(&self) -> &[u8; 65] {
        &self.0
    }

    /// The recovery ID byte `v`.
    pub fn recovery_id(&self) -> u8 {
        self.0[64]
    }
}

impl fmt::Display for RecoverableSignature {
    /// `0x` + lowercase hex of the 65 bytes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "0x{}", hex::encode(self.0))
    }
}

impl fmt::Debug for RecoverableSignature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RecoverableSignature({self})")
    }
}

/// Recovers the public key that signed `hash`. Rejects `v` > 1, high-S signatures
/// ([`KeyError::MutatedSignature`]), `r` or `s` zero or not below the group order, and
/// signatures from which no key recovers.
pub fn recover(hash: &[u8; 32], sig: &RecoverableSignature) -> Result<PublicKey, KeyError> {
    let recid = match sig.0[64] {
        0 => RecoveryId::Zero,
        1 => RecoveryId::One,
        v => return Err(KeyError::InvalidRecoveryId(v)),
    };
    // Byte-wise big-endian comparison is numeric comparison. An s ≥ n also lands here: it
    // is invalid either way (AvalancheGo rejects it when parsing the scalar).
    if sig.0[32..64] > HALF_ORDER[..] {
        return Err(KeyError::MutatedSignature);
    }
    let parsed = ecdsa::RecoverableSignature::from_compact(&sig.0[..64], recid)
        .map_err(|_| KeyError::InvalidSignature)?;
    let msg = secp256k1::Message::from_digest(*hash);
    SECP256K1
        .recover_ecdsa(&msg, &parsed)
        .map(PublicKey)
        .map_err(|_| KeyError::InvalidSignature)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eip55_matches_the_eip_examples() {
        for s in [
            "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
            "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
            "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB",
            "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb",
        ] {
            let bytes: [u8; 20] = hex::decode(s[2..].to_lowercase())
                .unwrap()
                .try_into()
                .unwrap();
            assert_eq!(eip55(&bytes), s);
        }
    }

    #[test]
    fn half_order_is_half_the_group_order() {
        // n = FFFFFFFF FFFFFFFF FFFFFFFF FFFFFFFE BAAEDCE6 AF48A03B BFD25E8C D0364141; n is
        // odd, so n / 2 (floored) doubled plus one gives n back.
        let n = hex::decode("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141")
            .unwrap();
        let mut doubled = [0u8; 32];
        let mut carry = 1u16; // the "+ 1"
        for i in (0..32).rev() {
            let v = u16::from(HALF_ORDER[i]) * 2 + carry;
            doubled[i] = (v & 0xff) as u8;
            carry = v >> 8;
        }
        assert_eq!(carry, 0);
        assert_eq!(doubled.to_vec(), n);
    }

    #[test]
    fn debug_shows_the_short_id_and_never_the_secret() {
        let key = PrivateKey::from_seed(b"firn debug", 0);
        let shown = format!("{key:?}");
        assert!(shown.contains(&key.public_key().short_id().to_string()));
        assert!(!shown.contains(&hex::encode(key.to_bytes())));
        assert!(!shown.contains(&cb58_encode(&key.to_bytes())));
    }

    #[test]
    fn private_keys_outside_the_scalar_range_are_rejected() {
        assert_eq!(
            PrivateKey::from_bytes(&[0u8; 32]).unwrap_err(),
            KeyError::InvalidPrivateKey
        );
        assert_eq!(
            PrivateKey::from_bytes(&[0xff; 32]).unwrap_err(),
            KeyError::InvalidPrivateKey
        );
    }

    #[test]
    fn from_seed_is_deterministic_and_index_sensitive() {
        let a = PrivateKey::from_seed(b"seed", 1);
        let b = PrivateKey::from_seed(b"seed", 1);
        let c = PrivateKey::from_seed(b"seed", 2);
        assert_eq!(a.to_bytes(), b.to_bytes());
        assert_ne!(a.to_bytes(), c.to_bytes());
        let mut pre = b"seed".to_vec();
        pre.extend_from_slice(&1u32.to_be_bytes());
        assert_eq!(a.to_bytes(), <[u8; 32]>::from(Sha256::digest(&pre)));
    }

    #[test]
    fn public_keys_parse_both_forms_and_reject_hybrid_and_bad_lengths() {
        let pk = PrivateKey::from_seed(b"pk", 0).public_key();
        assert_eq!(PublicKey::from_slice(&pk.compressed()).unwrap(), pk);
        assert_eq!(PublicKey::from_slice(&pk.uncompressed()).unwrap(), pk);
        let mut hybrid = pk.uncompressed();
        hybrid[0] = 0x06 | (pk.compressed()[0] & 1);
        assert_eq!(
            PublicKey::from_slice(&hybrid),
            Err(KeyError::InvalidPublicKey)
        );
        assert_eq!(
            PublicKey::from_slice(&[2u8; 32]),
            Err(KeyError::PublicKeyLength(32))
        );
    }

    #[test]
    fn private_key_strings_need_the_prefix_and_32_bytes() {
        let short = cb58_encode(&[1u8; 31]);
        assert_eq!(
            short.parse::<PrivateKey>().unwrap_err(),
            KeyError::MissingPrivateKeyPrefix
        );
        assert_eq!(
            format!("{PRIVATE_KEY_PREFIX}{short}")
                .parse::<PrivateKey>()
                .unwrap_err(),
            KeyError::PrivateKeyString(EncodingError::WrongLength {
                expected: 32,
                actual: 31
            })
        );
    }
}
