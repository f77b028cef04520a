//! Merkle proofs of an account and its slots (`eth_getProof`) at the head or any kept block:
//! the tries as they were are the head's, read with the undos' values over the paths they
//! changed ([`Trie::past`]), so nothing is copied and the untouched subtries' hashes are reused.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use alloy_primitives::{Address, B256, Bytes, U256, keccak256};
use alloy_trie::TrieAccount;

use super::WorldState;
use crate::history::Undos;
use crate::trie::{Past, Trie};

/// An account at one block with the proof of it against that block's state root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccountProof {
    /// Balance (zero when the account does not exist).
    pub balance: U256,
    /// Nonce.
    pub nonce: u64,
    /// Code hash (the empty code's for none; zero when the account does not exist).
    pub code_hash: B256,
    /// Root of its storage trie (zero when the account does not exist).
    pub storage_root: B256,
    /// The state trie's nodes on its path, root first.
    pub account_proof: Vec<Bytes>,
    /// Each asked slot, in the order asked.
    pub storage: Vec<SlotProof>,
}

/// One slot with the proof of it against its account's storage root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlotProof {
    /// The slot.
    pub slot: B256,
    /// Its value.
    pub value: U256,
    /// The storage trie's nodes on its path, root first (none when the storage is empty).
    pub proof: Vec<Bytes>,
}

/// A slot's leaf in a storage trie: `None` for zero (no leaf).
fn slot_leaf(value: U256) -> Option<Vec<u8>> {
    (!value.is_zero()).then(|| alloy_rlp::encode(value))
}

fn as_bytes(nodes: Vec<Vec<u8>>) -> Vec<Bytes> {
    nodes.into_iter().map(Bytes::from).collect()
}

impl WorldState {
    /// `address` and its `slots` at the block `undos` lead back to (empty: the head), with
    /// their proofs.
    pub fn prove(&self, address: &Address, slots: &[B256], undos: &Undos) -> AccountProof {
        // Each account's slots as they were, the oldest record first (it is the earliest value).
        let mut slot_overrides: HashMap<Address, BTreeMap<B256, Option<Vec<u8>>>> = HashMap::new();
        for undo in undos {
            for ((owner, slot), value) in &undo.slots {
                slot_overrides
                    .entry(*owner)
                    .or_default()
                    .entry(keccak256(slot.to_be_bytes::<32>()))
                    .or_insert_with(|| slot_leaf(*value));
            }
        }
        let empty = Trie::default();
        let storage_then = |owner: &Address| -> Past<'_> {
            let trie = self.storage_tries.get(owner).unwrap_or(&empty);
            trie.past(slot_overrides.get(owner).cloned().unwrap_or_default())
        };
        let fields = |owner: &Address| self.account_at(owner, undos);

        // The state trie with every account changed since (or not yet hashed) as it was.
        let touched: BTreeSet<Address> = undos
            .iter()
            .flat_map(|u| u.accounts.keys().copied())
            .chain(slot_overrides.keys().copied())
            .chain(self.dirty.iter().copied())
            .collect();
        let mut account_overrides = BTreeMap::new();
        for owner in &touched {
            let leaf = fields(owner).map(|(balance, nonce, code_hash)| {
                alloy_rlp::encode(TrieAccount {
                    nonce,
                    balance,
                    storage_root: storage_then(owner).root(),
                    code_hash,
                })
            });
            account_overrides.insert(keccak256(owner), leaf);
        }
        let state_then = self.account_trie.past(account_overrides);

        let storage = storage_then(address);
        // As geth: an account that does not exist has zero hashes.
        let (balance, nonce, code_hash, storage_root) = match fields(address) {
            Some((balance, nonce, code_hash)) => (balance, nonce, code_hash, storage.root()),
            None => (U256::ZERO, 0, B256::ZERO, B256::ZERO),
        };
        let storage = slots
            .iter()
            .map(|slot| SlotProof {
                slot: *slot,
                value: self.storage_at(address, U256::from_be_bytes(slot.0), undos),
                proof: as_bytes(storage.proof(&keccak256(slot))),
            })
            .collect();
        AccountProof {
            balance,
            nonce,
            code_hash,
            storage_root,
            account_proof: as_bytes(state_then.proof(&keccak256(address))),
            storage,
        }
    }
}
