//! State the store derives from a batch of EVM blocks inside the commit transaction:
//! collectible balances and contract deployments. Each touched key is read at most once and
//! written once per batch.

use std::collections::{HashMap, HashSet};

use sqlx::AnyConnection;

use super::insert::Staged;
use crate::db::{RowExt, insert_many, insert_many_returning, u256};
use crate::error::{Result, StoreError};
use crate::rows::evm::{EvmTx, TokenStandard};
use crate::types::{Address, U256};

/// (chain, owner, token, token ID)
type HoldingKey = (i64, Address, Address, U256);

struct Holding {
    standard: TokenStandard,
    balance: U256,
}

async fn load_balance(conn: &mut AnyConnection, key: &HoldingKey) -> Result<U256> {
    let row = sqlx::query(
        "SELECT balance FROM evm_collectibles \
         WHERE chain_id = $1 AND owner = $2 AND token = $3 AND token_id = $4",
    )
    .bind(key.0)
    .bind(key.1.0.to_vec())
    .bind(key.2.0.to_vec())
    .bind(u256(&key.3))
    .fetch_optional(&mut *conn)
    .await?;
    Ok(row
        .map(|r| r.u256("balance"))
        .transpose()?
        .unwrap_or(U256::ZERO))
}

async fn holding<'m>(
    conn: &mut AnyConnection,
    held: &'m mut HashMap<HoldingKey, Holding>,
    key: HoldingKey,
    standard: TokenStandard,
) -> Result<&'m mut Holding> {
    use std::collections::hash_map::Entry;
    let h = match held.entry(key) {
        Entry::Occupied(e) => e.into_mut(),
        Entry::Vacant(e) => {
            // The balance is read before the entry is filled; the borrow of `held` is exclusive.
            let balance = load_balance(conn, e.key()).await?;
            e.insert(Holding { standard, balance })
        }
    };
    h.standard = standard;
    Ok(h)
}

/// Moves ERC-721 tokens and ERC-1155 amounts between holders, transfer by transfer in block
/// order, then writes each touched holding once. Mints come from and burns go to the zero
/// address, which holds nothing.
pub(super) async fn update_collectibles(
    conn: &mut AnyConnection,
    staged: &[Staged<'_>],
) -> Result<()> {
    let mut held: HashMap<HoldingKey, Holding> = HashMap::new();
    for s in staged {
        for t in &s.rows.transfers {
            let Some(id) = t.token_id else { continue };
            let amount = match t.standard {
                TokenStandard::Erc20 => continue,
                TokenStandard::Erc721 => U256::ONE,
                TokenStandard::Erc1155 => t.value,
            };
            if amount.is_zero() {
                continue;
            }
            if t.from != Address::ZERO {
                let h =
                    holding(conn, &mut held, (s.chain, t.from, t.token, id), t.standard).await?;
                h.balance =
                    h.balance
                        .checked_sub(amount)
                        .ok_or_else(|| StoreError::BalanceUnderflow {
                            token: t.token.to_string(),
                            token_id: id.to_string(),
                            owner: t.from.to_string(),
                        })?;
            }
            if t.to != Address::ZERO {
                let h = holding(conn, &mut held, (s.chain, t.to, t.token, id), t.standard).await?;
                h.balance = match t.standard {
                    TokenStandard::Erc721 => U256::ONE,
                    _ => h
                        .balance
                        .checked_add(amount)
                        .ok_or_else(|| StoreError::OutOfRange {
                            field: "collectible balance",
                            value: id.to_string(),
                        })?,
                };
            }
        }
    }
    let (empty, kept): (Vec<_>, Vec<_>) = held.iter().partition(|(_, h)| h.balance.is_zero());
    for (key, _) in empty {
        sqlx::query(
            "DELETE FROM evm_collectibles \
             WHERE chain_id = $1 AND owner = $2 AND token = $3 AND token_id = $4",
        )
        .bind(key.0)
        .bind(key.1.0.to_vec())
        .bind(key.2.0.to_vec())
        .bind(u256(&key.3))
        .execute(&mut *conn)
        .await?;
    }
    insert_many(
        conn,
        "INSERT INTO evm_collectibles (chain_id, owner, token, token_id, standard, balance) VALUES ",
        " ON CONFLICT (chain_id, owner, token, token_id) DO UPDATE SET balance = excluded.balance, \
         standard = excluded.standard",
        6,
        &kept,
        |q, (key, h)| {
            q.arg(key.0).arg(key.1.0.to_vec()).arg(key.2.0.to_vec()).arg(u256(&key.3));
            q.arg(h.standard.code()).arg(u256(&h.balance));
            Ok(())
        },
    )
    .await?;
    Ok(())
}

/// One contract creation found in a block.
struct Creation<'a> {
    block: usize,
    contract: Address,
    deployer: Address,
    tx: &'a EvmTx,
    trace: Option<u32>,
    kind: &'a str,
}

