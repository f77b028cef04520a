//! firn-node integration tests: the node RPC over a real devnet served on loopback (P-Chain,
//! `info`, `health`, `validators`, `firn.*`), and the EVM chains' RPC.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod c_atomic;
mod c_fees;
mod common;
mod dev;
mod eth;
mod fees;
mod filters;
mod index;
mod info;
mod l1;
mod metrics;
mod misc;
mod platform;
mod pool;
mod raw;
mod staking;
mod state;
mod trace;
mod tracers;
mod ws;
mod xchain;
