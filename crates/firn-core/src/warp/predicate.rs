//! Warp messages as tx predicates, byte-compatible with AvalancheGo's `vms/evm/predicate` and
//! the EVM Warp precompile's `PredicateGas` (coreth and subnet-EVM).
//!
//! A tx carries a signed Warp message to the destination chain in its access list: an entry
//! for the Warp precompile whose storage keys are the message's bytes cut into 32-byte
//! chunks, ended by a `0xff` delimiter and zero padding ([`pack`], [`unpack`]). The block
//! builder verifies each such predicate before the tx runs and records which failed in the
//! header's extra data as [`BlockResults`]; the precompile's `getVerifiedWarpMessage(i)` then
//! answers `valid = false` for a failed one. A failed predicate does not keep its tx out of
//! the block.
//!
//! ```
//! use firn_core::warp::predicate::{pack, unpack};
//! let chunks = pack(b"signed warp message");
//! assert_eq!(chunks.len(), 1);
//! assert_eq!(unpack(&chunks).unwrap(), b"signed warp message");
//! ```

use std::collections::BTreeMap;

use super::bitset;
use crate::codec::{CODEC_VERSION, CodecError, Reader, Writer};

/// Byte that ends a predicate's bytes before the zero padding.
pub const DELIMITER: u8 = 0xff;
/// A predicate chunk: one access-list storage key.
pub type Chunk = [u8; 32];
/// The largest [`BlockResults`] encoding AvalancheGo parses (`maxResultsSize`, 1 MiB).
pub const MAX_RESULTS_SIZE: usize = 1024 * 1024;

/// Why predicate bytes or block results do not decode (AvalancheGo's texts where it has one).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PredicateError {
    #[error("no delimiter found: length ({0})")]
    MissingDelimiter(usize),
    #[error("predicate included excess padding: got length ({got}), expected length ({expected})")]
    ExcessPadding { got: usize, expected: usize },
    #[error("wrong delimiter")]
    WrongDelimiter,
    #[error("failed to unmarshal predicate results: {0}")]
    Results(#[from] CodecError),
    #[error("failed to unmarshal predicate results: keys aren't sorted")]
    UnsortedKeys,
}

/// `bytes` as predicate chunks: whole 32-byte chunks, then one holding the rest, the
/// delimiter and zero padding (AvalancheGo's `predicate.New`).
pub fn pack(bytes: &[u8]) -> Vec<Chunk> {
    let whole = bytes.len() / 32;
    let mut out = Vec::with_capacity(whole + 1);
    for c in bytes.chunks_exact(32) {
        let mut chunk = [0u8; 32];
        chunk.copy_from_slice(c);
        out.push(chunk);
    }
    let rest = &bytes[whole * 32..];
    let mut last = [0u8; 32];
    last[..rest.len()].copy_from_slice(rest);
    last[rest.len()] = DELIMITER;
    out.push(last);
    out
}

/// The bytes packed in `chunks` (AvalancheGo's `Predicate.Bytes`): the trailing zeros and the
/// delimiter removed; fails when there is no delimiter, a whole chunk of padding, or the last
/// non-zero byte is not the delimiter.
pub fn unpack(chunks: &[Chunk]) -> Result<Vec<u8>, PredicateError> {
    let Some(end) = chunks
        .iter()
        .rposition(|c| c.iter().any(|b| *b != 0))
        .map(|i| i * 32 + 32 - chunks[i].iter().rev().take_while(|b| **b == 0).count())
    else {
        return Err(PredicateError::MissingDelimiter(chunks.len()));
    };
    let expected = end.div_ceil(32);
    if expected != chunks.len() {
        return Err(PredicateError::ExcessPadding {
            got: chunks.len(),
            expected,
        });
    }
    let mut bytes = Vec::with_capacity(end);
    for c in chunks {
        bytes.extend_from_slice(c);
    }
    bytes.truncate(end);
    match bytes.pop() {
        Some(DELIMITER) => Ok(bytes),
        _ => Err(PredicateError::WrongDelimiter),
    }
}

