//! The block file: every accepted block after genesis appended to `blocks.dat`.
//!
//! A record is `len: u32 BE ‖ checksum: first 8 bytes of sha256(payload) ‖ payload`; the
//! payload is `timestamp: u64 ‖ block hash: 32 bytes ‖ count: u32 ‖ (len: u32 ‖ tx bytes)*`.
//! Blocks are replayed on open (execution is deterministic) and their hashes checked. Each
//! append is fsynced before the block counts as accepted; a torn last record (a crash
//! mid-write) is dropped and the file truncated; a bad record before the end is corruption.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use alloy_primitives::{B256, Bytes};
use sha2::{Digest, Sha256};
use tracing::warn;

use crate::error::EvmError;

/// The file name inside the chain's directory.
pub const BLOCK_FILE: &str = "blocks.dat";
const HEADER: usize = 4 + 8;
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
    path: PathBuf,
    file: File,
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> EvmError + '_ {
    move |source| EvmError::Io {
        path: path.display().to_string(),
        source,
    }
}

fn checksum(payload: &[u8]) -> [u8; 8] {
    let d = Sha256::digest(payload);
    let mut c = [0u8; 8];
    c.copy_from_slice(&d[..8]);
    c
}

impl BlockStore {
    /// Opens (creating) the block file in `dir` and reads every intact block, in order.
    pub fn open(dir: &Path) -> Result<(Self, Vec<StoredBlock>), EvmError> {
        std::fs::create_dir_all(dir).map_err(io_err(dir))?;
        let path = dir.join(BLOCK_FILE);
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(&path)
            .map_err(io_err(&path))?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).map_err(io_err(&path))?;
        let mut blocks = Vec::new();
        let mut pos = 0usize;
        while pos < bytes.len() {
            let height = blocks.len() as u64 + 1;
            let rest = &bytes[pos..];
            let corrupt = |reason: &str| EvmError::Corrupt {
                height,
                reason: reason.to_owned(),
            };
            if rest.len() < HEADER {
                warn!(height, offset = pos, "dropping torn final block record");
                break;
            }
            let len = u32::from_be_bytes([rest[0], rest[1], rest[2], rest[3]]) as usize;
            if len > MAX_RECORD {
                return Err(corrupt("record length exceeds the maximum"));
            }
            if rest.len() < HEADER + len {
                warn!(height, offset = pos, "dropping torn final block record");
                break;
            }
            let payload = &rest[HEADER..HEADER + len];
            let is_last = pos + HEADER + len == bytes.len();
            if checksum(payload) != rest[4..12] {
                if is_last {
                    warn!(height, offset = pos, "dropping torn final block record");
                    break;
                }
                return Err(corrupt("checksum mismatch"));
            }
            blocks.push(StoredBlock::decode(payload).ok_or_else(|| corrupt("bad record"))?);
            pos += HEADER + len;
        }
        if pos < bytes.len() {
            file.set_len(pos as u64).map_err(io_err(&path))?;
            file.sync_all().map_err(io_err(&path))?;
        }
        Ok((Self { path, file }, blocks))
    }

    /// Appends one block and fsyncs.
    pub fn append(&mut self, block: &StoredBlock) -> Result<(), EvmError> {
        let payload = block.encode();
        let mut record = Vec::with_capacity(HEADER + payload.len());
        record.extend_from_slice(&(payload.len() as u32).to_be_bytes());
        record.extend_from_slice(&checksum(&payload));
        record.extend_from_slice(&payload);
        self.file.write_all(&record).map_err(io_err(&self.path))?;
        self.file.sync_data().map_err(io_err(&self.path))
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
