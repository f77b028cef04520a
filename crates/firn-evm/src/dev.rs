//! The dev-loop's changes to state (`anvil_setBalance` and friends): applied at the start of
//! a block the chain mines for them, recorded with the block so that a restart, a re-run for
//! tracing and the state roots all see them, and so that every state the chain ever reported
//! is one its blocks explain.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use alloy_primitives::{Address, B256, Bytes, KECCAK256_EMPTY, U256, keccak256};
use revm::DatabaseRef;
use revm::bytecode::Bytecode;
use revm::state::{Account, AccountInfo, EvmState, EvmStorageSlot};

use crate::block::Block;
use crate::chain::EvmChain;
use crate::error::EvmError;

/// The most changes one block carries, and the most bytes of code one change sets (EIP-170's
/// limit on deployed code, doubled: tools set init-sized code too).
pub const MAX_CHANGES: usize = 1024;
/// The largest code a change may set.
pub const MAX_CODE: usize = 2 * 24_576;

/// One change to an account, outside any transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DevChange {
    /// Sets the balance, in wei.
    Balance(Address, U256),
    /// Sets the nonce.
    Nonce(Address, u64),
    /// Sets the runtime code (empty removes it).
    Code(Address, Bytes),
    /// Sets one storage slot.
    Storage(Address, U256, U256),
}

impl DevChange {
    /// The account changed.
    pub fn address(&self) -> Address {
        match self {
            Self::Balance(a, _) | Self::Nonce(a, _) | Self::Code(a, _) | Self::Storage(a, _, _) => {
                *a
            }
        }
    }

    /// The change as revm reports a transaction's, over what `db` holds now.
    pub(crate) fn as_state<D: DatabaseRef>(&self, db: &D) -> EvmState {
        let address = self.address();
        let info = db.basic_ref(address).ok().flatten().unwrap_or(AccountInfo {
            code_hash: KECCAK256_EMPTY,
            code: Some(Bytecode::default()),
            ..Default::default()
        });
        let mut account = Account::from(info);
        match self {
            Self::Balance(_, balance) => account.info.balance = *balance,
            Self::Nonce(_, nonce) => account.info.nonce = *nonce,
            Self::Code(_, code) => {
                account.info.code_hash = if code.is_empty() {
                    KECCAK256_EMPTY
                } else {
                    keccak256(code)
                };
                account.info.code = Some(Bytecode::new_raw(code.clone()));
            }
            Self::Storage(_, slot, value) => {
                let before = db.storage_ref(address, *slot).unwrap_or_default();
                account.storage.insert(
                    *slot,
                    EvmStorageSlot::new_changed(before, *value, Default::default()),
                );
            }
        }
        account.mark_touch();
        EvmState::from_iter([(address, account)])
    }

    /// Appends the change's record: a kind byte, the address, then its value.
    pub(crate) fn encode(&self, out: &mut Vec<u8>) {
        let (kind, address) = match self {
            Self::Balance(a, _) => (0u8, a),
            Self::Nonce(a, _) => (1, a),
            Self::Code(a, _) => (2, a),
            Self::Storage(a, _, _) => (3, a),
        };
        out.push(kind);
        out.extend_from_slice(address.as_slice());
        match self {
            Self::Balance(_, v) => out.extend_from_slice(&v.to_be_bytes::<32>()),
            Self::Nonce(_, n) => out.extend_from_slice(&n.to_be_bytes()),
            Self::Code(_, code) => {
                out.extend_from_slice(&(code.len() as u32).to_be_bytes());
                out.extend_from_slice(code);
            }
            Self::Storage(_, slot, value) => {
                out.extend_from_slice(&slot.to_be_bytes::<32>());
                out.extend_from_slice(&value.to_be_bytes::<32>());
            }
        }
    }

    /// Reads one record [`encode`](Self::encode) wrote, with `take` giving the next bytes.
    pub(crate) fn decode<'a>(take: &mut impl FnMut(usize) -> Option<&'a [u8]>) -> Option<Self> {
        let kind = take(1)?[0];
        let address = Address::from_slice(take(20)?);
        let word = |b: &[u8]| U256::from_be_bytes::<32>(B256::from_slice(b).0);
        Some(match kind {
            0 => Self::Balance(address, word(take(32)?)),
            1 => Self::Nonce(address, u64::from_be_bytes(take(8)?.try_into().ok()?)),
            2 => {
                let len = u32::from_be_bytes(take(4)?.try_into().ok()?) as usize;
                if len > MAX_CODE {
                    return None;
                }
                Self::Code(address, Bytes::copy_from_slice(take(len)?))
            }
            3 => {
                let slot = word(take(32)?);
                Self::Storage(address, slot, word(take(32)?))
            }
            _ => return None,
        })
    }
}

impl EvmChain {
    /// Mines one block now (`evm_mine`): the pool's ready transactions after `changes`, and
    /// none if none are ready; at `timestamp`, else at the pinned next time or the clock's
    /// (plus the dev offset), never before the head's.
    pub fn mine(
        &self,
        changes: Vec<DevChange>,
        timestamp: Option<u64>,
    ) -> Result<Arc<Block>, EvmError> {
        if changes.len() > MAX_CHANGES {
            return Err(EvmError::Dev(format!(
                "{} changes in one block; at most {MAX_CHANGES}",
                changes.len()
            )));
        }
        if let Some(DevChange::Code(_, code)) = changes
            .iter()
            .find(|c| matches!(c, DevChange::Code(_, code) if code.len() > MAX_CODE))
        {
            return Err(EvmError::Dev(format!(
                "code of {} bytes; at most {MAX_CODE}",
                code.len()
            )));
        }
        let _building = self.lock_build();
        let head = self.head().header.timestamp;
        if let Some(t) = timestamp
            && t < head
        {
            return Err(EvmError::Dev(timestamp_error(t)));
        }
        let candidates = self.ready_txs();
        let time = timestamp.unwrap_or_else(|| self.next_block_time());
        let block = self
            .execute_block(candidates, self.pooled_atomic(), time, None, &changes, true)?
            .ok_or_else(|| EvmError::Dev("no block was made".into()))?;
        *self.lock_next_timestamp() = None;
        Ok(block)
    }

    /// Adds `seconds` to every later block's time (`evm_increaseTime`); the total added.
    pub fn increase_time(&self, seconds: u64) -> u64 {
        let before = self
            .time_offset
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |t| {
                Some(t.saturating_add(seconds))
            })
            .unwrap_or_default();
        before.saturating_add(seconds)
    }

    /// The seconds [`increase_time`](Self::increase_time) added so far.
    pub fn time_offset(&self) -> u64 {
        self.time_offset.load(Ordering::Relaxed)
    }

    /// Pins the next block's time (`evm_setNextBlockTimestamp`); refused before the head's.
    pub fn set_next_timestamp(&self, timestamp: u64) -> Result<(), EvmError> {
        if timestamp < self.head().header.timestamp {
            return Err(EvmError::Dev(timestamp_error(timestamp)));
        }
        *self.lock_next_timestamp() = Some(timestamp);
        Ok(())
    }
}

/// anvil's words for a time before the head's.
fn timestamp_error(t: u64) -> String {
    format!("Timestamp error: {t} is lower than previous block's timestamp")
}
