//! Reading an [`EvmChain`]: blocks, transactions, receipts, logs, account state, calls,
//! gas estimates and fee history. State is the head's (the devnet keeps no historical state).

use std::sync::Arc;

use alloy_consensus::Transaction;
use alloy_primitives::{Address, B256, Bytes, Log, U256};
use revm::context::result::ExecutionResult;

use crate::block::{Block, SignedTx};
use crate::chain::{EvmChain, Inner};
use crate::deadline::Deadline;
use crate::deploy_gate::DeployGate;
use crate::error::TxError;
use crate::execute::{BlockContext, CallOptions, failure, transact_call};
use crate::history::{BlockUndo, Undos};
use crate::state::{AccountProof, StateDb, WorldState};
use crate::tx::{CallRequest, intrinsic_gas};

/// The tip `eth_maxPriorityFeePerGas` suggests (1 gwei).
pub const SUGGESTED_TIP: u128 = 1_000_000_000;

/// The gas of a plain value transfer.
const TX_GAS: u64 = 21_000;

/// A transaction and where it was included (`None` while pooled).
#[derive(Debug, Clone)]
pub struct TxLookup {
    /// The transaction.
    pub tx: SignedTx,
    /// Its block and index.
    pub block: Option<(Arc<Block>, usize)>,
}

/// `eth_getLogs` criteria. A topic position with `None` matches anything; `Some(list)`
/// matches any topic in the list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LogFilter {
    /// First height.
    pub from: u64,
    /// Last height.
    pub to: u64,
    /// Emitters (empty = any).
    pub addresses: Vec<Address>,
    /// Topic criteria by position.
    pub topics: Vec<Option<Vec<B256>>>,
}

impl LogFilter {
    /// Whether `log` is from one of the emitters and has the topics (heights aside).
    pub fn matches(&self, log: &Log) -> bool {
        if !self.addresses.is_empty() && !self.addresses.contains(&log.address) {
            return false;
        }
        let topics = log.data.topics();
        if self.topics.len() > topics.len() {
            return false;
        }
        self.topics.iter().zip(topics).all(|(want, got)| {
            want.as_ref()
                .is_none_or(|w| w.is_empty() || w.contains(got))
        })
    }
}

/// A log with its position in the chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogEntry {
    /// The log.
    pub log: Log,
    /// Block height.
    pub block_number: u64,
    /// Block hash.
    pub block_hash: B256,
    /// Block timestamp.
    pub block_timestamp: u64,
    /// Tx hash.
    pub tx_hash: B256,
    /// Tx index in the block.
    pub tx_index: usize,
    /// Log index in the block.
    pub log_index: usize,
}

/// `eth_feeHistory`'s answer.
#[derive(Debug, Clone, PartialEq)]
pub struct FeeHistory {
    /// First block covered.
    pub oldest_block: u64,
    /// Base fees of the blocks, plus the next block's.
    pub base_fee_per_gas: Vec<u64>,
    /// Gas used / gas limit per block.
    pub gas_used_ratio: Vec<f64>,
    /// Tips at the requested percentiles, per block (empty when none were asked).
    pub reward: Vec<Vec<u128>>,
}

/// Every log of `block` with its position, filtered.
pub fn block_logs(block: &Block, filter: Option<&LogFilter>) -> Vec<LogEntry> {
    let mut out = Vec::new();
    let mut log_index = 0;
    for (i, (tx, r)) in block.txs.iter().zip(&block.receipts).enumerate() {
        for log in &r.logs {
            if filter.is_none_or(|f| f.matches(log)) {
                out.push(LogEntry {
                    log: log.clone(),
                    block_number: block.header.number,
                    block_hash: block.hash,
                    block_timestamp: block.header.timestamp,
                    tx_hash: tx.hash,
                    tx_index: i,
                    log_index,
                });
            }
            log_index += 1;
        }
    }
    out
}

/// The undos that take the head's state back to block `number`, oldest first; `None` when
/// there is no such block or its state is no longer kept.
pub(crate) fn undos_to(inner: &Inner, number: u64) -> Option<Vec<Arc<BlockUndo>>> {
    let head = inner.blocks.len() as u64 - 1;
    let back = usize::try_from(head.checked_sub(number)?).ok()?;
    let kept = inner.undos.len();
    (back <= kept).then(|| inner.undos.range(kept - back..).cloned().collect())
}

