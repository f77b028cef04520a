//! State the store derives from EVM blocks inside the commit transaction: collectible balances,
//! contract deployments, chain totals and the hourly and daily metrics rows.

use std::collections::hash_map::Entry;
use std::collections::{BTreeSet, HashMap};

use sqlx::AnyConnection;

use crate::db::{RowExt, insert_many, int, u256};
use crate::error::{Result, StoreError};
use crate::metrics::{decode_metrics, upsert_metrics};
use crate::rows::evm::{EvmBlockRows, EvmTx, TokenStandard, TokenTransfer};
use crate::rows::metrics::{ChainMetrics, Granularity};
use crate::types::{Address, U256};

/// Running totals of one chain (the `evm_chain_totals` row).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct ChainTotals {
    pub(super) cumulative_txs: u64,
    cumulative_addresses: u64,
    cumulative_contracts: u64,
    cumulative_deployers: u64,
    last_block_ts: Option<u64>,
}

impl ChainTotals {
    pub(super) async fn load(conn: &mut AnyConnection, chain: i64) -> Result<Self> {
        let row = sqlx::query("SELECT * FROM evm_chain_totals WHERE chain_id = $1")
            .bind(chain)
            .fetch_optional(&mut *conn)
            .await?;
        match row {
            None => Ok(Self::default()),
            Some(r) => Ok(Self {
                cumulative_txs: r.u64("cumulative_txs")?,
                cumulative_addresses: r.u64("cumulative_addresses")?,
                cumulative_contracts: r.u64("cumulative_contracts")?,
                cumulative_deployers: r.u64("cumulative_deployers")?,
                last_block_ts: Some(r.u64("last_block_ts")?),
            }),
        }
    }

    async fn save(&self, conn: &mut AnyConnection, chain: i64, last_block_ts: u64) -> Result<()> {
        // Called only for totals that saw a block, so `last_block_ts` is known.
        sqlx::query(
            "INSERT INTO evm_chain_totals (chain_id, cumulative_txs, cumulative_addresses, \
             cumulative_contracts, cumulative_deployers, last_block_ts) \
             VALUES ($1, $2, $3, $4, $5, $6) \
             ON CONFLICT (chain_id) DO UPDATE SET cumulative_txs = excluded.cumulative_txs, \
             cumulative_addresses = excluded.cumulative_addresses, \
             cumulative_contracts = excluded.cumulative_contracts, \
             cumulative_deployers = excluded.cumulative_deployers, \
             last_block_ts = excluded.last_block_ts",
        )
        .bind(chain)
        .bind(int("cumulative txs", self.cumulative_txs)?)
        .bind(int("cumulative addresses", self.cumulative_addresses)?)
        .bind(int("cumulative contracts", self.cumulative_contracts)?)
        .bind(int("cumulative deployers", self.cumulative_deployers)?)
        .bind(int("timestamp", last_block_ts)?)
        .execute(&mut *conn)
        .await?;
        Ok(())
    }
}

/// Chain totals and metrics rows touched by a batch of blocks: loaded once, updated in memory
/// block by block, and written once by [`MetricsCache::flush`] before the batch commits.
#[derive(Debug, Default)]
pub(super) struct MetricsCache {
    totals: HashMap<i64, ChainTotals>,
    rows: HashMap<(i64, i64, i64), ChainMetrics>,
}

impl MetricsCache {
    /// The running totals of `chain`, as of the previous block.
    pub(super) async fn totals(
        &mut self,
        conn: &mut AnyConnection,
        chain: i64,
    ) -> Result<ChainTotals> {
        if let Some(t) = self.totals.get(&chain) {
            return Ok(*t);
        }
        let t = ChainTotals::load(conn, chain).await?;
        self.totals.insert(chain, t);
        Ok(t)
    }

