//! [`EvmChain`]: one EVM chain — genesis, the pool, block building and the block file.
//! Queries over it are in [`crate::query`].

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard};

use alloy_consensus::Transaction;
use alloy_consensus::proofs::{calculate_receipt_root, calculate_transaction_root};
use alloy_primitives::{Address, B64, B256, Bytes, U256};
use alloy_trie::EMPTY_ROOT_HASH;
use revm::context::result::ExecutionResult;
use tokio::sync::watch;
use tracing::{debug, info};

use crate::atomic::{AtomicBackend, ext_data_hash};
use crate::block::{Block, Header, SignedTx, TxReceipt, logs_bloom};
use crate::deploy_gate::DeployGate;
use crate::dev::DevChange;
use crate::error::{EvmError, TxError};
use crate::execute::{BLACKHOLE, BlockContext, CallOptions, inspect};
use crate::fee::{BlockFees, FeeRules, ParentFees};
use crate::genesis::EvmGenesis;
use crate::history::{BlockUndo, MAX_HISTORY_ENTRIES, STATE_HISTORY};
use crate::mempool::Mempool;
use crate::precompiles::Precompiles;
use crate::state::{StateDb, WorldState};
use crate::store::{
    BlockStore, StoredBlock, settle_coreth_blocks, settle_fee_rules, settle_warp_predicates,
};
use crate::trace::CallTracer;
use crate::tx::{MAX_INIT_CODE_SIZE, decode_impersonated, decode_raw, tx_env, tx_intrinsic_gas};
use crate::warp::receive::{TxPredicates, WarpBackend, WarpRules};
use firn_core::atomic::Tx as AtomicTx;
use firn_core::ids::Id;
use firn_core::warp::predicate::BlockResults;

/// Where "now" comes from (seconds since the epoch): the devnet's clock.
pub type TimeSource = Arc<dyn Fn() -> u64 + Send + Sync>;

/// Most transactions in one block.
pub const MAX_BLOCK_TXS: usize = 10_000;

/// How to open a chain.
#[derive(Clone)]
pub struct EvmChainConfig {
    /// The genesis.
    pub genesis: EvmGenesis,
    /// The Avalanche blockchain ID (what the Warp precompile reports).
    pub blockchain_id: B256,
    /// The Avalanche network ID (Warp messages).
    pub network_id: u32,
    /// Where the block file lives; `None` keeps the chain in memory only.
    pub data_dir: Option<PathBuf>,
    /// The clock.
    pub now: TimeSource,
    /// The C-Chain's shared memory: a chain with one carries atomic txs in coreth's block
    /// shape ([`crate::atomic`]).
    pub atomic: Option<Arc<dyn AtomicBackend>>,
    /// The P-Chain, for a chain with the Warp precompile to verify the messages it receives
    /// ([`crate::warp::receive`]); without one, every predicate fails.
    pub warp: Option<Arc<dyn WarpBackend>>,
}

impl std::fmt::Debug for EvmChainConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EvmChainConfig")
            .field("chain_id", &self.genesis.config.chain_id)
            .field("blockchain_id", &self.blockchain_id)
            .field("data_dir", &self.data_dir)
            .field("atomic", &self.atomic.is_some())
            .field("warp", &self.warp.is_some())
            .finish_non_exhaustive()
    }
}

pub(crate) struct Inner {
    pub(crate) state: WorldState,
    pub(crate) blocks: Vec<Arc<Block>>,
    pub(crate) hashes: Vec<B256>,
    pub(crate) by_hash: HashMap<B256, u64>,
    pub(crate) tx_index: HashMap<B256, (u64, usize)>,
    pub(crate) precompiles: Precompiles,
    pub(crate) warp_messages: HashMap<B256, Bytes>,
    /// What each of the last [`STATE_HISTORY`] blocks overwrote, oldest first (fewer when
    /// they hold more than [`MAX_HISTORY_ENTRIES`] records).
    pub(crate) undos: VecDeque<Arc<BlockUndo>>,
    /// Accounts and slots `undos` hold.
    pub(crate) undo_entries: usize,
    /// The height that accepted each atomic tx.
    pub(crate) atomic_heights: HashMap<Id, u64>,
}

