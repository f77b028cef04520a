//! State the store derives from a batch of EVM blocks inside the commit transaction:
//! token balances (ERC-20 in `evm_erc20_balances`, ERC-721 and ERC-1155 in
//! `evm_collectibles`) and contract deployments. Each touched key is read at most once and
//! written once per batch.

use std::collections::{HashMap, HashSet};

use sqlx::AnyConnection;

use super::insert::Staged;
use super::undo::UndoLog;
use crate::codec::{RowExt, u256};
use crate::error::Result;
use crate::rows::evm::{EvmTx, NftMetadata, TokenStandard, TokenTransfer};
use crate::sql::{insert_many, rows_returning};
use crate::types::{Address, U256};

/// (chain, owner, token, token ID): an ERC-20 balance has no token ID.
pub(crate) type HoldingKey = (i64, Address, Address, Option<U256>);

struct Holding {
    standard: TokenStandard,
    balance: U256,
}

/// The stored holdings of `keys` (standard code and balance), in a few statements: a batch of
/// a busy chain touches thousands, and one round trip each would dominate the commit. A join
/// on the keys, not `IN (VALUES …)`: SQLite scans the table for a row-value IN list.
async fn load_holdings(
    conn: &mut AnyConnection,
    keys: &[HoldingKey],
) -> Result<HashMap<HoldingKey, (i64, U256)>> {
    let mut out = HashMap::with_capacity(keys.len());
    let erc20 = TokenStandard::Erc20.code();
    let (fungible, collectible): (Vec<&HoldingKey>, Vec<&HoldingKey>) =
        keys.iter().partition(|k| k.3.is_none());
    let rows = rows_returning(
        conn,
        "WITH k (c, o, t) AS (VALUES ",
        ") SELECT b.chain_id, b.owner, b.token, b.balance FROM k JOIN evm_erc20_balances b \
         ON b.chain_id = k.c AND b.owner = k.o AND b.token = k.t",
        3,
        &fungible,
        |q, (chain, owner, token, _)| {
            q.arg(*chain).arg(owner.0.to_vec()).arg(token.0.to_vec());
            Ok(())
        },
    )
    .await?;
    for r in rows {
        let key = (
            r.i64("chain_id")?,
            r.address("owner")?,
            r.address("token")?,
            None,
        );
        out.insert(key, (erc20, r.u256("balance")?));
    }
    let rows = rows_returning(
        conn,
        "WITH k (c, o, t, i) AS (VALUES ",
        ") SELECT b.chain_id, b.owner, b.token, b.token_id, b.standard, b.balance FROM k \
         JOIN evm_collectibles b ON b.chain_id = k.c AND b.owner = k.o AND b.token = k.t \
         AND b.token_id = k.i",
        4,
        &collectible,
        |q, (chain, owner, token, id)| {
            q.arg(*chain).arg(owner.0.to_vec()).arg(token.0.to_vec());
            q.arg(u256(&id.unwrap_or_default()));
            Ok(())
        },
    )
    .await?;
    for r in rows {
        let id = Some(r.u256("token_id")?);
        let key = (
            r.i64("chain_id")?,
            r.address("owner")?,
            r.address("token")?,
            id,
        );
        out.insert(key, (r.i64("standard")?, r.u256("balance")?));
    }
    Ok(out)
}

/// The holding of `key`, as the batch has left it so far (as stored, the first time: what it
/// was goes to `undo`).
fn holding<'m>(
    stored: &HashMap<HoldingKey, (i64, U256)>,
    held: &'m mut HashMap<HoldingKey, Holding>,
    undo: &mut UndoLog,
    key: HoldingKey,
    standard: TokenStandard,
) -> &'m mut Holding {
    let h = held.entry(key).or_insert_with_key(|k| {
        let before = stored.get(k).copied();
        undo.entry(k.0)
            .or_default()
            .collectibles
            .push(((k.1, k.2, k.3), before));
        let balance = before.map_or(U256::ZERO, |(_, b)| b);
        Holding { standard, balance }
    });
    h.standard = standard;
    h
}

/// The holding key and amount a transfer moves: ERC-20 and ERC-1155 amounts, one ERC-721
/// token; `None` for a collectible transfer without a token ID.
fn moved(t: &TokenTransfer) -> Option<(Option<U256>, U256)> {
    match (t.standard, t.token_id) {
        (TokenStandard::Erc20, _) => Some((None, t.value)),
        (TokenStandard::Erc721, Some(id)) => Some((Some(id), U256::ONE)),
        (TokenStandard::Erc1155, Some(id)) => Some((Some(id), t.value)),
        (_, None) => None,
    }
}

