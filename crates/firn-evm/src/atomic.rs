//! The C-Chain's atomic txs (coreth's atomic block extension): ImportTx credits EVM accounts
//! with AVAX another chain exported; ExportTx debits them (and uses their nonce) to put AVAX
//! into another chain's shared memory.
//!
//! A chain opened with an [`AtomicBackend`] is shaped as coreth's C-Chain: its headers carry
//! `extDataHash` and `extDataGasUsed`, and each block carries its atomic txs as extra data
//! after the uncles (`[header, txs, uncles, version, extData]`). The backend checks a tx
//! against shared memory and the fx rules, and applies accepted txs to shared memory; this
//! module moves the AVAX in the EVM's state. Atomic txs run after a block's EVM txs, as in
//! coreth, and together use at most [`ATOMIC_GAS_LIMIT`] gas.

use alloy_primitives::{Address, B256, U256};
use firn_core::atomic::{ATOMIC_GAS_LIMIT, Tx, UnsignedTx, X2C_RATE};
use firn_core::ids::Id;
use std::collections::{HashSet, VecDeque};

use std::sync::MutexGuard;

use tracing::debug;

use crate::chain::EvmChain;
use crate::error::EvmError;
use crate::execute::BlockContext;
use crate::state::WorldState;

/// Most atomic txs waiting for a block (coreth's atomic mempool size).
pub const MAX_ATOMIC_POOL: usize = 4_096;

/// Txs dropped at block building that `atomic_tx` still knows (coreth's discarded cache).
pub const DROPPED_ATOMIC_KEPT: usize = 50;

/// Where an atomic tx stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AtomicTxState {
    /// In the pool, waiting for a block.
    Pooled,
    /// Dropped from the pool: it no longer verified when a block was built.
    Dropped,
    /// In the accepted block at this height.
    Accepted(u64),
}

/// Shared memory as the C-Chain sees it (the devnet implements it).
pub trait AtomicBackend: Send + Sync {
    /// Checks `tx` against everything but the EVM's state, at `base_fee` wei per gas: its
    /// syntax, fee, credentials and the UTXOs it imports. The error is coreth's text.
    fn verify(&self, tx: &Tx, base_fee: u64) -> Result<(), String>;
    /// Applies accepted `txs` to shared memory (also when a block is replayed on open).
    fn accept(&self, txs: &[Tx]);
}

/// `keccak256(rlp(ext_data))`: a header's `extDataHash` (coreth's `CalcExtDataHash`; the
/// empty extra data hashes as the empty string).
pub fn ext_data_hash(ext_data: &[u8]) -> B256 {
    let mut out = Vec::with_capacity(ext_data.len() + 9);
    alloy_rlp::Encodable::encode(ext_data, &mut out);
    alloy_primitives::keccak256(out)
}

/// AVAX in wei for `navax`.
fn wei(navax: u64) -> U256 {
    U256::from(navax) * U256::from(X2C_RATE)
}

/// Checks that `tx` can move its AVAX in `state` (coreth's `EVMStateTransfer` without the
/// writes): every export input's balance covers it and its nonce is the account's.
pub(crate) fn check_state(state: &WorldState, tx: &UnsignedTx) -> Result<(), &'static str> {
    if let UnsignedTx::Export(t) = tx {
        for i in &t.inputs {
            if state.balance(&i.address) < wei(i.amount) {
                return Err("insufficient funds");
            }
            if state.nonce(&i.address) != i.nonce {
                return Err("invalid nonce");
            }
        }
    }
    Ok(())
}

/// Moves `tx`'s AVAX in `state`; [`check_state`] must have passed.
pub(crate) fn transfer(state: &mut WorldState, tx: &UnsignedTx) {
    match tx {
        UnsignedTx::Import(t) => {
            for o in &t.outputs {
                state.credit(o.address, wei(o.amount));
            }
        }
        UnsignedTx::Export(t) => {
            let mut used: HashSet<Address> = HashSet::new();
            for i in &t.inputs {
                state.debit(i.address, wei(i.amount));
                if used.insert(i.address) {
                    state.set_nonce(i.address, i.nonce.saturating_add(1));
                }
            }
        }
    }
}

/// The UTXOs `tx` consumes from shared memory (two txs importing one conflict).
pub(crate) fn imported(tx: &Tx) -> Vec<Id> {
    match tx.unsigned() {
        UnsignedTx::Import(t) => t.imported_inputs.iter().map(|i| i.utxo_id()).collect(),
        UnsignedTx::Export(_) => Vec::new(),
    }
}

/// Picks, in order, the pooled `txs` a block can carry on `state` at `base_fee`, applying
/// each; returns them and their gas. Those that can never go in are returned apart, to be
/// dropped from the pool.
pub(crate) fn pack(
    state: &mut WorldState,
    backend: &dyn AtomicBackend,
    txs: Vec<Tx>,
    base_fee: u64,
    capacity: u64,
) -> (Vec<Tx>, u64, Vec<Id>) {
    let mut packed = Vec::new();
    let mut gas = 0u64;
    let mut dropped = Vec::new();
    let mut consumed: HashSet<Id> = HashSet::new();
    let limit = ATOMIC_GAS_LIMIT.min(capacity);
    for tx in txs {
        let used = tx.unsigned().gas_used();
        if gas.saturating_add(used) > limit {
            continue;
        }
        let inputs = imported(&tx);
        // The cheap checks first: signatures are recovered last.
        let fits = inputs.iter().all(|i| !consumed.contains(i))
            && check_state(state, tx.unsigned()).is_ok()
            && backend.verify(&tx, base_fee).is_ok();
        if !fits {
            dropped.push(tx.id());
            continue;
        }
        transfer(state, tx.unsigned());
        consumed.extend(inputs);
        gas += used;
        packed.push(tx);
    }
    (packed, gas, dropped)
}

