//! `info.*` on `/ext/info` (AvalancheGo's `api/info`).

use std::collections::BTreeMap;

use firn_core::ids::{Id, NodeId};
use serde::{Deserialize, Serialize};

use super::{NoParams, methods};
use crate::avajson::{float32_4dp, u32_string, u64_string};

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
    /// This node's peer-to-peer address.
    GetNodeIp = "info.getNodeIP" (NoParams) -> NodeIpReply;
    /// The peers this node is connected to.
    Peers = "info.peers" (PeersParams) -> PeersReply;
    /// The network upgrades' activation times.
    Upgrades = "info.upgrades" (NoParams) -> UpgradesReply;
    /// This node's uptime as the validators see it.
    Uptime = "info.uptime" (NoParams) -> UptimeReply;
    /// The ACPs open for a vote, with the validators' support.
    Acps = "info.acps" (NoParams) -> AcpsReply;
    /// The static fees of before Etna (deprecated by AvalancheGo).
    GetTxFee = "info.getTxFee" (NoParams) -> TxFeeReply;
    /// The VMs and fxs installed.
    GetVms = "info.getVMs" (NoParams) -> VmsReply;
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

/// `{ip}`: `host:port`, empty without a peer-to-peer listener.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeIpReply {
    /// The address.
    pub ip: String,
}

/// `{nodeIDs?}`: only these peers.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct PeersParams {
    /// The peers asked about (all without).
    #[serde(rename = "nodeIDs")]
    pub node_ids: Option<Vec<NodeId>>,
}

/// `{numPeers, peers}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PeersReply {
    /// How many.
    #[serde(with = "u64_string")]
    pub num_peers: u64,
    /// Each peer.
    pub peers: Vec<Peer>,
}

/// One peer (`peer.Info` and its benched chains).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Peer {
    /// Its address.
    pub ip: String,
    /// The address it claims.
    #[serde(rename = "publicIP")]
    pub public_ip: String,
    /// Its node ID.
    #[serde(rename = "nodeID")]
    pub node_id: NodeId,
    /// Its version.
    pub version: String,
    /// When it expects the next upgrade (Unix seconds).
    pub upgrade_time: u64,
    /// Last message sent to it (RFC 3339).
    pub last_sent: String,
    /// Last message received from it (RFC 3339).
    pub last_received: String,
    /// The uptime it sees for this node, percent.
    #[serde(with = "u32_string")]
    pub observed_uptime: u32,
    /// The subnets it tracks.
    pub tracked_subnets: Vec<Id>,
    /// The ACPs it supports.
    #[serde(rename = "supportedACPs")]
    pub supported_acps: Vec<u32>,
    /// The ACPs it objects to.
    #[serde(rename = "objectedACPs")]
    pub objected_acps: Vec<u32>,
    /// The chains it is benched on.
    pub benched: Vec<String>,
}

/// `upgrade.Config`: each upgrade's activation time (RFC 3339).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct UpgradesReply {
    pub apricot_phase1_time: String,
    pub apricot_phase2_time: String,
    pub apricot_phase3_time: String,
    pub apricot_phase4_time: String,
    /// The least P-Chain height Apricot Phase 4 blocks reference.
    #[serde(rename = "apricotPhase4MinPChainHeight")]
    pub apricot_phase4_min_p_chain_height: u64,
    pub apricot_phase5_time: String,
    pub apricot_phase_pre6_time: String,
    pub apricot_phase6_time: String,
    pub apricot_phase_post6_time: String,
    pub banff_time: String,
    pub cortina_time: String,
    /// The X-Chain's last linear vertex.
    #[serde(rename = "cortinaXChainStopVertexID")]
    pub cortina_x_chain_stop_vertex_id: Id,
    pub durango_time: String,
    pub etna_time: String,
    pub fortuna_time: String,
    pub granite_time: String,
    /// ACP-181's epoch length, in nanoseconds (a Go `time.Duration`).
    pub granite_epoch_duration: i64,
    pub helicon_time: String,
}

/// `{rewardingStakePercentage, weightedAveragePercentage}`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UptimeReply {
    /// The share of stake that sees this node above the uptime requirement.
    #[serde(with = "float32_4dp")]
    pub rewarding_stake_percentage: f32,
    /// The uptime the validators see, weighted by their stake.
    #[serde(with = "float32_4dp")]
    pub weighted_average_percentage: f32,
}

/// `{acps}`: the ACPs open for a vote, by number.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AcpsReply {
    /// Each ACP's tally.
    pub acps: BTreeMap<u32, Acp>,
}

/// One ACP's tally.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Acp {
    /// Stake for it.
    #[serde(with = "u64_string")]
    pub support_weight: u64,
    /// Who supports it.
    pub supporters: Vec<NodeId>,
    /// Stake against it.
    #[serde(with = "u64_string")]
    pub object_weight: u64,
    /// Who objects.
    pub objectors: Vec<NodeId>,
    /// Stake that did not say.
    #[serde(with = "u64_string")]
    pub abstain_weight: u64,
}

/// `info.getTxFee`'s static fees, nAVAX.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct TxFeeReply {
    #[serde(with = "u64_string")]
    pub tx_fee: u64,
    #[serde(with = "u64_string")]
    pub create_asset_tx_fee: u64,
    #[serde(with = "u64_string")]
    pub create_subnet_tx_fee: u64,
    #[serde(with = "u64_string")]
    pub transform_subnet_tx_fee: u64,
    #[serde(with = "u64_string")]
    pub create_blockchain_tx_fee: u64,
    #[serde(with = "u64_string")]
    pub add_primary_network_validator_fee: u64,
    #[serde(with = "u64_string")]
    pub add_primary_network_delegator_fee: u64,
    #[serde(with = "u64_string")]
    pub add_subnet_validator_fee: u64,
    #[serde(with = "u64_string")]
    pub add_subnet_delegator_fee: u64,
}

/// `{vms, fxs}`: each VM's aliases and each fx's name, by ID (cb58).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VmsReply {
    /// VM ID → its aliases.
    pub vms: BTreeMap<String, Vec<String>>,
    /// Fx ID → its name.
    pub fxs: BTreeMap<String, String>,
}
