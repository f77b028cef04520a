//! SQLite reads on plain rusqlite connections, one blocking task per query.
//!
//! sqlx runs every SQLite connection on its own worker thread and sends each result row back
//! through a channel, copying every value twice (into a `SqliteRow`, then into an `AnyRow`).
//! For the API's short indexed reads that hand-off cost more than the query: profiles of the
//! P-Chain transaction lists showed ~40 % of the time in the worker threads' wake-ups, mallocs
//! and value copies. Here a read runs on the calling thread under a time budget (moving to
//! tokio's blocking pool when it overruns, see [`SqliteReaders::run`]), and rows are decoded
//! straight from SQLite's memory into records.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::{Connection, OpenFlags};
use tokio::sync::Semaphore;

use crate::StoreOptions;
use crate::error::{Result, StoreError};
use crate::row::{Row, corrupt};
use crate::sql::Value;

/// The memory map every SQLite connection reads pages through (no `read()` per page miss);
/// SQLite caps it at its compile-time maximum (2 GiB by default).
pub(crate) const MMAP_BYTES: u64 = 16 << 30;
/// Prepared statements kept per connection (list queries vary with their filters).
const STATEMENT_CACHE: usize = 256;
/// How long a read may run on the calling (async) thread before it moves to the blocking pool.
const INLINE_BUDGET: Duration = Duration::from_millis(1);
/// SQLite VM steps between checks of that budget.
const PROGRESS_STEPS: std::os::raw::c_int = 1_000;

/// Whether a read failed because the inline budget interrupted it.
fn interrupted(e: &StoreError) -> bool {
    matches!(
        e,
        StoreError::Sqlite(rusqlite::Error::SqliteFailure(f, _))
            if f.code == rusqlite::ErrorCode::OperationInterrupted
    )
}

/// Read-only connections to one database file, opened on demand up to a limit.
#[derive(Debug)]
pub(crate) struct SqliteReaders {
    path: PathBuf,
    busy_timeout: Duration,
    read_timeout: Duration,
    cache_kib: u64,
    idle: Mutex<Vec<Connection>>,
    permits: Arc<Semaphore>,
}

/// Set when the caller of a read goes away; the read's progress handler then stops it.
#[derive(Debug, Default)]
struct Abandoned(Arc<AtomicBool>);

impl Drop for Abandoned {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

impl SqliteReaders {
    pub(crate) fn new(path: &Path, options: &StoreOptions) -> Arc<Self> {
        let max = options.max_connections;
        Arc::new(Self {
            path: path.to_path_buf(),
            busy_timeout: options.busy_timeout,
            read_timeout: options.read_timeout,
            cache_kib: options.reader_cache_kib(),
            idle: Mutex::new(Vec::new()),
            permits: Arc::new(Semaphore::new(usize::try_from(max.max(1)).unwrap_or(1))),
        })
    }