/// Moves ERC-20 and ERC-1155 amounts and ERC-721 tokens between holders, transfer by
/// transfer in block order, then writes each touched holding once. Mints come from and burns
/// go to the zero address, which holds nothing.
///
/// The transfers are events, and any contract can emit any event: a `Transfer` from an
/// address that holds nothing is a lie a contract may tell, never a reason to fail the commit.
/// Balances clamp at zero and at the largest uint256.
pub(super) async fn update_collectibles(
    conn: &mut AnyConnection,
    staged: &[Staged<'_>],
    undo: &mut UndoLog,
) -> Result<()> {
    // Every holding the batch touches, read at once.
    let mut keys: Vec<HoldingKey> = Vec::new();
    let mut seen: HashSet<HoldingKey> = HashSet::new();
    for s in staged {
        for t in &s.rows.transfers {
            let Some((id, _)) = moved(t) else { continue };
            for party in [t.from, t.to] {
                if party != Address::ZERO && seen.insert((s.chain, party, t.token, id)) {
                    keys.push((s.chain, party, t.token, id));
                }
            }
        }
    }
    let stored = load_holdings(conn, &keys).await?;
    let mut held: HashMap<HoldingKey, Holding> = HashMap::with_capacity(keys.len());
    for s in staged {
        for t in &s.rows.transfers {
            let Some((id, amount)) = moved(t) else {
                continue;
            };
            if amount.is_zero() {
                continue;
            }
            if t.from != Address::ZERO {
                let key = (s.chain, t.from, t.token, id);
                let h = holding(&stored, &mut held, undo, key, t.standard);
                if h.balance < amount {
                    tracing::debug!(token = %format!("{:#x}", t.token), token_id = ?id, owner = %format!("{:#x}", t.from), "a transfer moves more than its sender holds; its balance stays at zero");
                }
                h.balance = h.balance.saturating_sub(amount);
            }
            if t.to != Address::ZERO {
                let key = (s.chain, t.to, t.token, id);
                let h = holding(&stored, &mut held, undo, key, t.standard);
                h.balance = match t.standard {
                    TokenStandard::Erc721 => U256::ONE,
                    _ => h.balance.saturating_add(amount),
                };
            }
        }
    }
    let (empty, kept): (Vec<_>, Vec<_>) = held.iter().partition(|(_, h)| h.balance.is_zero());
    for (key, _) in empty {
        delete_holding(conn, key).await?;
    }
    let kept: Vec<_> = kept
        .into_iter()
        .map(|(k, h)| (*k, h.standard.code(), h.balance))
        .collect();
    put_holdings(conn, &kept).await
}

/// Removes the holding of `key` (a holder with nothing is not stored).
pub(super) async fn delete_holding(conn: &mut AnyConnection, key: &HoldingKey) -> Result<()> {
    let (chain, owner, token, id) = key;
    let q = match id {
        Some(id) => sqlx::query(
            "DELETE FROM evm_collectibles \
             WHERE chain_id = $1 AND owner = $2 AND token = $3 AND token_id = $4",
        )
        .bind(*chain)
        .bind(owner.0.to_vec())
        .bind(token.0.to_vec())
        .bind(u256(id)),
        None => sqlx::query(
            "DELETE FROM evm_erc20_balances WHERE chain_id = $1 AND owner = $2 AND token = $3",
        )
        .bind(*chain)
        .bind(owner.0.to_vec())
        .bind(token.0.to_vec()),
    };
    q.execute(&mut *conn).await?;
    Ok(())
}

/// Writes holdings: key, standard code and balance. ERC-20 balances and collectibles go to
/// their own tables.
pub(crate) async fn put_holdings(
    conn: &mut AnyConnection,
    holdings: &[(HoldingKey, i64, U256)],
) -> Result<()> {
    let (erc20, collectibles): (Vec<_>, Vec<_>) = holdings
        .iter()
        .partition(|((_, _, _, id), _, _)| id.is_none());
    insert_many(
        conn,
        "INSERT INTO evm_erc20_balances (chain_id, owner, token, balance) VALUES ",
        " ON CONFLICT (chain_id, owner, token) DO UPDATE SET balance = excluded.balance",
        4,
        &erc20,
        |q, ((chain, owner, token, _), _, balance)| {
            q.arg(*chain).arg(owner.0.to_vec()).arg(token.0.to_vec());
            q.arg(u256(balance));
            Ok(())
        },
    )
    .await?;
    insert_many(
        conn,
        "INSERT INTO evm_collectibles (chain_id, owner, token, token_id, standard, balance) VALUES ",
        " ON CONFLICT (chain_id, owner, token, token_id) DO UPDATE SET balance = excluded.balance, \
         standard = excluded.standard",
        6,
        &collectibles,
        |q, ((chain, owner, token, id), standard, balance)| {
            let id = id.unwrap_or_default();
            q.arg(*chain).arg(owner.0.to_vec()).arg(token.0.to_vec()).arg(u256(&id));
            q.arg(*standard).arg(u256(balance));
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
    let inserted = rows_returning(
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

/// Queues the metadata of every NFT minted in the batch (a transfer from the zero address) to
/// be read: a row with status [`NftMetadata::URI_UNREAD`], stamped with the minting block's
/// time. A token ID seen before keeps its row (a re-run writes nothing new).
pub(super) async fn queue_minted_metadata(
    conn: &mut AnyConnection,
    staged: &[Staged<'_>],
) -> Result<()> {
    let mut minted: Vec<(&Staged<'_>, Address, U256)> = Vec::new();
    let mut seen: HashSet<(i64, Address, U256)> = HashSet::new();
    for s in staged {
        for t in &s.rows.transfers {
            if let (Some(id), true, false) = (
                t.token_id,
                t.from == Address::ZERO,
                t.standard == TokenStandard::Erc20,
            ) && seen.insert((s.chain, t.token, id))
            {
                minted.push((s, t.token, id));
            }
        }
    }
    insert_many(
        conn,
        "INSERT INTO evm_nft_metadata (chain_id, token, token_id, token_uri, index_status, \
         updated_at) VALUES ",
        " ON CONFLICT (chain_id, token, token_id) DO NOTHING",
        6,
        &minted,
        |q, (s, token, id)| {
            q.arg(s.chain).arg(token.0.to_vec()).arg(u256(id));
            q.arg(String::new())
                .arg(NftMetadata::URI_UNREAD.to_owned())
                .arg(s.ts);
            Ok(())
        },
    )
    .await?;
    Ok(())
}
