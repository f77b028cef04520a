//! Opening a store: backend choice, pools, pragmas, migrations and the one-time upgrades.

use std::path::Path;
use std::time::Duration;

use sqlx::Executor;
use sqlx::any::AnyPoolOptions;
use tracing::info;

use crate::checkpoint::{Checkpointer, WRITER_CHECKPOINT_PAGES};
use crate::error::{Result, StoreError};
use crate::sqlite_read::{MMAP_BYTES, SqliteReaders};
use crate::store::{Backend, Reader, Store};
use crate::upgrade;

static SQLITE_MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("migrations/sqlite");
static POSTGRES_MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("migrations/postgres");

/// Options of [`Store::open_with`].
#[derive(Debug, Clone)]
pub struct StoreOptions {
    /// Reader connections (SQLite) or pool size (PostgreSQL).
    pub max_connections: u32,
    /// How long a SQLite connection waits for a lock before failing.
    pub busy_timeout: Duration,
    /// How long one read may run before the database stops it ([`StoreError::ReadTimeout`]):
    /// SQLite interrupts it, PostgreSQL cancels it (`statement_timeout`). A read is also
    /// stopped as soon as its caller drops it (a request that timed out or disconnected).
    pub read_timeout: Duration,
    /// SQLite's page caches, in MiB, across all connections: a third for the writer, the
    /// rest split among the readers. The caches fill as the store is read and then stay at
    /// this size, so it bounds most of the memory a large store costs (file pages read
    /// through the memory map are the OS's to reclaim). PostgreSQL ignores it.
    pub cache_mib: u32,
}

impl Default for StoreOptions {
    fn default() -> Self {
        Self {
            max_connections: 8,
            busy_timeout: Duration::from_secs(5),
            read_timeout: Duration::from_secs(30),
            cache_mib: DEFAULT_CACHE_MIB,
        }
    }
}

/// [`StoreOptions::cache_mib`] by default: 64 MiB for the writer, 16 MiB for each of 8 readers.
pub const DEFAULT_CACHE_MIB: u32 = 192;

impl StoreOptions {
    /// The writer's page cache, in KiB: a third of the budget.
    pub(crate) fn writer_cache_kib(&self) -> u64 {
        (u64::from(self.cache_mib) * 1024 / 3).max(MIN_CACHE_KIB)
    }

    /// Each reader's page cache, in KiB: the other two thirds, split.
    pub(crate) fn reader_cache_kib(&self) -> u64 {
        let readers_kib = u64::from(self.cache_mib) * 1024 * 2 / 3;
        (readers_kib / u64::from(self.max_connections.max(1))).max(MIN_CACHE_KIB)
    }
}

/// The smallest page cache a connection gets, in KiB, however small the budget.
const MIN_CACHE_KIB: u64 = 256;

/// Connections for PostgreSQL writes. Writes are serialised by the store's write lock; the
/// rest serve the indexers' unlocked metadata updates.
const POSTGRES_WRITERS: u32 = 4;

/// Opens the store at `location` with default options; see [`Store::open_with`].
pub async fn open(location: &str) -> Result<Store> {
    Store::open_with(location, &StoreOptions::default()).await
}

fn sqlite_url(path: &str, mode: &str) -> String {
    let mut escaped = String::with_capacity(path.len());
    for c in path.chars() {
        match c {
            '%' => escaped.push_str("%25"),
            '?' => escaped.push_str("%3F"),
            '#' => escaped.push_str("%23"),
            c => escaped.push(c),
        }
    }
    format!("sqlite://{escaped}?mode={mode}")
}

impl Store {
    /// Opens (creating if needed) and migrates the store at `location`: a `postgres://` or
    /// `postgresql://` URL, a `sqlite://path` URL, or a plain file path.
    pub async fn open_with(location: &str, options: &StoreOptions) -> Result<Store> {
        sqlx::any::install_default_drivers();
        let store = if location.starts_with("postgres://") || location.starts_with("postgresql://")
        {
            Self::open_postgres(location, options).await?
        } else {
            let path = location
                .strip_prefix("sqlite://")
                .or_else(|| location.strip_prefix("sqlite:"))
                .unwrap_or(location);
            if path.is_empty() || path.contains("://") || path == ":memory:" {
                return Err(StoreError::BadLocation(location.to_owned()));
            }
            Self::open_sqlite(Path::new(path), options).await?
        };
        upgrade::run_pending(&store).await?;
        store.refresh_generation().await?;
        Ok(store)
    }

