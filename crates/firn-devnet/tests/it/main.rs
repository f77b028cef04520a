//! Integration tests of the devnet P-Chain: the public API driven as the RPC layer will.

mod common;
mod l1;
mod rejections;
mod restart;
mod staking;
