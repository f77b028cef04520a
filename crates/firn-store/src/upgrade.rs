//! One-time upgrades of stored data that plain SQL migrations cannot express, run at open
//! after the migrations. A migration inserts a marker into `store_upgrades`; the first process
//! to open the store claims it (deleting the marker takes the row, or SQLite's write lock) and
//! derives the data in the same transaction, so a crash leaves the marker for the next open and
//! a second process finds nothing left to do.

use std::collections::HashMap;

use tracing::info;

use crate::codec::{RowExt, int};
use crate::error::Result;
use crate::evm::put_holdings;
use crate::metrics::{decode_metrics, upsert_metrics};
use crate::pchain::{OwnedUtxo, decode_utxo, insert_owners};
use crate::rows::evm::TokenStandard;
use crate::rows::metrics::{ChainMetrics, Granularity};
use crate::store::{Backend, Store, WriteTx};
use crate::types::{Address, U256};

const WEEK_MONTH_METRICS: &str = "evm_week_month_metrics";
const ERC20_BALANCES: &str = "evm_erc20_balances";
const UTXO_OWNERS: &str = "p_utxo_owners";
const ASSET_TOTALS: &str = "p_asset_totals";
/// UTXOs the owners upgrade reads per statement.
const UTXOS_PER_READ: i64 = 1_000;
/// Transfers the ERC-20 upgrade reads per statement.
const TRANSFERS_PER_READ: i64 = 1_000;

/// Runs every upgrade a migration left a marker for (each finds its own marker, or returns).
pub(crate) async fn run_pending(store: &Store) -> Result<()> {
    week_and_month_metrics(store).await?;
    erc20_balances(store).await?;
    utxo_owners(store).await?;
    asset_totals(store).await
}

/// Sums what the stored P-Chain transactions burned and their rewards paid, per asset.
async fn asset_totals(store: &Store) -> Result<()> {
    let mut w = store.begin_write().await?;
    if !claim(&mut w, store.backend(), ASSET_TOTALS, "p_asset_totals").await? {
        return Ok(());
    }
    crate::pchain::derive_supply_totals(&mut w).await?;
    w.commit().await
}

/// Takes the marker `name` in `w`'s transaction: false when there is none (done, or another
/// process is doing it). On PostgreSQL, also locks `table` against other processes' indexers
/// until the upgrade commits.
async fn claim(w: &mut WriteTx<'_>, backend: Backend, name: &str, table: &str) -> Result<bool> {
    let claimed = sqlx::query("DELETE FROM store_upgrades WHERE name = $1")
        .bind(name)
        .execute(&mut *w.tx)
        .await?
        .rows_affected();
    if claimed > 0 && backend == Backend::Postgres {
        // `table` is one of this module's constants, never input.
        sqlx::query(&format!("LOCK TABLE {table} IN SHARE ROW EXCLUSIVE MODE"))
            .execute(&mut *w.tx)
            .await?;
    }
    Ok(claimed > 0)
}

