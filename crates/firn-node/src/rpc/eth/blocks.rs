//! Chain-level methods: identity, blocks, receipts, logs and fees.

use std::sync::Arc;

use alloy_primitives::{Address, B256, U256, keccak256};
use firn_evm::{BLACKHOLE, Block, LogFilter, SUGGESTED_TIP};
use firn_rpc::EthServer;
use firn_rpc::methods::eth::{FeeHistory, Header, Log, Quantity, Receipt};

use super::params::{BlockCount, BlockId, BlockTag, FilterArgs, Hash, HexBytes, Percentiles};
use super::shapes::{BlockJson, block_json, block_receipts_json, header_json, log_json};
use super::{EthError, MAX_FEE_HISTORY, MAX_LOG_RANGE, State};

/// Registers this module's methods.
pub fn register(s: EthServer<State>) -> EthServer<State> {
    s.method("eth_chainId", chain_id)
        .method("net_version", net_version)
        .method("net_listening", net_listening)
        .method("web3_clientVersion", client_version)
        .method("eth_syncing", syncing)
        .method("eth_blockNumber", block_number)
        .method("eth_getBlockByNumber", get_block_by_number)
        .method("eth_getBlockByHash", get_block_by_hash)
        .method("eth_getBlockReceipts", get_block_receipts)
        .method("eth_getHeaderByNumber", get_header_by_number)
        .method("eth_getHeaderByHash", get_header_by_hash)
        .method(
            "eth_getBlockTransactionCountByNumber",
            get_block_transaction_count_by_number,
        )
        .method(
            "eth_getBlockTransactionCountByHash",
            get_block_transaction_count_by_hash,
        )
        .method("eth_getUncleCountByBlockNumber", get_uncle_count_by_number)
        .method("eth_getUncleCountByBlockHash", get_uncle_count_by_hash)
        .method("eth_getUncleByBlockNumberAndIndex", get_uncle_by_number)
        .method("eth_getUncleByBlockHashAndIndex", get_uncle_by_hash)
        .method("eth_coinbase", coinbase)
        .method("eth_etherbase", coinbase)
        .method("net_peerCount", peer_count)
        .method("web3_sha3", sha3)
        .method("eth_getLogs", get_logs)
        .method("eth_gasPrice", gas_price)
        .method("eth_maxPriorityFeePerGas", max_priority_fee_per_gas)
        .method("eth_baseFee", base_fee)
        .method("eth_feeHistory", fee_history)
}

/// The height a tag names (pending = latest: blocks are built as soon as txs arrive).
pub fn height_of(node: &State, tag: BlockTag) -> u64 {
    match tag {
        BlockTag::Latest | BlockTag::Pending => node.chain.height(),
        BlockTag::Earliest => 0,
        BlockTag::Number(n) => n,
    }
}

/// The block an id names, if any.
pub fn find_block(node: &State, id: BlockId) -> Option<Arc<Block>> {
    match id {
        BlockId::Hash(h) => node.chain.block_by_hash(&h),
        BlockId::Tag(t) => node.chain.block_by_number(height_of(node, t)),
    }
}

/// `eth_chainId` → the EVM chain ID.
async fn chain_id(node: State, (): ()) -> Result<Quantity, EthError> {
    Ok(Quantity(node.chain.chain_id()))
}

/// `net_version` → the chain ID in decimal.
async fn net_version(node: State, (): ()) -> Result<String, EthError> {
    Ok(node.chain.chain_id().to_string())
}

/// `net_listening` → true.
async fn net_listening(_: State, (): ()) -> Result<bool, EthError> {
    Ok(true)
}

/// `web3_clientVersion`.
async fn client_version(_: State, (): ()) -> Result<String, EthError> {
    Ok(format!("firn/v{}", env!("CARGO_PKG_VERSION")))
}

/// `eth_getHeaderByNumber [block]` → the header, or null.
async fn get_header_by_number(
    node: State,
    (tag,): (BlockTag,),
) -> Result<Option<Header>, EthError> {
    Ok(find_block(&node, BlockId::Tag(tag)).map(|b| header_json(&b)))
}

