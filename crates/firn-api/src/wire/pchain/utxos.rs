//! P-Chain UTXOs (`PChainUtxo`) and their lists.

use firn_store::rows::pchain::PUtxoRecord;
use serde::Serialize;
use utoipa::ToSchema;

use super::{AssetAmount, Ctx, PrimaryNetworkChainInfo};

/// A P-Chain UTXO (`PChainUtxo`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PChainUtxo {
    /// Owners.
    pub addresses: Vec<String>,
    /// Asset and amount.
    pub asset: AssetAmount,
    /// Chain it is consumed on.
    pub consumed_on_chain_id: String,
    /// Chain it was created on.
    pub created_on_chain_id: String,
    /// UTXO ID.
    pub utxo_id: String,
    /// Amount.
    pub amount: String,
    /// Asset ID.
    pub asset_id: String,
    /// Creating block height.
    pub block_number: String,
    /// Creating block time.
    pub block_timestamp: u64,
    /// Output index.
    pub output_index: u32,
    /// Creating transaction.
    pub tx_hash: String,
    /// `STAKE` or `TRANSFER`.
    pub utxo_type: String,
    /// Spending transaction.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consuming_tx_hash: Option<String>,
    /// Encoded UTXO, hex.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub utxo_bytes: Option<String>,
    /// Spending block height.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consuming_block_number: Option<String>,
    /// Spending block time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consuming_block_timestamp: Option<u64>,
    /// Platform locktime.
    pub platform_locktime: u64,
    /// Reward kind of reward UTXOs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reward_type: Option<String>,
    /// Stakeable locktime.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stakeable_locktime: Option<u64>,
    /// Whether it is staked.
    pub staked: bool,
    /// Signatures needed.
    pub threshold: u32,
    /// Staking end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub utxo_end_timestamp: Option<u64>,
    /// Staking start.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub utxo_start_timestamp: Option<u64>,
}

impl PChainUtxo {
    /// From a stored UTXO.
    pub fn from_record(ctx: Ctx<'_>, r: &PUtxoRecord) -> Self {
        let u = &r.utxo;
        Self {
            addresses: ctx.addresses(&u.addresses),
            asset: ctx.amount(u.asset_id, u.amount),
            consumed_on_chain_id: ctx.chain(&u.consumed_on_chain),
            created_on_chain_id: ctx.chain(&u.created_on_chain),
            utxo_id: u.utxo_id.to_string(),
            amount: u.amount.to_string(),
            asset_id: ctx.asset(&u.asset_id),
            block_number: r.height.to_string(),
            block_timestamp: r.timestamp,
            output_index: u.output_index,
            tx_hash: u.tx_hash.to_string(),
            utxo_type: u.utxo_type.as_str().to_owned(),
            consuming_tx_hash: r.consumed.map(|c| c.tx_hash.to_string()),
            utxo_bytes: (!u.bytes.is_empty()).then(|| format!("0x{}", hex::encode(&u.bytes))),
            consuming_block_number: r.consumed.map(|c| c.height.to_string()),
            consuming_block_timestamp: r.consumed.map(|c| c.timestamp),
            platform_locktime: u.locktime,
            reward_type: u.reward_type.map(|t| t.as_str().to_owned()),
            stakeable_locktime: u.stakeable_locktime,
            staked: u.staked,
            threshold: u.threshold,
            utxo_end_timestamp: u.end_ts,
            utxo_start_timestamp: u.start_ts,
        }
    }
}

/// A page of P-Chain UTXOs (`ListPChainUtxosResponse`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListPChainUtxosResponse {
    /// Token of the next page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// The UTXOs.
    pub utxos: Vec<PChainUtxo>,
    /// The chain and network.
    pub chain_info: PrimaryNetworkChainInfo,
}
