//! Committing X-Chain blocks: each block's txs, the UTXOs they consume and produce, the assets
//! they create, the lookup rows, and the cursor, in one database transaction (the rows
//! gathered by [`XPending`] and written at the end).

use firn_core::ids::Id;
use sqlx::AnyConnection;
use tracing::debug;

use super::pending::{At, XPending};
use crate::codec::{RowExt, int};
use crate::cursor::{is_next, load_cursor, save_cursor};
use crate::error::{Result, StoreError};
use crate::rows::xchain::{XBlockRecord, XChainBlockRows, XChainVertexRows, XTx};
use crate::rows::{ChainKey, CommitOutcome};
use crate::store::Store;
use crate::traits::XChainWriter;

impl XChainWriter for Store {
    async fn commit_xchain_blocks(&self, blocks: &[XChainBlockRows]) -> Result<CommitOutcome> {
        let mut w = self.begin_block_write().await?;
        let conn: &mut AnyConnection = &mut w.tx;
        let mut cursor = load_cursor(conn, ChainKey::XChain).await?;
        let mut outcome = CommitOutcome::default();
        let mut pending = XPending::default();
        let genesis: Vec<Id> = blocks
            .iter()
            .flat_map(|b| &b.txs)
            .filter(|t| t.genesis)
            .map(|t| t.tx_id)
            .collect();
        let txs = blocks.iter().flat_map(|b| &b.txs);
        pending.read_stored(conn, txs, &genesis).await?;
        for rows in blocks {
            let height = rows.block.height;
            if !is_next(ChainKey::XChain, cursor, height)? {
                check_same_block(conn, &rows.block).await?;
                outcome.skipped += 1;
                continue;
            }
            write_block(conn, &mut pending, rows).await?;
            cursor = Some(height);
            outcome.committed += 1;
        }
        pending.write(conn).await?;
        if let (Some(c), true) = (cursor, outcome.committed > 0) {
            save_cursor(conn, ChainKey::XChain, c).await?;
        }
        w.commit().await?;
        debug!(
            committed = outcome.committed,
            skipped = outcome.skipped,
            "committed x-chain blocks"
        );
        Ok(outcome)
    }

    async fn commit_xchain_vertices(&self, vertices: &[XChainVertexRows]) -> Result<CommitOutcome> {
        self.commit_vertices(vertices).await
    }

    async fn commit_xchain_genesis(&self, txs: &[XTx], timestamp: u64) -> Result<usize> {
        self.commit_genesis(txs, timestamp).await
    }
}

async fn check_same_block(conn: &mut AnyConnection, block: &XBlockRecord) -> Result<()> {
    let row = sqlx::query("SELECT block_id FROM x_blocks WHERE height = $1")
        .bind(int("height", block.height)?)
        .fetch_optional(&mut *conn)
        .await?;
    match row {
        Some(r) if r.id("block_id")? == block.block_id => Ok(()),
        None => Ok(()),
        Some(_) => Err(StoreError::ConflictingBlock {
            chain: ChainKey::XChain.as_text(),
            height: block.height,
        }),
    }
}

/// Gathers `rows`' block and txs. At height 0, genesis and the DAG's txs may be stored already:
/// the block's txs follow them.
async fn write_block<'a>(
    conn: &mut AnyConnection,
    pending: &mut XPending<'a>,
    rows: &'a XChainBlockRows,
) -> Result<()> {
    let b = &rows.block;
    let height = int("height", b.height)?;
    let ts = int("timestamp", b.timestamp)?;
    pending.block(b);
    let mut index = pending.first_index(conn, height).await?;
    for tx in &rows.txs {
        if tx.genesis && pending.has_tx(&tx.tx_id) {
            continue;
        }
        pending.tx(At { height, index, ts }, tx, None);
        index += 1;
    }
    Ok(())
}
