//! End-to-end tests of the `firn` binary.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod cli;
mod devnet;
mod evm_viem;
