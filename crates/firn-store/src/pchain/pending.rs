//! The rows a P-Chain commit only adds (blocks, transactions and their lookup keys, UTXOs and
//! their owners, stakers, rewards), gathered over the whole batch and written at its end in a
//! few multi-row statements per table instead of one statement per row.
//!
//! The UTXOs a batch spends are marked spent set-wise too: those it created before they are
//! written, those the store holds (read once per batch) at its end.
//!
//! What the commit reads or updates while it goes stays correct: the stakers are written
//! before anything reads or updates `p_stakers` ([`Pending::write_stakers`]); no other table
//! gathered here is read during a commit.

use std::collections::{BTreeSet, HashMap};

use firn_core::ids::{Id, ShortId};
use sqlx::AnyConnection;

use super::utxos::{OwnedUtxo, insert_owners};
use crate::atomic::{AtomicImport, write_exports, write_imports};
use crate::codec::{RowExt, amounts, bits, hashes, int, short_ids};
use crate::error::Result;
use crate::rows::atomic::AtomicUtxo;
use crate::rows::pchain::{NewReward, NewStaker, PBlock, PChainBlockRows, PTx, PUtxo};
use crate::sql::{IDS_PER_READ, Sql, by_owner, insert_many};

/// A transaction that spends a UTXO: its hash, block height and time, and input index.
#[derive(Debug, Clone, Copy)]
pub(super) struct Spend {
    pub(super) tx_hash: Id,
    pub(super) height: i64,
    pub(super) ts: i64,
    pub(super) input: i64,
}

struct TxRow<'a> {
    block: &'a PBlock,
    height: i64,
    index: i64,
    ts: i64,
    tx: &'a PTx,
    details: String,
}

/// A row of a lookup table of transactions (by address, by validation ID).
struct TxKey<'a> {
    key: &'a [u8],
    height: i64,
    index: i64,
    tx_type: &'a str,
    ts: i64,
}

struct UtxoRow<'a> {
    utxo: &'a PUtxo,
    height: i64,
    ts: i64,
    emitted_by: Option<Id>,
    emit_index: i64,
    spent: Option<Spend>,
}

struct StakerRow<'a> {
    tx_hash: Id,
    height: i64,
    index: i64,
    tx_type: &'a str,
    staker: &'a NewStaker,
}

/// A reward with the fields it copies from its staker.
pub(super) struct RewardRow<'a> {
    pub(super) height: i64,
    pub(super) index: i64,
    pub(super) seq: i64,
    pub(super) reward: &'a NewReward,
    pub(super) reward_tx_hash: Id,
    pub(super) node_id: Vec<u8>,
    pub(super) weight: i64,
    pub(super) start_ts: i64,
    pub(super) end_ts: i64,
}

/// Rows gathered for the end of one commit.
#[derive(Default)]
pub(super) struct Pending<'a> {
    blocks: Vec<&'a PChainBlockRows>,
    txs: Vec<TxRow<'a>>,
    tx_addresses: Vec<TxKey<'a>>,
    tx_validations: Vec<TxKey<'a>>,
    /// `(address, blockchain)` pairs for `address_chains`.
    chains: BTreeSet<(ShortId, Id)>,
    utxos: Vec<UtxoRow<'a>>,
    /// Position in `utxos` of each UTXO gathered.
    utxo_at: HashMap<Id, usize>,
    stakers: Vec<StakerRow<'a>>,
    rewards: Vec<RewardRow<'a>>,
    /// Unspent UTXOs of the store that this batch spends, with their owners, until spent.
    stored: HashMap<Id, Vec<ShortId>>,
    /// The store's UTXOs this batch spent, with their owners.
    stored_spends: Vec<(Id, Vec<ShortId>, Spend)>,
    /// Outputs exported to another chain's atomic memory, with their block time.
    exports: Vec<(AtomicUtxo, i64)>,
    /// UTXOs imported from another chain's exports.
    imports: Vec<AtomicImport>,
}

impl<'a> Pending<'a> {
    pub(super) fn block(&mut self, rows: &'a PChainBlockRows) {
        self.blocks.push(rows);
    }

