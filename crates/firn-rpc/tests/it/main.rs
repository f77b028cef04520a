//! firn-rpc integration tests: every envelope rule in process and over HTTP, and the clients.

mod avalanche;
mod client;
mod common;
mod eth;
