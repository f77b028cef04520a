//! The world state: accounts, their storage and code, in memory. revm reads it through
//! [`StateDb`] (a `DatabaseRef`); a transaction's changes are applied with
//! [`WorldState::apply`]; [`WorldState::state_root`] hashes it as Ethereum's state trie.
//! Each account's storage is mirrored in an incremental [`Trie`], updated as slots are
//! written, so a block rehashes only the paths of the slots it touched. While a block is built
//! the state keeps what it overwrites ([`WorldState::begin_block`]), so that earlier blocks'
//! state stays readable ([`crate::history`]).

use std::collections::{HashMap, HashSet};
use std::convert::Infallible;

use alloy_primitives::{Address, B256, Bytes, KECCAK256_EMPTY, U256, keccak256};
use alloy_trie::{EMPTY_ROOT_HASH, TrieAccount};
use revm::DatabaseRef;
use revm::bytecode::Bytecode;
use revm::state::{AccountInfo, EvmState};

use std::sync::Arc;

use crate::genesis::GenesisAccount;
use crate::history::{BlockUndo, Undos, account_before, slot_before};
use crate::trie::Trie;

mod past;

pub use past::{AccountChange, AccountProof, SlotProof};

/// One account.
#[derive(Debug, Clone, Default)]
pub struct Account {
    /// Balance in wei.
    pub balance: U256,
    /// Nonce.
    pub nonce: u64,
    /// keccak of the code (`KECCAK256_EMPTY` for none).
    pub code_hash: B256,
    /// Non-zero storage slots.
    pub storage: HashMap<U256, U256>,
}

impl Account {
    fn is_empty(&self) -> bool {
        self.balance.is_zero() && self.nonce == 0 && self.code_hash == KECCAK256_EMPTY
    }
}

/// Every account, code by hash, and each account's storage trie.
#[derive(Debug, Clone, Default)]
pub struct WorldState {
    accounts: HashMap<Address, Account>,
    codes: HashMap<B256, Bytecode>,
    storage_tries: HashMap<Address, Trie>,
    /// The state trie, brought up to date from `dirty` by [`WorldState::state_root`].
    account_trie: Trie,
    dirty: HashSet<Address>,
    /// What the block being built overwrote, while one is.
    journal: Option<BlockUndo>,
}

/// Writes one slot into a storage trie (zero removes it).
fn write_slot(trie: &mut Trie, slot: U256, value: U256) {
    let key = keccak256(slot.to_be_bytes::<32>());
    if value.is_zero() {
        trie.remove(&key);
    } else {
        trie.insert(key, alloy_rlp::encode(value));
    }
}

