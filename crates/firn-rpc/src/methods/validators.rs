//! `validators.*` on `/ext/bc/<chain>/validators`, as subnet-evm serves it for chains of
//! permissioned subnets and L1s: plain JSON numbers.

use firn_core::ids::{Id, NodeId};
use serde::{Deserialize, Serialize};

use super::methods;

methods! {
    /// The chain's subnet's current validators.
    GetCurrentValidators = "validators.getCurrentValidators" (NodeIdsParams) -> ChainValidatorsReply;
}

/// `{nodeIDs}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct NodeIdsParams {
    /// Only these nodes (all when empty).
    #[serde(rename = "nodeIDs")]
    pub node_ids: Vec<NodeId>,
}

/// One validator as the chain sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChainValidator {
    /// The validation ID (a permissioned subnet validator's: its tx ID).
    #[serde(rename = "validationID")]
    pub validation_id: Id,
    /// The node.
    #[serde(rename = "nodeID")]
    pub node_id: NodeId,
    /// Its weight.
    pub weight: u64,
    /// Unix start.
    pub start_timestamp: u64,
    /// Active (an L1 validator with balance left).
    pub is_active: bool,
    /// An L1 validator, not a permissioned subnet's.
    #[serde(rename = "isL1Validator")]
    pub is_l1_validator: bool,
    /// Whether the chain sees it connected.
    pub is_connected: bool,
    /// Uptime, percent.
    pub uptime_percentage: f64,
    /// Uptime, seconds.
    pub uptime_seconds: u64,
}

/// `{validators}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChainValidatorsReply {
    /// The validators.
    pub validators: Vec<ChainValidator>,
}
