//! The store's one error type.

/// Everything that can go wrong in the store. Messages are lowercase and name the key.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database driver failed (connection, SQL, constraint).
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    /// A SQLite read failed (the API's reads bypass sqlx on SQLite).
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// A read could not run: its task failed or the statement does not fit the reader.
    #[error("store read failed: {0}")]
    ReaderFailed(String),
    /// A read ran past the store's read timeout and was stopped in the database.
    #[error("the query ran longer than {0:?} and was stopped")]
    ReadTimeout(std::time::Duration),
    /// The store was closed; open it again.
    #[error("the store is closed")]
    Closed,
    /// Applying the embedded migrations failed.
    #[error("migration failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// `open` was given something that is neither a PostgreSQL URL nor a SQLite path.
    #[error(
        "unsupported database location {0:?}: expected postgres://…, sqlite://… or a file path"
    )]
    BadLocation(String),
    /// A `get_` lookup found nothing.
    #[error("{what} {key} not found")]
    NotFound {
        /// What was looked up (`block`, `transaction`, …).
        what: &'static str,
        /// The key, as text.
        key: String,
    },
    /// A block was committed out of order: the chain's cursor is not at the block's parent.
    #[error("block {height} of chain {chain} does not follow the cursor at {cursor}")]
    OutOfOrder {
        /// The chain key (`p-chain`, `evm:43113`).
        chain: String,
        /// The last committed height.
        cursor: u64,
        /// The height that was offered.
        height: u64,
    },
    /// A block at or below the cursor was offered again with a different hash.
    #[error("block {height} of chain {chain} is already stored with a different hash")]
    ConflictingBlock {
        /// The chain key.
        chain: String,
        /// The height.
        height: u64,
    },
    /// A vertex at or below the vertex cursor was offered again with a different ID.
    #[error("x-chain vertex {index} is already stored as {stored}, not {offered}")]
    ConflictingVertex {
        /// The acceptance index.
        index: u64,
        /// The stored vertex's ID.
        stored: firn_core::ids::Id,
        /// The offered vertex's ID.
        offered: firn_core::ids::Id,
    },
    /// New vertices were offered after linear blocks were stored: their txs would come after
    /// txs of the linear chain that spent them.
    #[error(
        "x-chain vertex {index} cannot be stored after linear block {height}: index the DAG \
         before the linear chain (into a new store)"
    )]
    VertexAfterBlocks {
        /// The acceptance index of the vertex.
        index: u64,
        /// The highest stored linear block.
        height: u64,
    },
    /// A rollback would reach below what the store can take back.
    #[error(
        "cannot roll evm chain {chain_id} back to block {to}: the store can undo only its last \
         {window} blocks; if the node serves another chain, index it into a new store"
    )]
    RollbackTooDeep {
        /// The EVM chain ID.
        chain_id: u64,
        /// The block asked for.
        to: u64,
        /// Blocks that can be rolled back.
        window: u64,
    },
    /// A block names a chain that was never registered with `upsert_evm_chain`.
    #[error("evm chain {0} is not registered")]
    UnknownChain(u64),
    /// A transaction consumes a UTXO that the store does not hold unspent.
    #[error("utxo {0} is not stored or already consumed")]
    UtxoUnavailable(String),
    /// A staking transaction referenced by a reward or removal is unknown or already ended.
    #[error("staker {0} is not stored or already ended")]
    StakerUnavailable(String),
    /// Balances at a past block would replay more than a read's bounds allow.
    #[error("{0}")]
    TooMuchToReplay(String),
    /// The chain kept changing under a read that needs a steady view; retrying may succeed.
    #[error("{0}")]
    Busy(String),
    /// A write would pass a limit (say which and what to do).
    #[error("{0}")]
    LimitExceeded(String),
    /// A value does not fit the column that stores it (heights and timestamps are signed 64-bit).
    #[error("{field} {value} is out of range")]
    OutOfRange {
        /// The field.
        field: &'static str,
        /// The offending value, as text.
        value: String,
    },
    /// A stored value could not be decoded: the database was written by something else.
    #[error("column {column} holds invalid data: {reason}")]
    Corrupt {
        /// The column.
        column: &'static str,
        /// What was wrong.
        reason: String,
    },
    /// A page cursor token could not be parsed.
    #[error("invalid page cursor {0:?}")]
    BadCursor(String),
    /// A list was asked for with a combination of filters it has no index for.
    #[error("unsupported filter: {0}")]
    UnsupportedFilter(&'static str),
    /// A page size of zero was asked for.
    #[error("page limit {0} is out of range 1..=10000")]
    BadLimit(u32),
}

/// Shorthand for results in this crate.
pub type Result<T, E = StoreError> = std::result::Result<T, E>;
