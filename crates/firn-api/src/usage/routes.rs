//! The four official usage routes. Data API logs and metrics are scoped to the API key that
//! asks (its digest is the `orgId`); the node RPC has no API keys, so the RPC metrics cover
//! every node RPC request this deployment logged.

use axum::extract::State;
use axum::http::{HeaderMap, Uri};
use axum::routing::get;
use axum::{Json, Router};
use firn_core::calendar::DAY;
use firn_store::UsageStore;
use firn_store::page::LogCursor;
use firn_store::rows::usage::{RequestLogFilter, UsageGroup};
use serde::Serialize;
use serde_json::Value;

use super::aggregate::{Bucket, Interval, aggregate};
use super::wire::{LogsFormat, LogsResponse};
use crate::error::{ApiError, ApiResult};
use crate::metrics_api::clock::unix_ms as now_ms;
use crate::params::Query;
use crate::routes::network::check_network;
use crate::state::AppState;
use crate::webhooks::routes::owner;

/// Most request logs one metrics request aggregates.
pub const MAX_AGGREGATED: u32 = 1_000_000;
/// Latest timestamp accepted (9999-12-31), so milliseconds fit the store.
const MAX_TIMESTAMP: u64 = 253_402_300_799;

pub(crate) fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/apiUsageMetrics", get(api_usage_metrics))
        .route("/v1/apiLogs", get(api_logs))
        .route("/v1/subnetRpcUsageMetrics", get(subnet_rpc_metrics))
        .route(
            "/v1/primaryNetworkRpcUsageMetrics",
            get(primary_network_rpc_metrics),
        )
}

/// `UsageMetricsResponseDTO`.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct UsageMetricsResponse {
    aggregate_duration: String,
    org_id: String,
    metrics: Vec<Bucket>,
}

/// `SubnetRpcUsageMetricsResponseDTO`.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SubnetRpcMetricsResponse {
    aggregate_duration: String,
    metrics: Vec<Bucket>,
    chain_id: String,
}

/// `PrimaryNetworkRpcUsageMetricsResponseDTO`.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PrimaryRpcMetricsResponse {
    aggregate_duration: String,
    metrics: Vec<Bucket>,
    network: &'static str,
}

/// `startTimestamp` and `endTimestamp` (Unix seconds, both inclusive; default: the last 24
/// hours) as a range of Unix ms. Unlike the hosted API they are not rounded down to midnight:
/// a local server's logs are mostly from today.
fn range(q: &mut Query) -> (u64, u64) {
    let end = q
        .u64_in("endTimestamp", 0, MAX_TIMESTAMP)
        .unwrap_or(now_ms() / 1_000);
    let start = q
        .u64_in("startTimestamp", 0, MAX_TIMESTAMP)
        .unwrap_or(end.saturating_sub(DAY));
    if start > end {
        q.error("startTimestamp must not be after endTimestamp");
    }
    (start * 1_000, (end + 1) * 1_000)
}

/// `responseCode`, an HTTP status.
fn status(q: &mut Query) -> Option<u16> {
    q.u64_in("responseCode", 100, 599)
        .and_then(|s| u16::try_from(s).ok())
}

/// The caller's organization: its API key's digest. Another `orgId` is not found, so a key
/// cannot learn whether some other organization exists.
fn org(q: &Query, headers: &HeaderMap) -> ApiResult<String> {
    let owner = owner(headers);
    match q.str("orgId") {
        Some(org) if org != owner => {
            Err(ApiError::not_found(format!("organization {org} not found")))
        }
        _ => Ok(owner),
    }
}

/// The filters `getApiUsageMetrics` and `getApiLogs` share, scoped to `owner`; `None` when
/// `apiKeyId` names another key (nothing of it is visible).
fn data_filter(q: &mut Query, owner: &str) -> Option<RequestLogFilter> {
    let (from_ms, to_ms) = range(q);
    let filter = RequestLogFilter {
        api_key_id: Some(owner.to_owned()),
        from_ms,
        to_ms,
        request_type: q.one_of("requestType", &["data", "rpc"]).map(str::to_owned),
        chain_id: q.string("chainId"),
        status: status(q),
        path: q.string("requestPath"),
        ..RequestLogFilter::default()
    };
    match q.str("apiKeyId") {
        Some(key) if key != owner => None,
        _ => Some(filter),
    }
}

