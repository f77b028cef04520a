//! What go-ethereum's tracers answer (`debug_traceTransaction`, `debug_traceBlockBy*`,
//! `debug_traceCall`), one shape per tracer, as subnet-evm's geth writes them: `callTracer`'s
//! frames ([`CallFrame`]), the struct logger's opcodes ([`StructLogs`]), `prestateTracer`'s
//! accounts ([`PrestateAccount`], or [`PrestateDiff`] with `diffMode`) and `4byteTracer`'s
//! selector counts.

use std::collections::BTreeMap;

use alloy_primitives::{B256, Bytes, U256};
use serde::{Deserialize, Serialize};

use super::eth::CallFrame;

/// One executed opcode (geth's `StructLog` as JSON).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StructLog {
    /// Program counter.
    pub pc: u64,
    /// Opcode name.
    pub op: String,
    /// Gas left before it.
    pub gas: u64,
    /// What it cost.
    pub gas_cost: u64,
    /// Call depth, from 1.
    pub depth: u64,
    /// Why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The stack, bottom first (`0x` quantities).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stack: Option<Vec<U256>>,
    /// Memory in 32-byte words (hex without `0x`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<Vec<String>>,
    /// The contract's slots seen so far (hex without `0x`), at `SLOAD` and `SSTORE`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage: Option<BTreeMap<String, String>>,
    /// Gas refunded so far.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub refund: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// The struct logger's answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StructLogs {
    /// Gas the run used.
    pub gas: u64,
    /// Whether it failed (reverted or halted).
    pub failed: bool,
    /// What it returned (hex without `0x`).
    pub return_value: String,
    /// Every opcode executed.
    pub struct_logs: Vec<StructLog>,
}

/// An account as `prestateTracer` reports it (empty fields left out).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PrestateAccount {
    /// Balance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub balance: Option<U256>,
    /// Nonce.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nonce: Option<u64>,
    /// Code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<Bytes>,
    /// Slots.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub storage: BTreeMap<B256, B256>,
}

/// `prestateTracer`'s answer with `diffMode`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PrestateDiff {
    /// The changed accounts as they were.
    pub pre: BTreeMap<String, PrestateAccount>,
    /// What changed, as it became.
    pub post: BTreeMap<String, PrestateAccount>,
}

/// Any tracer's answer for one transaction or call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum TraceResult {
    /// `callTracer`.
    Call(Box<CallFrame>),
    /// The struct logger.
    Struct(StructLogs),
    /// `prestateTracer` with `diffMode`.
    PrestateDiff(PrestateDiff),
    /// `prestateTracer`, by account (lower-case hex).
    Prestate(BTreeMap<String, PrestateAccount>),
    /// `4byteTracer`: calls by `0x<selector>-<calldata bytes after it>`.
    FourByte(BTreeMap<String, u64>),
}

/// One notification of `debug_subscribe ["traceChain", …]`: a block's traces.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChainTrace {
    /// The block's number.
    pub block: super::eth::Quantity,
    /// Its hash.
    pub hash: B256,
    /// Each tx's trace.
    pub traces: Vec<BlockTrace>,
}

/// One entry of `debug_traceBlockBy*` with any tracer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BlockTrace {
    /// The tx.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tx_hash: Option<B256>,
    /// Its trace.
    pub result: TraceResult,
}