/// `eth_getHeaderByHash [hash]` → the header, or null.
async fn get_header_by_hash(node: State, (hash,): (Hash,)) -> Result<Option<Header>, EthError> {
    Ok(find_block(&node, BlockId::Hash(hash.0)).map(|b| header_json(&b)))
}

/// `eth_getUncleCountByBlockNumber [block]` → 0 (Avalanche blocks have no uncles), or null.
async fn get_uncle_count_by_number(
    node: State,
    (tag,): (BlockTag,),
) -> Result<Option<Quantity>, EthError> {
    Ok(find_block(&node, BlockId::Tag(tag)).map(|_| Quantity(0)))
}

/// `eth_getUncleCountByBlockHash [hash]` → 0, or null.
async fn get_uncle_count_by_hash(
    node: State,
    (hash,): (Hash,),
) -> Result<Option<Quantity>, EthError> {
    Ok(find_block(&node, BlockId::Hash(hash.0)).map(|_| Quantity(0)))
}

/// `eth_getUncleByBlockNumberAndIndex [block, index]` → null: there are no uncles.
async fn get_uncle_by_number(
    _: State,
    (_, _): (BlockTag, Quantity),
) -> Result<Option<()>, EthError> {
    Ok(None)
}

/// `eth_getUncleByBlockHashAndIndex [hash, index]` → null.
async fn get_uncle_by_hash(_: State, (_, _): (Hash, Quantity)) -> Result<Option<()>, EthError> {
    Ok(None)
}

/// `eth_coinbase`/`eth_etherbase` → where fees go: coreth's and subnet-EVM's burn address.
async fn coinbase(_: State, (): ()) -> Result<Address, EthError> {
    Ok(BLACKHOLE)
}

/// `net_peerCount` → 0: the devnet's chains run in one process, with no EVM peers.
async fn peer_count(_: State, (): ()) -> Result<Quantity, EthError> {
    Ok(Quantity(0))
}

/// `web3_sha3 [data]` → its Keccak-256.
async fn sha3(_: State, (data,): (HexBytes,)) -> Result<B256, EthError> {
    Ok(keccak256(&data.0))
}

/// `eth_syncing` → false (the devnet is its own source).
async fn syncing(_: State, (): ()) -> Result<bool, EthError> {
    Ok(false)
}

/// `eth_blockNumber`.
async fn block_number(node: State, (): ()) -> Result<Quantity, EthError> {
    Ok(Quantity(node.chain.height()))
}

/// `eth_getBlockByNumber [tag, fullTxs]` → the block or null.
async fn get_block_by_number(
    node: State,
    (tag, full): (BlockTag, bool),
) -> Result<Option<BlockJson>, EthError> {
    Ok(node
        .chain
        .block_by_number(height_of(&node, tag))
        .map(|b| block_json(&b, full)))
}

/// `eth_getBlockByHash [hash, fullTxs]` → the block or null.
async fn get_block_by_hash(
    node: State,
    (hash, full): (Hash, bool),
) -> Result<Option<BlockJson>, EthError> {
    Ok(node
        .chain
        .block_by_hash(&hash.0)
        .map(|b| block_json(&b, full)))
}

/// `eth_getBlockReceipts [blockNrOrHash]` → every receipt, or null.
async fn get_block_receipts(
    node: State,
    (id,): (BlockId,),
) -> Result<Option<Vec<Receipt>>, EthError> {
    Ok(find_block(&node, id).map(|b| block_receipts_json(&b)))
}

/// `eth_getBlockTransactionCountByNumber [tag]`.
async fn get_block_transaction_count_by_number(
    node: State,
    (tag,): (BlockTag,),
) -> Result<Option<Quantity>, EthError> {
    Ok(node
        .chain
        .block_by_number(height_of(&node, tag))
        .map(|b| Quantity(b.txs.len() as u64)))
}

/// `eth_getBlockTransactionCountByHash [hash]`.
async fn get_block_transaction_count_by_hash(
    node: State,
    (hash,): (Hash,),
) -> Result<Option<Quantity>, EthError> {
    Ok(node
        .chain
        .block_by_hash(&hash.0)
        .map(|b| Quantity(b.txs.len() as u64)))
}

