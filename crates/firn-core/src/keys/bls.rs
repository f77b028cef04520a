//! BLS12-381 keys and signatures (min_pk), as AvalancheGo uses them.
//!
//! Public keys are G1 points (48 bytes compressed), signatures G2 points (96 bytes
//! compressed), both in the IETF "proof of possession" ciphersuite: messages are signed
//! under [`SIGNATURE_DST`], and a validator proves it owns its key by signing the 48-byte
//! compressed key under [`POP_DST`].
//!
//! Validation happens once, at decode: a [`PublicKey`] is always on the curve, in the G1
//! subgroup and not the point at infinity (KeyValidate); a [`Signature`] is always on the
//! curve and in the G2 subgroup. Every verification function relies on that and skips the
//! checks. Both keep the decompressed point, so aggregation and verification do no
//! decompression.

use crate::encoding::{EncodingError, hex_decode_lenient};
use blst::min_pk;
use blst::{BLST_ERROR, MultiPoint};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use sha2::{Digest, Sha256};
use std::fmt;
use std::hash::{Hash, Hasher};
use std::str::FromStr;

/// Length of a compressed public key (a G1 point).
pub const PUBLIC_KEY_LEN: usize = 48;
/// Length of a compressed signature (a G2 point).
pub const SIGNATURE_LEN: usize = 96;
/// Length of a secret key (a big-endian scalar).
pub const SECRET_KEY_LEN: usize = 32;
/// Length of an uncompressed public key.
pub const UNCOMPRESSED_PUBLIC_KEY_LEN: usize = 96;
/// Domain separation tag of message signatures.
pub const SIGNATURE_DST: &[u8] = b"BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_";
/// Domain separation tag of proofs of possession.
pub const POP_DST: &[u8] = b"BLS_POP_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_";

/// Points per batched sum. blst sums a slice of affine points with one shared inversion
/// per tree level (about half the cost of adding them one by one), but hands slices of 384
/// points or more to its own thread pool, whose threads would compete with the caller's
/// (the aggregator already keeps every core busy). Sums of more points add chunk sums.
const SUM_CHUNK: usize = 256;
/// The compressed encoding of the G1 point at infinity.
const G1_INFINITY: [u8; PUBLIC_KEY_LEN] = {
    let mut b = [0u8; PUBLIC_KEY_LEN];
    b[0] = 0xc0;
    b
};

/// Bits in each randomizer of [`batch_verify`].
const BATCH_RANDOMIZER_BITS: usize = 64;
/// Domain tag of the hash that seeds [`batch_verify`]'s randomizers.
const BATCH_SEED_TAG: &[u8] = b"firn/keys/bls/batch_verify/v1";

