//! `GET /v2/chains/{chainId}/rollingWindowMetrics/{metric}` (windows ending at the chain's last
//! block) and `GET /v2/networks/{network}/metrics/{metric}` (daily staking totals of a subnet).

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use firn_core::calendar::{DAY, HOUR};
use firn_core::ids::Id;
use firn_core::network::P_CHAIN_ID;
use firn_store::page::{HeightCursor, PageRequest};
use firn_store::rows::metrics::{ChainMetrics, Granularity, StakingMetrics};
use firn_store::{MetricsReader, SortOrder};

use super::chains::{NETWORKS, metric_param};
use super::metric::{Combine, Metric};
use super::series::rows_between;
use super::wire::{MetricsApiResponse, MetricsValue, RollingWindowResponse, RollingWindowValue};
use super::{MetricsState, known_chain, page_size, query_key};
use crate::error::{ApiError, ApiResult};
use crate::params::{PathParams, Query};

/// The `ChainRollingWindowMetric` names.
const ROLLING: [&str; 13] = [
    "gasUsed",
    "txCount",
    "avgGps",
    "maxGps",
    "avgTps",
    "maxTps",
    "avgGasPrice",
    "maxGasPrice",
    "feesPaid",
    "contracts",
    "deployers",
    "activeAddresses",
    "activeSenders",
];

/// The `NetworkMetric` names.
const STAKING: [&str; 4] = [
    "delegatorCount",
    "delegatorWeight",
    "validatorCount",
    "validatorWeight",
];

pub(super) fn router() -> Router<MetricsState> {
    Router::new()
        .route(
            "/v2/chains/{chainId}/rollingWindowMetrics/{metric}",
            get(rolling_window),
        )
        .route("/v2/networks/{network}/metrics/{metric}", get(staking))
}

/// The value over the rows of `rows` whose period starts at or after the period holding
/// `from`.
fn window(metric: Metric, rows: &[ChainMetrics], granularity: Granularity, from: u64) -> f64 {
    let start = granularity.start_of(from);
    let in_window: Vec<&ChainMetrics> = rows.iter().filter(|r| r.start_ts >= start).collect();
    metric.value(&in_window, None)
}

async fn rolling_window(
    State(state): State<MetricsState>,
    path: PathParams,
) -> ApiResult<Json<RollingWindowResponse>> {
    let name = path.get("metric");
    let metric = metric_param(name, &ROLLING)?;
    let chain = known_chain(&state, path.get("chainId")).await?;
    let store = &state.app.store;
    let newest = store
        .list_chain_metrics(
            chain.chain_id,
            Granularity::Day,
            None,
            None,
            SortOrder::Desc,
            &PageRequest::first(1),
        )
        .await?
        .items
        .into_iter()
        .next();
    let Some(newest) = newest else {
        return Ok(Json(RollingWindowResponse {
            result: RollingWindowValue::default(),
        }));
    };
    let tip = newest.last_block_ts;
    let mut result = RollingWindowValue::default();
    if metric.combine() == Combine::Distinct {
        // Distinct counts do not add up across periods; only the all-time total is kept.
        result.all_time = match metric {
            Metric::ActiveAddresses => Some(newest.cumulative_addresses as f64),
            Metric::Deployers => Some(newest.cumulative_deployers as f64),
            _ => None,
        };
        return Ok(Json(RollingWindowResponse { result }));
    }
    let back = |secs: u64| tip.saturating_sub(secs - 1);
    let hours = rows_between(
        store,
        chain.chain_id,
        Granularity::Hour,
        Granularity::Hour.start_of(back(7 * DAY)),
        i64::MAX as u64,
    )
    .await?;
    let days = rows_between(store, chain.chain_id, Granularity::Day, 0, i64::MAX as u64).await?;
    let (h, d) = (Granularity::Hour, Granularity::Day);
    result.last_hour = Some(window(metric, &hours, h, back(HOUR)));
    result.last_day = Some(window(metric, &hours, h, back(DAY)));
    result.last_week = Some(window(metric, &hours, h, back(7 * DAY)));
    result.last_month = Some(window(metric, &days, d, back(30 * DAY)));
    result.last_90_days = Some(window(metric, &days, d, back(90 * DAY)));
    result.last_year = Some(window(metric, &days, d, back(365 * DAY)));
    result.all_time = Some(window(metric, &days, d, 0));
    Ok(Json(RollingWindowResponse { result }))
}

fn staking_value(metric: &str, m: &StakingMetrics) -> f64 {
    match metric {
        "delegatorCount" => m.delegator_count as f64,
        "delegatorWeight" => m.delegator_weight as f64,
        "validatorCount" => m.validator_count as f64,
        _ => m.validator_weight as f64,
    }
}

async fn staking(
    State(state): State<MetricsState>,
    path: PathParams,
    mut q: Query,
) -> ApiResult<Json<MetricsApiResponse>> {
    let network = path.get("network");
    let metric = path.get("metric");
    if !NETWORKS.contains(&network) {
        q.error(format!(
            "network must be one of the following values: {}",
            NETWORKS.join(", ")
        ));
    }
    if !STAKING.contains(&metric) {
        q.error(format!(
            "metric must be one of the following values: {}",
            STAKING.join(", ")
        ));
    }
    let subnet = match q.str("subnetId") {
        Some(_) => q.id("subnetId"),
        None => Some(P_CHAIN_ID),
    };
    let start_ts = q.timestamp("startTimestamp");
    let end_ts = q.timestamp("endTimestamp");
    if let (Some(s), Some(e)) = (start_ts, end_ts)
        && s > e
    {
        q.error("startTimestamp must not be greater than endTimestamp");
    }
    let size = page_size(&mut q);
    let token = q.string("pageToken");
    q.finish()?;
    if !state.app.config.network.accepts(network) {
        return Err(ApiError::not_found(format!(
            "network {network} is not the network this server indexes"
        )));
    }
    let subnet: Id = subnet.unwrap_or(P_CHAIN_ID);
    let key = query_key(&format!("/v2/networks/{network}/metrics/{metric}"), &q);
    let limit = u32::try_from(size).unwrap_or(u32::MAX);
    let request = match &token {
        Some(t) => PageRequest::after(
            limit,
            HeightCursor {
                height: state.tokens.redeem(&key, t)?,
            },
        ),
        None => PageRequest::first(limit),
    };
    let page = state
        .app
        .store
        .list_staking_metrics(subnet, start_ts, end_ts, SortOrder::Desc, &request)
        .await?;
    let points: Vec<(u64, f64)> = page
        .items
        .iter()
        .map(|m| (m.day, staking_value(metric, m)))
        .collect();
    Ok(Json(MetricsApiResponse {
        next_page_token: page.next.map(|c| state.tokens.issue(&key, c.height)),
        results: MetricsValue::list(&points),
    }))
}
