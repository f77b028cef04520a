//! Registered blockchains (`Blockchain`) and the chains an address has touched.

use firn_store::rows::pchain::BlockchainRecord;
use serde::Serialize;
use utoipa::ToSchema;

/// The chains one address has touched (`ChainAddressChainIdMap`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChainAddressChainIdMap {
    /// The address as sent.
    pub address: String,
    /// Blockchain IDs.
    pub blockchain_ids: Vec<String>,
}

/// `ChainAddressChainIdMapListResponse`.
#[derive(Debug, Serialize, ToSchema)]
pub struct ChainAddressChainIdMapListResponse {
    /// One entry per address.
    pub addresses: Vec<ChainAddressChainIdMap>,
}

/// A registered blockchain (`Blockchain`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Blockchain {
    /// Creating block time.
    pub create_block_timestamp: u64,
    /// Creating block height.
    pub create_block_number: String,
    /// Blockchain ID.
    pub blockchain_id: String,
    /// VM ID.
    pub vm_id: String,
    /// Subnet.
    pub subnet_id: String,
    /// Name.
    pub blockchain_name: String,
    /// EVM chain ID of an EVM chain; 0 for any other. The official file makes the field
    /// optional, but `@avalabs/avacloud-sdk` requires it, and 0 is no EVM chain's ID
    /// (EIP-155), so both kinds of client read "none".
    pub evm_chain_id: u64,
    /// Genesis: the parsed JSON object for EVM chains (what both official SDKs accept), the
    /// bytes as `0x` hex otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub genesis_data: Option<serde_json::Value>,
}

impl From<&BlockchainRecord> for Blockchain {
    fn from(r: &BlockchainRecord) -> Self {
        let c = &r.chain;
        let genesis = match serde_json::from_slice::<serde_json::Value>(&c.genesis) {
            Ok(v @ serde_json::Value::Object(_)) => v,
            _ => serde_json::Value::String(format!("0x{}", hex::encode(&c.genesis))),
        };
        Self {
            create_block_timestamp: r.timestamp,
            create_block_number: r.height.to_string(),
            blockchain_id: c.blockchain_id.to_string(),
            vm_id: c.vm_id.to_string(),
            subnet_id: c.subnet_id.to_string(),
            blockchain_name: c.name.clone(),
            evm_chain_id: c.evm_chain_id.unwrap_or(0),
            genesis_data: (!c.genesis.is_empty()).then_some(genesis),
        }
    }
}