impl EvmChain {
    /// The block at `number`.
    pub fn block_by_number(&self, number: u64) -> Option<Arc<Block>> {
        let inner = self.read();
        usize::try_from(number)
            .ok()
            .and_then(|n| inner.blocks.get(n).cloned())
    }

    /// The block with `hash`.
    pub fn block_by_hash(&self, hash: &B256) -> Option<Arc<Block>> {
        let inner = self.read();
        let n = *inner.by_hash.get(hash)?;
        inner.blocks.get(n as usize).cloned()
    }

    /// A transaction, mined or pooled.
    pub fn transaction(&self, hash: &B256) -> Option<TxLookup> {
        if let Some((block, i)) = self.mined(hash) {
            return Some(TxLookup {
                tx: block.txs[i].clone(),
                block: Some((block, i)),
            });
        }
        self.lock_pool().get(hash).map(|tx| TxLookup {
            tx: tx.clone(),
            block: None,
        })
    }

    /// The block and index of a mined transaction (its receipt is `block.receipts[index]`).
    pub fn mined(&self, hash: &B256) -> Option<(Arc<Block>, usize)> {
        let inner = self.read();
        let (n, i) = *inner.tx_index.get(hash)?;
        Some((inner.blocks.get(n as usize)?.clone(), i))
    }

    /// Logs matching `filter` in its height range (clamped to the head).
    pub fn logs(&self, filter: &LogFilter) -> Vec<LogEntry> {
        let inner = self.read();
        let head = inner.blocks.len() as u64 - 1;
        let mut out = Vec::new();
        for n in filter.from..=filter.to.min(head) {
            let block = &inner.blocks[n as usize];
            if block.header.logs_bloom == alloy_primitives::Bloom::ZERO {
                continue;
            }
            out.extend(block_logs(block, Some(filter)));
        }
        out
    }

    /// The unsigned Warp message a `sendWarpMessage` call produced, by message ID.
    pub fn warp_message(&self, id: &B256) -> Option<Bytes> {
        self.read().warp_messages.get(id).cloned()
    }

    /// Head balance.
    pub fn balance(&self, address: &Address) -> U256 {
        self.read().state.balance(address)
    }

    /// Runs `f` on the state at block `number` (the undos after it); `None` when the block is
    /// not there or older than the kept [`STATE_HISTORY`](crate::history::STATE_HISTORY).
    fn at_block<R>(&self, number: u64, f: impl FnOnce(&WorldState, &Undos) -> R) -> Option<R> {
        let inner = self.read();
        let undos = undos_to(&inner, number)?;
        Some(f(&inner.state, &undos))
    }

    /// Whether the state at block `number` can be read.
    pub fn has_state_at(&self, number: u64) -> bool {
        self.at_block(number, |_, _| ()).is_some()
    }

    /// Balance at block `number` (`None`: that state is not kept).
    pub fn balance_at(&self, address: &Address, number: u64) -> Option<U256> {
        self.at_block(number, |s, u| {
            s.account_at(address, u).map_or(U256::ZERO, |a| a.0)
        })
    }

    /// Nonce at block `number`.
    pub fn nonce_at(&self, address: &Address, number: u64) -> Option<u64> {
        self.at_block(number, |s, u| s.account_at(address, u).map_or(0, |a| a.1))
    }

    /// Code at block `number`.
    pub fn code_at(&self, address: &Address, number: u64) -> Option<Bytes> {
        self.at_block(number, |s, u| {
            s.account_at(address, u)
                .map(|a| s.code_by_hash(&a.2))
                .unwrap_or_default()
        })
    }

    /// A storage slot at block `number`.
    pub fn storage_at(&self, address: &Address, slot: U256, number: u64) -> Option<U256> {
        self.at_block(number, |s, u| s.storage_at(address, slot, u))
    }

    /// `address` and its `slots` at block `number` with their Merkle proofs against that
    /// block's state root (`eth_getProof`).
    pub fn proof_at(&self, address: &Address, slots: &[B256], number: u64) -> Option<AccountProof> {
        self.at_block(number, |s, u| s.prove(address, slots, u))
    }

    /// Head nonce.
    pub fn nonce(&self, address: &Address) -> u64 {
        self.read().state.nonce(address)
    }

    /// The nonce after the sender's pooled ready transactions.
    pub fn pending_nonce(&self, address: &Address) -> u64 {
        let nonce = self.nonce(address);
        self.lock_pool().pending_nonce(address, nonce)
    }

    /// Head code.
    pub fn code(&self, address: &Address) -> Bytes {
        self.read().state.code(address)
    }

