//! Network details (`GetNetworkDetailsResponse`): what the primary network's active validators
//! and delegators stake now, and what share of the supply that is.

use firn_store::rows::pchain::StakingTotals;
use serde::Serialize;
use utoipa::ToSchema;

/// Stake by AvalancheGo version (`StakingDistribution`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StakingDistribution {
    /// AvalancheGo version.
    pub version: String,
    /// Stake of the validators running it, nAVAX.
    pub amount_staked: String,
    /// How many validators run it.
    pub validator_count: u64,
}

/// The active validators (`ValidatorsDetails`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ValidatorsDetails {
    /// Active validators.
    pub validator_count: u64,
    /// Their own stake, nAVAX.
    pub total_amount_staked: String,
    /// The potential rewards of every active validation and delegation, nAVAX.
    pub estimated_annual_staking_reward: String,
    /// Empty: the node's RPC does not tell which version its peers run.
    pub staking_distribution_by_version: Vec<StakingDistribution>,
    /// Everything staked (validators and delegators) over the current supply.
    pub staking_ratio: String,
}

/// The active delegators (`DelegatorsDetails`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DelegatorsDetails {
    /// Active delegators.
    pub delegator_count: u64,
    /// Their stake, nAVAX.
    pub total_amount_staked: String,
}

/// `GetNetworkDetailsResponse`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GetNetworkDetailsResponse {
    /// The active validators.
    pub validator_details: ValidatorsDetails,
    /// The active delegators.
    pub delegator_details: DelegatorsDetails,
}

impl GetNetworkDetailsResponse {
    /// From the active stakers' totals and the current supply (nAVAX).
    pub fn new(totals: &StakingTotals, supply: u64) -> Self {
        let staked = totals.validator_weight + totals.delegator_weight;
        let ratio = if supply == 0 {
            0.0
        } else {
            staked as f64 / supply as f64
        };
        Self {
            validator_details: ValidatorsDetails {
                validator_count: totals.validators,
                total_amount_staked: totals.validator_weight.to_string(),
                estimated_annual_staking_reward: totals.potential_reward.to_string(),
                staking_distribution_by_version: Vec::new(),
                staking_ratio: ratio.to_string(),
            },
            delegator_details: DelegatorsDetails {
                delegator_count: totals.delegators,
                total_amount_staked: totals.delegator_weight.to_string(),
            },
        }
    }
}