/// What is wrong with a BLS key or signature.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BlsError {
    #[error("{what} must be {expected} bytes, got {actual}")]
    WrongLength {
        what: &'static str,
        expected: usize,
        actual: usize,
    },
    #[error("secret key is zero or not below the group order")]
    InvalidSecretKey,
    #[error("key generation needs at least 32 bytes of key material, got {0}")]
    SeedTooShort(usize),
    #[error("{what} is not a compressed curve point: {reason}")]
    InvalidPoint {
        what: &'static str,
        reason: &'static str,
    },
    #[error("{0} is the point at infinity")]
    PointAtInfinity(&'static str),
    #[error("{0} is not in the prime-order subgroup")]
    NotInSubgroup(&'static str),
    #[error("cannot aggregate an empty list of {0}")]
    EmptyAggregate(&'static str),
    #[error("invalid hex: {0}")]
    Hex(EncodingError),
}

/// Turns a blst decode or validation error about `what` into a [`BlsError`].
fn point_error(what: &'static str, err: BLST_ERROR) -> BlsError {
    match err {
        BLST_ERROR::BLST_PK_IS_INFINITY => BlsError::PointAtInfinity(what),
        BLST_ERROR::BLST_POINT_NOT_IN_GROUP => BlsError::NotInSubgroup(what),
        BLST_ERROR::BLST_POINT_NOT_ON_CURVE => BlsError::InvalidPoint {
            what,
            reason: "not on the curve",
        },
        _ => BlsError::InvalidPoint {
            what,
            reason: "bad encoding (flags or a coordinate not below the field modulus)",
        },
    }
}

fn check_len(what: &'static str, bytes: &[u8], expected: usize) -> Result<(), BlsError> {
    if bytes.len() == expected {
        Ok(())
    } else {
        Err(BlsError::WrongLength {
            what,
            expected,
            actual: bytes.len(),
        })
    }
}

/// A BLS secret key. blst zeroes the scalar when it is dropped; copies handed out by
/// [`SecretKey::to_bytes`] are the caller's to erase. `Debug` shows only the public key.
pub struct SecretKey(min_pk::SecretKey);

impl SecretKey {
    /// Builds a key from its 32 big-endian bytes; the scalar must be in `[1, r − 1]`.
    pub fn from_bytes(bytes: &[u8; 32]) -> Result<Self, BlsError> {
        min_pk::SecretKey::from_bytes(bytes)
            .map(Self)
            .map_err(|_| BlsError::InvalidSecretKey)
    }

    /// The 32 big-endian bytes.
    pub fn to_bytes(&self) -> [u8; 32] {
        self.0.to_bytes()
    }

    /// Derives a key from at least 32 bytes of key material with the IETF KeyGen
    /// (HKDF-SHA-256, empty key info), as AvalancheGo's `localsigner` does.
    pub fn from_seed(ikm: &[u8]) -> Result<Self, BlsError> {
        if ikm.len() < 32 {
            return Err(BlsError::SeedTooShort(ikm.len()));
        }
        min_pk::SecretKey::key_gen(ikm, &[])
            .map(Self)
            .map_err(|_| BlsError::SeedTooShort(ikm.len()))
    }

    /// The public key.
    pub fn public_key(&self) -> PublicKey {
        PublicKey::from_point(self.0.sk_to_pk())
    }

    /// Signs a message under [`SIGNATURE_DST`].
    pub fn sign(&self, msg: &[u8]) -> Signature {
        Signature(self.0.sign(msg, SIGNATURE_DST, &[]))
    }

    /// Signs the compressed public key under [`POP_DST`]: the proof of possession a
    /// validator registers with its key.
    pub fn sign_proof_of_possession(&self) -> Signature {
        let pk = self.public_key();
        Signature(self.0.sign(&pk.bytes, POP_DST, &[]))
    }
}

impl fmt::Debug for SecretKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SecretKey")
            .field("public_key", &self.public_key())
            .finish_non_exhaustive()
    }
}

/// A validated BLS public key (G1). Equality and hashing are over the compressed bytes;
/// it has no `Ord` on purpose, since Warp orders validators by the *uncompressed* bytes
/// ([`PublicKey::to_uncompressed`]).
#[derive(Clone)]
pub struct PublicKey {
    point: min_pk::PublicKey,
    bytes: [u8; PUBLIC_KEY_LEN],
}

impl PublicKey {
    fn from_point(point: min_pk::PublicKey) -> Self {
        Self {
            bytes: point.compress(),
            point,
        }
    }

    /// Parses a 48-byte compressed key and runs KeyValidate: on the curve, in the
    /// subgroup, not the point at infinity.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, BlsError> {
        const WHAT: &str = "public key";
        check_len(WHAT, bytes, PUBLIC_KEY_LEN)?;
        let point = min_pk::PublicKey::uncompress(bytes).map_err(|e| point_error(WHAT, e))?;
        point.validate().map_err(|e| point_error(WHAT, e))?;
        Ok(Self::from_point(point))
    }

    /// The 48-byte compressed form.
    pub fn to_bytes(&self) -> [u8; 48] {
        self.bytes
    }

    /// The 96-byte uncompressed form (`x ‖ y`, big-endian, flags clear): the sort key of
    /// Warp's canonical validator order.
    pub fn to_uncompressed(&self) -> [u8; 96] {
        self.point.serialize()
    }
}

