//! What addresses own on the P-Chain and the X-Chain: their UTXOs (`getUtxosByAddresses`, and
//! its POST form for address lists too long for a URL), balances by kind
//! (`getBalancesByAddresses`) and last activity (`getLastActivityTimestampByAddresses`, GET
//! and POST). The X-Chain's shapes are rendered by
//! `super::xchain`; the C-Chain's shared memory is not indexed yet and answers 404.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use firn_core::ids::ShortId;
use firn_core::network::P_CHAIN_ID;
use firn_store::page::UtxoCursor;
use firn_store::{
    AtomicMemoryReader, PChainReader, UtxoFilter, UtxoSort, XChainReader, XUtxoFilter,
};
use serde::Deserialize;
use utoipa::ToSchema;

use super::network::{PrimaryChain, check_network, p_chain_only, primary_chain};
use super::primary::chain_time;
use super::require_json;
use crate::error::{ApiError, ApiResult};
use crate::params::{MAX_LIST, PathParams, Query};
use crate::state::AppState;
use crate::wire::pchain::{
    Ctx, LastActivityTimestamp, ListPChainBalancesResponse, ListPChainUtxosResponse, PChainBalance,
    PChainUtxo, PrimaryNetworkChainInfo,
};

/// Most addresses a POST body may list.
pub const MAX_BODY_ADDRESSES: usize = 1_024;
/// Default and largest `pageSize` of the GET list, and the POST list's largest.
const PAGE_DEFAULT: u32 = 10;
const PAGE_MAX: u32 = 100;
const PAGE_MAX_POST: u32 = 1_024;

pub(crate) fn router() -> Router<AppState> {
    Router::new()
        .route(
            "/v1/networks/{network}/blockchains/{blockchainId}/utxos",
            get(get_utxos_by_addresses).post(get_utxos_by_addresses_v2),
        )
        .route(
            "/v1/networks/{network}/blockchains/{blockchainId}/balances",
            get(get_balances_by_addresses),
        )
        .route(
            "/v1/networks/{network}/blockchains/{blockchainId}/lastActivityTimestampByAddresses",
            get(get_last_activity).post(get_last_activity_v2),
        )
}

/// The POST body of the address operations (`PrimaryNetworkAddressesBodyDto`).
#[derive(Debug, Deserialize, ToSchema)]
pub struct PrimaryNetworkAddressesBodyDto {
    /// Comma-separated primary-network addresses.
    pub addresses: String,
}

/// Reads the POST body's addresses into `q`, as if they were its `addresses` parameter.
fn body_addresses(headers: &HeaderMap, body: &Bytes, q: &mut Query) -> ApiResult<()> {
    require_json(headers)?;
    let dto: PrimaryNetworkAddressesBodyDto = serde_json::from_slice(body).map_err(|e| {
        ApiError::bad(format!(
            "request body must be a JSON object with a string field addresses: {e}"
        ))
    })?;
    q.add("addresses", dto.addresses);
    Ok(())
}

/// The network and chain of the path, and the addresses (at most `max`, at least one).
fn owners(
    state: &AppState,
    path: &PathParams,
    q: &mut Query,
    max: usize,
) -> ApiResult<(Option<PrimaryChain>, Vec<ShortId>)> {
    check_network(&state.config.network, path.get("network"))?;
    let chain = primary_chain(&state.config.network, q, path.get("blockchainId"));
    if q.str("addresses").is_none() {
        q.error("addresses is required (comma-separated primary-network addresses)");
    }
    let addresses = q.pchain_addresses_up_to("addresses", &state.config.network.hrp, max);
    Ok((chain, addresses))
}

fn info(state: &AppState) -> PrimaryNetworkChainInfo {
    PrimaryNetworkChainInfo {
        chain_name: PrimaryChain::P.wire_name().to_owned(),
        network: state.config.network.wire_name().to_owned(),
    }
}

