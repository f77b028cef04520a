//! EVM queries: [`crate::EvmWriter`] in `write`, which stages a batch of blocks and writes
//! their plain rows set-wise (`insert`), folds token balances and deployments
//! (`derived`) and the chain totals and metrics rows (`counters`) over the batch, recording
//! what they overwrote so that a rollback can put it back (`undo`); [`crate::EvmReader`] in
//! `read` (rows decoded in `decode`), an address's whole activity, a token's transfers and a
//! deployer's contracts in `activity`, token balances at a past block in `history`, and the
//! tokens whose `balanceOf` disagrees with their transfers in `mismatches`.

mod activity;
mod counters;
mod decode;
mod derived;
mod history;
mod insert;
mod mismatches;
mod read;
mod undo;
mod write;

pub(crate) use derived::put_holdings;
pub use history::{MAX_HELD, MAX_REPLAYED};
pub use undo::UNDO_BLOCKS;

/// Rows one transaction's (or one block's) list returns at most: its logs, internal
/// transactions, token transfers, or a block's transactions. Anyone can make a transaction
/// emit a million logs; a detail view shows the first ones, in order.
pub const MAX_ROWS_PER_TX: usize = 10_000;

/// Token contracts one balance list can be narrowed to (`contractAddresses`).
pub const MAX_LISTED_CONTRACTS: usize = 64;

/// Addresses one [`find_tokens`](crate::EvmReader::find_tokens) looks up, at most.
pub const MAX_TOKEN_LOOKUP: usize = 512;

/// `select` (which ends in `chain_id = `) for chain `chain_id` and `column IN (addresses)`;
/// `None` when there is nothing to look up. More than [`MAX_TOKEN_LOOKUP`] addresses is an
/// error, not a huge statement.
fn address_lookup(
    select: &str,
    chain_id: u64,
    column: &str,
    addresses: &[crate::types::Address],
) -> crate::error::Result<Option<crate::sql::Sql>> {
    if addresses.is_empty() {
        return Ok(None);
    }
    if addresses.len() > MAX_TOKEN_LOOKUP {
        return Err(crate::error::StoreError::OutOfRange {
            field: "number of addresses",
            value: addresses.len().to_string(),
        });
    }
    let mut q = crate::sql::Sql::new(select);
    q.bind(crate::codec::int("chain id", chain_id)?)
        .push(&format!(" AND {column} IN ("))
        .bind_list(addresses.iter().map(|a| a.0.to_vec()))
        .push(")");
    Ok(Some(q))
}

/// Token transfers and internal transactions an address list shows per transaction, at most.
pub const MAX_ROWS_PER_LISTED_TX: usize = 1_000;
