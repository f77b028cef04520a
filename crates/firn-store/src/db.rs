//! Opening a store: backend choice, pools, pragmas, migrations; and the small SQL helpers the
//! query modules share.
//!
//! Both backends run through sqlx's `Any` driver with the same SQL: `$n` placeholders (SQLite
//! accepts them too), `ON CONFLICT` upserts, row-value comparisons for keyset paging, and only
//! 64-bit integers, doubles, text and bytes as column types.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use sqlx::any::{AnyArguments, AnyPoolOptions, AnyRow};
use sqlx::{Any, AnyConnection, AnyPool, Arguments, Encode, Executor, Row as _, Type};
use tracing::info;

use crate::error::{Result, StoreError};
use crate::sqlite_read::{self, SqliteReaders};
use crate::types::{Address, B256, U256};
use firn_core::ids::{Id, NodeId, ShortId};

static SQLITE_MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("migrations/sqlite");
static POSTGRES_MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("migrations/postgres");

/// Which database a [`Store`] runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// An embedded SQLite file: one writer connection, a pool of read-only readers, WAL.
    Sqlite,
    /// A PostgreSQL server: one pool for reads and writes.
    Postgres,
}

/// Options of [`Store::open_with`].
#[derive(Debug, Clone)]
pub struct StoreOptions {
    /// Reader connections (SQLite) or pool size (PostgreSQL).
    pub max_connections: u32,
    /// How long a SQLite connection waits for a lock before failing.
    pub busy_timeout: Duration,
}

impl Default for StoreOptions {
    fn default() -> Self {
        Self {
            max_connections: 8,
            busy_timeout: Duration::from_secs(5),
        }
    }
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
}

/// Decodes one result row.
pub(crate) type Decode<T> = fn(&dyn Row) -> Result<T>;
/// Builds a second read from the first read's rows (`None`: nothing to read).
pub(crate) type FollowUp<T> = fn(&[T]) -> Option<Sql>;

/// Where reads go: SQLite's read-only rusqlite connections, or PostgreSQL's one pool.
#[derive(Debug)]
enum Reader {
    Sqlite(Arc<SqliteReaders>),
    Postgres(AnyPool),
}

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
        crate::upgrade::run_pending(&store).await?;
        Ok(store)
    }

    async fn open_postgres(url: &str, options: &StoreOptions) -> Result<Store> {
        let pool = AnyPoolOptions::new()
            .max_connections(options.max_connections.max(1))
            .acquire_timeout(Duration::from_secs(10))
            // Every query here is a short indexed read or write. JIT compilation pays off only
            // for long scans, and a misestimate (stale statistics while a table grows) made a
            // 20-row UTXO lookup compile for 16 ms and run in parallel workers.
            .after_connect(|conn, _| {
                Box::pin(async move {
                    conn.execute("SET jit = off").await?;
                    Ok(())
                })
            })
            .connect(url)
            .await?;
        POSTGRES_MIGRATIONS.run(&pool).await?;
        info!(backend = "postgres", "opened store");
        Ok(Store {
            inner: Arc::new(Inner {
                backend: Backend::Postgres,
                writer: pool.clone(),
                reader: Reader::Postgres(pool),
                write_lock: tokio::sync::Mutex::new(()),
            }),
        })
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
        let writer_pragmas = format!(
            "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = {busy_ms}; \
             PRAGMA foreign_keys = OFF; PRAGMA cache_size = -65536; PRAGMA temp_store = MEMORY;"
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
        SQLITE_MIGRATIONS.run(&writer).await?;
        let reader = SqliteReaders::new(path, options.max_connections, options.busy_timeout);
        info!(backend = "sqlite", path = %path.display(), "opened store");
        Ok(Store {
            inner: Arc::new(Inner {
                backend: Backend::Sqlite,
                writer,
                reader: Reader::Sqlite(reader),
                write_lock: tokio::sync::Mutex::new(()),
            }),
        })
    }

    /// The backend in use.
    pub fn backend(&self) -> Backend {
        self.inner.backend
    }

    /// Closes every connection; later calls fail.
    pub async fn close(&self) {
        match &self.inner.reader {
            Reader::Sqlite(r) => r.close(),
            Reader::Postgres(pool) => pool.close().await,
        }
        self.inner.writer.close().await;
    }

    /// Runs the read `q` and decodes each row with `decode`.
    pub(crate) async fn fetch<T: Send + 'static>(
        &self,
        q: Sql,
        decode: fn(&dyn Row) -> Result<T>,
    ) -> Result<Vec<T>> {
        let (text, args) = q.into_parts()?;
        match &self.inner.reader {
            Reader::Sqlite(readers) => {
                readers
                    .run(move |conn| sqlite_read::query(conn, &text, &args, decode))
                    .await
            }
            Reader::Postgres(pool) => sqlx::query_with(&text, args)
                .fetch_all(pool)
                .await?
                .iter()
                .map(|r| decode(r))
                .collect(),
        }
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
                let (text, args) = first.into_parts()?;
                readers
                    .run(move |conn| {
                        let a = sqlite_read::query(conn, &text, &args, decode_first)?;
                        let b = match then(&a) {
                            Some(q) => {
                                let (text, args) = q.into_parts()?;
                                sqlite_read::query(conn, &text, &args, decode_then)?
                            }
                            None => Vec::new(),
                        };
                        Ok((a, b))
                    })
                    .await
            }
            Reader::Postgres(_) => {
                let a = self.fetch(first, decode_first).await?;
                let b = match then(&a) {
                    Some(q) => self.fetch(q, decode_then).await?,
                    None => Vec::new(),
                };
                Ok((a, b))
            }
        }
    }

    /// [`Store::fetch`] for at most one row.
    pub(crate) async fn fetch_optional<T: Send + 'static>(
        &self,
        q: Sql,
        decode: fn(&dyn Row) -> Result<T>,
    ) -> Result<Option<T>> {
        Ok(self.fetch(q, decode).await?.into_iter().next())
    }

    /// Starts a write transaction, holding this process's write lock until it ends.
    pub(crate) async fn begin_write(&self) -> Result<WriteTx<'_>> {
        let guard = self.inner.write_lock.lock().await;
        let tx = self.inner.writer.begin().await?;
        Ok(WriteTx { tx, _guard: guard })
    }
}

