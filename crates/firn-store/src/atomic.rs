//! Shared memory between the primary network's chains ([`crate::rows::atomic`]): each chain's
//! writer adds its ExportTxs' outputs ([`write_exports`]) and its ImportTxs' inputs
//! ([`write_imports`]) to the commit it is in; [`crate::AtomicMemoryReader`] reads what is
//! exported and not imported.
//!
//! The sides of one crossing are indexed by different chains' followers, in either order, so
//! an import may be stored before its export: the reader joins them, nothing links them on
//! write, and both writes are idempotent.

use firn_core::ids::{Id, ShortId};
use sqlx::AnyConnection;

use crate::codec::{RowExt, bits, int, short_ids};
use crate::error::Result;
use crate::page::{Page, PageRequest, SortOrder, UtxoCursor};
use crate::row::Row;
use crate::rows::atomic::{AtomicBalance, AtomicExportRecord, AtomicUtxo, AtomicUtxoRecord};
use crate::sql::{IDS_PER_READ, Sql, by_owner, insert_many};
use crate::store::Store;
use crate::traits::{AtomicMemoryReader, XUtxoFilter};

/// An ImportTx's input: the UTXO it took out of its chain's atomic memory, exported by
/// `source`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct AtomicImport {
    pub(crate) utxo_id: Id,
    pub(crate) source: Id,
    pub(crate) tx_id: Id,
    pub(crate) ts: i64,
}

/// Records ExportTxs' outputs (with their export's block time) and their owners.
pub(crate) async fn write_exports(
    conn: &mut AnyConnection,
    exports: &[(&AtomicUtxo, i64)],
) -> Result<()> {
    insert_many(
        conn,
        "INSERT INTO atomic_exports (utxo_id, tx_id, output_index, source_chain, \
         destination_chain, asset_id, amount, threshold, locktime, addresses, timestamp) VALUES ",
        " ON CONFLICT (utxo_id) DO NOTHING",
        11,
        exports,
        |q, (u, ts)| {
            q.arg(u.utxo_id.0.to_vec())
                .arg(u.tx_id.0.to_vec())
                .arg(i64::from(u.output_index))
                .arg(u.source_chain.0.to_vec());
            q.arg(u.destination_chain.0.to_vec())
                .arg(u.asset_id.0.to_vec())
                .arg(bits(u.amount))
                .arg(i64::from(u.threshold));
            q.arg(bits(u.locktime))
                .arg(short_ids(&u.addresses))
                .arg(*ts);
            Ok(())
        },
    )
    .await?;
    let owners = by_owner(exports, |(u, _)| &u.addresses);
    insert_many(
        conn,
        "INSERT INTO atomic_export_owners (address, destination_chain, utxo_id) VALUES ",
        " ON CONFLICT (address, destination_chain, utxo_id) DO NOTHING",
        3,
        &owners,
        |q, (a, (u, _))| {
            q.arg(a.0.to_vec())
                .arg(u.destination_chain.0.to_vec())
                .arg(u.utxo_id.0.to_vec());
            Ok(())
        },
    )
    .await?;
    Ok(())
}

/// Records ImportTxs' inputs.
pub(crate) async fn write_imports(
    conn: &mut AnyConnection,
    imports: &[AtomicImport],
) -> Result<()> {
    insert_many(
        conn,
        "INSERT INTO atomic_imports (utxo_id, source_chain, tx_id, timestamp) VALUES ",
        " ON CONFLICT (utxo_id) DO NOTHING",
        4,
        imports,
        |q, i| {
            q.arg(i.utxo_id.0.to_vec())
                .arg(i.source.0.to_vec())
                .arg(i.tx_id.0.to_vec())
                .arg(i.ts);
            Ok(())
        },
    )
    .await?;
    Ok(())
}

impl AtomicMemoryReader for Store {
    async fn list_atomic_balances(
        &self,
        destination: Id,
        addresses: &[ShortId],
        as_of: Option<u64>,
        now: u64,
    ) -> Result<Vec<AtomicBalance>> {
        if addresses.is_empty() {
            return Ok(Vec::new());
        }
        // Locktimes are u64 bit patterns: one past 2^63 reads negative, and is locked.
        let mut q = Sql::new("SELECT e.source_chain, e.asset_id, CASE WHEN e.locktime > ");
        q.bind(int("time", now)?);
        // Amounts are summed in two 32-bit halves, so no sum overflows a signed 64-bit column.
        q.push(
            " OR e.locktime < 0 THEN 1 ELSE 0 END AS locked, COUNT(*) AS n, \
             CAST(SUM((e.amount >> 32) & 4294967295) AS BIGINT) AS hi, \
             CAST(SUM(e.amount & 4294967295) AS BIGINT) AS lo FROM atomic_exports e \
             WHERE e.utxo_id IN (SELECT o.utxo_id FROM atomic_export_owners o \
             WHERE o.destination_chain = ",
        )
        .bind(destination.0.to_vec())
        .push(" AND o.address IN (")
        .bind_list(addresses.iter().map(|a| a.0.to_vec()))
        .push(")) AND NOT EXISTS (SELECT 1 FROM atomic_imports i WHERE i.utxo_id = e.utxo_id");
        if let Some(at) = as_of {
            let at = int("time", at)?;
            q.push(" AND i.timestamp <= ")
                .bind(at)
                .push(") AND e.timestamp <= ")
                .bind(at);
        } else {
            q.push(")");
        }
        q.push(
            " GROUP BY e.source_chain, e.asset_id, locked \
             ORDER BY e.source_chain, e.asset_id, locked",
        );
        self.fetch(q, decode_balance).await
    }

