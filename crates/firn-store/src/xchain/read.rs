//! [`crate::XChainReader`]: blocks, txs (with the UTXOs they consumed and produced) and assets.
//!
//! Tx lists filtered by address walk `x_tx_parties` one owner at a time, at most a page each,
//! merged in SQL (a tx touching several owners kept once), as the P-Chain's lists do: a page
//! costs at most a page per owner, however many txs the owners have. Owners are taken
//! [`OWNERS_PER_QUERY`] a statement and the statements' pages merged here.

use std::collections::HashMap;

use firn_core::ids::{Id, ShortId};

use super::decode::{decode_asset, decode_block, decode_tx, decode_utxo};
use super::utxos::{OWNERS_PER_QUERY, distinct};
use crate::codec::{RowExt, int};
use crate::error::{Result, StoreError};
use crate::page::{
    HeightCursor, Page, PageRequest, SortOrder, TxCursor, UtxoCursor, merge_tx_pages,
};
use crate::pchain::find_last_event;
use crate::rows::utxos::UtxoActivity;
use crate::rows::xchain::{XAssetRecord, XBalance, XBlockRecord, XTxRecord, XUtxoRecord};
use crate::sql::Sql;
use crate::store::{LOOKUP_CHUNK, Store};
use crate::traits::{XBlockFilter, XChainReader, XTxFilter, XUtxoFilter};

/// Txs (`t`) with their block's ID (genesis txs take block 0's).
const SELECT_TXS: &str =
    "SELECT t.*, b.block_id AS block_id FROM x_txs t LEFT JOIN x_blocks b ON b.height = t.height";

fn not_found(what: &'static str, key: impl ToString) -> StoreError {
    StoreError::NotFound {
        what,
        key: key.to_string(),
    }
}

impl XChainReader for Store {
    async fn get_xchain_block_by_height(&self, height: u64) -> Result<XBlockRecord> {
        let mut q = Sql::new("SELECT * FROM x_blocks WHERE height = ");
        q.bind(int("height", height)?);
        self.fetch_optional(q, decode_block)
            .await?
            .ok_or_else(|| not_found("x-chain block", height))
    }

    async fn get_xchain_block_by_id(&self, block_id: Id) -> Result<XBlockRecord> {
        let mut q = Sql::new("SELECT * FROM x_blocks WHERE block_id = ");
        q.bind(block_id.0.to_vec());
        self.fetch_optional(q, decode_block)
            .await?
            .ok_or_else(|| not_found("x-chain block", block_id))
    }

    async fn list_xchain_blocks(
        &self,
        filter: &XBlockFilter,
        order: SortOrder,
        page: &PageRequest<HeightCursor>,
    ) -> Result<Page<XBlockRecord, HeightCursor>> {
        let limit = page.checked_limit()?;
        let mut q = Sql::new("SELECT * FROM x_blocks WHERE 1 = 1");
        if let Some(t) = filter.start_ts {
            q.push(" AND timestamp >= ").bind(int("start time", t)?);
        }
        if let Some(t) = filter.end_ts {
            q.push(" AND timestamp <= ").bind(int("end time", t)?);
        }
        if let Some(c) = page.after {
            q.push(&format!(" AND height {} ", order.after_op()))
                .bind(int("cursor height", c.height)?);
        }
        q.push(&format!(" ORDER BY height {}", order.sql()))
            .limit(limit + 1);
        let items = self.fetch(q, decode_block).await?;
        Ok(Page::from_rows(items, limit, |b| HeightCursor {
            height: b.height,
        }))
    }

    async fn get_xchain_tx(&self, tx_id: Id) -> Result<XTxRecord> {
        let mut q = Sql::new(&format!("{SELECT_TXS} WHERE t.tx_id = "));
        q.bind(tx_id.0.to_vec());
        let txs = self.fetch(q, decode_tx).await?;
        self.with_utxos(txs)
            .await?
            .pop()
            .ok_or_else(|| not_found("x-chain transaction", tx_id))
    }

