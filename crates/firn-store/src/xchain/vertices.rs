//! The DAG before Cortina: committing vertices with their txs and the vertex cursor
//! ([`ChainKey::XChainVertices`], the index API's acceptance index), the genesis txs a DAG
//! needs before it, and [`crate::XVertexReader`]. Unlike blocks, vertices may leave gaps in
//! the acceptance index: a vertex that does not decode has no rows to store.
//!
//! A vertex's txs go into `x_txs` at height 0 after what is stored there (genesis, earlier
//! vertices' txs), through the same writer as a block's txs, so UTXOs, balances, assets and tx
//! lists see them; the position design is in [`crate::rows::xchain`].

use std::collections::HashMap;

use firn_core::ids::Id;
use sqlx::AnyConnection;
use tracing::debug;

use super::decode::decode_vertex;
use super::pending::XPending;
use crate::codec::{RowExt, int};
use crate::cursor::{load_cursor, save_cursor};
use crate::error::{Result, StoreError};
use crate::page::{HeightCursor, Page, PageRequest, SortOrder};
use crate::row::Row;
use crate::rows::xchain::{XChainVertexRows, XTx, XTxVertex, XVertexRecord};
use crate::rows::{ChainKey, CommitOutcome};
use crate::sql::Sql;
use crate::store::Store;
use crate::traits::XVertexReader;

const KEY: ChainKey = ChainKey::XChainVertices;

impl Store {
    /// See [`crate::XChainWriter::commit_xchain_vertices`].
    pub(super) async fn commit_vertices(
        &self,
        vertices: &[XChainVertexRows],
    ) -> Result<CommitOutcome> {
        let mut w = self.begin_block_write().await?;
        let conn: &mut AnyConnection = &mut w.tx;
        let before = load_cursor(conn, KEY).await?;
        let mut cursor = before;
        let mut outcome = CommitOutcome::default();
        let mut checked = false;
        let mut pending = XPending::default();
        let carried: Vec<Id> = vertices
            .iter()
            .flat_map(|v| &v.txs)
            .map(|t| t.tx_id)
            .collect();
        let txs = vertices.iter().flat_map(|v| &v.txs);
        pending.read_stored(conn, txs, &carried).await?;
        // Vertex IDs gathered in this batch, with their indices.
        let mut gathered: HashMap<Id, u64> = HashMap::new();
        for rows in vertices {
            let index = rows.vertex.index;
            // Gaps are vertices the indexer could not decode (logged there): allowed.
            if cursor.is_some_and(|c| index <= c) {
                check_same_vertex(conn, &rows.vertex).await?;
                outcome.skipped += 1;
                continue;
            }
            if !checked {
                check_no_linear_blocks(conn, index).await?;
                checked = true;
            }
            let id = rows.vertex.vertex_id;
            let first = match gathered.get(&id) {
                Some(first) => Some(*first),
                None => stored_index(conn, id).await?,
            };
            if let Some(first) = first {
                // A node that serves one vertex twice adds nothing: passed over, never an
                // error that would stop the backfill.
                debug!(index, first, vertex = %rows.vertex.vertex_id, "x-chain vertex served again at a later index");
                cursor = Some(index);
                outcome.skipped += 1;
                continue;
            }
            write_vertex(conn, &mut pending, rows).await?;
            gathered.insert(id, index);
            cursor = Some(index);
            outcome.committed += 1;
        }
        pending.write(conn).await?;
        if let Some(c) = cursor.filter(|c| before.is_none_or(|b| *c > b)) {
            save_cursor(conn, KEY, c).await?;
        }
        w.commit().await?;
        debug!(
            committed = outcome.committed,
            skipped = outcome.skipped,
            "committed x-chain vertices"
        );
        Ok(outcome)
    }

    /// See [`crate::XChainWriter::commit_xchain_genesis`].
    pub(super) async fn commit_genesis(&self, txs: &[XTx], timestamp: u64) -> Result<usize> {
        let mut w = self.begin_block_write().await?;
        let conn: &mut AnyConnection = &mut w.tx;
        let ts = int("timestamp", timestamp)?;
        let mut pending = XPending::default();
        let ids: Vec<Id> = txs.iter().map(|t| t.tx_id).collect();
        pending.read_stored(conn, txs.iter(), &ids).await?;
        let written = pending.txs_at_zero(conn, txs, ts, None).await?;
        pending.write(conn).await?;
        w.commit().await?;
        Ok(written)
    }
}

async fn check_same_vertex(conn: &mut AnyConnection, v: &XVertexRecord) -> Result<()> {
    let row = sqlx::query("SELECT vertex_id FROM x_vertices WHERE vertex_index = $1")
        .bind(int("vertex index", v.index)?)
        .fetch_optional(&mut *conn)
        .await?;
    match row {
        Some(r) if r.id("vertex_id")? != v.vertex_id => Err(StoreError::ConflictingVertex {
            index: v.index,
            stored: r.id("vertex_id")?,
            offered: v.vertex_id,
        }),
        _ => Ok(()),
    }
}

