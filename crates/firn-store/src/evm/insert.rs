//! The plain rows of a batch of EVM blocks, written with multi-row `INSERT`s that span the
//! whole batch (a few statements per table, whatever the number of blocks).

use std::collections::BTreeSet;

use sqlx::AnyConnection;

use crate::codec::{b256s, bits, int, u256};
use crate::error::Result;
use crate::rows::evm::{EvmBlockRows, EvmInternalTx, EvmLog, EvmTx, Token, TokenTransfer};
use crate::sql::insert_many;
use crate::types::{Address, U256};

/// A block accepted for this commit, with what the commit derives for its row.
pub(super) struct Staged<'a> {
    pub(super) rows: &'a EvmBlockRows,
    pub(super) chain: i64,
    pub(super) number: i64,
    pub(super) ts: i64,
    /// Sum of `gas_used * gas_price` over the transactions.
    pub(super) fees: U256,
    /// Transactions on the chain up to and including this block (set by the counters).
    pub(super) cumulative_txs: u64,
}

impl<'a> Staged<'a> {
    pub(super) fn new(rows: &'a EvmBlockRows) -> Result<Self> {
        let b = &rows.block;
        // Fees are derived: a node's absurd gas price saturates them, never fails the commit.
        let fees = rows.txs.iter().fold(U256::ZERO, |fees, tx| {
            fees.saturating_add(tx.gas_price.saturating_mul(U256::from(tx.gas_used)))
        });
        Ok(Self {
            rows,
            chain: int("chain id", rows.chain_id)?,
            number: int("block number", b.number)?,
            ts: int("timestamp", b.timestamp)?,
            fees,
            cumulative_txs: 0,
        })
    }
}

/// Every item of every staged block, with its block.
fn each<'s, 'a, T: 'a>(
    staged: &'s [Staged<'a>],
    items: impl Fn(&'a EvmBlockRows) -> &'a [T] + 's,
) -> Vec<(&'s Staged<'a>, &'a T)> {
    staged
        .iter()
        .flat_map(|s| items(s.rows).iter().map(move |i| (s, i)))
        .collect()
}