    async fn row(
        &mut self,
        conn: &mut AnyConnection,
        keys: (i64, i64, i64),
        fresh: impl FnOnce() -> ChainMetrics,
    ) -> Result<&mut ChainMetrics> {
        match self.rows.entry(keys) {
            Entry::Occupied(slot) => Ok(slot.into_mut()),
            Entry::Vacant(slot) => {
                let row = sqlx::query(
                    "SELECT * FROM evm_metrics WHERE chain_id = $1 AND period = $2 AND start_ts = $3",
                )
                .bind(keys.0)
                .bind(keys.1)
                .bind(keys.2)
                .fetch_optional(&mut *conn)
                .await?;
                let m = match row {
                    Some(r) => decode_metrics(&r)?,
                    None => fresh(),
                };
                Ok(slot.insert(m))
            }
        }
    }

    /// Writes every touched metrics row and chain total.
    pub(super) async fn flush(self, conn: &mut AnyConnection) -> Result<()> {
        for m in self.rows.values() {
            upsert_metrics(conn, m).await?;
        }
        for (chain, t) in &self.totals {
            if let Some(ts) = t.last_block_ts {
                t.save(conn, *chain, ts).await?;
            }
        }
        Ok(())
    }
}

/// A contract deployment recorded by this block: the contract and the transaction sender.
pub(super) struct NewDeployment {
    sender: Address,
}

async fn balance_of(
    conn: &mut AnyConnection,
    chain: i64,
    owner: Address,
    t: &TokenTransfer,
    id: &U256,
) -> Result<Option<U256>> {
    let row = sqlx::query(
        "SELECT balance FROM evm_collectibles \
         WHERE chain_id = $1 AND owner = $2 AND token = $3 AND token_id = $4",
    )
    .bind(chain)
    .bind(owner.0.to_vec())
    .bind(t.token.0.to_vec())
    .bind(u256(id))
    .fetch_optional(&mut *conn)
    .await?;
    row.map(|r| r.u256("balance")).transpose()
}

