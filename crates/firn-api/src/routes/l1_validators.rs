//! `listL1Validators`: L1 validators by L1, node or validation ID, active ones unless asked
//! otherwise, newest first. The remaining balance is what the indexer's replay of the fee
//! ledger leaves the validator at the indexed P-Chain height (`blockHeight`); where the
//! indexer does not replay it, the followed node's reading, taken at the tip every minute and
//! at once after an L1 validator changes, and `blockHeight` that reading's height.

use std::collections::HashMap;

use axum::extract::State;
use axum::http::Uri;
use axum::routing::get;
use axum::{Json, Router};
use firn_core::ids::Id;
use firn_store::page::CreatedCursor;
use firn_store::rows::ChainKey;
use firn_store::rows::pchain::L1Observation;
use firn_store::{CursorStore, L1ValidatorFilter, PChainReader, SortOrder, Store, StoreError};

use super::network::check_network;
use crate::error::ApiResult;
use crate::params::{PathParams, Query};
use crate::state::AppState;
use crate::wire::pchain::{Ctx, L1ValidatorDetailsFull, ListL1ValidatorsResponse};

pub(crate) fn router() -> Router<AppState> {
    Router::new().route(
        "/v1/networks/{network}/l1Validators",
        get(list_l1_validators),
    )
}

const PAGE_DEFAULT: u32 = 10;
const PAGE_MAX: u32 = 100;

/// The remaining balance of each of `ids` and the height it holds at: the fee ledger's at the
/// indexed height when the indexer replays it (exact: what the validator has left after the
/// fees up to that block), otherwise the node's last reading of it (the newest reading's
/// height; the indexed height when there is none).
pub(crate) async fn remaining_balances(
    store: &Store,
    ids: &[Id],
) -> Result<(HashMap<Id, L1Observation>, u64), StoreError> {
    let cursor = store.find_cursor(ChainKey::PChain).await?;
    let ledger = store
        .find_l1_fee_state()
        .await?
        .filter(|(height, _)| Some(*height) == cursor);
    let Some((height, ledger)) = ledger else {
        let seen: HashMap<Id, L1Observation> = store
            .list_l1_observations(ids)
            .await?
            .into_iter()
            .map(|o| (o.validation_id, o))
            .collect();
        let height = seen.values().map(|o| o.height).max();
        return Ok((seen, height.or(cursor).unwrap_or(0)));
    };
    let ends: HashMap<Id, u64> = store
        .list_l1_fee_active(ids)
        .await?
        .into_iter()
        .map(|a| (a.validation_id, a.end_accrued))
        .collect();
    let readings = ids
        .iter()
        .map(|id| {
            let end = ends.get(id).copied().unwrap_or(0);
            let reading = L1Observation {
                validation_id: *id,
                balance: end.saturating_sub(ledger.accrued),
                height,
                observed_at: ledger.time,
            };
            (*id, reading)
        })
        .collect();
    Ok((readings, height))
}

/// `GET /v1/networks/{network}/l1Validators`
#[utoipa::path(get, path = "/v1/networks/{network}/l1Validators",
    operation_id = "listL1Validators", tag = "Primary Network",
    summary = "List L1 validators",
    description = "Lists L1 validators, newest first: the active ones unless includeInactiveL1Validators, filterable by L1 (subnetId), node and validation ID. remainingBalance is what the validator has left at blockHeight (the indexed P-Chain height, or the node's last reading where the indexer does not replay the fee).",
    params(
        ("network" = String, Path, description = "mainnet, fuji or testnet"),
        ("subnetId" = Option<String>, Query, description = "Validators of this L1"),
        ("nodeId" = Option<String>, Query, description = "Validators on this node"),
        ("l1ValidationId" = Option<String>, Query, description = "This validation"),
        ("includeInactiveL1Validators" = Option<bool>, Query, description = "Disabled and removed validators too"),
        ("pageToken" = Option<String>, Query, description = "nextPageToken of the previous page"),
        ("pageSize" = Option<u32>, Query, description = "Items per page (default 10)", minimum = 1, maximum = 100),
    ),
    responses((status = 200, description = "A page of L1 validators", body = ListL1ValidatorsResponse),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody)))]
pub async fn list_l1_validators(
    State(state): State<AppState>,
    uri: Uri,
    path: PathParams,
    mut q: Query,
) -> ApiResult<Json<ListL1ValidatorsResponse>> {
    check_network(&state.config.network, path.get("network"))?;
    let subnet_id = q.id("subnetId");
    let node_id = q.node_ids("nodeId");
    if node_id.len() > 1 {
        q.error("nodeId must be one node ID");
    }
    let filter = L1ValidatorFilter {
        subnet_id,
        node_id: node_id.first().copied(),
        validation_id: q.id("l1ValidationId"),
        include_inactive: q.one_of("includeInactiveL1Validators", &["true", "false"])
            == Some("true"),
    };
    let paging = q.paging::<CreatedCursor>(
        uri.path(),
        &state.config.page_token_key,
        PAGE_DEFAULT,
        PAGE_MAX,
    );
    q.finish()?;
    let page = state
        .store
        .list_l1_validators(&filter, SortOrder::Desc, &paging.request)
        .await?;
    let ids: Vec<Id> = page
        .items
        .iter()
        .map(|v| v.validator.validation_id)
        .collect();
    let (seen, height) = remaining_balances(&state.store, &ids).await?;
    let ctx = Ctx::new(&state.config.network, &state.avax_asset_cb58);
    Ok(Json(ListL1ValidatorsResponse {
        next_page_token: paging.binding.next(page.next.as_ref()),
        validators: page
            .items
            .iter()
            .map(|v| {
                L1ValidatorDetailsFull::from_record(ctx, v, seen.get(&v.validator.validation_id))
            })
            .collect(),
        block_height: height.to_string(),
    }))
}
