//! Owners' UTXOs (`p_utxo_owners`): each P-Chain UTXO under each of its owners, written with
//! the UTXO and marked when it is spent, read by the UTXO lists, balances and last activity of
//! addresses.
//!
//! Several owners are read the way the transaction lists read them: each owner's walk of its
//! own index range, at most a page long, merged (a UTXO owned by several is kept once). A page
//! costs at most a page per owner, however many UTXOs they hold.
//!
//! An owner's row also carries what a balance and the list filters read of its UTXO (asset,
//! locks, stake period, whether it was exported), and the index of unspent rows covers them:
//! a balance at the head is one walk of that index, never a lookup per UTXO in `p_utxos`.

use std::collections::{BTreeSet, HashMap};

use firn_core::ids::{Id, ShortId};
use firn_core::network::P_CHAIN_ID;
use sqlx::AnyConnection;

use super::decode::decode_utxo;
use crate::codec::{RowExt, bits, int};
use crate::error::Result;
use crate::page::{Page, PageRequest, SortOrder, UtxoCursor};
use crate::row::Row;
use crate::rows::pchain::{PUtxo, PUtxoRecord};
use crate::rows::utxos::{BalanceKind, BalanceSum, UtxoActivity};
use crate::sql::{Sql, by_owner, insert_many};
use crate::store::Store;
use crate::traits::{UtxoFilter, UtxoSort};

/// Owners one query walks (SQLite allows 500 terms in a compound SELECT).
pub(crate) const OWNERS_PER_QUERY: usize = 64;

/// A UTXO as its owners' rows file it: created at (`height`, `ts`), spent at `spent`
/// (height, time) if it is.
pub(crate) struct OwnedUtxo<'a> {
    pub(crate) utxo: &'a PUtxo,
    pub(crate) height: i64,
    pub(crate) ts: i64,
    pub(crate) spent: Option<(i64, i64)>,
}

impl<'a> OwnedUtxo<'a> {
    /// A stored UTXO as its owners' rows file it.
    pub(crate) fn of(r: &'a PUtxoRecord) -> Result<Self> {
        let spent = match &r.consumed {
            Some(c) => Some((int("height", c.height)?, int("time", c.timestamp)?)),
            None => None,
        };
        Ok(OwnedUtxo {
            utxo: &r.utxo,
            height: int("height", r.height)?,
            ts: int("time", r.timestamp)?,
            spent,
        })
    }
}

/// Files each UTXO under each of its distinct owners, with what its balance needs of it.
pub(crate) async fn insert_owners(conn: &mut AnyConnection, utxos: &[OwnedUtxo<'_>]) -> Result<()> {
    let owners = by_owner(utxos, |o| &o.utxo.addresses);
    insert_many(
        conn,
        "INSERT INTO p_utxo_owners (address, utxo_id, height, timestamp, amount, spent_height, \
         spent_timestamp, asset_id, locktime, stakeable_locktime, staked, start_ts, end_ts, \
         exported) VALUES ",
        "",
        14,
        &owners,
        |q, (a, o)| {
            let u = o.utxo;
            q.arg(a.0.to_vec())
                .arg(u.utxo_id.0.to_vec())
                .arg(o.height)
                .arg(o.ts)
                .arg(bits(u.amount));
            q.arg(o.spent.map(|(h, _)| h))
                .arg(o.spent.map(|(_, t)| t))
                .arg(u.asset_id.0.to_vec())
                .arg(bits(u.locktime))
                .arg(u.stakeable_locktime.map(bits));
            q.arg(i64::from(u.staked))
                .arg(u.start_ts.map(bits))
                .arg(u.end_ts.map(bits))
                .arg(i64::from(u.consumed_on_chain != P_CHAIN_ID));
            Ok(())
        },
    )
    .await?;
    Ok(())
}

/// Distinct owners, in the order first given.
pub(crate) fn distinct<T: Ord + Copy>(items: &[T]) -> Vec<T> {
    let mut seen = BTreeSet::new();
    items.iter().copied().filter(|a| seen.insert(*a)).collect()
}

/// The sort key's column.
fn key_column(sort: UtxoSort) -> &'static str {
    match sort {
        UtxoSort::Created => "height",
        UtxoSort::Amount => "amount",
    }
}