/// Records contracts created by successful creation transactions and by internal `CREATE` /
/// `CREATE2` calls that did not revert; the first deployment of an address wins. Returns, per
/// staged block, the senders of the transactions whose deployments were new.
pub(super) async fn write_contracts(
    conn: &mut AnyConnection,
    staged: &[Staged<'_>],
) -> Result<Vec<Vec<Address>>> {
    let mut found: Vec<Creation<'_>> = Vec::new();
    let mut seen: HashSet<(i64, Address)> = HashSet::new();
    for (block, s) in staged.iter().enumerate() {
        let rows = s.rows;
        let txs: HashMap<u32, &EvmTx> = rows.txs.iter().map(|t| (t.index, t)).collect();
        let mut here: Vec<Creation<'_>> = Vec::new();
        for tx in &rows.txs {
            if let (true, Some(contract)) = (tx.success, tx.contract_address) {
                here.push(Creation {
                    block,
                    contract,
                    deployer: tx.from,
                    tx,
                    trace: None,
                    kind: "CREATE",
                });
            }
        }
        for itx in &rows.internal_txs {
            let creates = itx.call_type == "CREATE" || itx.call_type == "CREATE2";
            if let Some(tx) = txs.get(&itx.tx_index)
                && creates
                && !itx.reverted
                && tx.success
            {
                here.push(Creation {
                    block,
                    contract: itx.to,
                    deployer: itx.from,
                    tx,
                    trace: Some(itx.trace_index),
                    kind: itx.call_type.as_str(),
                });
            }
        }
        found.extend(
            here.into_iter()
                .filter(|c| seen.insert((s.chain, c.contract))),
        );
    }
    let mut out = vec![Vec::new(); staged.len()];
    if found.is_empty() {
        return Ok(out);
    }
    let inserted = insert_many_returning(
        conn,
        "INSERT INTO evm_contracts (chain_id, address, deployer, tx_hash, number, tx_index, \
         trace_index, kind, timestamp) VALUES ",
        " ON CONFLICT (chain_id, address) DO NOTHING RETURNING chain_id, address",
        9,
        &found,
        |q, c| {
            let s = &staged[c.block];
            q.arg(s.chain)
                .arg(c.contract.0.to_vec())
                .arg(c.deployer.0.to_vec());
            q.arg(c.tx.hash.0.to_vec())
                .arg(s.number)
                .arg(i64::from(c.tx.index));
            q.arg(c.trace.map(i64::from))
                .arg(c.kind.to_owned())
                .arg(s.ts);
            Ok(())
        },
    )
    .await?;
    let mut new: HashSet<(i64, Address)> = HashSet::with_capacity(inserted.len());
    for r in &inserted {
        new.insert((r.i64("chain_id")?, r.address("address")?));
    }
    for c in &found {
        if new.contains(&(staged[c.block].chain, c.contract)) {
            out[c.block].push(c.tx.from);
        }
    }
    Ok(out)
}