/// A write transaction and the process-wide write lock.
pub(crate) struct WriteTx<'a> {
    pub(crate) tx: sqlx::Transaction<'static, Any>,
    _guard: tokio::sync::MutexGuard<'a, ()>,
}

impl WriteTx<'_> {
    pub(crate) async fn commit(self) -> Result<()> {
        self.tx.commit().await?;
        Ok(())
    }
}

/// A SQL text with `$n` placeholders built alongside its arguments.
pub(crate) struct Sql {
    text: String,
    args: AnyArguments<'static>,
    count: usize,
    /// The first value the `Any` driver could not encode, reported when the query runs.
    error: Option<String>,
    /// `?` placeholders instead of `$n` (SQLite: see [`Sql::anonymous_placeholders`]).
    anonymous: bool,
}

/// Bound values per statement: SQLite allows 32,766 and PostgreSQL 65,535.
const MAX_PARAMS: usize = 30_000;

impl Sql {
    pub(crate) fn new(text: &str) -> Self {
        Self {
            text: text.to_owned(),
            args: AnyArguments::default(),
            count: 0,
            error: None,
            anonymous: false,
        }
    }

    /// Writes `?` rather than `$n` for the values bound from now on. SQLite looks numbered
    /// and named parameters up in a linear list, at prepare and at bind, so a statement with
    /// n `$n` placeholders costs O(n²); `?` costs O(n). Only for statements whose
    /// placeholders all come from [`Sql::bind`], in order.
    pub(crate) fn anonymous_placeholders(&mut self) -> &mut Self {
        self.anonymous = true;
        self
    }

    pub(crate) fn push(&mut self, text: &str) -> &mut Self {
        self.text.push_str(text);
        self
    }

    /// Appends a placeholder bound to `value`.
    pub(crate) fn bind<T>(&mut self, value: T) -> &mut Self
    where
        T: Encode<'static, Any> + Type<Any> + Send + 'static,
    {
        self.count += 1;
        if self.anonymous {
            self.text.push('?');
        } else {
            self.text.push('$');
            self.text.push_str(&self.count.to_string());
        }
        if let Err(e) = self.args.add(value) {
            self.error.get_or_insert(e.to_string());
        }
        self
    }

    /// Appends ` LIMIT n` with `n` written into the text, not bound: PostgreSQL plans a
    /// prepared statement generically only when the generic plan costs about what custom plans
    /// did, and a bound LIMIT (estimated at a tenth of the table) never does, so every
    /// execution was planned anew (~1 ms of a 0.2 ms page). Page sizes are few, so the
    /// statement caches stay small.
    pub(crate) fn limit(&mut self, n: i64) -> &mut Self {
        self.text.push_str(" LIMIT ");
        self.text.push_str(&n.to_string());
        self
    }

