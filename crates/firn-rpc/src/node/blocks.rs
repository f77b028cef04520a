//! The block and tx methods of `platform`: `getBlock`, `getBlockByHeight`, `getTx`,
//! `getTxStatus` and `issueTx`, in AvalancheGo's shapes and error texts.

use std::sync::Arc;

use firn_core::encoding::Encoding;
use firn_core::ids::Id;
use firn_core::pchain::json::{block_to_json, tx_to_json};
use firn_devnet::vm::TxStatus;
use serde::Deserialize;
use serde_json::{Value, json};

use super::platform::TxArg;
use super::{Node, NodeError, RpcResult, encoding};
use crate::avajson::u64_string;

type N = Arc<Node>;

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct GetBlockArgs {
    #[serde(rename = "blockID")]
    block_id: Id,
    encoding: Option<String>,
}

fn block_reply(node: &Node, block: &firn_core::pchain::Block, enc: Encoding) -> RpcResult {
    let body = match enc.encode_bytes(&block.bytes()) {
        Some(s) => Value::String(s),
        None => block_to_json(&node.json, block),
    };
    Ok(json!({ "block": body, "encoding": enc.as_str() }))
}

/// `platform.getBlock` `{blockID, encoding}` → `{block, encoding}`.
pub(super) async fn get_block(node: N, args: GetBlockArgs) -> RpcResult {
    let enc = encoding(args.encoding.as_deref())?;
    let b = node
        .chain
        .block_by_id(&args.block_id)
        .ok_or(NodeError::BlockNotFound(args.block_id))?;
    block_reply(&node, &b.block, enc)
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct GetBlockByHeightArgs {
    #[serde(with = "u64_string")]
    height: u64,
    encoding: Option<String>,
}

/// `platform.getBlockByHeight` `{height, encoding}` → `{block, encoding}`.
pub(super) async fn get_block_by_height(node: N, args: GetBlockByHeightArgs) -> RpcResult {
    let enc = encoding(args.encoding.as_deref())?;
    let b = node
        .chain
        .block_by_height(args.height)
        .ok_or(NodeError::BlockAtHeightNotFound(args.height))?;
    block_reply(&node, &b.block, enc)
}

/// `platform.getTx` `{txID, encoding}` → `{tx, encoding}`.
pub(super) async fn get_tx(node: N, args: TxArg) -> RpcResult {
    let enc = encoding(args.encoding.as_deref())?;
    let info = node.chain.tx(&args.tx_id).ok_or(NodeError::TxNotFound)?;
    let body = match enc.encode_bytes(&firn_core::codec::to_bytes(&info.tx)) {
        Some(s) => Value::String(s),
        None => tx_to_json(&node.json, &info.tx),
    };
    Ok(json!({ "tx": body, "encoding": enc.as_str() }))
}

/// `platform.getTxStatus` `{txID}` → `{status}` (+ `reason` when dropped).
pub(super) async fn get_tx_status(node: N, args: TxArg) -> RpcResult {
    Ok(match node.chain.tx_status(&args.tx_id) {
        TxStatus::Committed => json!({ "status": "Committed" }),
        TxStatus::Aborted => json!({ "status": "Aborted" }),
        TxStatus::Processing => json!({ "status": "Processing" }),
        TxStatus::Dropped(reason) => json!({ "status": "Dropped", "reason": reason }),
        TxStatus::Unknown => json!({ "status": "Unknown" }),
    })
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct IssueTxArgs {
    tx: String,
    encoding: Option<String>,
}

/// `platform.issueTx` `{tx, encoding}` → `{txID}`; wakes the block producer.
pub(super) async fn issue_tx(node: N, args: IssueTxArgs) -> RpcResult {
    let enc = encoding(args.encoding.as_deref())?;
    let bytes = enc
        .decode_bytes(&args.tx)
        .map_err(|e| NodeError::TxDecoding(e.to_string()))?;
    let id = node
        .chain
        .issue_tx_bytes(&bytes)
        .map_err(NodeError::Issue)?;
    node.wake_producer();
    Ok(json!({ "txID": id }))
}
