//! `debug_traceTransaction`, `debug_traceBlockByNumber`, `debug_traceBlockByHash` with
//! go-ethereum's `callTracer` (the call trees are recorded when blocks are built).

use firn_evm::{Block, CallFrame};
use serde_json::{Map, Value, json};

use super::blocks::height_of;
use super::params::{BlockTag, Hash, TraceConfig};
use super::shapes::{data, q, q256};
use super::{EthError, EthResult, State};
use crate::EthServer;

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

/// A frame in `callTracer`'s JSON (its struct order, empty fields left out).
pub fn frame_json(f: &CallFrame, only_top: bool) -> Value {
    let mut m = Map::new();
    m.insert("from".into(), Value::String(format!("{:#x}", f.from)));
    m.insert("gas".into(), q(f.gas));
    m.insert("gasUsed".into(), q(f.gas_used));
    if let Some(to) = f.to {
        m.insert("to".into(), Value::String(format!("{to:#x}")));
    }
    m.insert("input".into(), data(&f.input));
    if !f.output.is_empty() {
        m.insert("output".into(), data(&f.output));
    }
    if let Some(e) = &f.error {
        m.insert("error".into(), Value::String(e.clone()));
    }
    if let Some(r) = &f.revert_reason {
        m.insert("revertReason".into(), Value::String(r.clone()));
    }
    if !only_top && !f.calls.is_empty() {
        let calls = f.calls.iter().map(|c| frame_json(c, false)).collect();
        m.insert("calls".into(), Value::Array(calls));
    }
    if let Some(v) = f.value {
        m.insert("value".into(), q256(v));
    }
    m.insert("type".into(), Value::String(f.kind.to_owned()));
    Value::Object(m)
}

fn block_traces(b: &Block, only_top: bool) -> Value {
    Value::Array(
        b.txs
            .iter()
            .zip(&b.traces)
            .map(|(t, f)| json!({"txHash": format!("{:#x}", t.hash), "result": frame_json(f, only_top)}))
            .collect(),
    )
}

/// `debug_traceTransaction [hash, {tracer: "callTracer"}]`.
async fn trace_transaction(node: State, (hash, config): (Hash, Option<TraceConfig>)) -> EthResult {
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
) -> EthResult {
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
) -> EthResult {
    let only_top = check(&config)?;
    let block = node
        .chain
        .block_by_hash(&hash.0)
        .ok_or_else(|| EthError::server(format!("block {:#x} not found", hash.0)))?;
    Ok(block_traces(&block, only_top))
}