pub(super) async fn insert_rows(conn: &mut AnyConnection, staged: &[Staged<'_>]) -> Result<()> {
    insert_blocks(conn, staged).await?;
    insert_txs(conn, staged).await?;
    let logs = each(staged, |r| r.logs.as_slice());
    insert_many(
        conn,
        "INSERT INTO evm_logs (chain_id, number, log_index, tx_index, address, topics, data) VALUES ",
        "",
        7,
        &logs,
        |q, (s, log): &(&Staged<'_>, &EvmLog)| {
            q.arg(s.chain).arg(s.number).arg(i64::from(log.log_index)).arg(i64::from(log.tx_index));
            q.arg(log.address.0.to_vec()).arg(b256s(&log.topics)).arg(log.data.clone());
            Ok(())
        },
    )
    .await?;
    let internal = each(staged, |r| r.internal_txs.as_slice());
    insert_many(
        conn,
        "INSERT INTO evm_internal_txs (chain_id, number, tx_index, trace_index, from_addr, to_addr, \
         call_type, value, gas_used, gas_limit, reverted) VALUES ",
        "",
        11,
        &internal,
        |q, (s, itx): &(&Staged<'_>, &EvmInternalTx)| {
            q.arg(s.chain).arg(s.number).arg(i64::from(itx.tx_index)).arg(i64::from(itx.trace_index));
            q.arg(itx.from.0.to_vec()).arg(itx.to.0.to_vec()).arg(itx.call_type.clone());
            q.arg(u256(&itx.value))
                .arg(int("gas used", itx.gas_used)?)
                .arg(int("gas limit", itx.gas_limit)?)
                .arg(i64::from(itx.reverted));
            Ok(())
        },
    )
    .await?;
    insert_tokens(conn, staged).await?;
    insert_transfers(conn, staged).await?;
    insert_activity(conn, staged).await
}

/// Each transaction under every address that took part in it (see
/// [`crate::TxParties::Any`]), once.
async fn insert_activity(conn: &mut AnyConnection, staged: &[Staged<'_>]) -> Result<()> {
    let mut rows: Vec<(&Staged<'_>, Address, u32)> = Vec::new();
    for s in staged {
        let r = s.rows;
        let mut parties: BTreeSet<(Address, u32)> = BTreeSet::new();
        for t in &r.txs {
            parties.insert((t.from, t.index));
            parties.extend(
                t.to.iter()
                    .chain(&t.contract_address)
                    .map(|a| (*a, t.index)),
            );
        }
        for t in &r.transfers {
            parties.extend([(t.from, t.tx_index), (t.to, t.tx_index)]);
        }
        for i in r.internal_txs.iter().filter(|i| i.moves_value()) {
            parties.extend([(i.from, i.tx_index), (i.to, i.tx_index)]);
        }
        rows.extend(parties.into_iter().map(|(a, index)| (s, a, index)));
    }
    insert_parties(conn, "evm_address_activity", &rows).await
}

async fn insert_blocks(conn: &mut AnyConnection, staged: &[Staged<'_>]) -> Result<()> {
    insert_many(
        conn,
        "INSERT INTO evm_blocks (chain_id, number, hash, parent_hash, timestamp, tx_count, \
         gas_used, gas_limit, base_fee, block_gas_cost, fees_spent, cumulative_txs, size_bytes, \
         receipts_root) VALUES ",
        "",
        14,
        staged,
        |q, s| {
            let b = &s.rows.block;
            q.arg(s.chain)
                .arg(s.number)
                .arg(b.hash.0.to_vec())
                .arg(b.parent_hash.0.to_vec());
            q.arg(s.ts).arg(int("tx count", s.rows.txs.len() as u64)?);
            q.arg(int("gas used", b.gas_used)?)
                .arg(int("gas limit", b.gas_limit)?);
            q.arg(b.base_fee.as_ref().map(u256))
                .arg(b.block_gas_cost.as_ref().map(u256))
                .arg(u256(&s.fees));
            q.arg(int("cumulative txs", s.cumulative_txs)?)
                .arg(int("size", b.size_bytes)?)
                .arg(b.receipts_root.map(|r| r.0.to_vec()));
            Ok(())
        },
    )
    .await?;
    Ok(())
}

async fn insert_txs(conn: &mut AnyConnection, staged: &[Staged<'_>]) -> Result<()> {
    let txs = each(staged, |r| r.txs.as_slice());
    insert_many(
        conn,
        "INSERT INTO evm_txs (chain_id, number, tx_index, hash, from_addr, to_addr, value, nonce, \
         gas_limit, gas_used, gas_price, max_fee, max_priority_fee, tx_type, success, input, \
         contract_address, timestamp) VALUES ",
        "",
        18,
        &txs,
        |q, (s, tx): &(&Staged<'_>, &EvmTx)| {
            q.arg(s.chain)
                .arg(s.number)
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
            q.arg(tx.contract_address.map(|a| a.0.to_vec())).arg(s.ts);
            Ok(())
        },
    )
    .await?;
    // Each transaction is listed under each of its parties once.
    let mut parties: Vec<(&Staged<'_>, Address, u32)> = Vec::new();
    for (s, t) in &txs {
        let mut p = vec![t.from];
        p.extend(t.to);
        p.extend(t.contract_address);
        p.sort();
        p.dedup();
        parties.extend(p.into_iter().map(|a| (*s, a, t.index)));
    }
    insert_parties(conn, "evm_tx_addresses", &parties).await
}

/// Rows `(chain_id, address, number, tx_index)` of a table that lists transactions under
/// addresses.
async fn insert_parties(
    conn: &mut AnyConnection,
    table: &str,
    parties: &[(&Staged<'_>, Address, u32)],
) -> Result<()> {
    insert_many(
        conn,
        &format!("INSERT INTO {table} (chain_id, address, number, tx_index) VALUES "),
        "",
        4,
        parties,
        |q, (s, a, index)| {
            q.arg(s.chain)
                .arg(a.0.to_vec())
                .arg(s.number)
                .arg(i64::from(*index));
            Ok(())
        },
    )
    .await?;
    Ok(())
}

/// Token metadata, the last one of the batch per contract (an upsert may not touch a row twice).
async fn insert_tokens(conn: &mut AnyConnection, staged: &[Staged<'_>]) -> Result<()> {
    let mut tokens: Vec<(i64, &Token)> = Vec::new();
    for s in staged.iter().rev() {
        for t in s.rows.tokens.iter().rev() {
            if !tokens
                .iter()
                .any(|(c, k)| *c == s.chain && k.address == t.address)
            {
                tokens.push((s.chain, t));
            }
        }
    }
    insert_many(
        conn,
        "INSERT INTO evm_tokens (chain_id, address, standard, name, symbol, decimals) VALUES ",
        " ON CONFLICT (chain_id, address) DO UPDATE SET standard = excluded.standard, \
         name = excluded.name, symbol = excluded.symbol, decimals = excluded.decimals",
        6,
        &tokens,
        |q, (chain, t)| {
            q.arg(*chain)
                .arg(t.address.0.to_vec())
                .arg(t.standard.code());
            q.arg(t.name.clone())
                .arg(t.symbol.clone())
                .arg(t.decimals.map(i64::from));
            Ok(())
        },
    )
    .await?;
    Ok(())
}

async fn insert_transfers(conn: &mut AnyConnection, staged: &[Staged<'_>]) -> Result<()> {
    let transfers = each(staged, |r| r.transfers.as_slice());
    insert_many(
        conn,
        "INSERT INTO evm_transfers (chain_id, number, log_index, batch_index, tx_index, standard, \
         token, from_addr, to_addr, token_id, value) VALUES ",
        "",
        11,
        &transfers,
        |q, (s, t): &(&Staged<'_>, &TokenTransfer)| {
            q.arg(s.chain)
                .arg(s.number)
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
    let parties: Vec<(&Staged<'_>, &TokenTransfer, Address)> = transfers
        .iter()
        .flat_map(|(s, t)| {
            std::iter::once((*s, *t, t.from)).chain((t.to != t.from).then_some((*s, *t, t.to)))
        })
        .collect();
    insert_many(
        conn,
        "INSERT INTO evm_transfer_addresses (chain_id, address, standard, number, log_index, \
         batch_index) VALUES ",
        "",
        6,
        &parties,
        |q, (s, t, a)| {
            q.arg(s.chain)
                .arg(a.0.to_vec())
                .arg(t.standard.code())
                .arg(s.number);
            q.arg(i64::from(t.log_index)).arg(i64::from(t.batch_index));
            Ok(())
        },
    )
    .await?;
    Ok(())
}
