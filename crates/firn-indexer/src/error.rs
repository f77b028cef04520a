//! The indexer's one error enum.

use firn_core::ids::Id;

/// Everything following a chain can fail with.
#[derive(Debug, thiserror::Error)]
pub enum IndexerError {
    /// The node's RPC failed (after the client's own retries).
    #[error("node rpc: {0}")]
    Rpc(#[from] firn_rpc::ClientError),
    /// The store refused or failed a read or a commit.
    #[error("store: {0}")]
    Store(#[from] firn_store::StoreError),
    /// The node sent bytes that do not decode.
    #[error("cannot decode {what} from the node: {reason}")]
    Decode {
        /// What was being decoded (`block 12`, `tx …`).
        what: String,
        /// The decoder's message.
        reason: String,
    },
    /// The node's chain does not follow what is stored (a different network or a reset node).
    #[error(
        "block {height} from the node has parent {parent}, but the stored block {prev} is {stored}"
    )]
    ParentMismatch {
        /// Height of the block that does not fit.
        height: u64,
        /// Its parent ID.
        parent: Id,
        /// The height below it.
        prev: u64,
        /// The stored ID at that height.
        stored: Id,
    },
    /// The node's EVM block does not follow the stored block below it: the node shows another
    /// history above some block (the follower steps back to where they agree).
    #[error("evm block {height} from the node does not follow the stored block below it")]
    EvmDiverged {
        /// Height of the block that does not fit.
        height: u64,
    },
    /// Something the indexer needs is missing from the node and the store.
    #[error("missing {what}: {key}")]
    Missing {
        /// What kind of thing.
        what: &'static str,
        /// Its key.
        key: String,
    },
}

/// The indexer's result type.
pub type Result<T, E = IndexerError> = std::result::Result<T, E>;

impl IndexerError {
    pub(crate) fn decode(what: impl Into<String>, reason: impl std::fmt::Display) -> Self {
        Self::Decode {
            what: what.into(),
            reason: reason.to_string(),
        }
    }
}
