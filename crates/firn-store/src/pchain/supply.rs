//! The parts of an asset's supply the P-Chain index holds
//! ([`crate::PChainReader::find_supply_totals`]): what transactions burned and rewards paid
//! since the first indexed block, kept per asset in `p_asset_totals` with every commit; what
//! unspent UTXOs hold locked now; what of the genesis block's outputs is still locked; and
//! the rewards minted into the supply but not paid yet.

use std::collections::BTreeMap;

use firn_core::ids::Id;
use firn_core::network::P_CHAIN_ID;
use firn_core::pchain::reward::{Paid, delegator_reward};
use sqlx::AnyConnection;
use sqlx::any::AnyRow;
use tracing::info;

use super::write::StakerRow;
use crate::codec::{RowExt, bits, int};
use crate::error::Result;
use crate::row::Row;
use crate::rows::pchain::{PChainBlockRows, SupplyTotals};
use crate::sql::Sql;
use crate::store::{Store, WriteTx};

/// What a commit adds to each asset's totals: (burned, rewarded).
#[derive(Debug, Default)]
pub(super) struct TotalsDelta(BTreeMap<Id, (u64, u64)>);

impl TotalsDelta {
    /// Adds what `rows`' transactions burned and its reward UTXOs paid.
    pub(super) fn add_block(&mut self, rows: &PChainBlockRows) {
        for tx in &rows.txs {
            for a in &tx.core.amount_burned {
                self.add(a.asset_id, a.amount, 0);
            }
            for r in &tx.rewards {
                self.add(r.asset_id, 0, r.amount);
            }
        }
    }

    fn add(&mut self, asset: Id, burned: u64, rewarded: u64) {
        let e = self.0.entry(asset).or_default();
        e.0 = e.0.saturating_add(burned);
        e.1 = e.1.saturating_add(rewarded);
    }

    /// Adds the deltas to the stored totals, in the commit's transaction.
    pub(super) async fn write(self, conn: &mut AnyConnection) -> Result<()> {
        for (asset, (burned, rewarded)) in self.0 {
            let stored =
                sqlx::query("SELECT burned, rewarded FROM p_asset_totals WHERE asset_id = $1")
                    .bind(asset.0.to_vec())
                    .fetch_optional(&mut *conn)
                    .await?;
            let (old_burned, old_rewarded) = match stored {
                Some(r) => (r.bits("burned")?, r.bits("rewarded")?),
                None => (0, 0),
            };
            sqlx::query(
                "INSERT INTO p_asset_totals (asset_id, burned, rewarded) VALUES ($1, $2, $3) \
                 ON CONFLICT (asset_id) DO UPDATE SET burned = excluded.burned, \
                 rewarded = excluded.rewarded",
            )
            .bind(asset.0.to_vec())
            .bind(bits(old_burned.saturating_add(burned)))
            .bind(bits(old_rewarded.saturating_add(rewarded)))
            .execute(&mut *conn)
            .await?;
        }
        Ok(())
    }
}

struct LockedRow {
    amount: u64,
    lock_end: u64,
    staked_until: Option<u64>,
}

fn decode_locked(r: &dyn Row) -> Result<LockedRow> {
    let locktime = r.bits("locktime")?;
    let stakeable = r.opt_bits("stakeable_locktime")?.unwrap_or(0);
    Ok(LockedRow {
        amount: r.bits("amount")?,
        lock_end: locktime.max(stakeable),
        staked_until: if r.bool("staked")? {
            r.opt_bits("end_ts")?
        } else {
            None
        },
    })
}

fn decode_asset_locked(r: &dyn Row) -> Result<(Id, LockedRow)> {
    Ok((r.id("asset_id")?, decode_locked(r)?))
}

/// The fee a rewarded delegator's validator accrued from it, to be paid with the validator's
/// own reward (AvalancheGo since Cortina): its cut of the delegator's reward, recovered from
/// what was paid when the potential reward is unknown. Nothing when the reward transaction
/// paid the fee already (before Cortina) or withheld the reward.
fn accrued_fee(paid: Paid, potential: Option<u64>, delegation_fee: u32) -> u64 {
    if paid.total > paid.net {
        return 0;
    }
    delegator_reward(Some(paid), potential, delegation_fee).validator_fee()
}

