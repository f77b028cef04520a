//! L1 validators: the list with its filters, and the followed node's word on their remaining
//! balance ([`crate::PChainWriter::record_l1_observations`]).

use firn_core::ids::Id;

use super::decode::decode_l1;
use super::read::CreatedTable;
use crate::codec::{RowExt, bits, int};
use crate::error::Result;
use crate::page::{CreatedCursor, Page, PageRequest, SortOrder};
use crate::row::Row;
use crate::rows::pchain::{L1Observation, L1ValidatorRecord};
use crate::sql::Value;
use crate::store::Store;
use crate::traits::L1ValidatorFilter;

/// The validators with the creating block's time.
pub(super) const L1_VALIDATORS: CreatedTable = CreatedTable {
    select: "SELECT v.*, b.timestamp AS created_timestamp \
             FROM l1_validators v JOIN p_blocks b ON b.height = v.created_height",
    height_col: "created_height",
    id_col: "validation_id",
};

pub(super) async fn list(
    store: &Store,
    filter: &L1ValidatorFilter,
    order: SortOrder,
    page: &PageRequest<CreatedCursor>,
) -> Result<Page<L1ValidatorRecord, CreatedCursor>> {
    let mut filters: Vec<(&str, Value)> = Vec::new();
    if let Some(s) = filter.subnet_id {
        filters.push(("subnet_id", s.0.to_vec().into()));
    }
    if let Some(n) = filter.node_id {
        filters.push(("node_id", n.0.to_vec().into()));
    }
    if let Some(v) = filter.validation_id {
        filters.push(("validation_id", v.0.to_vec().into()));
    }
    if !filter.include_inactive {
        filters.push(("active", 1i64.into()));
    }
    store
        .list_created(L1_VALIDATORS, filters, order, page, decode_l1, |v| {
            CreatedCursor {
                height: v.created_height,
                id: v.validator.validation_id,
            }
        })
        .await
}

/// Keeps `observed` (the newest word on each validator replaces the older one).
pub(super) async fn record(store: &Store, observed: &[L1Observation]) -> Result<()> {
    let mut w = store.begin_write().await?;
    for o in observed {
        sqlx::query(
            "INSERT INTO l1_validator_observations (validation_id, balance, height, observed_at) \
             VALUES ($1, $2, $3, $4) ON CONFLICT (validation_id) DO UPDATE SET \
             balance = excluded.balance, height = excluded.height, \
             observed_at = excluded.observed_at",
        )
        .bind(o.validation_id.0.to_vec())
        .bind(bits(o.balance))
        .bind(int("height", o.height)?)
        .bind(int("observation time", o.observed_at)?)
        .execute(&mut *w.tx)
        .await?;
    }
    w.commit().await
}

/// The observations held for `validations`.
pub(super) async fn list_observations(
    store: &Store,
    validations: &[Id],
) -> Result<Vec<L1Observation>> {
    let select = "SELECT validation_id, balance, height, observed_at \
                  FROM l1_validator_observations WHERE validation_id IN (";
    store
        .fetch_by_keys(select, validations, |v| v.0.to_vec(), decode_observation)
        .await
}

fn decode_observation(r: &dyn Row) -> Result<L1Observation> {
    Ok(L1Observation {
        validation_id: r.id("validation_id")?,
        balance: r.bits("balance")?,
        height: r.u64("height")?,
        observed_at: r.u64("observed_at")?,
    })
}