/// Appends one owner's walk: `SELECT utxo_id, k` of at most `limit` rows in page order.
fn push_walk(
    q: &mut Sql,
    owner: &ShortId,
    filter: &UtxoFilter,
    order: SortOrder,
    after: Option<UtxoCursor>,
    limit: i64,
) -> Result<()> {
    let key = key_column(filter.sort);
    let ord = order.sql();
    q.push(&format!(
        "SELECT o.utxo_id, o.{key} AS k FROM p_utxo_owners o"
    ));
    q.push(" WHERE o.address = ").bind(owner.0.to_vec());
    if !filter.include_spent {
        // Literally the partial indexes' condition, so the planner can use them.
        q.push(" AND o.spent_height IS NULL");
        // An output exported to another chain is that chain's to spend (its import is not
        // seen here): the P-Chain never holds it, as its balances already say.
        q.push(" AND o.exported = 0");
    }
    if let Some(min) = filter.min_amount {
        q.push(" AND o.amount >= ")
            .bind(int("minimum amount", min)?);
    }
    if let Some(asset) = filter.asset_id {
        q.push(" AND o.asset_id = ").bind(asset.0.to_vec());
    }
    if let Some(c) = after {
        q.push(&format!(" AND (o.{key}, o.utxo_id) {} (", order.after_op()))
            .bind(bits(c.key))
            .push(", ")
            .bind(c.utxo_id.0.to_vec())
            .push(")");
    }
    q.push(&format!(" ORDER BY o.{key} {ord}, o.utxo_id {ord}"))
        .limit(limit);
    Ok(())
}

fn decode_key(r: &dyn Row) -> Result<UtxoCursor> {
    Ok(UtxoCursor {
        key: r.bits("k")?,
        utxo_id: r.id("utxo_id")?,
    })
}

pub(super) async fn list(
    store: &Store,
    filter: &UtxoFilter,
    order: SortOrder,
    page: &PageRequest<UtxoCursor>,
) -> Result<Page<PUtxoRecord, UtxoCursor>> {
    let limit = page.checked_limit()?;
    if filter.min_amount.is_some_and(|m| i64::try_from(m).is_err()) {
        // Above every amount a P-Chain UTXO can hold.
        return Ok(Page {
            items: Vec::new(),
            next: None,
        });
    }
    let owners = distinct(&filter.addresses);
    let mut keys: Vec<UtxoCursor> = Vec::new();
    for chunk in owners.chunks(OWNERS_PER_QUERY) {
        let mut q = Sql::new("SELECT m.utxo_id, m.k FROM (");
        for (i, owner) in chunk.iter().enumerate() {
            if i > 0 {
                q.push(" UNION ALL ");
            }
            q.push("SELECT * FROM (");
            push_walk(&mut q, owner, filter, order, page.after, limit + 1)?;
            q.push(&format!(") w{i}"));
        }
        q.push(") m");
        keys.extend(store.fetch(q, decode_key).await?);
    }
    keys.sort_unstable();
    keys.dedup();
    if order == SortOrder::Desc {
        keys.reverse();
    }
    keys.truncate(usize::try_from(limit + 1).unwrap_or(usize::MAX));
    let utxos = find_utxos(store, &keys).await?;
    let sort = filter.sort;
    Ok(Page::from_rows(utxos, limit, |u| UtxoCursor {
        key: match sort {
            UtxoSort::Created => u.height,
            UtxoSort::Amount => u.utxo.amount,
        },
        utxo_id: u.utxo.utxo_id,
    }))
}