impl EvmChain {
    /// Checks an atomic tx against shared memory and the head state and pools it for the next
    /// block (`avax.issueTx`); returns its ID, or coreth's reason it cannot go in.
    pub fn submit_atomic(&self, tx: Tx) -> Result<Id, String> {
        let Some(backend) = &self.atomic else {
            return Err("this chain carries no atomic txs".into());
        };
        let id = tx.id();
        if self.read().atomic_heights.contains_key(&id) {
            return Err(format!("already known: tx {id} was issued previously"));
        }
        let gas = tx.unsigned().gas_used();
        if gas > ATOMIC_GAS_LIMIT {
            return Err(format!(
                "tx gas usage ({gas}) exceeds maximum allowed mempool gas usage ({ATOMIC_GAS_LIMIT})"
            ));
        }
        {
            let pool = self.lock_atomic_pool();
            if pool.iter().any(|t| t.id() == id) {
                return Err(format!("already known: tx {id} is pending"));
            }
            if pool.len() >= MAX_ATOMIC_POOL {
                return Err("mempool full".into());
            }
            let inputs = imported(&tx);
            if let Some(other) = pool
                .iter()
                .find(|t| imported(t).iter().any(|i| inputs.contains(i)))
            {
                return Err(format!(
                    "conflict present: tx {id} imports a UTXO pending tx {} imports",
                    other.id()
                ));
            }
        }
        backend.verify(&tx, self.next_base_fee())?;
        check_state(&self.read().state, tx.unsigned())?;
        self.lock_atomic_pool().push(tx);
        // Issued again and valid now: no longer dropped (coreth evicts it likewise).
        self.lock_atomic_dropped().retain(|t| t.id() != id);
        debug!(target: "evm", %id, "atomic tx pooled");
        Ok(id)
    }

    /// The atomic tx `id` and where it stands (coreth's `getAtomicTx`): accepted, waiting in
    /// the pool, or among the last dropped from it.
    pub fn atomic_tx(&self, id: &Id) -> Option<(Tx, AtomicTxState)> {
        {
            let inner = self.read();
            if let Some(&height) = inner.atomic_heights.get(id) {
                let block = inner.blocks.get(height as usize)?;
                let tx = block.atomic_txs.iter().find(|t| t.id() == *id)?;
                return Some((tx.clone(), AtomicTxState::Accepted(height)));
            }
        }
        let pooled = self
            .lock_atomic_pool()
            .iter()
            .find(|t| t.id() == *id)
            .cloned();
        if let Some(tx) = pooled {
            return Some((tx, AtomicTxState::Pooled));
        }
        let dropped = self.lock_atomic_dropped();
        dropped
            .iter()
            .find(|t| t.id() == *id)
            .map(|t| (t.clone(), AtomicTxState::Dropped))
    }

    /// Whether this chain's blocks carry atomic txs (coreth's block shape).
    pub fn carries_atomic_txs(&self) -> bool {
        self.atomic.is_some()
    }

    pub(crate) fn lock_atomic_pool(&self) -> MutexGuard<'_, Vec<Tx>> {
        self.atomic_pool.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn lock_atomic_dropped(&self) -> MutexGuard<'_, VecDeque<Tx>> {
        self.atomic_dropped
            .lock()
            .unwrap_or_else(|p| p.into_inner())
    }

    /// The atomic txs waiting, in arrival order.
    pub(crate) fn pooled_atomic(&self) -> Vec<Tx> {
        self.lock_atomic_pool().clone()
    }

    /// Runs a block's atomic txs after its EVM txs: when building, those that fit in
    /// `capacity` (dropping from the pool those that no longer can go in); when replaying,
    /// every one. Returns them and their gas.
    pub(crate) fn execute_atomic(
        &self,
        state: &mut WorldState,
        backend: &dyn AtomicBackend,
        txs: Vec<Tx>,
        ctx: &BlockContext,
        capacity: u64,
        replay: bool,
    ) -> Result<(Vec<Tx>, u64), EvmError> {
        if !replay {
            let (packed, gas, dropped) =
                crate::atomic::pack(state, backend, txs, ctx.base_fee, capacity);
            if !dropped.is_empty() {
                debug!(target: "evm", dropped = dropped.len(), "atomic txs dropped");
                let dropped: HashSet<Id> = dropped.into_iter().collect();
                let mut pool = self.lock_atomic_pool();
                let mut kept = self.lock_atomic_dropped();
                for tx in pool.extract_if(.., |t| dropped.contains(&t.id())) {
                    if kept.len() >= DROPPED_ATOMIC_KEPT {
                        kept.pop_front();
                    }
                    kept.push_back(tx);
                }
            }
            return Ok((packed, gas));
        }
        let mut gas = 0u64;
        for tx in &txs {
            check_state(state, tx.unsigned()).map_err(|e| EvmError::Corrupt {
                height: ctx.number,
                reason: format!("atomic tx {} failed on replay: {e}", tx.id()),
            })?;
            crate::atomic::transfer(state, tx.unsigned());
            gas = gas.saturating_add(tx.unsigned().gas_used());
        }
        Ok((txs, gas))
    }
}
