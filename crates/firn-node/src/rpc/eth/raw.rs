//! geth's raw debug methods: `debug_getRawHeader`, `debug_getRawBlock` and
//! `debug_getRawReceipts` (the consensus encodings of a block's parts; `debug_getRawTransaction`
//! is `eth_getRawTransactionByHash`'s function, in [`super::txs`]).
//!
//! As geth: a number past the head answers `0x` (or `null` for receipts), an unknown hash an
//! error naming it the way Go's `%d` prints a hash.

use std::sync::Arc;

use alloy_eips::eip2718::Encodable2718;
use alloy_primitives::{B256, Bytes};
use firn_evm::Block;
use firn_rpc::EthServer;

use super::blocks::find_block;
use super::params::BlockId;
use super::{EthError, State};

/// Registers this module's methods.
pub fn register(s: EthServer<State>) -> EthServer<State> {
    s.method("debug_getRawHeader", get_raw_header)
        .method("debug_getRawBlock", get_raw_block)
        .method("debug_getRawReceipts", get_raw_receipts)
}

/// A hash as Go's `%d` prints `common.Hash`: its bytes in decimal, in brackets.
fn go_decimal(hash: &B256) -> String {
    let bytes: Vec<String> = hash.iter().map(u8::to_string).collect();
    format!("[{}]", bytes.join(" "))
}

/// The block `id` names: `Ok(None)` for a number past the head, an error naming an unknown
/// hash (`what` is "header" or "block").
fn lookup(node: &State, id: BlockId, what: &str) -> Result<Option<Arc<Block>>, EthError> {
    match (find_block(node, id), id) {
        (Some(b), _) => Ok(Some(b)),
        (None, BlockId::Hash(h)) => Err(EthError::server(format!(
            "{what} #{} not found",
            go_decimal(&h)
        ))),
        (None, BlockId::Tag(_)) => Ok(None),
    }
}

/// `debug_getRawHeader [block]` → the header's RLP.
async fn get_raw_header(node: State, (id,): (BlockId,)) -> Result<Bytes, EthError> {
    Ok(lookup(&node, id, "header")?
        .map(|b| Bytes::from(b.header.rlp()))
        .unwrap_or_default())
}

/// `debug_getRawBlock [block]` → the block's RLP.
async fn get_raw_block(node: State, (id,): (BlockId,)) -> Result<Bytes, EthError> {
    Ok(lookup(&node, id, "block")?
        .map(|b| Bytes::from(b.rlp()))
        .unwrap_or_default())
}

/// `debug_getRawReceipts [block]` → each receipt's EIP-2718 encoding; `[]` for an unknown
/// hash, `null` past the head.
async fn get_raw_receipts(node: State, (id,): (BlockId,)) -> Result<Option<Vec<Bytes>>, EthError> {
    let block = match (find_block(&node, id), id) {
        (Some(b), _) => b,
        (None, BlockId::Hash(_)) => return Ok(Some(Vec::new())),
        (None, BlockId::Tag(_)) => return Ok(None),
    };
    Ok(Some(
        block
            .receipts
            .iter()
            .map(|r| Bytes::from(r.envelope().encoded_2718()))
            .collect(),
    ))
}
