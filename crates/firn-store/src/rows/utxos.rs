//! What an owner's P-Chain UTXOs add up to: balances by kind and the last activity.

use firn_core::ids::Id;

use super::text_enum;

text_enum!(
    /// What an unspent amount is at a moment, as `getBalancesByAddresses` splits it (the text is
    /// the response's field name). Amounts leaving for another chain are not among them.
    BalanceKind {
        /// Spendable now, not staked.
        UnlockedUnstaked = "unlockedUnstaked",
        /// Staked; spendable once the staking period ends.
        UnlockedStaked = "unlockedStaked",
        /// Not staked, locked until its platform locktime.
        LockedPlatform = "lockedPlatform",
        /// Not staked, usable only for staking until its stakeable locktime.
        LockedStakeable = "lockedStakeable",
        /// Staked, and still stakeable-locked when the staking period ends.
        LockedStaked = "lockedStaked",
        /// Staked in a period that has not started.
        PendingStaked = "pendingStaked",
    }
);

/// One asset's unspent amount of one kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BalanceSum {
    /// Asset.
    pub asset_id: Id,
    /// Kind.
    pub kind: BalanceKind,
    /// Total, in the asset's smallest unit (wide: no chain can overflow it).
    pub amount: u128,
    /// UTXOs holding it.
    pub utxo_count: u64,
}

/// The newest creation or spending of an owner's UTXO.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UtxoActivity {
    /// The UTXO.
    pub utxo_id: Id,
    /// The transaction that created (or spent) it.
    pub tx_hash: Id,
    /// Its block height.
    pub height: u64,
    /// Its block time.
    pub timestamp: u64,
    /// Whether the activity is the spending.
    pub consumed: bool,
}
