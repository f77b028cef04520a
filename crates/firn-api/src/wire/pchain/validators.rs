//! Validators (`ActiveValidatorDetails` | `PendingValidatorDetails` |
//! `CompletedValidatorDetails` | `RemovedValidatorDetails`) and pending rewards
//! (`PendingReward`). What a validator shows beyond its staking transaction is worked out
//! once, in [`ValidatorFacts`], which the routes also filter and sort by.

use firn_core::network::P_CHAIN_ID;
use firn_core::pchain::reward::{PERCENT_DENOMINATOR, delegator_reward, fee_percent_text};
use firn_store::rows::pchain::{
    DelegationTotals, StakerRecord, StakerStatus, ValidatorObservation,
};
use serde::Serialize;
use utoipa::ToSchema;

use super::{AssetAmount, Ctx};

/// Most weight a primary-network validator may carry, its stake and delegations together:
/// 3,000,000 AVAX on Mainnet and Fuji (AvalancheGo's `MaxValidatorStake`), in nAVAX.
pub const MAX_VALIDATOR_WEIGHT: u64 = 3_000_000 * 1_000_000_000;
/// Delegations may bring a validator's weight to this many times its own stake
/// (AvalancheGo's `MaxValidatorWeightFactor`).
pub const MAX_VALIDATOR_WEIGHT_FACTOR: u64 = 5;

/// What one validator shows at one moment, derived from its record, its delegations and the
/// node's last word on it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ValidatorFacts {
    /// Its status now.
    pub status: StakerStatus,
    /// Seconds left of its period (0 once ended).
    pub time_remaining: u64,
    /// nAVAX it may still receive in delegations: primary-network validators only.
    pub delegation_capacity: Option<u64>,
    /// Its delegation fee in millionths: primary-network validators only.
    pub fee_shares: Option<u32>,
    /// Uptime, percent × 10,000, as the node last measured it (0 when never observed).
    pub uptime: u32,
    /// Whether the node last saw it connected.
    pub connected: bool,
}

impl ValidatorFacts {
    /// The facts of validator `r` at `now`.
    pub fn of(
        r: &StakerRecord,
        delegations: &DelegationTotals,
        observation: Option<&ValidatorObservation>,
        now: u64,
    ) -> Self {
        let status = r.status(now);
        let open = matches!(status, StakerStatus::Active | StakerStatus::Pending);
        let s = &r.staker;
        let primary = s.subnet_id == P_CHAIN_ID;
        let capacity = || {
            let most = s
                .weight
                .saturating_mul(MAX_VALIDATOR_WEIGHT_FACTOR)
                .min(MAX_VALIDATOR_WEIGHT);
            let used = u128::from(s.weight) + delegations.open_amount;
            u64::try_from(u128::from(most).saturating_sub(used)).unwrap_or(0)
        };
        Self {
            status,
            time_remaining: if open {
                s.end_ts.saturating_sub(now)
            } else {
                0
            },
            delegation_capacity: primary.then(|| if open { capacity() } else { 0 }),
            fee_shares: primary.then_some(s.delegation_fee),
            uptime: observation.map_or(0, |o| o.uptime),
            connected: observation.is_some_and(|o| o.connected),
        }
    }

    /// Uptime in percent.
    pub fn uptime_percent(&self) -> f64 {
        f64::from(self.uptime) / 10_000.0
    }

    /// The delegation fee in percent.
    pub fn fee_percent(&self) -> Option<f64> {
        self.fee_shares
            .map(|s| s as f64 * 100.0 / PERCENT_DENOMINATOR as f64)
    }
}

/// Rewards of a validation: paid (`rewards`) or to come (`potentialRewards`) (`Rewards`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Rewards {
    /// The validator's own reward, nAVAX.
    pub validation_reward_amount: String,
    /// Its delegation fees, nAVAX.
    pub delegation_reward_amount: String,
    /// Who the rewards pay (paid rewards).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reward_addresses: Option<Vec<String>>,
    /// The paying transaction (paid rewards).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reward_tx_hash: Option<String>,
}