/// Derives every holder's ERC-20 balances from the transfers stored before the store kept
/// them, token by token, in the order a commit folds them.
async fn erc20_balances(store: &Store) -> Result<()> {
    let mut w = store.begin_write().await?;
    if !claim(
        &mut w,
        store.backend(),
        ERC20_BALANCES,
        "evm_erc20_balances",
    )
    .await?
    {
        return Ok(());
    }
    let erc20 = TokenStandard::Erc20.code();
    let tokens =
        sqlx::query("SELECT DISTINCT chain_id, token FROM evm_transfers WHERE standard = $1")
            .bind(erc20)
            .fetch_all(&mut *w.tx)
            .await?
            .iter()
            .map(|r| Ok((r.i64("chain_id")?, r.address("token")?)))
            .collect::<Result<Vec<_>>>()?;
    let mut holders = 0usize;
    for (chain, token) in &tokens {
        // Keyset pages in the order of `evm_transfers_by_token`: memory holds one page of a
        // token's transfers and its holders, however many transfers it has.
        let mut balances: HashMap<Address, U256> = HashMap::new();
        let mut after = (-1i64, 0i64, 0i64);
        loop {
            let page = sqlx::query(
                "SELECT number, log_index, batch_index, standard, from_addr, to_addr, value \
                 FROM evm_transfers WHERE chain_id = $1 AND token = $2 \
                 AND (number, log_index, batch_index) > ($3, $4, $5) \
                 ORDER BY number, log_index, batch_index LIMIT $6",
            )
            .bind(*chain)
            .bind(token.0.to_vec())
            .bind(after.0)
            .bind(after.1)
            .bind(after.2)
            .bind(TRANSFERS_PER_READ)
            .fetch_all(&mut *w.tx)
            .await?;
            let Some(last) = page.last() else { break };
            after = (
                last.i64("number")?,
                last.i64("log_index")?,
                last.i64("batch_index")?,
            );
            for t in &page {
                if t.i64("standard")? != erc20 {
                    continue;
                }
                let (from, to, value) = (
                    t.address("from_addr")?,
                    t.address("to_addr")?,
                    t.u256("value")?,
                );
                if from != Address::ZERO {
                    let b = balances.entry(from).or_default();
                    *b = b.saturating_sub(value);
                }
                if to != Address::ZERO {
                    let b = balances.entry(to).or_default();
                    *b = b.saturating_add(value);
                }
            }
        }
        let kept: Vec<_> = balances
            .into_iter()
            .filter(|(_, b)| !b.is_zero())
            .map(|(owner, b)| ((*chain, owner, *token, None), erc20, b))
            .collect();
        holders += kept.len();
        put_holdings(&mut w.tx, &kept).await?;
    }
    w.commit().await?;
    info!(
        tokens = tokens.len(),
        holders, "derived ERC-20 balances from stored transfers"
    );
    Ok(())
}

/// Files every stored P-Chain UTXO under its owners, spent as it is, in pages of UTXO IDs.
async fn utxo_owners(store: &Store) -> Result<()> {
    let mut w = store.begin_write().await?;
    if !claim(&mut w, store.backend(), UTXO_OWNERS, "p_utxos").await? {
        return Ok(());
    }
    let mut after: Vec<u8> = Vec::new();
    let mut filed = 0usize;
    loop {
        let page =
            sqlx::query("SELECT * FROM p_utxos WHERE utxo_id > $1 ORDER BY utxo_id LIMIT $2")
                .bind(after.clone())
                .bind(UTXOS_PER_READ)
                .fetch_all(&mut *w.tx)
                .await?;
        let Some(last) = page.last() else { break };
        after = last.bytes("utxo_id")?;
        let records = page
            .iter()
            .map(|r| decode_utxo(r))
            .collect::<Result<Vec<_>>>()?;
        let owned = records
            .iter()
            .map(OwnedUtxo::of)
            .collect::<Result<Vec<_>>>()?;
        insert_owners(&mut w.tx, &owned).await?;
        filed += owned.len();
    }
    w.commit().await?;
    info!(
        utxos = filed,
        "filed stored P-Chain UTXOs under their owners"
    );
    Ok(())
}

/// Derives the week and month metrics rows (and their distinct-address sets) of every chain
/// from its day rows: weeks and months are whole days, so sums, maxima, spans and cumulative
/// totals combine exactly, and the distinct sets are the union of the days' sets.
async fn week_and_month_metrics(store: &Store) -> Result<()> {
    let mut w = store.begin_write().await?;
    if !claim(&mut w, store.backend(), WEEK_MONTH_METRICS, "evm_metrics").await? {
        return Ok(());
    }
    let day = int("period", Granularity::Day.period_code())?;
    let chains: Vec<i64> =
        sqlx::query("SELECT DISTINCT chain_id FROM evm_metrics WHERE period = $1")
            .bind(day)
            .fetch_all(&mut *w.tx)
            .await?
            .iter()
            .map(|r| r.i64("chain_id"))
            .collect::<Result<_>>()?;
    let mut derived = 0usize;
    for chain in chains {
        let days: Vec<ChainMetrics> = sqlx::query(
            "SELECT * FROM evm_metrics WHERE chain_id = $1 AND period = $2 ORDER BY start_ts",
        )
        .bind(chain)
        .bind(day)
        .fetch_all(&mut *w.tx)
        .await?
        .iter()
        .map(|r| decode_metrics(r))
        .collect::<Result<_>>()?;
        for g in [Granularity::Week, Granularity::Month] {
            for group in days.chunk_by(|a, b| g.start_of(a.start_ts) == g.start_of(b.start_ts)) {
                let mut m = combine(g, group);
                let (active, senders, deployers) =
                    union_of_days(&mut w.tx, chain, g, m.start_ts).await?;
                (m.active_addresses, m.active_senders, m.deployers) = (active, senders, deployers);
                upsert_metrics(&mut w.tx, &m).await?;
                derived += 1;
            }
        }
    }
    w.commit().await?;
    info!(
        rows = derived,
        "derived week and month metrics from day rows"
    );
    Ok(())
}