    /// The transaction's row and its lookup keys.
    pub(super) fn tx(
        &mut self,
        block: &'a PBlock,
        (height, index, ts): (i64, i64, i64),
        tx: &'a PTx,
        details: String,
    ) {
        let tx_type = tx.core.tx_type.as_str();
        let key = |key: &'a [u8]| TxKey {
            key,
            height,
            index,
            tx_type,
            ts,
        };
        let addresses: BTreeSet<&ShortId> = tx.addresses.iter().collect();
        for a in addresses {
            self.tx_addresses.push(key(&a.0));
            self.chain(*a, firn_core::network::P_CHAIN_ID);
        }
        let validations: BTreeSet<&Id> = tx.l1_validation_ids.iter().collect();
        self.tx_validations
            .extend(validations.into_iter().map(|v| key(&v.0)));
        self.txs.push(TxRow {
            block,
            height,
            index,
            ts,
            tx,
            details,
        });
    }

    /// Records that `address` holds or held something on `chain`.
    pub(super) fn chain(&mut self, address: ShortId, chain: Id) {
        self.chains.insert((address, chain));
    }

    /// A UTXO created (or imported) at `height`, spent already when `spent` says so.
    pub(super) fn utxo(
        &mut self,
        utxo: &'a PUtxo,
        (height, ts): (i64, i64),
        (emitted_by, emit_index): (Option<Id>, i64),
        spent: Option<Spend>,
    ) {
        self.utxo_at.insert(utxo.utxo_id, self.utxos.len());
        self.utxos.push(UtxoRow {
            utxo,
            height,
            ts,
            emitted_by,
            emit_index,
            spent,
        });
    }

    /// An output `utxo` of an ExportTx, put in the atomic memory of its consuming chain.
    pub(super) fn export(&mut self, utxo: &PUtxo, ts: i64) {
        let export = AtomicUtxo {
            utxo_id: utxo.utxo_id,
            tx_id: utxo.tx_hash,
            output_index: utxo.output_index,
            source_chain: utxo.created_on_chain,
            destination_chain: utxo.consumed_on_chain,
            asset_id: utxo.asset_id,
            amount: utxo.amount,
            threshold: utxo.threshold,
            locktime: utxo.locktime,
            addresses: utxo.addresses.clone(),
        };
        self.exports.push((export, ts));
    }

    /// A UTXO an ImportTx took out of the P-Chain's atomic memory.
    pub(super) fn import(&mut self, import: AtomicImport) {
        self.imports.push(import);
    }

    /// Spends `utxo_id` if this batch created it or the store holds it (see
    /// [`Pending::read_stored`]), and nothing spent it yet; false otherwise.
    pub(super) fn spend(&mut self, utxo_id: &Id, spend: Spend) -> bool {
        if let Some(row) = self
            .utxo_at
            .get(utxo_id)
            .and_then(|i| self.utxos.get_mut(*i))
        {
            if row.spent.is_some() {
                return false;
            }
            row.spent = Some(spend);
            return true;
        }
        match self.stored.remove(utxo_id) {
            Some(owners) => {
                self.stored_spends.push((*utxo_id, owners, spend));
                true
            }
            None => false,
        }
    }

    /// Reads which of the UTXOs that `blocks` spend the store holds unspent, for
    /// [`Pending::spend`].
    pub(super) async fn read_stored(
        &mut self,
        conn: &mut AnyConnection,
        blocks: &[PChainBlockRows],
    ) -> Result<()> {
        let spent: Vec<&Id> = blocks
            .iter()
            .flat_map(|b| &b.txs)
            .flat_map(|t| &t.consumed)
            .collect();
        for ids in spent.chunks(IDS_PER_READ) {
            let mut q = Sql::new(
                "SELECT utxo_id, addresses FROM p_utxos \
                 WHERE consuming_tx_hash IS NULL AND utxo_id IN (",
            );
            q.bind_list(ids.iter().map(|id| id.0.to_vec())).push(")");
            for row in q.fetch_all(&mut *conn).await? {
                self.stored
                    .insert(row.id("utxo_id")?, row.short_ids("addresses")?);
            }
        }
        Ok(())
    }

    pub(super) fn staker(
        &mut self,
        tx_hash: Id,
        (height, index): (i64, i64),
        tx_type: &'a str,
        staker: &'a NewStaker,
    ) {
        self.stakers.push(StakerRow {
            tx_hash,
            height,
            index,
            tx_type,
            staker,
        });
    }

    pub(super) fn reward(&mut self, row: RewardRow<'a>) {
        self.rewards.push(row);
    }

    /// Writes the stakers gathered so far (and their reward addresses), so that `p_stakers`
    /// can be read and updated.
    pub(super) async fn write_stakers(&mut self, conn: &mut AnyConnection) -> Result<()> {
        if self.stakers.is_empty() {
            return Ok(());
        }
        insert_many(
            conn,
            "INSERT INTO p_stakers (tx_hash, height, tx_index, tx_type, node_id, subnet_id, \
             start_ts, end_ts, weight, is_delegator, delegation_fee, reward_addresses, \
             estimated_reward, gross_reward, net_reward) VALUES ",
            "",
            15,
            &self.stakers,
            |q, r| {
                let s = r.staker;
                q.arg(r.tx_hash.0.to_vec())
                    .arg(r.height)
                    .arg(r.index)
                    .arg(r.tx_type.to_owned());
                q.arg(s.node_id.0.to_vec())
                    .arg(s.subnet_id.0.to_vec())
                    .arg(int("start time", s.start_ts)?)
                    .arg(int("end time", s.end_ts)?);
                q.arg(bits(s.weight))
                    .arg(i64::from(s.is_delegator))
                    .arg(i64::from(s.delegation_fee))
                    .arg(short_ids(&s.reward_addresses));
                q.arg(s.estimated_reward.map(bits)).arg(0i64).arg(0i64);
                Ok(())
            },
        )
        .await?;
        let owners = by_owner(&self.stakers, |r| &r.staker.reward_addresses);
        insert_many(
            conn,
            "INSERT INTO p_staker_reward_addresses (address, height, tx_index) VALUES ",
            "",
            3,
            &owners,
            |q, (a, r)| {
                q.arg(a.0.to_vec()).arg(r.height).arg(r.index);
                Ok(())
            },
        )
        .await?;
        self.stakers.clear();
        Ok(())
    }

    /// Writes everything gathered.
    pub(super) async fn write(mut self, conn: &mut AnyConnection) -> Result<()> {
        self.write_stakers(conn).await?;
        write_blocks(conn, &self.blocks).await?;
        write_txs(conn, &self.txs).await?;
        for (table, keys) in [
            ("p_tx_addresses (address", &self.tx_addresses),
            ("p_tx_l1_validations (validation_id", &self.tx_validations),
        ] {
            insert_many(
                conn,
                &format!("INSERT INTO {table}, height, tx_index, tx_type, timestamp) VALUES "),
                "",
                5,
                keys,
                |q, k| {
                    q.arg(k.key.to_vec()).arg(k.height).arg(k.index);
                    q.arg(k.tx_type.to_owned()).arg(k.ts);
                    Ok(())
                },
            )
            .await?;
        }
        let chains: Vec<&(ShortId, Id)> = self.chains.iter().collect();
        insert_many(
            conn,
            "INSERT INTO address_chains (address, blockchain_id) VALUES ",
            " ON CONFLICT (address, blockchain_id) DO NOTHING",
            2,
            &chains,
            |q, (a, chain)| {
                q.arg(a.0.to_vec()).arg(chain.0.to_vec());
                Ok(())
            },
        )
        .await?;
        write_utxos(conn, &self.utxos).await?;
        write_stored_spends(conn, &self.stored_spends).await?;
        let exports: Vec<(&AtomicUtxo, i64)> =
            self.exports.iter().map(|(u, ts)| (u, *ts)).collect();
        write_exports(conn, &exports).await?;
        write_imports(conn, &self.imports).await?;
        write_rewards(conn, &self.rewards).await
    }
}