/// How the node sees the validator (`ValidatorHealthDetails`). firn reads whether the node is
/// connected to it; benching is not visible through the node's RPC, so it reads 0.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ValidatorHealthDetails {
    /// 100 when the node was connected to it at the last reading, else 0.
    pub reachability_percent: f64,
    /// Requests benched on the P-Chain.
    pub benched_p_chain_requests_percent: f64,
    /// Requests benched on the X-Chain.
    pub benched_x_chain_requests_percent: f64,
    /// Requests benched on the C-Chain.
    pub benched_c_chain_requests_percent: f64,
}

/// Where a validator runs (`Geolocation`): firn ships no IP geolocation database, so
/// validators carry `geolocation: null`, which the official file allows.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Geolocation {
    /// City.
    pub city: String,
    /// Country.
    pub country: String,
    /// ISO country code.
    pub country_code: String,
    /// Latitude.
    pub latitude: f64,
    /// Longitude.
    pub longitude: f64,
}

/// A validation of one node on one subnet; which fields appear depends on
/// `validationStatus`, as in the official `oneOf`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ValidatorDetails {
    /// Staking transaction.
    pub tx_hash: String,
    /// Node.
    pub node_id: String,
    /// Subnet validated.
    pub subnet_id: String,
    /// Stake (primary network) or weight (subnet), nAVAX.
    pub amount_staked: String,
    /// Delegation fee, percent (primary network).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delegation_fee: Option<String>,
    /// Start.
    pub start_timestamp: u64,
    /// End.
    pub end_timestamp: u64,
    /// Share of the subnet's active stake, percent (active).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stake_percentage: Option<f64>,
    /// Delegations: current ones (active), all (completed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delegator_count: Option<u64>,
    /// Their stake, nAVAX.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub amount_delegated: Option<String>,
    /// Uptime as the followed node measures it, percent (active).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uptime_performance: Option<f64>,
    /// nAVAX it may still receive in delegations (active primary-network validators).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delegation_capacity: Option<String>,
    /// Rewards to come (active).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub potential_rewards: Option<Rewards>,
    /// The node's view of it (active).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub validator_health: Option<ValidatorHealthDetails>,
    /// Always `null` when present (active): see [`Geolocation`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub geolocation: Option<Option<Geolocation>>,
    /// Rewards paid (completed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rewards: Option<Rewards>,
    /// The `RemoveSubnetValidatorTx` (removed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remove_tx_hash: Option<String>,
    /// Its time (removed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remove_timestamp: Option<u64>,
    /// `active`, `pending`, `completed` or `removed`.
    pub validation_status: String,
}

