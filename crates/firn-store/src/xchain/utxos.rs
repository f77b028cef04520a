//! Owners' X-Chain UTXOs (`x_utxo_owners`): the unspent UTXOs of addresses, page by page, and
//! what their fungible amounts add up to.
//!
//! Several owners are read as the P-Chain's UTXO lists read them: each owner's walk of its
//! unspent rows, at most a page long, merged (a UTXO owned by several is kept once). As on the
//! P-Chain, an owner's row carries what balances and filters read of its UTXO (asset, output
//! kind, amount, locktime, owner count), so neither looks each UTXO up in `x_utxos`.

use firn_core::ids::ShortId;

pub(super) use crate::pchain::{OWNERS_PER_QUERY, distinct_owners as distinct};

use super::decode::decode_utxo;
use crate::codec::{RowExt, int};
use crate::error::Result;
use crate::page::{Page, PageRequest, SortOrder, UtxoCursor};
use crate::row::Row;
use crate::rows::xchain::{XBalance, XOutputKind, XUtxoRecord};
use crate::sql::Sql;
use crate::store::Store;
use crate::traits::XUtxoFilter;

pub(super) async fn list(
    store: &Store,
    filter: &XUtxoFilter,
    order: SortOrder,
    page: &PageRequest<UtxoCursor>,
) -> Result<Page<XUtxoRecord, UtxoCursor>> {
    let limit = page.checked_limit()?;
    let ord = order.sql();
    let mut utxos = Vec::new();
    for chunk in distinct(&filter.addresses).chunks(OWNERS_PER_QUERY) {
        let mut q = Sql::new("SELECT u.* FROM x_utxos u JOIN (SELECT DISTINCT m.utxo_id FROM (");
        for (i, owner) in chunk.iter().enumerate() {
            if i > 0 {
                q.push(" UNION ALL ");
            }
            q.push("SELECT * FROM (SELECT o.utxo_id, o.height FROM x_utxo_owners o");
            q.push(" WHERE o.address = ").bind(owner.0.to_vec());
            if !filter.include_spent {
                // Literally the partial index's condition, so the planner can use it.
                q.push(" AND o.spent_height IS NULL");
            }
            if let Some(asset) = filter.asset_id {
                q.push(" AND o.asset_id = ").bind(asset.0.to_vec());
            }
            if let Some(min) = filter.min_amount {
                push_min_amount(&mut q, min);
            }
            if let Some(c) = page.after {
                q.push(&format!(
                    " AND (o.height, o.utxo_id) {} (",
                    order.after_op()
                ))
                .bind(int("cursor height", c.key)?)
                .push(", ")
                .bind(c.utxo_id.0.to_vec())
                .push(")");
            }
            q.push(&format!(" ORDER BY o.height {ord}, o.utxo_id {ord}"))
                .limit(limit + 1);
            q.push(&format!(") w{i}"));
        }
        q.push(&format!(
            ") m) k ON u.utxo_id = k.utxo_id ORDER BY u.height {ord}, u.utxo_id {ord}"
        ))
        .limit(limit + 1);
        utxos.extend(store.fetch(q, decode_utxo).await?);
    }
    // Each statement's page is in order; together they need sorting again.
    utxos.sort_by_key(|u| (u.height, u.utxo.utxo_id));
    utxos.dedup_by_key(|u| u.utxo.utxo_id);
    if order == SortOrder::Desc {
        utxos.reverse();
    }
    utxos.truncate(usize::try_from(limit + 1).unwrap_or(usize::MAX));
    Ok(Page::from_rows(utxos, limit, |u| UtxoCursor {
        key: u.height,
        utxo_id: u.utxo.utxo_id,
    }))
}

/// Amounts are u64 bit patterns: one at or past 2^63 reads negative.
fn push_min_amount(q: &mut Sql, min: u64) {
    match i64::try_from(min) {
        Ok(min) => q
            .push(" AND (o.amount >= ")
            .bind(min)
            .push(" OR o.amount < 0)"),
        Err(_) => q
            .push(" AND o.amount < 0 AND o.amount >= ")
            .bind(min as i64),
    };
}

pub(super) async fn balances(
    store: &Store,
    addresses: &[ShortId],
    now: u64,
) -> Result<Vec<XBalance>> {
    let owners = distinct(addresses);
    if owners.is_empty() {
        return Ok(Vec::new());
    }
    // Amounts are summed in two 32-bit halves, so no sum of u64 bit patterns overflows a
    // signed 64-bit column. Spendable: one owner, and a locktime passed (a bit pattern below
    // zero is a time past 2^63, never passed).
    let mut q = Sql::new(
        "SELECT s.asset_id, COUNT(*) AS n, \
         CAST(SUM(s.sp * s.hi) AS BIGINT) AS spendable_hi, \
         CAST(SUM(s.sp * s.lo) AS BIGINT) AS spendable_lo, \
         CAST(SUM(s.hi) AS BIGINT) AS total_hi, CAST(SUM(s.lo) AS BIGINT) AS total_lo, \
         CAST(SUM(s.ul * s.hi) AS BIGINT) AS unlocked_hi, \
         CAST(SUM(s.ul * s.lo) AS BIGINT) AS unlocked_lo, SUM(s.ul) AS unlocked_n \
         FROM (SELECT u.asset_id, (u.amount >> 32) & 4294967295 AS hi, \
         u.amount & 4294967295 AS lo, CASE WHEN u.owner_count = 1 AND u.locktime >= 0 \
         AND u.locktime <= ",
    );
    let now = int("balance time", now)?;
    q.bind(now)
        .push(" THEN 1 ELSE 0 END AS sp, CASE WHEN u.locktime >= 0 AND u.locktime <= ")
        .bind(now);
    // The owners' own rows hold what a balance needs, so it is read from their key ranges
    // alone. A UTXO several of them own is counted once.
    let distinct = if owners.len() > 1 { "DISTINCT " } else { "" };
    q.push(&format!(
        " THEN 1 ELSE 0 END AS ul FROM (SELECT {distinct}o.utxo_id, o.asset_id, o.amount, \
         o.locktime, o.owner_count FROM x_utxo_owners o WHERE o.address IN ("
    ));
    q.bind_list(owners.iter().map(|a| a.0.to_vec()))
        .push(") AND o.spent_height IS NULL AND o.output_kind = ")
        .bind(XOutputKind::Secp256k1Transfer.as_str())
        .push(") u) s GROUP BY s.asset_id ORDER BY s.asset_id");
    store.fetch(q, decode_balance).await
}

fn decode_balance(r: &dyn Row) -> Result<XBalance> {
    let sum = |name: &'static str, lo: &'static str| -> Result<u128> {
        Ok((u128::from(r.u64(name)?) << 32) + u128::from(r.u64(lo)?))
    };
    Ok(XBalance {
        asset_id: r.id("asset_id")?,
        spendable: sum("spendable_hi", "spendable_lo")?,
        total: sum("total_hi", "total_lo")?,
        utxo_count: r.u64("n")?,
        unlocked: sum("unlocked_hi", "unlocked_lo")?,
        unlocked_count: r.u64("unlocked_n")?,
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn halves_add_up_to_the_amount() {
        let amount = u64::MAX - 5;
        let stored = crate::codec::bits(amount);
        let hi = ((stored >> 32) & 4_294_967_295) as u128;
        let lo = (stored & 4_294_967_295) as u128;
        assert_eq!((hi << 32) + lo, u128::from(amount));
    }
}
