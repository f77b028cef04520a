//! The C-Chain's atomic txs ([`crate::rows::atomic::CAtomicTx`]): written by the EVM commit of
//! the blocks that carry them (with their exports and imports in shared memory, as the other
//! chains' writers do), removed with those blocks by a rollback, and listed by party, type and
//! time ([`crate::CAtomicReader`]).

use std::collections::BTreeMap;

use firn_core::ids::{Id, ShortId};
use sqlx::{AnyConnection, Row as _};

use crate::atomic::{AtomicImport, write_exports, write_imports};
use crate::codec::{RowExt, int, u128_bytes};
use crate::error::Result;
use crate::page::{Page, PageRequest, SortOrder, TxCursor, merge_tx_pages};
use crate::row::Row;
use crate::rows::atomic::{CAtomicParty, CAtomicTx, CAtomicTxFilter, CAtomicTxRecord};
use crate::sql::{IDS_PER_READ, Sql, insert_many};
use crate::store::Store;
use crate::traits::CAtomicReader;

/// The atomic txs of one block, with the block's position and time.
pub(crate) struct CAtomicBlock<'a> {
    pub(crate) chain_id: i64,
    pub(crate) height: i64,
    pub(crate) timestamp: i64,
    pub(crate) block_hash: [u8; 32],
    pub(crate) txs: &'a [CAtomicTx],
}