/// An EVM chain: state, blocks, pool. Share it in an `Arc`; every method takes `&self`.
pub struct EvmChain {
    pub(crate) config: EvmChainConfig,
    /// The genesis's fee rules, or the window an older C-Chain was built with.
    fee_rules: FeeRules,
    pub(crate) inner: RwLock<Inner>,
    pool: Mutex<Mempool>,
    /// Atomic txs waiting for a block, in arrival order.
    pub(crate) atomic_pool: Mutex<Vec<AtomicTx>>,
    /// The last atomic txs dropped from the pool at block building, oldest first.
    pub(crate) atomic_dropped: Mutex<VecDeque<AtomicTx>>,
    /// Shared memory, when this chain's blocks carry atomic txs (a C-Chain made before firn
    /// carried them keeps its block shape and has none).
    pub(crate) atomic: Option<Arc<dyn AtomicBackend>>,
    /// How this chain verifies the Warp messages its txs carry, when it receives them (a
    /// chain made before firn did keeps its block shape and verifies none).
    pub(crate) warp_rules: Option<WarpRules>,
    store: Mutex<Option<BlockStore>>,
    build: Mutex<()>,
    call_limits: Mutex<CallLimits>,
    /// The height of the last accepted block, for subscribers to wait on.
    head_events: watch::Sender<u64>,
    /// How many transactions ever entered the pool, likewise.
    pool_events: watch::Sender<u64>,
    /// The dev loop's clock: seconds added to every block time, and a pinned time for the
    /// next block (`evm_increaseTime`, `evm_setNextBlockTimestamp`).
    pub(crate) time_offset: AtomicU64,
    pub(crate) next_timestamp: Mutex<Option<u64>>,
}

/// What a client's `eth_call` or `eth_estimateGas` may use: geth's `RPCGasCap` and
/// `RPCEVMTimeout` (defaults 50 M gas and 5 s).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallLimits {
    /// The most gas one run gets.
    pub gas_cap: u64,
    /// The longest one run takes (holding the chain's read lock).
    pub timeout: std::time::Duration,
}

impl Default for CallLimits {
    fn default() -> Self {
        Self {
            gas_cap: 50_000_000,
            timeout: std::time::Duration::from_secs(5),
        }
    }
}

impl std::fmt::Debug for EvmChain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EvmChain")
            .field("config", &self.config)
            .field("height", &self.height())
            .finish_non_exhaustive()
    }
}

