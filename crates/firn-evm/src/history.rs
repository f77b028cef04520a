//! The state as it was at recent blocks, as a geth full node keeps the last 128 in memory:
//! each accepted block leaves a [`BlockUndo`] with the values it overwrote, and the state at
//! block `b` is the head's read through the undos of blocks `b+1..=head`, the oldest block's
//! record first (it holds the value from before all of them).
//!
//! Kept for [`STATE_HISTORY`] blocks (fewer when they changed more than
//! [`MAX_HISTORY_ENTRIES`] accounts and slots), in memory; opening a chain replays its blocks,
//! which rebuilds them.

use std::collections::HashMap;
use std::sync::Arc;

use alloy_primitives::{Address, B256, U256};

/// How many blocks back the state can be read (geth's `TriesInMemory`).
pub const STATE_HISTORY: usize = 128;
/// Accounts and slots the kept undos hold at most (about 100 MB): a run of blocks that changed
/// more keeps fewer blocks.
pub const MAX_HISTORY_ENTRIES: usize = 1_000_000;

/// An account's balance, nonce and code hash before a block; `None`: it did not exist.
pub type AccountBefore = Option<(U256, u64, B256)>;

/// What one block overwrote: each account's fields and each slot's value as they were before
/// it (the first write of the block records them; later ones keep that record).
#[derive(Debug, Clone, Default)]
pub struct BlockUndo {
    pub(crate) accounts: HashMap<Address, AccountBefore>,
    pub(crate) slots: HashMap<(Address, U256), U256>,
}

impl BlockUndo {
    /// Accounts and slots recorded.
    pub fn len(&self) -> usize {
        self.accounts.len() + self.slots.len()
    }

    /// Whether the block changed nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The undos of the blocks after the one read, oldest first.
pub type Undos = [Arc<BlockUndo>];

/// The account's fields as `undos` remember them, if any of them changed it.
pub(crate) fn account_before(undos: &Undos, address: &Address) -> Option<AccountBefore> {
    undos.iter().find_map(|u| u.accounts.get(address).copied())
}

/// The slot's value as `undos` remember it, if any of them changed it.
pub(crate) fn slot_before(undos: &Undos, address: &Address, slot: U256) -> Option<U256> {
    undos
        .iter()
        .find_map(|u| u.slots.get(&(*address, slot)).copied())
}
