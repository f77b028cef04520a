//! P-Chain transactions and blocks, byte-compatible with AvalancheGo's `platformvm`.
//!
//! - [`fx`]: outputs, inputs, owners and credentials (secp256k1fx and stakeable locks);
//! - [`tx`]: [`UnsignedTx`] (every type through Etna) and the signed [`Tx`];
//! - [`block`]: [`Block`] (Apricot 0–4 and Banff 29–32);
//! - [`json`]: the JSON form `platform.getBlock` and `platform.getTx` give with `encoding: json`;
//! - [`reward`]: the staking reward calculator, how a delegator's reward is split with its
//!   validator, and what a delegator earned;
//! - [`validator_fee`]: the continuous fee of L1 validators, and a ledger replaying it over
//!   the chain's blocks.
//!
//! Decoding goes through [`crate::codec::from_bytes`]; IDs are computed while decoding, from the
//! exact input bytes, so a decoded tx or block knows its ID without re-encoding.

pub mod block;
pub mod fx;
pub mod json;
pub mod reward;
pub mod tx;
pub mod validator_fee;

pub use block::Block;
pub use tx::{Tx, UnsignedTx};

/// Codec type IDs of the P-Chain (`vms/platformvm/{block,txs}/codec.go`).
pub mod type_id {
    use crate::avax::secp256k1fx::type_id as secp256k1fx;

    pub const APRICOT_PROPOSAL_BLOCK: u32 = 0;
    pub const APRICOT_ABORT_BLOCK: u32 = 1;
    pub const APRICOT_COMMIT_BLOCK: u32 = 2;
    pub const APRICOT_STANDARD_BLOCK: u32 = 3;
    pub const APRICOT_ATOMIC_BLOCK: u32 = 4;
    pub const TRANSFER_INPUT: u32 = secp256k1fx::TRANSFER_INPUT;
    pub const TRANSFER_OUTPUT: u32 = secp256k1fx::TRANSFER_OUTPUT;
    pub const CREDENTIAL: u32 = secp256k1fx::CREDENTIAL;
    pub const AUTH_INPUT: u32 = 10;
    pub const OUTPUT_OWNERS: u32 = 11;
    pub const ADD_VALIDATOR_TX: u32 = 12;
    pub const ADD_SUBNET_VALIDATOR_TX: u32 = 13;
    pub const ADD_DELEGATOR_TX: u32 = 14;
    pub const CREATE_CHAIN_TX: u32 = 15;
    pub const CREATE_SUBNET_TX: u32 = 16;
    pub const IMPORT_TX: u32 = 17;
    pub const EXPORT_TX: u32 = 18;
    pub const ADVANCE_TIME_TX: u32 = 19;
    pub const REWARD_VALIDATOR_TX: u32 = 20;
    pub const STAKEABLE_LOCK_IN: u32 = 21;
    pub const STAKEABLE_LOCK_OUT: u32 = 22;
    pub const REMOVE_SUBNET_VALIDATOR_TX: u32 = 23;
    pub const TRANSFORM_SUBNET_TX: u32 = 24;
    pub const ADD_PERMISSIONLESS_VALIDATOR_TX: u32 = 25;
    pub const ADD_PERMISSIONLESS_DELEGATOR_TX: u32 = 26;
    pub const SIGNER_EMPTY: u32 = 27;
    pub const SIGNER_POP: u32 = 28;
    pub const BANFF_PROPOSAL_BLOCK: u32 = 29;
    pub const BANFF_ABORT_BLOCK: u32 = 30;
    pub const BANFF_COMMIT_BLOCK: u32 = 31;
    pub const BANFF_STANDARD_BLOCK: u32 = 32;
    pub const TRANSFER_SUBNET_OWNERSHIP_TX: u32 = 33;
    pub const BASE_TX: u32 = 34;
    pub const CONVERT_SUBNET_TO_L1_TX: u32 = 35;
    pub const REGISTER_L1_VALIDATOR_TX: u32 = 36;
    pub const SET_L1_VALIDATOR_WEIGHT_TX: u32 = 37;
    pub const INCREASE_L1_VALIDATOR_BALANCE_TX: u32 = 38;
    pub const DISABLE_L1_VALIDATOR_TX: u32 = 39;
}
