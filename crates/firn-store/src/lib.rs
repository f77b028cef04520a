//! firn's storage layer: one schema and one set of typed, keyset-paged queries serving every
//! Data API and Metrics API resource, on SQLite (embedded default) or PostgreSQL.
//!
//! The key types:
//! - [`Store`], opened with [`open`] from a path or URL. It runs the embedded migrations of its
//!   backend and implements every storage trait;
//! - the narrow traits in [`traits`]: [`PChainWriter`] and [`EvmWriter`] for the indexer,
//!   [`PChainReader`], [`EvmReader`] and [`MetricsReader`] for the APIs, [`CursorStore`] for
//!   the indexer's position;
//! - the plain row types in [`rows`]: what one block writes ([`rows::pchain::PChainBlockRows`],
//!   [`rows::evm::EvmBlockRows`]) and what lists return (`*Record`);
//! - [`Page`] and the cursor types in [`page`] for keyset paging.
//!
//! Data flows indexer → `commit_*_blocks` (one database transaction: the blocks' rows, their
//! derived state — UTXO consumption, stakers and rewards, collectible balances, contract
//! deployments, hourly and daily metrics — and the chain's cursor) → tables → `list_*` /
//! `find_*` → API.
//!
//! ```no_run
//! use firn_store::{open, EvmReader, PageRequest, TransferFilter, rows::evm::TokenStandard};
//!
//! # async fn demo() -> Result<(), firn_store::StoreError> {
//! let store = open("/var/lib/firn/firn.db").await?;
//! let filter = TransferFilter {
//!     chain_id: 43113,
//!     address: "0x8db97c7cece249c2b98bdc0226cc4c2a57bf52fc".parse().expect("address"),
//!     standard: TokenStandard::Erc20,
//!     start_block: None,
//!     end_block: None,
//! };
//! let first = store.list_transfers(&filter, &PageRequest::first(10)).await?;
//! if let Some(next) = first.next {
//!     let _second = store.list_transfers(&filter, &PageRequest::after(10, next)).await?;
//! }
//! # Ok(()) }
//! ```

mod db;
mod error;
mod evm;
mod metrics;
pub mod page;
mod pchain;
pub mod rows;
pub mod traits;
pub mod types;

pub use db::{Backend, Store, StoreOptions, open};
pub use error::{Result, StoreError};
pub use page::{Page, PageCursor, PageRequest, SortOrder};
pub use traits::{
    CursorStore, EvmReader, EvmWriter, MetricsReader, PBlockFilter, PChainReader, PChainWriter,
    PTxFilter, RewardFilter, StakerFilter, TransferFilter,
};
