//! firn-evm integration tests: a real chain (in memory or on disk), real signed transactions.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod acp176;
mod common;
mod dev;
mod errors;
mod fees;
mod history;
mod precompiles;
mod proof;
mod restart;
mod tokens;
mod txs;
mod warp;
