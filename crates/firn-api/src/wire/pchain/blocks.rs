//! Primary-network blocks (`PrimaryNetworkBlock`).

use std::collections::HashMap;

use firn_core::ids::Id;
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

impl PrimaryNetworkBlock {
    /// A `StandardBlock` without the P-Chain's fields: an X- or C-Chain block with the IDs of
    /// the transactions it lists.
    pub fn standard(
        height: u64,
        (hash, parent_hash): (String, String),
        timestamp: u64,
        size_bytes: u64,
        tx_count: u64,
        transactions: Vec<String>,
    ) -> Self {
        Self {
            block_number: height.to_string(),
            block_hash: hash,
            parent_hash,
            block_timestamp: timestamp,
            block_type: "StandardBlock".to_owned(),
            tx_count,
            transactions,
            block_size_bytes: size_bytes,
            l1_validators_accrued_fees: None,
            active_l1_validators: None,
            current_supply: None,
            proposer_details: None,
        }
    }

    /// Groups `(height, tx ID)` pairs by height, in the order given.
    pub fn txs_by_height(pairs: Vec<(u64, Id)>) -> HashMap<u64, Vec<String>> {
        let mut txs: HashMap<u64, Vec<String>> = HashMap::new();
        for (h, id) in pairs {
            txs.entry(h).or_default().push(id.to_string());
        }
        txs
    }
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