    fn open(&self) -> Result<Connection> {
        let conn = Connection::open_with_flags(
            &self.path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        conn.busy_timeout(self.busy_timeout)?;
        conn.execute_batch(&format!(
            "PRAGMA query_only = ON; PRAGMA mmap_size = {MMAP_BYTES}; \
             PRAGMA cache_size = -{}; PRAGMA temp_store = MEMORY;",
            self.cache_kib
        ))?;
        conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
        Ok(conn)
    }

    fn take(&self) -> Result<Connection> {
        let idle = self.idle.lock().unwrap_or_else(|e| e.into_inner()).pop();
        match idle {
            Some(c) => Ok(c),
            None => self.open(),
        }
    }

    fn give_back(&self, conn: Connection) {
        conn.progress_handler(0, None::<fn() -> bool>);
        self.idle
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(conn);
    }

    /// Runs `work` on an idle connection (opening one when none is idle), at most `max` at a
    /// time. It runs on the calling thread first, under a time budget: nearly every API read
    /// finishes well inside it, and the two thread hand-offs of a blocking task were a quarter
    /// of the CPU of a mixed load. A read that runs past the budget is interrupted and run
    /// again on tokio's blocking pool, so a long scan cannot stall the async workers.
    ///
    /// There it holds its permit until it ends, and it ends at the read timeout
    /// ([`StoreError::ReadTimeout`]) or as soon as this future is dropped, whichever is first:
    /// SQLite's progress handler interrupts the statement. An abandoned scan neither runs on
    /// nor lets more scans start than the limit.
    pub(crate) async fn run<T, F>(self: &Arc<Self>, work: F) -> Result<T>
    where
        T: Send + 'static,
        F: Fn(&Connection) -> Result<T> + Send + 'static,
    {
        let permit = Arc::clone(&self.permits)
            .acquire_owned()
            .await
            .map_err(|_| StoreError::Closed)?;
        let conn = self.take()?;
        let started = Instant::now();
        let budget = started + INLINE_BUDGET;
        conn.progress_handler(PROGRESS_STEPS, Some(move || Instant::now() > budget));
        let inline = work(&conn);
        if !inline.as_ref().is_err_and(interrupted) {
            self.give_back(conn);
            return inline;
        }
        let abandoned = Abandoned::default();
        let stop = Arc::clone(&abandoned.0);
        let deadline = started + self.read_timeout;
        conn.progress_handler(
            PROGRESS_STEPS,
            Some(move || stop.load(Ordering::Relaxed) || Instant::now() > deadline),
        );
        let this = Arc::clone(self);
        let timeout = self.read_timeout;
        let out = tokio::task::spawn_blocking(move || {
            let out = work(&conn);
            this.give_back(conn);
            drop(permit);
            match out {
                Err(e) if interrupted(&e) => Err(StoreError::ReadTimeout(timeout)),
                out => out,
            }
        })
        .await
        .map_err(|e| StoreError::ReaderFailed(e.to_string()))?;
        drop(abandoned);
        out
    }

    /// Drops the idle connections and refuses new reads.
    pub(crate) fn close(&self) {
        self.permits.close();
        self.idle.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }
}

/// One bound value as SQLite takes it.
fn value_ref(v: &Value) -> ValueRef<'_> {
    match v {
        Value::Int(Some(n)) => ValueRef::Integer(*n),
        Value::Real(Some(x)) => ValueRef::Real(*x),
        Value::Text(Some(t)) => ValueRef::Text(t.as_bytes()),
        Value::Blob(Some(b)) => ValueRef::Blob(b),
        Value::Int(None) | Value::Real(None) | Value::Text(None) | Value::Blob(None) => {
            ValueRef::Null
        }
    }
}

/// Runs `sql` with `values` (bound to `$n` by number, `?` in order) and decodes every row.
pub(crate) fn query<T>(
    conn: &Connection,
    sql: &str,
    values: &[Value],
    decode: fn(&dyn Row) -> Result<T>,
) -> Result<Vec<T>> {
    let mut stmt = conn.prepare_cached(sql)?;
    bind(&mut stmt, values)?;
    let names: Vec<String> = stmt.column_names().into_iter().map(str::to_owned).collect();
    let mut rows = stmt.raw_query();
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        out.push(decode(&SqliteRow { row, names: &names })?);
    }
    Ok(out)
}

/// Binds `values` to `stmt`'s parameters: `$n` by number, `?` in order.
fn bind(stmt: &mut rusqlite::Statement<'_>, values: &[Value]) -> Result<()> {
    for index in 1..=stmt.parameter_count() {
        let position = match stmt.parameter_name(index) {
            Some(name) => name
                .strip_prefix('$')
                .and_then(|n| n.parse::<usize>().ok())
                .ok_or_else(|| StoreError::ReaderFailed(format!("unsupported parameter {name}")))?,
            None => index,
        };
        let value = values
            .get(position.wrapping_sub(1))
            .map(value_ref)
            .ok_or_else(|| {
                StoreError::ReaderFailed(format!("no value for parameter {position}"))
            })?;
        stmt.raw_bind_parameter(index, ToSqlOutput::Borrowed(value))?;
    }
    Ok(())
}