    async fn open_postgres(url: &str, options: &StoreOptions) -> Result<Store> {
        let writer = postgres_pool(url, POSTGRES_WRITERS, String::new()).await?;
        POSTGRES_MIGRATIONS.run(&writer).await?;
        // Reads get a pool of their own whose sessions cannot write and whose statements the
        // server cancels at the read timeout, whatever the client does meanwhile.
        let timeout_ms = options.read_timeout.as_millis().clamp(1, i32::MAX as u128);
        let reader = postgres_pool(
            url,
            options.max_connections,
            format!(
                "SET statement_timeout = {timeout_ms}; \
                 SET default_transaction_read_only = on;"
            ),
        )
        .await?;
        info!(backend = "postgres", "opened store");
        Ok(Store::new(
            Backend::Postgres,
            writer,
            Reader::Postgres {
                pool: reader,
                timeout: options.read_timeout,
            },
            None,
        ))
    }

    async fn open_sqlite(path: &Path, options: &StoreOptions) -> Result<Store> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            tokio::fs::create_dir_all(dir)
                .await
                .map_err(|e| StoreError::Database(sqlx::Error::Io(e)))?;
        }
        let text = path
            .to_str()
            .ok_or_else(|| StoreError::BadLocation(path.display().to_string()))?;
        let busy_ms = options.busy_timeout.as_millis().min(i32::MAX as u128);
        // The writer reads through the map too: a batch's index upkeep touches pages all over a
        // store larger than its cache, and each miss was a read() and a copy.
        let writer_pragmas = format!(
            "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = {busy_ms}; \
             PRAGMA foreign_keys = OFF; PRAGMA cache_size = -{}; PRAGMA temp_store = MEMORY; \
             PRAGMA mmap_size = {MMAP_BYTES}; PRAGMA wal_autocheckpoint = {WRITER_CHECKPOINT_PAGES};",
            options.writer_cache_kib()
        );
        let writer = AnyPoolOptions::new()
            .max_connections(1)
            .min_connections(1)
            .idle_timeout(None)
            .max_lifetime(None)
            .after_connect(move |conn, _| {
                let pragmas = writer_pragmas.clone();
                Box::pin(async move {
                    conn.execute(pragmas.as_str()).await?;
                    Ok(())
                })
            })
            .connect(&sqlite_url(text, "rwc"))
            .await?;
        // sqlx takes no lock to migrate SQLite: two processes opening a new store at once
        // (`firn index` and `firn serve`) would both apply the same migration, and one fail.
        let migrating = lock_migrations(path).await?;
        SQLITE_MIGRATIONS.run(&writer).await?;
        drop(migrating);
        let reader = SqliteReaders::new(path, options);
        let checkpointer = Checkpointer::spawn(path)?;
        info!(backend = "sqlite", path = %path.display(), "opened store");
        Ok(Store::new(
            Backend::Sqlite,
            writer,
            Reader::Sqlite(reader),
            Some(checkpointer),
        ))
    }
}

/// Holds an exclusive lock on `<database>-migrations.lock` until dropped, waiting for any
/// other process that holds it.
async fn lock_migrations(database: &Path) -> Result<std::fs::File> {
    let mut name = database.as_os_str().to_owned();
    name.push("-migrations.lock");
    let io = |e| StoreError::Database(sqlx::Error::Io(e));
    tokio::task::spawn_blocking(move || {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&name)?;
        file.lock()?;
        Ok(file)
    })
    .await
    .map_err(|e| io(std::io::Error::other(e)))?
    .map_err(io)
}

/// A pool of at most `max` sessions, each set up with `settings` (SQL) after connecting.
async fn postgres_pool(url: &str, max: u32, settings: String) -> Result<sqlx::AnyPool> {
    // Every query here is a short indexed read or write. JIT compilation pays off only for
    // long scans, and a misestimate (stale statistics while a table grows) made a 20-row UTXO
    // lookup compile for 16 ms and run in parallel workers.
    let setup = format!("SET jit = off; {settings}");
    Ok(AnyPoolOptions::new()
        .max_connections(max.max(1))
        .acquire_timeout(Duration::from_secs(10))
        .after_connect(move |conn, _| {
            let setup = setup.clone();
            Box::pin(async move {
                conn.execute(setup.as_str()).await?;
                Ok(())
            })
        })
        .connect(url)
        .await?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sqlite_urls_escape_special_characters() {
        assert_eq!(
            sqlite_url("/tmp/a?b#c%d.db", "ro"),
            "sqlite:///tmp/a%3Fb%23c%25d.db?mode=ro"
        );
    }
}
