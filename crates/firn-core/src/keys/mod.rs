//! Keys: secp256k1 for UTXO and EVM accounts, BLS12-381 for validators and Warp.

pub mod bls;
pub mod secp256k1;
