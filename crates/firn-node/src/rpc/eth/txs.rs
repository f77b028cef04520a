//! Transaction and account methods: sending and finding transactions, balances, nonces,
//! code, storage, calls and gas estimates. Account state is read at the head or at any of the
//! last [`STATE_HISTORY`](firn_evm::history::STATE_HISTORY) blocks (as a geth full node keeps them); an older block is answered
//! with geth's "historical state … is not available". Gas is estimated at the head.

use std::sync::Arc;

use alloy_eips::eip2718::Encodable2718;
use alloy_primitives::{B256, Bytes, U256};
use firn_evm::{Block, SignedTx};
use firn_rpc::EthServer;
use firn_rpc::methods::eth::{Quantity, Receipt, Transaction};

use super::blocks::find_block;
use super::params::{Addr, BlockId, BlockTag, CallArgs, Hash, HexBytes, decode_hash};
use super::shapes::{receipt_json, tx_json};
use super::{EthError, State};

/// Registers this module's methods.
pub fn register(s: EthServer<State>) -> EthServer<State> {
    s.method("eth_sendRawTransaction", send_raw_transaction)
        .method("eth_getTransactionByHash", get_transaction_by_hash)
        .method(
            "eth_getTransactionByBlockNumberAndIndex",
            get_transaction_by_block_number_and_index,
        )
        .method(
            "eth_getTransactionByBlockHashAndIndex",
            get_transaction_by_block_hash_and_index,
        )
        .method("eth_getRawTransactionByHash", get_raw_transaction_by_hash)
        .method("debug_getRawTransaction", get_raw_transaction_by_hash)
        .method(
            "eth_getRawTransactionByBlockNumberAndIndex",
            get_raw_transaction_by_block_number_and_index,
        )
        .method(
            "eth_getRawTransactionByBlockHashAndIndex",
            get_raw_transaction_by_block_hash_and_index,
        )
        .method("eth_getTransactionReceipt", get_transaction_receipt)
        .method("eth_getTransactionCount", get_transaction_count)
        .method("eth_getBalance", get_balance)
        .method("eth_getCode", get_code)
        .method("eth_getStorageAt", get_storage_at)
        .method("eth_call", call)
        .method("eth_estimateGas", estimate_gas)
        .method("eth_accounts", accounts)
}

/// The block whose state `id` names: `None` for the head (latest, pending or its number),
/// else a block whose state is kept; "header not found" for no block, geth's "historical
/// state … is not available" for one older than the kept history.
pub(super) fn state_block(node: &State, id: Option<BlockId>) -> Result<Option<u64>, EthError> {
    let id = id.unwrap_or(BlockId::Tag(BlockTag::Latest));
    if matches!(id, BlockId::Tag(BlockTag::Latest | BlockTag::Pending)) {
        return Ok(None);
    }
    let block = find_block(node, id).ok_or_else(|| EthError::server("header not found"))?;
    let number = block.header.number;
    if number == node.chain.height() {
        return Ok(None);
    }
    if node.chain.has_state_at(number) {
        return Ok(Some(number));
    }
    Err(EthError::server(format!(
        "historical state {:#x} is not available",
        block.header.state_root
    )))
}

/// Checks that `id` names the head (or pending): what only the head's state answers.
fn head_state(node: &State, id: Option<BlockId>) -> Result<(), EthError> {
    match state_block(node, id)? {
        None => Ok(()),
        Some(n) => {
            let root = node
                .chain
                .block_by_number(n)
                .map(|b| b.header.state_root)
                .unwrap_or_default();
            Err(EthError::server(format!(
                "historical state {root:#x} is not available"
            )))
        }
    }
}

/// A read at `at`, or the head's; geth's error if the state went meanwhile.
fn read_at<T>(
    at: Option<u64>,
    head: impl FnOnce() -> T,
    past: impl FnOnce(u64) -> Option<T>,
) -> Result<T, EthError> {
    match at {
        None => Ok(head()),
        Some(n) => past(n).ok_or_else(|| {
            EthError::server(format!("historical state at block {n} is not available"))
        }),
    }
}

/// `eth_sendRawTransaction [bytes]` → the tx hash.
async fn send_raw_transaction(node: State, (raw,): (HexBytes,)) -> Result<B256, EthError> {
    let hash = node.on_chain(move |c| c.submit_raw_tx(&raw.0)).await?;
    node.wake();
    Ok(hash)
}

/// `eth_getTransactionByHash [hash]` → the tx (pooled or mined), or null.
async fn get_transaction_by_hash(
    node: State,
    (hash,): (Hash,),
) -> Result<Option<Transaction>, EthError> {
    Ok(node.chain.transaction(&hash.0).map(|found| {
        let at = found.block.as_ref().map(|(b, i)| (&**b, *i));
        tx_json(&found.tx, at)
    }))
}

/// The tx at `index` of the block `id` names, with its block.
fn at_position(node: &State, id: BlockId, index: Quantity) -> Option<(Arc<Block>, usize)> {
    let block = find_block(node, id)?;
    let i = usize::try_from(index.0)
        .ok()
        .filter(|i| *i < block.txs.len())?;
    Some((block, i))
}

/// `eth_getTransactionByBlockNumberAndIndex [block, index]` → the tx, or null.
async fn get_transaction_by_block_number_and_index(
    node: State,
    (tag, index): (BlockTag, Quantity),
) -> Result<Option<Transaction>, EthError> {
    Ok(
        at_position(&node, BlockId::Tag(tag), index)
            .map(|(b, i)| tx_json(&b.txs[i], Some((&b, i)))),
    )
}

