//! SQLite's WAL checkpoints, run on a thread of their own instead of inside the writer's
//! commits.
//!
//! In WAL mode a commit appends pages to the `-wal` file; a checkpoint copies them back into
//! the database file. By default the committing connection checkpoints as soon as the WAL
//! passes 1,000 pages, so during a backfill nearly every batch's commit also paid for copying
//! the pages of the batch before it: ~9 % of the writer thread's time in the EVM backfill
//! profile, with the other core idle. Here each commit only nudges the [`Checkpointer`], whose
//! own connection checkpoints while the writer goes on with the next batch. A `PASSIVE`
//! checkpoint waits for no one, so it never holds up the writer or a reader.
//!
//! The writer keeps an automatic checkpoint of its own at [`WRITER_CHECKPOINT_PAGES`]. SQLite
//! starts the WAL over only when a write begins after every page in it was copied; while a
//! backfill commits batch after batch, each begins before the thread has copied the last, so
//! the WAL grows until the writer's own checkpoint copies the little that is left and lets it
//! start over. That bound also holds should the thread fail.

use std::path::Path;
use std::sync::Mutex;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::JoinHandle;

use rusqlite::{Connection, OpenFlags};
use tracing::debug;

use crate::error::{Result, StoreError};

/// The writer's own automatic checkpoint (`wal_autocheckpoint`), in pages: 64 MiB of 4 KiB
/// pages, the WAL's bound.
pub(crate) const WRITER_CHECKPOINT_PAGES: u32 = 16_384;

/// The checkpoint thread of one SQLite store; it ends when [`stop`](Self::stop)ped or dropped.
#[derive(Debug)]
pub(crate) struct Checkpointer {
    nudge: Mutex<Option<SyncSender<()>>>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

impl Checkpointer {
    /// Opens a connection to the database at `path` (which must exist) and starts the thread.
    pub(crate) fn spawn(path: &Path) -> Result<Self> {
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        // Checkpoints sync the database file after copying, as the writer's do.
        conn.execute_batch("PRAGMA synchronous = NORMAL;")?;
        // One pending nudge is enough: a checkpoint copies every page committed before it.
        let (nudge, nudged) = sync_channel(1);
        let thread = std::thread::Builder::new()
            .name("firn-checkpoint".into())
            .spawn(move || run(&conn, &nudged))
            .map_err(|e| StoreError::Database(sqlx::Error::Io(e)))?;
        Ok(Self {
            nudge: Mutex::new(Some(nudge)),
            thread: Mutex::new(Some(thread)),
        })
    }

    /// Asks for a checkpoint of what has been committed so far; never waits.
    pub(crate) fn nudge(&self) {
        let Ok(nudge) = self.nudge.lock() else {
            return;
        };
        // Full: a checkpoint is already asked for. Disconnected: the thread has ended.
        if let Some(nudge) = nudge.as_ref() {
            let _ = nudge.try_send(());
        }
    }

    /// Ends the thread after the checkpoint it may be running, closing its connection.
    pub(crate) async fn stop(&self) {
        if let Ok(mut nudge) = self.nudge.lock() {
            nudge.take();
        }
        let thread = self.thread.lock().ok().and_then(|mut t| t.take());
        if let Some(thread) = thread {
            let _ = tokio::task::spawn_blocking(move || thread.join()).await;
        }
    }
}

/// Checkpoints once per nudge until the sender is gone. A failed checkpoint is logged and
/// left to the next nudge (or the writer's own automatic one).
fn run(conn: &Connection, nudged: &Receiver<()>) {
    while nudged.recv().is_ok() {
        // (busy, frames in the WAL, frames copied): busy when another checkpoint was running.
        let done = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, i64>(2)?,
            ))
        });
        match done {
            Ok((busy, frames, copied)) => debug!(busy, frames, copied, "checkpointed the WAL"),
            Err(e) => debug!(error = %e, "WAL checkpoint failed; the next commit retries it"),
        }
    }
}