/// `GET /v1/networks/{network}/blockchains/{blockchainId}/utxos`
#[utoipa::path(get, path = "/v1/networks/{network}/blockchains/{blockchainId}/utxos",
    operation_id = "getUtxosByAddresses", tag = "Primary Network UTXOs",
    summary = "List UTXOs",
    description = "Lists the UTXOs the supplied addresses own on the P-Chain (unspent only unless includeSpent), by creation or amount.",
    params(
        ("network" = String, Path, description = "mainnet, fuji or testnet"),
        ("blockchainId" = String, Path, description = "p-chain, x-chain, or the chain's ID"),
        ("addresses" = String, Query, description = "Comma-separated P-Chain or X-Chain addresses (fuji1…, P-fuji1…, X-fuji1…), at most 64"),
        ("assetId" = Option<String>, Query, description = "Only UTXOs of this asset"),
        ("minUtxoAmount" = Option<f64>, Query, description = "Only UTXOs of at least this amount", minimum = 0),
        ("includeSpent" = Option<bool>, Query, description = "Spent UTXOs too"),
        ("sortBy" = Option<String>, Query, description = "timestamp (default) or amount"),
        ("sortOrder" = Option<String>, Query, description = "asc or desc (default desc)"),
        ("pageToken" = Option<String>, Query, description = "nextPageToken of the previous page"),
        ("pageSize" = Option<u32>, Query, description = "Items per page (default 10)", minimum = 1, maximum = 100),
    ),
    responses((status = 200, description = "A page of UTXOs", body = ListPChainUtxosResponse),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody),
              (status = 404, description = "A chain firn does not index", body = crate::error::ErrorBody)))]
pub async fn get_utxos_by_addresses(
    State(state): State<AppState>,
    uri: Uri,
    path: PathParams,
    q: Query,
) -> ApiResult<Response> {
    list_utxos(&state, uri.path(), &path, q, MAX_LIST, PAGE_MAX).await
}

/// `POST /v1/networks/{network}/blockchains/{blockchainId}/utxos`
#[utoipa::path(post, path = "/v1/networks/{network}/blockchains/{blockchainId}/utxos",
    operation_id = "getUtxosByAddressesV2", tag = "Primary Network UTXOs",
    summary = "List UTXOs (addresses in the body)",
    description = "getUtxosByAddresses with the addresses (at most 1,024) in the JSON body.",
    params(
        ("network" = String, Path, description = "mainnet, fuji or testnet"),
        ("blockchainId" = String, Path, description = "p-chain or the P-Chain's ID"),
        ("assetId" = Option<String>, Query, description = "Only UTXOs of this asset"),
        ("minUtxoAmount" = Option<f64>, Query, description = "Only UTXOs of at least this amount", minimum = 0),
        ("includeSpent" = Option<bool>, Query, description = "Spent UTXOs too"),
        ("sortBy" = Option<String>, Query, description = "timestamp (default) or amount"),
        ("sortOrder" = Option<String>, Query, description = "asc or desc (default desc)"),
        ("pageToken" = Option<String>, Query, description = "nextPageToken of the previous page"),
        ("pageSize" = Option<u32>, Query, description = "Items per page (default 10)", minimum = 1, maximum = 1024),
    ),
    request_body = PrimaryNetworkAddressesBodyDto,
    responses((status = 200, description = "A page of UTXOs", body = ListPChainUtxosResponse),
              (status = 400, description = "Bad parameters or body", body = crate::error::ErrorBody),
              (status = 404, description = "A chain firn does not index", body = crate::error::ErrorBody),
              (status = 415, description = "The body is not declared application/json", body = crate::error::ErrorBody)))]