/// What verifying Warp predicates costs, by the rules in force (the precompile's `GasConfig`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WarpGas {
    /// `getBlockchainID`.
    pub get_blockchain_id: u64,
    /// `getVerifiedWarpMessage` and `getVerifiedWarpBlockHash`, before the message's chunks.
    pub get_verified_base: u64,
    /// Each signer of a predicate's message.
    pub per_signer: u64,
    /// Each 32-byte chunk of a predicate (charged again when the message is read).
    pub per_chunk: u64,
    /// Each predicate, verified at block building.
    pub verify_base: u64,
}

impl WarpGas {
    /// Durango to Fortuna (what the devnet runs).
    pub const PRE_GRANITE: WarpGas = WarpGas {
        get_blockchain_id: 2,
        get_verified_base: 2,
        per_signer: 500,
        per_chunk: 3_200,
        verify_base: 200_000,
    };
    /// Granite and later.
    pub const GRANITE: WarpGas = WarpGas {
        get_blockchain_id: 200,
        get_verified_base: 750,
        per_signer: 250,
        per_chunk: 512,
        verify_base: 125_000,
    };

    /// The intrinsic gas of a Warp predicate of `chunks` chunks whose message `signers`
    /// validators signed (`PredicateGas`); it replaces the access-list entry's usual cost.
    /// `None` on overflow.
    pub fn predicate(&self, chunks: usize, signers: usize) -> Option<u64> {
        let chunks = self.per_chunk.checked_mul(u64::try_from(chunks).ok()?)?;
        let signers = self.per_signer.checked_mul(u64::try_from(signers).ok()?)?;
        self.verify_base.checked_add(chunks)?.checked_add(signers)
    }
}

/// Which predicates failed, per tx and precompile (AvalancheGo's `predicate.BlockResults`):
/// for each, a big-endian bitset whose bit `i` marks the `i`th predicate for that precompile
/// in the tx's access list as failed. Encoded with the codec as a map sorted by key bytes:
/// `u16 version ‖ u32 n ‖ n × (txHash[32] ‖ u32 m ‖ m × (address[20] ‖ u32 len ‖ bitset))`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BlockResults {
    txs: BTreeMap<[u8; 32], BTreeMap<[u8; 20], Vec<u8>>>,
}

impl BlockResults {
    /// No results (what a block without predicates records).
    pub fn new() -> Self {
        Self::default()
    }

    /// Records tx `tx`'s results: for each precompile with predicates, the indices that
    /// failed (an empty list when all passed). No precompiles removes the tx.
    pub fn set(&mut self, tx: [u8; 32], results: BTreeMap<[u8; 20], Vec<usize>>) {
        if results.is_empty() {
            self.txs.remove(&tx);
            return;
        }
        let bits = results
            .into_iter()
            .map(|(address, failed)| (address, bitset::from_indices(&failed)))
            .collect();
        self.txs.insert(tx, bits);
    }

    /// Whether predicate `index` of precompile `address` in tx `tx` failed. A tx or
    /// precompile with no results has none failed.
    pub fn failed(&self, tx: &[u8; 32], address: &[u8; 20], index: usize) -> bool {
        self.txs
            .get(tx)
            .and_then(|by_address| by_address.get(address))
            .is_some_and(|bits| bitset::contains(bits, index))
    }

    /// The indices of precompile `address`'s predicates in tx `tx` that failed, ascending.
    pub fn failed_indices(&self, tx: &[u8; 32], address: &[u8; 20]) -> Vec<usize> {
        let Some(bits) = self
            .txs
            .get(tx)
            .and_then(|by_address| by_address.get(address))
        else {
            return Vec::new();
        };
        (0..bits.len() * 8)
            .filter(|i| bitset::contains(bits, *i))
            .collect()
    }

    /// True when no tx has results.
    pub fn is_empty(&self) -> bool {
        self.txs.is_empty()
    }