/// Marks the store's UTXOs spent, in `p_utxos` and under each owner.
async fn write_stored_spends(
    conn: &mut AnyConnection,
    spends: &[(Id, Vec<ShortId>, Spend)],
) -> Result<()> {
    insert_many(
        conn,
        "WITH v (utxo_id, tx_hash, height, ts, input) AS (VALUES ",
        ") UPDATE p_utxos SET consuming_tx_hash = v.tx_hash, consuming_height = v.height, \
         consuming_timestamp = v.ts, consume_index = v.input FROM v \
         WHERE p_utxos.utxo_id = v.utxo_id",
        5,
        spends,
        |q, (id, _, s)| {
            q.arg(id.0.to_vec()).arg(s.tx_hash.0.to_vec());
            q.arg(s.height).arg(s.ts).arg(s.input);
            Ok(())
        },
    )
    .await?;
    let owners = by_owner(spends, |(_, owners, _)| owners);
    insert_many(
        conn,
        "WITH v (address, utxo_id, height, ts) AS (VALUES ",
        ") UPDATE p_utxo_owners SET spent_height = v.height, spent_timestamp = v.ts FROM v \
         WHERE p_utxo_owners.address = v.address AND p_utxo_owners.utxo_id = v.utxo_id",
        4,
        &owners,
        |q, (a, (id, _, s))| {
            q.arg(a.0.to_vec())
                .arg(id.0.to_vec())
                .arg(s.height)
                .arg(s.ts);
            Ok(())
        },
    )
    .await?;
    Ok(())
}

