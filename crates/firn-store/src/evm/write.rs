//! Committing EVM blocks.

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use sqlx::AnyConnection;
use tracing::debug;

use super::derived::{MetricsCache, update_collectibles, update_metrics, write_contracts};
use crate::db::{RowExt, Store, b256s, bits, insert_many, int, u256};
use crate::error::{Result, StoreError};
use crate::pchain::{load_cursor, save_cursor};
use crate::rows::evm::{EvmBlock, EvmBlockRows, EvmChain, NftMetadata, TokenTransfer};
use crate::rows::{ChainKey, CommitOutcome};
use crate::traits::EvmWriter;
use crate::types::{Address, U256};

impl EvmWriter for Store {
    async fn upsert_evm_chain(&self, c: &EvmChain) -> Result<()> {
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
        let mut w = self.begin_write().await?;
        let conn: &mut AnyConnection = &mut w.tx;
        // Per chain: (cursor, whether this batch moved it).
        let mut cursors: HashMap<u64, (Option<u64>, bool)> = HashMap::new();
        let mut outcome = CommitOutcome::default();
        let mut metrics = MetricsCache::default();
        for rows in blocks {
            let chain_id = rows.chain_id;
            let key = ChainKey::Evm(chain_id);
            if let Entry::Vacant(slot) = cursors.entry(chain_id) {
                let known = sqlx::query("SELECT chain_id FROM evm_chains WHERE chain_id = $1")
                    .bind(int("chain id", chain_id)?)
                    .fetch_optional(&mut *conn)
                    .await?;
                if known.is_none() {
                    return Err(StoreError::UnknownChain(chain_id));
                }
                slot.insert((load_cursor(conn, key).await?, false));
            }
            let cursor = cursors.get(&chain_id).and_then(|(c, _)| *c);
            let number = rows.block.number;
            if let Some(c) = cursor {
                if number <= c {
                    check_same_block(conn, chain_id, &rows.block).await?;
                    outcome.skipped += 1;
                    continue;
                }
                if number != c + 1 {
                    return Err(StoreError::OutOfOrder {
                        chain: key.as_text(),
                        cursor: c,
                        height: number,
                    });
                }
            }
            write_block(conn, &mut metrics, rows).await?;
            cursors.insert(chain_id, (Some(number), true));
            outcome.committed += 1;
        }
        metrics.flush(conn).await?;
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

    async fn upsert_nft_metadata(&self, chain_id: u64, m: &NftMetadata) -> Result<()> {
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
        .bind(m.token_uri.clone())
        .bind(m.index_status.clone())
        .bind(m.updated_at.map(|t| int("updated at", t)).transpose()?)
        .bind(m.name.clone())
        .bind(m.symbol.clone())
        .bind(m.image_uri.clone())
        .bind(m.description.clone())
        .bind(m.animation_uri.clone())
        .bind(m.external_url.clone())
        .bind(m.background.clone())
        .bind(m.attributes.clone())
        .bind(m.properties.clone())
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

async fn write_block(
    conn: &mut AnyConnection,
    cache: &mut MetricsCache,
    rows: &EvmBlockRows,
) -> Result<()> {
    let chain = int("chain id", rows.chain_id)?;
    let b = &rows.block;
    let number = int("block number", b.number)?;
    let ts = int("timestamp", b.timestamp)?;
    let overflow = |field| StoreError::OutOfRange {
        field,
        value: b.number.to_string(),
    };
    let mut fees = U256::ZERO;
    for tx in &rows.txs {
        let fee = tx
            .gas_price
            .checked_mul_u64(tx.gas_used)
            .ok_or_else(|| overflow("fee"))?;
        fees = fees.checked_add(fee).ok_or_else(|| overflow("fees"))?;
    }
    let totals = cache.totals(conn, chain).await?;
    let tx_count = rows.txs.len() as u64;
    let cumulative = totals
        .cumulative_txs
        .checked_add(tx_count)
        .ok_or_else(|| overflow("cumulative txs"))?;
    sqlx::query(
        "INSERT INTO evm_blocks (chain_id, number, hash, parent_hash, timestamp, tx_count, \
         gas_used, gas_limit, base_fee, block_gas_cost, fees_spent, cumulative_txs, size_bytes) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)",
    )
    .bind(chain)
    .bind(number)
    .bind(b.hash.0.to_vec())
    .bind(b.parent_hash.0.to_vec())
    .bind(ts)
    .bind(int("tx count", tx_count)?)
    .bind(int("gas used", b.gas_used)?)
    .bind(int("gas limit", b.gas_limit)?)
    .bind(b.base_fee.as_ref().map(u256))
    .bind(b.block_gas_cost.as_ref().map(u256))
    .bind(u256(&fees))
    .bind(int("cumulative txs", cumulative)?)
    .bind(int("size", b.size_bytes)?)
    .execute(&mut *conn)
    .await?;

    insert_many(
        conn,
        "INSERT INTO evm_txs (chain_id, number, tx_index, hash, from_addr, to_addr, value, nonce, \
         gas_limit, gas_used, gas_price, max_fee, max_priority_fee, tx_type, success, input, \
         contract_address, timestamp) VALUES ",
        "",
        18,
        &rows.txs,
        |q, tx| {
            q.arg(chain)
                .arg(number)
                .arg(i64::from(tx.index))
                .arg(tx.hash.0.to_vec());
            q.arg(tx.from.0.to_vec())
                .arg(tx.to.map(|a| a.0.to_vec()))
                .arg(u256(&tx.value));
            q.arg(bits(tx.nonce))
                .arg(int("gas limit", tx.gas_limit)?)
                .arg(int("gas used", tx.gas_used)?)
                .arg(u256(&tx.gas_price));
            q.arg(tx.max_fee.as_ref().map(u256))
                .arg(tx.max_priority_fee.as_ref().map(u256));
            q.arg(i64::from(tx.tx_type))
                .arg(i64::from(tx.success))
                .arg(tx.input.clone());
            q.arg(tx.contract_address.map(|a| a.0.to_vec())).arg(ts);
            Ok(())
        },
    )
    .await?;
    let parties: Vec<(u32, Address)> = rows
        .txs
        .iter()
        .flat_map(|t| {
            let mut p = vec![t.from];
            p.extend(t.to);
            p.extend(t.contract_address);
            p.sort();
            p.dedup();
            p.into_iter().map(move |a| (t.index, a))
        })
        .collect();
    insert_many(
        conn,
        "INSERT INTO evm_tx_addresses (chain_id, address, number, tx_index) VALUES ",
        "",
        4,
        &parties,
        |q, (index, a)| {
            q.arg(chain)
                .arg(a.0.to_vec())
                .arg(number)
                .arg(i64::from(*index));
            Ok(())
        },
    )
    .await?;
    insert_many(
        conn,
        "INSERT INTO evm_logs (chain_id, number, log_index, tx_index, address, topics, data) VALUES ",
        "",
        7,
        &rows.logs,
        |q, log| {
            q.arg(chain).arg(number).arg(i64::from(log.log_index)).arg(i64::from(log.tx_index));
            q.arg(log.address.0.to_vec()).arg(b256s(&log.topics)).arg(log.data.clone());
            Ok(())
        },
    )
    .await?;
    insert_many(
        conn,
        "INSERT INTO evm_internal_txs (chain_id, number, tx_index, trace_index, from_addr, to_addr, \
         call_type, value, gas_used, gas_limit, reverted) VALUES ",
        "",
        11,
        &rows.internal_txs,
        |q, itx| {
            q.arg(chain).arg(number).arg(i64::from(itx.tx_index)).arg(i64::from(itx.trace_index));
            q.arg(itx.from.0.to_vec()).arg(itx.to.0.to_vec()).arg(itx.call_type.clone());
            q.arg(u256(&itx.value))
                .arg(int("gas used", itx.gas_used)?)
                .arg(int("gas limit", itx.gas_limit)?)
                .arg(i64::from(itx.reverted));
            Ok(())
        },
    )
    .await?;
    for t in &rows.tokens {
        sqlx::query(
            "INSERT INTO evm_tokens (chain_id, address, standard, name, symbol, decimals) \
             VALUES ($1, $2, $3, $4, $5, $6) \
             ON CONFLICT (chain_id, address) DO UPDATE SET standard = excluded.standard, \
             name = excluded.name, symbol = excluded.symbol, decimals = excluded.decimals",
        )
        .bind(chain)
        .bind(t.address.0.to_vec())
        .bind(t.standard.code())
        .bind(t.name.clone())
        .bind(t.symbol.clone())
        .bind(t.decimals.map(i64::from))
        .execute(&mut *conn)
        .await?;
    }
    insert_many(
        conn,
        "INSERT INTO evm_transfers (chain_id, number, log_index, batch_index, tx_index, standard, \
         token, from_addr, to_addr, token_id, value) VALUES ",
        "",
        11,
        &rows.transfers,
        |q, t| {
            q.arg(chain)
                .arg(number)
                .arg(i64::from(t.log_index))
                .arg(i64::from(t.batch_index));
            q.arg(i64::from(t.tx_index))
                .arg(t.standard.code())
                .arg(t.token.0.to_vec());
            q.arg(t.from.0.to_vec())
                .arg(t.to.0.to_vec())
                .arg(t.token_id.as_ref().map(u256));
            q.arg(u256(&t.value));
            Ok(())
        },
    )
    .await?;
    // Each transfer is listed under its sender and its recipient (once when they are equal).
    let parties: Vec<(&TokenTransfer, Address)> = rows
        .transfers
        .iter()
        .flat_map(|t| std::iter::once((t, t.from)).chain((t.to != t.from).then_some((t, t.to))))
        .collect();
    insert_many(
        conn,
        "INSERT INTO evm_transfer_addresses (chain_id, address, standard, number, log_index, \
         batch_index) VALUES ",
        "",
        6,
        &parties,
        |q, (t, a)| {
            q.arg(chain)
                .arg(a.0.to_vec())
                .arg(t.standard.code())
                .arg(number);
            q.arg(i64::from(t.log_index)).arg(i64::from(t.batch_index));
            Ok(())
        },
    )
    .await?;
    for t in &rows.transfers {
        update_collectibles(conn, chain, t).await?;
    }
    let deployments = write_contracts(conn, chain, rows).await?;
    update_metrics(conn, cache, rows, &deployments, fees).await
}
