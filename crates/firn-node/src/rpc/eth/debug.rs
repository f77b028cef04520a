//! `debug_traceTransaction`, `debug_traceBlockByNumber`, `debug_traceBlockByHash` with
//! go-ethereum's `callTracer` (the call trees are recorded when blocks are built).

use firn_evm::Block;
use firn_rpc::EthServer;
use firn_rpc::methods::eth::{CallFrame, TxTrace};

use super::blocks::height_of;
use super::params::{BlockTag, Hash, TraceConfig};
use super::shapes::frame_json;
use super::{EthError, State};

/// Registers this module's methods.
pub fn register(s: EthServer<State>) -> EthServer<State> {
    s.method("debug_traceTransaction", trace_transaction)
        .method("debug_traceBlockByNumber", trace_block_by_number)
        .method("debug_traceBlockByHash", trace_block_by_hash)
}

fn check(config: &Option<TraceConfig>) -> Result<bool, EthError> {
    match config.as_ref().and_then(|c| c.tracer.as_deref()) {
        Some("callTracer") => Ok(config.as_ref().is_some_and(|c| c.only_top_call)),
        Some(other) => Err(EthError::server(format!(
            "tracer {other} is not supported: firn records callTracer traces only"
        ))),
        None => Err(EthError::server(
            "the struct logger is not supported: pass {\"tracer\": \"callTracer\"}",
        )),
    }
}

fn block_traces(b: &Block, only_top: bool) -> Vec<TxTrace> {
    b.txs
        .iter()
        .zip(&b.traces)
        .map(|(t, f)| TxTrace {
            tx_hash: Some(t.hash),
            result: frame_json(f, only_top),
        })
        .collect()
}

/// `debug_traceTransaction [hash, {tracer: "callTracer"}]`.
async fn trace_transaction(
    node: State,
    (hash, config): (Hash, Option<TraceConfig>),
) -> Result<CallFrame, EthError> {
    let only_top = check(&config)?;
    let (block, i) = node
        .chain
        .mined(&hash.0)
        .ok_or_else(|| EthError::server("transaction not found"))?;
    Ok(frame_json(&block.traces[i], only_top))
}

/// `debug_traceBlockByNumber [tag, {tracer: "callTracer"}]` → `[{txHash, result}]`.
async fn trace_block_by_number(
    node: State,
    (tag, config): (BlockTag, Option<TraceConfig>),
) -> Result<Vec<TxTrace>, EthError> {
    let only_top = check(&config)?;
    let n = height_of(&node, tag);
    let block = node
        .chain
        .block_by_number(n)
        .ok_or_else(|| EthError::server(format!("block #{n} not found")))?;
    Ok(block_traces(&block, only_top))
}

/// `debug_traceBlockByHash [hash, {tracer: "callTracer"}]`.
async fn trace_block_by_hash(
    node: State,
    (hash, config): (Hash, Option<TraceConfig>),
) -> Result<Vec<TxTrace>, EthError> {
    let only_top = check(&config)?;
    let block = node
        .chain
        .block_by_hash(&hash.0)
        .ok_or_else(|| EthError::server(format!("block {:#x} not found", hash.0)))?;
    Ok(block_traces(&block, only_top))
}
