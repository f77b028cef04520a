//! Reads of an address's activity beyond its own transactions: what each transaction of its
//! list did for it (transfers, internal transactions that move value), its internal
//! transactions, the contracts it deployed; and a chain's blocks by time.
//!
//! An address's whole transaction list walks `evm_address_activity` (see
//! [`crate::TxParties::Any`]); its internal transactions walk two partial indexes, by caller
//! and by callee, which hold only the calls that move value. SQLite and PostgreSQL use a
//! partial index only for a query that repeats its condition, so [`moves_value_sql`] writes
//! it exactly as migration 0008 does.

use super::MAX_ROWS_PER_LISTED_TX;
use super::decode::{
    TOKEN_COLUMNS, TRANSFER_JOINS, TRANSFER_SELECT, decode_deployment, decode_internal,
    decode_token_join, decode_transfer,
};
use super::read::push_range_after;
use crate::codec::{RowExt, int};
use crate::error::Result;
use crate::page::{DeploymentCursor, EventCursor, Page, PageRequest, TxCursor};
use crate::row::Row;
use crate::rows::evm::{ContractRecord, InternalTxRecord};
use crate::sql::Sql;
use crate::store::{Backend, Store};
use crate::traits::{AddressFilter, EvmTxEffects};
use crate::types::Address;

/// The condition of the partial indexes `evm_internal_txs_by_from` and `…_by_to`, word for
/// word as the migration writes it (only the zero literal differs between backends).
fn moves_value_sql(backend: Backend, alias: &str) -> String {
    let zero = "0".repeat(64);
    let zero = match backend {
        Backend::Sqlite => format!("X'{zero}'"),
        Backend::Postgres => format!("'\\x{zero}'::bytea"),
    };
    format!(
        "({alias}call_type IN ('CREATE', 'CREATE2') \
         OR ({alias}call_type IN ('CALL', 'CALLCODE') AND {alias}value <> {zero}))"
    )
}

fn decode_internal_record(r: &dyn Row) -> Result<InternalTxRecord> {
    Ok(InternalTxRecord {
        chain_id: r.u64("chain_id")?,
        block_number: r.u64("number")?,
        block_hash: r.b256("block_hash")?,
        timestamp: r.u64("block_ts")?,
        tx_hash: r.b256("tx_hash")?,
        internal: decode_internal(r)?,
    })
}

fn decode_contract(r: &dyn Row) -> Result<ContractRecord> {
    Ok(ContractRecord {
        deployment: decode_deployment(r)?,
        tx_from: r.address("tx_from")?,
        token: decode_token_join(r)?,
    })
}

/// Select list and joins that complete a contract row (`c`) with its deploying
/// transaction's sender and its token metadata.
const CONTRACT_SELECT: &str = "SELECT c.*, tx.from_addr AS tx_from, ";
const CONTRACT_JOINS: &str = " JOIN evm_txs tx ON tx.chain_id = c.chain_id \
    AND tx.number = c.number AND tx.tx_index = c.tx_index \
    LEFT JOIN evm_tokens tk ON tk.chain_id = c.chain_id AND tk.address = c.address";

impl Store {
    pub(super) async fn evm_tx_effects(
        &self,
        chain_id: u64,
        positions: &[TxCursor],
        party: Address,
    ) -> Result<Vec<EvmTxEffects>> {
        let transfers = format!("{TRANSFER_SELECT} FROM evm_transfers tr {TRANSFER_JOINS} WHERE");
        let internal_tail = format!(
            " AND {} ORDER BY trace_index",
            moves_value_sql(self.backend(), "")
        );
        let mut out = Vec::with_capacity(positions.len());
        // One transaction at a time: each list is bounded on its own, however many rows a
        // crafted transaction holds.
        for &at in positions {
            let transfers = self
                .rows_at(
                    (chain_id, at, Some(party)),
                    (&transfers, "tr.", " ORDER BY tr.log_index, tr.batch_index"),
                    MAX_ROWS_PER_LISTED_TX,
                    decode_transfer,
                )
                .await?;
            let internal_txs = self
                .rows_at(
                    (chain_id, at, Some(party)),
                    ("SELECT * FROM evm_internal_txs WHERE", "", &internal_tail),
                    MAX_ROWS_PER_LISTED_TX,
                    decode_internal,
                )
                .await?;
            out.push(EvmTxEffects {
                transfers,
                internal_txs,
            });
        }
        Ok(out)
    }

