//! firn's devnet primary network: a P-Chain VM that behaves like AvalancheGo's `platformvm`,
//! executing real signed txs into real Banff blocks, on a virtual clock, persisted to disk.
//!
//! The key types:
//! - [`genesis::DevnetConfig`] (serde, TOML-friendly) → [`genesis::Genesis`]: the network
//!   identity (`fuji` or `local` profile), funded keys, initial validators and block 0;
//! - [`clock::Clock`]: a shared, monotonic virtual clock that follows wall time when live and
//!   can be pushed forward to generate history;
//! - [`vm::PChain`]: the VM handle (`Send + Sync`). Txs go in through
//!   [`vm::PChain::issue_tx`] (verified, then held in the mempool);
//!   [`vm::PChain::build_block`] turns the mempool and the clock into the next block
//!   (standard, or reward proposal then commit/abort), executes it, appends it to the block
//!   file with an fsync and updates the state and the validator-set history;
//! - [`producer::Producer`]: the tokio task that builds blocks soon after txs arrive and when
//!   the clock passes a staker's end time;
//! - [`wallet::Wallet`]: builds and signs every supported tx for the funded keys, and the
//!   Warp messages an L1's validator manager sends;
//! - [`history::HistoryGenerator`]: weeks of realistic, seed-deterministic P-Chain activity
//!   generated on a frozen clock (what `firn up` starts a new data directory with);
//! - [`signers::DevnetSigners`]: the validators answering ACP-118 signature requests under
//!   the P-Chain's rules (the devnet side of `firn_aggregator::ValidatorNetwork`), each
//!   configurable honest, slow, offline or lying;
//! - [`xchain::XChain`]: the X-Chain (AvalancheGo's `avm` since Cortina), opened beside a
//!   `PChain` on the same network and clock, with its wallet ([`xchain::wallet::XWallet`])
//!   and history ([`xchain::history::XHistory`]);
//! - [`shared_memory::SharedMemory`]: what ExportTxs on one chain leave for ImportTxs on
//!   another, exactly once.
//!
//! Data flows: signed [`firn_core::pchain::Tx`] → `issue_tx` ([`executor`] verifies against
//! the [`state::State`], errors carry AvalancheGo's texts; the tx burns its Etna dynamic fee,
//! see [`fee`]) → mempool → `build_block` (the block builder, packing txs while their gas fits
//! the capacity) → [`store`] (append + fsync) → state and indexes → reads (`block_by_height`,
//! `utxos`, `balance`, `current_validators`, `validators_at`, …). Opening a data directory
//! replays its block file through the same executor, so a restart continues the same chain.
//!
//! ```
//! use firn_devnet::{clock::Clock, genesis::DevnetConfig, vm::PChain, wallet::Wallet};
//!
//! let dir = std::env::temp_dir().join(format!("firn-devnet-doc-{}", std::process::id()));
//! let config = DevnetConfig::default();
//! let clock = Clock::frozen(config.genesis_time);
//! let chain = PChain::open(config, &dir, clock.clone()).unwrap();
//! let wallet = Wallet::new(&chain);
//! let to = chain.funded_addresses()[1];
//! let tx_id = chain.issue_tx(wallet.send(to, 1_000_000_000).unwrap()).unwrap();
//! clock.advance(2);
//! let block = chain.build_block().unwrap().expect("a block");
//! assert_eq!(block.block.height(), 1);
//! assert_eq!(chain.tx_status(&tx_id), firn_devnet::vm::TxStatus::Committed);
//! # drop(chain);
//! # std::fs::remove_dir_all(&dir).unwrap();
//! ```
//!
//! Modules are layered, each using only those listed before it: [`clock`], [`math`],
//! [`fee`], [`error`], [`genesis`] (the configuration and block 0), [`state`], [`store`],
//! [`executor`], the block builder, [`vm`]; then [`wallet`], [`history`], [`producer`] and
//! [`signers`] over the VM.
//!
//! Deliberate differences from AvalancheGo are listed on [`vm::PChain`].

mod builder;
pub mod c_atomic;
pub mod c_wallet;
pub mod clock;
pub mod error;
pub mod executor;
pub mod fee;
pub mod genesis;
pub mod history;
pub mod math;
mod paging;
pub mod producer;
pub mod shared_memory;
pub mod signers;
pub mod state;
pub mod store;
pub mod teleporter;
pub mod validator_manager;
pub mod vm;
pub mod wallet;
pub mod xchain;

pub use clock::Clock;
pub use error::{DevnetError, TxError};
pub use genesis::{DevnetConfig, NetworkIdentity, Profile};
pub use producer::Producer;
pub use shared_memory::SharedMemory;
pub use signers::{DevnetSigners, SignerBehaviour};
pub use vm::PChain;
pub use wallet::Wallet;
pub use xchain::XChain;
