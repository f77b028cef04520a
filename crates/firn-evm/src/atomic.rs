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
use std::collections::HashSet;

use crate::state::WorldState;

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