    pub(super) async fn address_internal_txs(
        &self,
        filter: &AddressFilter,
        page: &PageRequest<EventCursor>,
    ) -> Result<Page<InternalTxRecord, EventCursor>> {
        let limit = page.checked_limit()?;
        let chain = int("chain id", filter.chain_id)?;
        let moves_value = moves_value_sql(self.backend(), "");
        let order = "ORDER BY number DESC, tx_index DESC, trace_index DESC";
        let mut q = Sql::new(
            "SELECT i.*, b.hash AS block_hash, b.timestamp AS block_ts, tx.hash AS tx_hash FROM (",
        );
        // The newest `limit + 1` by caller and by callee hold the newest `limit + 1` of both
        // (UNION drops a self-call found twice).
        for (n, column) in ["from_addr", "to_addr"].into_iter().enumerate() {
            if n > 0 {
                q.push(" UNION ");
            }
            q.push(
                "SELECT * FROM (SELECT number, tx_index, trace_index FROM evm_internal_txs \
                 WHERE chain_id = ",
            )
            .bind(chain)
            .push(&format!(" AND {column} = "))
            .bind(filter.address.0.to_vec())
            .push(&format!(" AND {moves_value}"));
            push_range_after(
                &mut q,
                (filter.start_block, filter.end_block),
                page.after,
                "number, tx_index, trace_index",
            )?;
            q.push(&format!(" {order}")).limit(limit + 1).push(") w");
        }
        q.push(&format!(" {order}"))
            .limit(limit + 1)
            .push(") k JOIN evm_internal_txs i ON i.chain_id = ")
            .bind(chain)
            .push(
                " AND i.number = k.number AND i.tx_index = k.tx_index \
                 AND i.trace_index = k.trace_index \
                 JOIN evm_blocks b ON b.chain_id = i.chain_id AND b.number = i.number \
                 JOIN evm_txs tx ON tx.chain_id = i.chain_id AND tx.number = i.number \
                 AND tx.tx_index = i.tx_index \
                 ORDER BY k.number DESC, k.tx_index DESC, k.trace_index DESC",
            );
        let items = self.fetch(q, decode_internal_record).await?;
        Ok(Page::from_rows(items, limit, |i| EventCursor {
            height: i.block_number,
            index: i.internal.tx_index,
            sub: i.internal.trace_index,
        }))
    }

    pub(super) async fn last_evm_block_before(
        &self,
        chain_id: u64,
        timestamp: u64,
    ) -> Result<Option<u64>> {
        let mut q = Sql::new("SELECT number FROM evm_blocks WHERE chain_id = ");
        q.bind(int("chain id", chain_id)?)
            .push(" AND timestamp < ")
            .bind(int("timestamp", timestamp)?)
            .push(" ORDER BY timestamp DESC, number DESC")
            .limit(1);
        self.fetch_optional(q, |r| r.u64("number")).await
    }

    pub(super) async fn contracts_of(
        &self,
        chain_id: u64,
        deployer: Address,
        page: &PageRequest<DeploymentCursor>,
    ) -> Result<Page<ContractRecord, DeploymentCursor>> {
        let limit = page.checked_limit()?;
        let chain = int("chain id", chain_id)?;
        let mut q = Sql::new(&format!(
            "{CONTRACT_SELECT}{TOKEN_COLUMNS} FROM (SELECT number, tx_index, address \
             FROM evm_contracts WHERE chain_id = "
        ));
        q.bind(chain)
            .push(" AND deployer = ")
            .bind(deployer.0.to_vec());
        if let Some(c) = page.after {
            q.push(" AND (number, tx_index, address) < (")
                .bind(int("cursor", c.height)?)
                .push(", ")
                .bind(i64::from(c.index))
                .push(", ")
                .bind(c.address.0.to_vec())
                .push(")");
        }
        q.push(" ORDER BY number DESC, tx_index DESC, address DESC")
            .limit(limit + 1)
            .push(") k JOIN evm_contracts c ON c.chain_id = ")
            .bind(chain)
            .push(" AND c.address = k.address")
            .push(CONTRACT_JOINS)
            .push(" ORDER BY k.number DESC, k.tx_index DESC, k.address DESC");
        let items = self.fetch(q, decode_contract).await?;
        Ok(Page::from_rows(items, limit, |c| DeploymentCursor {
            height: c.deployment.block_number,
            index: c.deployment.tx_index,
            address: c.deployment.address,
        }))
    }

    pub(super) async fn contract(
        &self,
        chain_id: u64,
        address: Address,
    ) -> Result<Option<ContractRecord>> {
        let mut q = Sql::new(&format!(
            "{CONTRACT_SELECT}{TOKEN_COLUMNS} FROM evm_contracts c{CONTRACT_JOINS} WHERE c.chain_id = "
        ));
        q.bind(int("chain id", chain_id)?)
            .push(" AND c.address = ")
            .bind(address.0.to_vec());
        self.fetch_optional(q, decode_contract).await
    }
}
