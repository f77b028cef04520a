//! Paid staking rewards (`HistoricalReward`).

use firn_store::rows::pchain::RewardRecord;
use serde::Serialize;
use utoipa::ToSchema;

use super::{AssetAmount, Ctx};
use crate::wire::Money;

/// A reward amount with its price (`AssetWithPriceInfo`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AssetWithPriceInfo {
    /// The amount.
    #[serde(flatten)]
    pub amount: AssetAmount,
    /// Price from the configured table; absent without one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub historical_price: Option<Money>,
}

/// A paid staking reward (`HistoricalReward`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HistoricalReward {
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
    /// `VALIDATOR`, `DELEGATOR` or `VALIDATOR_FEE`.
    pub reward_type: String,
    /// Reward UTXO.
    pub utxo_id: String,
    /// Its output index.
    pub output_index: u32,
    /// The reward.
    pub reward: AssetWithPriceInfo,
    /// The paying transaction.
    pub reward_tx_hash: String,
}

impl HistoricalReward {
    /// From a stored reward, with an optional price.
    pub fn from_record(ctx: Ctx<'_>, r: &RewardRecord, price: Option<Money>) -> Self {
        let w = &r.reward;
        Self {
            addresses: ctx.addresses(&w.addresses),
            tx_hash: w.staking_tx_hash.to_string(),
            amount_staked: r.amount_staked.to_string(),
            node_id: r.node_id.to_string(),
            start_timestamp: r.start_ts,
            end_timestamp: r.end_ts,
            reward_type: w.reward_type.as_str().to_owned(),
            utxo_id: w.utxo_id.to_string(),
            output_index: w.output_index,
            reward: AssetWithPriceInfo {
                amount: ctx.amount(w.asset_id, w.amount),
                historical_price: price,
            },
            reward_tx_hash: r.reward_tx_hash.to_string(),
        }
    }
}

/// A page of rewards (`ListHistoricalRewardsResponse`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListHistoricalRewardsResponse {
    /// Token of the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// The rewards.
    pub historical_rewards: Vec<HistoricalReward>,
}
