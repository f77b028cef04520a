//! Committing P-Chain blocks with their derived state.

use std::collections::BTreeMap;

use firn_core::ids::Id;
use sqlx::AnyConnection;
use tracing::debug;

use super::pending::{Pending, RewardRow, Spend};
use crate::atomic::AtomicImport;
use crate::codec::{RowExt, bits, int, short_ids, u128_bytes};
use crate::cursor::{is_next, load_cursor, save_cursor};
use crate::error::{Result, StoreError};
use crate::rows::pchain::{
    L1Observation, PBlock, PChainBlockRows, PTx, SubnetChange, SupplyReading, ValidatorObservation,
};
use crate::rows::{ChainKey, CommitOutcome};
use crate::store::Store;
use crate::traits::PChainWriter;
use firn_core::network::P_CHAIN_ID;

impl PChainWriter for Store {
    async fn commit_pchain_blocks(&self, blocks: &[PChainBlockRows]) -> Result<CommitOutcome> {
        let mut w = self.begin_block_write().await?;
        let conn: &mut AnyConnection = &mut w.tx;
        let mut cursor = load_cursor(conn, ChainKey::PChain).await?;
        let mut outcome = CommitOutcome::default();
        let mut totals = super::supply::TotalsDelta::default();
        let mut pending = Pending::default();
        pending.read_stored(conn, blocks).await?;
        for rows in blocks {
            let height = rows.block.height;
            if !is_next(ChainKey::PChain, cursor, height)? {
                check_same_block(conn, &rows.block).await?;
                outcome.skipped += 1;
                continue;
            }
            write_block(conn, &mut pending, rows).await?;
            totals.add_block(rows);
            if let Some(changes) = &rows.l1_fees {
                super::l1_fees::write(conn, height, changes).await?;
            }
            cursor = Some(height);
            outcome.committed += 1;
        }
        pending.write(conn).await?;
        if let (Some(c), true) = (cursor, outcome.committed > 0) {
            save_cursor(conn, ChainKey::PChain, c).await?;
        }
        totals.write(conn).await?;
        w.commit().await?;
        debug!(
            committed = outcome.committed,
            skipped = outcome.skipped,
            "committed p-chain blocks"
        );
        Ok(outcome)
    }

    async fn record_validator_observations(&self, observed: &[ValidatorObservation]) -> Result<()> {
        super::validators::record(self, observed).await
    }

    async fn record_supply(&self, reading: &SupplyReading) -> Result<()> {
        super::validators::record_supply(self, reading).await
    }

    async fn record_l1_observations(&self, observed: &[L1Observation]) -> Result<()> {
        super::l1::record(self, observed).await
    }
}

async fn check_same_block(conn: &mut AnyConnection, block: &PBlock) -> Result<()> {
    let row = sqlx::query("SELECT hash FROM p_blocks WHERE height = $1")
        .bind(int("height", block.height)?)
        .fetch_optional(&mut *conn)
        .await?;
    match row {
        Some(r) if r.id("hash")? == block.hash => Ok(()),
        // Below the first indexed height: nothing to compare with.
        None => Ok(()),
        Some(_) => Err(StoreError::ConflictingBlock {
            chain: ChainKey::PChain.as_text(),
            height: block.height,
        }),
    }
}

/// Staking totals change of one subnet within a block.
#[derive(Default)]
struct StakingDelta {
    validators: i64,
    validator_weight: i128,
    delegators: i64,
    delegator_weight: i128,
}

async fn write_block<'a>(
    conn: &mut AnyConnection,
    pending: &mut Pending<'a>,
    rows: &'a PChainBlockRows,
) -> Result<()> {
    let b = &rows.block;
    let height = int("height", b.height)?;
    let ts = int("timestamp", b.timestamp)?;
    pending.block(rows);
    let mut staking: BTreeMap<Id, StakingDelta> = BTreeMap::new();
    for (index, tx) in rows.txs.iter().enumerate() {
        let index = int("tx index", index as u64)?;
        write_tx(conn, pending, b, (height, index, ts), tx, &mut staking).await?;
    }
    apply_staking(conn, b.timestamp, staking).await
}

