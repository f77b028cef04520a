//! `GET /v2/chains/{chainId}/rollingWindowMetrics/{metric}` (windows ending at the chain's last
//! block; for `total`, `mainnet` and `testnet` at the last block of any, the chains' values
//! combined as [`Metric::across`] says; distinct counts exact per window) and
//! `GET /v2/networks/{network}/metrics/{metric}` (daily staking totals of a subnet).

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use firn_core::calendar::{DAY, HOUR};
use firn_core::ids::Id;
use firn_core::network::P_CHAIN_ID;
use firn_store::page::{HeightCursor, PageRequest};
use firn_store::rows::metrics::{AddressRole, ChainMetrics, Granularity, StakingMetrics};
use firn_store::{MetricsReader, SortOrder, Store};

use super::chains::{NETWORKS, metric_param};
use super::metric::Metric;
use super::series::{one, rows_between};
use super::wire::{MetricsApiResponse, MetricsValue, RollingWindowResponse, RollingWindowValue};
use super::{MetricsState, chain_scope, page_size, query_key};
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

/// The rolling windows, shortest first: how far back each reaches and the granularity of the
/// rows it is read from (hours up to a week, days beyond).
const WINDOWS: [(u64, Granularity); 6] = [
    (HOUR, Granularity::Hour),
    (DAY, Granularity::Hour),
    (7 * DAY, Granularity::Hour),
    (30 * DAY, Granularity::Day),
    (90 * DAY, Granularity::Day),
    (365 * DAY, Granularity::Day),
];

/// The value over the rows of `rows` whose period starts at or after the period holding
/// `from`.
fn window(metric: Metric, rows: &[ChainMetrics], granularity: Granularity, from: u64) -> f64 {
    let start = granularity.start_of(from);
    let in_window: Vec<&ChainMetrics> = rows.iter().filter(|r| r.start_ts >= start).collect();
    metric.value(&in_window, None)
}

/// One chain's value of each of `metrics` in each window ending at `tip` ([`WINDOWS`], then
/// all time), from one read of its rows.
async fn chain_windows(
    store: &Store,
    chain: u64,
    metrics: &[Metric],
    tip: u64,
    newest: &ChainMetrics,
) -> ApiResult<Vec<[f64; 7]>> {
    let back = |secs: u64| tip.saturating_sub(secs - 1);
    let mut out = vec![[0.0; 7]; metrics.len()];
    let mut hours_and_days = None;
    for (metric, w) in metrics.iter().zip(&mut out) {
        if let Some(role) = metric.address_role() {
            // Distinct counts do not add up across periods: each window counts its own set.
            for (v, (secs, g)) in w.iter_mut().zip(WINDOWS) {
                let from = g.start_of(back(secs));
                *v = store.count_distinct_addresses(chain, g, role, from).await? as f64;
            }
            w[6] = match role {
                AddressRole::Active => newest.cumulative_addresses as f64,
                AddressRole::Deployer => newest.cumulative_deployers as f64,
                AddressRole::Sender => {
                    store
                        .count_distinct_addresses(chain, Granularity::Month, role, 0)
                        .await? as f64
                }
            };
            continue;
        }
        let (hours, days) = match &hours_and_days {
            Some(read) => read,
            None => {
                let from = Granularity::Hour.start_of(back(7 * DAY));
                let hours =
                    rows_between(store, chain, Granularity::Hour, from, i64::MAX as u64).await?;
                let days = rows_between(store, chain, Granularity::Day, 0, i64::MAX as u64).await?;
                hours_and_days.insert((hours, days))
            }
        };
        for (v, (secs, g)) in w.iter_mut().zip(WINDOWS) {
            let rows = if g == Granularity::Hour { hours } else { days };
            *v = window(*metric, rows, g, back(secs));
        }
        w[6] = window(*metric, days, Granularity::Day, 0);
    }
    Ok(out)
}

async fn rolling_window(
    State(state): State<MetricsState>,
    path: PathParams,
) -> ApiResult<Json<RollingWindowResponse>> {
    let metric = metric_param(path.get("metric"), &ROLLING)?;
    let scope = chain_scope(&state, path.get("chainId")).await?;
    let store = &state.app.store;
    let mut newest = Vec::new();
    for &chain in &scope.chains {
        if let Some(row) = one(store, chain, Granularity::Day, None, SortOrder::Desc).await? {
            newest.push((chain, row));
        }
    }
    // Windows end at the last block of any of the chains.
    let Some(tip) = newest.iter().map(|(_, r)| r.last_block_ts).max() else {
        return Ok(Json(RollingWindowResponse {
            result: RollingWindowValue::default(),
        }));
    };
    let metrics = metric.read_with(newest.len());
    let mut values = Vec::with_capacity(newest.len());
    let mut txs = Vec::new();
    for (chain, row) in &newest {
        let mut read = chain_windows(store, *chain, &metrics, tip, row)
            .await?
            .into_iter();
        values.extend(read.next());
        txs.extend(read.next());
    }
    let w: [f64; 7] = std::array::from_fn(|i| metric.across_at(&values, &txs, i));
    Ok(Json(RollingWindowResponse {
        result: RollingWindowValue {
            last_hour: Some(w[0]),
            last_day: Some(w[1]),
            last_week: Some(w[2]),
            last_month: Some(w[3]),
            last_90_days: Some(w[4]),
            last_year: Some(w[5]),
            all_time: Some(w[6]),
        },
    }))
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
    let (start_ts, end_ts) = q.time_window();
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
