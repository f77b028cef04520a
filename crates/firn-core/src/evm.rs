//! EVM hashing helpers: keccak-256, event topics and contract addresses.
//!
//! The indexer recognises token transfers and Warp/ICM events by their topic0, and contract
//! deployments by the CREATE address rule; these are the primitives for both.

use sha3::{Digest, Keccak256};

/// keccak-256 of `bytes`.
pub fn keccak256(bytes: &[u8]) -> [u8; 32] {
    Keccak256::digest(bytes).into()
}

/// An event's topic0: keccak-256 of its canonical signature, e.g. `Transfer(address,address,uint256)`.
pub fn event_topic(signature: &str) -> [u8; 32] {
    keccak256(signature.as_bytes())
}

/// The address a CREATE from `deployer` at `nonce` deploys to: `keccak256(rlp([deployer, nonce]))[12..]`.
pub fn create_address(deployer: &[u8; 20], nonce: u64) -> [u8; 20] {
    // RLP: a 20-byte string is 0x94 ‖ bytes; a nonce is 0x80 for zero, itself below 0x80,
    // else 0x80+len ‖ big-endian bytes without leading zeros.
    let mut item = Vec::with_capacity(32);
    item.push(0x94);
    item.extend_from_slice(deployer);
    match nonce {
        0 => item.push(0x80),
        1..=0x7f => item.push(nonce as u8),
        _ => {
            let be = nonce.to_be_bytes();
            let skip = be.iter().take_while(|b| **b == 0).count();
            item.push(0x80 + (8 - skip) as u8);
            item.extend_from_slice(&be[skip..]);
        }
    }
    let mut rlp = Vec::with_capacity(item.len() + 1);
    rlp.push(0xc0 + item.len() as u8);
    rlp.extend_from_slice(&item);
    let hash = keccak256(&rlp);
    let mut out = [0u8; 20];
    out.copy_from_slice(&hash[12..]);
    out
}

/// The address a CREATE2 deploys to: `keccak256(0xff ‖ deployer ‖ salt ‖ keccak256(init_code))[12..]`.
pub fn create2_address(
    deployer: &[u8; 20],
    salt: &[u8; 32],
    init_code_hash: &[u8; 32],
) -> [u8; 20] {
    let mut buf = [0u8; 85];
    buf[0] = 0xff;
    buf[1..21].copy_from_slice(deployer);
    buf[21..53].copy_from_slice(salt);
    buf[53..].copy_from_slice(init_code_hash);
    let hash = keccak256(&buf);
    let mut out = [0u8; 20];
    out.copy_from_slice(&hash[12..]);
    out
}

/// Signatures of the events firn indexes.
pub mod events {
    /// ERC-20 and ERC-721 `Transfer` (ERC-721 indexes the token ID as a third topic).
    pub const TRANSFER: &str = "Transfer(address,address,uint256)";
    /// ERC-1155 single transfer.
    pub const TRANSFER_SINGLE: &str = "TransferSingle(address,address,address,uint256,uint256)";
    /// ERC-1155 batch transfer.
    pub const TRANSFER_BATCH: &str = "TransferBatch(address,address,address,uint256[],uint256[])";
    /// The Warp precompile's event (`0x0200000000000000000000000000000000000005`).
    pub const SEND_WARP_MESSAGE: &str = "SendWarpMessage(address,bytes32,bytes)";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_transfer_topics_are_the_well_known_ones() {
        assert_eq!(
            hex::encode(event_topic(events::TRANSFER)),
            "ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"
        );
        assert_eq!(
            hex::encode(event_topic(events::TRANSFER_SINGLE)),
            "c3d58168c5ae7397731d063d5bbf3d657854427343f4c083240f7aacaa2d0f62"
        );
        assert_eq!(
            hex::encode(event_topic(events::TRANSFER_BATCH)),
            "4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d983b8c0526c8f7fb"
        );
    }

    #[test]
    fn create_addresses_match_known_deployments() {
        // The first contract of 0x6ac7ea33f8831ea9dcc53393aaa88b25a785dbf0 (nonce 0 and 1), as
        // given in the Ethereum yellow-paper examples widely used in client tests.
        let deployer: [u8; 20] = hex::decode("6ac7ea33f8831ea9dcc53393aaa88b25a785dbf0")
            .unwrap()
            .try_into()
            .unwrap();
        assert_eq!(
            hex::encode(create_address(&deployer, 0)),
            "cd234a471b72ba2f1ccf0a70fcaba648a5eecd8d"
        );
        assert_eq!(
            hex::encode(create_address(&deployer, 1)),
            "343c43a37d37dff08ae8c4a11544c718abb4fcf8"
        );
        assert_eq!(
            hex::encode(create_address(&deployer, 2)),
            "f778b86fa74e846c4f0a1fbd1335fe81c00a0c91"
        );
        assert_eq!(
            hex::encode(create_address(&deployer, 3)),
            "fffd933a0bc612844eaf0c6fe3e5b8e9b6c1d19c"
        );
    }

    #[test]
    fn create2_matches_eip_1014_example_1() {
        let zero = [0u8; 20];
        let salt = [0u8; 32];
        let code_hash = keccak256(&[0x00]);
        assert_eq!(
            hex::encode(create2_address(&zero, &salt, &code_hash)),
            "4d1a2e2bb4f88f0250f26ffff098b0b30b26bf38"
        );
    }
}
