//! Committing X-Chain blocks: each block's txs, the UTXOs they consume and produce, the assets
//! they create, the lookup rows, and the cursor, in one database transaction.

use std::collections::BTreeSet;

use firn_core::ids::{Id, ShortId};
use sqlx::AnyConnection;
use tracing::debug;

use crate::codec::{RowExt, bits, int, short_ids};
use crate::cursor::{is_next, load_cursor, save_cursor};
use crate::error::{Result, StoreError};
use crate::rows::xchain::{XBlockRecord, XChainBlockRows, XChainVertexRows, XTx, XUtxo};
use crate::rows::{ChainKey, CommitOutcome};
use crate::store::Store;
use crate::traits::XChainWriter;

impl XChainWriter for Store {
    async fn commit_xchain_blocks(&self, blocks: &[XChainBlockRows]) -> Result<CommitOutcome> {
        let mut w = self.begin_write().await?;
        let conn: &mut AnyConnection = &mut w.tx;
        let mut cursor = load_cursor(conn, ChainKey::XChain).await?;
        let mut outcome = CommitOutcome::default();
        for rows in blocks {
            let height = rows.block.height;
            if !is_next(ChainKey::XChain, cursor, height)? {
                check_same_block(conn, &rows.block).await?;
                outcome.skipped += 1;
                continue;
            }
            write_block(conn, rows).await?;
            cursor = Some(height);
            outcome.committed += 1;
        }
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

async fn write_block(conn: &mut AnyConnection, rows: &XChainBlockRows) -> Result<()> {
    let b = &rows.block;
    let height = int("height", b.height)?;
    let ts = int("timestamp", b.timestamp)?;
    sqlx::query(
        "INSERT INTO x_blocks (height, block_id, parent_id, timestamp, tx_count, size_bytes) \
         VALUES ($1, $2, $3, $4, $5, $6)",
    )
    .bind(height)
    .bind(b.block_id.0.to_vec())
    .bind(b.parent_id.0.to_vec())
    .bind(ts)
    .bind(int("tx count", b.tx_count)?)
    .bind(int("block size", b.size_bytes)?)
    .execute(&mut *conn)
    .await?;
    // At height 0, genesis and the DAG's txs may be stored already: the block's txs follow.
    let mut index = next_index(conn, height).await?;
    for tx in &rows.txs {
        if tx.genesis && is_stored(conn, tx.tx_id).await? {
            continue;
        }
        write_tx(conn, (height, index, ts), tx, None).await?;
        index += 1;
    }
    Ok(())
}

/// The first free tx index at `height`.
pub(super) async fn next_index(conn: &mut AnyConnection, height: i64) -> Result<i64> {
    let row = sqlx::query("SELECT MAX(tx_index) AS m FROM x_txs WHERE height = $1")
        .bind(height)
        .fetch_one(&mut *conn)
        .await?;
    Ok(row.opt_i64("m")?.map_or(0, |m| m + 1))
}

/// Whether `tx_id` is stored already.
pub(super) async fn is_stored(conn: &mut AnyConnection, tx_id: Id) -> Result<bool> {
    let row = sqlx::query("SELECT 1 AS one FROM x_txs WHERE tx_id = $1")
        .bind(tx_id.0.to_vec())
        .fetch_optional(&mut *conn)
        .await?;
    Ok(row.is_some())
}

/// Who and what a tx touched: its `x_tx_parties` and `x_tx_assets` rows.
#[derive(Default)]
struct Touched {
    parties: BTreeSet<(ShortId, Id)>,
    assets: BTreeSet<Id>,
}

/// Writes `tx` at `(height, index)` with its UTXOs, asset and lookup rows; `vertex` is the
/// acceptance index of the vertex that carried it, for a tx of the DAG.
pub(super) async fn write_tx(
    conn: &mut AnyConnection,
    (height, index, ts): (i64, i64, i64),
    tx: &XTx,
    vertex: Option<i64>,
) -> Result<()> {
    sqlx::query(
        "INSERT INTO x_txs (height, tx_index, tx_id, tx_type, timestamp, genesis, memo, \
         source_chain, destination_chain, bytes, vertex_index) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
    )
    .bind(height)
    .bind(index)
    .bind(tx.tx_id.0.to_vec())
    .bind(tx.tx_type.clone())
    .bind(ts)
    .bind(i64::from(tx.genesis))
    .bind(tx.memo.clone())
    .bind(tx.source_chain.map(|c| c.0.to_vec()))
    .bind(tx.destination_chain.map(|c| c.0.to_vec()))
    .bind(tx.bytes.clone())
    .bind(vertex)
    .execute(&mut *conn)
    .await?;

    let mut touched = Touched::default();
    for utxo_id in &tx.consumed {
        consume(conn, utxo_id, (tx.tx_id, height, ts), &mut touched).await?;
    }
    for utxo in &tx.produced {
        produce(conn, utxo, (height, ts), &mut touched).await?;
    }
    if let Some(a) = &tx.asset {
        touched.assets.insert(a.asset_id);
        sqlx::query(
            "INSERT INTO x_assets (asset_id, name, symbol, denomination, asset_kind, tx_id, \
             height, timestamp) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        )
        .bind(a.asset_id.0.to_vec())
        .bind(a.name.clone())
        .bind(a.symbol.clone())
        .bind(i64::from(a.denomination))
        .bind(a.kind.as_str())
        .bind(tx.tx_id.0.to_vec())
        .bind(height)
        .bind(ts)
        .execute(&mut *conn)
        .await?;
    }
    for (address, asset) in &touched.parties {
        sqlx::query(
            "INSERT INTO x_tx_parties (address, asset_id, height, tx_index) VALUES ($1, $2, $3, $4)",
        )
        .bind(address.0.to_vec())
        .bind(asset.0.to_vec())
        .bind(height)
        .bind(index)
        .execute(&mut *conn)
        .await?;
    }
    for asset in &touched.assets {
        sqlx::query("INSERT INTO x_tx_assets (asset_id, height, tx_index) VALUES ($1, $2, $3)")
            .bind(asset.0.to_vec())
            .bind(height)
            .bind(index)
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}

/// Marks `utxo_id` consumed by `tx_id`. A UTXO the store does not hold unspent is passed
/// over: the node accepted the tx, so it is one whose creating tx could not be derived (and
/// was logged then); refusing it would stop indexing for good.
async fn consume(
    conn: &mut AnyConnection,
    utxo_id: &Id,
    (tx_id, height, ts): (Id, i64, i64),
    touched: &mut Touched,
) -> Result<()> {
    let row = sqlx::query(
        "UPDATE x_utxos SET consumed_tx_id = $1, consumed_height = $2, consumed_timestamp = $3 \
         WHERE utxo_id = $4 AND consumed_tx_id IS NULL RETURNING asset_id, addresses",
    )
    .bind(tx_id.0.to_vec())
    .bind(height)
    .bind(ts)
    .bind(utxo_id.0.to_vec())
    .fetch_optional(&mut *conn)
    .await?;
    let Some(row) = row else {
        debug!(utxo = %utxo_id, tx = %tx_id, "x-chain tx consumes a utxo not stored unspent");
        return Ok(());
    };
    let asset = row.id("asset_id")?;
    touched.assets.insert(asset);
    for a in row.short_ids("addresses")? {
        touched.parties.insert((a, asset));
    }
    sqlx::query("UPDATE x_utxo_owners SET spent_height = $1 WHERE utxo_id = $2")
        .bind(height)
        .bind(utxo_id.0.to_vec())
        .execute(&mut *conn)
        .await?;
    Ok(())
}

async fn produce(
    conn: &mut AnyConnection,
    u: &XUtxo,
    (height, ts): (i64, i64),
    touched: &mut Touched,
) -> Result<()> {
    let owners: BTreeSet<ShortId> = u.addresses.iter().copied().collect();
    sqlx::query(
        "INSERT INTO x_utxos (utxo_id, tx_id, output_index, asset_id, output_kind, amount, \
         group_id, payload, threshold, locktime, owner_count, addresses, height, timestamp) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)",
    )
    .bind(u.utxo_id.0.to_vec())
    .bind(u.tx_id.0.to_vec())
    .bind(i64::from(u.output_index))
    .bind(u.asset_id.0.to_vec())
    .bind(u.kind.as_str())
    .bind(u.amount.map(bits))
    .bind(u.group_id.map(i64::from))
    .bind(u.payload.clone())
    .bind(i64::from(u.threshold))
    .bind(bits(u.locktime))
    .bind(int("owner count", owners.len() as u64)?)
    .bind(short_ids(&u.addresses))
    .bind(height)
    .bind(ts)
    .execute(&mut *conn)
    .await?;
    touched.assets.insert(u.asset_id);
    for a in owners {
        touched.parties.insert((a, u.asset_id));
        sqlx::query("INSERT INTO x_utxo_owners (address, utxo_id, height) VALUES ($1, $2, $3)")
            .bind(a.0.to_vec())
            .bind(u.utxo_id.0.to_vec())
            .bind(height)
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}
