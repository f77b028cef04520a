//! The state as it was at a kept block, and as it became part-way through one, read without
//! copying it: the head's tries with the undos' values over the paths they changed
//! ([`Trie::past`]), and optionally changes on top. It hashes to that block's state root
//! (`debug_intermediateRoots`) and proves accounts and slots against it (`eth_getProof`);
//! the untouched subtries' hashes are reused, so either costs about what changed since.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use alloy_primitives::{Address, B256, Bytes, KECCAK256_EMPTY, U256, keccak256};
use alloy_trie::{EMPTY_ROOT_HASH, TrieAccount};

use super::WorldState;
use crate::history::{AccountBefore, Undos};
use crate::trie::{Past, Trie};

/// An account and its slots with the proof of them against one block's state root.
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

/// An account as a run left it, to read on top of a block's state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccountChange {
    /// The account.
    pub address: Address,
    /// Balance, nonce and code hash; `None`: it is gone (self-destructed).
    pub fields: AccountBefore,
    /// Whether its storage was wiped first (created or self-destructed).
    pub storage_cleared: bool,
    /// Slots it read or wrote, with their values now.
    pub slots: Vec<(U256, U256)>,
}

/// A slot's leaf in a storage trie: `None` for zero (no leaf).
fn slot_leaf(value: U256) -> Option<Vec<u8>> {
    (!value.is_zero()).then(|| alloy_rlp::encode(value))
}

fn as_bytes(nodes: Vec<Vec<u8>>) -> Vec<Bytes> {
    nodes.into_iter().map(Bytes::from).collect()
}

/// The state at the block `undos` lead back to, with changes on top.
struct View<'a> {
    state: &'a WorldState,
    undos: &'a Undos,
    /// Each account's slots that differ from the head's tries.
    slots: HashMap<Address, BTreeMap<B256, Option<Vec<u8>>>>,
    /// Accounts whose fields come from changes.
    accounts: HashMap<Address, AccountBefore>,
    /// Accounts whose storage starts empty.
    cleared: HashSet<Address>,
    empty: Trie,
}

impl<'a> View<'a> {
    fn new(state: &'a WorldState, undos: &'a Undos) -> Self {
        // The oldest record of a slot holds its value from before all of the undos.
        let mut slots: HashMap<Address, BTreeMap<B256, Option<Vec<u8>>>> = HashMap::new();
        for undo in undos {
            for ((owner, slot), value) in &undo.slots {
                slots
                    .entry(*owner)
                    .or_default()
                    .entry(keccak256(slot.to_be_bytes::<32>()))
                    .or_insert_with(|| slot_leaf(*value));
            }
        }
        Self {
            state,
            undos,
            slots,
            accounts: HashMap::new(),
            cleared: HashSet::new(),
            empty: Trie::default(),
        }
    }

    fn apply(&mut self, changes: &[AccountChange]) {
        for c in changes {
            let slots = self.slots.entry(c.address).or_default();
            if c.storage_cleared {
                self.cleared.insert(c.address);
                slots.clear();
            }
            for (slot, value) in &c.slots {
                slots.insert(keccak256(slot.to_be_bytes::<32>()), slot_leaf(*value));
            }
            self.accounts.insert(c.address, c.fields);
        }
    }

    fn fields(&self, owner: &Address) -> AccountBefore {
        match self.accounts.get(owner) {
            Some(f) => *f,
            None => self.state.account_at(owner, self.undos),
        }
    }

    fn storage(&self, owner: &Address) -> Past<'_> {
        let trie = if self.cleared.contains(owner) {
            &self.empty
        } else {
            self.state.storage_tries.get(owner).unwrap_or(&self.empty)
        };
        trie.past(self.slots.get(owner).cloned().unwrap_or_default())
    }

    /// The state trie, with every account that differs from the head's trie as it is here.
    fn state_trie(&self) -> Past<'_> {
        let touched: BTreeSet<Address> = self
            .undos
            .iter()
            .flat_map(|u| u.accounts.keys().copied())
            .chain(self.slots.keys().copied())
            .chain(self.accounts.keys().copied())
            .chain(self.state.dirty.iter().copied())
            .collect();
        let mut overrides = BTreeMap::new();
        for owner in &touched {
            let leaf = self.fields(owner).and_then(|(balance, nonce, code_hash)| {
                let storage_root = self.storage(owner).root();
                // An account left empty, without storage, is removed (EIP-161).
                let empty = balance.is_zero() && nonce == 0 && code_hash == KECCAK256_EMPTY;
                (!(empty && storage_root == EMPTY_ROOT_HASH)).then(|| {
                    alloy_rlp::encode(TrieAccount {
                        nonce,
                        balance,
                        storage_root,
                        code_hash,
                    })
                })
            });
            overrides.insert(keccak256(owner), leaf);
        }
        self.state.account_trie.past(overrides)
    }
}

impl WorldState {
    /// `address` and its `slots` at the block `undos` lead back to (empty: the head), with
    /// their proofs.
    pub fn prove(&self, address: &Address, slots: &[B256], undos: &Undos) -> AccountProof {
        let view = View::new(self, undos);
        let storage = view.storage(address);
        // As geth: an account that does not exist has zero hashes.
        let (balance, nonce, code_hash, storage_root) = match view.fields(address) {
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
            account_proof: as_bytes(view.state_trie().proof(&keccak256(address))),
            storage,
        }
    }

    /// The state root of the block `undos` lead back to with `changes` on top.
    pub fn root_with(&self, undos: &Undos, changes: &[AccountChange]) -> B256 {
        let mut view = View::new(self, undos);
        view.apply(changes);
        view.state_trie().root()
    }
}
