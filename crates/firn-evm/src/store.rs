//! The block file: every accepted block after genesis appended to `blocks.dat`, one
//! [`firn_recordlog`] record each (fsynced before the block counts as accepted; a torn last
//! record is dropped on open). A record's payload is `timestamp: u64 ‖ block hash: 32 bytes ‖
//! count: u32 ‖ (len: u32 ‖ tx bytes)*`, then, when the block has any, its dev-loop changes,
//! impersonated senders and (on the C-Chain) atomic txs; record `i` holds block `i + 1`. Blocks are replayed on
//! open (execution is deterministic) and their hashes checked.

use std::path::Path;

use alloy_primitives::{Address, B256, Bytes};
use firn_recordlog::{RecordLog, RecordLogError};

use crate::dev::{DevChange, MAX_CHANGES};
use crate::error::EvmError;
use crate::fee::{FeeConfig, FeeRules};

/// The file name inside the chain's directory.
pub const BLOCK_FILE: &str = "blocks.dat";
const MAX_RECORD: usize = 256 * 1024 * 1024;

/// One stored block: what is needed to execute it again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredBlock {
    /// Its timestamp.
    pub timestamp: u64,
    /// Its hash (checked after replay).
    pub hash: B256,
    /// Its transactions' EIP-2718 bytes.
    pub txs: Vec<Bytes>,
    /// Dev-loop changes applied before the txs.
    pub changes: Vec<DevChange>,
    /// The positions and senders of impersonated txs (their signatures recover no one).
    pub impersonated: Vec<(u32, Address)>,
    /// The C-Chain's atomic txs, signed bytes.
    pub atomic: Vec<Bytes>,
    /// The block's Warp predicate results ([`firn_core::warp::predicate::BlockResults`]
    /// bytes); empty when no tx carried a predicate.
    pub predicate_results: Vec<u8>,
}

fn put_bytes(out: &mut Vec<u8>, items: &[Bytes]) {
    out.extend_from_slice(&(items.len() as u32).to_be_bytes());
    for b in items {
        out.extend_from_slice(&(b.len() as u32).to_be_bytes());
        out.extend_from_slice(b);
    }
}

fn take_bytes<'a>(
    take: &mut impl FnMut(usize) -> Option<&'a [u8]>,
    count: usize,
) -> Option<Vec<Bytes>> {
    let mut items = Vec::with_capacity(count.min(65_536));
    for _ in 0..count {
        let len = u32::from_be_bytes(take(4)?.try_into().ok()?) as usize;
        items.push(Bytes::copy_from_slice(take(len)?));
    }
    Some(items)
}

impl StoredBlock {
    fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(44 + self.txs.iter().map(|t| t.len() + 4).sum::<usize>());
        out.extend_from_slice(&self.timestamp.to_be_bytes());
        out.extend_from_slice(self.hash.as_slice());
        put_bytes(&mut out, &self.txs);
        // Blocks without dev-loop changes, atomic txs or predicates keep the original layout.
        let results = !self.predicate_results.is_empty();
        if !self.changes.is_empty()
            || !self.impersonated.is_empty()
            || !self.atomic.is_empty()
            || results
        {
            out.extend_from_slice(&(self.changes.len() as u32).to_be_bytes());
            for c in &self.changes {
                c.encode(&mut out);
            }
            out.extend_from_slice(&(self.impersonated.len() as u32).to_be_bytes());
            for (i, sender) in &self.impersonated {
                out.extend_from_slice(&i.to_be_bytes());
                out.extend_from_slice(sender.as_slice());
            }
        }
        if !self.atomic.is_empty() || results {
            put_bytes(&mut out, &self.atomic);
        }
        if results {
            out.extend_from_slice(&(self.predicate_results.len() as u32).to_be_bytes());
            out.extend_from_slice(&self.predicate_results);
        }
        out
    }

    fn decode(b: &[u8]) -> Option<Self> {
        let mut r = Reader(b);
        let mut take = |n: usize| r.take(n);
        let timestamp = u64::from_be_bytes(take(8)?.try_into().ok()?);
        let hash = B256::from_slice(take(32)?);
        let count = u32::from_be_bytes(take(4)?.try_into().ok()?) as usize;
        let txs = take_bytes(&mut take, count)?;
        let mut changes = Vec::new();
        let mut impersonated = Vec::new();
        let mut atomic = Vec::new();
        let mut predicate_results = Vec::new();
        if let Some(n) = take(4) {
            let n = u32::from_be_bytes(n.try_into().ok()?) as usize;
            if n > MAX_CHANGES {
                return None;
            }
            for _ in 0..n {
                changes.push(DevChange::decode(&mut take)?);
            }
            let n = u32::from_be_bytes(take(4)?.try_into().ok()?) as usize;
            if n > count {
                return None;
            }
            for _ in 0..n {
                let i = u32::from_be_bytes(take(4)?.try_into().ok()?);
                impersonated.push((i, Address::from_slice(take(20)?)));
            }
            if let Some(n) = take(4) {
                let n = u32::from_be_bytes(n.try_into().ok()?) as usize;
                atomic = take_bytes(&mut take, n)?;
            }
            if let Some(n) = take(4) {
                let n = u32::from_be_bytes(n.try_into().ok()?) as usize;
                predicate_results = take(n)?.to_vec();
            }
        }
        if !r.0.is_empty() {
            return None;
        }
        Some(Self {
            timestamp,
            hash,
            txs,
            changes,
            impersonated,
            atomic,
            predicate_results,
        })
    }
}