/// The buckets of `filter` grouped by `group`, or a 400 past [`MAX_AGGREGATED`] logs.
async fn buckets(
    state: &AppState,
    filter: Option<&RequestLogFilter>,
    group: UsageGroup,
    interval: Interval,
    grouped_by: &str,
) -> ApiResult<Vec<Bucket>> {
    let Some(filter) = filter else {
        return Ok(Vec::new());
    };
    let samples = state
        .store
        .list_usage_samples(filter, group, MAX_AGGREGATED + 1)
        .await?;
    if samples.len() > MAX_AGGREGATED as usize {
        return Err(ApiError::bad(format!(
            "the range holds more than {MAX_AGGREGATED} requests; narrow it with startTimestamp and endTimestamp"
        )));
    }
    Ok(aggregate(
        &samples,
        interval,
        grouped_by,
        group == UsageGroup::Status,
    ))
}

/// `timeInterval` among `allowed`, default `daily`.
fn interval(q: &mut Query, allowed: &[&'static str]) -> (Interval, &'static str) {
    let name = q.one_of("timeInterval", allowed).unwrap_or("daily");
    let interval = Interval::from_name(name).unwrap_or(Interval::Period(
        firn_store::rows::metrics::Granularity::Day,
    ));
    (interval, name)
}

/// `groupBy` among `allowed`: the store column and the wire name (`None` without grouping).
fn group_by(q: &mut Query, allowed: &[&'static str]) -> (UsageGroup, &'static str) {
    let Some(name) = q.one_of("groupBy", allowed) else {
        return (UsageGroup::None, "None");
    };
    let group = match name {
        "requestPath" => UsageGroup::Path,
        "responseCode" => UsageGroup::Status,
        "chainId" => UsageGroup::ChainId,
        "apiKeyId" => UsageGroup::ApiKeyId,
        "requestType" => UsageGroup::RequestType,
        "rpcMethod" => UsageGroup::RpcMethod,
        "userAgent" => UsageGroup::UserAgent,
        // No rate-limit bypass tokens, countries or continents here: one group each.
        _ => UsageGroup::None,
    };
    (group, name)
}

/// Node RPC clients have no bypass token, and firn knows no client's country or continent:
/// their groups are `""` and `XX` (the official "no country data").
fn name_unknown_groups(buckets: &mut [Bucket], grouped_by: &str) {
    let unknown = match grouped_by {
        "rlBypassToken" => "",
        "country" | "continent" => "XX",
        _ => return,
    };
    for v in buckets.iter_mut().flat_map(|b| b.values.iter_mut()) {
        v.group_value = Some(Value::from(unknown));
    }
}

/// `GET /v1/apiUsageMetrics` (getApiUsageMetrics)
#[utoipa::path(get, path = "/v1/apiUsageMetrics",
    operation_id = "getApiUsageMetrics", tag = "Data API Usage Metrics",
    summary = "Get usage metrics for the Data API",
    description = "Metrics of the Data API requests made with the caller's API key (its digest is the orgId), bucketed by timeInterval and grouped by groupBy. One API credit per request.",
    params(("orgId" = Option<String>, Query, description = "The caller's own orgId; another one is a 404"),
           ("startTimestamp" = Option<u64>, Query, description = "Unix seconds, inclusive (default: a day before endTimestamp)"),
           ("endTimestamp" = Option<u64>, Query, description = "Unix seconds, inclusive (default: now)"),
           ("timeInterval" = Option<String>, Query, description = "minute, hourly, daily (default), weekly or monthly"),
           ("groupBy" = Option<String>, Query, description = "requestPath, responseCode, chainId, apiKeyId or requestType"),
           ("chainId" = Option<String>, Query), ("responseCode" = Option<u16>, Query),
           ("requestType" = Option<String>, Query, description = "data or rpc"),
           ("apiKeyId" = Option<String>, Query), ("requestPath" = Option<String>, Query)),
    responses((status = 200, description = "The metrics", body = UsageMetricsResponse),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody),
              (status = 404, description = "Another organization", body = crate::error::ErrorBody)))]