    async fn list_xchain_txs(
        &self,
        filter: &XTxFilter,
        order: SortOrder,
        page: &PageRequest<TxCursor>,
    ) -> Result<Page<XTxRecord, TxCursor>> {
        let limit = page.checked_limit()?;
        let owners = distinct(&filter.addresses);
        let mut txs = Vec::new();
        if owners.is_empty() {
            let mut q = Sql::new(&format!("{SELECT_TXS} JOIN ("));
            push_tx_walk(&mut q, None, filter, order, page.after, limit)?;
            push_join_txs(&mut q, order);
            txs = self.fetch(q, decode_tx).await?;
        } else {
            for chunk in owners.chunks(OWNERS_PER_QUERY) {
                let mut q = Sql::new(&format!("{SELECT_TXS} JOIN ("));
                q.merged_walks(chunk, order, limit + 1, |q, owner| {
                    push_tx_walk(q, Some(owner), filter, order, page.after, limit)
                })?;
                push_join_txs(&mut q, order);
                txs.extend(self.fetch(q, decode_tx).await?);
            }
            merge_tx_pages(&mut txs, order, limit + 1, |t| TxCursor {
                height: t.height,
                index: t.index,
            });
        }
        let txs = self.with_utxos(txs).await?;
        Ok(Page::from_rows(txs, limit, |t| TxCursor {
            height: t.height,
            index: t.index,
        }))
    }

    async fn list_xchain_block_txs(&self, heights: &[u64]) -> Result<Vec<(u64, Id)>> {
        let mut rows = Vec::new();
        for chunk in distinct(heights).chunks(LOOKUP_CHUNK) {
            let mut q = Sql::new(
                "SELECT height, tx_index, tx_id FROM x_txs WHERE genesis = 0 AND height IN (",
            );
            let mut keys = Vec::with_capacity(chunk.len());
            for h in chunk {
                keys.push(int("height", *h)?);
            }
            q.bind_list(keys).push(")");
            rows.extend(
                self.fetch(q, |r| {
                    Ok((r.u64("height")?, r.u64("tx_index")?, r.id("tx_id")?))
                })
                .await?,
            );
        }
        rows.sort_by_key(|(h, i, _)| (*h, *i));
        Ok(rows.into_iter().map(|(h, _, id)| (h, id)).collect())
    }

    async fn get_asset(&self, asset_id: Id) -> Result<XAssetRecord> {
        let mut q = Sql::new("SELECT * FROM x_assets WHERE asset_id = ");
        q.bind(asset_id.0.to_vec());
        self.fetch_optional(q, decode_asset)
            .await?
            .ok_or_else(|| not_found("asset", asset_id))
    }

    async fn list_assets_by_id(&self, asset_ids: &[Id]) -> Result<Vec<XAssetRecord>> {
        let ids = distinct(asset_ids);
        self.fetch_by_keys(
            "SELECT * FROM x_assets WHERE asset_id IN (",
            &ids,
            |id: &Id| id.0.to_vec(),
            decode_asset,
        )
        .await
    }

    async fn list_xchain_utxos(
        &self,
        filter: &XUtxoFilter,
        order: SortOrder,
        page: &PageRequest<UtxoCursor>,
    ) -> Result<Page<XUtxoRecord, UtxoCursor>> {
        super::utxos::list(self, filter, order, page).await
    }

    async fn find_xchain_last_activity(
        &self,
        addresses: &[ShortId],
    ) -> Result<Option<UtxoActivity>> {
        let Some((_, spent, utxo_id)) = find_last_event(self, "x_utxo_owners", addresses).await?
        else {
            return Ok(None);
        };
        let mut q = Sql::new("SELECT * FROM x_utxos WHERE utxo_id = ");
        q.bind(utxo_id.0.to_vec());
        let Some(u) = self.fetch_optional(q, decode_utxo).await? else {
            return Ok(None);
        };
        Ok(Some(match (spent, u.consumed) {
            (true, Some(c)) => UtxoActivity {
                utxo_id,
                tx_hash: c.tx_id,
                height: c.height,
                timestamp: c.timestamp,
                consumed: true,
            },
            _ => UtxoActivity {
                utxo_id,
                tx_hash: u.utxo.tx_id,
                height: u.height,
                timestamp: u.timestamp,
                consumed: false,
            },
        }))
    }

    async fn list_xchain_holders(&self, addresses: &[ShortId]) -> Result<Vec<ShortId>> {
        let mut out = Vec::new();
        for chunk in distinct(addresses).chunks(LOOKUP_CHUNK) {
            let mut q = Sql::new("SELECT DISTINCT address FROM x_utxo_owners WHERE address IN (");
            q.bind_list(chunk.iter().map(|a| a.0.to_vec())).push(")");
            out.extend(self.fetch(q, |r| Ok(ShortId(r.fixed("address")?))).await?);
        }
        Ok(out)
    }

    async fn list_xchain_balances(&self, addresses: &[ShortId], now: u64) -> Result<Vec<XBalance>> {
        super::utxos::balances(self, addresses, now).await
    }

