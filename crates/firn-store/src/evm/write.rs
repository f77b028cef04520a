//! Committing EVM blocks. A batch is written set-wise, not block by block: the blocks are
//! checked against their chain's cursor, then deployments, collectible balances and metrics
//! counters are folded over the whole batch in memory (each touched key read once and written
//! once), and every table gets multi-row `INSERT`s spanning all the batch's blocks.

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use sqlx::AnyConnection;
use tracing::debug;

use super::counters::update_counters;
use super::derived::{queue_minted_metadata, update_collectibles, write_contracts};
use super::insert::{Staged, insert_rows};
use super::undo::{UndoLog, rollback, save_undo};
use crate::codec::{RowExt, int, u256};
use crate::cursor::{is_next, load_cursor, save_cursor};
use crate::error::{Result, StoreError};
use crate::rows::evm::{
    BalanceMismatch, EvmBlock, EvmBlockRows, EvmChainRecord, NftMetadata, REINDEX_INTERVAL_SECS,
    ReindexRequest,
};
use crate::rows::{ChainKey, CommitOutcome};
use crate::store::Store;
use crate::traits::EvmWriter;
use crate::types::{Address, U256};

impl EvmWriter for Store {
    async fn upsert_evm_chain(&self, c: &EvmChainRecord) -> Result<()> {
        let mut w = self.begin_write().await?;
        sqlx::query(
            "INSERT INTO evm_chains (chain_id, blockchain_id, subnet_id, name, description, \
             is_testnet, token_name, token_symbol, token_decimals, rpc_url) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) \
             ON CONFLICT (chain_id) DO UPDATE SET blockchain_id = excluded.blockchain_id, \
             subnet_id = excluded.subnet_id, name = excluded.name, \
             description = excluded.description, is_testnet = excluded.is_testnet, \
             token_name = excluded.token_name, token_symbol = excluded.token_symbol, \
             token_decimals = excluded.token_decimals, rpc_url = excluded.rpc_url",
        )
        .bind(int("chain id", c.chain_id)?)
        .bind(c.blockchain_id.0.to_vec())
        .bind(c.subnet_id.0.to_vec())
        .bind(c.name.clone())
        .bind(c.description.clone())
        .bind(i64::from(c.is_testnet))
        .bind(c.token_name.clone())
        .bind(c.token_symbol.clone())
        .bind(i64::from(c.token_decimals))
        .bind(c.rpc_url.clone())
        .execute(&mut *w.tx)
        .await?;
        w.commit().await
    }

    async fn commit_evm_blocks(&self, blocks: &[EvmBlockRows]) -> Result<CommitOutcome> {
        let mut w = self.begin_block_write().await?;
        let conn: &mut AnyConnection = &mut w.tx;
        // Per chain: (cursor, whether this batch moved it).
        let mut cursors: HashMap<u64, (Option<u64>, bool)> = HashMap::new();
        let mut outcome = CommitOutcome::default();
        let mut staged = Vec::with_capacity(blocks.len());
        let mut atomic = Vec::new();
        let mut blockchains = HashMap::new();
        let mut icm = Vec::new();
        for rows in blocks {
            let chain_id = rows.chain_id;
            let key = ChainKey::Evm(chain_id);
            if let Entry::Vacant(slot) = cursors.entry(chain_id) {
                let known = sqlx::query("SELECT blockchain_id FROM evm_chains WHERE chain_id = $1")
                    .bind(int("chain id", chain_id)?)
                    .fetch_optional(&mut *conn)
                    .await?;
                let Some(known) = known else {
                    return Err(StoreError::UnknownChain(chain_id));
                };
                blockchains.insert(chain_id, known.id("blockchain_id")?);
                slot.insert((load_cursor(conn, key).await?, false));
            }
            let cursor = cursors.get(&chain_id).and_then(|(c, _)| *c);
            let number = rows.block.number;
            if !is_next(key, cursor, number)? {
                check_same_block(conn, chain_id, &rows.block).await?;
                outcome.skipped += 1;
                continue;
            }
            if !rows.atomic_txs.is_empty() {
                atomic.push(crate::c_atomic::CAtomicBlock {
                    chain_id: int("chain id", chain_id)?,
                    height: int("height", number)?,
                    timestamp: int("time", rows.block.timestamp)?,
                    block_hash: rows.block.hash.0,
                    txs: &rows.atomic_txs,
                });
            }
            if !rows.icm.is_empty() {
                icm.push(crate::icm::IcmBlock {
                    chain_id: int("chain id", chain_id)?,
                    blockchain_id: *blockchains
                        .get(&chain_id)
                        .ok_or(StoreError::UnknownChain(chain_id))?,
                    rows,
                });
            }
            staged.push(Staged::new(rows)?);
            cursors.insert(chain_id, (Some(number), true));
            outcome.committed += 1;
        }
        if !staged.is_empty() {
            let mut undo = UndoLog::new();
            let deployers = write_contracts(conn, &staged).await?;
            update_collectibles(conn, &staged, &mut undo).await?;
            queue_minted_metadata(conn, &staged).await?;
            update_counters(conn, &mut staged, &deployers, &mut undo).await?;
            insert_rows(conn, &staged).await?;
            let mut ranges: HashMap<i64, (i64, i64)> = HashMap::new();
            for s in &staged {
                ranges
                    .entry(s.chain)
                    .and_modify(|r| r.1 = s.number)
                    .or_insert((s.number, s.number));
            }
            save_undo(conn, &undo, &ranges).await?;
        }
        crate::c_atomic::write(conn, &atomic).await?;
        crate::icm::write(conn, &icm).await?;
        for (chain_id, (cursor, moved)) in cursors {
            if let (Some(c), true) = (cursor, moved) {
                save_cursor(conn, ChainKey::Evm(chain_id), c).await?;
            }
        }
        w.commit().await?;
        debug!(
            committed = outcome.committed,
            skipped = outcome.skipped,
            "committed evm blocks"
        );
        Ok(outcome)
    }

