//! End-to-end tests of the `firn` binary.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod aggregator_sdk;
mod cli;
mod devnet;
mod up;
