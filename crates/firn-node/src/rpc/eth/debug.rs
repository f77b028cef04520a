//! `debug_traceTransaction`, `debug_traceBlockByNumber`, `debug_traceBlockByHash`,
//! `debug_traceBlock` and `debug_traceCall` with go-ethereum's tracers (`callTracer` with
//! `onlyTopCall` and `withLog`, `prestateTracer` with `diffMode`, `4byteTracer`, and the struct
//! logger: no `tracer`, with `disableStack`, `disableStorage`, `enableMemory`, `limit`), and
//! `debug_intermediateRoots`.
//!
//! `callTracer` without logs answers from the call trees recorded when the blocks were built;
//! the others re-run the block on the state before it ([`firn_evm::replay`]), which is kept for
//! the last 128 blocks.

use std::collections::BTreeMap;

use alloy_primitives::{Address, B256};
use firn_evm::replay::{ExecutionResult, Replayed};
use firn_evm::tracers::{AccountState, LoggerConfig, StructLogger, Watcher, prestate};
use firn_evm::{Block, CallTracer};
use firn_rpc::EthServer;
use firn_rpc::methods::debug::{
    BlockTrace, PrestateAccount, PrestateDiff, StructLog, StructLogs, TraceResult,
};

use super::blocks::{find_block, height_of};
use super::params::{BlockId, BlockTag, CallArgs, Hash, HexBytes, TraceConfig};
use super::shapes::frame_json;
use super::{EthError, State, blocking};

/// Registers this module's methods.
pub fn register(s: EthServer<State>) -> EthServer<State> {
    s.method("debug_traceTransaction", trace_transaction)
        .method("debug_traceBlockByNumber", trace_block_by_number)
        .method("debug_traceBlockByHash", trace_block_by_hash)
        .method("debug_traceCall", trace_call)
        .method("debug_traceBlock", trace_raw_block)
        .method("debug_intermediateRoots", intermediate_roots)
}

/// A tracer and its options.
#[derive(Debug, Clone, Copy)]
pub(super) enum Tracer {
    Call { only_top: bool, with_log: bool },
    Struct(LoggerConfig),
    Prestate { diff: bool },
    FourByte,
}

impl Tracer {
    pub(super) fn of(config: Option<&TraceConfig>) -> Result<Self, EthError> {
        let c = config.cloned().unwrap_or_default();
        Ok(match c.tracer.as_deref() {
            None => Tracer::Struct(c.logger),
            Some("callTracer") => Tracer::Call {
                only_top: c.only_top_call,
                with_log: c.with_log,
            },
            Some("prestateTracer") => Tracer::Prestate { diff: c.diff_mode },
            Some("4byteTracer") => Tracer::FourByte,
            Some(other) => {
                return Err(EthError::server(format!(
                    "tracer {other} is not supported: firn runs callTracer, prestateTracer, \
                     4byteTracer and the struct logger"
                )));
            }
        })
    }

    /// Whether the recorded call trees answer it.
    fn recorded(self) -> bool {
        matches!(
            self,
            Tracer::Call {
                with_log: false,
                ..
            }
        )
    }
}

fn calls_watcher(with_log: bool) -> Watcher {
    Watcher::Calls(if with_log {
        CallTracer::with_logs()
    } else {
        CallTracer::default()
    })
}

/// The call tree of a re-run, its top frame given the gas limit and the gas used.
fn call_tree(watcher: Watcher, gas: u64, result: &ExecutionResult) -> firn_evm::CallFrame {
    let Watcher::Calls(tracer) = watcher else {
        return firn_evm::CallFrame::default();
    };
    let mut root = tracer.into_root().unwrap_or_default();
    root.gas = gas;
    root.gas_used = result.tx_gas_used();
    root
}

/// Whether `a` is a precompile: Ethereum's (up to 0x11) or Avalanche's stateful ones
/// (`0x0100…`, `0x0200…`, `0x0300…` ranges).
fn precompile(a: &Address) -> bool {
    let b = a.as_slice();
    (b[..19].iter().all(|x| *x == 0) && b[19] <= 0x11)
        || (matches!(b[0], 1..=3) && b[1..18].iter().all(|x| *x == 0))
}

/// `4byteTracer`: calls to non-precompiles by selector and calldata size.
fn four_bytes(frame: &firn_evm::CallFrame, out: &mut BTreeMap<String, u64>) {
    let is_call = matches!(
        frame.kind,
        "CALL" | "CALLCODE" | "DELEGATECALL" | "STATICCALL"
    );
    if is_call && frame.input.len() >= 4 && frame.to.is_some_and(|to| !precompile(&to)) {
        let key = format!(
            "0x{}-{}",
            hex::encode(&frame.input[..4]),
            frame.input.len() - 4
        );
        *out.entry(key).or_default() += 1;
    }
    for c in &frame.calls {
        four_bytes(c, out);
    }
}