pub(crate) async fn api_usage_metrics(
    State(state): State<AppState>,
    headers: HeaderMap,
    mut q: Query,
) -> ApiResult<Json<UsageMetricsResponse>> {
    let org_id = org(&q, &headers)?;
    let filter = data_filter(&mut q, &org_id);
    let (interval, name) = interval(&mut q, &Interval::NAMES);
    let (group, grouped_by) = group_by(
        &mut q,
        &[
            "requestPath",
            "responseCode",
            "chainId",
            "apiKeyId",
            "requestType",
        ],
    );
    q.finish()?;
    let metrics = buckets(&state, filter.as_ref(), group, interval, grouped_by).await?;
    Ok(Json(UsageMetricsResponse {
        aggregate_duration: name.to_owned(),
        org_id,
        metrics,
    }))
}

/// `GET /v1/apiLogs` (getApiLogs): the caller's logs, newest first.
#[utoipa::path(get, path = "/v1/apiLogs",
    operation_id = "getApiLogs", tag = "Data API Usage Metrics",
    summary = "Get logs for requests made by client",
    description = "The Data API requests made with the caller's API key, newest first.",
    params(("orgId" = Option<String>, Query, description = "The caller's own orgId; another one is a 404"),
           ("startTimestamp" = Option<u64>, Query, description = "Unix seconds, inclusive (default: a day before endTimestamp)"),
           ("endTimestamp" = Option<u64>, Query, description = "Unix seconds, inclusive (default: now)"),
           ("chainId" = Option<String>, Query), ("responseCode" = Option<u16>, Query),
           ("requestType" = Option<String>, Query, description = "data or rpc"),
           ("apiKeyId" = Option<String>, Query), ("requestPath" = Option<String>, Query),
           ("pageToken" = Option<String>, Query), ("pageSize" = Option<u32>, Query, minimum = 1, maximum = 100)),
    responses((status = 200, description = "A page of logs", body = LogsResponse),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody),
              (status = 404, description = "Another organization", body = crate::error::ErrorBody)))]
pub(crate) async fn api_logs(
    State(state): State<AppState>,
    uri: Uri,
    headers: HeaderMap,
    mut q: Query,
) -> ApiResult<Json<LogsResponse>> {
    let org_id = org(&q, &headers)?;
    let filter = data_filter(&mut q, &org_id);
    let paging = q.paging::<LogCursor>(uri.path(), &state.config.page_token_key, 10, 100);
    q.finish()?;
    let Some(filter) = filter else {
        return Ok(Json(LogsResponse::new(org_id, Vec::new(), None)));
    };
    let page = state
        .store
        .list_request_logs(&filter, &paging.request)
        .await?;
    let next = paging.binding.next(page.next.as_ref());
    let logs = page
        .items
        .iter()
        .map(|l| LogsFormat::new(&org_id, l))
        .collect();
    Ok(Json(LogsResponse::new(org_id, logs, next)))
}

/// `GET /v1/subnetRpcUsageMetrics` (getSubnetRpcUsageMetrics): node RPC to EVM chains (the
/// C-Chain and L1s), by EVM chain ID.
#[utoipa::path(get, path = "/v1/subnetRpcUsageMetrics",
    operation_id = "getSubnetRpcUsageMetrics", tag = "Data API Usage Metrics",
    summary = "Get usage metrics for the Subnet RPC",
    description = "Metrics of the node RPC requests to EVM chains (the C-Chain and L1s) this deployment logged, bucketed by timeInterval and grouped by groupBy.",
    params(("timeInterval" = Option<String>, Query, description = "hourly, daily (default), weekly or monthly"),
           ("startTimestamp" = Option<u64>, Query, description = "Unix seconds, inclusive (default: a day before endTimestamp)"),
           ("endTimestamp" = Option<u64>, Query, description = "Unix seconds, inclusive (default: now)"),
           ("groupBy" = Option<String>, Query, description = "rpcMethod, responseCode or rlBypassToken"),
           ("chainId" = Option<String>, Query, description = "EVM chain ID"), ("responseCode" = Option<u16>, Query),
           ("rpcMethod" = Option<String>, Query),
           ("rlBypassApiToken" = Option<String>, Query, description = "firn has no bypass tokens: any value leaves nothing")),
    responses((status = 200, description = "The metrics", body = SubnetRpcMetricsResponse),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody)))]
