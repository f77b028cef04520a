//! Transaction and account methods: sending and finding transactions, balances, nonces,
//! code, storage, calls and gas estimates. Account state is the head's; an older block is
//! answered with geth's "historical state … is not available".

use serde_json::Value;

use super::blocks::find_block;
use super::params::{Addr, BlockId, BlockTag, CallArgs, Hash, HexBytes, HexU256};
use super::shapes::{bytes_json, data, q, q256, receipt_json, tx_json};
use super::{EthError, EthResult, State};
use crate::EthServer;

/// Registers this module's methods.
pub fn register(s: EthServer<State>) -> EthServer<State> {
    s.method("eth_sendRawTransaction", send_raw_transaction)
        .method("eth_getTransactionByHash", get_transaction_by_hash)
        .method("eth_getTransactionReceipt", get_transaction_receipt)
        .method("eth_getTransactionCount", get_transaction_count)
        .method("eth_getBalance", get_balance)
        .method("eth_getCode", get_code)
        .method("eth_getStorageAt", get_storage_at)
        .method("eth_call", call)
        .method("eth_estimateGas", estimate_gas)
        .method("eth_accounts", accounts)
}

/// Checks that `id` names the head (or pending), whose state is the only one kept.
fn head_state(node: &State, id: Option<BlockId>) -> Result<(), EthError> {
    let id = id.unwrap_or(BlockId::Tag(BlockTag::Latest));
    if matches!(id, BlockId::Tag(BlockTag::Latest | BlockTag::Pending)) {
        return Ok(());
    }
    let block = find_block(node, id).ok_or_else(|| EthError::server("header not found"))?;
    if block.header.number == node.chain.height() {
        return Ok(());
    }
    Err(EthError::server(format!(
        "historical state {:#x} is not available",
        block.header.state_root
    )))
}

/// `eth_sendRawTransaction [bytes]` → the tx hash.
async fn send_raw_transaction(node: State, (raw,): (HexBytes,)) -> EthResult {
    let chain = node.chain.clone();
    let hash = tokio::task::spawn_blocking(move || chain.submit_raw_tx(&raw.0))
        .await
        .map_err(|e| EthError::server(e.to_string()))??;
    node.wake();
    Ok(Value::String(format!("{hash:#x}")))
}

/// `eth_getTransactionByHash [hash]` → the tx (pooled or mined), or null.
async fn get_transaction_by_hash(node: State, (hash,): (Hash,)) -> EthResult {
    Ok(match node.chain.transaction(&hash.0) {
        Some(found) => match &found.block {
            Some((b, i)) => tx_json(&found.tx, Some((b, *i))),
            None => tx_json(&found.tx, None),
        },
        None => Value::Null,
    })
}

/// `eth_getTransactionReceipt [hash]` → the receipt of a mined tx, or null.
async fn get_transaction_receipt(node: State, (hash,): (Hash,)) -> EthResult {
    let Some((block, i)) = node.chain.mined(&hash.0) else {
        return Ok(Value::Null);
    };
    let logs: Vec<_> = firn_evm::block_logs(&block, None)
        .into_iter()
        .filter(|l| l.tx_index == i)
        .collect();
    Ok(receipt_json(&block, i, &logs))
}

/// `eth_getTransactionCount [address, block]` → the nonce (`pending` counts pooled txs).
async fn get_transaction_count(node: State, (addr, id): (Addr, Option<BlockId>)) -> EthResult {
    if id == Some(BlockId::Tag(BlockTag::Pending)) {
        return Ok(q(node.chain.pending_nonce(&addr.0)));
    }
    head_state(&node, id)?;
    Ok(q(node.chain.nonce(&addr.0)))
}

/// `eth_getBalance [address, block]`.
async fn get_balance(node: State, (addr, id): (Addr, Option<BlockId>)) -> EthResult {
    head_state(&node, id)?;
    Ok(q256(node.chain.balance(&addr.0)))
}

/// `eth_getCode [address, block]`.
async fn get_code(node: State, (addr, id): (Addr, Option<BlockId>)) -> EthResult {
    head_state(&node, id)?;
    Ok(bytes_json(&node.chain.code(&addr.0)))
}

/// `eth_getStorageAt [address, slot, block]` → the 32-byte value.
async fn get_storage_at(
    node: State,
    (addr, slot, id): (Addr, HexU256, Option<BlockId>),
) -> EthResult {
    head_state(&node, id)?;
    let v = node.chain.storage(&addr.0, slot.0);
    Ok(data(&v.to_be_bytes::<32>()))
}

/// `eth_call [call, block]` → the return data; a revert is error 3 with its data.
async fn call(node: State, (args, id): (CallArgs, Option<BlockId>)) -> EthResult {
    head_state(&node, id)?;
    let chain = node.chain.clone();
    let out = tokio::task::spawn_blocking(move || chain.call(&args.0))
        .await
        .map_err(|e| EthError::server(e.to_string()))??;
    Ok(bytes_json(&out))
}

/// `eth_estimateGas [call, block?]` → the gas limit needed.
async fn estimate_gas(node: State, (args, id): (CallArgs, Option<BlockId>)) -> EthResult {
    head_state(&node, id)?;
    let chain = node.chain.clone();
    let gas = tokio::task::spawn_blocking(move || chain.estimate_gas(&args.0))
        .await
        .map_err(|e| EthError::server(e.to_string()))??;
    Ok(q(gas))
}

/// `eth_accounts` → `[]` (the node holds no keys).
async fn accounts(_: State, (): ()) -> EthResult {
    Ok(Value::Array(Vec::new()))
}
