//! Integration tests of the devnet P-Chain: the public API driven as the RPC layer will.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod common;
mod concurrency;
mod fees;
mod generated;
mod history;
mod l1;
mod rejections;
mod restart;
mod signers;
mod staking;
mod subnets;
mod xchain;
