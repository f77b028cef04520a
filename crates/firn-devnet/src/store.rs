//! The block file: every accepted block appended to `blocks.dat` in the chain's directory, one
//! [`firn_recordlog`] record each (fsynced before the block counts as accepted; a torn last
//! record is dropped on open). A record's payload is the proposer's 20-byte node ID followed by
//! the block's bytes; record `i` holds the block at height `i`. The P-Chain and the X-Chain
//! keep their blocks alike, each in its own directory.

use crate::error::DevnetError;
use firn_core::codec::{self, Decode, Encode};
use firn_core::ids::NodeId;
use firn_core::pchain::block::Block;
use firn_recordlog::{RecordLog, RecordLogError};
use std::path::Path;

/// The file name inside the data directory.
pub const BLOCK_FILE: &str = "blocks.dat";
/// Largest record payload accepted when reading (blocks are far smaller).
const MAX_RECORD: usize = 16 * 1024 * 1024;

/// An accepted block and the node that proposed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AcceptedBlock<B = Block> {
    /// The inner VM block (what `platform.getBlock` or `avm.getBlock` returns).
    pub block: B,
    /// The proposer, as the proposervm wrapper would record it.
    pub proposer: NodeId,
}

/// The append-only block file of blocks `B`.
#[derive(Debug)]
pub struct BlockStore<B = Block> {
    log: RecordLog,
    blocks: std::marker::PhantomData<fn() -> B>,
}

fn log_error(e: RecordLogError) -> DevnetError {
    match e {
        RecordLogError::Io { path, source } => DevnetError::Io { path, source },
        RecordLogError::Corrupt { index, reason } => DevnetError::Corrupt {
            height: index,
            reason,
        },
        e @ RecordLogError::TooLarge { .. } => DevnetError::Corrupt {
            height: 0,
            reason: e.to_string(),
        },
    }
}

impl<B: Encode + Decode> BlockStore<B> {
    /// Opens (creating if needed) the block file in `dir` and reads every intact block.
    pub fn open(dir: &Path) -> Result<(Self, Vec<AcceptedBlock<B>>), DevnetError> {
        let (log, records) =
            RecordLog::open(&dir.join(BLOCK_FILE), MAX_RECORD).map_err(log_error)?;
        let blocks = records
            .iter()
            .enumerate()
            .map(|(height, payload)| {
                let corrupt = |reason: String| DevnetError::Corrupt {
                    height: height as u64,
                    reason,
                };
                let (proposer, bytes) = payload
                    .split_first_chunk::<20>()
                    .ok_or_else(|| corrupt("record too short for a proposer".into()))?;
                let block: B = codec::from_bytes_with_max(bytes, MAX_RECORD)
                    .map_err(|e| corrupt(e.to_string()))?;
                Ok(AcceptedBlock {
                    block,
                    proposer: NodeId(*proposer),
                })
            })
            .collect::<Result<_, DevnetError>>()?;
        Ok((
            Self {
                log,
                blocks: std::marker::PhantomData,
            },
            blocks,
        ))
    }

    /// Appends a block and fsyncs it.
    pub fn append(&mut self, b: &AcceptedBlock<B>) -> Result<(), DevnetError> {
        let bytes = codec::to_bytes(&b.block);
        let mut payload = Vec::with_capacity(20 + bytes.len());
        payload.extend_from_slice(&b.proposer.0);
        payload.extend_from_slice(&bytes);
        self.log.append(&payload).map_err(log_error)
    }

    /// The block file's path.
    pub fn path(&self) -> &Path {
        self.log.path()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use firn_core::ids::Id;
    use firn_core::pchain::block::BlockKind;
    use std::path::PathBuf;

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
    fn blocks_round_trip_and_a_bad_middle_record_is_corruption() {
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
        bytes[4 + 8 + 3] ^= 0xff;
        std::fs::write(&path, &bytes).unwrap();
        match BlockStore::<Block>::open(&d) {
            Err(DevnetError::Corrupt { height: 0, reason }) => {
                assert_eq!(reason, "checksum mismatch")
            }
            other => panic!("unexpected {other:?}"),
        }
        let _ = std::fs::remove_dir_all(&d);
    }
}
