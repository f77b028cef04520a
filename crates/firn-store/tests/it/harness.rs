//! Runs one test body against a fresh store on each backend.
//!
//! SQLite: a new file in a new temporary directory, removed afterwards.
//! PostgreSQL: a new schema in the `test` database (`FIRN_TEST_POSTGRES_URL` overrides the
//! URL), dropped afterwards; skipped with a clear message when the server is unreachable.

use std::future::Future;
use std::time::Duration;

use firn_store::{Store, open};
use sqlx::{Connection, Executor};

const DEFAULT_POSTGRES_URL: &str = "postgres://postgres@127.0.0.1:5432/test";

fn postgres_url() -> String {
    std::env::var("FIRN_TEST_POSTGRES_URL").unwrap_or_else(|_| DEFAULT_POSTGRES_URL.to_owned())
}

fn unique(prefix: &str) -> String {
    format!("{prefix}{}", uuid::Uuid::new_v4().simple())
}

async fn run_body<F, Fut>(store: Store, body: F) -> Result<(), Box<dyn std::any::Any + Send>>
where
    F: FnOnce(Store) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let result = tokio::spawn(body(store.clone())).await;
    store.close().await;
    result.map_err(|e| e.into_panic())
}

/// Runs `body` on a fresh SQLite store.
pub async fn sqlite<F, Fut>(body: F)
where
    F: FnOnce(Store) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let dir = std::env::temp_dir().join(unique("firn-store-test-"));
    let path = dir.join("firn.db");
    let store = open(path.to_str().expect("utf-8 temp path"))
        .await
        .expect("open sqlite store");
    let result = run_body(store, body).await;
    let _ = std::fs::remove_dir_all(&dir);
    if let Err(panic) = result {
        std::panic::resume_unwind(panic);
    }
}

/// Opens a connection to the test PostgreSQL server, or `None` when it is unreachable.
pub async fn postgres_admin() -> Option<sqlx::AnyConnection> {
    sqlx::any::install_default_drivers();
    let connect = sqlx::AnyConnection::connect(&postgres_url());
    match tokio::time::timeout(Duration::from_secs(3), connect).await {
        Ok(Ok(conn)) => Some(conn),
        _ => None,
    }
}

/// A PostgreSQL schema of its own for a test that opens stores itself, dropped with it.
pub struct PostgresSchema {
    /// The store URL, its `search_path` set to the schema.
    pub url: String,
    name: String,
}

impl Drop for PostgresSchema {
    fn drop(&mut self) {
        let name = self.name.clone();
        // Dropped on a fresh thread: the test's runtime may be shutting down.
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
                }
            });
        })
        .join();
    }
}

/// A fresh schema on the test server, or `None` when it is unreachable.
pub async fn postgres_schema() -> Option<PostgresSchema> {
    let mut admin = postgres_admin().await?;
    let name = unique("firn_test_");
    admin
        .execute(format!("CREATE SCHEMA {name}").as_str())
        .await
        .expect("create test schema");
    let _ = admin.close().await;
    Some(PostgresSchema {
        url: schema_url(&name),
        name,
    })
}

fn schema_url(schema: &str) -> String {
    let base = postgres_url();
    let sep = if base.contains('?') { '&' } else { '?' };
    format!("{base}{sep}options=-c%20search_path%3D{schema}")
}

/// Runs `body` on a fresh PostgreSQL store in its own schema, or prints why it was skipped.
pub async fn postgres<F, Fut>(name: &str, body: F)
where
    F: FnOnce(Store) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let Some(mut admin) = postgres_admin().await else {
        eprintln!(
            "SKIPPED postgres::{name}: PostgreSQL not reachable at {}",
            postgres_url()
        );
        return;
    };
    let schema = unique("firn_test_");
    admin
        .execute(format!("CREATE SCHEMA {schema}").as_str())
        .await
        .expect("create test schema");
    let url = schema_url(&schema);
    let result = match open(&url).await {
        Ok(store) => run_body(store, body).await,
        Err(e) => {
            Err(Box::new(format!("open postgres store: {e}")) as Box<dyn std::any::Any + Send>)
        }
    };
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
/// (`async fn(Store)`), in modules `sqlite` and `postgres`.
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