impl PartialEq for PublicKey {
    fn eq(&self, other: &Self) -> bool {
        self.bytes == other.bytes
    }
}

impl Eq for PublicKey {}

impl Hash for PublicKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.bytes.hash(state);
    }
}

impl fmt::Display for PublicKey {
    /// `0x` + hex of the compressed bytes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "0x{}", hex::encode(self.bytes))
    }
}

impl fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PublicKey({self})")
    }
}

impl FromStr for PublicKey {
    type Err = BlsError;

    /// Parses hex of the compressed bytes, with or without `0x`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::from_bytes(&hex_decode_lenient(s).map_err(BlsError::Hex)?)
    }
}

/// A BLS signature (G2), on the curve and in the subgroup. It may be the point at infinity,
/// as in AvalancheGo: such a signature never verifies against a valid key.
#[derive(Clone, PartialEq, Eq)]
pub struct Signature(min_pk::Signature);

impl Signature {
    /// Parses a 96-byte compressed signature and checks it is on the curve and in the
    /// subgroup.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, BlsError> {
        const WHAT: &str = "signature";
        check_len(WHAT, bytes, SIGNATURE_LEN)?;
        let point = min_pk::Signature::uncompress(bytes).map_err(|e| point_error(WHAT, e))?;
        point.validate(false).map_err(|e| point_error(WHAT, e))?;
        Ok(Self(point))
    }

    /// The 96-byte compressed form.
    pub fn to_bytes(&self) -> [u8; 96] {
        self.0.compress()
    }

    /// `self + other`, the aggregate of both (a sum of subgroup points stays in the
    /// subgroup).
    pub fn plus(&self, other: &Signature) -> Signature {
        let mut sum = min_pk::AggregateSignature::from_signature(&self.0);
        sum.add_aggregate(&min_pk::AggregateSignature::from_signature(&other.0));
        Signature(sum.to_signature())
    }
}

impl fmt::Display for Signature {
    /// `0x` + hex of the compressed bytes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "0x{}", hex::encode(self.to_bytes()))
    }
}

impl fmt::Debug for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Signature({self})")
    }
}

impl FromStr for Signature {
    type Err = BlsError;

    /// Parses hex of the compressed bytes, with or without `0x`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::from_bytes(&hex_decode_lenient(s).map_err(BlsError::Hex)?)
    }
}

macro_rules! serde_as_hex_string {
    ($name:ident) => {
        impl Serialize for $name {
            /// A `0x`-prefixed hex string of the compressed bytes.
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            /// From a hex string of the compressed bytes (`0x` optional), validated.
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
                s.parse().map_err(serde::de::Error::custom)
            }
        }
    };
}

serde_as_hex_string!(PublicKey);
serde_as_hex_string!(Signature);

fn is_success(err: BLST_ERROR) -> bool {
    err == BLST_ERROR::BLST_SUCCESS
}

/// True if `sig` is `pk`'s signature of `msg` under [`SIGNATURE_DST`].
pub fn verify(pk: &PublicKey, msg: &[u8], sig: &Signature) -> bool {
    pairing_check(pk, msg, SIGNATURE_DST, sig)
}

/// True if `pop` is `pk`'s proof of possession: its signature of `pk`'s compressed bytes
/// under [`POP_DST`]. A message signature over the same bytes does not pass.
pub fn verify_proof_of_possession(pk: &PublicKey, pop: &Signature) -> bool {
    pairing_check(pk, &pk.bytes, POP_DST, pop)
}

