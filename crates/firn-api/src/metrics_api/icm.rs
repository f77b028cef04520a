//! `GET /v2/icm/timeseries` (messages sent per hour, day, week or month, newest first) and
//! `GET /v2/icm/summary` (messages in rolling windows ending at the newest message), counted
//! from the store's ICM messages by the send's time (the delivery's where the send is not
//! indexed).
//!
//! `srcBlockchainId` and `destBlockchainId` narrow the messages; `groupBy` splits a series'
//! points by source, destination or both (a group appears in the periods it sent messages
//! in). A dimension a point does not split by is named by its filter, or `all`. The summary's
//! one result counts every message the filters leave.

use std::collections::BTreeMap;

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use firn_core::calendar::{DAY, HOUR};
use firn_core::ids::Id;
use firn_store::IcmReader;
use firn_store::rows::metrics::Granularity;
use serde::Serialize;

use super::chains::NETWORKS;
use super::series::{Bounds, bucket_starts};
use super::wire::RollingWindowValue;
use super::{MetricsState, query_key};
use crate::error::ApiResult;
use crate::params::Query;

pub(super) fn router() -> Router<MetricsState> {
    Router::new()
        .route("/v2/icm/timeseries", get(timeseries))
        .route("/v2/icm/summary", get(summary))
}

const GROUP_BY: [&str; 3] = [
    "srcBlockchainId",
    "destBlockchainId",
    "srcBlockchainId,destBlockchainId",
];

/// `ICMMetricsValue`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IcmMetricsValue {
    /// Messages in the period.
    pub value: f64,
    /// Start of the period, Unix seconds.
    pub timestamp: u64,
    /// Source chain (cb58), or `all`.
    pub src_blockchain_id: String,
    /// Destination chain (cb58), or `all`.
    pub dest_blockchain_id: String,
}

/// `ICMMetricsApiResponse`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IcmMetricsApiResponse {
    /// Present only when more periods exist.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// Points, newest period first.
    pub results: Vec<IcmMetricsValue>,
}

/// `ICMRollingWindowMetricsValue`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IcmRollingWindowValue {
    /// The windows.
    #[serde(flatten)]
    pub windows: RollingWindowValue,
    /// Source chain (cb58), or `all`.
    pub src_blockchain_id: String,
    /// Destination chain (cb58), or `all`.
    pub dest_blockchain_id: String,
}

/// `ICMRollingWindowMetricsApiResponse`.
#[derive(Debug, Clone, Serialize)]
pub struct IcmRollingWindowResponse {
    /// The windows.
    pub result: IcmRollingWindowValue,
}

/// The filters and grouping both operations take.
struct Pair {
    source: Option<Id>,
    destination: Option<Id>,
    by_source: bool,
    by_destination: bool,
    /// Whether the `network` is this server's (another network has no messages here).
    ours: bool,
}

impl Pair {
    fn parse(state: &MetricsState, q: &mut Query) -> Self {
        let source = q.id("srcBlockchainId");
        let destination = q.id("destBlockchainId");
        let group = q.one_of("groupBy", &GROUP_BY);
        let network = q.one_of("network", &NETWORKS);
        Self {
            source,
            destination,
            by_source: group.is_some_and(|g| g.starts_with("src")),
            by_destination: group.is_some_and(|g| g.contains("dest")),
            ours: network.is_none_or(|n| state.app.config.network.accepts(n)),
        }
    }

    /// The times of the oldest and newest message the filters leave; `None` for none.
    async fn time_range(&self, state: &MetricsState) -> ApiResult<Option<(u64, u64)>> {
        if !self.ours {
            return Ok(None);
        }
        Ok(state
            .app
            .store
            .find_icm_time_range(self.source, self.destination)
            .await?)
    }

    /// The names a point shows for its group's `(source, destination)`.
    fn names(&self, source: Id, destination: Id) -> (String, String) {
        let (fixed_source, fixed_destination) = self.fixed_names();
        (
            if self.by_source {
                source.to_string()
            } else {
                fixed_source
            },
            if self.by_destination {
                destination.to_string()
            } else {
                fixed_destination
            },
        )
    }

    /// The names of the dimensions no point splits by: the filter's chain, or `all`.
    fn fixed_names(&self) -> (String, String) {
        let name = |fixed: Option<Id>| fixed.map_or_else(|| "all".to_owned(), |f| f.to_string());
        (name(self.source), name(self.destination))
    }
}

