//! firn's indexer: follows a node's RPC, exactly as it would follow a real AvalancheGo node,
//! and commits what it derives to [`firn_store`].
//!
//! The key types:
//! - [`PChainIndexer`], built from an [`firn_rpc::AvalancheClient`] on `…/ext/bc/P`, a
//!   [`firn_store::Store`] and an [`IndexerConfig`]. [`PChainIndexer::backfill`] indexes up to
//!   the node's current height; [`PChainIndexer::follow`] then keeps polling the tip;
//! - [`EvmIndexer`], one per EVM chain ([`EvmEndpoint`]: the C-Chain or a subnet-EVM L1,
//!   found with [`evm::discover`]; [`evm::follow_all`] runs one per chain and picks up new
//!   ones). It registers the chain (`eth_chainId`), backfills, then follows the tip;
//! - [`XChainIndexer`], built the same way on `…/ext/bc/X`: genesis (the AVAX asset, which is in
//!   no block) with block 0, then every linear block from `avm.getBlockByHeight`;
//! - [`Progress`], handed to the callback set with [`PChainIndexer::on_progress`] after each
//!   commit (the `firn` binary draws its progress bar from it).
//!
//! Data flows: `platform.getHeight` → a fetch task asks `platform.getBlockByHeight` (hex) for a
//! batch of heights, many requests in flight, and hands batches through a bounded channel
//! (so memory stays bounded by `window × batch_blocks` blocks; a run's first batch is 16
//! blocks and each next one twice as long, so the first commit does not wait for a whole
//! batch) → each block is decoded with
//! `firn-core` and derived into [`firn_store::rows::pchain::PChainBlockRows`] (UTXOs consumed
//! and emitted, amounts staked, burnt and L1-balance-burnt, stakers, rewards read from
//! `platform.getRewardUTXOs` and typed by the proposal's commit or abort, subnets, chains, L1
//! validators) → one `commit_pchain_blocks` per batch writes the rows and the cursor in one
//! database transaction. A `kill -9` at any point loses or duplicates nothing: a restart
//! continues after the committed cursor, and everything the indexer remembers in memory
//! (UTXO owners, staker kinds, L1 validator states) is found again through the store or the
//! node when missing. Failures (node unreachable, RPC errors) are logged and retried with
//! exponential backoff.
//!
//! The X-Chain flows the same way through the same fetch task and backoff: `avm.getHeight` →
//! `avm.getBlockByHeight` (hex) in batches → each block decoded (a tx that does not decode or
//! derive is logged and left out, its block kept) into
//! [`firn_store::rows::xchain::XChainBlockRows`] (the UTXOs each tx consumed and produced, with
//! the AVM's output indices, and the assets created) → one `commit_xchain_blocks` per batch.
//!
//! EVM chains flow the same way: a fetch task sends batched JSON-RPC requests of
//! `eth_getBlockByNumber` (full txs), `eth_getBlockReceipts` and `debug_traceBlockByNumber`
//! (`callTracer`) for `request_blocks` blocks each, `concurrency` requests in flight, through
//! the bounded channel → each block becomes [`firn_store::rows::evm::EvmBlockRows`] (in the
//! fetch task, so that the next batch is derived while this one is committed): txs joined
//! with receipts, logs, internal calls flattened from the call trees, ERC-20/721/1155
//! transfers decoded from the logs; contracts first seen get `name`/`symbol`/`decimals` by
//! `eth_call`, minted NFTs their `tokenURI`/`uri` document (`data:` decoded offline, http(s)
//! fetched with a timeout and size cap) → one `commit_evm_blocks` per batch with the cursor.
//!
//! ```no_run
//! use firn_indexer::{IndexerConfig, PChainIndexer};
//! use firn_rpc::{AvalancheClient, ClientConfig};
//!
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let client = AvalancheClient::new("http://127.0.0.1:9650/ext/bc/P", ClientConfig::default())?;
//! let store = firn_store::open("/tmp/firn.db").await?;
//! let mut indexer = PChainIndexer::new(client, store, IndexerConfig::default())
//!     .on_progress(|p| println!("{} / {}", p.height, p.tip));
//! indexer.backfill().await?;
//! # Ok(()) }
//! ```

mod error;
pub mod evm;
mod fetch;
pub mod pchain;
mod sums;
pub mod xchain;

pub use error::{IndexerError, Result};
pub use evm::{EvmEndpoint, EvmIndexer};
pub use pchain::{IndexerConfig, PChainIndexer, Progress};
pub use xchain::XChainIndexer;