/// `e(pk, H(msg)) == e(g1, sig)`, on the calling thread. (blst's own `verify` hands the
/// message's half to its thread pool and blocks until it answers: a thread hop per check,
/// and a blocked async worker meanwhile.) Both points were validated when built, so no
/// group checks here.
fn pairing_check(pk: &PublicKey, msg: &[u8], dst: &[u8], sig: &Signature) -> bool {
    let mut pairing = blst::Pairing::new(true, dst);
    let pk: &blst::blst_p1_affine = (&pk.point).into();
    let sig: &blst::blst_p2_affine = (&sig.0).into();
    if !is_success(pairing.aggregate(pk, false, sig, false, msg, &[])) {
        return false;
    }
    pairing.commit();
    pairing.finalverify(None)
}

/// The sum of the public keys. Errors on an empty list, and on a sum that is the point at
/// infinity (only possible when keys cancel out, which proofs of possession rule out for
/// registered validators), so the result is again a valid [`PublicKey`].
pub fn aggregate_public_keys(pks: &[&PublicKey]) -> Result<PublicKey, BlsError> {
    let points: Vec<min_pk::PublicKey> = pks.iter().map(|pk| pk.point).collect();
    let sum = PublicKey::from_point(
        sum_public_keys(&points)
            .ok_or(BlsError::EmptyAggregate("public keys"))?
            .to_public_key(),
    );
    // A sum of subgroup points stays in the subgroup, so only infinity can go wrong.
    if sum.bytes == G1_INFINITY {
        return Err(BlsError::PointAtInfinity("aggregate public key"));
    }
    Ok(sum)
}

/// The sum of the signatures. Errors on an empty list.
pub fn aggregate_signatures(sigs: &[&Signature]) -> Result<Signature, BlsError> {
    let points: Vec<min_pk::Signature> = sigs.iter().map(|sig| sig.0).collect();
    sum_signatures(&points)
        .map(|sum| Signature(sum.to_signature()))
        .ok_or(BlsError::EmptyAggregate("signatures"))
}

/// The sum of `points` (`None` when empty), [`SUM_CHUNK`] at a time.
fn sum_public_keys(points: &[min_pk::PublicKey]) -> Option<min_pk::AggregatePublicKey> {
    sum_in_chunks(points, min_pk::AggregatePublicKey::add_aggregate)
}

/// The sum of `points` (`None` when empty), [`SUM_CHUNK`] at a time.
fn sum_signatures(points: &[min_pk::Signature]) -> Option<min_pk::AggregateSignature> {
    sum_in_chunks(points, min_pk::AggregateSignature::add_aggregate)
}

fn sum_in_chunks<P, S>(points: &[P], add: impl Fn(&mut S, &S)) -> Option<S>
where
    [P]: MultiPoint<Output = S>,
{
    let mut chunks = points.chunks(SUM_CHUNK);
    let mut sum = chunks.next()?.add();
    for chunk in chunks {
        add(&mut sum, &chunk.add());
    }
    Some(sum)
}

/// A signature decoded with only the on-curve check: the form many signatures of one
/// message take on their way to an aggregate, where checking the subgroup once, on the sum,
/// costs one check instead of one per signature. Nothing verifies an `UncheckedSignature`;
/// [`aggregate_unchecked`] turns a list of them into a checked [`Signature`].
#[derive(Clone, PartialEq, Eq)]
pub struct UncheckedSignature(min_pk::Signature);

impl UncheckedSignature {
    /// Parses a 96-byte compressed signature, checking only that it is a curve point.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, BlsError> {
        const WHAT: &str = "signature";
        check_len(WHAT, bytes, SIGNATURE_LEN)?;
        min_pk::Signature::uncompress(bytes)
            .map(Self)
            .map_err(|e| point_error(WHAT, e))
    }
}

impl From<Signature> for UncheckedSignature {
    fn from(sig: Signature) -> Self {
        Self(sig.0)
    }
}

impl fmt::Debug for UncheckedSignature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "UncheckedSignature(0x{})",
            hex::encode(self.0.compress())
        )
    }
}

