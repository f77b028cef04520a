//! The block and tx methods of `platform`: `getBlock`, `getBlockByHeight`, `getTx`,
//! `getTxStatus` and `issueTx`, in AvalancheGo's shapes and error texts.

use std::sync::Arc;

use firn_core::encoding::Encoding;
use firn_core::pchain::json::{block_to_json, tx_to_json};
use firn_devnet::vm::TxStatus as ChainTxStatus;
use firn_rpc::methods::platform::{
    BlockReply, Encoded, GetBlockByHeightParams, GetBlockParams, IssueTxParams, TxIdReply,
    TxParams, TxReply, TxStatus, TxStatusReply,
};

use super::{MethodError, Node, encoding};

type N = Arc<Node>;

fn block_reply(node: &Node, block: &firn_core::pchain::Block, enc: Encoding) -> BlockReply {
    let block = match enc.encode_bytes(&block.bytes()) {
        Some(s) => Encoded::Text(s),
        None => Encoded::Json(block_to_json(&node.json, block)),
    };
    BlockReply {
        block,
        encoding: enc.as_str().to_owned(),
    }
}

/// `platform.getBlock` `{blockID, encoding}` → `{block, encoding}`.
pub(super) async fn get_block(node: N, args: GetBlockParams) -> Result<BlockReply, MethodError> {
    let enc = encoding(args.encoding.as_deref())?;
    let b = node
        .chain
        .block_by_id(&args.block_id)
        .ok_or(MethodError::BlockNotFound(args.block_id))?;
    Ok(block_reply(&node, &b.block, enc))
}

/// `platform.getBlockByHeight` `{height, encoding}` → `{block, encoding}`.
pub(super) async fn get_block_by_height(
    node: N,
    args: GetBlockByHeightParams,
) -> Result<BlockReply, MethodError> {
    let enc = encoding(args.encoding.as_deref())?;
    let b = node
        .chain
        .block_by_height(args.height)
        .ok_or(MethodError::BlockAtHeightNotFound(args.height))?;
    Ok(block_reply(&node, &b.block, enc))
}

/// `platform.getTx` `{txID, encoding}` → `{tx, encoding}`.
pub(super) async fn get_tx(node: N, args: TxParams) -> Result<TxReply, MethodError> {
    let enc = encoding(args.encoding.as_deref())?;
    let info = node.chain.tx(&args.tx_id).ok_or(MethodError::TxNotFound)?;
    let tx = match enc.encode_bytes(&firn_core::codec::to_bytes(&info.tx)) {
        Some(s) => Encoded::Text(s),
        None => Encoded::Json(tx_to_json(&node.json, &info.tx)),
    };
    Ok(TxReply {
        tx,
        encoding: enc.as_str().to_owned(),
    })
}

/// `platform.getTxStatus` `{txID}` → `{status}` (+ `reason` when dropped).
pub(super) async fn get_tx_status(node: N, args: TxParams) -> Result<TxStatusReply, MethodError> {
    let (status, reason) = match node.chain.tx_status(&args.tx_id) {
        ChainTxStatus::Committed => (TxStatus::Committed, None),
        ChainTxStatus::Aborted => (TxStatus::Aborted, None),
        ChainTxStatus::Processing => (TxStatus::Processing, None),
        ChainTxStatus::Dropped(reason) => (TxStatus::Dropped, Some(reason)),
        ChainTxStatus::Unknown => (TxStatus::Unknown, None),
    };
    Ok(TxStatusReply { status, reason })
}

/// `platform.issueTx` `{tx, encoding}` → `{txID}`; wakes the block producer.
pub(super) async fn issue_tx(node: N, args: IssueTxParams) -> Result<TxIdReply, MethodError> {
    let enc = encoding(args.encoding.as_deref())?;
    let bytes = enc
        .decode_bytes(&args.tx)
        .map_err(|e| MethodError::TxDecoding(e.to_string()))?;
    let tx_id = node
        .chain
        .issue_tx_bytes(&bytes)
        .map_err(MethodError::Issue)?;
    node.wake_producer();
    Ok(TxIdReply { tx_id })
}
