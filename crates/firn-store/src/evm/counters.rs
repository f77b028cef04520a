//! The chain totals and the hourly and daily metrics rows, folded over a batch of blocks in
//! memory: each touched row is read once and upserted once, and the distinct-address sets
//! (all-time per chain, and per period) get one multi-row insert each per batch.

use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use sqlx::AnyConnection;

use super::insert::Staged;
use super::undo::{TotalsBefore, TotalsUndo, UndoLog};
use crate::codec::{RowExt, int};
use crate::error::{Result, StoreError};
use crate::metrics::{decode_metrics, upsert_metrics};
use crate::rows::metrics::{AddressRole, ChainMetrics, Granularity};
use crate::sql::rows_returning;
use crate::types::{Address, U256};

const KIND_ACTIVE: i64 = AddressRole::Active.code();
const KIND_SENDER: i64 = AddressRole::Sender.code();
const KIND_DEPLOYER: i64 = AddressRole::Deployer.code();

/// (chain, period seconds, period start)
type PeriodKey = (i64, i64, i64);

/// Running totals of one chain (the `evm_chain_totals` row).
#[derive(Debug, Clone, Copy, Default)]
struct ChainTotals {
    cumulative_txs: u64,
    cumulative_addresses: u64,
    cumulative_contracts: u64,
    cumulative_deployers: u64,
    last_block_ts: Option<u64>,
}

impl ChainTotals {
    async fn load(conn: &mut AnyConnection, chain: i64) -> Result<Self> {
        let row = sqlx::query("SELECT * FROM evm_chain_totals WHERE chain_id = $1")
            .bind(chain)
            .fetch_optional(&mut *conn)
            .await?;
        match row {
            None => Ok(Self::default()),
            Some(r) => Ok(Self {
                cumulative_txs: r.u64("cumulative_txs")?,
                cumulative_addresses: r.u64("cumulative_addresses")?,
                cumulative_contracts: r.u64("cumulative_contracts")?,
                cumulative_deployers: r.u64("cumulative_deployers")?,
                last_block_ts: Some(r.u64("last_block_ts")?),
            }),
        }
    }

    /// The row as it is now, for the undo record (`None`: there is none).
    fn before(&self) -> Option<TotalsBefore> {
        self.last_block_ts.map(|last_block_ts| TotalsBefore {
            cumulative_txs: self.cumulative_txs,
            cumulative_addresses: self.cumulative_addresses,
            cumulative_contracts: self.cumulative_contracts,
            cumulative_deployers: self.cumulative_deployers,
            last_block_ts,
        })
    }

    async fn save(&self, conn: &mut AnyConnection, chain: i64, last_block_ts: u64) -> Result<()> {
        sqlx::query(
            "INSERT INTO evm_chain_totals (chain_id, cumulative_txs, cumulative_addresses, \
             cumulative_contracts, cumulative_deployers, last_block_ts) \
             VALUES ($1, $2, $3, $4, $5, $6) \
             ON CONFLICT (chain_id) DO UPDATE SET cumulative_txs = excluded.cumulative_txs, \
             cumulative_addresses = excluded.cumulative_addresses, \
             cumulative_contracts = excluded.cumulative_contracts, \
             cumulative_deployers = excluded.cumulative_deployers, \
             last_block_ts = excluded.last_block_ts",
        )
        .bind(chain)
        .bind(int("cumulative txs", self.cumulative_txs)?)
        .bind(int("cumulative addresses", self.cumulative_addresses)?)
        .bind(int("cumulative contracts", self.cumulative_contracts)?)
        .bind(int("cumulative deployers", self.cumulative_deployers)?)
        .bind(int("timestamp", last_block_ts)?)
        .execute(&mut *conn)
        .await?;
        Ok(())
    }
}

/// The addresses one block makes active, sending and deploying.
struct BlockParties {
    active: BTreeSet<Address>,
    senders: BTreeSet<Address>,
    deployers: BTreeSet<Address>,
}

fn parties(s: &Staged<'_>, deployers: &[Address]) -> BlockParties {
    let mut active = BTreeSet::new();
    let mut senders = BTreeSet::new();
    for tx in &s.rows.txs {
        active.insert(tx.from);
        active.extend(tx.to);
        senders.insert(tx.from);
    }
    BlockParties {
        active,
        senders,
        deployers: deployers.iter().copied().collect(),
    }
}