/// The append-only block file.
/// Bytes read from the front.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    /// The next `n` bytes, `None` when fewer remain.
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, rest) = self.0.split_at_checked(n)?;
        self.0 = rest;
        Some(head)
    }
}

#[derive(Debug)]
pub struct BlockStore {
    log: RecordLog,
}

/// The error of record `index` (block `index + 1`).
fn log_error(e: RecordLogError) -> EvmError {
    match e {
        RecordLogError::Io { path, source } => EvmError::Io { path, source },
        RecordLogError::Corrupt { index, reason } => EvmError::Corrupt {
            height: index + 1,
            reason,
        },
        e @ RecordLogError::TooLarge { .. } => EvmError::Corrupt {
            height: 0,
            reason: e.to_string(),
        },
    }
}

impl BlockStore {
    /// Opens (creating) the block file in `dir` and reads every intact block, in order.
    pub fn open(dir: &Path) -> Result<(Self, Vec<StoredBlock>), EvmError> {
        let (log, records) =
            RecordLog::open(&dir.join(BLOCK_FILE), MAX_RECORD).map_err(log_error)?;
        let blocks = records
            .iter()
            .enumerate()
            .map(|(i, payload)| {
                StoredBlock::decode(payload).ok_or_else(|| EvmError::Corrupt {
                    height: i as u64 + 1,
                    reason: "bad record".into(),
                })
            })
            .collect::<Result<_, _>>()?;
        Ok((Self { log }, blocks))
    }

    /// Appends one block and fsyncs.
    pub fn append(&mut self, block: &StoredBlock) -> Result<(), EvmError> {
        self.log.append(&block.encode()).map_err(log_error)
    }
}

/// The file that records a C-Chain's dir was made with coreth's block shape.
pub const CORETH_BLOCKS_FILE: &str = "coreth-blocks";

/// Whether the C-Chain kept in `dir` has coreth's block shape (and so carries atomic txs). One
/// whose blocks were made before firn shaped them so (blocks and no marker) keeps its shape,
/// so its blocks replay to the hashes recorded; a new one is marked.
pub fn settle_coreth_blocks(dir: &Path, has_blocks: bool) -> Result<bool, EvmError> {
    settle_shape(
        dir,
        CORETH_BLOCKS_FILE,
        has_blocks,
        "C-Chain made before firn carried atomic txs: it keeps its block shape and takes no atomic txs",
    )
}

/// The file that records a Warp chain's dir was made receiving Warp predicates.
pub const WARP_PREDICATES_FILE: &str = "warp-predicates";

/// Whether the chain kept in `dir`, which has the Warp precompile, receives Warp messages
/// (charges and verifies predicates, and its headers carry the results). One whose blocks were
/// made before (blocks and no marker) keeps its shape; a new one is marked.
pub fn settle_warp_predicates(dir: &Path, has_blocks: bool) -> Result<bool, EvmError> {
    settle_shape(
        dir,
        WARP_PREDICATES_FILE,
        has_blocks,
        "chain made before firn received Warp messages: it keeps its block shape and verifies no predicates",
    )
}

/// The file that records a C-Chain's dir was made with Warp and Teleporter in its genesis.
pub const ICM_GENESIS_FILE: &str = "icm-genesis";

/// Whether the C-Chain kept in `dir` starts from the genesis with Warp and Teleporter's
/// messenger. One with blocks from before (a block file and no marker) keeps its genesis, so
/// its blocks replay to the hashes recorded; a new one is marked. Call before opening it.
pub fn settle_icm_genesis(dir: &Path) -> Result<bool, EvmError> {
    let has_blocks = std::fs::metadata(dir.join(BLOCK_FILE)).is_ok_and(|m| m.len() > 0);
    std::fs::create_dir_all(dir).map_err(|source| EvmError::Io {
        path: dir.display().to_string(),
        source,
    })?;
    settle_shape(
        dir,
        ICM_GENESIS_FILE,
        has_blocks,
        "C-Chain made before firn put Warp and Teleporter in its genesis: it keeps its genesis",
    )
}

