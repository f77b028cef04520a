//! Integration tests of the aggregator over a small in-process network of real BLS signers.
//! The devnet's own validators are exercised in `firn-devnet`'s `signers` tests.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod behaviour;
mod keyed;
mod pchain;
mod vector;