/// `eth_getTransactionByBlockHashAndIndex [hash, index]` → the tx, or null.
async fn get_transaction_by_block_hash_and_index(
    node: State,
    (hash, index): (Hash, Quantity),
) -> Result<Option<Transaction>, EthError> {
    Ok(at_position(&node, BlockId::Hash(hash.0), index)
        .map(|(b, i)| tx_json(&b.txs[i], Some((&b, i)))))
}

/// A tx's EIP-2718 encoding; geth answers `0x` for a tx it does not have.
fn raw(tx: Option<&SignedTx>) -> Bytes {
    tx.map(|t| Bytes::from(t.envelope.encoded_2718()))
        .unwrap_or_default()
}

/// `eth_getRawTransactionByHash [hash]` → its encoding (pooled or mined), or `0x`.
async fn get_raw_transaction_by_hash(node: State, (hash,): (Hash,)) -> Result<Bytes, EthError> {
    Ok(raw(node.chain.transaction(&hash.0).as_ref().map(|f| &f.tx)))
}

/// `eth_getRawTransactionByBlockNumberAndIndex [block, index]` → its encoding, or `0x`.
async fn get_raw_transaction_by_block_number_and_index(
    node: State,
    (tag, index): (BlockTag, Quantity),
) -> Result<Bytes, EthError> {
    let at = at_position(&node, BlockId::Tag(tag), index);
    Ok(raw(at.as_ref().map(|(b, i)| &b.txs[*i])))
}

/// `eth_getRawTransactionByBlockHashAndIndex [hash, index]` → its encoding, or `0x`.
async fn get_raw_transaction_by_block_hash_and_index(
    node: State,
    (hash, index): (Hash, Quantity),
) -> Result<Bytes, EthError> {
    let at = at_position(&node, BlockId::Hash(hash.0), index);
    Ok(raw(at.as_ref().map(|(b, i)| &b.txs[*i])))
}

/// `eth_getTransactionReceipt [hash]` → the receipt of a mined tx, or null.
async fn get_transaction_receipt(
    node: State,
    (hash,): (Hash,),
) -> Result<Option<Receipt>, EthError> {
    let Some((block, i)) = node.chain.mined(&hash.0) else {
        return Ok(None);
    };
    let logs: Vec<_> = firn_evm::block_logs(&block, None)
        .into_iter()
        .filter(|l| l.tx_index == i)
        .collect();
    Ok(Some(receipt_json(&block, i, &logs)))
}

/// `eth_getTransactionCount [address, block]` → the nonce (`pending` counts pooled txs).
async fn get_transaction_count(
    node: State,
    (addr, id): (Addr, Option<BlockId>),
) -> Result<Quantity, EthError> {
    if id == Some(BlockId::Tag(BlockTag::Pending)) {
        return Ok(Quantity(node.chain.pending_nonce(&addr.0)));
    }
    let at = state_block(&node, id)?;
    let c = &node.chain;
    read_at(at, || c.nonce(&addr.0), |n| c.nonce_at(&addr.0, n)).map(Quantity)
}

/// `eth_getBalance [address, block]`.
async fn get_balance(node: State, (addr, id): (Addr, Option<BlockId>)) -> Result<U256, EthError> {
    let at = state_block(&node, id)?;
    let c = &node.chain;
    read_at(at, || c.balance(&addr.0), |n| c.balance_at(&addr.0, n))
}

/// `eth_getCode [address, block]`.
async fn get_code(node: State, (addr, id): (Addr, Option<BlockId>)) -> Result<Bytes, EthError> {
    let at = state_block(&node, id)?;
    let c = &node.chain;
    read_at(at, || c.code(&addr.0), |n| c.code_at(&addr.0, n))
}

/// `eth_getStorageAt [address, slot, block]` → the 32-byte value; the slot as geth reads it
/// (up to 32 bytes of hex, leading zeros allowed).
async fn get_storage_at(
    node: State,
    (addr, slot, id): (Addr, String, Option<BlockId>),
) -> Result<B256, EthError> {
    let at = state_block(&node, id)?;
    let (slot, _) = decode_hash(&slot)
        .map_err(|e| EthError::server(format!("unable to decode storage key: {e}")))?;
    let slot = U256::from_be_bytes(slot.0);
    let c = &node.chain;
    let value = read_at(
        at,
        || c.storage(&addr.0, slot),
        |n| c.storage_at(&addr.0, slot, n),
    )?;
    Ok(B256::from(value))
}

/// `eth_call [call, block]` → the return data; a revert is error 3 with its data.
async fn call(node: State, (args, id): (CallArgs, Option<BlockId>)) -> Result<Bytes, EthError> {
    let at = state_block(&node, id)?;
    node.on_chain(move |c| c.call_at(&args.0, at)).await
}

/// `eth_estimateGas [call, block?]` → the gas limit needed.
async fn estimate_gas(
    node: State,
    (args, id): (CallArgs, Option<BlockId>),
) -> Result<Quantity, EthError> {
    head_state(&node, id)?;
    let gas = node.on_chain(move |c| c.estimate_gas(&args.0)).await?;
    Ok(Quantity(gas))
}

/// `eth_accounts` → the impersonated accounts (the node holds no keys).
async fn accounts(node: State, (): ()) -> Result<Vec<alloy_primitives::Address>, EthError> {
    Ok(node.impersonation.accounts())
}