async fn set_balance(
    conn: &mut AnyConnection,
    chain: i64,
    owner: Address,
    t: &TokenTransfer,
    id: &U256,
    balance: U256,
) -> Result<()> {
    if balance.is_zero() {
        sqlx::query(
            "DELETE FROM evm_collectibles \
             WHERE chain_id = $1 AND owner = $2 AND token = $3 AND token_id = $4",
        )
        .bind(chain)
        .bind(owner.0.to_vec())
        .bind(t.token.0.to_vec())
        .bind(u256(id))
        .execute(&mut *conn)
        .await?;
        return Ok(());
    }
    sqlx::query(
        "INSERT INTO evm_collectibles (chain_id, owner, token, token_id, standard, balance) \
         VALUES ($1, $2, $3, $4, $5, $6) \
         ON CONFLICT (chain_id, owner, token, token_id) DO UPDATE SET balance = excluded.balance, \
         standard = excluded.standard",
    )
    .bind(chain)
    .bind(owner.0.to_vec())
    .bind(t.token.0.to_vec())
    .bind(u256(id))
    .bind(t.standard.code())
    .bind(u256(&balance))
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// Moves an ERC-721 token or ERC-1155 amount between holders. Mints come from and burns go to
/// the zero address, which holds nothing.
pub(super) async fn update_collectibles(
    conn: &mut AnyConnection,
    chain: i64,
    t: &TokenTransfer,
) -> Result<()> {
    let Some(id) = t.token_id else {
        return Ok(());
    };
    let amount = match t.standard {
        TokenStandard::Erc20 => return Ok(()),
        TokenStandard::Erc721 => U256::ONE,
        TokenStandard::Erc1155 => t.value,
    };
    if amount.is_zero() {
        return Ok(());
    }
    if t.from != Address::ZERO {
        let held = balance_of(conn, chain, t.from, t, &id)
            .await?
            .unwrap_or(U256::ZERO);
        let left = held
            .checked_sub(amount)
            .ok_or_else(|| StoreError::BalanceUnderflow {
                token: t.token.to_string(),
                token_id: id.to_string(),
                owner: t.from.to_string(),
            })?;
        set_balance(conn, chain, t.from, t, &id, left).await?;
    }
    if t.to != Address::ZERO {
        let new = match t.standard {
            TokenStandard::Erc721 => U256::ONE,
            _ => {
                let held = balance_of(conn, chain, t.to, t, &id)
                    .await?
                    .unwrap_or(U256::ZERO);
                held.checked_add(amount)
                    .ok_or_else(|| StoreError::OutOfRange {
                        field: "collectible balance",
                        value: id.to_string(),
                    })?
            }
        };
        set_balance(conn, chain, t.to, t, &id, new).await?;
    }
    Ok(())
}

/// Records contracts created by successful creation transactions and by internal `CREATE` /
/// `CREATE2` calls that did not revert. The first deployment of an address wins.
pub(super) async fn write_contracts(
    conn: &mut AnyConnection,
    chain: i64,
    rows: &EvmBlockRows,
) -> Result<Vec<NewDeployment>> {
    let number = int("block number", rows.block.number)?;
    let ts = int("timestamp", rows.block.timestamp)?;
    let txs: HashMap<u32, &EvmTx> = rows.txs.iter().map(|t| (t.index, t)).collect();
    // (contract, deployer, tx, trace index, kind)
    let mut found: Vec<(Address, Address, &EvmTx, Option<u32>, &str)> = Vec::new();
    for tx in &rows.txs {
        if let (true, Some(contract)) = (tx.success, tx.contract_address) {
            found.push((contract, tx.from, tx, None, "CREATE"));
        }
    }
    for itx in &rows.internal_txs {
        let creates = itx.call_type == "CREATE" || itx.call_type == "CREATE2";
        match txs.get(&itx.tx_index) {
            Some(tx) if creates && !itx.reverted && tx.success => {
                found.push((
                    itx.to,
                    itx.from,
                    tx,
                    Some(itx.trace_index),
                    itx.call_type.as_str(),
                ));
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    for (contract, deployer, tx, trace, kind) in found {
        let inserted = sqlx::query(
            "INSERT INTO evm_contracts (chain_id, address, deployer, tx_hash, number, tx_index, \
             trace_index, kind, timestamp) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) \
             ON CONFLICT (chain_id, address) DO NOTHING",
        )
        .bind(chain)
        .bind(contract.0.to_vec())
        .bind(deployer.0.to_vec())
        .bind(tx.hash.0.to_vec())
        .bind(number)
        .bind(i64::from(tx.index))
        .bind(trace.map(i64::from))
        .bind(kind.to_owned())
        .bind(ts)
        .execute(&mut *conn)
        .await?
        .rows_affected();
        if inserted == 1 {
            out.push(NewDeployment { sender: tx.from });
        }
    }
    Ok(out)
}

/// Adds `addresses` to a period's distinct set of `kind`; returns how many were new.
async fn add_period_addresses(
    conn: &mut AnyConnection,
    (chain, period, start): (i64, i64, i64),
    kind: i64,
    addresses: &BTreeSet<Address>,
) -> Result<u64> {
    let list: Vec<&Address> = addresses.iter().collect();
    insert_many(
        conn,
        "INSERT INTO evm_period_addresses (chain_id, period, start_ts, kind, address) VALUES ",
        " ON CONFLICT (chain_id, period, start_ts, kind, address) DO NOTHING",
        5,
        &list,
        |q, a| {
            q.arg(chain)
                .arg(period)
                .arg(start)
                .arg(kind)
                .arg(a.0.to_vec());
            Ok(())
        },
    )
    .await
}

/// Adds `addresses` to a chain's all-time distinct set of `kind`; returns how many were new.
async fn add_chain_addresses(
    conn: &mut AnyConnection,
    chain: i64,
    kind: i64,
    addresses: &BTreeSet<Address>,
) -> Result<u64> {
    let list: Vec<&Address> = addresses.iter().collect();
    insert_many(
        conn,
        "INSERT INTO evm_chain_addresses (chain_id, kind, address) VALUES ",
        " ON CONFLICT (chain_id, kind, address) DO NOTHING",
        3,
        &list,
        |q, a| {
            q.arg(chain).arg(kind).arg(a.0.to_vec());
            Ok(())
        },
    )
    .await
}

const KIND_ACTIVE: i64 = 0;
const KIND_SENDER: i64 = 1;
const KIND_DEPLOYER: i64 = 2;

/// Folds one block into the chain totals and its hour and day metrics rows.
pub(super) async fn update_metrics(
    conn: &mut AnyConnection,
    cache: &mut MetricsCache,
    rows: &EvmBlockRows,
    deployments: &[NewDeployment],
    fees: U256,
) -> Result<()> {
    let chain = int("chain id", rows.chain_id)?;
    let mut totals = cache.totals(conn, chain).await?;
    let ts = rows.block.timestamp;
    let overflow = |field| StoreError::OutOfRange {
        field,
        value: rows.block.number.to_string(),
    };
    let prev_ts = totals.last_block_ts.unwrap_or(ts);
    let dt = ts.saturating_sub(prev_ts).max(1) as f64;
    let n = rows.txs.len() as u64;
    let tps = n as f64 / dt;
    let gps = rows.block.gas_used as f64 / dt;

    let mut active: BTreeSet<Address> = BTreeSet::new();
    let mut senders: BTreeSet<Address> = BTreeSet::new();
    let mut sum_gas_price = U256::ZERO;
    let mut max_gas_price = U256::ZERO;
    for tx in &rows.txs {
        active.insert(tx.from);
        if let Some(to) = tx.to {
            active.insert(to);
        }
        senders.insert(tx.from);
        sum_gas_price = sum_gas_price
            .checked_add(tx.gas_price)
            .ok_or_else(|| overflow("gas price sum"))?;
        max_gas_price = max_gas_price.max(tx.gas_price);
    }
    let deployers: BTreeSet<Address> = deployments.iter().map(|d| d.sender).collect();

    totals.cumulative_addresses += add_chain_addresses(conn, chain, KIND_ACTIVE, &active).await?;
    totals.cumulative_deployers +=
        add_chain_addresses(conn, chain, KIND_DEPLOYER, &deployers).await?;
    totals.cumulative_contracts += deployments.len() as u64;
    totals.cumulative_txs = totals
        .cumulative_txs
        .checked_add(n)
        .ok_or_else(|| overflow("cumulative txs"))?;

    for g in Granularity::ALL {
        let start = g.start_of(ts);
        let keys = (
            chain,
            int("period", g.seconds())?,
            int("period start", start)?,
        );
        let chain_id = rows.chain_id;
        let m = cache
            .row(conn, keys, || ChainMetrics {
                chain_id,
                granularity: g,
                start_ts: start,
                block_count: 0,
                tx_count: 0,
                gas_used: 0,
                fees_paid: U256::ZERO,
                sum_gas_price: U256::ZERO,
                max_gas_price: U256::ZERO,
                max_tps: 0.0,
                max_gps: 0.0,
                active_addresses: 0,
                active_senders: 0,
                contracts: 0,
                deployers: 0,
                span_start_ts: prev_ts,
                last_block_ts: ts,
                cumulative_txs: 0,
                cumulative_addresses: 0,
                cumulative_contracts: 0,
                cumulative_deployers: 0,
            })
            .await?;
        m.active_addresses += add_period_addresses(conn, keys, KIND_ACTIVE, &active).await?;
        m.active_senders += add_period_addresses(conn, keys, KIND_SENDER, &senders).await?;
        m.deployers += add_period_addresses(conn, keys, KIND_DEPLOYER, &deployers).await?;
        m.block_count += 1;
        m.tx_count += n;
        m.gas_used = m
            .gas_used
            .checked_add(rows.block.gas_used)
            .ok_or_else(|| overflow("gas used"))?;
        m.fees_paid = m
            .fees_paid
            .checked_add(fees)
            .ok_or_else(|| overflow("fees"))?;
        m.sum_gas_price = m
            .sum_gas_price
            .checked_add(sum_gas_price)
            .ok_or_else(|| overflow("gas price sum"))?;
        m.max_gas_price = m.max_gas_price.max(max_gas_price);
        m.max_tps = m.max_tps.max(tps);
        m.max_gps = m.max_gps.max(gps);
        m.contracts += deployments.len() as u64;
        m.last_block_ts = ts;
        m.cumulative_txs = totals.cumulative_txs;
        m.cumulative_addresses = totals.cumulative_addresses;
        m.cumulative_contracts = totals.cumulative_contracts;
        m.cumulative_deployers = totals.cumulative_deployers;
    }
    totals.last_block_ts = Some(ts);
    cache.totals.insert(chain, totals);
    Ok(())
}
