//! Each chain's indexing cursor (the last committed height): read and moved inside the
//! commit's write transaction, and [`crate::CursorStore`] for the indexer's start.

use sqlx::AnyConnection;

use crate::codec::{RowExt, int};
use crate::error::{Result, StoreError};
use crate::rows::ChainKey;
use crate::sql::Sql;
use crate::store::Store;
use crate::traits::CursorStore;

/// The stored cursor of `chain`, read inside a write transaction.
pub(crate) async fn load_cursor(conn: &mut AnyConnection, chain: ChainKey) -> Result<Option<u64>> {
    let row = sqlx::query("SELECT height FROM cursors WHERE chain = $1")
        .bind(chain.as_text())
        .fetch_optional(&mut *conn)
        .await?;
    row.map(|r| r.u64("height")).transpose()
}

/// Where a block at `height` stands against `chain`'s `cursor`: new (`true`, it follows the
/// cursor), or at or below it (`false`: already stored, to be skipped once its ID is checked).
/// Any other height is [`StoreError::OutOfOrder`].
pub(crate) fn is_next(chain: ChainKey, cursor: Option<u64>, height: u64) -> Result<bool> {
    match cursor {
        Some(c) if height <= c => Ok(false),
        Some(c) if height != c + 1 => Err(StoreError::OutOfOrder {
            chain: chain.as_text(),
            cursor: c,
            height,
        }),
        _ => Ok(true),
    }
}

/// Moves the cursor of `chain` to `height`.
pub(crate) async fn save_cursor(
    conn: &mut AnyConnection,
    chain: ChainKey,
    height: u64,
) -> Result<()> {
    sqlx::query(
        "INSERT INTO cursors (chain, height) VALUES ($1, $2) \
         ON CONFLICT (chain) DO UPDATE SET height = excluded.height",
    )
    .bind(chain.as_text())
    .bind(int("height", height)?)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

impl CursorStore for Store {
    async fn find_cursor(&self, chain: ChainKey) -> Result<Option<u64>> {
        let mut q = Sql::new("SELECT height FROM cursors WHERE chain = ");
        q.bind(chain.as_text());
        self.fetch_optional(q, |r| r.u64("height")).await
    }
}
