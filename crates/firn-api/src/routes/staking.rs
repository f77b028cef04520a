//! Staking routes of the primary network: historical and pending rewards, delegators and the
//! network's staking totals.

use axum::extract::State;
use axum::http::Uri;
use axum::routing::get;
use axum::{Json, Router};
use firn_core::ids::{NodeId, ShortId};
use firn_core::network::P_CHAIN_ID;
use firn_store::page::{EventCursor, TxCursor};
use firn_store::rows::pchain::StakerStatus;
use firn_store::{PChainReader, RewardFilter, StakerFilter};

use super::network::check_network;
use super::primary::chain_time;
use crate::error::{ApiError, ApiResult};
use crate::params::{PathParams, Query};
use crate::state::AppState;
use crate::wire::pchain::{
    Ctx, DelegatorDetails, GetNetworkDetailsResponse, HistoricalReward,
    ListDelegatorDetailsResponse, ListHistoricalRewardsResponse, ListPendingRewardsResponse,
    PendingReward,
};
use crate::wire::{CURRENCIES, money};

pub(crate) fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/networks/{network}/rewards", get(list_rewards))
        .route("/v1/networks/{network}/delegators", get(list_delegators))
        .route("/v1/networks/{network}", get(get_network_details))
        .route(
            "/v1/networks/{network}/rewards:listPending",
            get(list_pending_rewards),
        )
}

/// `GET /v1/networks/{network}/rewards`
#[utoipa::path(get, path = "/v1/networks/{network}/rewards",
    operation_id = "listHistoricalPrimaryNetworkRewards", tag = "Primary Network Rewards",
    summary = "List historical rewards",
    description = "Lists historical rewards on the Primary Network for the supplied addresses or node IDs (at least one is required).",
    params(
        ("network" = String, Path),
        ("addresses" = Option<String>, Query, description = "Comma-separated P-Chain addresses"),
        ("nodeIds" = Option<String>, Query, description = "Comma-separated node IDs"),
        ("pageToken" = Option<String>, Query), ("pageSize" = Option<u32>, Query, minimum = 1, maximum = 100),
        ("sortOrder" = Option<String>, Query, description = "asc or desc (default desc)"),
        ("currency" = Option<String>, Query, description = "Currency of historicalPrice (default usd)"),
    ),
    responses((status = 200, description = "A page of rewards", body = ListHistoricalRewardsResponse),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody)))]
pub async fn list_rewards(
    State(state): State<AppState>,
    uri: Uri,
    path: PathParams,
    mut q: Query,
) -> ApiResult<Json<ListHistoricalRewardsResponse>> {
    check_network(&state.config.network, path.get("network"))?;
    let (addresses, node_ids) = owners_or_nodes(&mut q, &state.config.network.hrp);
    let order = q.sort_order();
    let currency = q.one_of("currency", &CURRENCIES).unwrap_or("usd");
    let paging = q.paging::<EventCursor>(uri.path(), &state.config.page_token_key, 10, 100);
    q.finish()?;
    let filter = RewardFilter {
        addresses,
        node_ids,
    };
    let page = state
        .store
        .list_rewards(&filter, order, &paging.request)
        .await?;
    let ctx = Ctx::new(&state.config.network, &state.avax_asset_cb58);
    let price = money(&state.config.prices, currency, "AVAX");
    Ok(Json(ListHistoricalRewardsResponse {
        next_page_token: paging.binding.next(page.next.as_ref()),
        historical_rewards: page
            .items
            .iter()
            .map(|r| HistoricalReward::from_record(ctx, r, price.clone()))
            .collect(),
    }))
}

/// `addresses` and `nodeIds` of the reward lists, at least one of them required. Judged on
/// what parsed, not on the raw text: `addresses=,` names no address and must not list every
/// reward.
fn owners_or_nodes(q: &mut Query, hrp: &str) -> (Vec<ShortId>, Vec<NodeId>) {
    let addresses = q.pchain_addresses("addresses", hrp);
    let node_ids = q.node_ids("nodeIds");
    if addresses.is_empty() && node_ids.is_empty() {
        q.error("addresses or nodeIds is required (at least one address or node ID)");
    }
    (addresses, node_ids)
}

/// `GET /v1/networks/{network}`
#[utoipa::path(get, path = "/v1/networks/{network}",
    operation_id = "getNetworkDetails", tag = "Primary Network",
    summary = "Get network details",
    description = "Gets the primary network's active validator and delegator counts and stake, their potential rewards, and the share of the current supply staked.",
    params(("network" = String, Path)),
    responses((status = 200, description = "The network's staking totals", body = GetNetworkDetailsResponse),
              (status = 503, description = "The indexer has not read the current supply yet", body = crate::error::ErrorBody)))]