/// [`accrued_fee`] of a delegator's row.
fn accrued_fee_of_row(r: &AnyRow) -> Result<u64> {
    let paid = Paid {
        total: r.bits("gross_reward")?,
        net: r.bits("net_reward")?,
    };
    Ok(accrued_fee(
        paid,
        r.opt_bits("estimated_reward")?,
        r.u32("delegation_fee")?,
    ))
}

/// Adds the fee of `delegator` (its `p_stakers` row, just ended by a reward transaction) to
/// what its validator, not yet rewarded, accrued.
pub(super) async fn accrue_delegation_fee(
    conn: &mut AnyConnection,
    delegator: &StakerRow,
) -> Result<()> {
    let paid = Paid {
        total: delegator.gross_reward,
        net: delegator.net_reward,
    };
    let fee = accrued_fee(paid, delegator.estimated_reward, delegator.delegation_fee);
    if fee == 0 {
        return Ok(());
    }
    let validator = sqlx::query(
        "SELECT tx_hash, accrued_fees FROM p_stakers WHERE node_id = $1 AND end_tx_hash IS NULL \
         AND is_delegator = 0 AND subnet_id = $2 AND start_ts <= $3 AND end_ts >= $4",
    )
    .bind(delegator.node_id.clone())
    .bind(delegator.subnet_id.0.to_vec())
    .bind(delegator.start_ts)
    .bind(delegator.end_ts)
    .fetch_optional(&mut *conn)
    .await?;
    if let Some(v) = validator {
        sqlx::query("UPDATE p_stakers SET accrued_fees = $1 WHERE tx_hash = $2")
            .bind(bits(v.bits("accrued_fees")?.saturating_add(fee)))
            .bind(v.bytes("tx_hash")?)
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}

fn decode_unpaid(r: &dyn Row) -> Result<u64> {
    let potential = r.opt_bits("estimated_reward")?.unwrap_or(0);
    Ok(potential.saturating_add(r.bits("accrued_fees")?))
}

/// Rewards minted into the supply and not paid yet, as AvalancheGo counts them: the potential
/// rewards of the primary network's stakers started by `now` and not yet ended by a
/// transaction (past their end time too), and the delegation fees their validators accrued.
async fn pending_rewards(store: &Store, now: i64) -> Result<u64> {
    let mut q = Sql::new(
        "SELECT estimated_reward, accrued_fees FROM p_stakers \
         WHERE end_tx_hash IS NULL AND subnet_id = ",
    );
    q.bind(P_CHAIN_ID.0.to_vec())
        .push(" AND start_ts <= ")
        .bind(now);
    Ok(store
        .fetch(q, decode_unpaid)
        .await?
        .into_iter()
        .fold(0u64, u64::saturating_add))
}

fn decode_totals(r: &dyn Row) -> Result<(u64, u64)> {
    Ok((r.bits("burned")?, r.bits("rewarded")?))
}

fn decode_tx_hashes(r: &dyn Row) -> Result<Vec<Id>> {
    r.hashes("tx_hashes")
}

/// The supply totals of `asset_id`, locks judged at `now`.
pub(super) async fn find(store: &Store, asset_id: Id, now: u64) -> Result<SupplyTotals> {
    let asset = asset_id.0.to_vec();
    let mut q = Sql::new("SELECT burned, rewarded FROM p_asset_totals WHERE asset_id = ");
    q.bind(asset.clone());
    let (burned, rewarded) = store
        .fetch(q, decode_totals)
        .await?
        .into_iter()
        .next()
        .unwrap_or_default();

    // Unspent, kept on the P-Chain, not staking now, locked past `now`.
    let mut q = Sql::new(
        "SELECT amount, locktime, stakeable_locktime, staked, end_ts FROM p_utxos \
         WHERE consuming_tx_hash IS NULL AND (locktime <> 0 OR stakeable_locktime IS NOT NULL) \
         AND asset_id = ",
    );
    q.bind(asset.clone())
        .push(" AND consumed_on_chain = ")
        .bind(P_CHAIN_ID.0.to_vec());
    let locked = store
        .fetch(q, decode_locked)
        .await?
        .iter()
        .filter(|u| u.lock_end > now && u.staked_until.is_none_or(|end| end <= now))
        .fold(0u64, |sum, u| sum.saturating_add(u.amount));

    // The genesis block's outputs whose lock ends after `now`, spent or not.
    let mut q = Sql::new("SELECT tx_hashes FROM p_blocks WHERE height = ");
    q.bind(0i64);
    let genesis_txs: Vec<Id> = store
        .fetch(q, decode_tx_hashes)
        .await?
        .into_iter()
        .flatten()
        .collect();
    let genesis_locked = store
        .fetch_by_keys(
            "SELECT asset_id, amount, locktime, stakeable_locktime, staked, end_ts FROM p_utxos \
             WHERE emitted_by IN (",
            &genesis_txs,
            |tx| tx.0.to_vec(),
            decode_asset_locked,
        )
        .await?
        .iter()
        .filter(|(a, u)| *a == asset_id && u.lock_end > now)
        .fold(0u64, |sum, (_, u)| sum.saturating_add(u.amount));
    Ok(SupplyTotals {
        burned,
        rewarded,
        pending_rewards: pending_rewards(store, int("now", now)?).await?,
        locked,
        genesis_locked,
    })
}

/// Derives every asset's totals from the transactions and rewards stored before the store
/// kept them, in keyset pages.
pub(crate) async fn derive_totals(w: &mut WriteTx<'_>) -> Result<usize> {
    const PER_READ: i64 = 1_000;
    let mut delta = TotalsDelta::default();
    let mut after = (-1i64, -1i64);
    loop {
        let page = sqlx::query(
            "SELECT height, tx_index, amount_burned FROM p_txs \
             WHERE (height, tx_index) > ($1, $2) ORDER BY height, tx_index LIMIT $3",
        )
        .bind(after.0)
        .bind(after.1)
        .bind(PER_READ)
        .fetch_all(&mut *w.tx)
        .await?;
        let Some(last) = page.last() else { break };
        after = (last.i64("height")?, last.i64("tx_index")?);
        for t in &page {
            for a in t.amounts("amount_burned")? {
                delta.add(a.asset_id, a.amount, 0);
            }
        }
    }
    let mut after = (-1i64, -1i64, -1i64);
    loop {
        let page = sqlx::query(
            "SELECT height, tx_index, seq, asset_id, amount FROM p_rewards \
             WHERE (height, tx_index, seq) > ($1, $2, $3) ORDER BY height, tx_index, seq LIMIT $4",
        )
        .bind(after.0)
        .bind(after.1)
        .bind(after.2)
        .bind(PER_READ)
        .fetch_all(&mut *w.tx)
        .await?;
        let Some(last) = page.last() else { break };
        after = (last.i64("height")?, last.i64("tx_index")?, last.i64("seq")?);
        for r in &page {
            delta.add(r.id("asset_id")?, 0, r.bits("amount")?);
        }
    }
    let assets = delta.0.len();
    delta.write(&mut w.tx).await?;
    // What the open validators accrued from the delegators rewarded so far.
    let delegations = sqlx::query(
        "SELECT v.tx_hash AS validator, d.estimated_reward, d.delegation_fee, d.gross_reward, \
         d.net_reward FROM p_stakers v JOIN p_stakers d ON d.node_id = v.node_id \
         AND d.subnet_id = v.subnet_id AND d.is_delegator = 1 AND d.start_ts >= v.start_ts \
         AND d.end_ts <= v.end_ts AND d.end_tx_hash IS NOT NULL \
         WHERE v.end_tx_hash IS NULL AND v.is_delegator = 0",
    )
    .fetch_all(&mut *w.tx)
    .await?;
    let mut accrued: BTreeMap<Vec<u8>, u64> = BTreeMap::new();
    for d in &delegations {
        let fee = accrued_fee_of_row(d)?;
        let e = accrued.entry(d.bytes("validator")?).or_default();
        *e = e.saturating_add(fee);
    }
    for (validator, fee) in accrued {
        sqlx::query("UPDATE p_stakers SET accrued_fees = $1 WHERE tx_hash = $2")
            .bind(bits(fee))
            .bind(validator)
            .execute(&mut *w.tx)
            .await?;
    }
    info!(assets, "derived the P-Chain's burned and rewarded totals");
    Ok(assets)
}
