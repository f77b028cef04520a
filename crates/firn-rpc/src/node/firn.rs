//! `firn.*` on `/ext/firn`: firn's own methods for tests and tooling, with the avalanche
//! envelope. They move the devnet's clock and build blocks on demand, and (on a node with
//! signers, [`Node::with_signers`]) answer ACP-118 signature requests for the devnet's
//! validators over HTTP, which AvalancheGo answers only over its p2p network:
//!
//! `firn.requestWarpSignature {"nodeID": "NodeID-…", "request": "0x<ACP-118 SignatureRequest
//! protobuf>"}` → exactly one of
//! - `{"response": "0x<ACP-118 SignatureResponse protobuf>"}`: the validator signed;
//! - `{"appError": {"code": 6, "message": "…"}}`: it refused (AvalancheGo's AppError);
//! - `{"unreachable": "NodeID-… is unreachable"}`: it is offline or unknown here.
//!
//! A validator made slow answers after its delay; a lying one answers a wrong signature.

use std::sync::Arc;

use firn_aggregator::{NetworkError, ValidatorNetwork};
use firn_core::ids::NodeId;
use firn_core::warp::acp118::SignatureRequest;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{Node, NodeError, RpcResult};
use crate::avajson::{hex_bytes, u64_string};
use crate::{AvaServer, AvaService};

type N = Arc<Node>;

/// The `firn` service on its own server.
pub fn server(node: N) -> AvaServer<N> {
    let mut service = AvaService::new("firn")
        .method("getTime", get_time)
        .method("advanceTime", advance_time)
        .method("setTime", set_time)
        .method("buildBlock", build_block);
    if node.signers.is_some() {
        service = service.method("requestWarpSignature", request_warp_signature);
    }
    AvaServer::new(node).service(service)
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Empty {}

/// `firn.getTime` → `{time, chainTime, height}`: the clock, the last block's time, the height.
async fn get_time(node: N, _: Empty) -> RpcResult {
    Ok(json!({
        "time": node.chain.clock().now().to_string(),
        "chainTime": node.chain.timestamp().to_string(),
        "height": node.chain.height().to_string(),
    }))
}

/// Builds until idle on a blocking thread; the new heights as strings.
async fn build(node: &N) -> Result<Vec<Value>, NodeError> {
    let chain = node.chain.clone();
    let blocks = tokio::task::spawn_blocking(move || chain.build_until_idle())
        .await
        .map_err(|e| NodeError::Build(e.to_string()))?
        .map_err(|e| NodeError::Build(e.to_string()))?;
    Ok(blocks
        .iter()
        .map(|b| Value::String(b.block.height().to_string()))
        .collect())
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Seconds {
    #[serde(with = "u64_string")]
    seconds: u64,
}

/// `firn.advanceTime` `{seconds}` → `{time, heights}`: moves the clock forward and builds
/// every block that is due (rewards, mempool).
async fn advance_time(node: N, args: Seconds) -> RpcResult {
    let time = node.chain.clock().advance(args.seconds);
    let heights = build(&node).await?;
    Ok(json!({ "time": time.to_string(), "heights": heights }))
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Time {
    #[serde(with = "u64_string")]
    time: u64,
}

/// `firn.setTime` `{time}` → `{time, heights}`: moves the clock to a Unix time (never back).
async fn set_time(node: N, args: Time) -> RpcResult {
    let now = node.chain.clock().now();
    if args.time < now {
        return Err(NodeError::ClockBackwards {
            requested: args.time,
            now,
        });
    }
    let time = node.chain.clock().set(args.time);
    let heights = build(&node).await?;
    Ok(json!({ "time": time.to_string(), "heights": heights }))
}

/// `firn.buildBlock` → `{heights}`: builds every block due at the clock's time.
async fn build_block(node: N, _: Empty) -> RpcResult {
    Ok(json!({ "heights": build(&node).await? }))
}

#[derive(Debug, Deserialize)]
struct SignatureArgs {
    #[serde(rename = "nodeID")]
    node_id: NodeId,
    #[serde(with = "hex_bytes")]
    request: Vec<u8>,
}

/// `firn.requestWarpSignature {nodeID, request}` → `{response}` | `{appError}` |
/// `{unreachable}`: one ACP-118 request to one devnet validator, as it would arrive over p2p.
async fn request_warp_signature(node: N, args: SignatureArgs) -> RpcResult {
    let signers = node.signers.as_ref().ok_or(NodeError::InvalidArgument)?;
    let request = SignatureRequest::from_bytes(&args.request)
        .map_err(|e| NodeError::BadSignatureRequest(e.to_string()))?;
    match signers.request_signature(args.node_id, &request).await {
        Ok(response) => Ok(json!({
            "response": format!("0x{}", hex::encode(response.bytes())),
        })),
        Err(NetworkError::Refused { error, .. }) => Ok(json!({
            "appError": { "code": error.code, "message": error.message },
        })),
        Err(e @ NetworkError::Unreachable(_)) => Ok(json!({ "unreachable": e.to_string() })),
        Err(e) => Err(NodeError::Signing(e.to_string())),
    }
}
