//! Primary-network blocks (`PrimaryNetworkBlock`).

use firn_store::rows::pchain::PBlockRecord;
use serde::Serialize;
use utoipa::ToSchema;

use super::PrimaryNetworkChainInfo;

/// Snowman++ proposer of a block.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProposerDetails {
    /// Proposervm block ID.
    pub proposer_id: String,
    /// Proposervm parent ID.
    pub proposer_parent_id: String,
    /// Proposing node.
    pub proposer_node_id: String,
    /// Referenced P-Chain height.
    pub proposer_p_chain_height: u64,
    /// Proposer time.
    pub proposer_timestamp: u64,
}

/// A primary-network block (`PrimaryNetworkBlock`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PrimaryNetworkBlock {
    /// Height.
    pub block_number: String,
    /// Block ID.
    pub block_hash: String,
    /// Parent ID.
    pub parent_hash: String,
    /// Time.
    pub block_timestamp: u64,
    /// Block type.
    pub block_type: String,
    /// Number of transactions.
    pub tx_count: u64,
    /// Transaction IDs.
    pub transactions: Vec<String>,
    /// Size.
    pub block_size_bytes: u64,
    /// Fees accrued by L1 validators.
    #[serde(
        rename = "l1ValidatorsAccruedFees",
        skip_serializing_if = "Option::is_none"
    )]
    pub l1_validators_accrued_fees: Option<u64>,
    /// Active L1 validators.
    #[serde(rename = "activeL1Validators", skip_serializing_if = "Option::is_none")]
    pub active_l1_validators: Option<u64>,
    /// AVAX supply after the block.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current_supply: Option<String>,
    /// Proposer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proposer_details: Option<ProposerDetails>,
}

impl From<&PBlockRecord> for PrimaryNetworkBlock {
    fn from(r: &PBlockRecord) -> Self {
        let b = &r.block;
        Self {
            block_number: b.height.to_string(),
            block_hash: b.hash.to_string(),
            parent_hash: b.parent_hash.to_string(),
            block_timestamp: b.timestamp,
            block_type: b.block_type.clone(),
            tx_count: r.tx_hashes.len() as u64,
            transactions: r.tx_hashes.iter().map(|h| h.to_string()).collect(),
            block_size_bytes: b.size_bytes,
            l1_validators_accrued_fees: b.l1_validators_accrued_fees,
            active_l1_validators: b.active_l1_validators,
            current_supply: b.current_supply.map(|s| s.to_string()),
            proposer_details: b.proposer.map(|p| ProposerDetails {
                proposer_id: p.id.to_string(),
                proposer_parent_id: p.parent_id.to_string(),
                proposer_node_id: p.node_id.to_string(),
                proposer_p_chain_height: p.pchain_height,
                proposer_timestamp: p.timestamp,
            }),
        }
    }
}

/// A page of blocks (`ListPrimaryNetworkBlocksResponse`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListPrimaryNetworkBlocksResponse {
    /// Token of the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// The blocks.
    pub blocks: Vec<PrimaryNetworkBlock>,
    /// The chain and network.
    pub chain_info: PrimaryNetworkChainInfo,
}