/// Writes the blocks' atomic txs, their parties, and their side of shared memory.
pub(crate) async fn write(conn: &mut AnyConnection, blocks: &[CAtomicBlock<'_>]) -> Result<()> {
    let txs: Vec<(&CAtomicBlock<'_>, &CAtomicTx)> = blocks
        .iter()
        .flat_map(|b| b.txs.iter().map(move |t| (b, t)))
        .collect();
    if txs.is_empty() {
        return Ok(());
    }
    add_burned(conn, &txs).await?;
    insert_many(
        conn,
        "INSERT INTO c_atomic_txs (chain_id, height, tx_index, tx_id, tx_type, timestamp, \
         block_hash, peer_chain, bytes, burned) VALUES ",
        " ON CONFLICT (height, tx_index) DO NOTHING",
        10,
        &txs,
        |q, (b, t)| {
            q.arg(b.chain_id)
                .arg(b.height)
                .arg(i64::from(t.index))
                .arg(t.tx_id.0.to_vec());
            q.arg(t.tx_type.clone())
                .arg(b.timestamp)
                .arg(b.block_hash.to_vec())
                .arg(t.peer_chain.0.to_vec())
                .arg(t.bytes.clone())
                .arg(i64::try_from(t.burned).unwrap_or(i64::MAX));
            Ok(())
        },
    )
    .await?;
    let mut parties = Vec::new();
    for (b, t) in &txs {
        let mut keys: Vec<Vec<u8>> = t.parties.iter().map(|p| p.key()).collect();
        keys.sort();
        keys.dedup();
        parties.extend(keys.into_iter().map(|k| (k, *b, t.index)));
    }
    insert_many(
        conn,
        "INSERT INTO c_atomic_tx_parties (party, height, tx_index, timestamp) VALUES ",
        " ON CONFLICT (party, height, tx_index) DO NOTHING",
        4,
        &parties,
        |q, (key, b, index)| {
            q.arg(key.clone())
                .arg(b.height)
                .arg(i64::from(*index))
                .arg(b.timestamp);
            Ok(())
        },
    )
    .await?;
    let exports: Vec<_> = txs
        .iter()
        .flat_map(|(b, t)| t.exported.iter().map(move |u| (u, b.timestamp)))
        .collect();
    write_exports(conn, &exports).await?;
    let imports: Vec<AtomicImport> = txs
        .iter()
        .flat_map(|(b, t)| {
            t.imported.iter().map(move |utxo_id| AtomicImport {
                utxo_id: *utxo_id,
                source: t.peer_chain,
                tx_id: t.tx_id,
                ts: b.timestamp,
            })
        })
        .collect();
    write_imports(conn, &imports).await
}

/// Adds what the txs of blocks not written before burned to their chains' running totals
/// (a block written again adds nothing).
async fn add_burned(
    conn: &mut AnyConnection,
    txs: &[(&CAtomicBlock<'_>, &CAtomicTx)],
) -> Result<()> {
    let mut added: BTreeMap<i64, u128> = BTreeMap::new();
    for (b, t) in txs {
        let sum = added.entry(b.chain_id).or_default();
        *sum = sum.saturating_add(u128::from(t.burned));
    }
    for (chain, sum) in added {
        // Walks the primary key down from the top (MAX with a WHERE on another column would
        // scan the table on SQLite).
        let written: Option<i64> = sqlx::query(
            "SELECT height FROM c_atomic_txs WHERE chain_id = $1 ORDER BY height DESC LIMIT 1",
        )
        .bind(chain)
        .fetch_optional(&mut *conn)
        .await?
        .map(|r| r.try_get("height"))
        .transpose()?;
        let again: u128 = txs
            .iter()
            .filter(|(b, _)| b.chain_id == chain && Some(b.height) <= written)
            .map(|(_, t)| u128::from(t.burned))
            .sum();
        let total = burned_total(conn, chain).await?;
        set_burned(conn, chain, total.saturating_add(sum.saturating_sub(again))).await?;
    }
    Ok(())
}

/// Chain `chain`'s running total of burned nAVAX.
async fn burned_total(conn: &mut AnyConnection, chain: i64) -> Result<u128> {
    let mut q = Sql::new("SELECT amount FROM c_atomic_burned WHERE chain_id = ");
    q.bind(chain);
    match q.fetch_all(conn).await?.first() {
        Some(row) => row.u128("amount"),
        None => Ok(0),
    }
}

async fn set_burned(conn: &mut AnyConnection, chain: i64, total: u128) -> Result<()> {
    let mut q = Sql::new("INSERT INTO c_atomic_burned (chain_id, amount) VALUES (");
    q.bind(chain)
        .push(", ")
        .bind(u128_bytes(total))
        .push(") ON CONFLICT (chain_id) DO UPDATE SET amount = excluded.amount");
    q.execute(conn).await?;
    Ok(())
}

/// Removes the atomic txs of chain `chain`'s blocks above `keep`, their burns from the
/// running total, and their side of shared memory.
pub(crate) async fn remove_above(conn: &mut AnyConnection, chain: i64, keep: i64) -> Result<()> {
    let removed: u128 =
        sqlx::query("SELECT burned FROM c_atomic_txs WHERE chain_id = $1 AND height > $2")
            .bind(chain)
            .bind(keep)
            .fetch_all(&mut *conn)
            .await?
            .iter()
            .map(|r| r.u64("burned").map(u128::from))
            .sum::<Result<u128>>()?;
    if removed > 0 {
        let total = burned_total(conn, chain).await?;
        set_burned(conn, chain, total.saturating_sub(removed)).await?;
    }
    let ids: Vec<Vec<u8>> = sqlx::query(
        "SELECT tx_id FROM c_atomic_txs WHERE chain_id = $1 AND height > $2 ORDER BY height",
    )
    .bind(chain)
    .bind(keep)
    .fetch_all(&mut *conn)
    .await?
    .iter()
    .map(|r| r.bytes("tx_id"))
    .collect::<Result<_>>()?;
    for chunk in ids.chunks(IDS_PER_READ) {
        let mut q = Sql::new(
            "DELETE FROM atomic_export_owners WHERE utxo_id IN \
             (SELECT utxo_id FROM atomic_exports WHERE tx_id IN (",
        );
        q.bind_list(chunk.iter().cloned()).push("))");
        q.execute(conn).await?;
        for table in ["atomic_exports", "atomic_imports"] {
            let mut q = Sql::new(&format!("DELETE FROM {table} WHERE tx_id IN ("));
            q.bind_list(chunk.iter().cloned()).push(")");
            q.execute(conn).await?;
        }
    }
    sqlx::query(
        "DELETE FROM c_atomic_tx_parties WHERE height > $2 AND EXISTS (SELECT 1 FROM \
         c_atomic_txs t WHERE t.chain_id = $1 AND t.height = c_atomic_tx_parties.height \
         AND t.tx_index = c_atomic_tx_parties.tx_index)",
    )
    .bind(chain)
    .bind(keep)
    .execute(&mut *conn)
    .await?;
    sqlx::query("DELETE FROM c_atomic_txs WHERE chain_id = $1 AND height > $2")
        .bind(chain)
        .bind(keep)
        .execute(&mut *conn)
        .await?;
    Ok(())
}

const COLUMNS: &str = "t.height, t.tx_index, t.tx_id, t.tx_type, t.timestamp, t.block_hash, \
                       t.peer_chain, t.bytes";

impl CAtomicReader for Store {
    async fn list_c_atomic_txs(
        &self,
        filter: &CAtomicTxFilter,
        order: SortOrder,
        page: &PageRequest<TxCursor>,
    ) -> Result<Page<CAtomicTxRecord, TxCursor>> {
        let limit = page.checked_limit()?;
        let position = |t: &CAtomicTxRecord| TxCursor {
            height: t.height,
            index: t.index,
        };
        let mut parties: Vec<Vec<u8>> = filter.parties.iter().map(CAtomicParty::key).collect();
        parties.sort_unstable();
        parties.dedup();
        if parties.is_empty() {
            let mut q = Sql::new(&format!("SELECT {COLUMNS} FROM c_atomic_txs t WHERE 1 = 1"));
            push_tx_conditions(&mut q, "t", filter)?;
            q.after_tx("t", order, page.after)?
                .order_by_tx("t", order)
                .limit(limit + 1);
            let rows = self.fetch(q, decode_tx).await?;
            return Ok(Page::from_rows(rows, limit, position));
        }
        // One walk per party on its own index, then the merged page: a sparse address never
        // walks the whole chain.
        let mut rows = Vec::new();
        for chunk in parties.chunks(PARTIES_PER_QUERY) {
            let mut q = Sql::new(&format!("SELECT {COLUMNS} FROM c_atomic_txs t JOIN ("));
            q.merged_walks(chunk, order, limit + 1, |q, party| {
                q.push("SELECT p.height, p.tx_index FROM c_atomic_tx_parties p WHERE p.party = ")
                    .bind(party.clone());
                push_tx_conditions(q, "p", filter)?;
                q.after_tx("p", order, page.after)?
                    .order_by_tx("p", order)
                    .limit(limit + 1);
                Ok(())
            })?;
            q.push(") k ON t.height = k.height AND t.tx_index = k.tx_index")
                .order_by_tx("t", order);
            rows.extend(self.fetch(q, decode_tx).await?);
        }
        merge_tx_pages(&mut rows, order, limit + 1, position);
        Ok(Page::from_rows(rows, limit, position))
    }

    async fn list_c_atomic_block_txs(&self, heights: &[u64]) -> Result<Vec<(u64, Id)>> {
        let mut out = Vec::new();
        for chunk in heights.chunks(IDS_PER_READ) {
            let mut keys = Vec::with_capacity(chunk.len());
            for h in chunk {
                keys.push(int("height", *h)?);
            }
            let mut q = Sql::new("SELECT height, tx_id FROM c_atomic_txs WHERE height IN (");
            q.bind_list(keys).push(") ORDER BY height, tx_index");
            out.extend(
                self.fetch(q, |r| Ok((r.u64("height")?, r.id("tx_id")?)))
                    .await?,
            );
        }
        Ok(out)
    }

    async fn list_c_atomic_owners(&self, addresses: &[ShortId]) -> Result<Vec<ShortId>> {
        let mut out = Vec::new();
        for chunk in addresses.chunks(IDS_PER_READ) {
            let mut q = Sql::new("SELECT DISTINCT party FROM c_atomic_tx_parties WHERE party IN (");
            q.bind_list(chunk.iter().map(|a| CAtomicParty::Owner(*a).key()))
                .push(")");
            out.extend(
                self.fetch(q, |r| {
                    let key = r.bytes("party")?;
                    let bytes = key.get(1..).and_then(|b| <[u8; 20]>::try_from(b).ok());
                    bytes
                        .map(ShortId)
                        .ok_or_else(|| crate::row::corrupt("party", "not a kind byte and 20 bytes"))
                })
                .await?,
            );
        }
        Ok(out)
    }

    async fn find_c_atomic_tx(&self, tx_id: Id) -> Result<Option<CAtomicTxRecord>> {
        let mut q = Sql::new(&format!(
            "SELECT {COLUMNS} FROM c_atomic_txs t WHERE t.tx_id = "
        ));
        q.bind(tx_id.0.to_vec());
        Ok(self.fetch(q, decode_tx).await?.into_iter().next())
    }

    async fn find_c_atomic_burned(&self, chain_id: u64) -> Result<u128> {
        let mut q = Sql::new("SELECT amount FROM c_atomic_burned WHERE chain_id = ");
        q.bind(int("chain id", chain_id)?);
        let found = self.fetch_optional(q, |r| r.u128("amount")).await?;
        Ok(found.unwrap_or(0))
    }
}

/// Parties one statement walks (SQLite allows 500 terms in a compound SELECT).
const PARTIES_PER_QUERY: usize = 64;

/// Appends the type and time conditions of `filter` on `alias` (a row with `height`,
/// `tx_index` and `timestamp`); types are checked against the tx.
fn push_tx_conditions(q: &mut Sql, alias: &str, filter: &CAtomicTxFilter) -> Result<()> {
    if !filter.tx_types.is_empty() {
        q.push(&format!(
            " AND EXISTS (SELECT 1 FROM c_atomic_txs ty WHERE ty.height = {alias}.height \
             AND ty.tx_index = {alias}.tx_index AND ty.tx_type IN ("
        ))
        .bind_list(filter.tx_types.iter().cloned())
        .push("))");
    }
    if let Some(t) = filter.start_ts {
        q.push(&format!(" AND {alias}.timestamp >= "))
            .bind(int("start time", t)?);
    }
    if let Some(t) = filter.end_ts {
        q.push(&format!(" AND {alias}.timestamp <= "))
            .bind(int("end time", t)?);
    }
    Ok(())
}

fn decode_tx(r: &dyn Row) -> Result<CAtomicTxRecord> {
    Ok(CAtomicTxRecord {
        height: r.u64("height")?,
        index: r.u32("tx_index")?,
        tx_id: r.id("tx_id")?,
        tx_type: r.text("tx_type")?,
        timestamp: r.u64("timestamp")?,
        block_hash: r.b256("block_hash")?.0,
        peer_chain: r.id("peer_chain")?,
        bytes: r.bytes("bytes")?,
    })
}
