//! `info.*` on `/ext/info` (AvalancheGo's `api/info`).

use std::collections::BTreeMap;

use firn_core::ids::{Id, NodeId};
use serde::{Deserialize, Serialize};

use super::{NoParams, methods};
use crate::avajson::u32_string;

methods! {
    /// The network ID.
    GetNetworkId = "info.getNetworkID" (NoParams) -> NetworkIdReply;
    /// The network's name.
    GetNetworkName = "info.getNetworkName" (NoParams) -> NetworkNameReply;
    /// A chain's ID by alias.
    GetBlockchainId = "info.getBlockchainID" (AliasParams) -> BlockchainIdReply;
    /// This node's ID and BLS proof of possession.
    GetNodeId = "info.getNodeID" (NoParams) -> NodeIdReply;
    /// This node's version.
    GetNodeVersion = "info.getNodeVersion" (NoParams) -> NodeVersionReply;
    /// Whether a chain is bootstrapped.
    IsBootstrapped = "info.isBootstrapped" (ChainParams) -> BootstrappedReply;
}

/// `{alias}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct AliasParams {
    /// `P`, `X`, `C` or a chain ID.
    pub alias: String,
}

/// `{chain}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ChainParams {
    /// `P`, `X`, `C` or a chain ID.
    pub chain: String,
}

/// `{networkID}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct NetworkIdReply {
    /// The network ID.
    #[serde(rename = "networkID", with = "u32_string")]
    pub network_id: u32,
}

/// `{networkName}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NetworkNameReply {
    /// `mainnet`, `fuji`, `local`, `network-<id>`.
    #[serde(rename = "networkName")]
    pub network_name: String,
}

/// `{blockchainID}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockchainIdReply {
    /// The chain.
    #[serde(rename = "blockchainID")]
    pub blockchain_id: Id,
}

/// A BLS key and its proof of possession, `0x`-hex.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProofOfPossession {
    /// The public key.
    pub public_key: String,
    /// The proof.
    pub proof_of_possession: String,
}

/// `{nodeID, nodePOP}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeIdReply {
    /// The node.
    #[serde(rename = "nodeID")]
    pub node_id: NodeId,
    /// Its BLS key.
    #[serde(rename = "nodePOP")]
    pub node_pop: ProofOfPossession,
}

/// `info.getNodeVersion`'s reply.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeVersionReply {
    /// `avalanchego/1.x.y` (firn: `firn/<version>`).
    pub version: String,
    /// The database format.
    pub database_version: String,
    /// The RPC chain VM protocol version, a decimal string.
    pub rpc_protocol_version: String,
    /// The commit built.
    pub git_commit: String,
    /// Each VM's version.
    pub vm_versions: BTreeMap<String, String>,
}

/// `{isBootstrapped}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BootstrappedReply {
    /// Whether it is.
    #[serde(rename = "isBootstrapped")]
    pub is_bootstrapped: bool,
}
