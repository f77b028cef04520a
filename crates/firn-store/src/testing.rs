//! Test support for the crates that test against a real store (feature `testing`): a fresh
//! database on each backend, cleaned up afterwards, and [`backend_tests!`](crate::backend_tests)
//! to run one test body on both.
//!
//! SQLite: a new file in a new temporary directory, removed afterwards. PostgreSQL: a new
//! schema in the `test` database (`FIRN_TEST_POSTGRES_URL` overrides the URL), dropped
//! afterwards; a test on it is skipped, saying so, when the server is unreachable.

use std::future::Future;
use std::path::PathBuf;
use std::time::Duration;

use sqlx::{Connection, Executor};

use crate::codec::RowExt;
use crate::{Store, open};

/// The test server `.ci/run` makes sure of.
pub const DEFAULT_POSTGRES_URL: &str = "postgres://postgres@127.0.0.1:5432/test";

/// The test PostgreSQL server's URL: `FIRN_TEST_POSTGRES_URL`, or [`DEFAULT_POSTGRES_URL`].
pub fn postgres_url() -> String {
    std::env::var("FIRN_TEST_POSTGRES_URL").unwrap_or_else(|_| DEFAULT_POSTGRES_URL.to_owned())
}

fn unique(prefix: &str) -> String {
    format!("{prefix}{}", uuid::Uuid::new_v4().simple())
}

/// A connection to the test PostgreSQL server, or `None` when it is unreachable (3 s).
pub async fn postgres_admin() -> Option<sqlx::AnyConnection> {
    sqlx::any::install_default_drivers();
    let connect = sqlx::AnyConnection::connect(&postgres_url());
    match tokio::time::timeout(Duration::from_secs(3), connect).await {
        Ok(Ok(conn)) => Some(conn),
        _ => None,
    }
}

/// A database a test owns: its SQLite directory is removed, or its PostgreSQL schema dropped,
/// when this is dropped.
#[derive(Debug)]
pub struct TestDb {
    url: String,
    owned: Owned,
}

#[derive(Debug)]
enum Owned {
    Dir(PathBuf),
    Schema(String),
}

impl TestDb {
    /// A new SQLite file in a new temporary directory.
    pub fn sqlite() -> Self {
        let dir = std::env::temp_dir().join(unique("firn-test-"));
        let url = dir
            .join("firn.db")
            .to_str()
            .expect("utf-8 temp path")
            .to_owned();
        Self {
            url,
            owned: Owned::Dir(dir),
        }
    }

    /// A new schema on the test PostgreSQL server, or `None` when it is unreachable.
    pub async fn postgres() -> Option<Self> {
        let mut admin = postgres_admin().await?;
        let schema = unique("firn_test_");
        admin
            .execute(format!("CREATE SCHEMA {schema}").as_str())
            .await
            .expect("create test schema");
        let _ = admin.close().await;
        let base = postgres_url();
        let sep = if base.contains('?') { '&' } else { '?' };
        Some(Self {
            url: format!("{base}{sep}options=-c%20search_path%3D{schema}"),
            owned: Owned::Schema(schema),
        })
    }

    /// The store URL (`firn_store::open` takes it).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Opens a store on it.
    pub async fn open(&self) -> Store {
        open(&self.url).await.expect("open test store")
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        match &self.owned {
            Owned::Dir(dir) => {
                let _ = std::fs::remove_dir_all(dir);
            }
            Owned::Schema(name) => {
                let name = name.clone();
                // On a thread of its own: the test's runtime may be busy or shutting down.
                let _ = std::thread::spawn(move || {
                    let rt = tokio::runtime::Builder::new_current_thread()
                        .enable_all()
                        .build()
                        .expect("runtime");
                    rt.block_on(async {
                        if let Some(mut admin) = postgres_admin().await {
                            let _ = admin
                                .execute(format!("DROP SCHEMA {name} CASCADE").as_str())
                                .await;
                            let _ = admin.close().await;
                        }
                    });
                })
                .join();
            }
        }
    }
}

/// Runs `sql`, a query of one integer column `n`, the way the API's reads run (the same
/// readers or read pool, under the same limits): to stage a read that takes too long.
pub async fn read_integers(store: &Store, sql: &str) -> crate::Result<Vec<i64>> {
    store.fetch(crate::sql::Sql::new(sql), |r| r.i64("n")).await
}