/// The UTXOs of `keys`, in that order.
async fn find_utxos(store: &Store, keys: &[UtxoCursor]) -> Result<Vec<PUtxoRecord>> {
    if keys.is_empty() {
        return Ok(Vec::new());
    }
    let mut q = Sql::new("SELECT * FROM p_utxos WHERE utxo_id IN (");
    q.bind_list(keys.iter().map(|k| k.utxo_id.0.to_vec()))
        .push(")");
    let mut found: HashMap<Id, PUtxoRecord> = store
        .fetch(q, decode_utxo)
        .await?
        .into_iter()
        .map(|u| (u.utxo.utxo_id, u))
        .collect();
    Ok(keys
        .iter()
        .filter_map(|k| found.remove(&k.utxo_id))
        .collect())
}

/// Appends `(col < 0 OR col > at)`: a stored u64 (bit pattern) later than `at`. Patterns
/// below zero are times past 2^63, later than any `at`; NULL stays NULL (not later).
fn push_later(q: &mut Sql, col: &str, at: i64) {
    q.push(&format!("({col} < 0 OR {col} > "))
        .bind(at)
        .push(")");
}

/// Appends the `CASE` that names a UTXO's [`BalanceKind`] at `at`, after AvalancheGo's
/// `platform.getBalance` (an output's own locktime first, then the stakeable lock) for UTXOs
/// not staked at `at`. A staked UTXO is staked until its period's end, when the reward
/// transaction returns it (no block's time passes a staker's end before that).
fn push_kind(q: &mut Sql, at: i64) {
    q.push("CASE WHEN u.staked = 1 AND ");
    push_later(q, "u.end_ts", at);
    q.push(" THEN CASE WHEN ");
    push_later(q, "u.start_ts", at);
    q.push(&format!(
        " THEN '{}' WHEN u.stakeable_locktime < 0 OR u.stakeable_locktime > u.end_ts \
         THEN '{}' ELSE '{}' END WHEN ",
        BalanceKind::PendingStaked.as_str(),
        BalanceKind::LockedStaked.as_str(),
        BalanceKind::UnlockedStaked.as_str(),
    ));
    push_later(q, "u.locktime", at);
    q.push(&format!(
        " THEN '{}' WHEN ",
        BalanceKind::LockedPlatform.as_str()
    ));
    push_later(q, "u.stakeable_locktime", at);
    q.push(&format!(
        " THEN '{}' ELSE '{}' END",
        BalanceKind::LockedStakeable.as_str(),
        BalanceKind::UnlockedUnstaked.as_str(),
    ));
}

pub(super) async fn list_balances(
    store: &Store,
    addresses: &[ShortId],
    at: u64,
) -> Result<Vec<BalanceSum>> {
    let at = int("balance time", at)?;
    let owners = distinct(addresses);
    if owners.is_empty() {
        return Ok(Vec::new());
    }
    // At or after the last block, what is held is what is unspent: the unspent rows' own
    // index (walked by height) holds it, however many UTXOs the owners spent before.
    let mut last = Sql::new("SELECT height, timestamp FROM p_blocks ORDER BY height DESC");
    last.limit(1);
    let last = store
        .fetch(last, |r| Ok((r.i64("height")?, r.i64("timestamp")?)))
        .await?;
    // Amounts are summed in two 32-bit halves, so no sum overflows a signed 64-bit column.
    let mut q = Sql::new("SELECT u.asset_id, ");
    push_kind(&mut q, at);
    // The owners' own rows hold what a balance needs, so it is read from their key ranges
    // alone. A UTXO several of them own is counted once.
    let distinct = if owners.len() > 1 { "DISTINCT " } else { "" };
    q.push(&format!(
        " AS kind, COUNT(*) AS n, CAST(SUM((u.amount >> 32) & 4294967295) AS BIGINT) AS hi, \
         CAST(SUM(u.amount & 4294967295) AS BIGINT) AS lo FROM (SELECT {distinct}o.utxo_id, \
         o.asset_id, o.amount, o.staked, o.start_ts, o.end_ts, o.locktime, \
         o.stakeable_locktime FROM p_utxo_owners o WHERE o.address IN ("
    ));
    q.bind_list(owners.iter().map(|a| a.0.to_vec())).push(")");
    match last.first() {
        Some((height, ts)) if at >= *ts => {
            q.push(" AND o.height <= ")
                .bind(*height)
                .push(" AND o.spent_height IS NULL");
        }
        _ => {
            q.push(" AND o.timestamp <= ")
                .bind(at)
                .push(" AND (o.spent_timestamp IS NULL OR o.spent_timestamp > ")
                .bind(at)
                .push(")");
        }
    }
    q.push(" AND o.exported = 0) u GROUP BY u.asset_id, kind ORDER BY u.asset_id, kind");
    store.fetch(q, decode_sum).await
}

