//! firn-rpc integration tests: every envelope rule in process and over HTTP, and the clients.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod avalanche;
mod client;
mod common;
mod eth;
mod hostile;
mod server;
mod xchain_methods;
