//! The Warp precompile's reading functions (subnet-EVM's `handleWarpMessage`):
//! `getVerifiedWarpMessage(uint32 index)` and `getVerifiedWarpBlockHash(uint32 index)` answer
//! the `index`th Warp predicate of the running tx, with `valid = false` (and nothing else
//! charged) when there is none or the block builder found it unverified.

use alloy_primitives::{B256, U256};
use firn_core::warp::Message;
use firn_core::warp::payload::Payload;
use firn_core::warp::predicate::{Chunk, WarpGas, unpack};
use revm::context_interface::transaction::AccessListItemTr;
use revm::context_interface::{ContextTr, Transaction};

use super::WARP_ADDRESS;
use crate::stateful::{Call, Outcome};

/// Which reading function was called.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reading {
    /// `getVerifiedWarpMessage`: an `AddressedCall` payload.
    Message,
    /// `getVerifiedWarpBlockHash`: a `Hash` payload.
    BlockHash,
}

fn word(v: U256) -> [u8; 32] {
    v.to_be_bytes::<32>()
}

impl Reading {
    /// `(WarpMessage message, bool valid)` or `(WarpBlockHash warpBlockHash, bool valid)` for
    /// no message.
    fn invalid(self) -> Vec<u8> {
        match self {
            Reading::Message => [
                word(U256::from(64)),
                [0; 32],
                [0; 32],
                [0; 32],
                word(U256::from(96)),
                [0; 32],
            ]
            .concat(),
            Reading::BlockHash => vec![0; 96],
        }
    }

    /// The ABI output for `message`; `None` when its payload is not of this reading's kind.
    fn valid(self, message: &Message) -> Option<Vec<u8>> {
        let source = B256::from(*message.unsigned.source_chain_id.as_bytes());
        match (self, Payload::from_bytes(&message.unsigned.payload).ok()?) {
            (Reading::Message, Payload::AddressedCall(call)) => {
                // abi.encode((bytes32 sourceChainID, address originSenderAddress, bytes
                // payload), bool valid): the struct is dynamic, so the head holds its offset.
                let mut sender = [0u8; 32];
                let from = call.source_address.len().min(20);
                // go-ethereum's BytesToAddress keeps the last 20 bytes, left-padding shorter.
                sender[32 - from..]
                    .copy_from_slice(&call.source_address[call.source_address.len() - from..]);
                let mut out = [
                    word(U256::from(64)),
                    word(U256::from(1)),
                    source.0,
                    sender,
                    word(U256::from(96)),
                    word(U256::from(call.payload.len())),
                ]
                .concat();
                out.extend_from_slice(&call.payload);
                out.resize(out.len().next_multiple_of(32), 0);
                Some(out)
            }
            (Reading::BlockHash, Payload::Hash(hash)) => {
                Some([source.0, *hash.as_bytes(), word(U256::from(1))].concat())
            }
            _ => None,
        }
    }
}

/// The `index`th Warp predicate of the running tx.
fn predicate<CTX: ContextTr>(ctx: &CTX, index: usize) -> Option<Vec<Chunk>> {
    let item = ctx
        .tx()
        .access_list()?
        .filter(|item| *item.address() == WARP_ADDRESS)
        .nth(index)?;
    Some(item.storage_slots().map(|k| k.0).collect())
}

/// Runs `reading` for the tx whose predicates `failed` (by index) did not verify; `None` on
/// a chain that does not receive Warp messages, where none is valid.
pub(crate) fn get_verified<CTX: ContextTr>(
    ctx: &mut CTX,
    call: &mut Call<'_>,
    reading: Reading,
    failed: Option<&[usize]>,
    gas: &WarpGas,
) -> Outcome {
    if !call.charge(gas.get_verified_base) {
        return Outcome::OutOfGas;
    }
    // abi uint32: a whole word whose value fits.
    let Some(index) = call
        .arg_word(0)
        .map(U256::from_be_bytes)
        .and_then(|v| u32::try_from(v).ok())
    else {
        return Outcome::Error;
    };
    if index > i32::MAX as u32 {
        return Outcome::Error;
    }
    let index = index as usize;
    let chunks = match (predicate(ctx, index), failed) {
        (Some(chunks), Some(failed)) if !failed.contains(&index) => chunks,
        _ => return Outcome::Return(reading.invalid()),
    };
    let cost = gas.per_chunk.checked_mul(chunks.len() as u64);
    if !cost.is_some_and(|c| call.charge(c)) {
        return Outcome::OutOfGas;
    }
    let message = unpack(&chunks)
        .ok()
        .and_then(|bytes| Message::from_bytes(&bytes).ok());
    match message.and_then(|m| reading.valid(&m)) {
        Some(out) => Outcome::Return(out),
        None => Outcome::Error,
    }
}
