//! firn's storage layer: one schema and one set of typed, keyset-paged queries serving every
//! Data API and Metrics API resource, on SQLite (embedded default) or PostgreSQL.
//!
//! The key types:
//! - [`Store`], opened with [`open`] from a path or URL. It runs the embedded migrations of its
//!   backend and implements every storage trait;
//! - the narrow traits in [`traits`]: [`PChainWriter`], [`XChainWriter`] and [`EvmWriter`] for
//!   the indexer, [`PChainReader`], [`XChainReader`], [`XVertexReader`] (the X-Chain's DAG),
//!   [`EvmReader`], [`AtomicMemoryReader`] (shared memory), [`CAtomicReader`] (the C-Chain's
//!   atomic txs), [`IcmReader`] (ICM messages) and [`MetricsReader`] for the APIs, [`CursorStore`] for
//!   the indexer's position, [`WebhookStore`] for webhooks and their outbox;
//! - the plain row types in [`rows`]: what one block writes ([`rows::pchain::PChainBlockRows`],
//!   [`rows::xchain::XChainBlockRows`], [`rows::evm::EvmBlockRows`]) and what lists return (`*Record`);
//! - [`Page`] and the cursor types in [`page`] for keyset paging.
//!
//! Data flows indexer → `commit_*_blocks` (one database transaction: the blocks' rows, their
//! derived state — UTXO consumption, stakers and rewards, token balances, contract
//! deployments, hourly, daily, weekly and monthly metrics — and the chain's cursor) → tables → `list_*` /
//! `find_*` → API.
//!
//! # Design notes
//!
//! - **Backends.** [`open`] picks PostgreSQL for `postgres://` URLs and SQLite otherwise (a path
//!   or `sqlite://path`; the directory is created). Both run the same parameterised SQL through
//!   sqlx's `Any` driver; each has its own embedded migrations (`migrations/sqlite`,
//!   `migrations/postgres`), applied at open. SQLite runs in WAL mode with
//!   `synchronous=NORMAL` and a busy timeout, one writer connection, a pool of read-only
//!   readers and a thread that checkpoints the WAL after each commit (`checkpoint`), so the
//!   writer does not; PostgreSQL uses one pool. SQLite's reads skip sqlx: they run on plain
//!   rusqlite connections on tokio's blocking pool and decode rows in place (`sqlite_read`),
//!   with the same SQL text and bound values (`sql::Value`, firn's own, so neither reader
//!   depends on the other's argument types).
//! - **Modules, one way.** `sql` (statements and their values) and `row` (a result row of either
//!   backend) at the bottom; `codec` (column encodings), `sqlite_read` and `checkpoint` over
//!   them; `store` (the handle, its reads and write transactions) over those; the queries
//!   (`pchain`, `xchain`, `atomic`, `c_atomic`, `icm`, `evm`, `metrics`, `cursor`) and
//!   `upgrade` over the store; `open` on top (it connects, migrates and runs the upgrades). No
//!   module uses one above it.
//! - **Encodings.** Heights, timestamps and counts are signed 64-bit columns (values above
//!   `i64::MAX` are refused with [`StoreError::OutOfRange`]). u64 amounts and weights are stored
//!   as their bit pattern in a 64-bit column: exact, never summed or compared in SQL (sums are
//!   kept in Rust). uint256 values are 32-byte big-endian blobs, which sort numerically in both
//!   backends. IDs, hashes and addresses are raw bytes.
//! - **Writes.** `commit_*_blocks` takes a batch of blocks and writes it in one database
//!   transaction: each block's rows, everything derived from them, and the chain's cursor.
//!   Blocks at or below the cursor are skipped (after checking the hash), the next block must
//!   follow the cursor, and any error rolls the whole batch back. Derived state is
//!   read-modify-write inside that transaction; the store serialises its own writers, and one
//!   indexer process per chain is assumed (a second one fails on primary keys, it cannot
//!   duplicate rows). On PostgreSQL these commits do not wait for the WAL flush: a machine
//!   crash may lose the last batches whole, cursor included, and they are indexed again.
//!   Crossings between the primary network's chains (`atomic`) are written by each side's
//!   commit and joined on read, since the two chains are indexed independently; the C-Chain's
//!   atomic txs (`c_atomic`) go in with the EVM block that carries them, and a rollback of
//!   those blocks takes them and their crossings back. An ICM message (`icm`) is one row each
//!   side's chain fills in its own commit; a rollback clears that chain's parts of it.
//! - **Reads.** Every list is keyset-paged on a unique key (height, then position), so pages
//!   neither repeat nor skip rows when blocks land between requests. Filters on addresses go
//!   through per-address tables whose primary key is the page key.
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

mod atomic;
mod c_atomic;
mod checkpoint;
mod codec;
mod cursor;
mod error;
mod evm;
mod exports;
mod icm;
mod metrics;
mod open;
pub mod page;
mod pchain;
mod row;
pub mod rows;
mod sql;
mod sqlite_read;
mod store;
#[cfg(feature = "testing")]
pub mod testing;
pub mod traits;
pub mod types;
mod upgrade;
mod usage;
mod webhooks;
mod xchain;

pub use error::{Result, StoreError};
pub use evm::{
    MAX_HELD, MAX_LISTED_CONTRACTS, MAX_REPLAYED, MAX_ROWS_PER_LISTED_TX, MAX_ROWS_PER_TX,
    MAX_TOKEN_LOOKUP, UNDO_BLOCKS,
};
pub use icm::MAX_PAGE_PAYLOAD;
pub use open::{DEFAULT_CACHE_MIB, StoreOptions, open};
pub use page::{Page, PageCursor, PageRequest, SortOrder};
pub use pchain::MAX_STAKING_PERIOD;
pub use store::{Backend, Store};
pub use traits::{
    AddressFilter, AtomicMemoryReader, CAtomicReader, CursorStore, EvmReader, EvmTxEffects,
    EvmTxFilter, EvmWriter, ExportStore, IcmReader, L1ValidatorFilter, MetricsReader, PBlockFilter,
    PChainReader, PChainWriter, PTxFilter, RewardFilter, StakerFilter, TransferFilter, TxParties,
    UsageStore, UtxoFilter, UtxoSort, WebhookStore, XBlockFilter, XChainReader, XChainWriter,
    XTxFilter, XUtxoFilter, XVertexReader,
};