/// The acceptance index `vertex_id` is stored at, if any.
async fn stored_index(conn: &mut AnyConnection, vertex_id: Id) -> Result<Option<u64>> {
    let row = sqlx::query("SELECT vertex_index FROM x_vertices WHERE vertex_id = $1")
        .bind(vertex_id.0.to_vec())
        .fetch_optional(&mut *conn)
        .await?;
    row.map(|r| r.u64("vertex_index")).transpose()
}

/// The DAG's txs must precede the linear chain's: refuses a new vertex once a linear block
/// above 0, or one carrying txs, is stored.
async fn check_no_linear_blocks(conn: &mut AnyConnection, index: u64) -> Result<()> {
    let row = sqlx::query(
        "SELECT height FROM x_blocks WHERE height > 0 OR tx_count > 0 ORDER BY height DESC LIMIT 1",
    )
    .fetch_optional(&mut *conn)
    .await?;
    match row {
        Some(r) => Err(StoreError::VertexAfterBlocks {
            index,
            height: r.u64("height")?,
        }),
        None => Ok(()),
    }
}

/// Gathers `rows`' vertex and the txs it carries that no earlier vertex did.
async fn write_vertex<'a>(
    conn: &mut AnyConnection,
    pending: &mut XPending<'a>,
    rows: &'a XChainVertexRows,
) -> Result<()> {
    let v = &rows.vertex;
    let vi = int("vertex index", v.index)?;
    let ts = int("timestamp", v.timestamp)?;
    pending.vertex(v);
    // A tx an earlier vertex (or this one, twice) carried keeps its first position.
    pending.txs_at_zero(conn, &rows.txs, ts, Some(vi)).await?;
    Ok(())
}

impl XVertexReader for Store {
    async fn get_xchain_vertex_by_id(&self, vertex_id: Id) -> Result<XVertexRecord> {
        let mut q = Sql::new("SELECT * FROM x_vertices WHERE vertex_id = ");
        q.bind(vertex_id.0.to_vec());
        self.fetch_optional(q, decode_vertex)
            .await?
            .ok_or_else(|| StoreError::NotFound {
                what: "x-chain vertex",
                key: vertex_id.to_string(),
            })
    }

    async fn list_xchain_vertices(
        &self,
        order: SortOrder,
        page: &PageRequest<HeightCursor>,
    ) -> Result<Page<XVertexRecord, HeightCursor>> {
        self.vertex_page(None, order, page).await
    }

    async fn list_xchain_vertices_by_height(
        &self,
        height: u64,
        order: SortOrder,
        page: &PageRequest<HeightCursor>,
    ) -> Result<Page<XVertexRecord, HeightCursor>> {
        self.vertex_page(Some(height), order, page).await
    }
}

impl Store {
    async fn vertex_page(
        &self,
        height: Option<u64>,
        order: SortOrder,
        page: &PageRequest<HeightCursor>,
    ) -> Result<Page<XVertexRecord, HeightCursor>> {
        let limit = page.checked_limit()?;
        let mut q = Sql::new("SELECT * FROM x_vertices WHERE 1 = 1");
        if let Some(h) = height {
            q.push(" AND height = ").bind(int("vertex height", h)?);
        }
        if let Some(c) = page.after {
            q.push(&format!(" AND vertex_index {} ", order.after_op()))
                .bind(int("cursor index", c.height)?);
        }
        q.push(&format!(" ORDER BY vertex_index {}", order.sql()))
            .limit(limit + 1);
        let items = self.fetch(q, decode_vertex).await?;
        Ok(Page::from_rows(items, limit, |v| HeightCursor {
            height: v.index,
        }))
    }

    /// For each of `tx_ids` that the DAG carried, the vertices that carried it, first
    /// accepted first.
    pub(super) async fn tx_vertices(&self, tx_ids: &[Id]) -> Result<Vec<(Id, XTxVertex)>> {
        let mut found = self
            .fetch_by_keys(
                "SELECT vt.tx_id, vt.vertex_index, v.vertex_id, v.height, v.timestamp \
                 FROM x_vertex_txs vt JOIN x_vertices v ON v.vertex_index = vt.vertex_index \
                 WHERE vt.tx_id IN (",
                tx_ids,
                |id| id.0.to_vec(),
                decode_tx_vertex,
            )
            .await?;
        found.sort_by_key(|(tx, index, _)| (*tx, *index));
        found.dedup_by_key(|(tx, index, _)| (*tx, *index));
        Ok(found.into_iter().map(|(tx, _, v)| (tx, v)).collect())
    }
}

fn decode_tx_vertex(r: &dyn Row) -> Result<(Id, u64, XTxVertex)> {
    Ok((
        r.id("tx_id")?,
        r.u64("vertex_index")?,
        XTxVertex {
            vertex_id: r.id("vertex_id")?,
            height: r.u64("height")?,
            timestamp: r.u64("timestamp")?,
        },
    ))
}