    async fn rollback_evm_chain(&self, chain_id: u64, to: u64) -> Result<Option<u64>> {
        let mut w = self.begin_write().await?;
        let cursor = rollback(&mut w.tx, chain_id, to).await?;
        w.commit().await?;
        Ok(cursor)
    }

    async fn request_nft_reindex(
        &self,
        chain_id: u64,
        token: Address,
        token_id: U256,
        now: u64,
    ) -> Result<ReindexRequest> {
        let chain = int("chain id", chain_id)?;
        let at = int("now", now)?;
        let interval = int("reindex interval", REINDEX_INTERVAL_SECS)?;
        let mut w = self.begin_write().await?;
        // The status is a literal from a fixed set, like the queue's partial index has it.
        let queued = sqlx::query(&format!(
            "UPDATE evm_nft_metadata SET index_status = '{}', reindex_requested_at = $4 \
             WHERE chain_id = $1 AND token = $2 AND token_id = $3 \
             AND (reindex_requested_at IS NULL OR reindex_requested_at <= $4 - $5)",
            NftMetadata::URI_UNREAD
        ))
        .bind(chain)
        .bind(token.0.to_vec())
        .bind(u256(&token_id))
        .bind(at)
        .bind(interval)
        .execute(&mut *w.tx)
        .await?
        .rows_affected();
        if queued > 0 {
            w.commit().await?;
            return Ok(ReindexRequest::Queued);
        }
        let last = sqlx::query(
            "SELECT reindex_requested_at FROM evm_nft_metadata \
             WHERE chain_id = $1 AND token = $2 AND token_id = $3",
        )
        .bind(chain)
        .bind(token.0.to_vec())
        .bind(u256(&token_id))
        .fetch_optional(&mut *w.tx)
        .await?;
        Ok(match last {
            None => ReindexRequest::Unknown,
            Some(r) => {
                let last = r.opt_u64("reindex_requested_at")?.unwrap_or(0);
                let next = last.saturating_add(REINDEX_INTERVAL_SECS);
                ReindexRequest::TooSoon {
                    retry_after: next.saturating_sub(now).max(1),
                }
            }
        })
    }

    async fn add_balance_mismatch(&self, chain_id: u64, m: &BalanceMismatch) -> Result<bool> {
        super::mismatches::add(self, chain_id, m).await
    }

    async fn upsert_nft_metadata(&self, chain_id: u64, m: &NftMetadata) -> Result<()> {
        // What a metadata server sends is anyone's: PostgreSQL refuses NUL in text, so none is
        // stored (on either backend, so both hold the same).
        let text = |s: &str| s.replace('\0', "");
        let opt = |s: &Option<String>| s.as_deref().map(text);
        let mut w = self.begin_write().await?;
        sqlx::query(
            "INSERT INTO evm_nft_metadata (chain_id, token, token_id, token_uri, index_status, \
             updated_at, name, symbol, image_uri, description, animation_uri, external_url, \
             background, attributes, properties, decimals) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) \
             ON CONFLICT (chain_id, token, token_id) DO UPDATE SET token_uri = excluded.token_uri, \
             index_status = excluded.index_status, updated_at = excluded.updated_at, \
             name = excluded.name, symbol = excluded.symbol, image_uri = excluded.image_uri, \
             description = excluded.description, animation_uri = excluded.animation_uri, \
             external_url = excluded.external_url, background = excluded.background, \
             attributes = excluded.attributes, properties = excluded.properties, \
             decimals = excluded.decimals",
        )
        .bind(int("chain id", chain_id)?)
        .bind(m.token.0.to_vec())
        .bind(u256(&m.token_id))
        .bind(text(&m.token_uri))
        .bind(text(&m.index_status))
        .bind(m.updated_at.map(|t| int("updated at", t)).transpose()?)
        .bind(opt(&m.name))
        .bind(opt(&m.symbol))
        .bind(opt(&m.image_uri))
        .bind(opt(&m.description))
        .bind(opt(&m.animation_uri))
        .bind(opt(&m.external_url))
        .bind(opt(&m.background))
        .bind(opt(&m.attributes))
        .bind(opt(&m.properties))
        .bind(m.decimals.map(i64::from))
        .execute(&mut *w.tx)
        .await?;
        w.commit().await
    }
}

async fn check_same_block(conn: &mut AnyConnection, chain_id: u64, block: &EvmBlock) -> Result<()> {
    let row = sqlx::query("SELECT hash FROM evm_blocks WHERE chain_id = $1 AND number = $2")
        .bind(int("chain id", chain_id)?)
        .bind(int("block number", block.number)?)
        .fetch_optional(&mut *conn)
        .await?;
    match row {
        Some(r) if r.b256("hash")? == block.hash => Ok(()),
        None => Ok(()),
        Some(_) => Err(StoreError::ConflictingBlock {
            chain: ChainKey::Evm(chain_id).as_text(),
            height: block.number,
        }),
    }
}