async fn write_blocks(conn: &mut AnyConnection, blocks: &[&PChainBlockRows]) -> Result<()> {
    insert_many(
        conn,
        "INSERT INTO p_blocks (height, hash, parent_hash, timestamp, block_type, tx_count, \
         tx_hashes, size_bytes, proposer_id, proposer_parent_id, proposer_node_id, \
         proposer_pchain_height, proposer_timestamp, l1_validators_accrued_fees, \
         active_l1_validators, current_supply) VALUES ",
        "",
        16,
        blocks,
        |q, rows| {
            let b = &rows.block;
            let tx_hashes: Vec<Id> = rows.txs.iter().map(|t| t.core.tx_hash).collect();
            let p = b.proposer.as_ref();
            q.arg(int("height", b.height)?)
                .arg(b.hash.0.to_vec())
                .arg(b.parent_hash.0.to_vec())
                .arg(int("timestamp", b.timestamp)?);
            q.arg(b.block_type.clone())
                .arg(int("tx count", rows.txs.len() as u64)?)
                .arg(hashes(&tx_hashes))
                .arg(int("size", b.size_bytes)?);
            q.arg(p.map(|p| p.id.0.to_vec()))
                .arg(p.map(|p| p.parent_id.0.to_vec()))
                .arg(p.map(|p| p.node_id.0.to_vec()));
            q.arg(
                p.map(|p| int("proposer p-chain height", p.pchain_height))
                    .transpose()?,
            )
            .arg(
                p.map(|p| int("proposer timestamp", p.timestamp))
                    .transpose()?,
            );
            q.arg(b.l1_validators_accrued_fees.map(bits))
                .arg(b.active_l1_validators.map(bits))
                .arg(b.current_supply.map(bits));
            Ok(())
        },
    )
    .await?;
    Ok(())
}

