//! What the validator lists add to the stakers: the followed node's word on each current
//! validator ([`crate::PChainWriter::record_validator_observations`]) and on the current supply
//! ([`crate::PChainWriter::record_supply`]), and the delegations each validator received
//! ([`crate::PChainReader::list_delegation_totals`]), summed in wide integers so no chain can
//! overflow them.

use std::collections::HashMap;

use crate::codec::{RowExt, bits, int};
use crate::error::Result;
use crate::row::Row;
use crate::rows::pchain::{DelegationTotals, SupplyReading, ValidatorObservation};
use crate::sql::Sql;
use crate::store::{LOOKUP_CHUNK, Store};
use firn_core::ids::{Id, NodeId};
use firn_core::pchain::reward::split;

/// Keeps `observed` (the newest word on each validator replaces the older one).
pub(super) async fn record(store: &Store, observed: &[ValidatorObservation]) -> Result<()> {
    let mut w = store.begin_write().await?;
    for o in observed {
        sqlx::query(
            "INSERT INTO p_validator_observations (node_id, uptime, connected, observed_at) \
             VALUES ($1, $2, $3, $4) ON CONFLICT (node_id) DO UPDATE SET \
             uptime = excluded.uptime, connected = excluded.connected, \
             observed_at = excluded.observed_at",
        )
        .bind(o.node_id.0.to_vec())
        .bind(i64::from(o.uptime))
        .bind(i64::from(o.connected))
        .bind(int("observation time", o.observed_at)?)
        .execute(&mut *w.tx)
        .await?;
    }
    w.commit().await
}

/// Keeps `reading`, replacing the subnet's older one.
pub(super) async fn record_supply(store: &Store, reading: &SupplyReading) -> Result<()> {
    let mut w = store.begin_write().await?;
    sqlx::query(
        "INSERT INTO p_supply_readings (subnet_id, supply, height, observed_at) \
         VALUES ($1, $2, $3, $4) ON CONFLICT (subnet_id) DO UPDATE SET \
         supply = excluded.supply, height = excluded.height, observed_at = excluded.observed_at",
    )
    .bind(reading.subnet_id.0.to_vec())
    .bind(bits(reading.supply))
    .bind(int("height", reading.height)?)
    .bind(int("observation time", reading.observed_at)?)
    .execute(&mut *w.tx)
    .await?;
    w.commit().await
}

/// The newest supply reading of `subnet_id`.
pub(super) async fn find_supply(store: &Store, subnet_id: Id) -> Result<Option<SupplyReading>> {
    let mut q = Sql::new(
        "SELECT subnet_id, supply, height, observed_at FROM p_supply_readings WHERE subnet_id = ",
    );
    q.bind(subnet_id.0.to_vec());
    Ok(store.fetch(q, decode_supply).await?.into_iter().next())
}

fn decode_supply(r: &dyn Row) -> Result<SupplyReading> {
    Ok(SupplyReading {
        subnet_id: r.id("subnet_id")?,
        supply: r.bits("supply")?,
        height: r.u64("height")?,
        observed_at: r.u64("observed_at")?,
    })
}

/// The observations held for `nodes`.
pub(super) async fn list_observations(
    store: &Store,
    nodes: &[NodeId],
) -> Result<Vec<ValidatorObservation>> {
    let select = "SELECT node_id, uptime, connected, observed_at FROM p_validator_observations \
                  WHERE node_id IN (";
    store
        .fetch_by_keys(select, nodes, |n| n.0.to_vec(), decode_observation)
        .await
}

fn decode_observation(r: &dyn Row) -> Result<ValidatorObservation> {
    Ok(ValidatorObservation {
        node_id: r.node_id("node_id")?,
        uptime: r.u32("uptime")?,
        connected: r.bool("connected")?,
        observed_at: r.u64("observed_at")?,
    })
}

struct Delegation {
    validator: Id,
    weight: u64,
    open: bool,
    potential_reward: u64,
    fee_shares: u32,
}

/// The delegations of each of `validators` (one entry per validator, zeros for one without
/// delegations): delegators of the same node and subnet whose period lies inside the
/// validator's. The fees to come split each open delegator's potential reward at its rate
/// (AvalancheGo's `reward.Split`).
pub(super) async fn list_delegation_totals(
    store: &Store,
    validators: &[Id],
) -> Result<Vec<DelegationTotals>> {
    let mut totals: HashMap<Id, DelegationTotals> = HashMap::with_capacity(validators.len());
    for chunk in validators.chunks(LOOKUP_CHUNK) {
        let mut q = Sql::new(
            "SELECT v.tx_hash AS validator, d.weight, d.end_tx_hash, d.estimated_reward, \
             d.delegation_fee FROM p_stakers v \
             JOIN p_stakers d ON d.node_id = v.node_id AND d.subnet_id = v.subnet_id \
             AND d.is_delegator = 1 AND d.start_ts >= v.start_ts AND d.end_ts <= v.end_ts \
             WHERE v.is_delegator = 0 AND v.tx_hash IN (",
        );
        q.bind_list(chunk.iter().map(|v| v.0.to_vec())).push(")");
        for d in store.fetch(q, decode_delegation).await? {
            let t = totals.entry(d.validator).or_default();
            t.count += 1;
            t.amount += u128::from(d.weight);
            if d.open {
                t.open_count += 1;
                t.open_amount += u128::from(d.weight);
                t.open_fees += u128::from(split(d.potential_reward, d.fee_shares).0);
            }
        }
    }
    Ok(validators
        .iter()
        .map(|v| DelegationTotals {
            validator: *v,
            ..totals.get(v).copied().unwrap_or_default()
        })
        .collect())
}

fn decode_delegation(r: &dyn Row) -> Result<Delegation> {
    Ok(Delegation {
        validator: r.id("validator")?,
        weight: r.bits("weight")?,
        open: r.opt_id("end_tx_hash")?.is_none(),
        potential_reward: r.opt_bits("estimated_reward")?.unwrap_or(0),
        fee_shares: r.u32("delegation_fee")?,
    })
}