pub async fn get_network_details(
    State(state): State<AppState>,
    path: PathParams,
) -> ApiResult<Json<GetNetworkDetailsResponse>> {
    check_network(&state.config.network, path.get("network"))?;
    let now = chain_time(&state).await?;
    let totals = state.store.find_staking_totals(P_CHAIN_ID, now).await?;
    let supply = state.store.find_supply(P_CHAIN_ID).await?.ok_or_else(|| {
        ApiError::Unavailable(
            "the indexer has not read the current supply from its node yet (it does once it \
             reaches the P-Chain's tip)"
                .to_owned(),
        )
    })?;
    Ok(Json(GetNetworkDetailsResponse::new(&totals, supply.supply)))
}

/// `GET /v1/networks/{network}/delegators`
#[utoipa::path(get, path = "/v1/networks/{network}/delegators",
    operation_id = "listDelegators", tag = "Primary Network",
    summary = "List delegators", description = "Lists details for delegators.",
    params(
        ("network" = String, Path),
        ("pageToken" = Option<String>, Query), ("pageSize" = Option<u32>, Query, minimum = 1, maximum = 100),
        ("rewardAddresses" = Option<String>, Query, description = "Comma-separated reward addresses"),
        ("sortOrder" = Option<String>, Query, description = "asc or desc (default desc)"),
        ("delegationStatus" = Option<String>, Query, description = "completed, active or pending"),
        ("nodeIds" = Option<String>, Query, description = "Comma-separated node IDs"),
    ),
    responses((status = 200, description = "A page of delegators", body = ListDelegatorDetailsResponse),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody)))]
pub async fn list_delegators(
    State(state): State<AppState>,
    uri: Uri,
    path: PathParams,
    mut q: Query,
) -> ApiResult<Json<ListDelegatorDetailsResponse>> {
    check_network(&state.config.network, path.get("network"))?;
    let reward_addresses = q.pchain_addresses("rewardAddresses", &state.config.network.hrp);
    let node_ids = q.node_ids("nodeIds");
    let status = q
        .one_of("delegationStatus", &["completed", "active", "pending"])
        .and_then(StakerStatus::parse);
    let order = q.sort_order();
    let paging = q.paging::<TxCursor>(uri.path(), &state.config.page_token_key, 10, 100);
    q.finish()?;
    let now = chain_time(&state).await?;
    let filter = StakerFilter {
        delegators: Some(true),
        node_ids,
        reward_addresses,
        status,
        now,
        ..StakerFilter::default()
    };
    let page = state
        .store
        .list_stakers(&filter, order, &paging.request)
        .await?;
    let ctx = Ctx::new(&state.config.network, &state.avax_asset_cb58);
    Ok(Json(ListDelegatorDetailsResponse {
        next_page_token: paging.binding.next(page.next.as_ref()),
        delegators: page
            .items
            .iter()
            .map(|s| DelegatorDetails::from_record(ctx, s, now))
            .collect(),
    }))
}

/// `GET /v1/networks/{network}/rewards:listPending`
#[utoipa::path(get, path = "/v1/networks/{network}/rewards:listPending",
    operation_id = "listPendingPrimaryNetworkRewards", tag = "Primary Network Rewards",
    summary = "List pending rewards",
    description = "Lists the rewards current primary-network stakers stand to earn, for the supplied addresses or node IDs (at least one is required).",
    params(
        ("network" = String, Path),
        ("addresses" = Option<String>, Query, description = "Comma-separated P-Chain addresses"),
        ("nodeIds" = Option<String>, Query, description = "Comma-separated node IDs"),
        ("pageToken" = Option<String>, Query), ("pageSize" = Option<u32>, Query, minimum = 1, maximum = 100),
        ("sortOrder" = Option<String>, Query, description = "asc or desc (default desc)"),
    ),
    responses((status = 200, description = "A page of pending rewards", body = ListPendingRewardsResponse),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody)))]
pub async fn list_pending_rewards(
    State(state): State<AppState>,
    uri: Uri,
    path: PathParams,
    mut q: Query,
) -> ApiResult<Json<ListPendingRewardsResponse>> {
    check_network(&state.config.network, path.get("network"))?;
    let (reward_addresses, node_ids) = owners_or_nodes(&mut q, &state.config.network.hrp);
    let order = q.sort_order();
    let paging = q.paging::<TxCursor>(uri.path(), &state.config.page_token_key, 10, 100);
    q.finish()?;
    let now = chain_time(&state).await?;
    let filter = StakerFilter {
        node_ids,
        reward_addresses,
        subnet_id: Some(P_CHAIN_ID),
        unended: true,
        now,
        ..StakerFilter::default()
    };
    let page = state
        .store
        .list_stakers(&filter, order, &paging.request)
        .await?;
    let ctx = Ctx::new(&state.config.network, &state.avax_asset_cb58);
    Ok(Json(ListPendingRewardsResponse {
        next_page_token: paging.binding.next(page.next.as_ref()),
        pending_rewards: page
            .items
            .iter()
            .map(|r| PendingReward::from_record(ctx, r, now))
            .collect(),
    }))
}
