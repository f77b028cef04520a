//! The L1 validator fee metrics: what L1 validators paid for their continuous fee, per UTC day
//! and cumulated, for every validator (`/v2/validators/metrics/{metric}`), one validation
//! (`/v2/validation/{l1ValidationId}/metrics/{metric}`), one node
//! (`/v2/validator/{nodeId}/metrics/{metric}`) or one L1 (`/v2/subnet/{subnetId}/metrics/{metric}`).
//!
//! The fees come from the indexer's replay of the fee ledger (the chain's bytes do not carry
//! them). A series runs, newest first, from the first day its validators paid to the day of the
//! last indexed P-Chain block, one point per day (0 on days nobody paid); the official API has
//! no paging here, and the days since Etna are few (at most [`MAX_POINTS`] are sent).

use std::str::FromStr;

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use firn_core::calendar::DAY;
use firn_core::ids::{Id, NodeId};
use firn_core::network::P_CHAIN_ID;
use firn_store::rows::l1_fees::{L1FeeDayTotal, L1FeeScope};
use firn_store::{MetricsReader, PChainReader};

use super::MetricsState;
use super::wire::{MetricsApiResponse, MetricsValue};
use crate::error::{ApiError, ApiResult};
use crate::params::{PathParams, Query};

/// What a metric shows of each day.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shown {
    Fees,
    CumulativeFees,
    Paying,
}

const NETWORK_METRICS: [(&str, Shown); 3] = [
    ("totalCumulativeFeesDaily", Shown::CumulativeFees),
    ("totalValidatorFeesDaily", Shown::Fees),
    ("totalPayingValidatorsDaily", Shown::Paying),
];
const VALIDATION_METRICS: [(&str, Shown); 2] = [
    ("validationCumulativeFeesDaily", Shown::CumulativeFees),
    ("validationFeesDaily", Shown::Fees),
];
const NODE_METRICS: [(&str, Shown); 2] = [
    ("perNodeCumulativeFeesPaid", Shown::CumulativeFees),
    ("perNodeDailyFeesPaid", Shown::Fees),
];
const SUBNET_METRICS: [(&str, Shown); 3] = [
    ("perSubnetDailyFeesPaid", Shown::Fees),
    ("perSubnetCumulativeFeesPaid", Shown::CumulativeFees),
    ("perSubnetPayingValidators", Shown::Paying),
];

pub(super) fn router() -> Router<MetricsState> {
    Router::new()
        .route("/v2/validators/metrics/{metric}", get(network_fees))
        .route(
            "/v2/validation/{l1ValidationId}/metrics/{metric}",
            get(validation_fees),
        )
        .route("/v2/validator/{nodeId}/metrics/{metric}", get(node_fees))
        .route("/v2/subnet/{subnetId}/metrics/{metric}", get(subnet_fees))
}

/// The metric of `path` among `allowed` and the time frame (`startTimestamp`,
/// `endTimestamp`), after every parameter was checked.
fn metric_and_frame(
    mut q: Query,
    path: &PathParams,
    allowed: &[(&str, Shown)],
) -> ApiResult<(Shown, (u64, u64))> {
    let raw = path.get("metric");
    let found = allowed.iter().find(|(name, _)| *name == raw).map(|m| m.1);
    if found.is_none() {
        let names: Vec<&str> = allowed.iter().map(|m| m.0).collect();
        q.error(format!(
            "metric must be one of the following values: {}",
            names.join(", ")
        ));
    }
    let (from, to) = q.time_window();
    let (from, to) = (from.unwrap_or(0), to.unwrap_or(i64::MAX as u64));
    q.finish()?;
    Ok((found.unwrap_or(Shown::Fees), (from, to)))
}

/// The ID in path parameter `name`, or the error `must` (checked with the others).
fn path_id<T: FromStr>(q: &mut Query, path: &PathParams, name: &str, must: &str) -> Option<T> {
    let id = path.get(name).parse().ok();
    if id.is_none() {
        q.error(format!("{name} must be {must}"));
    }
    id
}

async fn network_fees(
    State(state): State<MetricsState>,
    path: PathParams,
    q: Query,
) -> ApiResult<Json<MetricsApiResponse>> {
    let (metric, frame) = metric_and_frame(q, &path, &NETWORK_METRICS)?;
    series(&state, L1FeeScope::All, metric, frame).await
}

async fn validation_fees(
    State(state): State<MetricsState>,
    path: PathParams,
    mut q: Query,
) -> ApiResult<Json<MetricsApiResponse>> {
    let id: Option<Id> = path_id(&mut q, &path, "l1ValidationId", "a cb58 validation ID");
    let (metric, frame) = metric_and_frame(q, &path, &VALIDATION_METRICS)?;
    let id = id.unwrap_or_default();
    if state.app.store.find_l1_validator(id).await?.is_none() {
        return Err(ApiError::not_found(format!("L1 validation {id} not found")));
    }
    series(&state, L1FeeScope::Validation(id), metric, frame).await
}

