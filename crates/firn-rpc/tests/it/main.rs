//! firn-rpc integration tests: every envelope rule in process and over HTTP, the clients, and
//! the node RPC over a real devnet (`node_*`).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod avalanche;
mod client;
mod common;
mod eth;
mod hostile;
mod node_common;
mod node_eth;
mod node_fees;
mod node_l1;
mod node_misc;
mod node_platform;
mod node_staking;
mod node_trace;
mod server;