/// Adds `items` (chain, kind, address, first block showing it) to the all-time sets; returns
/// those that were new.
async fn new_chain_addresses(
    conn: &mut AnyConnection,
    items: &[(i64, i64, Address, i64)],
) -> Result<HashSet<(i64, i64, Address)>> {
    let rows = rows_returning(
        conn,
        "INSERT INTO evm_chain_addresses (chain_id, kind, address, number) VALUES ",
        " ON CONFLICT (chain_id, kind, address) DO NOTHING RETURNING chain_id, kind, address",
        4,
        items,
        |q, (chain, kind, a, number)| {
            q.arg(*chain).arg(*kind).arg(a.0.to_vec()).arg(*number);
            Ok(())
        },
    )
    .await?;
    rows.iter()
        .map(|r| Ok((r.i64("chain_id")?, r.i64("kind")?, r.address("address")?)))
        .collect()
}

/// Adds `items` (period, kind, address, first block showing it) to the per-period sets;
/// returns how many were new per period and kind.
async fn new_period_addresses(
    conn: &mut AnyConnection,
    items: &[(PeriodKey, i64, Address, i64)],
) -> Result<HashMap<(PeriodKey, i64), u64>> {
    let rows = rows_returning(
        conn,
        "INSERT INTO evm_period_addresses (chain_id, period, start_ts, kind, address, number) \
         VALUES ",
        " ON CONFLICT (chain_id, period, start_ts, kind, address) DO NOTHING \
         RETURNING chain_id, period, start_ts, kind",
        6,
        items,
        |q, ((chain, period, start), kind, a, number)| {
            q.arg(*chain)
                .arg(*period)
                .arg(*start)
                .arg(*kind)
                .arg(a.0.to_vec())
                .arg(*number);
            Ok(())
        },
    )
    .await?;
    let mut out: HashMap<(PeriodKey, i64), u64> = HashMap::new();
    for r in &rows {
        let key = (r.i64("chain_id")?, r.i64("period")?, r.i64("start_ts")?);
        *out.entry((key, r.i64("kind")?)).or_default() += 1;
    }
    Ok(out)
}

/// The metrics row of `key`, read once per batch (what it was goes to `undo`).
async fn metrics_row<'m>(
    conn: &mut AnyConnection,
    rows: &'m mut HashMap<PeriodKey, ChainMetrics>,
    undo: &mut UndoLog,
    key: PeriodKey,
    fresh: impl FnOnce() -> ChainMetrics,
) -> Result<&'m mut ChainMetrics> {
    match rows.entry(key) {
        Entry::Occupied(slot) => Ok(slot.into_mut()),
        Entry::Vacant(slot) => {
            let row = sqlx::query(
                "SELECT * FROM evm_metrics WHERE chain_id = $1 AND period = $2 AND start_ts = $3",
            )
            .bind(key.0)
            .bind(key.1)
            .bind(key.2)
            .fetch_optional(&mut *conn)
            .await?;
            let before = row.map(|r| decode_metrics(&r)).transpose()?;
            let m = before.clone().unwrap_or_else(fresh);
            undo.entry(key.0)
                .or_default()
                .metrics
                .push((key.1, key.2, before));
            Ok(slot.insert(m))
        }
    }
}

