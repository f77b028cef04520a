//! What is staked right now: the totals of the stakers active at a moment
//! ([`crate::PChainReader::find_staking_totals`]), summed over the open stakers (those not yet
//! rewarded or removed, which a partial index keeps apart) in wide integers, so no sum of
//! weights or rewards overflows whatever the chain holds.

use crate::codec::{RowExt, int};
use crate::error::Result;
use crate::row::Row;
use crate::rows::pchain::StakingTotals;
use crate::sql::Sql;
use crate::store::Store;
use firn_core::ids::Id;

struct OpenStaker {
    is_delegator: bool,
    weight: u64,
    estimated_reward: u64,
}

fn decode(r: &dyn Row) -> Result<OpenStaker> {
    Ok(OpenStaker {
        is_delegator: r.bool("is_delegator")?,
        weight: r.bits("weight")?,
        estimated_reward: r.opt_u64("estimated_reward")?.unwrap_or(0),
    })
}

pub(super) async fn find(store: &Store, subnet_id: Id, now: u64) -> Result<StakingTotals> {
    let mut q = Sql::new(
        "SELECT is_delegator, weight, estimated_reward FROM p_stakers \
         WHERE end_tx_hash IS NULL AND subnet_id = ",
    );
    let now = int("now", now)?;
    q.bind(subnet_id.0.to_vec())
        .push(" AND start_ts <= ")
        .bind(now)
        .push(" AND end_ts > ")
        .bind(now);
    let mut totals = StakingTotals::default();
    for s in store.fetch(q, decode).await? {
        let weight = u128::from(s.weight);
        if s.is_delegator {
            totals.delegators += 1;
            totals.delegator_weight += weight;
        } else {
            totals.validators += 1;
            totals.validator_weight += weight;
        }
        totals.potential_reward += u128::from(s.estimated_reward);
    }
    Ok(totals)
}
