//! Looking Glass: `GET /v2/subnets/{subnetId}/validators:getAddresses`, the reward addresses
//! of a subnet's validators whose validation period shares a moment with a time frame, one
//! entry per staking transaction (its reward owner's addresses, and its start time as the
//! `sortKey`), by start time.
//!
//! Validators without a reward owner (a permissioned subnet's) have nothing to show and are
//! left out, so a page may hold fewer entries than `pageSize` while more follow.

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use firn_core::ids::Id;
use firn_core::network::P_CHAIN_ID;
use firn_store::PChainReader;
use firn_store::page::{PageRequest, RankCursor};

use super::chains::NETWORKS;
use super::wire::{PChainAddressDetails, PChainLookingGlassResponse};
use super::{MetricsState, query_key};
use crate::error::{ApiError, ApiResult};
use crate::params::{PathParams, Query};
use crate::wire::pchain::Ctx;

/// Most entries one page may hold, and the default, as the official API has them.
const MAX_PAGE_SIZE: u64 = 5_000;
const DEFAULT_PAGE_SIZE: u64 = 1_000;

pub(super) fn router() -> Router<MetricsState> {
    Router::new().route(
        "/v2/subnets/{subnetId}/validators:getAddresses",
        get(validator_addresses),
    )
}

/// A token's keyset words as a cursor: start time, height, index in the block.
fn cursor(words: &[u64]) -> ApiResult<RankCursor> {
    match *words {
        [key, height, index] => Ok(RankCursor {
            key,
            height,
            index: u32::try_from(index)
                .map_err(|_| ApiError::bad("pageToken is not a page token of this list"))?,
        }),
        _ => Err(ApiError::bad("pageToken is not a page token of this list")),
    }
}

async fn validator_addresses(
    State(state): State<MetricsState>,
    path: PathParams,
    mut q: Query,
) -> ApiResult<Json<PChainLookingGlassResponse>> {
    let raw = path.get("subnetId");
    let subnet: Option<Id> = raw.parse().ok();
    if subnet.is_none() {
        q.error("subnetId must be a cb58 subnet ID");
    }
    let network = q.one_of("network", &NETWORKS);
    let from = q.timestamp("startTimestamp").unwrap_or(0);
    let to = q.timestamp("endTimestamp").unwrap_or(i64::MAX as u64);
    if from > to {
        q.error("startTimestamp must not be greater than endTimestamp");
    }
    let size = q
        .u64_in("pageSize", 1, MAX_PAGE_SIZE)
        .unwrap_or(DEFAULT_PAGE_SIZE);
    let token = q.string("pageToken");
    q.finish()?;
    let app = &state.app;
    if let Some(network) = network
        && !app.config.network.accepts(network)
    {
        return Err(ApiError::not_found(format!(
            "network {network} is not the network this server indexes"
        )));
    }
    let subnet = subnet.unwrap_or(P_CHAIN_ID);
    if subnet != P_CHAIN_ID && app.store.find_subnet(subnet).await?.is_none() {
        return Err(ApiError::not_found(format!("subnet {raw} not found")));
    }
    let key = query_key(&format!("/v2/subnets/{raw}/validators:getAddresses"), &q);
    let limit = u32::try_from(size).unwrap_or(u32::MAX);
    let request = match &token {
        Some(t) => PageRequest::after(limit, cursor(&state.tokens.redeem_words(&key, t)?)?),
        None => PageRequest::first(limit),
    };
    let page = app
        .store
        .list_validators_overlapping(subnet, from, to, &request)
        .await?;
    let ctx = Ctx::new(&app.config.network, &app.avax_asset_cb58);
    let addresses = page
        .items
        .iter()
        .filter(|s| !s.staker.reward_addresses.is_empty())
        .map(|s| PChainAddressDetails {
            addresses: s
                .staker
                .reward_addresses
                .iter()
                .map(|a| ctx.address(a))
                .collect(),
            sort_key: s.staker.start_ts.to_string(),
        })
        .collect();
    let next_page_token = page.next.map(|c| {
        state
            .tokens
            .issue_words(&key, &[c.key, c.height, u64::from(c.index)])
    });
    Ok(Json(PChainLookingGlassResponse {
        next_page_token,
        addresses,
    }))
}
