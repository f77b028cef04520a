//! Delegators (`CompletedDelegatorDetails` | `ActiveDelegatorDetails` |
//! `PendingDelegatorDetails`): the stored stake and its reward, by
//! `firn_core::pchain::reward::delegator_reward`.

use firn_core::pchain::reward::{Paid, delegator_reward};
use firn_store::rows::pchain::{StakerRecord, StakerStatus};
use serde::Serialize;
use utoipa::ToSchema;

use super::Ctx;

/// A delegator: completed ones carry `grossReward`/`netReward`, active and pending ones
/// `estimatedGrossReward`/`estimatedNetReward` (`CompletedDelegatorDetails` |
/// `ActiveDelegatorDetails` | `PendingDelegatorDetails`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DelegatorDetails {
    /// Staking transaction.
    pub tx_hash: String,
    /// Node.
    pub node_id: String,
    /// Reward owners.
    pub reward_addresses: Vec<String>,
    /// Amount delegated.
    pub amount_delegated: String,
    /// The validator's share of the gross reward, in nAVAX (gross minus net).
    pub delegation_fee: String,
    /// Start.
    pub start_timestamp: u64,
    /// End.
    pub end_timestamp: u64,
    /// All rewards paid (completed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gross_reward: Option<String>,
    /// Rewards paid to the delegator (completed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub net_reward: Option<String>,
    /// Estimated reward (active, pending).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimated_gross_reward: Option<String>,
    /// Estimated reward to the delegator (active, pending).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimated_net_reward: Option<String>,
    /// `completed`, `active` or `pending`.
    pub delegation_status: String,
}

impl DelegatorDetails {
    /// From a stored delegator, judged at `now`: a completed one shows what it was paid, an
    /// active or pending one the estimate ([`delegator_reward`] tells both).
    pub fn from_record(ctx: Ctx<'_>, r: &StakerRecord, now: u64) -> Self {
        let s = &r.staker;
        let status = r.status(now);
        let completed = status == StakerStatus::Completed;
        let paid = completed.then_some(Paid {
            total: r.gross_reward,
            net: r.net_reward,
        });
        let reward = delegator_reward(paid, s.estimated_reward, s.delegation_fee);
        let gross_text = reward.gross.to_string();
        let net_text = reward.net.to_string();
        Self {
            tx_hash: r.tx_hash.to_string(),
            node_id: s.node_id.to_string(),
            reward_addresses: ctx.addresses(&s.reward_addresses),
            amount_delegated: s.weight.to_string(),
            delegation_fee: reward.validator_fee().to_string(),
            start_timestamp: s.start_ts,
            end_timestamp: s.end_ts,
            gross_reward: completed.then(|| gross_text.clone()),
            net_reward: completed.then(|| net_text.clone()),
            estimated_gross_reward: (!completed).then_some(gross_text),
            estimated_net_reward: (!completed).then_some(net_text),
            delegation_status: status.as_str().to_owned(),
        }
    }
}

/// A page of delegators (`ListDelegatorDetailsResponse`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListDelegatorDetailsResponse {
    /// Token of the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// The delegators.
    pub delegators: Vec<DelegatorDetails>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::NetworkProfile;
    use firn_core::ids::{Id, NodeId, ShortId};
    use firn_core::network::P_CHAIN_ID;
    use firn_store::rows::pchain::{NewStaker, UtxoConsumption};

    /// A delegator at a 2 % fee with the given potential reward and payout.
    fn delegator(estimated: Option<u64>, ended: bool, gross: u64, net: u64) -> StakerRecord {
        StakerRecord {
            tx_hash: Id([1; 32]),
            tx_type: "AddPermissionlessDelegatorTx".into(),
            height: 5,
            tx_index: 0,
            staker: NewStaker {
                node_id: NodeId([2; 20]),
                subnet_id: P_CHAIN_ID,
                start_ts: 100,
                end_ts: 200,
                weight: 25_000_000_000,
                is_delegator: true,
                delegation_fee: 20_000,
                reward_addresses: vec![ShortId([3; 20])],
                estimated_reward: estimated,
            },
            ended_by: ended.then_some(UtxoConsumption {
                tx_hash: Id([4; 32]),
                height: 9,
                timestamp: 200,
            }),
            gross_reward: gross,
            net_reward: net,
        }
    }

    fn details(r: &StakerRecord) -> DelegatorDetails {
        let network = NetworkProfile::fuji();
        let avax = network.avax_asset_id.to_string();
        DelegatorDetails::from_record(Ctx::new(&network, &avax), r, 150)
    }

    #[test]
    fn an_active_delegator_estimates_the_potential_reward_and_its_split() {
        let d = details(&delegator(Some(1_626_765_523), false, 0, 0));
        assert_eq!(d.delegation_status, "active");
        assert_eq!(d.estimated_gross_reward.as_deref(), Some("1626765523"));
        // The validator's 2 % is rounded up: 1,626,765,523 · 0.98 = 1,594,230,212.54.
        assert_eq!(d.estimated_net_reward.as_deref(), Some("1594230212"));
        assert_eq!(d.delegation_fee, "32535311");
        assert!(d.gross_reward.is_none() && d.net_reward.is_none());
    }

    #[test]
    fn a_completed_delegator_is_paid_net_of_its_validators_fee() {
        // Indexed while current: the gross is the node's potential reward.
        let d = details(&delegator(
            Some(1_626_765_523),
            true,
            1_594_230_212,
            1_594_230_212,
        ));
        assert_eq!(d.gross_reward.as_deref(), Some("1626765523"));
        assert_eq!(d.net_reward.as_deref(), Some("1594230212"));
        assert_eq!(d.delegation_fee, "32535311");
        assert!(d.estimated_gross_reward.is_none());
    }
}