/// Whether the chain in `dir` has the shape marker `name`: yes with the marker, no for blocks
/// made without it (`refused` is logged), and a new chain is marked.
fn settle_shape(dir: &Path, name: &str, has_blocks: bool, refused: &str) -> Result<bool, EvmError> {
    let marker = dir.join(name);
    if marker.exists() {
        return Ok(true);
    }
    if has_blocks {
        tracing::warn!(target: "evm", dir = %dir.display(), "{refused}");
        return Ok(false);
    }
    write_marker(&marker, format!("{name} since genesis\n").as_bytes())?;
    Ok(true)
}

fn write_marker(path: &Path, text: &[u8]) -> Result<(), EvmError> {
    std::fs::write(path, text).map_err(|source| EvmError::Io {
        path: path.display().to_string(),
        source,
    })
}

/// The file that records a C-Chain's dir was made with the Teleporter registry in its genesis.
pub const REGISTRY_GENESIS_FILE: &str = "teleporter-registry-genesis";

/// Whether the C-Chain kept in `dir` starts from the genesis with the Teleporter registry, as
/// [`settle_icm_genesis`] does for the messenger. Call before opening it.
pub fn settle_registry_genesis(dir: &Path) -> Result<bool, EvmError> {
    let has_blocks = std::fs::metadata(dir.join(BLOCK_FILE)).is_ok_and(|m| m.len() > 0);
    settle_shape(
        dir,
        REGISTRY_GENESIS_FILE,
        has_blocks,
        "C-Chain made before firn put the Teleporter registry in its genesis: it keeps its genesis",
    )
}

/// The file that records a chain's dir was made under ACP-176.
pub const FEE_RULES_FILE: &str = "acp176";

/// The fee rules a chain kept in `dir` replays under. A C-Chain whose blocks were made before
/// firn priced the C-Chain with ACP-176 (blocks and no marker) keeps the fee window it was
/// built with, so its blocks replay to the hashes recorded; a new one is marked.
pub fn settle_fee_rules(
    dir: &Path,
    rules: FeeRules,
    has_blocks: bool,
) -> Result<FeeRules, EvmError> {
    if !matches!(rules, FeeRules::Acp176 { .. }) {
        return Ok(rules);
    }
    let acp176 = settle_shape(
        dir,
        FEE_RULES_FILE,
        has_blocks,
        "chain made before ACP-176: it keeps its fee window",
    )?;
    Ok(match acp176 {
        true => rules,
        false => FeeRules::Window(FeeConfig::c_chain()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_primitives::U256;

    #[test]
    fn record_roundtrip() {
        let b = StoredBlock {
            timestamp: 7,
            hash: B256::repeat_byte(3),
            txs: vec![Bytes::from_static(b"ab"), Bytes::new()],
            changes: Vec::new(),
            impersonated: Vec::new(),
            atomic: Vec::new(),
            predicate_results: Vec::new(),
        };
        assert_eq!(StoredBlock::decode(&b.encode()), Some(b.clone()));
        assert_eq!(StoredBlock::decode(&b.encode()[..20]), None);
        let a = Address::repeat_byte(5);
        let dev = StoredBlock {
            changes: vec![
                DevChange::Balance(a, U256::from(7)),
                DevChange::Nonce(a, 9),
                DevChange::Code(a, Bytes::from_static(b"\x60\x00")),
                DevChange::Storage(a, U256::from(1), U256::MAX),
            ],
            impersonated: vec![(1, a)],
            ..b.clone()
        };
        let bytes = dev.encode();
        assert_eq!(StoredBlock::decode(&bytes), Some(dev.clone()));
        let atomic = StoredBlock {
            atomic: vec![
                Bytes::from_static(b"\0\0\0\0\0\x01"),
                Bytes::from_static(b"x"),
            ],
            ..b.clone()
        };
        assert_eq!(StoredBlock::decode(&atomic.encode()), Some(atomic.clone()));
        let both = StoredBlock {
            atomic: atomic.atomic.clone(),
            ..dev.clone()
        };
        assert_eq!(StoredBlock::decode(&both.encode()), Some(both));
        // Predicate results alone, and after atomic txs.
        let results = StoredBlock {
            predicate_results: vec![0, 0, 0, 0, 0, 1, 9],
            ..b.clone()
        };
        assert_eq!(
            StoredBlock::decode(&results.encode()),
            Some(results.clone())
        );
        let all = StoredBlock {
            predicate_results: results.predicate_results.clone(),
            ..atomic.clone()
        };
        assert_eq!(StoredBlock::decode(&all.encode()), Some(all.clone()));
        let whole = all.encode();
        assert_eq!(StoredBlock::decode(&whole[..whole.len() - 1]), None);
        for cut in [bytes.len() - 1, bytes.len() - 25, b.encode().len() + 2] {
            assert_eq!(StoredBlock::decode(&bytes[..cut]), None, "cut at {cut}");
        }
    }
}