impl ValidatorDetails {
    /// Validator `r` with its facts; `subnet_stake` is the active validators' total weight on
    /// its subnet (for `stakePercentage`).
    pub fn from_record(
        ctx: Ctx<'_>,
        r: &StakerRecord,
        delegations: &DelegationTotals,
        facts: &ValidatorFacts,
        subnet_stake: u128,
    ) -> Self {
        let s = &r.staker;
        let active = facts.status == StakerStatus::Active;
        let completed = facts.status == StakerStatus::Completed;
        let (count, amount) = if active {
            (delegations.open_count, delegations.open_amount)
        } else {
            (delegations.count, delegations.amount)
        };
        let delegated = active || completed;
        let removed = r.ended_by.filter(|_| facts.status == StakerStatus::Removed);
        Self {
            tx_hash: r.tx_hash.to_string(),
            node_id: s.node_id.to_string(),
            subnet_id: ctx.chain(&s.subnet_id),
            amount_staked: s.weight.to_string(),
            delegation_fee: facts.fee_shares.map(fee_percent_text),
            start_timestamp: s.start_ts,
            end_timestamp: s.end_ts,
            stake_percentage: active.then(|| {
                if subnet_stake == 0 {
                    0.0
                } else {
                    s.weight as f64 * 100.0 / subnet_stake as f64
                }
            }),
            delegator_count: delegated.then_some(count),
            amount_delegated: delegated.then(|| amount.to_string()),
            uptime_performance: active.then(|| facts.uptime_percent()),
            delegation_capacity: facts
                .delegation_capacity
                .filter(|_| active)
                .map(|c| c.to_string()),
            potential_rewards: active.then(|| Rewards {
                validation_reward_amount: s.estimated_reward.unwrap_or(0).to_string(),
                delegation_reward_amount: delegations.open_fees.to_string(),
                reward_addresses: None,
                reward_tx_hash: None,
            }),
            validator_health: active.then_some(ValidatorHealthDetails {
                reachability_percent: if facts.connected { 100.0 } else { 0.0 },
                benched_p_chain_requests_percent: 0.0,
                benched_x_chain_requests_percent: 0.0,
                benched_c_chain_requests_percent: 0.0,
            }),
            geolocation: active.then_some(None),
            rewards: completed.then(|| Rewards {
                validation_reward_amount: r.net_reward.to_string(),
                delegation_reward_amount: r.gross_reward.saturating_sub(r.net_reward).to_string(),
                reward_addresses: Some(ctx.addresses(&s.reward_addresses)),
                reward_tx_hash: r.ended_by.map(|e| e.tx_hash.to_string()),
            }),
            remove_tx_hash: removed.map(|e| e.tx_hash.to_string()),
            remove_timestamp: removed.map(|e| e.timestamp),
            validation_status: facts.status.as_str().to_owned(),
        }
    }
}

/// A page of validators (`ListValidatorDetailsResponse`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListValidatorDetailsResponse {
    /// Token of the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// The validators.
    pub validators: Vec<ValidatorDetails>,
}

/// A reward a current staker stands to earn (`PendingReward`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PendingReward {
    /// Reward owners.
    pub addresses: Vec<String>,
    /// The staking transaction.
    pub tx_hash: String,
    /// Amount staked.
    pub amount_staked: String,
    /// Node.
    pub node_id: String,
    /// Stake start.
    pub start_timestamp: u64,
    /// Stake end.
    pub end_timestamp: u64,
    /// `VALIDATOR` or `DELEGATOR`.
    pub reward_type: String,
    /// Share of the staking period elapsed, percent.
    pub progress: f64,
    /// The reward if the period ends well: the node's potential reward, for a delegator
    /// less its validator's fee.
    pub estimated_reward: AssetAmount,
}

impl PendingReward {
    /// The pending reward of staker `r` at `now`.
    pub fn from_record(ctx: Ctx<'_>, r: &StakerRecord, now: u64) -> Self {
        let s = &r.staker;
        let (reward_type, amount) = if s.is_delegator {
            let split = delegator_reward(None, s.estimated_reward, s.delegation_fee);
            ("DELEGATOR", split.net)
        } else {
            ("VALIDATOR", s.estimated_reward.unwrap_or(0))
        };
        let period = s.end_ts.saturating_sub(s.start_ts);
        let elapsed = now.saturating_sub(s.start_ts).min(period);
        Self {
            addresses: ctx.addresses(&s.reward_addresses),
            tx_hash: r.tx_hash.to_string(),
            amount_staked: s.weight.to_string(),
            node_id: s.node_id.to_string(),
            start_timestamp: s.start_ts,
            end_timestamp: s.end_ts,
            reward_type: reward_type.to_owned(),
            progress: if period == 0 {
                100.0
            } else {
                elapsed as f64 * 100.0 / period as f64
            },
            estimated_reward: ctx.amount(ctx.network.avax_asset_id, amount),
        }
    }
}

/// A page of pending rewards (`ListPendingRewardsResponse`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListPendingRewardsResponse {
    /// Token of the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// The rewards.
    pub pending_rewards: Vec<PendingReward>,
}