impl EvmChain {
    /// Opens the chain: genesis, then every block in the block file replayed.
    pub fn open(config: EvmChainConfig) -> Result<Self, EvmError> {
        let g = &config.genesis;
        let mut state = WorldState::from_alloc(&g.alloc);
        let mut precompiles = Precompiles::from_config(
            &g.config,
            config.blockchain_id,
            config.network_id,
            &mut state,
        );
        let (store, stored) = match &config.data_dir {
            Some(dir) => {
                let (s, blocks) = BlockStore::open(dir)?;
                (Some(s), blocks)
            }
            None => (None, Vec::new()),
        };
        let fee_rules = match &config.data_dir {
            Some(dir) => settle_fee_rules(dir, g.config.fee_rules, !stored.is_empty())?,
            None => g.config.fee_rules,
        };
        let atomic = match (&config.atomic, &config.data_dir) {
            (Some(a), Some(dir)) => {
                settle_coreth_blocks(dir, !stored.is_empty())?.then(|| a.clone())
            }
            (a, None) => a.clone(),
            (None, Some(_)) => None,
        };
        let coreth = atomic.is_some();
        let receives_warp = precompiles.provider.has_warp()
            && match &config.data_dir {
                Some(dir) => settle_warp_predicates(dir, !stored.is_empty())?,
                None => true,
            };
        precompiles.provider.receive_warp(receives_warp);
        let warp_rules = receives_warp
            .then(|| WarpRules::from_config(&g.config, config.network_id, config.blockchain_id));
        let (base_fee, gas_limit, extra) =
            fee_rules.genesis(g.base_fee, g.gas_limit, &g.extra_data);
        let header = Header {
            parent_hash: B256::ZERO,
            ommers_hash: alloy_consensus::constants::EMPTY_OMMER_ROOT_HASH,
            beneficiary: g.coinbase,
            state_root: state.state_root(),
            transactions_root: EMPTY_ROOT_HASH,
            receipts_root: EMPTY_ROOT_HASH,
            logs_bloom: Default::default(),
            difficulty: g.difficulty,
            number: 0,
            gas_limit,
            gas_used: 0,
            timestamp: g.timestamp,
            extra_data: Bytes::from(extra),
            mix_hash: g.mix_hash,
            nonce: B64::from(g.nonce),
            ext_data_hash: coreth.then_some(B256::ZERO),
            base_fee: Some(base_fee),
            ext_data_gas_used: coreth.then_some(0),
            block_gas_cost: Some(0),
            blob_gas_used: Some(0),
            excess_blob_gas: Some(0),
            parent_beacon_block_root: Some(B256::ZERO),
        };
        let hash = header.hash();
        let ext_data = coreth.then(Bytes::new);
        let genesis = Block {
            size: Block::rlp_size(&header, &[], ext_data.as_ref().map(|e| e.as_ref())),
            header,
            hash,
            txs: Vec::new(),
            receipts: Vec::new(),
            traces: Vec::new(),
            dev_changes: Vec::new(),
            ext_data,
            atomic_txs: Vec::new(),
            predicate_results: BlockResults::new(),
        };
        let inner = Inner {
            state,
            blocks: vec![Arc::new(genesis)],
            hashes: vec![hash],
            by_hash: HashMap::from([(hash, 0)]),
            tx_index: HashMap::new(),
            precompiles,
            warp_messages: HashMap::new(),
            undos: VecDeque::new(),
            undo_entries: 0,
            atomic_heights: HashMap::new(),
        };
        let chain = Self {
            config,
            fee_rules,
            inner: RwLock::new(inner),
            pool: Mutex::new(Mempool::default()),
            atomic_pool: Mutex::new(Vec::new()),
            atomic_dropped: Mutex::new(VecDeque::new()),
            atomic,
            warp_rules,
            store: Mutex::new(None),
            build: Mutex::new(()),
            call_limits: Mutex::new(CallLimits::default()),
            head_events: watch::Sender::new(0),
            pool_events: watch::Sender::new(0),
            time_offset: AtomicU64::new(0),
            next_timestamp: Mutex::new(None),
        };
        for (i, b) in stored.iter().enumerate() {
            let height = i as u64 + 1;
            let corrupt = |reason: String| EvmError::Corrupt { height, reason };
            let txs = b
                .txs
                .iter()
                .enumerate()
                .map(
                    |(i, raw)| match b.impersonated.iter().find(|(at, _)| *at as usize == i) {
                        Some((_, sender)) => decode_impersonated(raw, *sender),
                        None => decode_raw(raw, chain.chain_id()),
                    },
                )
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| corrupt(format!("bad tx: {e}")))?;
            let atomic = b
                .atomic
                .iter()
                .map(|raw| firn_core::codec::from_bytes::<AtomicTx>(raw))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| corrupt(format!("bad atomic tx: {e}")))?;
            let recorded = match b.predicate_results.as_slice() {
                [] => BlockResults::new(),
                bytes => BlockResults::parse(bytes)
                    .map_err(|e| corrupt(format!("bad predicate results: {e}")))?,
            };
            let block = chain
                .execute_block(txs, atomic, b.timestamp, Some(&recorded), &b.changes, true)?
                .ok_or_else(|| corrupt("block has no transactions".into()))?;
            if block.hash != b.hash {
                return Err(corrupt(format!(
                    "replayed hash {} differs from recorded {}",
                    block.hash, b.hash
                )));
            }
        }
        *chain.lock_store() = store;
        info!(
            target: "evm",
            chain_id = chain.chain_id(),
            height = chain.height(),
            "chain opened"
        );
        Ok(chain)
    }

    /// EVM chain ID.
    pub fn chain_id(&self) -> u64 {
        self.config.genesis.config.chain_id
    }

    /// The genesis it was opened with.
    pub fn genesis(&self) -> &EvmGenesis {
        &self.config.genesis
    }

    /// The Avalanche blockchain ID.
    pub fn blockchain_id(&self) -> B256 {
        self.config.blockchain_id
    }

    /// Avalanche network ID.
    pub fn network_id(&self) -> u32 {
        self.config.network_id
    }

    /// Sets what clients' calls may use.
    pub fn set_call_limits(&self, limits: CallLimits) {
        *self.call_limits.lock().unwrap_or_else(|p| p.into_inner()) = limits;
    }

    /// What clients' calls may use.
    pub fn call_limits(&self) -> CallLimits {
        *self.call_limits.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn read(&self) -> RwLockReadGuard<'_, Inner> {
        self.inner.read().unwrap_or_else(|p| p.into_inner())
    }

    fn write(&self) -> RwLockWriteGuard<'_, Inner> {
        self.inner.write().unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn lock_pool(&self) -> MutexGuard<'_, Mempool> {
        self.pool.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn lock_store(&self) -> MutexGuard<'_, Option<BlockStore>> {
        self.store.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Height of the last accepted block.
    pub fn height(&self) -> u64 {
        self.read().blocks.len() as u64 - 1
    }

    /// The last accepted block.
    pub fn head(&self) -> Arc<Block> {
        let inner = self.read();
        inner.blocks[inner.blocks.len() - 1].clone()
    }

    /// Transactions waiting in the pool.
    pub fn pool_len(&self) -> usize {
        self.lock_pool().len()
    }

    /// The hashes of the transactions pooled since arrival number `since` (the newest
    /// [`ARRIVALS_KEPT`](crate::ARRIVALS_KEPT) at most), and the number to ask from next time: what
    /// a pending-transaction filter reports.
    pub fn pooled_since(&self, since: u64) -> (Vec<B256>, u64) {
        self.lock_pool().arrivals_since(since)
    }

    /// How many transactions ever entered the pool.
    pub fn pool_arrivals(&self) -> u64 {
        self.lock_pool().arrived()
    }

    /// Every pooled transaction, by sender then nonce.
    pub fn pooled(&self) -> Vec<SignedTx> {
        self.lock_pool().all()
    }

    /// Changes each time a block is accepted (to its height): what subscriptions to new
    /// blocks, logs and accepted transactions wait on, reading the blocks themselves.
    pub fn watch_head(&self) -> watch::Receiver<u64> {
        self.head_events.subscribe()
    }

    /// Changes each time a transaction enters the pool (to the number of arrivals so far, as
    /// [`pooled_since`](Self::pooled_since) counts them).
    pub fn watch_pool(&self) -> watch::Receiver<u64> {
        self.pool_events.subscribe()
    }

    fn block_context(&self, parent: &Block, timestamp: u64) -> (BlockContext, BlockFees) {
        let fees = self.fee_rules.next_block(&parent_fees(parent), timestamp);
        let ctx = BlockContext {
            chain_id: self.chain_id(),
            number: parent.header.number + 1,
            timestamp,
            base_fee: fees.base_fee,
            gas_limit: fees.gas_limit,
            beneficiary: BLACKHOLE,
        };
        (ctx, fees)
    }

    /// How this chain prices gas and sizes blocks.
    pub fn fee_rules(&self) -> FeeRules {
        self.fee_rules
    }

    /// The fee fields the next block would have if built now.
    pub fn next_block_fees(&self) -> BlockFees {
        let head = self.head();
        let now = self.next_block_time().max(head.header.timestamp);
        self.block_context(&head, now).1
    }

    /// The base fee the next block would have if built now.
    pub fn next_base_fee(&self) -> u64 {
        self.next_block_fees().base_fee
    }

    /// Checks a raw transaction against the head state and pools it; returns its hash.
    pub fn submit_raw_tx(&self, bytes: &[u8]) -> Result<B256, TxError> {
        let tx = decode_raw(bytes, self.chain_id())?;
        self.submit(tx)
    }

    /// Checks a decoded transaction and pools it.
    pub fn submit(&self, tx: SignedTx) -> Result<B256, TxError> {
        let e = &tx.envelope;
        let gas_limit = self.next_block_fees().gas_limit;
        let minimum = self.fee_rules.pool_minimum();
        {
            let inner = self.read();
            if inner.tx_index.contains_key(&tx.hash) {
                return Err(TxError::AlreadyKnown);
            }
            let needed = tx_intrinsic_gas(e)
                .saturating_add(inner.precompiles.predicate_gas(e.access_list())?);
            if e.gas_limit() < needed {
                return Err(TxError::IntrinsicGas {
                    gas: e.gas_limit(),
                    needed,
                });
            }
            if e.gas_limit() > gas_limit {
                return Err(TxError::GasLimit);
            }
            if e.kind().is_create() && e.input().len() > MAX_INIT_CODE_SIZE {
                return Err(TxError::InitCodeTooLarge {
                    size: e.input().len(),
                    limit: MAX_INIT_CODE_SIZE,
                });
            }
            let max_fee = e.max_fee_per_gas();
            if let Some(tip) = e.max_priority_fee_per_gas()
                && tip > max_fee
            {
                return Err(TxError::TipAboveFeeCap {
                    address: tx.sender,
                    tip,
                    max_fee,
                });
            }
            // Under the base fee is fine: the tx waits in the pool until the fee falls.
            if max_fee < u128::from(minimum) {
                return Err(TxError::Underpriced {
                    address: tx.sender,
                    max_fee,
                    minimum,
                });
            }
            let next = inner.state.nonce(&tx.sender);
            if e.nonce() < next {
                return Err(TxError::NonceTooLow {
                    next,
                    tx: e.nonce(),
                });
            }
            let cost = U256::from(e.gas_limit()) * U256::from(max_fee) + e.value();
            let balance = inner.state.balance(&tx.sender);
            if balance < cost {
                return Err(TxError::InsufficientFunds {
                    balance: balance.to_string(),
                    cost: cost.to_string(),
                    overshot: (cost - balance).to_string(),
                });
            }
            inner
                .precompiles
                .check_tx_allowed(&inner.state, tx.sender)?;
        }
        let hash = tx.hash;
        let arrived = {
            let mut pool = self.lock_pool();
            pool.insert(tx)?;
            pool.arrived()
        };
        self.pool_events.send_replace(arrived);
        debug!(target: "evm", %hash, "tx pooled");
        Ok(hash)
    }

    /// Builds, persists and accepts one block from the pool's ready transactions;
    /// `None` when no transaction could be included.
    pub fn build_block(&self) -> Result<Option<Arc<Block>>, EvmError> {
        let _building = self.lock_build();
        let candidates = self.ready_txs();
        let atomic = self.pooled_atomic();
        if candidates.is_empty() && atomic.is_empty() {
            return Ok(None);
        }
        let time = self.next_block_time();
        let built = self.execute_block(candidates, atomic, time, None, &[], false)?;
        if built.is_some() {
            *self.lock_next_timestamp() = None;
        }
        Ok(built)
    }

    /// The pooled txs a block built now would try, in order.
    pub(crate) fn ready_txs(&self) -> Vec<SignedTx> {
        self.ready_up_to(MAX_BLOCK_TXS)
    }

    /// Whether some pooled tx is ready to run (its sender's next nonce), or an atomic tx waits.
    pub fn has_ready_txs(&self) -> bool {
        !self.ready_up_to(1).is_empty() || !self.lock_atomic_pool().is_empty()
    }

    /// The first `limit` pooled txs ready on the head state, in building order.
    fn ready_up_to(&self, limit: usize) -> Vec<SignedTx> {
        let inner = self.read();
        self.lock_pool().ready(|a| inner.state.nonce(a), limit)
    }

    /// The time the next block gets: the pinned one, or the clock's plus the dev offset.
    pub(crate) fn next_block_time(&self) -> u64 {
        match *self.lock_next_timestamp() {
            Some(t) => t,
            None => (self.config.now)().saturating_add(self.time_offset.load(Ordering::Relaxed)),
        }
    }

    pub(crate) fn lock_next_timestamp(&self) -> MutexGuard<'_, Option<u64>> {
        self.next_timestamp
            .lock()
            .unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn lock_build(&self) -> MutexGuard<'_, ()> {
        self.build.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Builds blocks until the pool has nothing ready; returns how many were built.
    pub fn build_until_idle(&self) -> Result<usize, EvmError> {
        let mut n = 0;
        while self.build_block()?.is_some() {
            n += 1;
        }
        Ok(n)
    }

    /// Executes `candidates` on the head as a new block at `timestamp` (at least the
    /// parent's), after the dev-loop `changes`, then the `atomic` txs on a C-Chain.
    /// Transactions that cannot run are skipped (and dropped from the pool when they never
    /// can); a block with none is only made when `allow_empty`. A stored block is replayed
    /// when `recorded` holds the predicate results it was built with: then every transaction
    /// must run, and nothing is stored.
    pub(crate) fn execute_block(
        &self,
        candidates: Vec<SignedTx>,
        atomic: Vec<AtomicTx>,
        timestamp: u64,
        recorded: Option<&BlockResults>,
        changes: &[DevChange],
        allow_empty: bool,
    ) -> Result<Option<Arc<Block>>, EvmError> {
        let replay = recorded.is_some();
        // Read the P-Chain height before taking this chain's lock; a replay verifies nothing.
        let receiver = if replay { None } else { self.warp_receiver() };
        let mut inner = self.write();
        let parent = inner.blocks[inner.blocks.len() - 1].clone();
        let timestamp = timestamp.max(parent.header.timestamp);
        let (ctx, fees) = self.block_context(&parent, timestamp);
        let mut included = Vec::new();
        let mut receipts: Vec<TxReceipt> = Vec::new();
        let mut blocked: HashSet<Address> = HashSet::new();
        let mut dropped = Vec::new();
        let mut gas_used = 0u64;
        let mut traces = Vec::new();
        let mut predicate_results = BlockResults::new();
        let inner = &mut *inner;
        inner.state.begin_block();
        for change in changes {
            let db = StateDb {
                state: &inner.state,
                hashes: &inner.hashes,
                undos: &[],
            };
            let state = change.as_state(&db);
            inner.state.apply(state);
        }
        for tx in candidates {
            let e = &tx.envelope;
            let unusable = blocked.contains(&tx.sender)
                || e.gas_limit() > fees.capacity - gas_used
                || e.max_fee_per_gas() < ctx.base_fee as u128
                || inner
                    .precompiles
                    .check_tx_allowed(&inner.state, tx.sender)
                    .is_err();
            if unusable {
                if replay {
                    return Err(EvmError::Corrupt {
                        height: ctx.number,
                        reason: format!("tx {} no longer fits its block", tx.hash),
                    });
                }
                blocked.insert(tx.sender);
                continue;
            }
            let env = tx_env(&tx);
            // The tracer sees a refused creation open and fail, as geth's does.
            let gate = DeployGate::new(
                tx.sender,
                inner.precompiles.may_deploy(&inner.state, &tx.sender),
            );
            let traced = TxPredicates::of(&inner.precompiles, &tx, recorded, receiver.as_ref())
                .map_err(TxError::Other)
                .and_then(|predicates| {
                    let db = StateDb {
                        state: &inner.state,
                        hashes: &inner.hashes,
                        undos: &[],
                    };
                    let opts = CallOptions {
                        predicate_gas: predicates.gas,
                        ..CallOptions::default()
                    };
                    let precompiles = inner.precompiles.provider.for_tx(predicates.failed.clone());
                    inspect(
                        db,
                        &precompiles,
                        &ctx,
                        env,
                        opts,
                        (CallTracer::default(), gate),
                    )
                    .map(|run| (run, predicates))
                });
            let (out, mut trace, predicates) = match traced {
                Ok(((r, (tracer, _)), predicates)) => {
                    (r, tracer.into_root().unwrap_or_default(), predicates)
                }
                Err(err) => {
                    if replay {
                        return Err(EvmError::Corrupt {
                            height: ctx.number,
                            reason: format!("tx {} failed on replay: {err}", tx.hash),
                        });
                    }
                    debug!(target: "evm", hash = %tx.hash, %err, "tx dropped");
                    blocked.insert(tx.sender);
                    dropped.push(tx.hash);
                    continue;
                }
            };
            inner.state.apply(out.state);
            let used = out.result.tx_gas_used();
            // subnet-EVM pays the whole fee (base fee included) to the coinbase.
            let burned = U256::from(ctx.base_fee) * U256::from(used);
            if !burned.is_zero() {
                inner.state.credit(ctx.beneficiary, burned);
            }
            let logs = out.result.logs().to_vec();
            gas_used += used;
            // callTracer's top frame reports the tx's gas limit and all the gas it used.
            trace.gas = e.gas_limit();
            trace.gas_used = used;
            traces.push(trace);
            let effective = match e.max_priority_fee_per_gas() {
                Some(tip) => (ctx.base_fee as u128 + tip).min(e.max_fee_per_gas()),
                None => e.max_fee_per_gas(),
            };
            receipts.push(TxReceipt {
                tx_type: e.tx_type() as u8,
                success: matches!(out.result, ExecutionResult::Success { .. }),
                gas_used: used,
                cumulative_gas_used: gas_used,
                effective_gas_price: effective,
                contract_address: out.result.created_address(),
                bloom: logs_bloom(&logs),
                logs,
            });
            predicates.record(&mut predicate_results, &tx);
            included.push(tx);
        }
        if !dropped.is_empty() {
            let mut pool = self.lock_pool();
            for h in &dropped {
                pool.remove(h);
            }
        }
        let (atomic_txs, ext_gas_used) = match &self.atomic {
            Some(backend) => self.execute_atomic(
                &mut inner.state,
                backend.as_ref(),
                atomic,
                &ctx,
                fees.capacity - gas_used,
                replay,
            )?,
            None => (Vec::new(), 0),
        };
        if included.is_empty() && atomic_txs.is_empty() && !allow_empty {
            inner.state.end_block();
            return Ok(None);
        }
        let ext_data = self
            .atomic
            .as_ref()
            .map(|_| Bytes::from(firn_core::atomic::ext_data_from_txs(&atomic_txs, true)));
        let coreth = ext_data.is_some();
        let mut extra = fees
            .extra(gas_used + ext_gas_used)
            .map_err(|e| EvmError::Corrupt {
                height: ctx.number,
                reason: e.to_string(),
            })?;
        // subnet-EVM appends the predicate results to the fee state (since Durango).
        if self.warp_rules.is_some() {
            extra.extend(predicate_results.bytes());
        }
        let envelopes: Vec<_> = included.iter().map(|t| t.envelope.clone()).collect();
        let receipt_envelopes: Vec<_> = receipts.iter().map(TxReceipt::envelope).collect();
        let header = Header {
            parent_hash: parent.hash,
            ommers_hash: alloy_consensus::constants::EMPTY_OMMER_ROOT_HASH,
            beneficiary: ctx.beneficiary,
            state_root: inner.state.state_root(),
            transactions_root: calculate_transaction_root(&envelopes),
            receipts_root: calculate_receipt_root(&receipt_envelopes),
            logs_bloom: logs_bloom(receipts.iter().flat_map(|r| r.logs.iter())),
            difficulty: U256::from(1),
            number: ctx.number,
            gas_limit: ctx.gas_limit,
            gas_used,
            timestamp,
            extra_data: Bytes::from(extra),
            mix_hash: B256::ZERO,
            nonce: B64::ZERO,
            ext_data_hash: ext_data.as_deref().map(|e| ext_data_hash(e)),
            base_fee: Some(ctx.base_fee),
            ext_data_gas_used: coreth.then_some(ext_gas_used),
            block_gas_cost: Some(fees.block_gas_cost),
            blob_gas_used: Some(0),
            excess_blob_gas: Some(0),
            parent_beacon_block_root: Some(B256::ZERO),
        };
        let hash = header.hash();
        let block = Arc::new(Block {
            size: Block::rlp_size(&header, &included, ext_data.as_ref().map(|e| e.as_ref())),
            header,
            hash,
            txs: included,
            receipts,
            traces,
            dev_changes: changes.to_vec(),
            ext_data,
            atomic_txs,
            predicate_results,
        });
        if !replay && let Some(store) = self.lock_store().as_mut() {
            store.append(&StoredBlock {
                timestamp,
                hash,
                txs: block.txs.iter().map(|t| t.raw.clone()).collect(),
                changes: block.dev_changes.clone(),
                impersonated: block
                    .txs
                    .iter()
                    .enumerate()
                    .filter(|(_, t)| t.impersonated)
                    .map(|(i, t)| (i as u32, t.sender))
                    .collect(),
                atomic: block
                    .atomic_txs
                    .iter()
                    .map(|t| Bytes::from(t.bytes()))
                    .collect(),
                predicate_results: match block.predicate_results.is_empty() {
                    true => Vec::new(),
                    false => block.predicate_results.bytes(),
                },
            })?;
        }
        if let Some(backend) = &self.atomic
            && !block.atomic_txs.is_empty()
        {
            backend.accept(&block.atomic_txs);
            for t in &block.atomic_txs {
                inner.atomic_heights.insert(t.id(), block.header.number);
            }
            if !replay {
                self.lock_atomic_pool()
                    .retain(|t| !inner.atomic_heights.contains_key(&t.id()));
            }
        }
        let number = block.header.number;
        for (i, tx) in block.txs.iter().enumerate() {
            inner.tx_index.insert(tx.hash, (number, i));
        }
        for (id, message) in crate::warp::sent_messages(&block) {
            inner.warp_messages.insert(id, message);
        }
        inner.by_hash.insert(hash, number);
        inner.hashes.push(hash);
        inner.blocks.push(block.clone());
        let undo = inner.state.end_block();
        inner.undo_entries += undo.len();
        inner.undos.push_back(Arc::new(undo));
        while inner.undos.len() > STATE_HISTORY
            || (inner.undo_entries > MAX_HISTORY_ENTRIES && inner.undos.len() > 1)
        {
            if let Some(old) = inner.undos.pop_front() {
                inner.undo_entries -= old.len();
            }
        }
        if !replay {
            let mut pool = self.lock_pool();
            let senders: HashSet<Address> = block.txs.iter().map(|t| t.sender).collect();
            for s in senders {
                pool.drop_below(&s, inner.state.nonce(&s));
            }
            debug!(target: "evm", number, txs = block.txs.len(), gas_used, "block accepted");
        }
        // Replayed blocks too: the head moved, whoever waits on it.
        self.head_events.send_replace(number);
        Ok(Some(block))
    }
}

/// The fee fields of `parent`.
pub(crate) fn parent_fees(parent: &Block) -> ParentFees<'_> {
    ParentFees {
        number: parent.header.number,
        time: parent.header.timestamp,
        gas_used: parent.header.gas_used,
        base_fee: parent.header.base_fee.unwrap_or_default(),
        block_gas_cost: parent.header.block_gas_cost,
        extra: &parent.header.extra_data,
    }
}