/// Runs `sql`, a query of one integer column `n`, on the store's writer connection.
pub async fn writer_integers(store: &Store, sql: &str) -> Vec<i64> {
    let mut w = store.begin_write().await.expect("a write transaction");
    crate::sql::Sql::new(sql)
        .fetch_all(&mut *w.tx)
        .await
        .expect("the query runs")
        .iter()
        .map(|r| r.i64("n").expect("an integer n"))
        .collect()
}

/// Gathers PostgreSQL's planner statistics now, as autovacuum does once a table has changed
/// enough: without them the planner guesses one row per condition and may walk a primary key
/// where an index seeks. SQLite plans without statistics; nothing to do there.
pub async fn analyze(store: &Store) {
    if store.backend() == crate::Backend::Postgres {
        let mut w = store.begin_write().await.expect("a write transaction");
        crate::sql::Sql::new("ANALYZE")
            .execute(&mut w.tx)
            .await
            .expect("ANALYZE runs");
        w.tx.commit().await.expect("commit");
    }
}

/// Starts recording every read `store` runs (for [`assert_reads_use_indexes`]).
pub fn record_reads(store: &Store) {
    store.start_recording();
}

/// How many reads `store` ran since [`record_reads`], which stops recording.
pub fn count_reads(store: &Store) -> usize {
    store.take_recorded().map_or(0, |r| r.len())
}

/// The plan of every read recorded since [`record_reads`] (which stops recording), one step
/// per line, with the read's SQL.
pub async fn recorded_plans(store: &Store) -> Vec<(String, Vec<String>)> {
    let recorded = store.take_recorded().expect("record_reads was called");
    let mut out = Vec::new();
    for (text, values) in recorded {
        let plan = explain(store, &text, values).await;
        out.push((text, plan));
    }
    out
}

/// Tables small enough by nature that reading all of them is fine: one row per chain or
/// indexer.
const SMALL_TABLES: [&str; 4] = [
    "cursors",
    "evm_chains",
    "evm_chain_totals",
    "store_generation",
];

/// How many rows past a page's own a read may look at and pass over (in one loop of a plan
/// node) before [`assert_reads_use_indexes`] calls it a walk that filters instead of seeking.
pub const WALK_SLACK: u64 = 8;

