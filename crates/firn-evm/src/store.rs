//! The block file: every accepted block after genesis appended to `blocks.dat`, one
//! [`firn_recordlog`] record each (fsynced before the block counts as accepted; a torn last
//! record is dropped on open). A record's payload is `timestamp: u64 ‖ block hash: 32 bytes ‖
//! count: u32 ‖ (len: u32 ‖ tx bytes)*`; record `i` holds block `i + 1`. Blocks are replayed on
//! open (execution is deterministic) and their hashes checked.

use std::path::Path;

use alloy_primitives::{B256, Bytes};
use firn_recordlog::{RecordLog, RecordLogError};

use crate::error::EvmError;

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
}

impl StoredBlock {
    fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(44 + self.txs.iter().map(|t| t.len() + 4).sum::<usize>());
        out.extend_from_slice(&self.timestamp.to_be_bytes());
        out.extend_from_slice(self.hash.as_slice());
        out.extend_from_slice(&(self.txs.len() as u32).to_be_bytes());
        for tx in &self.txs {
            out.extend_from_slice(&(tx.len() as u32).to_be_bytes());
            out.extend_from_slice(tx);
        }
        out
    }

    fn decode(mut b: &[u8]) -> Option<Self> {
        let mut take = |n: usize| -> Option<&[u8]> {
            let (head, rest) = b.split_at_checked(n)?;
            b = rest;
            Some(head)
        };
        let timestamp = u64::from_be_bytes(take(8)?.try_into().ok()?);
        let hash = B256::from_slice(take(32)?);
        let count = u32::from_be_bytes(take(4)?.try_into().ok()?) as usize;
        let mut txs = Vec::with_capacity(count.min(65_536));
        for _ in 0..count {
            let len = u32::from_be_bytes(take(4)?.try_into().ok()?) as usize;
            txs.push(Bytes::copy_from_slice(take(len)?));
        }
        if !b.is_empty() {
            return None;
        }
        Some(Self {
            timestamp,
            hash,
            txs,
        })
    }
}

/// The append-only block file.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_roundtrip() {
        let b = StoredBlock {
            timestamp: 7,
            hash: B256::repeat_byte(3),
            txs: vec![Bytes::from_static(b"ab"), Bytes::new()],
        };
        assert_eq!(StoredBlock::decode(&b.encode()), Some(b.clone()));
        assert_eq!(StoredBlock::decode(&b.encode()[..20]), None);
    }
}
