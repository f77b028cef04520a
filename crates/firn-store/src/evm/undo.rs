//! Rolling an EVM chain back to an earlier block, for when a node shows a different history
//! above it (a replica behind a load balancer, a node that was reset).
//!
//! Plain rows carry their block number and are deleted by it. Derived state cannot be
//! recomputed cheaply (a month's metrics row folds a month of blocks), so each commit records
//! what it overwrote: the metrics rows, the chain totals and the collectible balances as they
//! were before the batch ([`Undo`], one `evm_undo` row per chain and batch, kept for
//! [`UNDO_BLOCKS`] blocks). Distinct-address rows carry the block that first showed them. A
//! rollback restores the batches above the target newest first, so the chain's state is
//! exactly what it was when the first of them had not been committed yet.

use std::collections::{BTreeSet, HashMap};

use serde::{Deserialize, Serialize};
use sqlx::AnyConnection;

use super::derived::{delete_holding, put_holdings};
use crate::codec::{RowExt, int};
use crate::cursor::{load_cursor, save_cursor};
use crate::error::{Result, StoreError};
use crate::metrics::upsert_metrics;
use crate::rows::ChainKey;
use crate::rows::metrics::{ChainMetrics, Granularity};
use crate::types::{Address, U256};

/// Blocks of each chain that can be rolled back: far more than a lagging replica is behind.
pub const UNDO_BLOCKS: u64 = 4096;

/// The chain totals row as a batch found it.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub(super) struct TotalsBefore {
    pub(super) cumulative_txs: u64,
    pub(super) cumulative_addresses: u64,
    pub(super) cumulative_contracts: u64,
    pub(super) cumulative_deployers: u64,
    pub(super) last_block_ts: u64,
}

/// The chain totals row before a batch. An enum, not `Option<Option<_>>`: JSON would read
/// back "no row" (`null`) as "not touched".
#[derive(Debug, Default, Clone, Copy, Serialize, Deserialize)]
pub(super) enum TotalsUndo {
    /// The batch did not touch them.
    #[default]
    Untouched,
    /// There was no row.
    Absent,
    /// The row as it was.
    Was(TotalsBefore),
}

/// What one batch overwrote on one chain (`None`: there was no row).
#[derive(Debug, Default, Serialize, Deserialize)]
pub(super) struct Undo {
    /// The chain totals.
    pub(super) totals: TotalsUndo,
    /// Metrics rows by period code and start.
    pub(super) metrics: Vec<(i64, i64, Option<ChainMetrics>)>,
    /// Token holdings by owner, token and token ID (none for ERC-20): standard code and
    /// balance. (The name is older than ERC-20 balances; records read back either way.)
    pub(super) collectibles: Vec<(HoldingKey, Option<(i64, U256)>)>,
}

/// One holding: owner, token contract and token ID (none for ERC-20).
pub(super) type HoldingKey = (Address, Address, Option<U256>);

/// The undo records of one commit, by chain.
pub(super) type UndoLog = HashMap<i64, Undo>;

