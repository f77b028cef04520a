//! P-Chain queries: [`crate::PChainWriter`] in `write` (the rows it only adds gathered per
//! batch in `pending`), [`crate::PChainReader`] in `read`
//! (rows decoded in `decode`; the totals of what is staked now in `totals`; what the validator
//! lists add, the node's observations and each validator's delegations, in `validators`; the
//! UTXOs of owners, their balances and last activity, in `utxos`; L1 validators and the
//! node's word on their balances in `l1`; the L1 validator fee ledger and the fees it
//! charged per day in `l1_fees`; what was burned, rewarded and is locked, for the supply, in
//! `supply`).

mod decode;
mod l1;
mod l1_fees;
mod pending;
mod read;
mod supply;
mod totals;
mod utxos;
mod validators;
mod write;

pub(crate) use decode::decode_utxo;
pub(crate) use l1_fees::list_days as list_l1_fee_days;
pub(crate) use supply::derive_totals as derive_supply_totals;
pub(crate) use utxos::{
    OWNERS_PER_QUERY, OwnedUtxo, distinct as distinct_owners, find_last_event, insert_owners,
};

/// The longest staking period the store expects: AvalancheGo's `MaxStakeDuration` (one
/// year) on every network it ships. Validators whose period is longer and began more than
/// this before a time frame are not found by
/// [`crate::PChainReader::list_validators_overlapping`].
pub const MAX_STAKING_PERIOD: u64 = 365 * firn_core::calendar::DAY;
