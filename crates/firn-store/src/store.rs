//! The [`Store`] handle: where its reads go (SQLite's rusqlite readers or PostgreSQL's pool)
//! and its write transactions. Opening one is in `open`.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use sqlx::{Any, AnyPool};

use crate::checkpoint::Checkpointer;
use crate::error::{Result, StoreError};
use crate::row::Row;
use crate::sql::Sql;
use crate::sqlite_read::{self, SqliteReaders};

/// Which database a [`Store`] runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// An embedded SQLite file: one writer connection, a pool of read-only readers, WAL.
    Sqlite,
    /// A PostgreSQL server: a pool for writes and a read-only pool for reads.
    Postgres,
}

/// The store: a handle to one database, cheap to clone, implementing every storage trait.
#[derive(Debug, Clone)]
pub struct Store {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    backend: Backend,
    writer: AnyPool,
    reader: Reader,
    /// Serialises this process's write transactions (derived state is read-modify-write).
    write_lock: tokio::sync::Mutex<()>,
    /// The highest `store_generation` this process wrote or read.
    generation: AtomicU64,
    /// SQLite's WAL checkpoints, nudged by each commit (none on PostgreSQL).
    checkpointer: Option<Checkpointer>,
    /// Every read's SQL and values, while a test records them (`testing::record_reads`).
    #[cfg(feature = "testing")]
    recorded: std::sync::Mutex<Option<Vec<RecordedRead>>>,
}

/// One read's SQL and bound values, as a test recorded it.
#[cfg(feature = "testing")]
pub(crate) type RecordedRead = (String, Vec<crate::sql::Value>);

/// Decodes one result row.
pub(crate) type Decode<T> = fn(&dyn Row) -> Result<T>;

/// Keys one lookup statement binds ([`Store::fetch_by_keys`]).
pub(crate) const LOOKUP_CHUNK: usize = 500;
/// Builds a second read from the first read's rows (`None`: nothing to read).
pub(crate) type FollowUp<T> = fn(&[T]) -> Option<Sql>;

/// PostgreSQL's SQLSTATE for a statement cancelled (here: by `statement_timeout`).
const POSTGRES_QUERY_CANCELED: &str = "57014";

/// Where reads go: SQLite's read-only rusqlite connections, or PostgreSQL's read pool.
#[derive(Debug)]
pub(crate) enum Reader {
    Sqlite(Arc<SqliteReaders>),
    /// Read-only sessions whose statements the server cancels after `timeout`.
    Postgres {
        pool: AnyPool,
        timeout: Duration,
    },
}

impl Store {
    /// A store over open, migrated connections.
    pub(crate) fn new(
        backend: Backend,
        writer: AnyPool,
        reader: Reader,
        checkpointer: Option<Checkpointer>,
    ) -> Store {
        Store {
            inner: Arc::new(Inner {
                backend,
                writer,
                reader,
                write_lock: tokio::sync::Mutex::new(()),
                generation: AtomicU64::new(0),
                checkpointer,
                #[cfg(feature = "testing")]
                recorded: std::sync::Mutex::new(None),
            }),
        }
    }

    /// The backend in use.
    pub fn backend(&self) -> Backend {
        self.inner.backend
    }

    /// Closes every connection; later calls fail.
    pub async fn close(&self) {
        match &self.inner.reader {
            Reader::Sqlite(r) => r.close(),
            Reader::Postgres { pool, .. } => pool.close().await,
        }
        self.inner.writer.close().await;
        if let Some(c) = &self.inner.checkpointer {
            c.stop().await;
        }
    }

