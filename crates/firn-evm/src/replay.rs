//! Re-running history with any inspector: a block's transactions on the state before it, one
//! after the other (what the tracers other than the `callTracer` recorded at building run
//! on), or a call on the state at a block (`debug_traceCall`). Both read the state kept for the
//! last [`STATE_HISTORY`](crate::history::STATE_HISTORY) blocks; older ones answer geth's
//! "historical state … is not available".

use std::collections::HashMap;

use alloy_primitives::{B256, U256};
use revm::Database;
pub use revm::context::result::{ExecutionResult, Output};
use revm::database::{AccountState, CacheDB};
use revm::state::EvmState;
use revm::{Context, DatabaseCommit, InspectEvm, MainBuilder, MainContext};

use crate::block::{Block, SignedTx};
use crate::chain::EvmChain;
use crate::deploy_gate::DeployGate;
use crate::error::TxError;
use crate::execute::{BlockContext, CallOptions, envs, map_error};
use crate::state::{AccountChange, StateDb};
use crate::tracers::{AccountsBefore, Watcher};
use crate::tx::{CallRequest, tx_env};

/// One transaction or call re-run: the inspector that watched it, its result, and the state it
/// touched (with the values from before it, as revm reports them).
#[derive(Debug)]
pub struct Replayed<I> {
    /// The inspector.
    pub inspector: I,
    /// How it ended.
    pub result: ExecutionResult,
    /// Every account and slot it read or wrote, with original and new values.
    pub state: EvmState,
    /// The accounts of `state` as they were before it: balance, nonce, code (`None`: absent).
    pub before: AccountsBefore,
}

/// Every account `db` holds with its values now: what the run so far changed (and read).
fn cached_changes(db: &CacheDB<StateDb<'_>>) -> Vec<AccountChange> {
    db.cache
        .accounts
        .iter()
        .map(|(address, a)| {
            let gone = matches!(a.account_state, AccountState::NotExisting);
            AccountChange {
                address: *address,
                fields: (!gone).then_some((a.info.balance, a.info.nonce, a.info.code_hash)),
                storage_cleared: gone || a.account_state.is_storage_cleared(),
                slots: a.storage.iter().map(|(k, v)| (*k, *v)).collect(),
            }
        })
        .collect()
}

/// The accounts `state` touched as `db` holds them (before the run is committed to it).
fn accounts_before(
    db: &mut CacheDB<StateDb<'_>>,
    state: &EvmState,
) -> Result<AccountsBefore, TxError> {
    let fail = |e: std::convert::Infallible| TxError::Other(e.to_string());
    let mut out = HashMap::with_capacity(state.len());
    for address in state.keys() {
        let info = db.basic(*address).map_err(fail)?;
        let entry = match info {
            Some(info) => {
                let code = match &info.code {
                    Some(c) => c.original_bytes(),
                    None => db
                        .code_by_hash(info.code_hash)
                        .map_err(fail)?
                        .original_bytes(),
                };
                Some((info.balance, info.nonce, code))
            }
            None => None,
        };
        out.insert(*address, entry);
    }
    Ok(out)
}

fn block_context(chain: &EvmChain, b: &Block) -> BlockContext {
    BlockContext {
        chain_id: chain.chain_id(),
        number: b.header.number,
        timestamp: b.header.timestamp,
        base_fee: b.header.base_fee.unwrap_or_default(),
        gas_limit: b.header.gas_limit,
        beneficiary: b.header.beneficiary,
    }
}

fn unavailable(b: &Block) -> TxError {
    TxError::Other(format!(
        "historical state {:#x} is not available",
        b.header.state_root
    ))
}

impl EvmChain {
    /// Re-runs the transactions of block `number` up to index `last` (all without one) on the
    /// state before the block, each watched by the inspector `make` gives for it.
    pub fn replay_block<F>(
        &self,
        number: u64,
        last: Option<usize>,
        make: F,
    ) -> Result<Vec<Replayed<Watcher>>, TxError>
    where
        F: FnMut(&SignedTx) -> Watcher,
    {
        self.run_block(number, last, make, |_| ())
    }

    /// The state root after each transaction of block `number` (`debug_intermediateRoots`);
    /// the last is the block's own.
    pub fn intermediate_roots(&self, number: u64) -> Result<Vec<B256>, TxError> {
        let mut roots = Vec::new();
        self.run_block(
            number,
            None,
            |_| Watcher::Quiet,
            |db| {
                let changes = cached_changes(db);
                roots.push(db.db.state.root_with(db.db.undos, &changes));
            },
        )?;
        Ok(roots)
    }

