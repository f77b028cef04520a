//! A read never outlives its time limit or its caller: the database itself stops it.

use std::time::{Duration, Instant};

use firn_store::testing::{StoreUrl, postgres_admin, read_integers};
use firn_store::{Backend, Store, StoreError, StoreOptions};
use sqlx::Row;

/// Counts to ten billion: minutes of work on either backend unless something stops it.
const ENDLESS: &str = "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c \
                       WHERE i < 10000000000) SELECT count(*) AS n FROM c";

async fn open(url: &StoreUrl, read_timeout: Duration) -> Store {
    let options = StoreOptions {
        max_connections: 1,
        read_timeout,
        ..StoreOptions::default()
    };
    Store::open_with(&url.0, &options).await.unwrap()
}

/// Whether PostgreSQL still runs `ENDLESS` for anyone.
async fn postgres_runs_it() -> bool {
    let mut admin = postgres_admin().await.expect("the server answered before");
    let row = sqlx::query(
        "SELECT count(*)::BIGINT AS n FROM pg_stat_activity \
         WHERE state = 'active' AND query LIKE 'WITH RECURSIVE c(i)%'",
    )
    .fetch_one(&mut admin)
    .await
    .unwrap();
    row.get::<i64, _>("n") > 0
}

/// Waits (at most 10 s) until nothing runs `ENDLESS` any more; SQLite shows it by handing its
/// one reader to the next read, PostgreSQL in `pg_stat_activity`.
async fn until_stopped(store: &Store) {
    let deadline = Instant::now() + Duration::from_secs(10);
    match store.backend() {
        Backend::Sqlite => {
            let quick = tokio::time::timeout(
                Duration::from_secs(10),
                read_integers(store, "SELECT 7 AS n"),
            )
            .await
            .expect("the reader is free again");
            assert_eq!(quick.unwrap(), vec![7]);
        }
        Backend::Postgres => {
            while postgres_runs_it().await {
                assert!(
                    Instant::now() < deadline,
                    "the query still runs on the server"
                );
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
}

pub async fn reads_stop_at_their_timeout(url: StoreUrl) {
    let timeout = Duration::from_millis(300);
    let store = open(&url, timeout).await;
    let started = Instant::now();
    let err = read_integers(&store, ENDLESS).await.unwrap_err();
    assert!(
        matches!(err, StoreError::ReadTimeout(t) if t == timeout),
        "{err}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    until_stopped(&store).await;
    // Ordinary reads go on.
    assert_eq!(
        read_integers(&store, "SELECT 1 AS n").await.unwrap(),
        vec![1]
    );
    store.close().await;
}

pub async fn abandoned_reads_stop(url: StoreUrl) {
    // SQLite stops an abandoned read at once; PostgreSQL at its statement timeout, so keep
    // that short here and far longer than the wait for the scan to start.
    let store = open(&url, Duration::from_secs(2)).await;
    let scan = {
        let store = store.clone();
        tokio::spawn(async move { read_integers(&store, ENDLESS).await })
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(!scan.is_finished(), "the scan is running");
    scan.abort();
    until_stopped(&store).await;
    store.close().await;
}

/// Reads cannot write on PostgreSQL: the read pool's sessions are read-only.
pub async fn reads_cannot_write(url: StoreUrl) {
    let store = open(&url, Duration::from_secs(5)).await;
    let written = read_integers(
        &store,
        "WITH w AS (DELETE FROM cursors RETURNING 1 AS n) SELECT n FROM w",
    )
    .await;
    assert!(written.is_err(), "a read wrote: {written:?}");
    store.close().await;
}

/// `sslmode=require` connects over TLS (both pools), and the store works over it.
pub async fn postgres_over_tls() {
    let Some(db) = firn_store::testing::TestDb::postgres().await else {
        eprintln!(
            "skipped: PostgreSQL is not reachable at {}",
            firn_store::testing::postgres_url()
        );
        return;
    };
    let url = format!("{}&sslmode=require", db.url());
    let store = firn_store::open(&url).await.unwrap();
    let tls = read_integers(
        &store,
        "SELECT CASE WHEN ssl THEN 1 ELSE 0 END AS n FROM pg_stat_ssl \
         WHERE pid = pg_backend_pid()",
    )
    .await
    .unwrap();
    assert_eq!(tls, vec![1], "the read session is encrypted");
    store.close().await;
}

/// The SQLite page caches split the operator's budget: a third to the writer, the rest among
/// the readers, so memory stays within what `cache_mib` says however large the store grows.
pub async fn sqlite_page_caches_split_the_budget() {
    let db = firn_store::testing::TestDb::sqlite();
    let options = StoreOptions {
        max_connections: 4,
        cache_mib: 12,
        ..StoreOptions::default()
    };
    let store = Store::open_with(db.url(), &options).await.unwrap();
    // Negative cache_size: KiB. 12 MiB: 4 MiB to the writer, 2 MiB to each of 4 readers.
    let reader = read_integers(&store, "SELECT cache_size AS n FROM pragma_cache_size")
        .await
        .unwrap();
    assert_eq!(reader, vec![-2048]);
    let writer = firn_store::testing::writer_integers(
        &store,
        "SELECT cache_size AS n FROM pragma_cache_size",
    )
    .await;
    assert_eq!(writer, vec![-4096]);
    store.close().await;
}