fn decode_sum(r: &dyn Row) -> Result<BalanceSum> {
    let hi = u128::from(r.u64("hi")?);
    let lo = u128::from(r.u64("lo")?);
    Ok(BalanceSum {
        asset_id: r.id("asset_id")?,
        kind: BalanceKind::decode("kind", &r.text("kind")?)?,
        amount: (hi << 32) + lo,
        utxo_count: r.u64("n")?,
    })
}

/// An owner's newest creation and newest spending, as (height, spent, utxo).
fn decode_event(r: &dyn Row) -> Result<(u64, bool, Id)> {
    Ok((r.u64("height")?, r.bool("spent")?, r.id("utxo_id")?))
}

pub(super) async fn find_last_activity(
    store: &Store,
    addresses: &[ShortId],
) -> Result<Option<UtxoActivity>> {
    let newest = find_last_event(store, "p_utxo_owners", addresses).await?;
    let Some((_, spent, utxo_id)) = newest else {
        return Ok(None);
    };
    let Some(u) = find_utxos(store, &[UtxoCursor { key: 0, utxo_id }])
        .await?
        .pop()
    else {
        return Ok(None);
    };
    Ok(Some(match (spent, u.consumed) {
        (true, Some(c)) => UtxoActivity {
            utxo_id,
            tx_hash: c.tx_hash,
            height: c.height,
            timestamp: c.timestamp,
            consumed: true,
        },
        _ => UtxoActivity {
            utxo_id,
            tx_hash: u.utxo.tx_hash,
            height: u.height,
            timestamp: u.timestamp,
            consumed: false,
        },
    }))
}

/// The newest creation or spending (`true`) of a UTXO `addresses` own, as (height, spent,
/// UTXO ID), from an owners table (`p_utxo_owners`, `x_utxo_owners`: address, utxo_id,
/// height, spent_height): per owner its newest of each, from its indexes, then the newest.
pub(crate) async fn find_last_event(
    store: &Store,
    table: &'static str,
    addresses: &[ShortId],
) -> Result<Option<(u64, bool, Id)>> {
    let owners = distinct(addresses);
    let mut newest: Option<(u64, bool, Id)> = None;
    for chunk in owners.chunks(OWNERS_PER_QUERY) {
        let mut q = Sql::new("");
        for (i, owner) in chunk.iter().enumerate() {
            if i > 0 {
                q.push(" UNION ALL ");
            }
            q.push(&format!(
                "SELECT * FROM (SELECT o.height, CAST(0 AS BIGINT) AS spent, o.utxo_id FROM {table} o \
                 WHERE o.address = "
            ))
            .bind(owner.0.to_vec())
            .push(&format!(
                " ORDER BY o.height DESC, o.utxo_id DESC LIMIT 1) c UNION ALL \
                 SELECT * FROM (SELECT o.spent_height AS height, CAST(1 AS BIGINT) AS spent, o.utxo_id \
                 FROM {table} o WHERE o.address = "
            ))
            .bind(owner.0.to_vec())
            .push(
                " AND o.spent_height IS NOT NULL \
                 ORDER BY o.spent_height DESC, o.utxo_id DESC LIMIT 1) s",
            );
        }
        // Newest block first; in one block a spending precedes the outputs of its tx.
        for e in store.fetch(q, decode_event).await? {
            let later = newest.is_none_or(|n| (e.0, !e.1, e.2) > (n.0, !n.1, n.2));
            if later {
                newest = Some(e);
            }
        }
    }
    Ok(newest)
}