impl WorldState {
    /// The state a genesis `alloc` describes.
    pub fn from_alloc<'a>(
        alloc: impl IntoIterator<Item = (&'a Address, &'a GenesisAccount)>,
    ) -> Self {
        let mut state = Self::default();
        for (addr, g) in alloc {
            let code_hash = state.insert_code(g.code.clone());
            let storage: HashMap<U256, U256> = g
                .storage
                .iter()
                .map(|(k, v)| (U256::from_be_bytes(k.0), U256::from_be_bytes(v.0)))
                .filter(|(_, v)| !v.is_zero())
                .collect();
            let trie = state.storage_tries.entry(*addr).or_default();
            for (slot, value) in &storage {
                write_slot(trie, *slot, *value);
            }
            state.dirty.insert(*addr);
            state.accounts.insert(
                *addr,
                Account {
                    balance: g.balance,
                    nonce: g.nonce,
                    code_hash,
                    storage,
                },
            );
        }
        state
    }

    fn insert_code(&mut self, code: Bytes) -> B256 {
        if code.is_empty() {
            return KECCAK256_EMPTY;
        }
        let hash = keccak256(&code);
        self.codes
            .entry(hash)
            .or_insert_with(|| Bytecode::new_raw(code));
        hash
    }

    /// Starts recording what a block overwrites.
    pub fn begin_block(&mut self) {
        self.journal = Some(BlockUndo::default());
    }

    /// Stops recording: what the block overwrote.
    pub fn end_block(&mut self) -> BlockUndo {
        self.journal.take().unwrap_or_default()
    }

    /// Records `address`'s fields before the block's first change to it.
    fn note_account(&mut self, address: Address) {
        let Some(journal) = &mut self.journal else {
            return;
        };
        journal.accounts.entry(address).or_insert_with(|| {
            self.accounts
                .get(&address)
                .map(|a| (a.balance, a.nonce, a.code_hash))
        });
    }

    /// Records a slot's value before the block's first change to it.
    fn note_slot(&mut self, address: Address, slot: U256) {
        let Some(journal) = &mut self.journal else {
            return;
        };
        let before = self
            .accounts
            .get(&address)
            .and_then(|a| a.storage.get(&slot).copied())
            .unwrap_or_default();
        journal.slots.entry((address, slot)).or_insert(before);
    }

    /// Records every slot of `address` before its storage is wiped.
    fn note_wipe(&mut self, address: Address) {
        let Some(journal) = &mut self.journal else {
            return;
        };
        if let Some(a) = self.accounts.get(&address) {
            for (slot, value) in &a.storage {
                journal.slots.entry((address, *slot)).or_insert(*value);
            }
        }
    }

    /// The account's balance, nonce and code hash at the block `undos` lead back to (`None`:
    /// it did not exist).
    pub fn account_at(&self, address: &Address, undos: &Undos) -> Option<(U256, u64, B256)> {
        account_before(undos, address).unwrap_or_else(|| {
            self.accounts
                .get(address)
                .map(|a| (a.balance, a.nonce, a.code_hash))
        })
    }

    /// A storage slot at the block `undos` lead back to.
    pub fn storage_at(&self, address: &Address, slot: U256, undos: &Undos) -> U256 {
        slot_before(undos, address, slot).unwrap_or_else(|| self.storage(address, slot))
    }

    /// Code by its hash (empty for none).
    pub fn code_by_hash(&self, hash: &B256) -> Bytes {
        self.codes
            .get(hash)
            .map(Bytecode::original_bytes)
            .unwrap_or_default()
    }

    /// The account at `address`, if it exists.
    pub fn account(&self, address: &Address) -> Option<&Account> {
        self.accounts.get(address)
    }

    /// Balance (0 for a missing account).
    pub fn balance(&self, address: &Address) -> U256 {
        self.accounts.get(address).map_or(U256::ZERO, |a| a.balance)
    }

    /// Nonce (0 for a missing account).
    pub fn nonce(&self, address: &Address) -> u64 {
        self.accounts.get(address).map_or(0, |a| a.nonce)
    }

    /// Runtime code (empty for none).
    pub fn code(&self, address: &Address) -> Bytes {
        self.accounts
            .get(address)
            .and_then(|a| self.codes.get(&a.code_hash))
            .map(Bytecode::original_bytes)
            .unwrap_or_default()
    }

    /// A storage slot.
    pub fn storage(&self, address: &Address, slot: U256) -> U256 {
        self.accounts
            .get(address)
            .and_then(|a| a.storage.get(&slot).copied())
            .unwrap_or_default()
    }

    /// Adds `amount` to a balance (native minter, rewards), creating the account if needed.
    pub fn credit(&mut self, address: Address, amount: U256) {
        let a = self.touch(address);
        a.balance = a.balance.saturating_add(amount);
    }

    /// `address`'s account for a direct write, noted for undo and the state root.
    fn touch(&mut self, address: Address) -> &mut Account {
        self.note_account(address);
        self.dirty.insert(address);
        self.accounts.entry(address).or_insert_with(|| Account {
            code_hash: KECCAK256_EMPTY,
            ..Default::default()
        })
    }

    /// Takes `amount` from `address`'s balance (to zero at most): an atomic export.
    pub fn debit(&mut self, address: Address, amount: U256) {
        let a = self.touch(address);
        a.balance = a.balance.saturating_sub(amount);
    }

    /// Sets `address`'s nonce: an atomic export uses the account's nonce.
    pub fn set_nonce(&mut self, address: Address, nonce: u64) {
        let a = self.touch(address);
        a.nonce = nonce;
    }

    /// Gives `address` nonce 1 and `code`, as subnet-evm does to an activated precompile.
    pub fn install_precompile(&mut self, address: Address, code: Bytes) {
        let code_hash = self.insert_code(code);
        self.note_account(address);
        self.dirty.insert(address);
        let a = self.accounts.entry(address).or_default();
        a.nonce = 1;
        a.code_hash = code_hash;
    }

    /// Sets one storage slot directly (stateful precompiles keep their state this way).
    pub fn set_storage(&mut self, address: Address, slot: U256, value: U256) {
        self.note_account(address);
        self.note_slot(address, slot);
        self.dirty.insert(address);
        let a = self.accounts.entry(address).or_insert_with(|| Account {
            code_hash: KECCAK256_EMPTY,
            nonce: 1,
            ..Default::default()
        });
        if value.is_zero() {
            a.storage.remove(&slot);
        } else {
            a.storage.insert(slot, value);
        }
        write_slot(self.storage_tries.entry(address).or_default(), slot, value);
    }

    /// Applies one transaction's changes as revm reports them (EIP-161: touched empty
    /// accounts are removed).
    pub fn apply(&mut self, changes: EvmState) {
        for (address, account) in changes {
            if !account.is_touched() {
                continue;
            }
            self.note_account(address);
            if account.is_selfdestructed() || account.is_created() {
                self.note_wipe(address);
            }
            for (slot, value) in &account.storage {
                if value.is_changed() {
                    self.note_slot(address, *slot);
                }
            }
            self.dirty.insert(address);
            if account.is_selfdestructed() {
                self.accounts.remove(&address);
                self.storage_tries.remove(&address);
                continue;
            }
            if let Some(code) = &account.info.code
                && account.info.code_hash != KECCAK256_EMPTY
            {
                self.codes
                    .entry(account.info.code_hash)
                    .or_insert_with(|| code.clone());
            }
            let entry = self.accounts.entry(address).or_default();
            let trie = self.storage_tries.entry(address).or_default();
            if account.is_created() {
                entry.storage.clear();
                *trie = Trie::default();
            }
            entry.balance = account.info.balance;
            entry.nonce = account.info.nonce;
            entry.code_hash = account.info.code_hash;
            for (slot, value) in account.storage {
                if !value.is_changed() {
                    continue;
                }
                write_slot(trie, slot, value.present_value);
                if value.present_value.is_zero() {
                    entry.storage.remove(&slot);
                } else {
                    entry.storage.insert(slot, value.present_value);
                }
            }
            if entry.is_empty() && entry.storage.is_empty() {
                self.accounts.remove(&address);
                self.storage_tries.remove(&address);
            }
        }
    }

    /// The state root; only accounts (and storage slots) written since the last call are
    /// rehashed.
    pub fn state_root(&mut self) -> B256 {
        for address in std::mem::take(&mut self.dirty) {
            let key = keccak256(address);
            let Some(a) = self.accounts.get(&address) else {
                self.account_trie.remove(&key);
                continue;
            };
            let storage_root = self
                .storage_tries
                .get_mut(&address)
                .map_or(EMPTY_ROOT_HASH, Trie::root);
            let leaf = TrieAccount {
                nonce: a.nonce,
                balance: a.balance,
                storage_root,
                code_hash: a.code_hash,
            };
            self.account_trie.insert(key, alloy_rlp::encode(leaf));
        }
        self.account_trie.root()
    }
}