/// One week's or month's row from its day rows (ascending, at least one).
fn combine(g: Granularity, days: &[ChainMetrics]) -> ChainMetrics {
    let (first, last) = (&days[0], &days[days.len() - 1]);
    let mut m = ChainMetrics::empty(
        first.chain_id,
        g,
        g.start_of(first.start_ts),
        first.span_start_ts,
        last.last_block_ts,
    );
    // The commit path refuses totals that overflow, so these sums of stored days cannot.
    let add = |a: U256, b: U256| a.checked_add(b).unwrap_or(U256::MAX);
    for d in days {
        m.block_count = m.block_count.saturating_add(d.block_count);
        m.tx_count = m.tx_count.saturating_add(d.tx_count);
        m.gas_used = m.gas_used.saturating_add(d.gas_used);
        m.fees_paid = add(m.fees_paid, d.fees_paid);
        m.sum_gas_price = add(m.sum_gas_price, d.sum_gas_price);
        m.max_gas_price = m.max_gas_price.max(d.max_gas_price);
        m.max_tps = m.max_tps.max(d.max_tps);
        m.max_gps = m.max_gps.max(d.max_gps);
        m.contracts = m.contracts.saturating_add(d.contracts);
    }
    m.cumulative_txs = last.cumulative_txs;
    m.cumulative_addresses = last.cumulative_addresses;
    m.cumulative_contracts = last.cumulative_contracts;
    m.cumulative_deployers = last.cumulative_deployers;
    m
}

/// Fills the period's distinct-address sets with the union of its days' sets; their sizes
/// (active, senders, deployers).
async fn union_of_days(
    conn: &mut sqlx::AnyConnection,
    chain: i64,
    g: Granularity,
    start: u64,
) -> Result<(u64, u64, u64)> {
    let day = int("period", Granularity::Day.period_code())?;
    let period = int("period", g.period_code())?;
    let (from, to) = (int("start", start)?, int("end", g.next(start))?);
    sqlx::query(
        "INSERT INTO evm_period_addresses (chain_id, period, start_ts, kind, address) \
         SELECT DISTINCT chain_id, $1, $2, kind, address FROM evm_period_addresses \
         WHERE chain_id = $3 AND period = $4 AND start_ts >= $2 AND start_ts < $5 \
         ON CONFLICT (chain_id, period, start_ts, kind, address) DO NOTHING",
    )
    .bind(period)
    .bind(from)
    .bind(chain)
    .bind(day)
    .bind(to)
    .execute(&mut *conn)
    .await?;
    let rows = sqlx::query(
        "SELECT kind, COUNT(*) AS n FROM evm_period_addresses \
         WHERE chain_id = $1 AND period = $2 AND start_ts = $3 GROUP BY kind",
    )
    .bind(chain)
    .bind(period)
    .bind(from)
    .fetch_all(&mut *conn)
    .await?;
    let mut counts = [0u64; 3];
    for r in &rows {
        if let Some(slot) = usize::try_from(r.i64("kind")?)
            .ok()
            .and_then(|k| counts.get_mut(k))
        {
            *slot = r.u64("n")?;
        }
    }
    Ok((counts[0], counts[1], counts[2]))
}