    /// The codec bytes (appended to a header's extra data).
    pub fn bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.version();
        w.count(self.txs.len());
        for (tx, by_address) in &self.txs {
            w.raw(tx);
            w.count(by_address.len());
            for (address, bits) in by_address {
                w.raw(address);
                w.bytes(bits);
            }
        }
        w.into_bytes()
    }

    /// Parses codec bytes as AvalancheGo does: at most [`MAX_RESULTS_SIZE`], keys strictly
    /// ascending, no trailing bytes. Bitsets are kept as given (leading zero bytes included).
    pub fn parse(bytes: &[u8]) -> Result<Self, PredicateError> {
        if bytes.len() > MAX_RESULTS_SIZE {
            return Err(CodecError::TooLarge {
                len: bytes.len(),
                max: MAX_RESULTS_SIZE,
            }
            .into());
        }
        let mut r = Reader::new(bytes);
        match r.u16()? {
            CODEC_VERSION => {}
            v => return Err(CodecError::UnknownVersion(v).into()),
        }
        let mut txs = BTreeMap::new();
        let n = r.count(32 + 4)?;
        let mut last_tx: Option<[u8; 32]> = None;
        for _ in 0..n {
            let tx: [u8; 32] = r.array()?;
            if last_tx.is_some_and(|l| tx <= l) {
                return Err(PredicateError::UnsortedKeys);
            }
            last_tx = Some(tx);
            let m = r.count(20 + 4)?;
            let mut by_address = BTreeMap::new();
            let mut last_address: Option<[u8; 20]> = None;
            for _ in 0..m {
                let address: [u8; 20] = r.array()?;
                if last_address.is_some_and(|l| address <= l) {
                    return Err(PredicateError::UnsortedKeys);
                }
                last_address = Some(address);
                by_address.insert(address, r.bytes()?.to_vec());
            }
            txs.insert(tx, by_address);
        }
        r.finish()?;
        Ok(Self { txs })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(prefix: &[u8]) -> Chunk {
        let mut c = [0u8; 32];
        c[..prefix.len()].copy_from_slice(prefix);
        c
    }

    #[test]
    fn packing_follows_avalanchego_vectors() {
        assert_eq!(pack(&[]), vec![chunk(&[DELIMITER])]);
        assert_eq!(pack(&[0x42]), vec![chunk(&[0x42, DELIMITER])]);
        let mut c31 = [0u8; 32];
        c31[31] = DELIMITER;
        assert_eq!(pack(&[0; 31]), vec![c31]);
        assert_eq!(pack(&[0; 32]), vec![[0; 32], chunk(&[DELIMITER])]);
        let forty: Vec<u8> = (0..40).map(|i| (i / 8) * 0x10 + i % 8).collect();
        let packed = pack(&forty);
        assert_eq!(packed[0][..], forty[..32]);
        assert_eq!(
            packed[1],
            chunk(&[0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0xff])
        );
        for len in [0, 1, 31, 32, 33, 64, 100, 1000] {
            let bytes: Vec<u8> = (0..len).map(|i| (i % 7) as u8).collect();
            assert_eq!(unpack(&pack(&bytes)).unwrap(), bytes, "length {len}");
        }
    }

    #[test]
    fn malformed_predicates_are_refused_with_avalanchego_texts() {
        assert_eq!(unpack(&[]), Err(PredicateError::MissingDelimiter(0)));
        assert_eq!(unpack(&[[0; 32]]), Err(PredicateError::MissingDelimiter(1)));
        let mut padded = pack(b"abc");
        padded.push([0; 32]);
        assert_eq!(
            unpack(&padded).unwrap_err().to_string(),
            "predicate included excess padding: got length (2), expected length (1)"
        );
        assert_eq!(
            unpack(&[chunk(b"abc")]),
            Err(PredicateError::WrongDelimiter)
        );
    }

    #[test]
    fn results_encode_as_avalanchego_does() {
        assert_eq!(BlockResults::new().bytes(), vec![0, 0, 0, 0, 0, 0]);
        let mut r = BlockResults::new();
        let mut tx1 = [0u8; 32];
        tx1[0] = 1;
        let mut tx2 = [0u8; 32];
        tx2[0] = 2;
        let mut a2 = [0u8; 20];
        a2[0] = 2;
        let mut a3 = [0u8; 20];
        a3[0] = 3;
        // Inserted out of order: the encoding sorts by key bytes.
        r.set(tx2, BTreeMap::from([(a3, vec![3, 2, 1])]));
        r.set(
            tx1,
            BTreeMap::from([(a3, vec![0, 1, 2, 3]), (a2, vec![1, 2, 3])]),
        );
        let mut want = vec![0, 0, 0, 0, 0, 2];
        want.extend(tx1);
        want.extend([0, 0, 0, 2]);
        want.extend(a2);
        want.extend([0, 0, 0, 1, 0b0000_1110]);
        want.extend(a3);
        want.extend([0, 0, 0, 1, 0b0000_1111]);
        want.extend(tx2);
        want.extend([0, 0, 0, 1]);
        want.extend(a3);
        want.extend([0, 0, 0, 1, 0b0000_1110]);
        assert_eq!(r.bytes(), want);
        let parsed = BlockResults::parse(&want).unwrap();
        assert_eq!(parsed, r);
        assert!(parsed.failed(&tx1, &a3, 0));
        assert!(!parsed.failed(&tx1, &a2, 0));
        assert!(parsed.failed(&tx2, &a3, 3));
        assert!(!parsed.failed(&tx2, &a2, 3));
        assert_eq!(parsed.failed_indices(&tx1, &a3), vec![0, 1, 2, 3]);
        assert_eq!(parsed.failed_indices(&tx2, &a3), vec![1, 2, 3]);
        assert!(parsed.failed_indices(&tx2, &a2).is_empty());
        // All passed: the tx is recorded with an empty bitset.
        r.set(tx2, BTreeMap::from([(a3, vec![])]));
        assert!(!r.failed(&tx2, &a3, 1));
        assert!(r.bytes().len() < want.len());
        r.set(tx2, BTreeMap::new());
        r.set(tx1, BTreeMap::new());
        assert!(r.is_empty());
    }

    #[test]
    fn hostile_results_are_refused() {
        assert!(BlockResults::parse(&[]).is_err());
        assert!(BlockResults::parse(&[0, 1, 0, 0, 0, 0]).is_err());
        // A count past what remains.
        assert!(matches!(
            BlockResults::parse(&[0, 0, 0xff, 0xff, 0xff, 0xff]),
            Err(PredicateError::Results(CodecError::SliceTooLong { .. }))
        ));
        // The same tx twice.
        let mut twice = vec![0, 0, 0, 0, 0, 2];
        for _ in 0..2 {
            twice.extend([7u8; 32]);
            twice.extend([0, 0, 0, 0]);
        }
        assert_eq!(
            BlockResults::parse(&twice),
            Err(PredicateError::UnsortedKeys)
        );
        // AvalancheGo's too-big vector: a 2^24-byte bitset.
        let mut big = vec![0, 0, 0, 0, 0, 1];
        big.extend([0u8; 32]);
        big.extend([0, 0, 0, 1]);
        big.extend([2u8]);
        big.extend([0u8; 19]);
        big.extend([1, 0, 0, 0]);
        big.resize(big.len() + (1 << 24), 0);
        assert!(matches!(
            BlockResults::parse(&big),
            Err(PredicateError::Results(CodecError::TooLarge { .. }))
        ));
        let mut trailing = BlockResults::new().bytes();
        trailing.push(0);
        assert!(BlockResults::parse(&trailing).is_err());
    }

    #[test]
    fn predicate_gas_is_the_precompiles() {
        // 200,000 + 3,200 per chunk + 500 per signer before Granite.
        assert_eq!(WarpGas::PRE_GRANITE.predicate(10, 3), Some(233_500));
        assert_eq!(WarpGas::GRANITE.predicate(10, 3), Some(130_870));
        assert_eq!(WarpGas::PRE_GRANITE.predicate(usize::MAX, 0), None);
    }
}