/// `eth_getLogs [filter]`; a range over [`MAX_LOG_RANGE`] blocks is refused.
pub(super) async fn get_logs(node: State, (args,): (FilterArgs,)) -> Result<Vec<Log>, EthError> {
    let (from, to) = match args.block_hash {
        Some(h) => {
            let b = node
                .chain
                .block_by_hash(&h)
                .ok_or_else(|| EthError::server("unknown block"))?;
            (b.header.number, b.header.number)
        }
        None => {
            let head = node.chain.height();
            let from = args.from.map_or(head, |t| height_of(&node, t));
            let to = args.to.map_or(head, |t| height_of(&node, t));
            if from > to {
                return Err(EthError::server("invalid block range params"));
            }
            // The limit applies to the range asked for, before it is cut at the head.
            if to - from + 1 > MAX_LOG_RANGE {
                return Err(EthError::server(format!(
                    "requested too many blocks from {from} to {to}, maximum is set to {MAX_LOG_RANGE}"
                )));
            }
            if from > head {
                return Ok(Vec::new());
            }
            (from, to.min(head))
        }
    };
    if to - from + 1 > MAX_LOG_RANGE {
        return Err(EthError::server(format!(
            "requested too many blocks from {from} to {to}, maximum is set to {MAX_LOG_RANGE}"
        )));
    }
    let filter = LogFilter {
        from,
        to,
        addresses: args.addresses,
        topics: args.topics,
    };
    let logs = node.chain.logs(&filter);
    Ok(logs.iter().map(log_json).collect())
}

/// `eth_gasPrice` → next base fee plus the suggested tip.
async fn gas_price(node: State, (): ()) -> Result<U256, EthError> {
    Ok(U256::from(
        u128::from(node.chain.next_base_fee()) + SUGGESTED_TIP,
    ))
}

/// `eth_maxPriorityFeePerGas` → the suggested tip.
async fn max_priority_fee_per_gas(_: State, (): ()) -> Result<U256, EthError> {
    Ok(U256::from(SUGGESTED_TIP))
}

/// `eth_baseFee` (subnet-evm) → the next block's base fee.
async fn base_fee(node: State, (): ()) -> Result<U256, EthError> {
    Ok(U256::from(node.chain.next_base_fee()))
}

/// `eth_feeHistory [blockCount, newestBlock, rewardPercentiles?]`.
async fn fee_history(
    node: State,
    (count, newest, percentiles): (BlockCount, BlockTag, Option<Percentiles>),
) -> Result<FeeHistory, EthError> {
    let percentiles = percentiles.map(|p| p.0).unwrap_or_default();
    for (i, p) in percentiles.iter().enumerate() {
        if !(0.0..=100.0).contains(p) {
            return Err(EthError::server(format!("invalid reward percentile: {p}")));
        }
        if i > 0 && *p < percentiles[i - 1] {
            return Err(EthError::server(format!(
                "invalid reward percentile: #{}:{} > #{}:{}",
                i - 1,
                percentiles[i - 1],
                i,
                p
            )));
        }
    }
    let count = count.0.min(MAX_FEE_HISTORY);
    if count == 0 {
        return Ok(FeeHistory {
            oldest_block: Quantity(0),
            base_fee_per_gas: Vec::new(),
            gas_used_ratio: Vec::new(),
            reward: None,
        });
    }
    let newest = height_of(&node, newest);
    if newest > node.chain.height() {
        return Err(EthError::server(format!(
            "request beyond head block: requested {newest}, head {}",
            node.chain.height()
        )));
    }
    let h = node.chain.fee_history(count, newest, &percentiles);
    let reward = (!percentiles.is_empty()).then(|| {
        h.reward
            .iter()
            .map(|r| r.iter().map(|t| U256::from(*t)).collect())
            .collect()
    });
    Ok(FeeHistory {
        oldest_block: Quantity(h.oldest_block),
        base_fee_per_gas: h.base_fee_per_gas.iter().map(|f| U256::from(*f)).collect(),
        gas_used_ratio: h.gas_used_ratio,
        reward,
    })
}
