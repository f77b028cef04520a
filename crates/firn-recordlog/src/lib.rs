//! An append-only file of records: what the devnet's chains keep their accepted blocks in.
//!
//! A record is `len: u32 BE ‖ checksum: first 8 bytes of sha256(payload) ‖ payload`. Each
//! [`RecordLog::append`] is fsynced before it returns, so a record that was appended survives a
//! crash, and a new file's directory entry is fsynced too. [`RecordLog::open`] reads every record
//! back in order. A crash mid-append can leave a last record cut short, failing its checksum,
//! with a garbage length that runs past the end of the file, or as zeros where the file system
//! extended it before the data landed: that torn tail is dropped and the file truncated to the
//! records before it. A bad record followed by more data is not a torn write but corruption,
//! and opening fails with the record's index.
//!
//! What a payload means (a P-Chain block and its proposer, an EVM block's txs) is the caller's.
//!
//! ```
//! # let dir = std::env::temp_dir().join(format!("firn-recordlog-doc-{}", std::process::id()));
//! # let _ = std::fs::remove_dir_all(&dir);
//! # std::fs::create_dir_all(&dir).unwrap();
//! use firn_recordlog::RecordLog;
//!
//! let path = dir.join("blocks.dat");
//! let (mut log, records) = RecordLog::open(&path, 1 << 20)?;
//! assert!(records.is_empty());
//! log.append(b"first")?;
//! log.append(b"second")?;
//! drop(log);
//! let (_, records) = RecordLog::open(&path, 1 << 20)?;
//! assert_eq!(records, [b"first".to_vec(), b"second".to_vec()]);
//! # std::fs::remove_dir_all(&dir).unwrap();
//! # Ok::<(), firn_recordlog::RecordLogError>(())
//! ```

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use tracing::warn;

const HEADER: usize = 4 + 8;

/// What can go wrong with a record file.
#[derive(Debug, thiserror::Error)]
pub enum RecordLogError {
    /// Reading, writing or syncing the file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory.
        path: String,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A record before the last one is damaged: the file was changed outside firn.
    #[error(
        "record {index} is damaged: {reason}; the file was modified outside firn (restore it or start a new data directory)"
    )]
    Corrupt {
        /// The record's index (0 for the first).
        index: u64,
        /// What is wrong.
        reason: String,
    },
    /// A payload too large for the length field or the reader's maximum.
    #[error("a record of {len} bytes exceeds the maximum of {max}")]
    TooLarge {
        /// The payload's length.
        len: usize,
        /// The maximum.
        max: usize,
    },
}

/// The offset within `rest` (after its first byte) of a record whose length fits and whose
/// checksum holds, if any: a tail that still holds one was not torn by the last append.
fn intact_record_after(rest: &[u8], max_record: usize) -> Option<usize> {
    (1..rest.len().saturating_sub(HEADER - 1)).find(|&at| {
        let r = &rest[at..];
        let len = u32::from_be_bytes([r[0], r[1], r[2], r[3]]) as usize;
        len <= max_record
            && r.len() - HEADER >= len
            && checksum(&r[HEADER..HEADER + len]) == r[4..HEADER]
    })
}

/// Fsyncs a directory, so that the names created in it survive a crash.
fn sync_dir(dir: &Path) -> Result<(), RecordLogError> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(io_err(dir))
}