    /// Head storage slot.
    pub fn storage(&self, address: &Address, slot: U256) -> U256 {
        self.read().state.storage(address, slot)
    }

    fn call_context(&self, head: &Block) -> BlockContext {
        BlockContext {
            chain_id: self.chain_id(),
            number: head.header.number,
            timestamp: head.header.timestamp,
            base_fee: head.header.base_fee.unwrap_or_default(),
            gas_limit: head.header.gas_limit,
            beneficiary: head.header.beneficiary,
        }
    }

    /// Runs `req` on the state at block `at` (the head without one) with at most `gas`,
    /// within the chain's [`CallLimits`](crate::CallLimits): cut short at their timeout, so
    /// that no client holds the chain's read lock longer.
    fn run_call(
        &self,
        req: &CallRequest,
        gas: u64,
        at: Option<u64>,
    ) -> Result<ExecutionResult, TxError> {
        let limits = self.call_limits();
        let gas = gas.min(limits.gas_cap);
        let inner = self.read();
        let head = match at {
            Some(n) => inner.blocks.get(usize::try_from(n).unwrap_or(usize::MAX)),
            None => inner.blocks.last(),
        }
        .cloned()
        .ok_or_else(|| TxError::Other("header not found".to_owned()))?;
        let undos = undos_to(&inner, head.header.number).ok_or_else(|| {
            TxError::Other(format!(
                "historical state {:#x} is not available",
                head.header.state_root
            ))
        })?;
        let from = req.from.unwrap_or_default();
        let nonce = req
            .nonce
            .unwrap_or_else(|| inner.state.account_at(&from, &undos).map_or(0, |a| a.1));
        let env = req.env(self.chain_id(), nonce, gas);
        let opts = CallOptions {
            no_base_fee: !req.has_fees(),
            no_balance_check: false,
            no_nonce_check: true,
            predicate_gas: inner.precompiles.predicate_gas(req.access_list.as_ref())?,
        };
        let mut ctx = self.call_context(&head);
        // geth runs calls with an unlimited gas pool: a call may ask for more than a block holds.
        ctx.gas_limit = ctx.gas_limit.max(gas);
        let precompiles = &inner.precompiles.provider;
        let gate = DeployGate::new(from, inner.precompiles.may_deploy(&inner.state, &from));
        let db = StateDb {
            state: &inner.state,
            hashes: &inner.hashes,
            undos: &undos,
        };
        let (out, deadline) = transact_call(
            db,
            precompiles,
            &ctx,
            env,
            opts,
            gate,
            Deadline::after(limits.timeout),
        )?;
        if deadline.expired() {
            return Err(TxError::Other(format!(
                "execution aborted (timeout = {})",
                go_duration(limits.timeout)
            )));
        }
        Ok(out.result)
    }

    /// `eth_call` on the head: the return data, or why it failed, within the chain's
    /// [`CallLimits`](crate::CallLimits).
    pub fn call(&self, req: &CallRequest) -> Result<Bytes, TxError> {
        self.call_at(req, None)
    }

    /// `eth_call` on the state at block `at` (the head without one; "historical state … is
    /// not available" past the kept history).
    pub fn call_at(&self, req: &CallRequest, at: Option<u64>) -> Result<Bytes, TxError> {
        let result = self.call_result_at(req, at)?;
        if let Some(err) = failure(&result) {
            return Err(err);
        }
        Ok(result.into_output().unwrap_or_default())
    }

    /// `eth_call` at block `at` with how it ended, a revert or halt included (coreth's
    /// `eth_callDetailed`); an error only for a call that could not run.
    pub fn call_result_at(
        &self,
        req: &CallRequest,
        at: Option<u64>,
    ) -> Result<ExecutionResult, TxError> {
        let gas = req.gas.unwrap_or_else(|| self.head().header.gas_limit);
        self.run_call(req, gas, at)
    }

