//! The rows an X-Chain commit adds (blocks, txs, UTXOs and their owners, assets, the txs each
//! address and asset took part in, what crossed to or from another chain's atomic memory), gathered over the whole batch and written at its end in a
//! few multi-row statements per table instead of about eleven statements per tx.
//!
//! UTXOs a batch spends are marked spent set-wise too: those it created before they are
//! written, those the store holds (read once per batch, [`XPending::read_stored`]) at its end.
//! Which txs are stored already (genesis, and those the DAG's vertices carried) is read once
//! per batch as well. Nothing gathered here is read during a commit.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use firn_core::ids::{Id, ShortId};
use sqlx::AnyConnection;
use tracing::debug;

use crate::atomic::{AtomicImport, write_exports, write_imports};
use crate::codec::{RowExt, bits, hashes, int, short_ids, u128_bytes};
use crate::error::Result;
use crate::rows::atomic::AtomicUtxo;
use crate::rows::xchain::{XAsset, XBlockRecord, XTx, XUtxo, XVertexRecord};
use crate::sql::{IDS_PER_READ, Sql, by_owner, insert_many};

/// The tx that spends a UTXO, and its block's height and time.
#[derive(Debug, Clone, Copy)]
struct Spend {
    tx_id: Id,
    height: i64,
    ts: i64,
}

/// Where a tx sits: `(height, index)` and its block's (or vertex's) time.
#[derive(Debug, Clone, Copy)]
pub(super) struct At {
    pub(super) height: i64,
    pub(super) index: i64,
    pub(super) ts: i64,
}

struct TxRow<'a> {
    at: At,
    tx: &'a XTx,
    /// The acceptance index of the vertex that carried it, for a DAG tx.
    vertex: Option<i64>,
}

struct UtxoRow<'a> {
    utxo: &'a XUtxo,
    /// Distinct owners, in order.
    owners: BTreeSet<ShortId>,
    height: i64,
    ts: i64,
    spent: Option<Spend>,
}

/// A row of `x_tx_parties` (with an address) or `x_tx_assets` (without).
#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct Party {
    address: Option<ShortId>,
    asset: Id,
    height: i64,
    index: i64,
}

