//! The block file: every accepted block appended to `blocks.dat` in the data directory.
//!
//! A record is `len: u32 BE ‖ checksum: first 8 bytes of sha256(payload) ‖ payload`, where
//! the payload is the proposer's 20-byte node ID followed by the block's bytes. Each append is
//! fsynced before the block counts as accepted. On open, a last record that is cut short or
//! fails its checksum (a crash mid-write) is dropped and the file truncated to the records
//! before it; a bad record followed by more data is corruption and opening fails.

use crate::error::DevnetError;
use firn_core::codec;
use firn_core::ids::NodeId;
use firn_core::pchain::block::Block;
use sha2::{Digest, Sha256};
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use tracing::warn;

/// The file name inside the data directory.
pub const BLOCK_FILE: &str = "blocks.dat";
const HEADER: usize = 4 + 8;
/// Largest record payload accepted when reading (blocks are far smaller).
const MAX_RECORD: usize = 16 * 1024 * 1024;

/// An accepted block and the node that proposed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AcceptedBlock {
    /// The inner platformvm block (what `platform.getBlock` returns).
    pub block: Block,
    /// The proposer, as the proposervm wrapper would record it.
    pub proposer: NodeId,
}

/// The append-only block file.
#[derive(Debug)]
pub struct BlockStore {
    path: PathBuf,
    file: File,
    len: u64,
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> DevnetError + '_ {
    move |source| DevnetError::Io {
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
    /// Opens (creating if needed) the block file in `dir` and reads every intact block.
    pub fn open(dir: &Path) -> Result<(Self, Vec<AcceptedBlock>), DevnetError> {
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
            let height = blocks.len() as u64;
            let rest = &bytes[pos..];
            let torn = |reason: &str| {
                warn!(
                    height,
                    offset = pos,
                    reason,
                    "dropping torn final block record"
                );
            };
            if rest.len() < HEADER {
                torn("short header");
                break;
            }
            let len = u32::from_be_bytes([rest[0], rest[1], rest[2], rest[3]]) as usize;
            if len > MAX_RECORD || rest.len() < HEADER + len {
                if len <= MAX_RECORD {
                    torn("short payload");
                    break;
                }
                return Err(DevnetError::Corrupt {
                    height,
                    reason: format!("record length {len} exceeds the maximum"),
                });
            }
            let payload = &rest[HEADER..HEADER + len];
            let is_last = pos + HEADER + len == bytes.len();
            if checksum(payload) != rest[4..12] {
                if is_last {
                    torn("checksum mismatch");
                    break;
                }
                return Err(DevnetError::Corrupt {
                    height,
                    reason: "checksum mismatch".into(),
                });
            }
            if payload.len() < 20 {
                return Err(DevnetError::Corrupt {
                    height,
                    reason: "record too short for a proposer".into(),
                });
            }
            let mut proposer = [0u8; 20];
            proposer.copy_from_slice(&payload[..20]);
            let block: Block =
                codec::from_bytes_with_max(&payload[20..], MAX_RECORD).map_err(|e| {
                    DevnetError::Corrupt {
                        height,
                        reason: e.to_string(),
                    }
                })?;
            blocks.push(AcceptedBlock {
                block,
                proposer: NodeId(proposer),
            });
            pos += HEADER + len;
        }
        if pos < bytes.len() {
            file.set_len(pos as u64).map_err(io_err(&path))?;
            file.sync_all().map_err(io_err(&path))?;
        }
        Ok((
            Self {
                path,
                file,
                len: pos as u64,
            },
            blocks,
        ))
    }

    /// Appends a block and fsyncs it.
    pub fn append(&mut self, b: &AcceptedBlock) -> Result<(), DevnetError> {
        let bytes = b.block.bytes();
        let mut payload = Vec::with_capacity(20 + bytes.len());
        payload.extend_from_slice(&b.proposer.0);
        payload.extend_from_slice(&bytes);
        let mut record = Vec::with_capacity(HEADER + payload.len());
        record.extend_from_slice(&(payload.len() as u32).to_be_bytes());
        record.extend_from_slice(&checksum(&payload));
        record.extend_from_slice(&payload);
        let written = self
            .file
            .write_all(&record)
            .and_then(|()| self.file.sync_data());
        if let Err(e) = written {
            // Leave no partial record behind for the next append to follow.
            let _ = self.file.set_len(self.len);
            return Err(io_err(&self.path)(e));
        }
        self.len += record.len() as u64;
        Ok(())
    }

    /// The block file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use firn_core::ids::Id;
    use firn_core::pchain::block::BlockKind;

    fn block(h: u64) -> AcceptedBlock {
        AcceptedBlock {
            block: Block::new(Id([h as u8; 32]), h, BlockKind::BanffCommit { time: h }),
            proposer: NodeId([h as u8; 20]),
        }
    }

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("firn-store-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn records_round_trip_and_a_bad_middle_record_is_corruption() {
        let d = dir("mid");
        {
            let (mut s, blocks) = BlockStore::open(&d).unwrap();
            assert!(blocks.is_empty());
            for h in 0..3 {
                s.append(&block(h)).unwrap();
            }
        }
        let (_, blocks) = BlockStore::open(&d).unwrap();
        assert_eq!(blocks, (0..3).map(block).collect::<Vec<_>>());

        // Flip a payload byte of the first record: later records exist, so it is corruption.
        let path = d.join(BLOCK_FILE);
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[HEADER + 3] ^= 0xff;
        std::fs::write(&path, &bytes).unwrap();
        match BlockStore::open(&d) {
            Err(DevnetError::Corrupt { height: 0, reason }) => {
                assert_eq!(reason, "checksum mismatch")
            }
            other => panic!("unexpected {other:?}"),
        }
        let _ = std::fs::remove_dir_all(&d);
    }
}