/// Checks every read recorded since [`record_reads`] and panics, naming the query, its
/// values and its plan, when one reads more than its page.
///
/// Two checks, because a plan can use an index and still walk most of a table:
/// - the plan must not read a whole table: on SQLite a step `SCAN <table>` that uses no
///   index (unless it walks the table in the query's `ORDER BY` under a `LIMIT`); on
///   PostgreSQL a `Seq Scan` with sequential scans priced out (`enable_seqscan = off`),
///   which it still picks only when no index can serve;
/// - each read, run again with its own values, must not pass over more than
///   [`WALK_SLACK`] rows beyond the rows it returns: on SQLite the steps of walks without
///   an index constraint (`SQLITE_STMTSTATUS_FULLSCAN_STEP`), on PostgreSQL the rows one
///   scan removed by its filter in one loop (`EXPLAIN ANALYZE`). The tests that call this
///   seed filters that match few rows, so a walk that tests a filter row by row instead of
///   seeking shows up.
pub async fn assert_reads_use_indexes(store: &Store) {
    let recorded = store.take_recorded().expect("record_reads was called");
    assert!(!recorded.is_empty(), "no reads were recorded");
    let mut failures = Vec::new();
    let mut planned: Vec<&str> = Vec::new();
    for (text, values) in &recorded {
        if planned.contains(&text.as_str()) {
            continue;
        }
        planned.push(text);
        let plan = explain(store, text, values.clone()).await;
        if let Some(step) = whole_table_step(store, text, &plan) {
            failures.push(format!(
                "{text}\n  reads a whole table: {step}\n  plan: {plan:#?}"
            ));
        }
    }
    let mut run: Vec<&(String, Vec<crate::sql::Value>)> = Vec::new();
    for read in &recorded {
        if run.contains(&read) {
            continue;
        }
        run.push(read);
        let (text, values) = read;
        let walk = measure_walk(store, text, values.clone()).await;
        if walk.passed_over > walk.returned + WALK_SLACK {
            failures.push(format!(
                "{text}\n  values: {values:?}\n  returned {} rows and passed over {}\n  plan: {:#?}",
                walk.returned, walk.passed_over, walk.plan
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} reads read more than their page:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// The first step of `plan` that reads a whole table that can grow without bound. SQLite
/// names tables by their alias in a query and lists a subquery it runs as a co-routine or
/// materializes as a step of its own (`CO-ROUTINE k`, then `SCAN k`): those are not tables.
///
/// A SQLite `SCAN t` that the query orders by (`ORDER BY t.…`, with no sort step) walks the
/// table in key order and stops at the page's `LIMIT`: that is a keyset page, not a scan.
fn whole_table_step<'p>(store: &Store, text: &str, plan: &'p [String]) -> Option<&'p String> {
    let subqueries: Vec<&str> = plan
        .iter()
        .filter_map(|step| {
            step.strip_prefix("CO-ROUTINE ")
                .or_else(|| step.strip_prefix("MATERIALIZE "))
        })
        .collect();
    plan.iter().find(|step| {
        let table = match store.backend() {
            crate::Backend::Sqlite => step
                .strip_prefix("SCAN ")
                .filter(|rest| !rest.contains("USING"))
                .map(|rest| rest.split_whitespace().next().unwrap_or_default()),
            crate::Backend::Postgres => step
                .split("Seq Scan on ")
                .nth(1)
                .map(|rest| rest.split_whitespace().next().unwrap_or_default()),
        };
        table.is_some_and(|t| {
            let ordered_walk = store.backend() == crate::Backend::Sqlite
                && text.contains(&format!("ORDER BY {t}."))
                && text.contains(" LIMIT ");
            !SMALL_TABLES.contains(&t) && !subqueries.contains(&t) && !ordered_walk
        })
    })
}

/// What one read returned and how much it passed over (see [`assert_reads_use_indexes`]).
struct Walk {
    returned: u64,
    passed_over: u64,
    plan: Vec<String>,
}

/// Runs one read with its values and measures its walk.
async fn measure_walk(store: &Store, text: &str, values: Vec<crate::sql::Value>) -> Walk {
    if let Some(readers) = store.sqlite_readers() {
        let sql = text.to_owned();
        let (returned, passed_over) = readers
            .run(move |conn| crate::sqlite_read::rows_and_walk_steps(conn, &sql, &values))
            .await
            .unwrap_or_else(|e| panic!("the read failed: {e}"));
        return Walk {
            returned,
            passed_over,
            plan: Vec::new(),
        };
    }
    let plan = postgres_plan(store, "EXPLAIN (ANALYZE, TIMING OFF)", text, values).await;
    let (returned, passed_over) = postgres_walk(&plan);
    Walk {
        returned,
        passed_over,
        plan,
    }
}

/// From `EXPLAIN ANALYZE`'s text: the rows the top node returned, and the most rows one
/// scan's filter removed in one loop (PostgreSQL prints the average per loop). Rows a join removes, and rows a scan passes on to be sorted, are left
/// out: which join and which scan PostgreSQL picks follow the tables' sizes, and a test's
/// tables are small.
fn postgres_walk(plan: &[String]) -> (u64, u64) {
    let number_after = |line: &str, key: &str| -> Option<u64> {
        let rest = &line[line.find(key)? + key.len()..];
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        digits.parse().ok()
    };
    let actual_rows = |line: &str| number_after(&line[line.find("(actual ")?..], "rows=");
    let returned = plan.iter().find_map(|l| actual_rows(l)).unwrap_or_default();
    let mut worst = 0;
    let mut in_scan = false;
    for line in plan {
        if line.contains("(actual ") {
            in_scan = line.contains(" Scan ");
        }
        let removed = [
            "Rows Removed by Filter: ",
            "Rows Removed by Index Recheck: ",
        ]
        .iter()
        .find_map(|key| number_after(line, key));
        if let (Some(removed), true) = (removed, in_scan) {
            worst = worst.max(removed);
        }
    }
    (returned, worst)
}

/// The database's plan for one read, one step per line.
async fn explain(store: &Store, text: &str, values: Vec<crate::sql::Value>) -> Vec<String> {
    let sql = format!("EXPLAIN QUERY PLAN {text}");
    if let Some(readers) = store.sqlite_readers() {
        return readers
            .run(move |conn| crate::sqlite_read::query(conn, &sql, &values, |r| r.text("detail")))
            .await
            .unwrap_or_else(|e| panic!("EXPLAIN failed: {e}"));
    }
    postgres_plan(store, "EXPLAIN", text, values).await
}

/// PostgreSQL's plan for one read under `explain` (`EXPLAIN` or `EXPLAIN (ANALYZE …)`), one
/// line per row, with sequential scans priced out (`enable_seqscan = off`).
async fn postgres_plan(
    store: &Store,
    explain: &str,
    text: &str,
    values: Vec<crate::sql::Value>,
) -> Vec<String> {
    let mut w = store.begin_write().await.expect("a transaction");
    sqlx::query("SET LOCAL enable_seqscan = off")
        .execute(&mut *w.tx)
        .await
        .expect("SET enable_seqscan");
    crate::sql::Sql::from_parts(format!("{explain} {text}"), values)
        .fetch_all(&mut *w.tx)
        .await
        .unwrap_or_else(|e| panic!("{explain} failed: {e}"))
        .iter()
        .map(|r| r.text("QUERY PLAN").expect("a plan line"))
        .collect()
}

/// Every row of `table` as text (`column=value …`), sorted: to compare what two stores hold.
/// A NULL reads `None` whatever the column's type.
pub async fn table_rows(store: &Store, table: &str) -> Vec<String> {
    use sqlx::{Column, Row};
    let mut w = store.begin_write().await.expect("a write transaction");
    let rows = sqlx::query(&format!("SELECT * FROM {table}"))
        .fetch_all(&mut *w.tx)
        .await
        .expect("the table reads");
    let mut out: Vec<String> = rows
        .iter()
        .map(|r| {
            let columns = r.columns();
            let values = (0..columns.len()).map(|i| {
                let value = if let Ok(v) = r.try_get::<Option<i64>, _>(i) {
                    format!("{v:?}")
                } else if let Ok(v) = r.try_get::<Option<f64>, _>(i) {
                    format!("{v:?}")
                } else if let Ok(v) = r.try_get::<Option<String>, _>(i) {
                    format!("{v:?}")
                } else if let Ok(v) = r.try_get::<Option<Vec<u8>>, _>(i) {
                    format!("{:?}", v.map(hex::encode))
                } else {
                    "?".to_owned()
                };
                format!("{}={value}", columns[i].name())
            });
            values.collect::<Vec<_>>().join(" ")
        })
        .collect();
    out.sort();
    out
}

/// The URL of a test's database, for test bodies that open (and reopen) stores themselves.
#[derive(Clone, Debug)]
pub struct StoreUrl(pub String);

impl StoreUrl {
    /// Opens a store on it.
    pub async fn open(&self) -> Store {
        open(&self.0).await.expect("open test store")
    }
}

/// What a test body is given: made from the test's database, finished after the body.
pub trait TestArg: Clone + Send + 'static {
    /// Makes the argument.
    fn make(db: &TestDb) -> impl Future<Output = Self> + Send;
    /// Releases what the argument holds once the body is done.
    fn finish(self) -> impl Future<Output = ()> + Send;
}

impl TestArg for Store {
    async fn make(db: &TestDb) -> Self {
        db.open().await
    }

    async fn finish(self) {
        self.close().await;
    }
}

impl TestArg for StoreUrl {
    async fn make(db: &TestDb) -> Self {
        StoreUrl(db.url().to_owned())
    }

    async fn finish(self) {}
}

/// Runs `body` on `db` in a task of its own, cleans up, then re-raises the body's panic.
pub async fn run<A, F, Fut>(db: TestDb, body: F)
where
    A: TestArg,
    F: FnOnce(A) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let arg = A::make(&db).await;
    let result = tokio::spawn(body(arg.clone())).await;
    arg.finish().await;
    drop(db);
    if let Err(e) = result {
        match e.try_into_panic() {
            Ok(panic) => std::panic::resume_unwind(panic),
            Err(e) => panic!("test body did not finish: {e}"),
        }
    }
}

/// Runs `body` on a fresh SQLite database.
pub async fn sqlite<A, F, Fut>(body: F)
where
    A: TestArg,
    F: FnOnce(A) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    run(TestDb::sqlite(), body).await;
}

/// Runs `body` on a fresh PostgreSQL schema, or prints why test `name` was skipped.
pub async fn postgres<A, F, Fut>(name: &str, body: F)
where
    A: TestArg,
    F: FnOnce(A) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    match TestDb::postgres().await {
        Some(db) => run(db, body).await,
        None => eprintln!(
            "SKIPPED postgres::{name}: PostgreSQL not reachable at {}",
            postgres_url()
        ),
    }
}

/// Generates one `#[tokio::test]` per backend, in modules `sqlite` and `postgres`, for each
/// listed `module::test` function (`async fn(Store)` or `async fn(StoreUrl)`). Invoke it at
/// the test crate's root.
#[macro_export]
macro_rules! backend_tests {
    ($($module:ident :: $name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    $crate::testing::sqlite(super::$module::$name).await;
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    $crate::testing::postgres(stringify!($name), super::$module::$name).await;
                }
            )*
        }
    };
}