/// Rows gathered for the end of one commit.
#[derive(Default)]
pub(super) struct XPending<'a> {
    blocks: Vec<&'a XBlockRecord>,
    vertices: Vec<&'a XVertexRecord>,
    txs: Vec<TxRow<'a>>,
    /// Txs stored before this batch or gathered in it (of those [`XPending::read_stored`]
    /// was asked about, and every one gathered).
    known_txs: HashSet<Id>,
    utxos: Vec<UtxoRow<'a>>,
    /// Position in `utxos` of each UTXO gathered.
    utxo_at: HashMap<Id, usize>,
    /// Unspent UTXOs of the store that this batch spends (asset and owners), until spent.
    stored: HashMap<Id, (Id, Vec<ShortId>)>,
    /// The store's UTXOs this batch spent, with their owners.
    stored_spends: Vec<(Id, Vec<ShortId>, Spend)>,
    assets: Vec<(&'a XAsset, Id, i64, i64)>,
    parties: Vec<Party>,
    /// Outputs exported to another chain's atomic memory, with their block time.
    exports: Vec<(&'a AtomicUtxo, i64)>,
    /// UTXOs imported from another chain's exports.
    imports: Vec<AtomicImport>,
    /// What the batch's txs burned, per asset.
    burned: BTreeMap<Id, u128>,
    /// The first free tx index at height 0, once read.
    next_at_zero: Option<i64>,
}

impl<'a> XPending<'a> {
    /// Reads what the batch's txs need from the store, once: which UTXOs they spend the store
    /// holds unspent, and which of `maybe_stored` (txs that may be stored already) are.
    pub(super) async fn read_stored(
        &mut self,
        conn: &mut AnyConnection,
        txs: impl Iterator<Item = &XTx> + Clone,
        maybe_stored: &[Id],
    ) -> Result<()> {
        let spent: Vec<&Id> = txs.flat_map(|t| &t.consumed).collect();
        for ids in spent.chunks(IDS_PER_READ) {
            let mut q = Sql::new(
                "SELECT utxo_id, asset_id, addresses FROM x_utxos \
                 WHERE consumed_tx_id IS NULL AND utxo_id IN (",
            );
            q.bind_list(ids.iter().map(|id| id.0.to_vec())).push(")");
            for row in q.fetch_all(&mut *conn).await? {
                self.stored.insert(
                    row.id("utxo_id")?,
                    (row.id("asset_id")?, row.short_ids("addresses")?),
                );
            }
        }
        for ids in maybe_stored.chunks(IDS_PER_READ) {
            let mut q = Sql::new("SELECT tx_id FROM x_txs WHERE tx_id IN (");
            q.bind_list(ids.iter().map(|id| id.0.to_vec())).push(")");
            for row in q.fetch_all(&mut *conn).await? {
                self.known_txs.insert(row.id("tx_id")?);
            }
        }
        Ok(())
    }

    /// Whether `tx_id` is stored or gathered already (as far as [`XPending::read_stored`]
    /// was asked).
    pub(super) fn has_tx(&self, tx_id: &Id) -> bool {
        self.known_txs.contains(tx_id)
    }

    /// The first free tx index at `height`: at height 0, after genesis and the DAG's txs
    /// (read once, then counted here); above it, 0, since a block's txs are its height's only.
    pub(super) async fn first_index(
        &mut self,
        conn: &mut AnyConnection,
        height: i64,
    ) -> Result<i64> {
        if height != 0 {
            return Ok(0);
        }
        if let Some(next) = self.next_at_zero {
            return Ok(next);
        }
        let row = sqlx::query("SELECT MAX(tx_index) AS m FROM x_txs WHERE height = 0")
            .fetch_one(&mut *conn)
            .await?;
        let next = row.opt_i64("m")?.map_or(0, |m| m + 1);
        self.next_at_zero = Some(next);
        Ok(next)
    }

    /// Gathers `txs` at height 0 after what is stored or gathered there, passing over those
    /// stored or gathered already (a tx keeps its first position); returns how many it took.
    pub(super) async fn txs_at_zero(
        &mut self,
        conn: &mut AnyConnection,
        txs: &'a [XTx],
        ts: i64,
        vertex: Option<i64>,
    ) -> Result<usize> {
        let mut index = self.first_index(conn, 0).await?;
        let mut taken = 0;
        for tx in txs {
            if self.has_tx(&tx.tx_id) {
                continue;
            }
            let at = At {
                height: 0,
                index,
                ts,
            };
            self.tx(at, tx, vertex);
            index += 1;
            taken += 1;
        }
        Ok(taken)
    }

    pub(super) fn block(&mut self, block: &'a XBlockRecord) {
        self.blocks.push(block);
    }

    pub(super) fn vertex(&mut self, vertex: &'a XVertexRecord) {
        self.vertices.push(vertex);
    }

    /// `tx` at `at` with its UTXOs, asset and lookup rows; `vertex` is the acceptance index of
    /// the vertex that carried it, for a tx of the DAG.
    pub(super) fn tx(&mut self, at: At, tx: &'a XTx, vertex: Option<i64>) {
        if at.height == 0 {
            self.next_at_zero = Some(at.index + 1);
        }
        self.known_txs.insert(tx.tx_id);
        let mut touched: BTreeSet<(Option<ShortId>, Id)> = BTreeSet::new();
        let spend = Spend {
            tx_id: tx.tx_id,
            height: at.height,
            ts: at.ts,
        };
        for utxo_id in &tx.consumed {
            self.spend(utxo_id, spend, &mut touched);
        }
        for u in &tx.produced {
            let owners: BTreeSet<ShortId> = u.addresses.iter().copied().collect();
            touched.insert((None, u.asset_id));
            touched.extend(owners.iter().map(|a| (Some(*a), u.asset_id)));
            self.utxo_at.insert(u.utxo_id, self.utxos.len());
            self.utxos.push(UtxoRow {
                utxo: u,
                owners,
                height: at.height,
                ts: at.ts,
                spent: None,
            });
        }
        self.exports.extend(tx.exported.iter().map(|u| (u, at.ts)));
        for (asset, amount) in &tx.burned {
            *self.burned.entry(*asset).or_default() += u128::from(*amount);
        }
        if let Some(source) = tx.source_chain {
            self.imports
                .extend(tx.imported.iter().map(|utxo_id| AtomicImport {
                    utxo_id: *utxo_id,
                    source,
                    tx_id: tx.tx_id,
                    ts: at.ts,
                }));
        }
        if let Some(a) = &tx.asset {
            touched.insert((None, a.asset_id));
            self.assets.push((a, tx.tx_id, at.height, at.ts));
        }
        self.parties
            .extend(touched.into_iter().map(|(address, asset)| Party {
                address,
                asset,
                height: at.height,
                index: at.index,
            }));
        self.txs.push(TxRow { at, tx, vertex });
    }

    /// Spends `utxo_id` if this batch created it or the store holds it unspent. Any other is
    /// passed over: the node accepted the tx, so it is one whose creating tx could not be
    /// derived (and was logged then); refusing it would stop indexing for good.
    fn spend(&mut self, utxo_id: &Id, spend: Spend, touched: &mut BTreeSet<(Option<ShortId>, Id)>) {
        let spent: Option<(Id, Vec<ShortId>)> = if let Some(row) = self
            .utxo_at
            .get(utxo_id)
            .and_then(|i| self.utxos.get_mut(*i))
        {
            if row.spent.is_some() {
                None
            } else {
                row.spent = Some(spend);
                Some((row.utxo.asset_id, row.owners.iter().copied().collect()))
            }
        } else if let Some((asset, owners)) = self.stored.remove(utxo_id) {
            self.stored_spends.push((*utxo_id, owners.clone(), spend));
            Some((asset, owners))
        } else {
            None
        };
        let Some((asset, owners)) = spent else {
            debug!(utxo = %utxo_id, tx = %spend.tx_id, "x-chain tx consumes a utxo not stored unspent");
            return;
        };
        touched.insert((None, asset));
        touched.extend(owners.into_iter().map(|a| (Some(a), asset)));
    }

    /// Writes everything gathered.
    pub(super) async fn write(self, conn: &mut AnyConnection) -> Result<()> {
        write_blocks(conn, &self.blocks).await?;
        write_vertices(conn, &self.vertices).await?;
        write_txs(conn, &self.txs).await?;
        write_utxos(conn, &self.utxos).await?;
        write_stored_spends(conn, &self.stored_spends).await?;
        write_exports(conn, &self.exports).await?;
        write_imports(conn, &self.imports).await?;
        write_assets(conn, &self.assets).await?;
        write_burned(conn, &self.burned).await?;
        write_parties(conn, &self.parties).await
    }
}

async fn write_blocks(conn: &mut AnyConnection, blocks: &[&XBlockRecord]) -> Result<()> {
    insert_many(
        conn,
        "INSERT INTO x_blocks (height, block_id, parent_id, timestamp, tx_count, size_bytes) \
         VALUES ",
        "",
        6,
        blocks,
        |q, b| {
            q.arg(int("height", b.height)?)
                .arg(b.block_id.0.to_vec())
                .arg(b.parent_id.0.to_vec());
            q.arg(int("timestamp", b.timestamp)?)
                .arg(int("tx count", b.tx_count)?)
                .arg(int("block size", b.size_bytes)?);
            Ok(())
        },
    )
    .await?;
    Ok(())
}

async fn write_vertices(conn: &mut AnyConnection, vertices: &[&XVertexRecord]) -> Result<()> {
    insert_many(
        conn,
        "INSERT INTO x_vertices (vertex_index, vertex_id, height, parent_ids, timestamp, \
         tx_count, size_bytes, tx_ids) VALUES ",
        "",
        8,
        vertices,
        |q, v| {
            q.arg(int("vertex index", v.index)?)
                .arg(v.vertex_id.0.to_vec())
                .arg(int("vertex height", v.height)?)
                .arg(hashes(&v.parent_ids));
            q.arg(int("timestamp", v.timestamp)?)
                .arg(int("tx count", v.tx_count)?)
                .arg(int("vertex size", v.size_bytes)?)
                .arg(hashes(&v.tx_ids));
            Ok(())
        },
    )
    .await?;
    let carried: Vec<(i64, i64, &Id)> = vertices
        .iter()
        .map(|v| Ok((int("vertex index", v.index)?, &v.tx_ids)))
        .collect::<Result<Vec<_>>>()?
        .into_iter()
        .flat_map(|(vi, ids)| (0i64..).zip(ids).map(move |(p, id)| (vi, p, id)))
        .collect();
    insert_many(
        conn,
        "INSERT INTO x_vertex_txs (vertex_index, position, tx_id) VALUES ",
        "",
        3,
        &carried,
        |q, (vi, position, id)| {
            q.arg(*vi).arg(*position).arg(id.0.to_vec());
            Ok(())
        },
    )
    .await?;
    Ok(())
}

async fn write_txs(conn: &mut AnyConnection, txs: &[TxRow<'_>]) -> Result<()> {
    insert_many(
        conn,
        "INSERT INTO x_txs (height, tx_index, tx_id, tx_type, timestamp, genesis, memo, \
         source_chain, destination_chain, bytes, vertex_index) VALUES ",
        "",
        11,
        txs,
        |q, r| {
            let t = r.tx;
            q.arg(r.at.height)
                .arg(r.at.index)
                .arg(t.tx_id.0.to_vec())
                .arg(t.tx_type.clone());
            q.arg(r.at.ts)
                .arg(i64::from(t.genesis))
                .arg(t.memo.clone())
                .arg(t.source_chain.map(|c| c.0.to_vec()));
            q.arg(t.destination_chain.map(|c| c.0.to_vec()))
                .arg(t.bytes.clone())
                .arg(r.vertex);
            Ok(())
        },
    )
    .await?;
    Ok(())
}

async fn write_utxos(conn: &mut AnyConnection, utxos: &[UtxoRow<'_>]) -> Result<()> {
    insert_many(
        conn,
        "INSERT INTO x_utxos (utxo_id, tx_id, output_index, asset_id, output_kind, amount, \
         group_id, payload, threshold, locktime, owner_count, addresses, height, timestamp, \
         consumed_tx_id, consumed_height, consumed_timestamp) VALUES ",
        "",
        17,
        utxos,
        |q, r| {
            let u = r.utxo;
            q.arg(u.utxo_id.0.to_vec())
                .arg(u.tx_id.0.to_vec())
                .arg(i64::from(u.output_index))
                .arg(u.asset_id.0.to_vec());
            q.arg(u.kind.as_str())
                .arg(u.amount.map(bits))
                .arg(u.group_id.map(i64::from))
                .arg(u.payload.clone());
            q.arg(i64::from(u.threshold))
                .arg(bits(u.locktime))
                .arg(int("owner count", r.owners.len() as u64)?)
                .arg(short_ids(&u.addresses));
            q.arg(r.height).arg(r.ts);
            let s = r.spent.as_ref();
            q.arg(s.map(|s| s.tx_id.0.to_vec()))
                .arg(s.map(|s| s.height))
                .arg(s.map(|s| s.ts));
            Ok(())
        },
    )
    .await?;
    let owners: Vec<(&ShortId, &UtxoRow<'_>)> = utxos
        .iter()
        .flat_map(|r| r.owners.iter().map(move |a| (a, r)))
        .collect();
    insert_many(
        conn,
        "INSERT INTO x_utxo_owners (address, utxo_id, height, spent_height, asset_id, \
         output_kind, amount, locktime, owner_count) VALUES ",
        "",
        9,
        &owners,
        |q, (a, r)| {
            let u = r.utxo;
            q.arg(a.0.to_vec())
                .arg(u.utxo_id.0.to_vec())
                .arg(r.height)
                .arg(r.spent.map(|s| s.height));
            q.arg(u.asset_id.0.to_vec())
                .arg(u.kind.as_str())
                .arg(u.amount.map(bits))
                .arg(bits(u.locktime))
                .arg(int("owner count", r.owners.len() as u64)?);
            Ok(())
        },
    )
    .await?;
    Ok(())
}

/// Marks the store's UTXOs spent, in `x_utxos` and under each owner.
async fn write_stored_spends(
    conn: &mut AnyConnection,
    spends: &[(Id, Vec<ShortId>, Spend)],
) -> Result<()> {
    insert_many(
        conn,
        "WITH v (utxo_id, tx_id, height, ts) AS (VALUES ",
        ") UPDATE x_utxos SET consumed_tx_id = v.tx_id, consumed_height = v.height, \
         consumed_timestamp = v.ts FROM v WHERE x_utxos.utxo_id = v.utxo_id",
        4,
        spends,
        |q, (id, _, s)| {
            q.arg(id.0.to_vec())
                .arg(s.tx_id.0.to_vec())
                .arg(s.height)
                .arg(s.ts);
            Ok(())
        },
    )
    .await?;
    let owners = by_owner(spends, |(_, owners, _)| owners);
    insert_many(
        conn,
        "WITH v (address, utxo_id, height) AS (VALUES ",
        ") UPDATE x_utxo_owners SET spent_height = v.height FROM v \
         WHERE x_utxo_owners.address = v.address AND x_utxo_owners.utxo_id = v.utxo_id",
        3,
        &owners,
        |q, (a, (id, _, s))| {
            q.arg(a.0.to_vec()).arg(id.0.to_vec()).arg(s.height);
            Ok(())
        },
    )
    .await?;
    Ok(())
}

async fn write_assets(conn: &mut AnyConnection, assets: &[(&XAsset, Id, i64, i64)]) -> Result<()> {
    insert_many(
        conn,
        "INSERT INTO x_assets (asset_id, name, symbol, denomination, asset_kind, tx_id, height, \
         timestamp) VALUES ",
        "",
        8,
        assets,
        |q, (a, tx_id, height, ts)| {
            q.arg(a.asset_id.0.to_vec())
                .arg(a.name.clone())
                .arg(a.symbol.clone())
                .arg(i64::from(a.denomination));
            q.arg(a.kind.as_str())
                .arg(tx_id.0.to_vec())
                .arg(*height)
                .arg(*ts);
            Ok(())
        },
    )
    .await?;
    Ok(())
}

/// Adds the batch's burns to the running totals.
async fn write_burned(conn: &mut AnyConnection, burned: &BTreeMap<Id, u128>) -> Result<()> {
    if burned.is_empty() {
        return Ok(());
    }
    let mut q = Sql::new("SELECT asset_id, amount FROM x_burned WHERE asset_id IN (");
    q.bind_list(burned.keys().map(|id| id.0.to_vec())).push(")");
    let mut totals = burned.clone();
    for row in q.fetch_all(&mut *conn).await? {
        if let Some(t) = totals.get_mut(&row.id("asset_id")?) {
            *t = t.saturating_add(row.u128("amount")?);
        }
    }
    let totals: Vec<(&Id, &u128)> = totals.iter().collect();
    insert_many(
        conn,
        "INSERT INTO x_burned (asset_id, amount) VALUES ",
        " ON CONFLICT (asset_id) DO UPDATE SET amount = excluded.amount",
        2,
        &totals,
        |q, (asset, amount)| {
            q.arg(asset.0.to_vec()).arg(u128_bytes(**amount));
            Ok(())
        },
    )
    .await?;
    Ok(())
}

async fn write_parties(conn: &mut AnyConnection, parties: &[Party]) -> Result<()> {
    let (with_address, assets): (Vec<&Party>, Vec<&Party>) =
        parties.iter().partition(|p| p.address.is_some());
    insert_many(
        conn,
        "INSERT INTO x_tx_parties (address, asset_id, height, tx_index) VALUES ",
        "",
        4,
        &with_address,
        |q, p| {
            q.arg(p.address.map(|a| a.0.to_vec()))
                .arg(p.asset.0.to_vec())
                .arg(p.height)
                .arg(p.index);
            Ok(())
        },
    )
    .await?;
    insert_many(
        conn,
        "INSERT INTO x_tx_assets (asset_id, height, tx_index) VALUES ",
        "",
        3,
        &assets,
        |q, p| {
            q.arg(p.asset.0.to_vec()).arg(p.height).arg(p.index);
            Ok(())
        },
    )
    .await?;
    Ok(())
}