async fn timeseries(
    State(state): State<MetricsState>,
    mut q: Query,
) -> ApiResult<Json<IcmMetricsApiResponse>> {
    let pair = Pair::parse(&state, &mut q);
    let (bounds, token) = Bounds::parse(&mut q);
    q.finish()?;
    let key = query_key("/v2/icm/timeseries", &q);
    let bounds = bounds.continue_after(&state, &key, token.as_deref())?;
    let (interval, size) = (bounds.interval, bounds.size);
    let store = &state.app.store;
    let Some((oldest, newest)) = pair.time_range(&state).await? else {
        return Ok(Json(IcmMetricsApiResponse {
            next_page_token: None,
            results: Vec::new(),
        }));
    };
    let mut starts = bucket_starts(bounds, oldest, newest);
    let more = starts.len() > size;
    starts.truncate(size);
    let (Some(&top), Some(&bottom)) = (starts.first(), starts.last()) else {
        return Ok(Json(IcmMetricsApiResponse {
            next_page_token: None,
            results: Vec::new(),
        }));
    };
    // Hours are counted by hour, longer periods by day and folded into theirs.
    let counted = if interval == Granularity::Hour {
        HOUR
    } else {
        DAY
    };
    let end = interval.next(top).saturating_sub(1);
    let counts = store
        .count_icm_messages(pair.source, pair.destination, bottom, end, counted)
        .await?;
    // (period start, source name, destination name) → messages.
    let mut points: BTreeMap<(u64, String, String), u64> = BTreeMap::new();
    for c in &counts {
        let (src, dest) = pair.names(c.source, c.destination);
        *points
            .entry((interval.start_of(c.start_ts), src, dest))
            .or_default() += c.count;
    }
    if !pair.by_source && !pair.by_destination {
        // One series: every period is a point, empty ones too.
        let (src, dest) = pair.fixed_names();
        for &start in &starts {
            points
                .entry((start, src.clone(), dest.clone()))
                .or_default();
        }
    }
    let results = points
        .into_iter()
        .rev()
        .map(|((timestamp, src, dest), n)| IcmMetricsValue {
            value: n as f64,
            timestamp,
            src_blockchain_id: src,
            dest_blockchain_id: dest,
        })
        .collect();
    Ok(Json(IcmMetricsApiResponse {
        next_page_token: more.then(|| state.tokens.issue(&key, bottom)),
        results,
    }))
}

async fn summary(
    State(state): State<MetricsState>,
    mut q: Query,
) -> ApiResult<Json<IcmRollingWindowResponse>> {
    let pair = Pair::parse(&state, &mut q);
    q.finish()?;
    let (src, dest) = pair.fixed_names();
    let store = &state.app.store;
    let mut windows = RollingWindowValue::default();
    if let Some((_, tip)) = pair.time_range(&state).await? {
        let since = |secs: u64| tip.saturating_sub(secs - 1);
        let hours = store
            .count_icm_messages(pair.source, pair.destination, since(7 * DAY), tip, HOUR)
            .await?;
        let days = store
            .count_icm_messages(pair.source, pair.destination, since(365 * DAY), tip, DAY)
            .await?;
        let sum = |rows: &[firn_store::rows::icm::IcmCount], from: u64| -> Option<f64> {
            Some(
                rows.iter()
                    .filter(|c| c.start_ts >= from)
                    .map(|c| c.count)
                    .sum::<u64>() as f64,
            )
        };
        let hour = |secs| Granularity::Hour.start_of(since(secs));
        let day = |secs| Granularity::Day.start_of(since(secs));
        windows.last_hour = sum(&hours, hour(HOUR));
        windows.last_day = sum(&hours, hour(DAY));
        windows.last_week = sum(&hours, hour(7 * DAY));
        windows.last_month = sum(&days, day(30 * DAY));
        windows.last_90_days = sum(&days, day(90 * DAY));
        windows.last_year = sum(&days, day(365 * DAY));
        let all = store
            .count_icm_messages(pair.source, pair.destination, 0, tip, i64::MAX as u64)
            .await?;
        windows.all_time = sum(&all, 0);
    }
    Ok(Json(IcmRollingWindowResponse {
        result: IcmRollingWindowValue {
            windows,
            src_blockchain_id: src,
            dest_blockchain_id: dest,
        },
    }))
}