    async fn find_xchain_burned(&self, asset_id: Id) -> Result<u128> {
        let mut q = Sql::new("SELECT amount FROM x_burned WHERE asset_id = ");
        q.bind(asset_id.0.to_vec());
        let found = self.fetch_optional(q, |r| r.u128("amount")).await?;
        Ok(found.unwrap_or(0))
    }
}

/// Appends the positions `(height, tx_index)` of one page of txs in `order`: of one owner
/// (through `x_tx_parties`), of one asset (`x_tx_assets`), or of the chain (`x_txs`). Types
/// are checked against the tx; a time window becomes a height window (block times never
/// decrease), so the walk stays on its index.
fn push_tx_walk(
    q: &mut Sql,
    owner: Option<&ShortId>,
    filter: &XTxFilter,
    order: SortOrder,
    after: Option<TxCursor>,
    limit: i64,
) -> Result<()> {
    match (owner, filter.asset_id) {
        (Some(owner), asset) => {
            // One tx can touch several of an owner's assets: DISTINCT before LIMIT.
            q.push("SELECT DISTINCT p.height, p.tx_index FROM x_tx_parties p WHERE p.address = ")
                .bind(owner.0.to_vec());
            if let Some(asset) = asset {
                q.push(" AND p.asset_id = ").bind(asset.0.to_vec());
            }
        }
        (None, Some(asset)) => {
            q.push("SELECT p.height, p.tx_index FROM x_tx_assets p WHERE p.asset_id = ")
                .bind(asset.0.to_vec());
        }
        (None, None) => {
            q.push("SELECT p.height, p.tx_index FROM x_txs p WHERE 1 = 1");
        }
    }
    if !filter.tx_types.is_empty() {
        q.push(
            " AND EXISTS (SELECT 1 FROM x_txs ty WHERE ty.height = p.height \
             AND ty.tx_index = p.tx_index AND ty.tx_type IN (",
        )
        .bind_list(filter.tx_types.iter().cloned())
        .push("))");
    }
    if let Some(t) = filter.start_ts {
        q.push(" AND p.height >= COALESCE((SELECT b.height FROM x_blocks b WHERE b.timestamp >= ")
            .bind(int("start time", t)?)
            .push(" ORDER BY b.timestamp, b.height LIMIT 1), ")
            .bind(i64::MAX)
            .push(")");
    }
    if let Some(t) = filter.end_ts {
        q.push(" AND p.height <= COALESCE((SELECT b.height FROM x_blocks b WHERE b.timestamp <= ")
            .bind(int("end time", t)?)
            .push(" ORDER BY b.timestamp DESC, b.height DESC LIMIT 1), -1)");
    }
    q.after_tx("p", order, after)?
        .order_by_tx("p", order)
        .limit(limit + 1);
    Ok(())
}

/// Closes `… JOIN (positions` with the join on position and the page order.
fn push_join_txs(q: &mut Sql, order: SortOrder) {
    q.push(") k ON t.height = k.height AND t.tx_index = k.tx_index")
        .order_by_tx("t", order);
}

impl Store {
    /// `txs` with the UTXOs each consumed and produced, and the vertices that carried it.
    async fn with_utxos(&self, mut txs: Vec<XTxRecord>) -> Result<Vec<XTxRecord>> {
        if txs.is_empty() {
            return Ok(txs);
        }
        let ids: Vec<Id> = txs.iter().map(|t| t.tx_id).collect();
        let key = |id: &Id| id.0.to_vec();
        let produced = self
            .fetch_by_keys(
                "SELECT * FROM x_utxos WHERE tx_id IN (",
                &ids,
                key,
                decode_utxo,
            )
            .await?;
        let consumed = self
            .fetch_by_keys(
                "SELECT * FROM x_utxos WHERE consumed_tx_id IN (",
                &ids,
                key,
                decode_utxo,
            )
            .await?;
        let mut by_tx: HashMap<Id, usize> = HashMap::new();
        for (i, t) in txs.iter().enumerate() {
            by_tx.insert(t.tx_id, i);
        }
        for u in produced {
            if let Some(&i) = by_tx.get(&u.utxo.tx_id) {
                txs[i].produced.push(u);
            }
        }
        for u in consumed {
            if let Some(&i) = u.consumed.and_then(|c| by_tx.get(&c.tx_id)) {
                txs[i].consumed.push(u);
            }
        }
        for (tx_id, v) in self.tx_vertices(&ids).await? {
            if let Some(&i) = by_tx.get(&tx_id) {
                txs[i].vertices.push(v);
            }
        }
        for t in &mut txs {
            t.produced.sort_by_key(|u| u.utxo.output_index);
            t.consumed.sort_by_key(|u| u.utxo.utxo_id);
        }
        Ok(txs)
    }
}