    /// Runs the read `q` and decodes each row with `decode`.
    pub(crate) async fn fetch<T: Send + 'static>(
        &self,
        q: Sql,
        decode: Decode<T>,
    ) -> Result<Vec<T>> {
        self.record(&q);
        match &self.inner.reader {
            Reader::Sqlite(readers) => {
                let (text, values) = q.into_parts();
                readers
                    .run(move |conn| sqlite_read::query(conn, &text, &values, decode))
                    .await
            }
            Reader::Postgres { pool, timeout } => match q.fetch_all(pool).await {
                Ok(rows) => rows.iter().map(|r| decode(r)).collect(),
                Err(StoreError::Database(sqlx::Error::Database(e)))
                    if e.code().as_deref() == Some(POSTGRES_QUERY_CANCELED) =>
                {
                    Err(StoreError::ReadTimeout(*timeout))
                }
                Err(e) => Err(e),
            },
        }
    }

    /// The read `select` (ending in `IN (`) for every one of `keys`, [`LOOKUP_CHUNK`] keys a
    /// statement; the rows of all of them.
    pub(crate) async fn fetch_by_keys<K, T: Send + 'static>(
        &self,
        select: &str,
        keys: &[K],
        key: fn(&K) -> Vec<u8>,
        decode: Decode<T>,
    ) -> Result<Vec<T>> {
        let mut out = Vec::with_capacity(keys.len());
        for chunk in keys.chunks(LOOKUP_CHUNK) {
            let mut q = Sql::new(select);
            q.bind_list(chunk.iter().map(key)).push(")");
            out.extend(self.fetch(q, decode).await?);
        }
        Ok(out)
    }

    /// Two dependent reads: `first`, then the query `then` builds from its rows (`None`: no
    /// second read). SQLite runs both in one blocking task on one connection (one hand-off,
    /// not two); PostgreSQL makes two round trips.
    pub(crate) async fn fetch_then<A: Send + 'static, B: Send + 'static>(
        &self,
        (first, decode_first): (Sql, Decode<A>),
        (then, decode_then): (FollowUp<A>, Decode<B>),
    ) -> Result<(Vec<A>, Vec<B>)> {
        match &self.inner.reader {
            Reader::Sqlite(readers) => {
                self.record(&first);
                let (text, values) = first.into_parts();
                // Only a build that can record reads needs the store inside the closure.
                #[cfg(feature = "testing")]
                let store = self.clone();
                readers
                    .run(move |conn| {
                        let a = sqlite_read::query(conn, &text, &values, decode_first)?;
                        let b = match then(&a) {
                            Some(q) => {
                                #[cfg(feature = "testing")]
                                store.record(&q);
                                let (text, values) = q.into_parts();
                                sqlite_read::query(conn, &text, &values, decode_then)?
                            }
                            None => Vec::new(),
                        };
                        Ok((a, b))
                    })
                    .await
            }
            Reader::Postgres { .. } => {
                let a = self.fetch(first, decode_first).await?;
                let b = match then(&a) {
                    Some(q) => self.fetch(q, decode_then).await?,
                    None => Vec::new(),
                };
                Ok((a, b))
            }
        }
    }

    /// Notes `q` while a test records reads; nothing otherwise.
    fn record(&self, q: &Sql) {
        #[cfg(feature = "testing")]
        if let Some(log) = self
            .inner
            .recorded
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_mut()
        {
            log.push(q.clone().into_parts());
        }
        #[cfg(not(feature = "testing"))]
        let _ = q;
    }

    /// Starts recording reads ([`Store::take_recorded`] returns them).
    #[cfg(feature = "testing")]
    pub(crate) fn start_recording(&self) {
        *self
            .inner
            .recorded
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = Some(Vec::new());
    }

    /// The reads recorded since [`Store::start_recording`], which stops.
    #[cfg(feature = "testing")]
    pub(crate) fn take_recorded(&self) -> Option<Vec<RecordedRead>> {
        self.inner
            .recorded
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
    }

    /// The SQLite readers, on that backend.
    #[cfg(feature = "testing")]
    pub(crate) fn sqlite_readers(&self) -> Option<&Arc<SqliteReaders>> {
        match &self.inner.reader {
            Reader::Sqlite(r) => Some(r),
            Reader::Postgres { .. } => None,
        }
    }

    /// [`Store::fetch`] for at most one row.
    pub(crate) async fn fetch_optional<T: Send + 'static>(
        &self,
        q: Sql,
        decode: Decode<T>,
    ) -> Result<Option<T>> {
        Ok(self.fetch(q, decode).await?.into_iter().next())
    }

    /// Starts a write transaction, holding this process's write lock until it ends.
    pub(crate) async fn begin_write(&self) -> Result<WriteTx<'_>> {
        let guard = self.inner.write_lock.lock().await;
        let tx = match self.backend() {
            // Takes SQLite's write lock at once: a deferred transaction that read first fails
            // with "database is locked", busy timeout or not, when another process (a second
            // handle) committed since its read.
            Backend::Sqlite => self.inner.writer.begin_with("BEGIN IMMEDIATE").await?,
            Backend::Postgres => self.inner.writer.begin().await?,
        };
        Ok(WriteTx {
            tx,
            _guard: guard,
            generation: &self.inner.generation,
            checkpointer: self.inner.checkpointer.as_ref(),
        })
    }

    /// A write transaction for a batch of a chain's blocks, committed with its cursor. On
    /// PostgreSQL its commit does not wait for the WAL to reach the disk: a crash of the
    /// machine may lose the last batches, whole, cursor and all, and the indexer reads them
    /// from the node again; nothing is half-written and nothing else is lost. Everything else
    /// a user writes (API keys, webhooks) waits as usual.
    pub(crate) async fn begin_block_write(&self) -> Result<WriteTx<'_>> {
        let mut w = self.begin_write().await?;
        if self.backend() == Backend::Postgres {
            sqlx::query("SET LOCAL synchronous_commit = off")
                .execute(&mut *w.tx)
                .await?;
        }
        Ok(w)
    }

    /// The store's generation as this process last saw it: it moves with every write
    /// transaction committed, by this process at once, by others once
    /// [`refresh_generation`](Self::refresh_generation) reads it. Whatever a read returned
    /// stays true while it does not move.
    pub fn generation(&self) -> u64 {
        self.inner.generation.load(Ordering::Acquire)
    }

    /// Reads the generation other processes' writes moved (one single-row read) and returns
    /// it.
    pub async fn refresh_generation(&self) -> Result<u64> {
        let q = Sql::new("SELECT generation FROM store_generation WHERE id = 1");
        let stored = self
            .fetch_optional(q, |r| crate::codec::RowExt::u64(r, "generation"))
            .await?
            .unwrap_or_default();
        Ok(self
            .inner
            .generation
            .fetch_max(stored, Ordering::AcqRel)
            .max(stored))
    }
}