pub(crate) async fn subnet_rpc_metrics(
    State(state): State<AppState>,
    mut q: Query,
) -> ApiResult<Json<SubnetRpcMetricsResponse>> {
    let (interval, name) = interval(&mut q, &Interval::NAMES[1..]);
    let (from_ms, to_ms) = range(&mut q);
    let (group, grouped_by) = group_by(&mut q, &["rpcMethod", "responseCode", "rlBypassToken"]);
    let chain_id = q.string("chainId");
    let filter = RequestLogFilter {
        from_ms,
        to_ms,
        request_type: Some("rpc".to_owned()),
        with_chain: true,
        chain_id: chain_id.clone(),
        status: status(&mut q),
        rpc_method: q.string("rpcMethod"),
        ..RequestLogFilter::default()
    };
    // No request carries a bypass token: filtering on one leaves nothing.
    let visible = q.str("rlBypassApiToken").is_none().then_some(&filter);
    q.finish()?;
    let mut metrics = buckets(&state, visible, group, interval, grouped_by).await?;
    name_unknown_groups(&mut metrics, grouped_by);
    Ok(Json(SubnetRpcMetricsResponse {
        aggregate_duration: name.to_owned(),
        metrics,
        chain_id: chain_id.unwrap_or_default(),
    }))
}

/// `GET /v1/primaryNetworkRpcUsageMetrics` (getPrimaryNetworkRpcUsageMetrics): node RPC to
/// the primary network's endpoints (P, X, C, info, health, index, …).
#[utoipa::path(get, path = "/v1/primaryNetworkRpcUsageMetrics",
    operation_id = "getPrimaryNetworkRpcUsageMetrics", tag = "Data API Usage Metrics",
    summary = "Get usage metrics for the Primary Network RPC",
    description = "Metrics of the node RPC requests to the primary network's endpoints this deployment logged, bucketed by timeInterval and grouped by groupBy. Every client's country and continent is XX (unknown).",
    params(("timeInterval" = Option<String>, Query, description = "hourly, daily (default), weekly or monthly"),
           ("startTimestamp" = Option<u64>, Query, description = "Unix seconds, inclusive (default: a day before endTimestamp)"),
           ("endTimestamp" = Option<u64>, Query, description = "Unix seconds, inclusive (default: now)"),
           ("groupBy" = Option<String>, Query, description = "rpcMethod, requestPath, responseCode, country, continent or userAgent"),
           ("responseCode" = Option<u16>, Query), ("requestPath" = Option<String>, Query),
           ("country" = Option<String>, Query), ("continent" = Option<String>, Query),
           ("userAgent" = Option<String>, Query), ("rpcMethod" = Option<String>, Query),
           ("network" = String, Query, description = "mainnet, fuji or testnet")),
    responses((status = 200, description = "The metrics", body = PrimaryRpcMetricsResponse),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody)))]
pub(crate) async fn primary_network_rpc_metrics(
    State(state): State<AppState>,
    mut q: Query,
) -> ApiResult<Json<PrimaryRpcMetricsResponse>> {
    let network = q.string("network");
    let (interval, name) = interval(&mut q, &Interval::NAMES[1..]);
    let (from_ms, to_ms) = range(&mut q);
    let (group, grouped_by) = group_by(
        &mut q,
        &[
            "rpcMethod",
            "requestPath",
            "responseCode",
            "country",
            "continent",
            "userAgent",
        ],
    );
    let filter = RequestLogFilter {
        from_ms,
        to_ms,
        request_type: Some("rpc".to_owned()),
        primary_network: Some(true),
        status: status(&mut q),
        path: q.string("requestPath"),
        rpc_method: q.string("rpcMethod"),
        user_agent: q.string("userAgent"),
        ..RequestLogFilter::default()
    };
    // Every client is of unknown location (`XX`): another country or continent has nothing.
    let located = ["country", "continent"]
        .iter()
        .all(|p| q.str(p).is_none_or(|v| v == "XX"));
    if network.is_none() {
        q.error("network is required: mainnet, fuji or testnet");
    }
    q.finish()?;
    let network = network.unwrap_or_default();
    check_network(&state.config.network, &network)?;
    let mut metrics = buckets(
        &state,
        located.then_some(&filter),
        group,
        interval,
        grouped_by,
    )
    .await?;
    name_unknown_groups(&mut metrics, grouped_by);
    Ok(Json(PrimaryRpcMetricsResponse {
        aggregate_duration: name.to_owned(),
        metrics,
        network: if network == "mainnet" {
            "mainnet"
        } else {
            "testnet"
        },
    }))
}
