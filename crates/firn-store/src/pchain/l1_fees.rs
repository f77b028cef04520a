//! The L1 validator fee ledger: written with the P-Chain blocks that move it, read back by the
//! indexer to resume and by the Metrics API as daily totals.

use firn_core::ids::Id;
use sqlx::AnyConnection;

use crate::codec::{RowExt, bits, int};
use crate::error::Result;
use crate::row::Row;
use crate::rows::l1_fees::{
    L1FeeActive, L1FeeChanges, L1FeeDayTotal, L1FeeLedgerRecord, L1FeeScope, LedgerState,
};
use crate::sql::Sql;
use crate::store::Store;

/// Writes what the ledger changed up to the block at `height`.
pub(super) async fn write(
    conn: &mut AnyConnection,
    height: u64,
    changes: &L1FeeChanges,
) -> Result<()> {
    let s = &changes.state;
    sqlx::query(
        "INSERT INTO l1_fee_ledger (id, height, time, excess, accrued) VALUES (0, $1, $2, $3, $4) \
         ON CONFLICT (id) DO UPDATE SET height = excluded.height, time = excluded.time, \
         excess = excluded.excess, accrued = excluded.accrued",
    )
    .bind(int("height", height)?)
    .bind(bits(s.time))
    .bind(bits(s.excess))
    .bind(bits(s.accrued))
    .execute(&mut *conn)
    .await?;
    for id in &changes.inactive {
        sqlx::query("DELETE FROM l1_fee_active WHERE validation_id = $1")
            .bind(id.0.to_vec())
            .execute(&mut *conn)
            .await?;
        // One that ran out is inactive as AvalancheGo has it (disabled ones already are).
        sqlx::query(
            "UPDATE l1_validators SET active = 0, balance = 0, updated_height = $2 \
             WHERE validation_id = $1 AND active = 1",
        )
        .bind(id.0.to_vec())
        .bind(int("height", height)?)
        .execute(&mut *conn)
        .await?;
    }
    for a in &changes.active {
        sqlx::query(
            "INSERT INTO l1_fee_active (validation_id, subnet_id, node_id, end_accrued) \
             VALUES ($1, $2, $3, $4) ON CONFLICT (validation_id) DO UPDATE SET \
             end_accrued = excluded.end_accrued",
        )
        .bind(a.validation_id.0.to_vec())
        .bind(a.subnet_id.0.to_vec())
        .bind(a.node_id.0.to_vec())
        .bind(bits(a.end_accrued))
        .execute(&mut *conn)
        .await?;
    }
    for d in &changes.days {
        sqlx::query(
            "INSERT INTO l1_fee_days (validation_id, day, subnet_id, node_id, fee) \
             VALUES ($1, $2, $3, $4, $5) ON CONFLICT (validation_id, day) DO UPDATE SET \
             fee = l1_fee_days.fee + excluded.fee",
        )
        .bind(d.validation_id.0.to_vec())
        .bind(int("day", d.day)?)
        .bind(d.subnet_id.0.to_vec())
        .bind(d.node_id.0.to_vec())
        .bind(int("fee", d.fee)?)
        .execute(&mut *conn)
        .await?;
    }
    Ok(())
}

/// The ledger's state as last committed, with the height of that block.
pub(super) async fn find_state(store: &Store) -> Result<Option<(u64, LedgerState)>> {
    let q = Sql::new("SELECT height, time, excess, accrued FROM l1_fee_ledger WHERE id = 0");
    store
        .fetch_optional(q, |r| {
            Ok((
                r.u64("height")?,
                LedgerState {
                    time: r.bits("time")?,
                    excess: r.bits("excess")?,
                    accrued: r.bits("accrued")?,
                },
            ))
        })
        .await
}

/// Those of `validations` the ledger charges.
pub(super) async fn list_active(store: &Store, validations: &[Id]) -> Result<Vec<L1FeeActive>> {
    let select = "SELECT validation_id, subnet_id, node_id, end_accrued FROM l1_fee_active \
                  WHERE validation_id IN (";
    store
        .fetch_by_keys(select, validations, |v| v.0.to_vec(), decode_active)
        .await
}

/// The ledger as last committed, with its active validators.
pub(super) async fn find_ledger(store: &Store) -> Result<Option<L1FeeLedgerRecord>> {
    let Some((height, state)) = find_state(store).await? else {
        return Ok(None);
    };
    let q = Sql::new(
        "SELECT validation_id, subnet_id, node_id, end_accrued FROM l1_fee_active \
         ORDER BY validation_id",
    );
    let active = store.fetch(q, decode_active).await?;
    Ok(Some(L1FeeLedgerRecord {
        height,
        state,
        active,
    }))
}

fn decode_active(r: &dyn Row) -> Result<L1FeeActive> {
    Ok(L1FeeActive {
        validation_id: r.id("validation_id")?,
        subnet_id: r.id("subnet_id")?,
        node_id: r.node_id("node_id")?,
        end_accrued: r.bits("end_accrued")?,
    })
}

/// The days of `scope` with a fee in `[from_day, to_day]`, oldest first.
pub(crate) async fn list_days(
    store: &Store,
    scope: L1FeeScope,
    from_day: u64,
    to_day: u64,
) -> Result<Vec<L1FeeDayTotal>> {
    let mut q = Sql::new(
        "SELECT day, CAST(SUM(fee) AS BIGINT) AS fees, COUNT(*) AS paying FROM l1_fee_days \
         WHERE day >= ",
    );
    q.bind(int("start day", from_day)?)
        .push(" AND day <= ")
        .bind(int("end day", to_day.min(i64::MAX as u64))?);
    match scope {
        L1FeeScope::All => &mut q,
        L1FeeScope::Subnet(id) => q.push(" AND subnet_id = ").bind(id.0.to_vec()),
        L1FeeScope::Node(id) => q.push(" AND node_id = ").bind(id.0.to_vec()),
        L1FeeScope::Validation(id) => q.push(" AND validation_id = ").bind(id.0.to_vec()),
    };
    q.push(" GROUP BY day ORDER BY day");
    store
        .fetch(q, |r| {
            Ok(L1FeeDayTotal {
                day: r.u64("day")?,
                fees: r.u64("fees")?,
                paying: r.u64("paying")?,
            })
        })
        .await
}