/// A write transaction and the process-wide write lock.
pub(crate) struct WriteTx<'a> {
    pub(crate) tx: sqlx::Transaction<'static, Any>,
    _guard: tokio::sync::MutexGuard<'a, ()>,
    generation: &'a AtomicU64,
    checkpointer: Option<&'a Checkpointer>,
}

impl WriteTx<'_> {
    /// Commits, moving the store's generation with it.
    pub(crate) async fn commit(mut self) -> Result<()> {
        let row = sqlx::query(
            "UPDATE store_generation SET generation = generation + 1 WHERE id = 1 \
             RETURNING generation",
        )
        .fetch_one(&mut *self.tx)
        .await?;
        let generation = crate::codec::RowExt::u64(&row, "generation")?;
        let moved = self.generation;
        self.finish().await?;
        moved.fetch_max(generation, Ordering::AcqRel);
        Ok(())
    }

    /// Commits state that no indexed read depends on (webhooks), leaving the generation
    /// where it is: the Data API's cached pages stay good.
    pub(crate) async fn commit_unindexed(self) -> Result<()> {
        self.finish().await
    }

    /// Commits the transaction and asks for its pages to be checkpointed (SQLite).
    async fn finish(self) -> Result<()> {
        self.tx.commit().await?;
        if let Some(c) = self.checkpointer {
            c.nudge();
        }
        Ok(())
    }
}