/// An open record file, positioned to append.
#[derive(Debug)]
pub struct RecordLog {
    path: PathBuf,
    file: File,
    /// Bytes of whole records: where the next one starts.
    len: u64,
    max_record: usize,
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> RecordLogError + '_ {
    move |source| RecordLogError::Io {
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

impl RecordLog {
    /// Opens (creating it and its directory if needed) the record file at `path`, and reads
    /// every intact record, in order. Records longer than `max_record` are refused.
    pub fn open(path: &Path, max_record: usize) -> Result<(Self, Vec<Vec<u8>>), RecordLogError> {
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
        if let Some(dir) = dir {
            std::fs::create_dir_all(dir).map_err(io_err(dir))?;
        }
        let existed = path.exists();
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(path)
            .map_err(io_err(path))?;
        if !existed && let Some(dir) = dir {
            // A new file's name lives in its directory: without this a crash can lose the
            // file even though its records were fsynced.
            sync_dir(dir)?;
        }
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).map_err(io_err(path))?;

        let mut records = Vec::new();
        let mut pos = 0usize;
        while pos < bytes.len() {
            let index = records.len() as u64;
            let rest = &bytes[pos..];
            let torn = |reason: &str| {
                warn!(index, offset = pos, reason, "dropping torn final record");
            };
            if rest.len() < HEADER {
                torn("short header");
                break;
            }
            if rest.iter().all(|b| *b == 0) {
                torn("zero-filled tail");
                break;
            }
            let len = u32::from_be_bytes([rest[0], rest[1], rest[2], rest[3]]) as usize;
            // A length running past the end is the last append torn (its length may be
            // garbage), unless an intact record follows: then an earlier one is damaged.
            if rest.len() - HEADER < len {
                if let Some(offset) = intact_record_after(rest, max_record) {
                    return Err(RecordLogError::Corrupt {
                        index,
                        reason: format!(
                            "record length {len} runs past the end, but an intact record \
                             follows {offset} bytes later"
                        ),
                    });
                }
                torn("length past the end");
                break;
            }
            if len > max_record {
                return Err(RecordLogError::Corrupt {
                    index,
                    reason: format!("record length {len} exceeds the maximum of {max_record}"),
                });
            }
            let payload = &rest[HEADER..HEADER + len];
            if checksum(payload) != rest[4..HEADER] {
                if pos + HEADER + len == bytes.len() {
                    torn("checksum mismatch");
                    break;
                }
                return Err(RecordLogError::Corrupt {
                    index,
                    reason: "checksum mismatch".into(),
                });
            }
            records.push(payload.to_vec());
            pos += HEADER + len;
        }
        if pos < bytes.len() {
            file.set_len(pos as u64).map_err(io_err(path))?;
            file.sync_all().map_err(io_err(path))?;
        }
        let log = Self {
            path: path.to_path_buf(),
            file,
            len: pos as u64,
            max_record,
        };
        Ok((log, records))
    }

    /// Appends one record and fsyncs it. On failure nothing of it is left in the file.
    pub fn append(&mut self, payload: &[u8]) -> Result<(), RecordLogError> {
        let max = self.max_record.min(u32::MAX as usize);
        if payload.len() > max {
            return Err(RecordLogError::TooLarge {
                len: payload.len(),
                max,
            });
        }
        let mut record = Vec::with_capacity(HEADER + payload.len());
        record.extend_from_slice(&(payload.len() as u32).to_be_bytes());
        record.extend_from_slice(&checksum(payload));
        record.extend_from_slice(payload);
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

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct TempDir(PathBuf);

    impl TempDir {
        fn new(name: &str) -> Self {
            let d =
                std::env::temp_dir().join(format!("firn-recordlog-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&d);
            Self(d)
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn written(dir: &TempDir, records: &[&[u8]]) -> PathBuf {
        let path = dir.0.join("log.dat");
        let (mut log, _) = RecordLog::open(&path, 1024).unwrap();
        for r in records {
            log.append(r).unwrap();
        }
        path
    }

    #[test]
    fn records_come_back_in_order_across_opens() {
        let dir = TempDir::new("order");
        let path = written(&dir, &[b"a", b"", b"ccc"]);
        let (mut log, records) = RecordLog::open(&path, 1024).unwrap();
        assert_eq!(records, [b"a".to_vec(), vec![], b"ccc".to_vec()]);
        log.append(b"d").unwrap();
        let (_, records) = RecordLog::open(&path, 1024).unwrap();
        assert_eq!(records.len(), 4);
    }

    #[test]
    fn a_torn_last_record_is_dropped_and_the_file_truncated() {
        let dir = TempDir::new("torn");
        let path = written(&dir, &[b"first", b"second"]);
        let whole = std::fs::read(&path).unwrap();
        let first_len = HEADER + 5;
        // Cut anywhere inside the second record, or damage its last byte.
        for cut in first_len + 1..whole.len() {
            std::fs::write(&path, &whole[..cut]).unwrap();
            let (_, records) = RecordLog::open(&path, 1024).unwrap();
            assert_eq!(records, [b"first".to_vec()], "cut at {cut}");
            assert_eq!(std::fs::metadata(&path).unwrap().len(), first_len as u64);
        }
        let mut flipped = whole.clone();
        *flipped.last_mut().unwrap() ^= 1;
        std::fs::write(&path, &flipped).unwrap();
        let (mut log, records) = RecordLog::open(&path, 1024).unwrap();
        assert_eq!(records.len(), 1);
        // Appending after recovery continues cleanly.
        log.append(b"again").unwrap();
        let (_, records) = RecordLog::open(&path, 1024).unwrap();
        assert_eq!(records, [b"first".to_vec(), b"again".to_vec()]);
    }

    #[test]
    fn a_bad_record_before_the_end_is_corruption() {
        let dir = TempDir::new("corrupt");
        let path = written(&dir, &[b"first", b"second"]);
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[HEADER + 1] ^= 0xff;
        std::fs::write(&path, &bytes).unwrap();
        match RecordLog::open(&path, 1024) {
            Err(RecordLogError::Corrupt { index: 0, reason }) => {
                assert_eq!(reason, "checksum mismatch")
            }
            other => panic!("unexpected {other:?}"),
        }
        // A garbage length before an intact record is corruption too, not a torn write.
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[HEADER + 1] ^= 0xff;
        bytes[..4].copy_from_slice(&u32::MAX.to_be_bytes());
        std::fs::write(&path, &bytes).unwrap();
        assert!(matches!(
            RecordLog::open(&path, 1024),
            Err(RecordLogError::Corrupt { index: 0, .. })
        ));
        // So is a length that fits in the file but exceeds the maximum.
        std::fs::remove_file(&path).unwrap();
        let path = written(&dir, &[&[7u8; 40], b"x"]);
        assert!(matches!(
            RecordLog::open(&path, 16),
            Err(RecordLogError::Corrupt { index: 0, .. })
        ));
    }

    #[test]
    fn a_last_record_with_a_garbage_length_or_zeros_is_a_torn_tail() {
        let dir = TempDir::new("garbage-tail");
        let path = written(&dir, &[b"first", b"second"]);
        let whole = std::fs::read(&path).unwrap();
        let first_len = HEADER + 5;
        let tails: [Vec<u8>; 3] = [
            // The last header's length is garbage, far past the end.
            [&u32::MAX.to_be_bytes()[..], &whole[first_len + 4..]].concat(),
            // The file system extended the file but the data never landed.
            vec![0; whole.len() - first_len],
            vec![0; 4096],
        ];
        for tail in tails {
            std::fs::write(&path, [&whole[..first_len], &tail[..]].concat()).unwrap();
            let (_, records) = RecordLog::open(&path, 1024).unwrap();
            assert_eq!(records, [b"first".to_vec()]);
            assert_eq!(std::fs::metadata(&path).unwrap().len(), first_len as u64);
        }
    }

    #[test]
    fn oversized_payloads_are_refused() {
        let dir = TempDir::new("large");
        let (mut log, _) = RecordLog::open(&dir.0.join("log.dat"), 4).unwrap();
        assert!(matches!(
            log.append(b"12345"),
            Err(RecordLogError::TooLarge { len: 5, max: 4 })
        ));
        log.append(b"1234").unwrap();
    }
}
