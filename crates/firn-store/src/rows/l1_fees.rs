//! The continuous fee of L1 validators as the indexer replays it
//! ([`firn_core::pchain::validator_fee::FeeLedger`]): the ledger state written with P-Chain
//! blocks, and what validations paid per UTC day, read back as daily totals.

use firn_core::ids::{Id, NodeId};
pub use firn_core::pchain::validator_fee::LedgerState;

/// An active L1 validator of the ledger.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct L1FeeActive {
    /// Validation ID.
    pub validation_id: Id,
    /// Its L1.
    pub subnet_id: Id,
    /// Its node.
    pub node_id: NodeId,
    /// The ledger's running total at which its balance runs out.
    pub end_accrued: u64,
}

/// What one validation paid during one UTC day (added to what the day already holds).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct L1FeeDay {
    /// Validation ID.
    pub validation_id: Id,
    /// Its L1.
    pub subnet_id: Id,
    /// Its node.
    pub node_id: NodeId,
    /// Start of the day, Unix seconds.
    pub day: u64,
    /// nAVAX paid.
    pub fee: u64,
}

/// What the fee ledger changed up to a block, committed with it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct L1FeeChanges {
    /// The ledger's state after the block.
    pub state: LedgerState,
    /// Validators active after the block whose end changed (new, topped up, back again).
    pub active: Vec<L1FeeActive>,
    /// Validators no longer active (ran out, disabled, removed).
    pub inactive: Vec<Id>,
    /// Fees paid, per validation and day.
    pub days: Vec<L1FeeDay>,
}

/// The ledger as last committed: where the indexer resumes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct L1FeeLedgerRecord {
    /// Height of the block that last moved it.
    pub height: u64,
    /// Its state after that block.
    pub state: LedgerState,
    /// The active validators.
    pub active: Vec<L1FeeActive>,
}

/// Whose fees a daily series sums.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum L1FeeScope {
    /// Every L1 validator.
    All,
    /// The validators of one L1.
    Subnet(Id),
    /// The validations of one node.
    Node(NodeId),
    /// One validation.
    Validation(Id),
}

/// The fees of one UTC day within an [`L1FeeScope`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct L1FeeDayTotal {
    /// Start of the day, Unix seconds.
    pub day: u64,
    /// nAVAX paid.
    pub fees: u64,
    /// Validations that paid something.
    pub paying: u64,
}