    async fn list_atomic_exports(&self, utxo_ids: &[Id]) -> Result<Vec<AtomicExportRecord>> {
        let mut out = Vec::with_capacity(utxo_ids.len());
        for ids in utxo_ids.chunks(IDS_PER_READ) {
            let mut q = Sql::new(
                "SELECT utxo_id, tx_id, output_index, source_chain, destination_chain, asset_id, \
                 amount, threshold, locktime, addresses, timestamp FROM atomic_exports \
                 WHERE utxo_id IN (",
            );
            q.bind_list(ids.iter().map(|id| id.0.to_vec())).push(")");
            out.extend(self.fetch(q, decode_export).await?);
        }
        Ok(out)
    }

    async fn list_atomic_utxos(
        &self,
        destination: Id,
        filter: &XUtxoFilter,
        order: SortOrder,
        page: &PageRequest<UtxoCursor>,
    ) -> Result<Page<AtomicUtxoRecord, UtxoCursor>> {
        let limit = page.checked_limit()?;
        if filter.addresses.is_empty() {
            return Ok(Page::from_rows(Vec::new(), limit, cursor_of));
        }
        let mut q = Sql::new(
            "SELECT e.utxo_id, e.tx_id, e.output_index, e.source_chain, e.destination_chain, \
             e.asset_id, e.amount, e.threshold, e.locktime, e.addresses, e.timestamp, \
             i.tx_id AS import_tx, i.timestamp AS import_ts FROM atomic_exports e \
             LEFT JOIN atomic_imports i ON i.utxo_id = e.utxo_id WHERE e.utxo_id IN \
             (SELECT o.utxo_id FROM atomic_export_owners o WHERE o.destination_chain = ",
        );
        q.bind(destination.0.to_vec())
            .push(" AND o.address IN (")
            .bind_list(filter.addresses.iter().map(|a| a.0.to_vec()))
            .push("))");
        if !filter.include_spent {
            q.push(" AND i.utxo_id IS NULL");
        }
        if let Some(asset) = filter.asset_id {
            q.push(" AND e.asset_id = ").bind(asset.0.to_vec());
        }
        if let Some(min) = filter.min_amount {
            // Amounts are u64 bit patterns: those past 2^63 read negative.
            let min = bits(min);
            if min >= 0 {
                q.push(" AND (e.amount >= ")
                    .bind(min)
                    .push(" OR e.amount < 0)");
            } else {
                q.push(" AND e.amount < 0 AND e.amount >= ").bind(min);
            }
        }
        if let Some(c) = &page.after {
            q.push(&format!(
                " AND (e.timestamp, e.utxo_id) {} (",
                order.after_op()
            ))
            .bind(int("cursor time", c.key)?)
            .push(", ")
            .bind(c.utxo_id.0.to_vec())
            .push(")");
        }
        let ord = order.sql();
        q.push(&format!(" ORDER BY e.timestamp {ord}, e.utxo_id {ord}"))
            .limit(limit + 1);
        let rows = self.fetch(q, decode_utxo).await?;
        Ok(Page::from_rows(rows, limit, cursor_of))
    }
}

fn cursor_of(u: &AtomicUtxoRecord) -> UtxoCursor {
    UtxoCursor {
        key: u.export.timestamp,
        utxo_id: u.export.utxo.utxo_id,
    }
}

fn decode_utxo(r: &dyn Row) -> Result<AtomicUtxoRecord> {
    let imported = match (r.opt_id("import_tx")?, r.opt_u64("import_ts")?) {
        (Some(tx), Some(ts)) => Some((tx, ts)),
        _ => None,
    };
    Ok(AtomicUtxoRecord {
        export: decode_export(r)?,
        imported,
    })
}

fn decode_export(r: &dyn Row) -> Result<AtomicExportRecord> {
    Ok(AtomicExportRecord {
        utxo: AtomicUtxo {
            utxo_id: r.id("utxo_id")?,
            tx_id: r.id("tx_id")?,
            output_index: r.u32("output_index")?,
            source_chain: r.id("source_chain")?,
            destination_chain: r.id("destination_chain")?,
            asset_id: r.id("asset_id")?,
            amount: r.bits("amount")?,
            threshold: r.u32("threshold")?,
            locktime: r.bits("locktime")?,
            addresses: r.short_ids("addresses")?,
        },
        timestamp: r.u64("timestamp")?,
    })
}

fn decode_balance(r: &dyn Row) -> Result<AtomicBalance> {
    let hi = u128::from(r.u64("hi")?);
    let lo = u128::from(r.u64("lo")?);
    Ok(AtomicBalance {
        source_chain: r.id("source_chain")?,
        asset_id: r.id("asset_id")?,
        locked: r.bool("locked")?,
        amount: (hi << 32) + lo,
        utxo_count: r.u64("n")?,
    })
}