/// What revm reads during one execution: the state and the recent block hashes.
#[derive(Debug, Clone, Copy)]
pub struct StateDb<'a> {
    /// The state.
    pub state: &'a WorldState,
    /// Block hashes by height (for `BLOCKHASH`).
    pub hashes: &'a [B256],
    /// The undos of the blocks after the one executed on (empty: the head).
    pub undos: &'a [Arc<BlockUndo>],
}

impl DatabaseRef for StateDb<'_> {
    type Error = Infallible;

    fn basic_ref(&self, address: Address) -> Result<Option<AccountInfo>, Self::Error> {
        Ok(self
            .state
            .account_at(&address, self.undos)
            .map(|(balance, nonce, code_hash)| {
                let code = self.state.codes.get(&code_hash).cloned();
                AccountInfo {
                    balance,
                    nonce,
                    code_hash,
                    account_id: None,
                    code: Some(code.unwrap_or_default()),
                }
            }))
    }

    fn code_by_hash_ref(&self, code_hash: B256) -> Result<Bytecode, Self::Error> {
        Ok(self
            .state
            .codes
            .get(&code_hash)
            .cloned()
            .unwrap_or_default())
    }

    fn storage_ref(&self, address: Address, index: U256) -> Result<U256, Self::Error> {
        Ok(self.state.storage_at(&address, index, self.undos))
    }

    fn block_hash_ref(&self, number: u64) -> Result<B256, Self::Error> {
        Ok(usize::try_from(number)
            .ok()
            .and_then(|n| self.hashes.get(n).copied())
            .unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_state_has_the_empty_root() {
        assert_eq!(WorldState::default().state_root(), EMPTY_ROOT_HASH);
    }

    #[test]
    fn one_funded_account_matches_geth() {
        // geth: a genesis allocating 1 wei to 0x…01 has this state root.
        let mut alloc = std::collections::BTreeMap::new();
        alloc.insert(
            Address::with_last_byte(1),
            GenesisAccount {
                balance: U256::from(1),
                ..Default::default()
            },
        );
        let mut s = WorldState::from_alloc(&alloc);
        let root = s.state_root();
        let expected = alloy_trie::root::state_root_unhashed([(
            Address::with_last_byte(1),
            TrieAccount {
                nonce: 0,
                balance: U256::from(1),
                storage_root: EMPTY_ROOT_HASH,
                code_hash: KECCAK256_EMPTY,
            },
        )]);
        assert_eq!(root, expected);
    }

    /// The root rebuilt from scratch with alloy-trie.
    fn full_root(s: &WorldState) -> B256 {
        alloy_trie::root::state_root_unhashed(s.accounts.iter().map(|(addr, a)| {
            let storage_root = alloy_trie::root::storage_root_unhashed(
                a.storage
                    .iter()
                    .map(|(k, v)| (B256::from(k.to_be_bytes()), *v)),
            );
            (
                *addr,
                TrieAccount {
                    nonce: a.nonce,
                    balance: a.balance,
                    storage_root,
                    code_hash: a.code_hash,
                },
            )
        }))
    }

    #[test]
    fn incremental_root_matches_a_rebuild_as_accounts_change() {
        let mut s = WorldState::default();
        for round in 0..20u64 {
            for i in 0..(round * 5 + 1) {
                let a = Address::with_last_byte((i * 7 % 90) as u8);
                s.credit(a, U256::from(round + i));
                s.set_storage(
                    Address::with_last_byte(200),
                    U256::from(i * 13 % 50),
                    U256::from((round + i) % 3),
                );
            }
            s.install_precompile(Address::with_last_byte(201), Bytes::from_static(&[1]));
            assert_eq!(s.state_root(), full_root(&s), "round {round}");
        }
    }
}