/// The sum of the signatures, checked to be in the G2 subgroup (so it is a valid
/// [`Signature`]). A sum of subgroup points is always in the subgroup; a sum that is not
/// means some signature was not. (Points outside the subgroup can only cancel out when
/// their senders collude, and then the sum equals what their valid signatures would sum to,
/// which is all an aggregate needs.) Errors on an empty list.
pub fn aggregate_unchecked(sigs: &[&UncheckedSignature]) -> Result<Signature, BlsError> {
    let points: Vec<min_pk::Signature> = sigs.iter().map(|sig| sig.0).collect();
    let sum = sum_signatures(&points)
        .ok_or(BlsError::EmptyAggregate("signatures"))?
        .to_signature();
    sum.validate(false)
        .map_err(|e| point_error("aggregate signature", e))?;
    Ok(Signature(sum))
}

/// True if `sig` is the aggregate of every key in `pks` signing the same `msg`: one
/// pairing check against the summed key. The keys must have proofs of possession (that is
/// what makes summing them safe against rogue keys). False for an empty list.
pub fn fast_aggregate_verify(pks: &[&PublicKey], msg: &[u8], sig: &Signature) -> bool {
    aggregate_public_keys(pks).is_ok_and(|agg| verify(&agg, msg, sig))
}

/// True if every `(pk, msg, sig)` verifies, checked together: each item is weighted by a
/// nonzero 64-bit randomizer and the weighted sum goes through one multi-pairing and one
/// final exponentiation. False for an empty batch. If it returns false, some item is
/// invalid; find which with [`verify`].
///
/// The randomizers are derived, not drawn (firn-core has no RNG): a seed is sha256 over a
/// domain tag and every input — each key, length-prefixed message and signature, in order
/// — and randomizer `i` is the first 8 bytes (little-endian) of `sha256(seed ‖ i ‖ counter)`,
/// the counter bumped until the value is nonzero.
///
/// Why that is sound. Write each signature as `σᵢ = skᵢ·H(mᵢ) + δᵢ`, with `δᵢ` its error
/// (zero iff it is valid). Every point is in its prime-order subgroup (checked at decode),
/// so the batch equation holds iff `Σ rᵢ·δᵢ = 0` in G2. (1) One bad item alone can never
/// pass: `rᵢ` is nonzero and below the group order, so `rᵢ·δᵢ ≠ 0`. (2) For errors in
/// several items to cancel, the `rᵢ` would have to hit a relation fixed by the `δᵢ`, but
/// the `rᵢ` are a hash of the `δᵢ` (through the signatures): changing any input re-draws
/// every randomizer. In the random-oracle model this is Fiat–Shamir — the adversary
/// commits to all inputs before learning the weights, each attempt passing with
/// probability at most 2⁻⁶⁴, exactly the bound of fresh random 64-bit weights. The
/// difference from fresh randomness is that attempts can be ground offline: forging a
/// batch that passes while some signature is invalid needs a party holding the signing
/// keys of two or more items and about 2⁶⁴ hash evaluations of the whole batch. Raise
/// `BATCH_RANDOMIZER_BITS` to 128 if that margin is too thin for a use.
pub fn batch_verify(items: &[(&PublicKey, &[u8], &Signature)]) -> bool {
    if items.is_empty() {
        return false;
    }
    let rands = batch_randomizers(items);
    let pks: Vec<&min_pk::PublicKey> = items.iter().map(|(pk, _, _)| &pk.point).collect();
    let msgs: Vec<&[u8]> = items.iter().map(|(_, msg, _)| *msg).collect();
    let sigs: Vec<&min_pk::Signature> = items.iter().map(|(_, _, sig)| &sig.0).collect();
    is_success(min_pk::Signature::verify_multiple_aggregate_signatures(
        &msgs,
        SIGNATURE_DST,
        &pks,
        false,
        &sigs,
        false,
        &rands,
        BATCH_RANDOMIZER_BITS,
    ))
}

