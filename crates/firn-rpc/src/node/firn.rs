//! `firn.*` on `/ext/firn`: firn's own methods for tests and tooling, with the avalanche
//! envelope. They move the devnet's clock and build blocks on demand.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::{Value, json};

use super::{Node, NodeError, RpcResult};
use crate::avajson::u64_string;
use crate::{AvaServer, AvaService};

type N = Arc<Node>;

/// The `firn` service on its own server.
pub fn server(node: N) -> AvaServer<N> {
    AvaServer::new(node).service(
        AvaService::new("firn")
            .method("getTime", get_time)
            .method("advanceTime", advance_time)
            .method("setTime", set_time)
            .method("buildBlock", build_block),
    )
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
