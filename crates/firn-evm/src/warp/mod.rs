//! Warp on an EVM chain. Sending: the messages a block sent are read back from the
//! `SendWarpMessage` logs of the Warp precompile, so that they are kept (and rebuilt on
//! replay) with no side channel. Receiving: [`receive`] verifies the signed messages txs carry
//! as predicates when a block is built, and [`precompile`] answers `getVerifiedWarpMessage`
//! and `getVerifiedWarpBlockHash` from them.

pub(crate) mod precompile;
pub mod receive;

use alloy_primitives::{Address, B256, Bytes, U256, keccak256};

use crate::block::Block;

/// The Warp precompile's address.
pub const WARP_ADDRESS: Address =
    Address::new([2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5]);

/// `(messageID, unsigned message bytes)` of every successful `sendWarpMessage` in `block`.
pub fn sent_messages(block: &Block) -> Vec<(B256, Bytes)> {
    let topic = keccak256("SendWarpMessage(address,bytes32,bytes)");
    let mut out = Vec::new();
    for r in block.receipts.iter().filter(|r| r.success) {
        for log in &r.logs {
            let topics = log.data.topics();
            if log.address != WARP_ADDRESS || topics.len() != 3 || topics[0] != topic {
                continue;
            }
            if let Some(message) = send_warp_message_bytes(&log.data.data) {
                out.push((topics[2], Bytes::copy_from_slice(message)));
            }
        }
    }
    out
}

/// The unsigned message in a `SendWarpMessage` log's data (`abi.encode(bytes)`: offset 32,
/// length, bytes); `None` when the data is not that.
pub fn send_warp_message_bytes(data: &[u8]) -> Option<&[u8]> {
    if U256::from_be_slice(data.get(..32)?) != U256::from(32) {
        return None;
    }
    let len = usize::try_from(U256::from_be_slice(data.get(32..64)?)).ok()?;
    data.get(64..64usize.checked_add(len)?)
}
