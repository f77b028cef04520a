//! EVM blocks (`EvmBlock`).

use firn_store::rows::evm::EvmBlockRecord;
use firn_store::types::U256;
use serde::Serialize;
use utoipa::ToSchema;

/// An EVM block (`EvmBlock`, also `GetEvmBlockResponse`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EvmBlock {
    /// EVM chain ID.
    pub chain_id: String,
    /// Number.
    pub block_number: String,
    /// Time.
    pub block_timestamp: u64,
    /// Hash.
    pub block_hash: String,
    /// Number of transactions.
    pub tx_count: u64,
    /// Base fee, wei.
    pub base_fee: String,
    /// Gas used.
    pub gas_used: String,
    /// Gas limit.
    pub gas_limit: String,
    /// Block gas cost.
    pub gas_cost: String,
    /// Parent hash.
    pub parent_hash: String,
    /// Fees paid, wei.
    pub fees_spent: String,
    /// Transactions up to and including this block.
    pub cumulative_transactions: String,
}

impl From<&EvmBlockRecord> for EvmBlock {
    fn from(r: &EvmBlockRecord) -> Self {
        let b = &r.block;
        Self {
            chain_id: r.chain_id.to_string(),
            block_number: b.number.to_string(),
            block_timestamp: b.timestamp,
            block_hash: b.hash.to_string(),
            tx_count: r.tx_count,
            base_fee: b.base_fee.unwrap_or(U256::ZERO).to_string(),
            gas_used: b.gas_used.to_string(),
            gas_limit: b.gas_limit.to_string(),
            gas_cost: b.block_gas_cost.unwrap_or(U256::ZERO).to_string(),
            parent_hash: b.parent_hash.to_string(),
            fees_spent: r.fees_spent.to_string(),
            cumulative_transactions: r.cumulative_txs.to_string(),
        }
    }
}

/// A page of EVM blocks (`ListEvmBlocksResponse`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListEvmBlocksResponse {
    /// Token of the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// Blocks, newest first.
    pub blocks: Vec<EvmBlock>,
}