/// Runs `sql` with `values` to the end and answers how many rows it returned and how many
/// steps SQLite took through tables or indexes it walked without a constraint (its
/// `FULLSCAN_STEP` counter): the rows a walk examined, matching or not.
#[cfg(feature = "testing")]
pub(crate) fn rows_and_walk_steps(
    conn: &Connection,
    sql: &str,
    values: &[Value],
) -> Result<(u64, u64)> {
    let mut stmt = conn.prepare(sql)?;
    bind(&mut stmt, values)?;
    let mut returned = 0;
    {
        let mut rows = stmt.raw_query();
        while rows.next()?.is_some() {
            returned += 1;
        }
    }
    let steps = stmt.get_status(rusqlite::StatementStatus::FullscanStep);
    Ok((returned, u64::try_from(steps).unwrap_or_default()))
}

/// A result row read in place: values borrow SQLite's buffers until the next row.
struct SqliteRow<'a, 'r> {
    row: &'a rusqlite::Row<'r>,
    names: &'a [String],
}

impl SqliteRow<'_, '_> {
    fn value(&self, col: &'static str) -> Result<ValueRef<'_>> {
        let index = self
            .names
            .iter()
            .position(|n| n == col)
            .ok_or_else(|| corrupt(col, "no such column in the result"))?;
        Ok(self.row.get_ref(index)?)
    }
}

impl Row for SqliteRow<'_, '_> {
    fn get_i64(&self, col: &'static str) -> Result<Option<i64>> {
        match self.value(col)? {
            ValueRef::Null => Ok(None),
            ValueRef::Integer(n) => Ok(Some(n)),
            _ => Err(corrupt(col, "not an integer")),
        }
    }

    fn get_f64(&self, col: &'static str) -> Result<Option<f64>> {
        match self.value(col)? {
            ValueRef::Null => Ok(None),
            ValueRef::Real(x) => Ok(Some(x)),
            ValueRef::Integer(n) => Ok(Some(n as f64)),
            _ => Err(corrupt(col, "not a number")),
        }
    }

    fn get_blob(&self, col: &'static str) -> Result<Option<&[u8]>> {
        match self.value(col)? {
            ValueRef::Null => Ok(None),
            ValueRef::Blob(b) => Ok(Some(b)),
            _ => Err(corrupt(col, "not a blob")),
        }
    }