    /// `eth_estimateGas`: the least gas limit with which the call succeeds (binary search).
    pub fn estimate_gas(&self, req: &CallRequest) -> Result<u64, TxError> {
        let head = self.head();
        let mut hi = req
            .gas
            .unwrap_or(head.header.gas_limit)
            .min(self.call_limits().gas_cap);
        if req.has_fees() {
            let price = req.max_fee_per_gas.or(req.gas_price).unwrap_or(1).max(1);
            let balance = self.balance(&req.from.unwrap_or_default());
            let available = balance.saturating_sub(req.value.unwrap_or_default());
            let allowance = available / U256::from(price);
            if allowance < U256::from(hi) {
                hi = allowance.to::<u64>();
            }
        }
        let data = req.input.clone().unwrap_or_default();
        // geth's short cut: a plain value transfer to an account without code is tried at
        // 21,000 first.
        if data.is_empty()
            && let Some(to) = req.to
            && self.code(&to).is_empty()
            && matches!(self.run_call(req, TX_GAS, None), Ok(r) if r.is_success())
        {
            return Ok(TX_GAS);
        }
        let intrinsic = intrinsic_gas(&data, req.to.is_none(), None);
        let first = self.run_call(req, hi, None)?;
        if let Some(err) = failure(&first) {
            return Err(match err {
                TxError::Halted(m) if m == "out of gas" => TxError::GasExceedsAllowance(hi),
                other => other,
            });
        }
        let used = first.tx_gas_used();
        let mut lo = used.max(intrinsic).saturating_sub(1);
        // geth's optimistic guess first: used gas plus the 63/64 reserve.
        let optimistic = (used + 2_300) * 64 / 63;
        if optimistic < hi {
            match self.run_call(req, optimistic, None) {
                Ok(r) if r.is_success() => hi = optimistic,
                _ => lo = optimistic,
            }
        }
        while lo + 1 < hi {
            // geth stops within 1.5% of the answer.
            if (hi - lo) as f64 / hi as f64 <= 0.015 {
                break;
            }
            let mid = lo + (hi - lo) / 2;
            match self.run_call(req, mid, None) {
                Ok(r) if r.is_success() => hi = mid,
                Ok(_) => lo = mid,
                Err(TxError::IntrinsicGas { .. }) => lo = mid,
                Err(e) => return Err(e),
            }
        }
        Ok(hi)
    }

    /// `eth_feeHistory` over `count` blocks ending at `newest`.
    pub fn fee_history(&self, count: u64, newest: u64, percentiles: &[f64]) -> FeeHistory {
        let newest = newest.min(self.height());
        let count = count.min(newest + 1);
        let oldest = newest + 1 - count;
        let mut h = FeeHistory {
            oldest_block: oldest,
            base_fee_per_gas: Vec::new(),
            gas_used_ratio: Vec::new(),
            reward: Vec::new(),
        };
        for n in oldest..=newest {
            let Some(b) = self.block_by_number(n) else {
                break;
            };
            let base = b.header.base_fee.unwrap_or_default();
            h.base_fee_per_gas.push(base);
            h.gas_used_ratio
                .push(b.header.gas_used as f64 / b.header.gas_limit.max(1) as f64);
            if !percentiles.is_empty() {
                h.reward.push(rewards(&b, base, percentiles));
            }
        }
        let next = if newest == self.height() {
            self.next_base_fee()
        } else {
            self.block_by_number(newest + 1)
                .and_then(|b| b.header.base_fee)
                .unwrap_or_default()
        };
        h.base_fee_per_gas.push(next);
        h
    }
}

/// Tips paid in `block` at each percentile of gas used (geth's `processBlock`).
fn rewards(block: &Block, base_fee: u64, percentiles: &[f64]) -> Vec<u128> {
    if block.txs.is_empty() {
        return vec![0; percentiles.len()];
    }
    let mut tips: Vec<(u128, u64)> = block
        .txs
        .iter()
        .zip(&block.receipts)
        .map(|(t, r)| {
            (
                t.envelope
                    .effective_tip_per_gas(base_fee)
                    .unwrap_or_default(),
                r.gas_used,
            )
        })
        .collect();
    tips.sort_by_key(|(tip, _)| *tip);
    let total: u64 = block.header.gas_used;
    percentiles
        .iter()
        .map(|p| {
            let threshold = (total as f64 * p / 100.0) as u64;
            let mut sum = 0u64;
            for (tip, gas) in &tips {
                sum += gas;
                if sum >= threshold {
                    return *tip;
                }
            }
            tips.last().map_or(0, |t| t.0)
        })
        .collect()
}

/// A duration as Go prints one (`5s`, `250ms`), for geth's error texts.
fn go_duration(d: std::time::Duration) -> String {
    if d.subsec_nanos() == 0 {
        format!("{}s", d.as_secs())
    } else if d.as_nanos().is_multiple_of(1_000_000) && d.as_secs() == 0 {
        format!("{}ms", d.as_millis())
    } else {
        format!("{}s", d.as_secs_f64())
    }
}