    /// Appends a bound value inside a `( … )` row, after a comma unless it is the first.
    pub(crate) fn arg<T>(&mut self, value: T) -> &mut Self
    where
        T: Encode<'static, Any> + Type<Any> + Send + 'static,
    {
        if !self.text.ends_with('(') {
            self.text.push_str(", ");
        }
        self.bind(value)
    }

    fn check(&mut self) -> Result<()> {
        match self.error.take() {
            Some(e) => Err(StoreError::Database(sqlx::Error::Encode(e.into()))),
            None => Ok(()),
        }
    }

    /// The SQL text and its bound values, failing on a value that could not be encoded.
    fn into_parts(mut self) -> Result<(String, AnyArguments<'static>)> {
        self.check()?;
        Ok((self.text, self.args))
    }

    /// Runs the statement; returns the number of rows it changed.
    pub(crate) async fn execute(mut self, conn: &mut AnyConnection) -> Result<u64> {
        self.check()?;
        let done = sqlx::query_with(&self.text, self.args)
            .execute(&mut *conn)
            .await?;
        Ok(done.rows_affected())
    }

    /// Appends `v1, v2, …` placeholders.
    pub(crate) fn bind_list<T>(&mut self, values: impl IntoIterator<Item = T>) -> &mut Self
    where
        T: Encode<'static, Any> + Type<Any> + Send + 'static,
    {
        for (i, v) in values.into_iter().enumerate() {
            if i > 0 {
                self.text.push_str(", ");
            }
            self.bind(v);
        }
        self
    }

    pub(crate) async fn fetch_all<'c, E>(mut self, executor: E) -> Result<Vec<AnyRow>>
    where
        E: Executor<'c, Database = Any>,
    {
        self.check()?;
        Ok(sqlx::query_with(&self.text, self.args)
            .fetch_all(executor)
            .await?)
    }
}

/// Inserts `items` with multi-row `INSERT … VALUES (…), (…)` statements of at most
/// [`MAX_PARAMS`] values each. `head` ends with `VALUES `, `tail` (e.g. an `ON CONFLICT`
/// clause) follows the rows, and `row` binds one item's `columns` values with [`Sql::arg`].
/// Returns the number of rows inserted (conflicts skipped by `DO NOTHING` do not count).
pub(crate) async fn insert_many<T>(
    conn: &mut AnyConnection,
    head: &str,
    tail: &str,
    columns: usize,
    items: &[T],
    mut row: impl FnMut(&mut Sql, &T) -> Result<()>,
) -> Result<u64> {
    let mut inserted = 0;
    let sqlite = conn.backend_name() == "SQLite";
    for chunk in items.chunks((MAX_PARAMS / columns.max(1)).max(1)) {
        let mut q = Sql::new(head);
        if sqlite {
            q.anonymous_placeholders();
        }
        for (i, item) in chunk.iter().enumerate() {
            q.push(if i == 0 { "(" } else { ", (" });
            row(&mut q, item)?;
            q.push(")");
        }
        q.push(tail);
        inserted += q.execute(conn).await?;
    }
    Ok(inserted)
}

/// [`insert_many`] with a `RETURNING …` tail: returns the rows the statements returned (with
/// `ON CONFLICT DO NOTHING`, only the rows actually inserted).
pub(crate) async fn insert_many_returning<T>(
    conn: &mut AnyConnection,
    head: &str,
    tail: &str,
    columns: usize,
    items: &[T],
    mut row: impl FnMut(&mut Sql, &T) -> Result<()>,
) -> Result<Vec<AnyRow>> {
    let mut out = Vec::new();
    let sqlite = conn.backend_name() == "SQLite";
    for chunk in items.chunks((MAX_PARAMS / columns.max(1)).max(1)) {
        let mut q = Sql::new(head);
        if sqlite {
            q.anonymous_placeholders();
        }
        for (i, item) in chunk.iter().enumerate() {
            q.push(if i == 0 { "(" } else { ", (" });
            row(&mut q, item)?;
            q.push(")");
        }
        q.push(tail);
        out.extend(q.fetch_all(&mut *conn).await?);
    }
    Ok(out)
}

// Conversions between Rust values and stored columns ------------------------------------------

/// A height, timestamp or count: must fit a signed 64-bit column.
pub(crate) fn int(field: &'static str, v: u64) -> Result<i64> {
    i64::try_from(v).map_err(|_| StoreError::OutOfRange {
        field,
        value: v.to_string(),
    })
}

/// A u64 amount stored as its bit pattern (exact; never compared or summed in SQL).
pub(crate) fn bits(v: u64) -> i64 {
    v as i64
}

pub(crate) fn u256(v: &U256) -> Vec<u8> {
    v.to_be_bytes().to_vec()
}

pub(crate) fn u128_bytes(v: u128) -> Vec<u8> {
    v.to_be_bytes().to_vec()
}