fn account(a: &AccountState) -> PrestateAccount {
    PrestateAccount {
        balance: a.balance,
        nonce: a.nonce.filter(|n| *n > 0),
        code: a.code.clone(),
        storage: a
            .storage
            .iter()
            .map(|(k, v)| (B256::from(*k), B256::from(*v)))
            .collect(),
    }
}

fn accounts(map: &BTreeMap<Address, AccountState>) -> BTreeMap<String, PrestateAccount> {
    map.iter()
        .map(|(a, s)| (format!("{a:#x}"), account(s)))
        .collect()
}

fn struct_logs(watcher: Watcher, result: &ExecutionResult) -> Result<TraceResult, EthError> {
    let Watcher::Steps(logger) = watcher else {
        return Err(EthError::server("the struct logger did not run"));
    };
    let steps = logger.into_steps().map_err(EthError::server)?;
    let output = result.output().cloned().unwrap_or_default();
    Ok(TraceResult::Struct(StructLogs {
        gas: result.tx_gas_used(),
        failed: !result.is_success(),
        return_value: hex::encode(&output),
        struct_logs: steps
            .into_iter()
            .map(|s| StructLog {
                pc: s.pc,
                op: s.op.to_owned(),
                gas: s.gas,
                gas_cost: s.gas_cost,
                depth: s.depth,
                error: s.error,
                stack: s.stack,
                memory: s.memory.map(|m| m.iter().map(hex::encode).collect()),
                storage: s.storage.map(|st| {
                    st.iter()
                        .map(|(k, v)| (hex::encode(B256::from(*k)), hex::encode(B256::from(*v))))
                        .collect()
                }),
                refund: s.refund,
            })
            .collect(),
    }))
}

/// Runs `tracer` on the txs of block `number` up to `last`; one answer per tx.
fn traced_block(
    node: &State,
    number: u64,
    last: Option<usize>,
    tracer: Tracer,
) -> Result<Vec<TraceResult>, EthError> {
    let chain = &node.chain;
    let block = chain
        .block_by_number(number)
        .ok_or_else(|| EthError::server(format!("block #{number} not found")))?;
    let gas = |i: usize| {
        use alloy_consensus::Transaction as _;
        block.txs[i].envelope.gas_limit()
    };
    let calls = |with_log| chain.replay_block(number, last, |_| calls_watcher(with_log));
    Ok(match tracer {
        Tracer::Call { only_top, with_log } => calls(with_log)?
            .into_iter()
            .enumerate()
            .map(|(i, r)| {
                TraceResult::Call(Box::new(frame_json(
                    &call_tree(r.inspector, gas(i), &r.result),
                    only_top,
                )))
            })
            .collect(),
        Tracer::FourByte => calls(false)?
            .into_iter()
            .enumerate()
            .map(|(i, r)| {
                let mut counts = BTreeMap::new();
                four_bytes(&call_tree(r.inspector, gas(i), &r.result), &mut counts);
                TraceResult::FourByte(counts)
            })
            .collect(),
        Tracer::Struct(config) => chain
            .replay_block(number, last, |_| Watcher::Steps(StructLogger::new(config)))?
            .into_iter()
            .map(|r| struct_logs(r.inspector, &r.result))
            .collect::<Result<_, _>>()?,
        Tracer::Prestate { diff } => chain
            .replay_block(number, last, |_| calls_watcher(false))?
            .into_iter()
            .map(|r| prestate_result(&r, diff))
            .collect(),
    })
}

fn prestate_result<I>(r: &Replayed<I>, diff: bool) -> TraceResult {
    let p = prestate(&r.state, &r.before);
    if diff {
        let pre = p
            .pre
            .iter()
            .filter(|(a, _)| p.changed.contains(a))
            .map(|(a, s)| (*a, s.clone()))
            .collect();
        TraceResult::PrestateDiff(PrestateDiff {
            pre: accounts(&pre),
            post: accounts(&p.post),
        })
    } else {
        TraceResult::Prestate(accounts(&p.pre))
    }
}

fn block_traces(b: &Block, results: Vec<TraceResult>) -> Vec<BlockTrace> {
    b.txs
        .iter()
        .zip(results)
        .map(|(t, result)| BlockTrace {
            tx_hash: Some(t.hash),
            result,
        })
        .collect()
}

/// Every tx of `block` traced.
pub(super) async fn trace_block(
    node: State,
    block: std::sync::Arc<Block>,
    tracer: Tracer,
) -> Result<Vec<BlockTrace>, EthError> {
    if block.header.number == 0 {
        return Err(EthError::server("genesis is not traceable"));
    }
    if let Tracer::Call { only_top, .. } = tracer
        && tracer.recorded()
    {
        let results = block
            .traces
            .iter()
            .map(|f| TraceResult::Call(Box::new(frame_json(f, only_top))))
            .collect();
        return Ok(block_traces(&block, results));
    }
    let number = block.header.number;
    let results = blocking(move || traced_block(&node, number, None, tracer)).await?;
    Ok(block_traces(&block, results))
}