pub async fn get_utxos_by_addresses_v2(
    State(state): State<AppState>,
    uri: Uri,
    path: PathParams,
    mut q: Query,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult<Response> {
    body_addresses(&headers, &body, &mut q)?;
    list_utxos(
        &state,
        uri.path(),
        &path,
        q,
        MAX_BODY_ADDRESSES,
        PAGE_MAX_POST,
    )
    .await
}

async fn list_utxos(
    state: &AppState,
    uri_path: &str,
    path: &PathParams,
    mut q: Query,
    max_addresses: usize,
    page_max: u32,
) -> ApiResult<Response> {
    let (chain, addresses) = owners(state, path, &mut q, max_addresses)?;
    let asset_id = q.id("assetId");
    // Amounts are whole units of the smallest denomination: a fraction rounds up.
    let min_amount = q
        .f64_in("minUtxoAmount", 0.0, u64::MAX as f64)
        .map(|m| m.ceil() as u64);
    let include_spent = q.one_of("includeSpent", &["true", "false"]) == Some("true");
    let sort = match q.one_of("sortBy", &["timestamp", "amount"]) {
        Some("amount") => UtxoSort::Amount,
        _ => UtxoSort::Created,
    };
    let order = q.sort_order();
    let paging = q.paging::<UtxoCursor>(
        uri_path,
        &state.config.page_token_key,
        PAGE_DEFAULT,
        page_max,
    );
    q.finish()?;
    if let Some(c @ (PrimaryChain::X | PrimaryChain::C)) = chain {
        if sort == UtxoSort::Amount {
            return Err(ApiError::bad(format!(
                "sortBy=amount is not supported on the {}: sort by timestamp",
                if c == PrimaryChain::X {
                    "X-Chain"
                } else {
                    "C-Chain"
                }
            )));
        }
        let filter = XUtxoFilter {
            addresses,
            asset_id,
            min_amount,
            include_spent,
        };
        let (request, binding) = (&paging.request, &paging.binding);
        return if c == PrimaryChain::X {
            super::xchain::list_utxos(state, &filter, order, request, binding).await
        } else {
            super::cchain::list_utxos(state, &filter, order, request, binding).await
        };
    }
    p_chain_only(chain, "UTXOs")?;
    let filter = UtxoFilter {
        addresses,
        asset_id,
        min_amount,
        include_spent,
        sort,
    };
    let page = state
        .store
        .list_utxos(&filter, order, &paging.request)
        .await?;
    let ctx = Ctx::new(&state.config.network, &state.avax_asset_cb58);
    Ok(Json(ListPChainUtxosResponse {
        next_page_token: paging.binding.next(page.next.as_ref()),
        utxos: page
            .items
            .iter()
            .map(|u| PChainUtxo::from_record(ctx, u))
            .collect(),
        chain_info: info(state),
    })
    .into_response())
}

/// `GET /v1/networks/{network}/blockchains/{blockchainId}/balances`
#[utoipa::path(get, path = "/v1/networks/{network}/blockchains/{blockchainId}/balances",
    operation_id = "getBalancesByAddresses", tag = "Primary Network Balances",
    summary = "Get balances",
    description = "What the supplied addresses hold on the P-Chain, by kind (unlocked, locked, staked, pending), now or at blockTimestamp. A UTXO owned by several of them counts once.",
    params(
        ("network" = String, Path, description = "mainnet, fuji or testnet"),
        ("blockchainId" = String, Path, description = "p-chain or the P-Chain's ID"),
        ("addresses" = String, Query, description = "Comma-separated P-Chain addresses, at most 64"),
        ("blockTimestamp" = Option<u64>, Query, description = "Balances at this time (Unix seconds), at most the last indexed block's; default now", minimum = 0),
    ),
    responses((status = 200, description = "The balances", body = ListPChainBalancesResponse),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody),
              (status = 404, description = "A chain firn does not index", body = crate::error::ErrorBody)))]
pub async fn get_balances_by_addresses(
    State(state): State<AppState>,
    path: PathParams,
    mut q: Query,
) -> ApiResult<Response> {
    let (chain, addresses) = owners(&state, &path, &mut q, MAX_LIST)?;
    let at = q.timestamp("blockTimestamp");
    if chain == Some(PrimaryChain::X) && at.is_some() {
        q.error(
            "blockTimestamp is not supported on the X-Chain: balances are as of its last block",
        );
    }
    q.finish()?;
    if chain == Some(PrimaryChain::X) {
        return super::xchain::balances(&state, &addresses).await;
    }
    // Locks are judged at the P-Chain's time, as the node judges them.
    let now = chain_time(&state).await?;
    if chain == Some(PrimaryChain::C) {
        return super::cchain::balances(&state, &addresses, at, now).await;
    }
    p_chain_only(chain, "balances")?;
    if let Some(t) = at.filter(|t| *t > now) {
        return Err(ApiError::bad(format!(
            "blockTimestamp {t} is after the last indexed P-Chain block ({now})"
        )));
    }
    let sums = state
        .store
        .list_balances(&addresses, at.unwrap_or(now))
        .await?;
    // Atomic memory now is whatever is stored: the exporting chain may be indexed ahead.
    let held = state
        .store
        .list_atomic_balances(P_CHAIN_ID, &addresses, at, at.unwrap_or(now))
        .await?;
    let ctx = Ctx::new(&state.config.network, &state.avax_asset_cb58);
    Ok(Json(ListPChainBalancesResponse {
        balances: PChainBalance::from_sums(ctx, &sums).with_atomic_memory(ctx, &held),
        chain_info: info(&state),
    })
    .into_response())
}

