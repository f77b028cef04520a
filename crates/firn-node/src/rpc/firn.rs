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
use firn_core::warp::acp118::SignatureRequest;
use firn_rpc::avajson::Uint64;
use firn_rpc::methods::NoParams;
use firn_rpc::methods::firn::*;
use firn_rpc::{AvaServer, AvaService};

use super::{MethodError, Node};

type N = Arc<Node>;

/// The `firn` service on its own server.
pub fn server(node: N) -> AvaServer<N> {
    let mut service = AvaService::new("firn")
        .handle::<GetTime, _, _, _>(get_time)
        .handle::<AdvanceTime, _, _, _>(advance_time)
        .handle::<SetTime, _, _, _>(set_time)
        .handle::<BuildBlock, _, _, _>(build_block);
    if node.signers.is_some() {
        service = service.handle::<RequestWarpSignature, _, _, _>(request_warp_signature);
    }
    AvaServer::new(node).service(service)
}

/// `firn.getTime` → `{time, chainTime, height}`: the clock, the last block's time, the height.
async fn get_time(node: N, _: NoParams) -> Result<TimeReply, MethodError> {
    Ok(TimeReply {
        time: node.chain.clock().now(),
        chain_time: node.chain.timestamp(),
        height: node.chain.height(),
    })
}

/// Builds until idle on a blocking thread, the P-Chain then the X-Chain (whose imports may
/// take what the P-Chain just exported); the P-Chain's new heights.
async fn build(node: &N) -> Result<Vec<Uint64>, MethodError> {
    let chain = node.chain.clone();
    let xchain = node.xchain.clone();
    let blocks = tokio::task::spawn_blocking(move || {
        let blocks = chain.build_until_idle()?;
        if let Some(x) = xchain {
            x.build_until_idle()?;
        }
        Ok::<_, firn_devnet::DevnetError>(blocks)
    })
    .await
    .map_err(|e| MethodError::Build(e.to_string()))?
    .map_err(|e| MethodError::Build(e.to_string()))?;
    Ok(blocks.iter().map(|b| Uint64(b.block.height())).collect())
}

/// `firn.advanceTime` `{seconds}` → `{time, heights}`: moves the clock forward and builds
/// every block that is due (rewards, mempool).
async fn advance_time(node: N, args: SecondsParams) -> Result<ClockMovedReply, MethodError> {
    let time = node.chain.clock().advance(args.seconds);
    let heights = build(&node).await?;
    Ok(ClockMovedReply { time, heights })
}

/// `firn.setTime` `{time}` → `{time, heights}`: moves the clock to a Unix time (never back).
async fn set_time(node: N, args: TimeParams) -> Result<ClockMovedReply, MethodError> {
    let now = node.chain.clock().now();
    if args.time < now {
        return Err(MethodError::ClockBackwards {
            requested: args.time,
            now,
        });
    }
    let time = node.chain.clock().set(args.time);
    let heights = build(&node).await?;
    Ok(ClockMovedReply { time, heights })
}

/// `firn.buildBlock` → `{heights}`: builds every block due at the clock's time.
async fn build_block(node: N, _: NoParams) -> Result<HeightsReply, MethodError> {
    Ok(HeightsReply {
        heights: build(&node).await?,
    })
}

/// `firn.requestWarpSignature {nodeID, request}` → `{response}` | `{appError}` |
/// `{unreachable}`: one ACP-118 request to one devnet validator, as it would arrive over p2p.
async fn request_warp_signature(
    node: N,
    args: SignatureParams,
) -> Result<SignatureReply, MethodError> {
    let signers = node.signers.as_ref().ok_or(MethodError::InvalidArgument)?;
    let request = SignatureRequest::from_bytes(&args.request)
        .map_err(|e| MethodError::BadSignatureRequest(e.to_string()))?;
    match signers.request_signature(args.node_id, &request).await {
        Ok(response) => Ok(SignatureReply::Response(response.bytes())),
        Err(NetworkError::Refused { error, .. }) => Ok(SignatureReply::AppError(AppErrorReply {
            code: error.code,
            message: error.message,
        })),
        Err(e @ NetworkError::Unreachable(_)) => Ok(SignatureReply::Unreachable(e.to_string())),
        Err(e) => Err(MethodError::Signing(e.to_string())),
    }
}