/// Folds the staged blocks, in order, into the chain totals and their hour and day metrics
/// rows; sets each block's `cumulative_txs`. `deployers[i]` are the senders of block `i`'s new
/// deployments.
pub(super) async fn update_counters(
    conn: &mut AnyConnection,
    staged: &mut [Staged<'_>],
    deployers: &[Vec<Address>],
    undo: &mut UndoLog,
) -> Result<()> {
    let blocks: Vec<BlockParties> = staged
        .iter()
        .zip(deployers)
        .map(|(s, d)| parties(s, d))
        .collect();
    // All-time sets: an address is new at the first block of the batch that shows it.
    let mut chain_items: BTreeMap<(i64, i64, Address), i64> = BTreeMap::new();
    for (s, p) in staged.iter().zip(&blocks) {
        let active = p.active.iter().map(|a| (s.chain, KIND_ACTIVE, *a));
        let deploying = p.deployers.iter().map(|a| (s.chain, KIND_DEPLOYER, *a));
        for item in active.chain(deploying) {
            chain_items.entry(item).or_insert(s.number);
        }
    }
    let chain_items: Vec<_> = chain_items
        .into_iter()
        .map(|((chain, kind, a), number)| (chain, kind, a, number))
        .collect();
    let mut unclaimed = new_chain_addresses(conn, &chain_items).await?;

    let mut totals: HashMap<i64, ChainTotals> = HashMap::new();
    let mut rows: HashMap<PeriodKey, ChainMetrics> = HashMap::new();
    let mut period_items: BTreeMap<(PeriodKey, i64, Address), i64> = BTreeMap::new();
    for ((s, p), d) in staged.iter_mut().zip(&blocks).zip(deployers) {
        let chain = s.chain;
        let mut t = match totals.get(&chain) {
            Some(t) => *t,
            None => {
                let t = ChainTotals::load(conn, chain).await?;
                undo.entry(chain).or_default().totals = match t.before() {
                    Some(row) => TotalsUndo::Was(row),
                    None => TotalsUndo::Absent,
                };
                t
            }
        };
        let b = &s.rows.block;
        let overflow = |field| StoreError::OutOfRange {
            field,
            value: b.number.to_string(),
        };
        let ts = b.timestamp;
        let prev_ts = t.last_block_ts.unwrap_or(ts);
        let dt = ts.saturating_sub(prev_ts).max(1) as f64;
        let n = s.rows.txs.len() as u64;
        let (tps, gps) = (n as f64 / dt, b.gas_used as f64 / dt);
        let mut sum_gas_price = U256::ZERO;
        let mut max_gas_price = U256::ZERO;
        for tx in &s.rows.txs {
            sum_gas_price = sum_gas_price.saturating_add(tx.gas_price);
            max_gas_price = max_gas_price.max(tx.gas_price);
        }
        let new_active = p
            .active
            .iter()
            .filter(|a| unclaimed.remove(&(chain, KIND_ACTIVE, **a)))
            .count();
        let new_deployers = p
            .deployers
            .iter()
            .filter(|a| unclaimed.remove(&(chain, KIND_DEPLOYER, **a)))
            .count();
        let contracts = d.len() as u64;
        t.cumulative_addresses += new_active as u64;
        t.cumulative_deployers += new_deployers as u64;
        t.cumulative_contracts += contracts;
        t.cumulative_txs = t
            .cumulative_txs
            .checked_add(n)
            .ok_or_else(|| overflow("cumulative txs"))?;
        s.cumulative_txs = t.cumulative_txs;

        for g in Granularity::ALL {
            let start = g.start_of(ts);
            let key = (
                chain,
                int("period", g.period_code())?,
                int("period start", start)?,
            );
            let chain_id = s.rows.chain_id;
            let m = metrics_row(conn, &mut rows, undo, key, || {
                ChainMetrics::empty(chain_id, g, start, prev_ts, ts)
            })
            .await?;
            m.block_count += 1;
            m.tx_count += n;
            m.gas_used = m
                .gas_used
                .checked_add(b.gas_used)
                .ok_or_else(|| overflow("gas used"))?;
            m.fees_paid = m.fees_paid.saturating_add(s.fees);
            m.sum_gas_price = m.sum_gas_price.saturating_add(sum_gas_price);
            m.max_gas_price = m.max_gas_price.max(max_gas_price);
            m.max_tps = m.max_tps.max(tps);
            m.max_gps = m.max_gps.max(gps);
            m.contracts += contracts;
            m.last_block_ts = ts;
            m.cumulative_txs = t.cumulative_txs;
            m.cumulative_addresses = t.cumulative_addresses;
            m.cumulative_contracts = t.cumulative_contracts;
            m.cumulative_deployers = t.cumulative_deployers;
            let active = p.active.iter().map(|a| (key, KIND_ACTIVE, *a));
            let senders = p.senders.iter().map(|a| (key, KIND_SENDER, *a));
            let deploying = p.deployers.iter().map(|a| (key, KIND_DEPLOYER, *a));
            for item in active.chain(senders).chain(deploying) {
                period_items.entry(item).or_insert(s.number);
            }
        }
        t.last_block_ts = Some(ts);
        totals.insert(chain, t);
    }
    let period_items: Vec<_> = period_items
        .into_iter()
        .map(|((key, kind, a), number)| (key, kind, a, number))
        .collect();
    for ((key, kind), added) in new_period_addresses(conn, &period_items).await? {
        if let Some(m) = rows.get_mut(&key) {
            match kind {
                KIND_ACTIVE => m.active_addresses += added,
                KIND_SENDER => m.active_senders += added,
                _ => m.deployers += added,
            }
        }
    }
    for m in rows.values() {
        upsert_metrics(conn, m).await?;
    }
    for (chain, t) in &totals {
        if let Some(ts) = t.last_block_ts {
            t.save(conn, *chain, ts).await?;
        }
    }
    Ok(())
}