    fn get_str(&self, col: &'static str) -> Result<Option<&str>> {
        match self.value(col)? {
            ValueRef::Null => Ok(None),
            ValueRef::Text(t) => std::str::from_utf8(t)
                .map(Some)
                .map_err(|_| corrupt(col, "text is not UTF-8")),
            _ => Err(corrupt(col, "not text")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::RowExt;

    #[test]
    fn numbered_parameters_bind_by_number_and_columns_by_name() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE t (a INTEGER, b BLOB, c TEXT); INSERT INTO t VALUES (1, x'0102', 'x'), (2, NULL, 'y');")
            .unwrap();
        // $2 appears before $1: values still go by number.
        let a = [Value::from(2i64), Value::from("y")];
        let rows = query(
            &conn,
            "SELECT c, b, a FROM t WHERE c = $2 AND a = $1",
            &a,
            |r| Ok((r.i64("a")?, r.opt_bytes("b")?, r.text("c")?)),
        )
        .unwrap();
        assert_eq!(rows, vec![(2, None, "y".to_owned())]);
        let rows = query(
            &conn,
            "SELECT b FROM t WHERE a = ?",
            &[Value::from(1i64)],
            |r| r.bytes("b"),
        )
        .unwrap();
        assert_eq!(rows, vec![vec![1, 2]]);
        let rows = query(
            &conn,
            "SELECT a FROM t WHERE b IS $1",
            &[Value::Blob(None)],
            |r| r.i64("a"),
        )
        .unwrap();
        assert_eq!(rows, vec![2]);
    }

    #[test]
    fn wrong_types_and_missing_columns_are_corrupt_not_panics() {
        let conn = Connection::open_in_memory().unwrap();
        let err = query(&conn, "SELECT 'text' AS a", &[], |r| r.i64("a")).unwrap_err();
        assert!(
            matches!(err, StoreError::Corrupt { column: "a", .. }),
            "{err}"
        );
        let err = query(&conn, "SELECT 1 AS a", &[], |r| r.i64("b")).unwrap_err();
        assert!(
            matches!(err, StoreError::Corrupt { column: "b", .. }),
            "{err}"
        );
    }

    #[tokio::test]
    async fn a_read_past_the_inline_budget_finishes_on_the_blocking_pool() {
        let dir = std::env::temp_dir().join(format!("firn-sqlite-read-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.db");
        Connection::open(&path)
            .unwrap()
            .execute_batch("CREATE TABLE IF NOT EXISTS t (a INTEGER)")
            .unwrap();
        let readers = SqliteReaders::new(&path, &options(2, Duration::from_secs(60)));
        // A recursive count far past the budget: interrupted inline, then run to the end.
        let slow = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n \
                    WHERE i < 3000000) SELECT count(*) AS c FROM n";
        let count = readers
            .run(move |conn| query(conn, slow, &[], |r| r.i64("c")))
            .await
            .unwrap();
        assert_eq!(count, vec![3_000_000]);
        let quick = readers
            .run(|conn| query(conn, "SELECT 7 AS c", &[], |r| r.i64("c")))
            .await
            .unwrap();
        assert_eq!(quick, vec![7]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Store options with `readers` reader connections and a short busy timeout.
    fn options(readers: u32, read_timeout: Duration) -> StoreOptions {
        StoreOptions {
            max_connections: readers,
            busy_timeout: Duration::from_secs(1),
            read_timeout,
            ..StoreOptions::default()
        }
    }

    /// A database file with one table, in a directory removed on drop.
    fn scratch(name: &str) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::Builder::new().prefix(name).tempdir().unwrap();
        let path = dir.path().join("t.db");
        Connection::open(&path)
            .unwrap()
            .execute_batch("CREATE TABLE t (a INTEGER)")
            .unwrap();
        (dir, path)
    }

    /// Counts to ten billion: minutes of work unless something stops it.
    const ENDLESS: &str = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n \
                           WHERE i < 10000000000) SELECT count(*) AS c FROM n";

    #[tokio::test]
    async fn a_read_past_the_read_timeout_is_stopped() {
        let (_dir, path) = scratch("firn-read-timeout");
        let timeout = Duration::from_millis(200);
        let readers = SqliteReaders::new(&path, &options(1, timeout));
        let err = readers
            .run(|conn| query(conn, ENDLESS, &[], |r| r.i64("c")))
            .await
            .unwrap_err();
        assert!(
            matches!(err, StoreError::ReadTimeout(t) if t == timeout),
            "{err}"
        );
        // Its one connection is free again and works.
        let quick = readers
            .run(|conn| query(conn, "SELECT 7 AS c", &[], |r| r.i64("c")))
            .await
            .unwrap();
        assert_eq!(quick, vec![7]);
    }

    #[tokio::test]
    async fn an_abandoned_read_stops_and_frees_its_permit() {
        let (_dir, path) = scratch("firn-read-abandoned");
        // One reader, and a read timeout far beyond the test: only abandonment can stop it.
        let readers = SqliteReaders::new(&path, &options(1, Duration::from_secs(3600)));
        let scan = {
            let readers = Arc::clone(&readers);
            tokio::spawn(async move {
                readers
                    .run(|conn| query(conn, ENDLESS, &[], |r| r.i64("c")))
                    .await
            })
        };
        // Wait until the scan holds the only permit (it has left the inline budget).
        while readers.permits.available_permits() == 1 {
            tokio::task::yield_now().await;
        }
        scan.abort();
        // The next read needs that permit: it gets it only if the scan stopped.
        let quick = tokio::time::timeout(
            Duration::from_secs(10),
            readers.run(|conn| query(conn, "SELECT 7 AS c", &[], |r| r.i64("c"))),
        )
        .await
        .expect("the abandoned scan stopped and gave its permit back")
        .unwrap();
        assert_eq!(quick, vec![7]);
    }
}