/// The randomizers of [`batch_verify`], one per item, each nonzero and below
/// 2^`BATCH_RANDOMIZER_BITS`, in blst's little-endian scalar form.
fn batch_randomizers(items: &[(&PublicKey, &[u8], &Signature)]) -> Vec<blst::blst_scalar> {
    let mut h = Sha256::new();
    h.update(BATCH_SEED_TAG);
    h.update((items.len() as u64).to_be_bytes());
    for (pk, msg, sig) in items {
        h.update(pk.bytes);
        h.update((msg.len() as u64).to_be_bytes());
        h.update(msg);
        h.update(sig.to_bytes());
    }
    let seed: [u8; 32] = h.finalize().into();
    let width = BATCH_RANDOMIZER_BITS / 8;
    (0..items.len() as u64)
        .map(|i| {
            let mut scalar = blst::blst_scalar::default();
            let mut counter = 0u32;
            loop {
                let mut h = Sha256::new();
                h.update(seed);
                h.update(i.to_be_bytes());
                h.update(counter.to_be_bytes());
                let digest = h.finalize();
                if digest[..width].iter().any(|&b| b != 0) {
                    scalar.b[..width].copy_from_slice(&digest[..width]);
                    return scalar;
                }
                counter += 1;
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unchecked_signatures_aggregate_into_a_checked_one() {
        let msg = b"warp";
        let keys: Vec<SecretKey> = (1..=3).map(key).collect();
        let sigs: Vec<Signature> = keys.iter().map(|k| k.sign(msg)).collect();
        let unchecked: Vec<UncheckedSignature> = sigs
            .iter()
            .map(|s| UncheckedSignature::from_bytes(&s.to_bytes()).unwrap())
            .collect();
        let refs: Vec<&UncheckedSignature> = unchecked.iter().collect();
        let sum = aggregate_unchecked(&refs).unwrap();
        let checked: Vec<&Signature> = sigs.iter().collect();
        assert_eq!(sum, aggregate_signatures(&checked).unwrap());
        let pks: Vec<PublicKey> = keys.iter().map(SecretKey::public_key).collect();
        let pk_refs: Vec<&PublicKey> = pks.iter().collect();
        assert!(fast_aggregate_verify(&pk_refs, msg, &sum));
        assert_eq!(
            aggregate_unchecked(&[]),
            Err(BlsError::EmptyAggregate("signatures"))
        );
        assert!(UncheckedSignature::from_bytes(&[0x42; 96]).is_err());
        assert!(UncheckedSignature::from_bytes(&[0; 95]).is_err());
    }

    #[test]
    fn batched_sums_match_one_by_one_sums_across_chunks_and_repeats() {
        let msg = b"warp";
        let keys: Vec<SecretKey> = (1..=3).map(key).collect();
        // 600 points: three chunks, and every point repeated (the batched sum doubles).
        let sigs: Vec<Signature> = (0..600).map(|i| keys[i % 3].sign(msg)).collect();
        let pks: Vec<PublicKey> = (0..600).map(|i| keys[i % 3].public_key()).collect();
        let sig_refs: Vec<&Signature> = sigs.iter().collect();
        let one_by_one: Vec<&min_pk::Signature> = sigs.iter().map(|s| &s.0).collect();
        let expected = min_pk::AggregateSignature::aggregate(&one_by_one, false)
            .unwrap()
            .to_signature();
        let sum = aggregate_signatures(&sig_refs).unwrap();
        assert_eq!(sum.0, expected);
        let unchecked: Vec<UncheckedSignature> = sigs.iter().cloned().map(Into::into).collect();
        let unchecked_refs: Vec<&UncheckedSignature> = unchecked.iter().collect();
        assert_eq!(aggregate_unchecked(&unchecked_refs).unwrap(), sum);

        let pk_refs: Vec<&PublicKey> = pks.iter().collect();
        let one_by_one: Vec<&min_pk::PublicKey> = pks.iter().map(|p| &p.point).collect();
        let expected = min_pk::AggregatePublicKey::aggregate(&one_by_one, false)
            .unwrap()
            .to_public_key();
        assert_eq!(aggregate_public_keys(&pk_refs).unwrap().point, expected);
        assert!(fast_aggregate_verify(&pk_refs, msg, &sum));
        let halves = aggregate_signatures(&sig_refs[..300])
            .unwrap()
            .plus(&aggregate_signatures(&sig_refs[300..]).unwrap());
        assert_eq!(halves, sum);
        assert!(!fast_aggregate_verify(&pk_refs[1..], msg, &sum));
    }

    fn key(i: u8) -> SecretKey {
        SecretKey::from_seed(&[i; 32]).unwrap()
    }

    #[test]
    fn debug_does_not_show_the_secret() {
        let sk = key(1);
        let shown = format!("{sk:?}");
        assert!(shown.contains(&hex::encode(sk.public_key().to_bytes())));
        assert!(!shown.contains(&hex::encode(sk.to_bytes())));
    }

    #[test]
    fn secret_keys_outside_the_scalar_range_and_short_seeds_are_rejected() {
        assert_eq!(
            SecretKey::from_bytes(&[0u8; 32]).unwrap_err(),
            BlsError::InvalidSecretKey
        );
        assert_eq!(
            SecretKey::from_bytes(&[0xff; 32]).unwrap_err(),
            BlsError::InvalidSecretKey
        );
        assert_eq!(
            SecretKey::from_seed(&[7u8; 31]).unwrap_err(),
            BlsError::SeedTooShort(31)
        );
        let sk = key(2);
        assert_eq!(
            SecretKey::from_bytes(&sk.to_bytes()).unwrap().public_key(),
            sk.public_key()
        );
    }

    #[test]
    fn randomizers_are_deterministic_nonzero_and_bound_to_every_input() {
        let (a, b) = (key(1), key(2));
        let (pa, pb) = (a.public_key(), b.public_key());
        let (sa, sb) = (a.sign(b"a"), b.sign(b"b"));
        let items = [(&pa, &b"a"[..], &sa), (&pb, &b"b"[..], &sb)];
        let r1 = batch_randomizers(&items);
        assert_eq!(r1.len(), 2);
        for r in &r1 {
            assert!(r.b[..8].iter().any(|&x| x != 0));
            assert!(r.b[8..].iter().all(|&x| x == 0));
        }
        assert_eq!(
            r1.iter().map(|r| r.b).collect::<Vec<_>>(),
            batch_randomizers(&items)
                .iter()
                .map(|r| r.b)
                .collect::<Vec<_>>()
        );
        // Changing only the second signature changes the first randomizer too.
        let sb2 = b.sign(b"c");
        let items2 = [(&pa, &b"a"[..], &sa), (&pb, &b"b"[..], &sb2)];
        assert_ne!(batch_randomizers(&items2)[0].b, r1[0].b);
        // Message boundaries are length-prefixed: moving a byte between messages matters.
        let items3 = [(&pa, &b"ab"[..], &sa), (&pb, &b""[..], &sb)];
        assert_ne!(batch_randomizers(&items3)[0].b, r1[0].b);
    }

    #[test]
    fn keys_and_signatures_round_trip_through_serde_as_hex() {
        let sk = key(3);
        let pk = sk.public_key();
        let sig = sk.sign(b"firn");
        let json = serde_json::to_string(&pk).unwrap();
        assert_eq!(json, format!("\"0x{}\"", hex::encode(pk.to_bytes())));
        assert_eq!(serde_json::from_str::<PublicKey>(&json).unwrap(), pk);
        let json = serde_json::to_string(&sig).unwrap();
        assert_eq!(json, format!("\"0x{}\"", hex::encode(sig.to_bytes())));
        assert_eq!(serde_json::from_str::<Signature>(&json).unwrap(), sig);
        assert!(serde_json::from_str::<PublicKey>("\"0x00\"").is_err());
        assert!(serde_json::from_str::<Signature>("\"0xzz\"").is_err());
    }
}