async fn node_fees(
    State(state): State<MetricsState>,
    path: PathParams,
    mut q: Query,
) -> ApiResult<Json<MetricsApiResponse>> {
    let node: Option<NodeId> = path_id(&mut q, &path, "nodeId", "a node ID (NodeID-…)");
    let (metric, frame) = metric_and_frame(q, &path, &NODE_METRICS)?;
    let scope = L1FeeScope::Node(node.unwrap_or_default());
    series(&state, scope, metric, frame).await
}

async fn subnet_fees(
    State(state): State<MetricsState>,
    path: PathParams,
    mut q: Query,
) -> ApiResult<Json<MetricsApiResponse>> {
    let subnet: Option<Id> = path_id(&mut q, &path, "subnetId", "a cb58 subnet ID");
    let (metric, frame) = metric_and_frame(q, &path, &SUBNET_METRICS)?;
    let subnet = subnet.unwrap_or(P_CHAIN_ID);
    if subnet != P_CHAIN_ID && state.app.store.find_subnet(subnet).await?.is_none() {
        return Err(ApiError::not_found(format!("subnet {subnet} not found")));
    }
    series(&state, L1FeeScope::Subnet(subnet), metric, frame).await
}

/// One point per day of `scope`'s series within `[from, to]`, newest first.
async fn series(
    state: &MetricsState,
    scope: L1FeeScope,
    metric: Shown,
    (from, to): (u64, u64),
) -> ApiResult<Json<MetricsApiResponse>> {
    let store = &state.app.store;
    let empty = Json(MetricsApiResponse {
        next_page_token: None,
        results: Vec::new(),
    });
    let Some((_, ledger)) = store.find_l1_fee_state().await? else {
        return Ok(empty);
    };
    let today = ledger.time - ledger.time % DAY;
    let last = today.min(to - to % DAY);
    // Every day up to the last one: a cumulative series carries what came before the frame.
    let days = store.list_l1_fee_days(scope, 0, last).await?;
    let Some(first) = days.first().map(|d| d.day) else {
        return Ok(empty);
    };
    let lo = first.max(from.div_ceil(DAY).saturating_mul(DAY));
    Ok(Json(MetricsApiResponse {
        next_page_token: None,
        results: MetricsValue::list(&points(&days, metric, lo, last)),
    }))
}

/// Most points a series holds: ten years of days, the newest (the chain's time comes from
/// its node).
const MAX_POINTS: u64 = 3_660;

/// The points of the days `lo..=last` (at most [`MAX_POINTS`], the newest), newest first,
/// from `days` (those with fees, oldest first).
fn points(days: &[L1FeeDayTotal], metric: Shown, lo: u64, last: u64) -> Vec<(u64, f64)> {
    let lo = lo.max(last.saturating_sub((MAX_POINTS - 1) * DAY));
    let mut cumulative: u128 = days
        .iter()
        .filter(|d| d.day < lo)
        .map(|d| u128::from(d.fees))
        .sum();
    let mut next = days.iter().filter(|d| d.day >= lo).peekable();
    let mut out = Vec::new();
    let mut day = lo;
    while day <= last {
        let today = next.next_if(|d| d.day == day);
        let (fees, paying) = today.map_or((0, 0), |d| (d.fees, d.paying));
        cumulative += u128::from(fees);
        out.push((
            day,
            match metric {
                Shown::Fees => fees as f64,
                Shown::CumulativeFees => cumulative as f64,
                Shown::Paying => paying as f64,
            },
        ));
        match day.checked_add(DAY) {
            Some(d) => day = d,
            None => break,
        }
    }
    out.reverse();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(n: u64, fees: u64, paying: u64) -> L1FeeDayTotal {
        L1FeeDayTotal {
            day: n * DAY,
            fees,
            paying,
        }
    }

    #[test]
    fn points_fill_empty_days_and_keep_the_newest_ten_years() {
        let days = [day(1, 5, 1), day(3, 7, 2)];
        assert_eq!(
            points(&days, Shown::CumulativeFees, DAY, 4 * DAY),
            vec![(4 * DAY, 12.0), (3 * DAY, 12.0), (2 * DAY, 5.0), (DAY, 5.0)]
        );
        assert_eq!(
            points(&days, Shown::Paying, 2 * DAY, 3 * DAY),
            vec![(3 * DAY, 2.0), (2 * DAY, 0.0)]
        );
        // A last day far in the future (a node's word): the newest MAX_POINTS days only, the
        // cumulative sum carrying what came before them.
        let far = u64::MAX / 2 - (u64::MAX / 2) % DAY;
        let got = points(&days, Shown::CumulativeFees, DAY, far);
        assert_eq!(got.len() as u64, MAX_POINTS);
        assert_eq!(got[0], (far, 12.0));
    }
}