/// `debug_traceTransaction [hash, config?]`.
async fn trace_transaction(
    node: State,
    (hash, config): (Hash, Option<TraceConfig>),
) -> Result<TraceResult, EthError> {
    let tracer = Tracer::of(config.as_ref())?;
    let (block, i) = node
        .chain
        .mined(&hash.0)
        .ok_or_else(|| EthError::server("transaction not found"))?;
    if let Tracer::Call { only_top, .. } = tracer
        && tracer.recorded()
    {
        return Ok(TraceResult::Call(Box::new(frame_json(
            &block.traces[i],
            only_top,
        ))));
    }
    let number = block.header.number;
    let mut results = blocking(move || traced_block(&node, number, Some(i), tracer)).await?;
    results
        .pop()
        .ok_or_else(|| EthError::server("transaction not found"))
}

/// `debug_traceBlockByNumber [tag, config?]` → `[{txHash, result}]`.
async fn trace_block_by_number(
    node: State,
    (tag, config): (BlockTag, Option<TraceConfig>),
) -> Result<Vec<BlockTrace>, EthError> {
    let tracer = Tracer::of(config.as_ref())?;
    let n = height_of(&node, tag);
    let block = node
        .chain
        .block_by_number(n)
        .ok_or_else(|| EthError::server(format!("block #{n} not found")))?;
    trace_block(node, block, tracer).await
}

/// `debug_traceBlockByHash [hash, config?]`.
async fn trace_block_by_hash(
    node: State,
    (hash, config): (Hash, Option<TraceConfig>),
) -> Result<Vec<BlockTrace>, EthError> {
    let tracer = Tracer::of(config.as_ref())?;
    let block = node
        .chain
        .block_by_hash(&hash.0)
        .ok_or_else(|| EthError::server(format!("block {:#x} not found", hash.0)))?;
    trace_block(node, block, tracer).await
}

/// `debug_traceBlock [rlp, config?]`: a block given as its RLP (`debug_getRawBlock`'s), traced
/// as the chain ran it; firn traces the blocks its chain accepted, found by the header's hash.
async fn trace_raw_block(
    node: State,
    (rlp, config): (HexBytes, Option<TraceConfig>),
) -> Result<Vec<BlockTrace>, EthError> {
    let tracer = Tracer::of(config.as_ref())?;
    let hash = Block::hash_of_rlp(&rlp.0)
        .map_err(|e| EthError::server(format!("could not decode block: {e}")))?;
    let block = node.chain.block_by_hash(&hash).ok_or_else(|| {
        EthError::server(format!(
            "block {hash:#x} not found: firn traces the blocks its chain accepted"
        ))
    })?;
    trace_block(node, block, tracer).await
}

/// `debug_intermediateRoots [blockHash, config?]` → the state root after each transaction.
async fn intermediate_roots(
    node: State,
    (hash, _config): (Hash, Option<TraceConfig>),
) -> Result<Vec<B256>, EthError> {
    let block = node
        .chain
        .block_by_hash(&hash.0)
        .ok_or_else(|| EthError::server(format!("block {:#x} not found", hash.0)))?;
    let number = block.header.number;
    if number == 0 {
        return Err(EthError::server("genesis is not traceable"));
    }
    node.on_chain(move |c| c.intermediate_roots(number)).await
}

/// `debug_traceCall [call, block, config?]`: the call traced on the state at the block.
async fn trace_call(
    node: State,
    (args, id, config): (CallArgs, Option<BlockId>, Option<TraceConfig>),
) -> Result<TraceResult, EthError> {
    let tracer = Tracer::of(config.as_ref())?;
    let block = find_block(&node, id.unwrap_or(BlockId::Tag(BlockTag::Latest)))
        .ok_or_else(|| EthError::server("header not found"))?;
    let at = Some(block.header.number);
    node.on_chain(move |chain| {
        let req = &args.0;
        let gas = req.gas.unwrap_or(block.header.gas_limit);
        Ok::<_, EthError>(match tracer {
            Tracer::Call { only_top, with_log } => {
                let r = chain.trace_call(req, at, calls_watcher(with_log))?;
                TraceResult::Call(Box::new(frame_json(
                    &call_tree(r.inspector, gas, &r.result),
                    only_top,
                )))
            }
            Tracer::FourByte => {
                let r = chain.trace_call(req, at, calls_watcher(false))?;
                let mut counts = BTreeMap::new();
                four_bytes(&call_tree(r.inspector, gas, &r.result), &mut counts);
                TraceResult::FourByte(counts)
            }
            Tracer::Struct(config) => {
                let r = chain.trace_call(req, at, Watcher::Steps(StructLogger::new(config)))?;
                struct_logs(r.inspector, &r.result)?
            }
            Tracer::Prestate { diff } => {
                let r = chain.trace_call(req, at, calls_watcher(false))?;
                prestate_result(&r, diff)
            }
        })
    })
    .await
}
