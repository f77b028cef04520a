//! EVM chains for firn's devnet: the C-Chain and subnet-EVM L1s, executed by revm.
//!
//! The key types:
//! - [`EvmGenesis`]: a subnet-EVM genesis JSON (alloc, chain config with `feeConfig` and
//!   precompile configs), or the C-Chain's built-in one;
//! - [`EvmChain`]: the chain. Raw transactions go in with [`EvmChain::submit_raw_tx`] (checked
//!   with go-ethereum's error texts, then pooled by sender and nonce); [`EvmChain::build_block`]
//!   executes the ready ones with revm on the in-memory [`WorldState`], computes receipts,
//!   blooms, the state root and the header (the base fee and gas limit from the chain's
//!   [`FeeRules`]: subnet-EVM's fee window on L1s, ACP-176 on the C-Chain), and appends the
//!   block to the block file before accepting it; a tx whose fee cap is under the base fee
//!   waits in the pool;
//!   queries ([`EvmChain::block_by_number`], [`EvmChain::logs`], [`EvmChain::call`],
//!   [`EvmChain::estimate_gas`], …) read the accepted blocks and the head state;
//! - [`Producer`]: a tokio task that builds blocks when transactions arrive;
//! - the dev loop ([`dev`]): [`EvmChain::mine`] makes a block now, empty or carrying
//!   [`DevChange`]s (balance, nonce, code, storage set outside any transaction), recorded in
//!   the block file beside its transactions so a restart replays them; [`impersonated`] txs
//!   carry a placeholder signature and their sender beside them.
//!
//! - [`atomic`]: on the C-Chain (a chain opened with an [`atomic::AtomicBackend`], the
//!   devnet's shared memory), coreth's atomic ImportTx and ExportTx
//!   ([`EvmChain::submit_atomic`]), run after each block's EVM txs and carried in coreth's block
//!   shape (`extDataHash`, `extDataGasUsed`, the txs after the uncles).
//!
//! On open, the block file's transactions are executed again block by block and each
//! block's hash is checked against the recorded one, so a restart continues the chain.
//!
//! ```
//! use std::sync::Arc;
//! use firn_evm::{EvmChain, EvmChainConfig, EvmGenesis};
//! use alloy_primitives::{Address, B256, U256};
//!
//! let funded = Address::repeat_byte(0x11);
//! let genesis = EvmGenesis::c_chain(43113, 0, &[(funded, U256::from(10u64).pow(U256::from(24)))]);
//! let chain = EvmChain::open(EvmChainConfig {
//!     genesis,
//!     blockchain_id: B256::ZERO,
//!     network_id: 5,
//!     data_dir: None,
//!     now: Arc::new(|| 1_700_000_000),
//!     atomic: None,
//!     warp: None,
//! }).unwrap();
//! assert_eq!(chain.height(), 0);
//! assert_eq!(chain.balance(&funded), U256::from(10u64).pow(U256::from(24)));
//! // Garbage is refused with go-ethereum's kind of message.
//! assert!(chain.submit_raw_tx(&[0xde, 0xad]).is_err());
//! ```

pub mod access_list;
pub mod atomic;
mod block;
mod chain;
mod deadline;
mod deploy_gate;
pub mod dev;
mod error;
mod execute;
pub mod fee;
mod genesis;
pub mod history;
mod mempool;
mod precompile_json;
mod precompiles;
mod producer;
mod query;
pub mod replay;
mod state;
mod stateful;
mod store;
#[cfg(feature = "testing")]
pub mod testing;
mod trace;
pub mod tracers;
mod trie;
mod tx;
pub mod warp;

pub use atomic::{AtomicTxState, DROPPED_ATOMIC_KEPT, MAX_ATOMIC_POOL};
pub use block::{Block, Header, SignedTx, TxReceipt, logs_bloom};
pub use chain::{CallLimits, EvmChain, EvmChainConfig, MAX_BLOCK_TXS, TimeSource};
pub use dev::DevChange;
pub use error::{EvmError, TxError};
pub use execute::{BLACKHOLE, halt_text, revert_reason};
pub use fee::{BlockFees, FeeConfig, FeeRules};
pub use genesis::{
    C_CHAIN_GAS_TARGET, ChainConfig, EvmGenesis, GenesisAccount, PRECOMPILE_KEYS, PrecompileConfig,
    UPGRADE_KEYS,
};
pub use mempool::ARRIVALS_KEPT;
pub use precompiles::{Precompiles, Role};
pub use producer::Producer;
pub use query::{FeeHistory, LogEntry, LogFilter, SUGGESTED_TIP, TxLookup, block_logs};
pub use state::{AccountChange, AccountProof, SlotProof, WorldState};
pub use stateful::{Kind as PrecompileKind, warp_message};
pub use store::{settle_icm_genesis, settle_registry_genesis};
pub use trace::{CallFrame, CallTracer};
pub use tx::{CallRequest, decode_raw, impersonated, intrinsic_gas};
pub use warp::{WARP_ADDRESS, send_warp_message_bytes, sent_messages};
