//! `validators.getCurrentValidators` on `/ext/bc/<chain>/validators`, for chains whose subnet is
//! a permissioned subnet or an L1: raw JSON numbers, as subnet-evm serves it.

use std::sync::Arc;

use firn_core::ids::{Id, NodeId};
use serde::Deserialize;
use serde_json::json;

use super::{Node, RpcResult};
use crate::server::Endpoint;
use crate::{AvaServer, AvaService};

/// The state of one chain's validators endpoint: the node and the chain's subnet.
pub type ChainState = (Arc<Node>, Id);

/// The endpoint for `chain` (a cb58 chain ID), or `None` (404) when the chain is unknown or
/// belongs to the primary network.
pub fn endpoint(node: &Arc<Node>, chain: &str) -> Option<Arc<dyn Endpoint>> {
    let id: Id = chain.parse().ok()?;
    let subnet = node.chain.validated_by(&id)?;
    if subnet == Id::ZERO {
        return None;
    }
    let server = AvaServer::new((node.clone(), subnet)).service(
        AvaService::new("validators").method("getCurrentValidators", get_current_validators),
    );
    Some(Arc::new(server))
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Args {
    #[serde(rename = "nodeIDs")]
    node_ids: Vec<NodeId>,
}

/// `validators.getCurrentValidators` `{nodeIDs?}` → `{validators:[{validationID, nodeID,
/// weight, startTimestamp, isActive, isL1Validator, isConnected, uptimePercentage,
/// uptimeSeconds}]}`.
async fn get_current_validators((node, subnet): ChainState, args: Args) -> RpcResult {
    let now = node.chain.timestamp();
    let wanted = |n: &NodeId| args.node_ids.is_empty() || args.node_ids.contains(n);
    let mut out = Vec::new();
    for v in node.chain.current_validators(subnet, &[]) {
        let s = &v.validator;
        if !wanted(&s.node_id) {
            continue;
        }
        out.push(json!({
            "validationID": s.tx_id,
            "nodeID": s.node_id,
            "weight": s.weight,
            "startTimestamp": s.start_time,
            "isActive": true,
            "isL1Validator": false,
            "isConnected": true,
            "uptimePercentage": 100.0,
            "uptimeSeconds": now.saturating_sub(s.start_time),
        }));
    }
    for l in node.chain.l1_validators(subnet) {
        let v = &l.validator;
        if !wanted(&v.node_id) {
            continue;
        }
        out.push(json!({
            "validationID": v.validation_id,
            "nodeID": v.node_id,
            "weight": v.weight,
            "startTimestamp": v.start_time,
            "isActive": v.is_active(),
            "isL1Validator": true,
            "isConnected": true,
            "uptimePercentage": 100.0,
            "uptimeSeconds": now.saturating_sub(v.start_time),
        }));
    }
    Ok(json!({ "validators": out }))
}
