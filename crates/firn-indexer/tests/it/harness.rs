//! Runs one test body against a fresh store on each backend.
//!
//! SQLite: a new file in a new temporary directory, removed afterwards. PostgreSQL: a new
//! schema in the `test` database (`FIRN_TEST_POSTGRES_URL` overrides the URL), dropped
//! afterwards; skipped with a clear message when the server is unreachable.

use std::future::Future;
use std::time::Duration;

use sqlx::{Connection, Executor};

const DEFAULT_POSTGRES_URL: &str = "postgres://postgres@127.0.0.1:5432/test";

fn postgres_url() -> String {
    std::env::var("FIRN_TEST_POSTGRES_URL").unwrap_or_else(|_| DEFAULT_POSTGRES_URL.to_owned())
}

fn unique(prefix: &str) -> String {
    format!("{prefix}{}", uuid::Uuid::new_v4().simple())
}

/// A way to open (and reopen) one test store.
#[derive(Clone, Debug)]
pub struct StoreUrl(pub String);

impl StoreUrl {
    pub async fn open(&self) -> firn_store::Store {
        firn_store::open(&self.0).await.expect("open store")
    }
}

async fn run_body<F, Fut>(url: StoreUrl, body: F) -> Result<(), Box<dyn std::any::Any + Send>>
where
    F: FnOnce(StoreUrl) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    tokio::spawn(body(url)).await.map_err(|e| e.into_panic())
}

/// Runs `body` on a fresh SQLite store.
pub async fn sqlite<F, Fut>(body: F)
where
    F: FnOnce(StoreUrl) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let dir = std::env::temp_dir().join(unique("firn-indexer-test-"));
    let path = dir.join("firn.db");
    let result = run_body(StoreUrl(path.to_str().unwrap().to_owned()), body).await;
    let _ = std::fs::remove_dir_all(&dir);
    if let Err(panic) = result {
        std::panic::resume_unwind(panic);
    }
}

/// Runs `body` on a fresh PostgreSQL schema, or prints why it was skipped.
pub async fn postgres<F, Fut>(name: &str, body: F)
where
    F: FnOnce(StoreUrl) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    sqlx::any::install_default_drivers();
    let connect = sqlx::AnyConnection::connect(&postgres_url());
    let Ok(Ok(mut admin)) = tokio::time::timeout(Duration::from_secs(3), connect).await else {
        eprintln!(
            "SKIPPED postgres::{name}: PostgreSQL not reachable at {}",
            postgres_url()
        );
        return;
    };
    let schema = unique("firn_idx_test_");
    admin
        .execute(format!("CREATE SCHEMA {schema}").as_str())
        .await
        .expect("create test schema");
    let base = postgres_url();
    let sep = if base.contains('?') { '&' } else { '?' };
    let url = format!("{base}{sep}options=-c%20search_path%3D{schema}");
    let result = run_body(StoreUrl(url), body).await;
    admin
        .execute(format!("DROP SCHEMA {schema} CASCADE").as_str())
        .await
        .expect("drop test schema");
    let _ = admin.close().await;
    if let Err(panic) = result {
        std::panic::resume_unwind(panic);
    }
}

/// Generates one `#[tokio::test]` per backend for each listed `module::test` function
/// (`async fn(StoreUrl)`), in modules `sqlite` and `postgres`.
#[macro_export]
macro_rules! backend_tests {
    ($($module:ident :: $name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    $crate::harness::sqlite($crate::$module::$name).await;
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    $crate::harness::postgres(stringify!($name), $crate::$module::$name).await;
                }
            )*
        }
    };
}