async fn write_tx<'a>(
    conn: &mut AnyConnection,
    pending: &mut Pending<'a>,
    block: &'a PBlock,
    (height, index, ts): (i64, i64, i64),
    tx: &'a PTx,
    staking: &mut BTreeMap<Id, StakingDelta>,
) -> Result<()> {
    let c = &tx.core;
    let details = serde_json::to_string(&c.details).map_err(|e| StoreError::Corrupt {
        column: "details",
        reason: e.to_string(),
    })?;
    pending.tx(block, (height, index, ts), tx, details);

    for (i, utxo_id) in tx.consumed.iter().enumerate() {
        let spend = Spend {
            tx_hash: c.tx_hash,
            height,
            ts,
            input: int("input index", i as u64)?,
        };
        if pending.spend(utxo_id, spend) {
            continue;
        }
        let imported = tx
            .imported
            .iter()
            .find(|u| u.utxo_id == *utxo_id)
            .ok_or_else(|| StoreError::UtxoUnavailable(utxo_id.to_string()))?;
        pending.utxo(imported, (height, ts), (None, spend.input), Some(spend));
        pending.import(AtomicImport {
            utxo_id: *utxo_id,
            source: imported.created_on_chain,
            tx_id: c.tx_hash,
            ts,
        });
        for a in &imported.addresses {
            pending.chain(*a, imported.created_on_chain);
        }
    }
    for (i, utxo) in tx.emitted.iter().enumerate() {
        let emitted = (Some(c.tx_hash), int("output index", i as u64)?);
        pending.utxo(utxo, (height, ts), emitted, None);
        if utxo.consumed_on_chain != P_CHAIN_ID {
            pending.export(utxo, ts);
        }
        for a in &utxo.addresses {
            pending.chain(*a, P_CHAIN_ID);
            if utxo.consumed_on_chain != P_CHAIN_ID {
                pending.chain(*a, utxo.consumed_on_chain);
            }
        }
    }

    if let Some(s) = &tx.staker {
        pending.staker(c.tx_hash, (height, index), &c.tx_type, s);
        let d = staking.entry(s.subnet_id).or_default();
        if s.is_delegator {
            d.delegators += 1;
            d.delegator_weight += i128::from(s.weight);
        } else {
            d.validators += 1;
            d.validator_weight += i128::from(s.weight);
        }
    }

    if !tx.rewards.is_empty() || c.ends_staker.is_some() {
        pending.write_stakers(conn).await?;
    }
    // A reward tx ends the staker it pays: the row the end returns serves its rewards too, so
    // they need no read of their own, and each staker's totals are written once.
    let ended = match c.ends_staker {
        Some(ended) => Some(end_staker(conn, ended, c.tx_hash, height, ts).await?),
        None => None,
    };
    let ended_hash = ended.as_ref().map(|s| s.tx_hash);
    let mut paid: Vec<(StakerRow, bool)> = ended.into_iter().map(|s| (s, false)).collect();
    for (seq, r) in tx.rewards.iter().enumerate() {
        let at = match paid
            .iter()
            .position(|(s, _)| s.tx_hash == r.staking_tx_hash)
        {
            Some(at) => at,
            None => {
                paid.push((find_staker(conn, r.staking_tx_hash).await?, false));
                paid.len() - 1
            }
        };
        let (staker, rewarded) = &mut paid[at];
        pending.reward(RewardRow {
            height,
            index,
            seq: int("reward index", seq as u64)?,
            reward: r,
            reward_tx_hash: c.tx_hash,
            node_id: staker.node_id.clone(),
            weight: staker.weight,
            start_ts: staker.start_ts,
            end_ts: staker.end_ts,
        });
        let overflow = || StoreError::OutOfRange {
            field: "reward total",
            value: r.staking_tx_hash.to_string(),
        };
        staker.gross_reward = staker
            .gross_reward
            .checked_add(r.amount)
            .ok_or_else(overflow)?;
        if r.reward_type != crate::rows::pchain::RewardType::ValidatorFee {
            staker.net_reward = staker
                .net_reward
                .checked_add(r.amount)
                .ok_or_else(overflow)?;
        }
        *rewarded = true;
    }
    for (staker, _) in paid.iter().filter(|(_, rewarded)| *rewarded) {
        sqlx::query("UPDATE p_stakers SET gross_reward = $1, net_reward = $2 WHERE tx_hash = $3")
            .bind(bits(staker.gross_reward))
            .bind(bits(staker.net_reward))
            .bind(staker.tx_hash.0.to_vec())
            .execute(&mut *conn)
            .await?;
    }
    if let Some((ended, _)) =
        ended_hash.and_then(|hash| paid.into_iter().find(|(s, _)| s.tx_hash == hash))
    {
        let d = staking.entry(ended.subnet_id).or_default();
        let weight = i128::from(ended.weight as u64);
        if ended.is_delegator {
            super::supply::accrue_delegation_fee(conn, &ended).await?;
            d.delegators -= 1;
            d.delegator_weight -= weight;
        } else {
            d.validators -= 1;
            d.validator_weight -= weight;
        }
    }

    for v in &tx.l1_validators {
        sqlx::query(
            "INSERT INTO l1_validators (validation_id, subnet_id, node_id, weight, balance, \
             bls_public_key, created_height, created_tx_hash, updated_height, active, \
             remaining_owner_threshold, remaining_owner_addresses, deactivation_owner_threshold, \
             deactivation_owner_addresses) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $7, $9, $10, $11, $12, $13) \
             ON CONFLICT (validation_id) DO UPDATE SET subnet_id = excluded.subnet_id, \
             node_id = excluded.node_id, weight = excluded.weight, balance = excluded.balance, \
             bls_public_key = excluded.bls_public_key, updated_height = excluded.updated_height, \
             active = excluded.active",
        )
        .bind(v.validation_id.0.to_vec())
        .bind(v.subnet_id.0.to_vec())
        .bind(v.node_id.0.to_vec())
        .bind(bits(v.weight))
        .bind(bits(v.balance))
        .bind(v.bls_public_key.clone())
        .bind(height)
        .bind(c.tx_hash.0.to_vec())
        .bind(i64::from(v.active))
        .bind(i64::from(v.remaining_balance_owner.threshold))
        .bind(short_ids(&v.remaining_balance_owner.addresses))
        .bind(i64::from(v.deactivation_owner.threshold))
        .bind(short_ids(&v.deactivation_owner.addresses))
        .execute(&mut *conn)
        .await?;
    }

    if let Some(change) = &tx.subnet {
        write_subnet_change(conn, change, height, ts, c.tx_hash).await?;
    }
    if let Some(chain) = &tx.blockchain {
        sqlx::query(
            "INSERT INTO blockchains (blockchain_id, subnet_id, name, vm_id, height, tx_hash, \
             timestamp, genesis, evm_chain_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        )
        .bind(chain.blockchain_id.0.to_vec())
        .bind(chain.subnet_id.0.to_vec())
        .bind(chain.name.clone())
        .bind(chain.vm_id.0.to_vec())
        .bind(height)
        .bind(c.tx_hash.0.to_vec())
        .bind(ts)
        .bind(chain.genesis.clone())
        .bind(
            chain
                .evm_chain_id
                .map(|v| int("evm chain id", v))
                .transpose()?,
        )
        .execute(&mut *conn)
        .await?;
    }
    Ok(())
}

async fn write_subnet_change(
    conn: &mut AnyConnection,
    change: &SubnetChange,
    height: i64,
    ts: i64,
    tx_hash: Id,
) -> Result<()> {
    let affected = match change {
        SubnetChange::Created { subnet_id, owner } => sqlx::query(
            "INSERT INTO subnets (subnet_id, height, tx_hash, timestamp, owner_locktime, \
             owner_threshold, owner_addresses) VALUES ($1, $2, $3, $4, $5, $6, $7)",
        )
        .bind(subnet_id.0.to_vec())
        .bind(height)
        .bind(tx_hash.0.to_vec())
        .bind(ts)
        .bind(bits(owner.locktime))
        .bind(i64::from(owner.threshold))
        .bind(short_ids(&owner.addresses))
        .execute(&mut *conn)
        .await?
        .rows_affected(),
        SubnetChange::OwnerChanged { subnet_id, owner } => sqlx::query(
            "UPDATE subnets SET owner_locktime = $1, owner_threshold = $2, owner_addresses = $3 \
             WHERE subnet_id = $4",
        )
        .bind(bits(owner.locktime))
        .bind(i64::from(owner.threshold))
        .bind(short_ids(&owner.addresses))
        .bind(subnet_id.0.to_vec())
        .execute(&mut *conn)
        .await?
        .rows_affected(),
        SubnetChange::Converted {
            subnet_id,
            conversion_id,
            manager_chain,
            manager_address,
        } => sqlx::query(
            "UPDATE subnets SET l1_conversion_id = $1, l1_manager_chain = $2, \
             l1_manager_address = $3, l1_converted_at = $4 WHERE subnet_id = $5",
        )
        .bind(conversion_id.0.to_vec())
        .bind(manager_chain.0.to_vec())
        .bind(manager_address.clone())
        .bind(height)
        .bind(subnet_id.0.to_vec())
        .execute(&mut *conn)
        .await?
        .rows_affected(),
    };
    if affected == 0 {
        let subnet_id = match change {
            SubnetChange::Created { subnet_id, .. }
            | SubnetChange::OwnerChanged { subnet_id, .. }
            | SubnetChange::Converted { subnet_id, .. } => subnet_id,
        };
        return Err(StoreError::NotFound {
            what: "subnet",
            key: subnet_id.to_string(),
        });
    }
    Ok(())
}

/// Applies a block's staking changes to the running totals and the block's day row.
async fn apply_staking(
    conn: &mut AnyConnection,
    block_ts: u64,
    deltas: BTreeMap<Id, StakingDelta>,
) -> Result<()> {
    let day = int(
        "day",
        crate::rows::metrics::Granularity::Day.start_of(block_ts),
    )?;
    for (subnet, d) in deltas {
        let row = sqlx::query(
            "SELECT validator_count, validator_weight, delegator_count, delegator_weight \
             FROM staking_totals WHERE subnet_id = $1",
        )
        .bind(subnet.0.to_vec())
        .fetch_optional(&mut *conn)
        .await?;
        let (vc, vw, dc, dw) = match row {
            Some(r) => (
                r.i64("validator_count")?,
                r.u128("validator_weight")?,
                r.i64("delegator_count")?,
                r.u128("delegator_weight")?,
            ),
            None => (0, 0, 0, 0),
        };
        let out_of_range = || StoreError::OutOfRange {
            field: "staking total",
            value: subnet.to_string(),
        };
        let apply = |total: u128, delta: i128| -> Result<u128> {
            let t = i128::try_from(total).map_err(|_| out_of_range())?;
            u128::try_from(t + delta).map_err(|_| out_of_range())
        };
        let vc = vc + d.validators;
        let dc = dc + d.delegators;
        if vc < 0 || dc < 0 {
            return Err(out_of_range());
        }
        let vw = apply(vw, d.validator_weight)?;
        let dw = apply(dw, d.delegator_weight)?;
        sqlx::query(
            "INSERT INTO staking_totals (subnet_id, validator_count, validator_weight, \
             delegator_count, delegator_weight) VALUES ($1, $2, $3, $4, $5) \
             ON CONFLICT (subnet_id) DO UPDATE SET validator_count = excluded.validator_count, \
             validator_weight = excluded.validator_weight, delegator_count = excluded.delegator_count, \
             delegator_weight = excluded.delegator_weight",
        )
        .bind(subnet.0.to_vec())
        .bind(vc)
        .bind(u128_bytes(vw))
        .bind(dc)
        .bind(u128_bytes(dw))
        .execute(&mut *conn)
        .await?;
        sqlx::query(
            "INSERT INTO staking_daily (subnet_id, day, validator_count, validator_weight, \
             delegator_count, delegator_weight) VALUES ($1, $2, $3, $4, $5, $6) \
             ON CONFLICT (subnet_id, day) DO UPDATE SET validator_count = excluded.validator_count, \
             validator_weight = excluded.validator_weight, delegator_count = excluded.delegator_count, \
             delegator_weight = excluded.delegator_weight",
        )
        .bind(subnet.0.to_vec())
        .bind(day)
        .bind(vc)
        .bind(u128_bytes(vw))
        .bind(dc)
        .bind(u128_bytes(dw))
        .execute(&mut *conn)
        .await?;
    }
    Ok(())
}

/// What a reward tx reads and changes of a `p_stakers` row.
#[derive(Debug, Clone)]
pub(super) struct StakerRow {
    pub(super) tx_hash: Id,
    pub(super) subnet_id: Id,
    pub(super) node_id: Vec<u8>,
    /// As stored, a u64's bits (reward rows copy it).
    pub(super) weight: i64,
    pub(super) is_delegator: bool,
    pub(super) start_ts: i64,
    pub(super) end_ts: i64,
    pub(super) estimated_reward: Option<u64>,
    pub(super) delegation_fee: u32,
    pub(super) gross_reward: u64,
    pub(super) net_reward: u64,
}

const STAKER_COLUMNS: &str = "subnet_id, node_id, weight, is_delegator, start_ts, end_ts, \
     estimated_reward, delegation_fee, gross_reward, net_reward";

impl StakerRow {
    fn decode(tx_hash: Id, r: &sqlx::any::AnyRow) -> Result<Self> {
        Ok(Self {
            tx_hash,
            subnet_id: r.id("subnet_id")?,
            node_id: r.bytes("node_id")?,
            weight: r.i64("weight")?,
            is_delegator: r.bool("is_delegator")?,
            start_ts: r.i64("start_ts")?,
            end_ts: r.i64("end_ts")?,
            estimated_reward: r.opt_bits("estimated_reward")?,
            delegation_fee: r.u32("delegation_fee")?,
            gross_reward: r.bits("gross_reward")?,
            net_reward: r.bits("net_reward")?,
        })
    }
}

/// Marks staker `staker` ended by tx `by` and returns its row.
async fn end_staker(
    conn: &mut AnyConnection,
    staker: Id,
    by: Id,
    height: i64,
    ts: i64,
) -> Result<StakerRow> {
    let row = sqlx::query(&format!(
        "UPDATE p_stakers SET end_tx_hash = $1, end_height = $2, end_timestamp = $3 \
         WHERE tx_hash = $4 AND end_tx_hash IS NULL RETURNING {STAKER_COLUMNS}"
    ))
    .bind(by.0.to_vec())
    .bind(height)
    .bind(ts)
    .bind(staker.0.to_vec())
    .fetch_optional(&mut *conn)
    .await?
    .ok_or_else(|| StoreError::StakerUnavailable(staker.to_string()))?;
    StakerRow::decode(staker, &row)
}

/// Staker `staker`'s row.
async fn find_staker(conn: &mut AnyConnection, staker: Id) -> Result<StakerRow> {
    let row = sqlx::query(&format!(
        "SELECT {STAKER_COLUMNS} FROM p_stakers WHERE tx_hash = $1"
    ))
    .bind(staker.0.to_vec())
    .fetch_optional(&mut *conn)
    .await?
    .ok_or_else(|| StoreError::StakerUnavailable(staker.to_string()))?;
    StakerRow::decode(staker, &row)
}