/// Stores `log` for the batch of each chain, `(first, last)` block numbers in `ranges`, and
/// forgets what fell out of the window.
pub(super) async fn save_undo(
    conn: &mut AnyConnection,
    log: &UndoLog,
    ranges: &HashMap<i64, (i64, i64)>,
) -> Result<()> {
    for (chain, (first, last)) in ranges {
        let empty = Undo::default();
        let undo = log.get(chain).unwrap_or(&empty);
        let data = serde_json::to_vec(undo).map_err(|e| StoreError::Corrupt {
            column: "evm_undo.data",
            reason: e.to_string(),
        })?;
        sqlx::query(
            "INSERT INTO evm_undo (chain_id, first_number, last_number, data) \
             VALUES ($1, $2, $3, $4) ON CONFLICT (chain_id, first_number) DO UPDATE \
             SET last_number = excluded.last_number, data = excluded.data",
        )
        .bind(*chain)
        .bind(*first)
        .bind(*last)
        .bind(data)
        .execute(&mut *conn)
        .await?;
        let oldest = last.saturating_sub(int("undo window", UNDO_BLOCKS)?);
        sqlx::query("DELETE FROM evm_undo WHERE chain_id = $1 AND last_number < $2")
            .bind(*chain)
            .bind(oldest)
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}

/// The batches above `to`, newest first, checked to cover every block from the first of them
/// to `cursor`.
async fn batches_above(
    conn: &mut AnyConnection,
    chain_id: u64,
    chain: i64,
    to: u64,
    cursor: u64,
) -> Result<Vec<(i64, Undo)>> {
    let rows = sqlx::query(
        "SELECT first_number, last_number, data FROM evm_undo \
         WHERE chain_id = $1 AND last_number > $2 ORDER BY first_number DESC",
    )
    .bind(chain)
    .bind(int("height", to)?)
    .fetch_all(&mut *conn)
    .await?;
    let too_deep = || StoreError::RollbackTooDeep {
        chain_id,
        to,
        window: UNDO_BLOCKS,
    };
    let mut out = Vec::with_capacity(rows.len());
    let mut expect_last = cursor;
    for r in &rows {
        let (first, last) = (r.u64("first_number")?, r.u64("last_number")?);
        if last != expect_last {
            return Err(too_deep());
        }
        let undo: Undo =
            serde_json::from_slice(&r.bytes("data")?).map_err(|e| StoreError::Corrupt {
                column: "evm_undo.data",
                reason: e.to_string(),
            })?;
        out.push((int("height", first)?, undo));
        match first.checked_sub(1) {
            Some(prev) => expect_last = prev,
            None => return Ok(out),
        }
    }
    if out.is_empty() || expect_last > to {
        return Err(too_deep());
    }
    Ok(out)
}

/// Rolls chain `chain_id` back so that its last block is at most `to`: the batches above it
/// are undone whole, so the new cursor is the block before the first of them (returned;
/// `None` when nothing is left).
pub(super) async fn rollback(
    conn: &mut AnyConnection,
    chain_id: u64,
    to: u64,
) -> Result<Option<u64>> {
    let key = ChainKey::Evm(chain_id);
    let chain = int("chain id", chain_id)?;
    let cursor = load_cursor(conn, key).await?;
    let Some(cursor) = cursor.filter(|c| *c > to) else {
        return Ok(cursor);
    };
    let batches = batches_above(conn, chain_id, chain, to, cursor).await?;
    let Some(first) = batches.last().map(|(first, _)| *first) else {
        return Ok(Some(cursor));
    };
    let first_ts =
        sqlx::query("SELECT timestamp FROM evm_blocks WHERE chain_id = $1 AND number = $2")
            .bind(chain)
            .bind(first)
            .fetch_optional(&mut *conn)
            .await?
            .map(|r| r.u64("timestamp"))
            .transpose()?;
    for (_, undo) in &batches {
        restore(conn, chain, undo).await?;
    }
    let keep = first - 1;
    remove_rows_above(conn, chain, keep, first_ts).await?;
    crate::webhooks::rewind_webhooks(conn, chain_id, u64::try_from(keep).unwrap_or(0)).await?;
    super::mismatches::remove_above(conn, chain, keep).await?;
    crate::c_atomic::remove_above(conn, chain, keep).await?;
    crate::icm::remove_above(conn, chain, keep).await?;
    sqlx::query("DELETE FROM evm_undo WHERE chain_id = $1 AND first_number > $2")
        .bind(chain)
        .bind(keep)
        .execute(&mut *conn)
        .await?;
    if keep < 0 {
        sqlx::query("DELETE FROM cursors WHERE chain = $1")
            .bind(key.as_text())
            .execute(&mut *conn)
            .await?;
        return Ok(None);
    }
    let keep = keep as u64;
    save_cursor(conn, key, keep).await?;
    Ok(Some(keep))
}

/// Puts back what one batch overwrote.
async fn restore(conn: &mut AnyConnection, chain: i64, undo: &Undo) -> Result<()> {
    match undo.totals {
        TotalsUndo::Was(t) => {
            sqlx::query(
                "UPDATE evm_chain_totals SET cumulative_txs = $2, cumulative_addresses = $3, \
                 cumulative_contracts = $4, cumulative_deployers = $5, last_block_ts = $6 \
                 WHERE chain_id = $1",
            )
            .bind(chain)
            .bind(int("cumulative txs", t.cumulative_txs)?)
            .bind(int("cumulative addresses", t.cumulative_addresses)?)
            .bind(int("cumulative contracts", t.cumulative_contracts)?)
            .bind(int("cumulative deployers", t.cumulative_deployers)?)
            .bind(int("timestamp", t.last_block_ts)?)
            .execute(&mut *conn)
            .await?;
        }
        TotalsUndo::Absent => {
            sqlx::query("DELETE FROM evm_chain_totals WHERE chain_id = $1")
                .bind(chain)
                .execute(&mut *conn)
                .await?;
        }
        TotalsUndo::Untouched => {}
    }
    for (period, start, before) in &undo.metrics {
        match before {
            Some(m) => upsert_metrics(conn, m).await?,
            None => {
                sqlx::query(
                    "DELETE FROM evm_metrics WHERE chain_id = $1 AND period = $2 AND start_ts = $3",
                )
                .bind(chain)
                .bind(*period)
                .bind(*start)
                .execute(&mut *conn)
                .await?;
            }
        }
    }
    for ((owner, token, id), before) in &undo.collectibles {
        let key = (chain, *owner, *token, *id);
        match before {
            Some((standard, balance)) => put_holdings(conn, &[(key, *standard, *balance)]).await?,
            None => delete_holding(conn, &key).await?,
        }
    }
    Ok(())
}

/// Deletes the rows of blocks above `keep`, whose first block is at `first_ts`. Rows keyed by
/// address are found through the addresses the removed blocks name, so that each delete runs
/// on its primary key.
async fn remove_rows_above(
    conn: &mut AnyConnection,
    chain: i64,
    keep: i64,
    first_ts: Option<u64>,
) -> Result<()> {
    let mut parties: BTreeSet<Vec<u8>> = BTreeSet::new();
    let txs = sqlx::query(
        "SELECT from_addr, to_addr, contract_address FROM evm_txs \
         WHERE chain_id = $1 AND number > $2",
    )
    .bind(chain)
    .bind(keep)
    .fetch_all(&mut *conn)
    .await?;
    for r in &txs {
        parties.insert(r.bytes("from_addr")?);
        parties.extend(r.opt_bytes("to_addr")?);
        parties.extend(r.opt_bytes("contract_address")?);
    }
    let internal = sqlx::query(
        "SELECT from_addr, to_addr FROM evm_internal_txs WHERE chain_id = $1 AND number > $2",
    )
    .bind(chain)
    .bind(keep)
    .fetch_all(&mut *conn)
    .await?;
    for r in &internal {
        parties.insert(r.bytes("from_addr")?);
        parties.insert(r.bytes("to_addr")?);
    }
    let transfers = sqlx::query(
        "SELECT DISTINCT from_addr, to_addr FROM evm_transfers WHERE chain_id = $1 AND number > $2",
    )
    .bind(chain)
    .bind(keep)
    .fetch_all(&mut *conn)
    .await?;
    for r in &transfers {
        parties.insert(r.bytes("from_addr")?);
        parties.insert(r.bytes("to_addr")?);
    }
    for address in &parties {
        for sql in [
            "DELETE FROM evm_tx_addresses WHERE chain_id = $1 AND address = $2 AND number > $3",
            "DELETE FROM evm_address_activity \
             WHERE chain_id = $1 AND address = $2 AND number > $3",
            "DELETE FROM evm_transfer_addresses \
             WHERE chain_id = $1 AND address = $2 AND number > $3",
            "DELETE FROM evm_contracts WHERE chain_id = $1 AND address = $2 AND number > $3",
            "DELETE FROM evm_chain_addresses \
             WHERE chain_id = $1 AND kind IN (0, 2) AND address = $2 AND number > $3",
        ] {
            sqlx::query(sql)
                .bind(chain)
                .bind(address.clone())
                .bind(keep)
                .execute(&mut *conn)
                .await?;
        }
    }
    if let Some(ts) = first_ts {
        for g in Granularity::ALL {
            sqlx::query(
                "DELETE FROM evm_period_addresses WHERE chain_id = $1 AND period = $2 \
                 AND start_ts >= $3 AND number > $4",
            )
            .bind(chain)
            .bind(int("period", g.period_code())?)
            .bind(int("period start", g.start_of(ts))?)
            .bind(keep)
            .execute(&mut *conn)
            .await?;
        }
    }
    for table in [
        "evm_blocks",
        "evm_txs",
        "evm_logs",
        "evm_internal_txs",
        "evm_transfers",
    ] {
        sqlx::query(&format!(
            "DELETE FROM {table} WHERE chain_id = $1 AND number > $2"
        ))
        .bind(chain)
        .bind(keep)
        .execute(&mut *conn)
        .await?;
    }
    Ok(())
}
