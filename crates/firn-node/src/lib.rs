//! AvalancheGo's node over firn's devnet: the P-Chain VM ([`firn_devnet`]) and the EVM chains
//! ([`firn_evm`]) assembled into one network, their node RPC, generated history, and one
//! [`spawn`] that the `firn` binary, the benches and every test start a network with.
//!
//! The shape follows Foundry's anvil: the chains (the backend) live in `firn-devnet` and
//! `firn-evm`; the transport is `firn-rpc`'s envelopes; this crate joins them.
//! - [`NodeConfig`] says what runs: data dir (or a temporary one), clock (live or frozen),
//!   producers, EVM chains, Warp signers, the listen address. [`NodeConfig::test`] is a
//!   frozen-clock P-Chain on a free port, with the rest switched on as a test needs it.
//! - [`Network::open`] opens the chains without running anything, so `firn up` can generate
//!   weeks of history on the frozen clock ([`Network::generate_history`]) before
//!   [`Network::serve`] starts the producers, signers and RPC and gives a [`NodeHandle`]
//!   (URLs, chains, keys, signers, clean shutdown). [`spawn`] is `open` then `serve`.
//! - [`rpc`]: one small function per method of `platform`, `avm`, `avax` (the C-Chain's atomic
//!   txs, over the devnet's shared memory), `info`, `health`, `validators`, firn's own `firn.*`
//!   and, per EVM chain, geth's `eth_*`/`debug_*` and subnet-EVM's methods.
//! - [`evm_chains`]: the C-Chain booted with the network and every subnet-EVM chain the P-Chain
//!   creates, booted from its genesis as soon as it is accepted.
//! - [`signers`] and [`evm_rules`]: the validators answering ACP-118 signature requests, under
//!   the P-Chain's rules and each EVM chain's (subnet-EVM's Warp backend).
//! - [`history`]: seed-deterministic activity on every chain, day by day, and live rounds.
//!
//! ```
//! use firn_node::{NodeConfig, spawn};
//!
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! let node = spawn(NodeConfig::test().with_evm()).await.unwrap();
//! let pchain = firn_rpc::AvalancheClient::new(&node.url_of("/ext/bc/P"), Default::default()).unwrap();
//! let reply: serde_json::Value = pchain.call("platform.getHeight", &serde_json::json!({})).await.unwrap();
//! assert_eq!(reply["height"], "0");
//! assert!(node.c_chain().is_some());
//! node.shutdown().await;
//! # });
//! ```

pub mod config;
pub mod error;
pub mod evm_chains;
pub mod evm_rules;
pub mod history;
pub mod network;
pub mod relayer;
pub mod rpc;
pub mod signers;
#[cfg(feature = "testing")]
pub mod testing;

pub use config::{ClockMode, NodeConfig, SignerKeys};
pub use error::NodeError;
pub use evm_chains::{EvmChainsHandle, OpenChains};
pub use network::{Network, NodeHandle, PCHAIN_DIR, spawn};