    /// Runs block `number`'s transactions up to `last` on the state before it: each watched by
    /// what `make` gives, `after` called with the state once each is committed.
    fn run_block<F, A>(
        &self,
        number: u64,
        last: Option<usize>,
        mut make: F,
        mut after: A,
    ) -> Result<Vec<Replayed<Watcher>>, TxError>
    where
        F: FnMut(&SignedTx) -> Watcher,
        A: FnMut(&CacheDB<StateDb<'_>>),
    {
        let inner = self.read();
        let block = usize::try_from(number)
            .ok()
            .and_then(|n| inner.blocks.get(n))
            .cloned()
            .filter(|_| number > 0)
            .ok_or_else(|| TxError::Other(format!("block #{number} not found")))?;
        let undos =
            crate::query::undos_to(&inner, number - 1).ok_or_else(|| unavailable(&block))?;
        let ctx = block_context(self, &block);
        let (cfg, env) = envs(&ctx, CallOptions::default());
        let mut db = CacheDB::new(StateDb {
            state: &inner.state,
            hashes: &inner.hashes,
            undos: &undos,
        });
        for change in &block.dev_changes {
            let state = change.as_state(&db);
            db.commit(state);
        }
        let count = last.map_or(block.txs.len(), |l| (l + 1).min(block.txs.len()));
        let mut out = Vec::with_capacity(count);
        for tx in block.txs.iter().take(count) {
            let gate = DeployGate::new(
                tx.sender,
                inner.precompiles.may_deploy(&inner.state, &tx.sender),
            );
            // The predicates as the block was built with them.
            let predicates = crate::warp::receive::TxPredicates::of(
                &inner.precompiles,
                tx,
                Some(&block.predicate_results),
                None,
            )
            .map_err(TxError::Other)?;
            let mut cfg = cfg.clone();
            crate::execute::charge_predicates(&mut cfg, predicates.gas);
            let mut evm = Context::mainnet()
                .with_cfg(cfg)
                .with_block(env.clone())
                .with_db(&mut db)
                .build_mainnet_with_inspector((make(tx), gate))
                .with_precompiles(inner.precompiles.provider.for_tx(predicates.failed));
            let run = evm.inspect_tx(tx_env(tx)).map_err(map_error)?;
            let (inspector, _) = evm.inspector;
            let before = accounts_before(&mut db, &run.state)?;
            db.commit(run.state.clone());
            // The whole fee goes to the block's coinbase, as when the block was built.
            let fee = U256::from(ctx.base_fee) * U256::from(run.result.tx_gas_used());
            if !fee.is_zero() {
                let coinbase = db
                    .load_account(ctx.beneficiary)
                    .map_err(|e| TxError::Other(e.to_string()))?;
                coinbase.info.balance = coinbase.info.balance.saturating_add(fee);
            }
            after(&db);
            out.push(Replayed {
                inspector,
                result: run.result,
                state: run.state,
                before,
            });
        }
        Ok(out)
    }

    /// Runs `req` on the state at block `at` (the head without one), watched by `inspector`.
    pub fn trace_call(
        &self,
        req: &CallRequest,
        at: Option<u64>,
        inspector: Watcher,
    ) -> Result<Replayed<Watcher>, TxError> {
        let inner = self.read();
        let block = match at {
            Some(n) => usize::try_from(n).ok().and_then(|n| inner.blocks.get(n)),
            None => inner.blocks.last(),
        }
        .cloned()
        .ok_or_else(|| TxError::Other("header not found".to_owned()))?;
        let undos = crate::query::undos_to(&inner, block.header.number)
            .ok_or_else(|| unavailable(&block))?;
        let from = req.from.unwrap_or_default();
        let nonce = req
            .nonce
            .unwrap_or_else(|| inner.state.account_at(&from, &undos).map_or(0, |a| a.1));
        let limits = self.call_limits();
        let gas = req
            .gas
            .unwrap_or(block.header.gas_limit)
            .min(limits.gas_cap);
        let mut ctx = block_context(self, &block);
        ctx.gas_limit = ctx.gas_limit.max(gas);
        let opts = CallOptions {
            no_base_fee: !req.has_fees(),
            no_balance_check: false,
            no_nonce_check: true,
            predicate_gas: inner.precompiles.predicate_gas(req.access_list.as_ref())?,
        };
        let (cfg, env) = envs(&ctx, opts);
        let mut db = CacheDB::new(StateDb {
            state: &inner.state,
            hashes: &inner.hashes,
            undos: &undos,
        });
        let gate = DeployGate::new(from, inner.precompiles.may_deploy(&inner.state, &from));
        let mut evm = Context::mainnet()
            .with_cfg(cfg)
            .with_block(env)
            .with_db(&mut db)
            .build_mainnet_with_inspector((inspector, gate))
            .with_precompiles(inner.precompiles.provider.clone());
        let run = evm
            .inspect_tx(req.env(self.chain_id(), nonce, gas))
            .map_err(map_error)?;
        let (inspector, _) = evm.inspector;
        let before = accounts_before(&mut db, &run.state)?;
        Ok(Replayed {
            inspector,
            result: run.result,
            state: run.state,
            before,
        })
    }
}
