//! Stores upgraded in place: a filled store has one migration undone by hand (as a store made
//! before it would be) and is reopened, so the migration runs on the stored rows; the tests
//! then expect the answers it gave before.

use firn_store::Store;
use firn_store::testing::StoreUrl;
use sqlx::{Connection, Executor};

/// Closes `store`, runs `undo` on its database, and reopens it (running the migrations).
pub async fn undo_and_reopen(url: &StoreUrl, store: Store, undo: &[&str]) -> Store {
    store.close().await;
    let raw = if url.0.starts_with("postgres") {
        url.0.clone()
    } else {
        format!("sqlite://{}", url.0)
    };
    let mut conn = sqlx::AnyConnection::connect(&raw).await.unwrap();
    for sql in undo {
        conn.execute(*sql).await.unwrap();
    }
    conn.close().await.unwrap();
    url.open().await
}
