//! firn-evm integration tests: a real chain (in memory or on disk), real signed transactions.

mod common;
mod errors;
mod fees;
mod restart;
mod tokens;
mod txs;