async fn write_txs(conn: &mut AnyConnection, txs: &[TxRow<'_>]) -> Result<()> {
    insert_many(
        conn,
        "INSERT INTO p_txs (height, tx_index, tx_hash, tx_type, timestamp, block_hash, memo, \
         source_chain, destination_chain, value, amount_burned, amount_staked, \
         amount_l1_balance_burned, node_id, subnet_id, start_ts, end_ts, ends_staker, details) \
         VALUES ",
        "",
        19,
        txs,
        |q, r| {
            let c = &r.tx.core;
            q.arg(r.height)
                .arg(r.index)
                .arg(c.tx_hash.0.to_vec())
                .arg(c.tx_type.clone());
            q.arg(r.ts)
                .arg(r.block.hash.0.to_vec())
                .arg(c.memo.clone())
                .arg(c.source_chain.map(|i| i.0.to_vec()))
                .arg(c.destination_chain.map(|i| i.0.to_vec()));
            q.arg(amounts(&c.value))
                .arg(amounts(&c.amount_burned))
                .arg(amounts(&c.amount_staked))
                .arg(amounts(&c.amount_l1_balance_burned));
            q.arg(c.node_id.map(|n| n.0.to_vec()))
                .arg(c.subnet_id.map(|i| i.0.to_vec()))
                .arg(c.start_ts.map(|v| int("start time", v)).transpose()?)
                .arg(c.end_ts.map(|v| int("end time", v)).transpose()?);
            q.arg(c.ends_staker.map(|i| i.0.to_vec()))
                .arg(r.details.clone());
            Ok(())
        },
    )
    .await?;
    Ok(())
}

async fn write_utxos(conn: &mut AnyConnection, utxos: &[UtxoRow<'_>]) -> Result<()> {
    insert_many(
        conn,
        "INSERT INTO p_utxos (utxo_id, tx_hash, output_index, emitted_by, emit_index, height, \
         timestamp, asset_id, amount, addresses, threshold, locktime, stakeable_locktime, staked, \
         utxo_type, reward_type, created_on_chain, consumed_on_chain, start_ts, end_ts, bytes, \
         consuming_tx_hash, consuming_height, consuming_timestamp, consume_index) VALUES ",
        "",
        25,
        utxos,
        |q, r| {
            let u = r.utxo;
            q.arg(u.utxo_id.0.to_vec())
                .arg(u.tx_hash.0.to_vec())
                .arg(i64::from(u.output_index))
                .arg(r.emitted_by.map(|h| h.0.to_vec()))
                .arg(r.emit_index);
            q.arg(r.height)
                .arg(r.ts)
                .arg(u.asset_id.0.to_vec())
                .arg(bits(u.amount))
                .arg(short_ids(&u.addresses));
            q.arg(i64::from(u.threshold))
                .arg(bits(u.locktime))
                .arg(u.stakeable_locktime.map(bits))
                .arg(i64::from(u.staked));
            q.arg(u.utxo_type.as_str())
                .arg(u.reward_type.map(|r| r.as_str()))
                .arg(u.created_on_chain.0.to_vec())
                .arg(u.consumed_on_chain.0.to_vec());
            q.arg(u.start_ts.map(bits))
                .arg(u.end_ts.map(bits))
                .arg(u.bytes.clone());
            let s = r.spent.as_ref();
            q.arg(s.map(|s| s.tx_hash.0.to_vec()))
                .arg(s.map(|s| s.height))
                .arg(s.map(|s| s.ts))
                .arg(s.map(|s| s.input));
            Ok(())
        },
    )
    .await?;
    let owned: Vec<OwnedUtxo<'_>> = utxos
        .iter()
        .map(|r| OwnedUtxo {
            utxo: r.utxo,
            height: r.height,
            ts: r.ts,
            spent: r.spent.map(|s| (s.height, s.ts)),
        })
        .collect();
    insert_owners(conn, &owned).await
}

async fn write_rewards(conn: &mut AnyConnection, rewards: &[RewardRow<'_>]) -> Result<()> {
    insert_many(
        conn,
        "INSERT INTO p_rewards (height, tx_index, seq, utxo_id, output_index, reward_tx_hash, \
         staking_tx_hash, reward_type, node_id, amount_staked, start_ts, end_ts, asset_id, \
         amount, addresses) VALUES ",
        "",
        15,
        rewards,
        |q, w| {
            let r = w.reward;
            q.arg(w.height)
                .arg(w.index)
                .arg(w.seq)
                .arg(r.utxo_id.0.to_vec())
                .arg(i64::from(r.output_index));
            q.arg(w.reward_tx_hash.0.to_vec())
                .arg(r.staking_tx_hash.0.to_vec())
                .arg(r.reward_type.as_str())
                .arg(w.node_id.clone());
            q.arg(w.weight).arg(w.start_ts).arg(w.end_ts);
            q.arg(r.asset_id.0.to_vec())
                .arg(bits(r.amount))
                .arg(short_ids(&r.addresses));
            Ok(())
        },
    )
    .await?;
    let owners = by_owner(rewards, |w| &w.reward.addresses);
    insert_many(
        conn,
        "INSERT INTO p_reward_addresses (address, height, tx_index, seq) VALUES ",
        "",
        4,
        &owners,
        |q, (a, w)| {
            q.arg(a.0.to_vec()).arg(w.height).arg(w.index).arg(w.seq);
            Ok(())
        },
    )
    .await?;
    Ok(())
}