/// `GET /v1/networks/{network}/blockchains/{blockchainId}/lastActivityTimestampByAddresses`
#[utoipa::path(get, path = "/v1/networks/{network}/blockchains/{blockchainId}/lastActivityTimestampByAddresses",
    operation_id = "getLastActivityTimestampByAddresses", tag = "Primary Network Balances",
    summary = "Get last activity",
    description = "The last creation or spending of a UTXO the supplied addresses own on the P-Chain.",
    params(
        ("network" = String, Path, description = "mainnet, fuji or testnet"),
        ("blockchainId" = String, Path, description = "p-chain or the P-Chain's ID"),
        ("addresses" = String, Query, description = "Comma-separated P-Chain addresses, at most 64"),
    ),
    responses((status = 200, description = "The last activity", body = LastActivityTimestamp),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody),
              (status = 404, description = "No activity, or a chain firn does not index", body = crate::error::ErrorBody)))]
pub async fn get_last_activity(
    State(state): State<AppState>,
    path: PathParams,
    q: Query,
) -> ApiResult<Json<LastActivityTimestamp>> {
    last_activity(&state, &path, q, MAX_LIST).await
}

/// `POST /v1/networks/{network}/blockchains/{blockchainId}/lastActivityTimestampByAddresses`
#[utoipa::path(post, path = "/v1/networks/{network}/blockchains/{blockchainId}/lastActivityTimestampByAddresses",
    operation_id = "getLastActivityTimestampByAddressesV2", tag = "Primary Network Balances",
    summary = "Get last activity (addresses in the body)",
    description = "getLastActivityTimestampByAddresses with the addresses (at most 1,024) in the JSON body.",
    params(
        ("network" = String, Path, description = "mainnet, fuji or testnet"),
        ("blockchainId" = String, Path, description = "p-chain or the P-Chain's ID"),
    ),
    request_body = PrimaryNetworkAddressesBodyDto,
    responses((status = 200, description = "The last activity", body = LastActivityTimestamp),
              (status = 400, description = "Bad parameters or body", body = crate::error::ErrorBody),
              (status = 404, description = "No activity, or a chain firn does not index", body = crate::error::ErrorBody),
              (status = 415, description = "The body is not declared application/json", body = crate::error::ErrorBody)))]
pub async fn get_last_activity_v2(
    State(state): State<AppState>,
    path: PathParams,
    mut q: Query,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult<Json<LastActivityTimestamp>> {
    body_addresses(&headers, &body, &mut q)?;
    last_activity(&state, &path, q, MAX_BODY_ADDRESSES).await
}

async fn last_activity(
    state: &AppState,
    path: &PathParams,
    mut q: Query,
    max_addresses: usize,
) -> ApiResult<Json<LastActivityTimestamp>> {
    let (chain, addresses) = owners(state, path, &mut q, max_addresses)?;
    q.finish()?;
    let (activity, info) = if chain == Some(PrimaryChain::X) {
        let activity = state.store.find_xchain_last_activity(&addresses).await?;
        (activity, super::xchain::chain_info(state))
    } else {
        p_chain_only(chain, "UTXOs")?;
        (
            state.store.find_last_activity(&addresses).await?,
            info(state),
        )
    };
    let activity = activity.ok_or_else(|| {
        ApiError::not_found("no UTXO of these addresses has been created or spent")
    })?;
    Ok(Json(LastActivityTimestamp::from_activity(&activity, info)))
}
