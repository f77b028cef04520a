//! ERC-20 tokens whose `balanceOf` disagrees with their transfers: the indexer records the
//! evidence ([`crate::EvmWriter::add_balance_mismatch`]), the API asks which tokens of a page
//! it must read from the node ([`crate::EvmReader::list_balance_mismatches`]).

use sqlx::AnyConnection;

use super::address_lookup;
use crate::codec::{RowExt, int, u256};
use crate::error::Result;
use crate::row::Row;
use crate::rows::evm::BalanceMismatch;
use crate::store::Store;
use crate::types::Address;

/// Records `m` unless the token already has evidence (the first is kept). Returns whether it
/// was new.
pub(super) async fn add(store: &Store, chain_id: u64, m: &BalanceMismatch) -> Result<bool> {
    let mut w = store.begin_write().await?;
    let added = sqlx::query(
        "INSERT INTO evm_balance_mismatches \
         (chain_id, token, block_number, holder, derived, reported) \
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (chain_id, token) DO NOTHING",
    )
    .bind(int("chain id", chain_id)?)
    .bind(m.token.0.to_vec())
    .bind(int("block number", m.block_number)?)
    .bind(m.holder.0.to_vec())
    .bind(u256(&m.derived))
    .bind(u256(&m.reported))
    .execute(&mut *w.tx)
    .await?
    .rows_affected();
    w.commit().await?;
    Ok(added > 0)
}

/// The evidence held for the `tokens` given (at most [`super::MAX_TOKEN_LOOKUP`]).
pub(super) async fn list(
    store: &Store,
    chain_id: u64,
    tokens: &[Address],
) -> Result<Vec<BalanceMismatch>> {
    let select = "SELECT token, block_number, holder, derived, reported \
                  FROM evm_balance_mismatches WHERE chain_id = ";
    let Some(q) = address_lookup(select, chain_id, "token", tokens)? else {
        return Ok(Vec::new());
    };
    store.fetch(q, decode).await
}

fn decode(r: &dyn Row) -> Result<BalanceMismatch> {
    Ok(BalanceMismatch {
        token: r.address("token")?,
        block_number: r.u64("block_number")?,
        holder: r.address("holder")?,
        derived: r.u256("derived")?,
        reported: r.u256("reported")?,
    })
}

/// Forgets evidence found above block `keep` (a rollback's).
pub(super) async fn remove_above(conn: &mut AnyConnection, chain: i64, keep: i64) -> Result<()> {
    sqlx::query("DELETE FROM evm_balance_mismatches WHERE chain_id = $1 AND block_number > $2")
        .bind(chain)
        .bind(keep)
        .execute(&mut *conn)
        .await?;
    Ok(())
}