pub(crate) fn short_ids(ids: &[ShortId]) -> Vec<u8> {
    ids.iter().flat_map(|a| a.0).collect()
}

pub(crate) fn amounts(list: &[crate::rows::pchain::AssetAmount]) -> Vec<u8> {
    let mut out = Vec::with_capacity(list.len() * 40);
    for a in list {
        out.extend_from_slice(&a.asset_id.0);
        out.extend_from_slice(&a.amount.to_be_bytes());
    }
    out
}

pub(crate) fn hashes(ids: &[Id]) -> Vec<u8> {
    ids.iter().flat_map(|a| a.0).collect()
}

pub(crate) fn b256s(list: &[B256]) -> Vec<u8> {
    list.iter().flat_map(|a| a.0).collect()
}

fn corrupt(column: &'static str, reason: impl Into<String>) -> StoreError {
    StoreError::Corrupt {
        column,
        reason: reason.into(),
    }
}

/// A result row of either backend, read by column name; values borrow the row.
pub(crate) trait Row {
    fn get_i64(&self, col: &'static str) -> Result<Option<i64>>;
    fn get_f64(&self, col: &'static str) -> Result<Option<f64>>;
    fn get_blob(&self, col: &'static str) -> Result<Option<&[u8]>>;
    fn get_str(&self, col: &'static str) -> Result<Option<&str>>;
}

/// Typed access to the columns of a result row.
pub(crate) trait RowExt: Row {
    fn opt_i64(&self, col: &'static str) -> Result<Option<i64>> {
        self.get_i64(col)
    }
    fn opt_bytes(&self, col: &'static str) -> Result<Option<Vec<u8>>> {
        Ok(self.get_blob(col)?.map(<[u8]>::to_vec))
    }
    fn opt_text(&self, col: &'static str) -> Result<Option<String>> {
        Ok(self.get_str(col)?.map(str::to_owned))
    }
    fn f64(&self, col: &'static str) -> Result<f64> {
        self.get_f64(col)?.ok_or_else(|| corrupt(col, "null"))
    }

    fn i64(&self, col: &'static str) -> Result<i64> {
        self.opt_i64(col)?.ok_or_else(|| corrupt(col, "null"))
    }
    fn bytes(&self, col: &'static str) -> Result<Vec<u8>> {
        self.opt_bytes(col)?.ok_or_else(|| corrupt(col, "null"))
    }
    fn text(&self, col: &'static str) -> Result<String> {
        self.opt_text(col)?.ok_or_else(|| corrupt(col, "null"))
    }
    /// A non-negative integer column.
    fn u64(&self, col: &'static str) -> Result<u64> {
        let v = self.i64(col)?;
        u64::try_from(v).map_err(|_| corrupt(col, format!("negative value {v}")))
    }
    fn opt_u64(&self, col: &'static str) -> Result<Option<u64>> {
        self.opt_i64(col)?
            .map(|v| u64::try_from(v).map_err(|_| corrupt(col, format!("negative value {v}"))))
            .transpose()
    }
    fn u32(&self, col: &'static str) -> Result<u32> {
        let v = self.i64(col)?;
        u32::try_from(v).map_err(|_| corrupt(col, format!("value {v} out of range")))
    }
    /// A u64 stored as its bit pattern.
    fn bits(&self, col: &'static str) -> Result<u64> {
        Ok(self.i64(col)? as u64)
    }
    fn opt_bits(&self, col: &'static str) -> Result<Option<u64>> {
        Ok(self.opt_i64(col)?.map(|v| v as u64))
    }
    fn bool(&self, col: &'static str) -> Result<bool> {
        Ok(self.i64(col)? != 0)
    }
    fn fixed<const N: usize>(&self, col: &'static str) -> Result<[u8; N]> {
        self.opt_fixed(col)?.ok_or_else(|| corrupt(col, "null"))
    }
    fn opt_fixed<const N: usize>(&self, col: &'static str) -> Result<Option<[u8; N]>> {
        match self.get_blob(col)? {
            None => Ok(None),
            Some(b) => b
                .try_into()
                .map(Some)
                .map_err(|_| corrupt(col, format!("{} bytes, expected {N}", b.len()))),
        }
    }
    /// A non-null blob, borrowed.
    fn blob(&self, col: &'static str) -> Result<&[u8]> {
        self.get_blob(col)?.ok_or_else(|| corrupt(col, "null"))
    }
    fn id(&self, col: &'static str) -> Result<Id> {
        Ok(Id(self.fixed(col)?))
    }
    fn opt_id(&self, col: &'static str) -> Result<Option<Id>> {
        Ok(self.opt_fixed(col)?.map(Id))
    }
    fn node_id(&self, col: &'static str) -> Result<NodeId> {
        Ok(NodeId(self.fixed(col)?))
    }
    fn opt_node_id(&self, col: &'static str) -> Result<Option<NodeId>> {
        Ok(self.opt_fixed(col)?.map(NodeId))
    }
    fn address(&self, col: &'static str) -> Result<Address> {
        Ok(Address(self.fixed(col)?))
    }
    fn opt_address(&self, col: &'static str) -> Result<Option<Address>> {
        Ok(self.opt_fixed(col)?.map(Address))
    }
    fn b256(&self, col: &'static str) -> Result<B256> {
        Ok(B256(self.fixed(col)?))
    }
    fn u256(&self, col: &'static str) -> Result<U256> {
        Ok(U256::from_be_bytes(self.fixed(col)?))
    }
    fn opt_u256(&self, col: &'static str) -> Result<Option<U256>> {
        Ok(self.opt_fixed(col)?.map(U256::from_be_bytes))
    }
    fn u128(&self, col: &'static str) -> Result<u128> {
        Ok(u128::from_be_bytes(self.fixed(col)?))
    }
    fn short_ids(&self, col: &'static str) -> Result<Vec<ShortId>> {
        let b = self.blob(col)?;
        if b.len() % 20 != 0 {
            return Err(corrupt(col, "address list length not a multiple of 20"));
        }
        Ok(b.chunks_exact(20)
            .filter_map(|c| ShortId::from_slice(c).ok())
            .collect())
    }
    fn hashes(&self, col: &'static str) -> Result<Vec<Id>> {
        let b = self.blob(col)?;
        if b.len() % 32 != 0 {
            return Err(corrupt(col, "hash list length not a multiple of 32"));
        }
        Ok(b.chunks_exact(32)
            .filter_map(|c| Id::from_slice(c).ok())
            .collect())
    }
    fn b256s(&self, col: &'static str) -> Result<Vec<B256>> {
        let b = self.blob(col)?;
        if b.len() % 32 != 0 {
            return Err(corrupt(col, "hash list length not a multiple of 32"));
        }
        Ok(b.chunks_exact(32).filter_map(B256::from_slice).collect())
    }
    fn amounts(&self, col: &'static str) -> Result<Vec<crate::rows::pchain::AssetAmount>> {
        let b = self.blob(col)?;
        if b.len() % 40 != 0 {
            return Err(corrupt(col, "amount list length not a multiple of 40"));
        }
        let mut out = Vec::with_capacity(b.len() / 40);
        for c in b.chunks_exact(40) {
            let mut asset = [0u8; 32];
            asset.copy_from_slice(&c[..32]);
            let mut amount = [0u8; 8];
            amount.copy_from_slice(&c[32..]);
            out.push(crate::rows::pchain::AssetAmount {
                asset_id: Id(asset),
                amount: u64::from_be_bytes(amount),
            });
        }
        Ok(out)
    }
}

impl<R: Row + ?Sized> RowExt for R {}

impl Row for AnyRow {
    fn get_i64(&self, col: &'static str) -> Result<Option<i64>> {
        self.try_get::<Option<i64>, _>(col)
            .map_err(|e| corrupt(col, e.to_string()))
    }
    fn get_f64(&self, col: &'static str) -> Result<Option<f64>> {
        self.try_get::<Option<f64>, _>(col)
            .map_err(|e| corrupt(col, e.to_string()))
    }
    fn get_blob(&self, col: &'static str) -> Result<Option<&[u8]>> {
        self.try_get::<Option<&[u8]>, _>(col)
            .map_err(|e| corrupt(col, e.to_string()))
    }
    fn get_str(&self, col: &'static str) -> Result<Option<&str>> {
        self.try_get::<Option<&str>, _>(col)
            .map_err(|e| corrupt(col, e.to_string()))
    }
}

impl crate::traits::CursorStore for Store {
    async fn find_cursor(&self, chain: crate::rows::ChainKey) -> Result<Option<u64>> {
        let mut q = Sql::new("SELECT height FROM cursors WHERE chain = ");
        q.bind(chain.as_text());
        self.fetch_optional(q, |r| r.u64("height")).await
    }
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

    #[test]
    fn heights_must_fit_signed_columns() {
        assert_eq!(int("height", 5).unwrap(), 5);
        assert!(matches!(
            int("height", u64::MAX),
            Err(StoreError::OutOfRange {
                field: "height",
                ..
            })
        ));
        assert_eq!(bits(u64::MAX) as u64, u64::MAX);
    }
}
