//! `validators.getCurrentValidators` on `/ext/bc/<chain>/validators`, for chains whose subnet is
//! a permissioned subnet or an L1: raw JSON numbers, as subnet-evm serves it.

use std::sync::Arc;

use firn_core::ids::{Id, NodeId};
use firn_rpc::methods::validators::{
    ChainValidator, ChainValidatorsReply, GetCurrentValidators, NodeIdsParams,
};
use firn_rpc::server::Endpoint;
use firn_rpc::{AvaServer, AvaService};

use super::{MethodError, Node};

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
        AvaService::new("validators")
            .handle::<GetCurrentValidators, _, _, _>(get_current_validators),
    );
    Some(Arc::new(server))
}

/// `validators.getCurrentValidators` `{nodeIDs?}` → `{validators:[{validationID, nodeID,
/// weight, startTimestamp, isActive, isL1Validator, isConnected, uptimePercentage,
/// uptimeSeconds}]}`.
async fn get_current_validators(
    (node, subnet): ChainState,
    args: NodeIdsParams,
) -> Result<ChainValidatorsReply, MethodError> {
    let now = node.chain.timestamp();
    let wanted = |n: &NodeId| args.node_ids.is_empty() || args.node_ids.contains(n);
    let mut out = Vec::new();
    for v in node.chain.current_validators(subnet, &[]) {
        let s = &v.validator;
        if !wanted(&s.node_id) {
            continue;
        }
        out.push(ChainValidator {
            validation_id: s.tx_id,
            node_id: s.node_id,
            weight: s.weight,
            start_timestamp: s.start_time,
            is_active: true,
            is_l1_validator: false,
            is_connected: true,
            uptime_percentage: 100.0,
            uptime_seconds: now.saturating_sub(s.start_time),
        });
    }
    for l in node.chain.l1_validators(subnet) {
        let v = &l.validator;
        if !wanted(&v.node_id) {
            continue;
        }
        out.push(ChainValidator {
            validation_id: v.validation_id,
            node_id: v.node_id,
            weight: v.weight,
            start_timestamp: v.start_time,
            is_active: v.is_active(),
            is_l1_validator: true,
            is_connected: true,
            uptime_percentage: 100.0,
            uptime_seconds: now.saturating_sub(v.start_time),
        });
    }
    Ok(ChainValidatorsReply { validators: out })
}
