//! Usage metrics computed over request log samples: bucketed by time interval, grouped by a
//! column, with the official value fields (`UsageMetricsValueDTO`,
//! `RpcUsageMetricsValueAggregated`).
//!
//! API credits: one per request. The hosted API weighs operations (free = 1, small = 10, …
//! up to xxl = 200); firn serves no paid tiers, so every request costs the free weight, and a
//! 4xx request's credit counts as wasted.

use std::collections::BTreeMap;

use firn_store::rows::metrics::Granularity;
use firn_store::rows::usage::UsageSample;
use serde::Serialize;
use serde_json::Value;

/// A `timeInterval`: minutes, or one of the calendar periods the store's metrics use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Interval {
    Minute,
    Period(Granularity),
}

impl Interval {
    /// The official names, in the order of the official enum.
    pub(crate) const NAMES: [&'static str; 5] = ["minute", "hourly", "daily", "weekly", "monthly"];

    pub(crate) fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "minute" => Interval::Minute,
            "hourly" => Interval::Period(Granularity::Hour),
            "daily" => Interval::Period(Granularity::Day),
            "weekly" => Interval::Period(Granularity::Week),
            "monthly" => Interval::Period(Granularity::Month),
            _ => return None,
        })
    }

    /// Start of the bucket holding `ts` (Unix seconds).
    fn start_of(self, ts: u64) -> u64 {
        match self {
            Interval::Minute => ts - ts % 60,
            Interval::Period(g) => g.start_of(ts),
        }
    }

    /// Length of the bucket starting at `start`, seconds.
    fn seconds(self, start: u64) -> u64 {
        match self {
            Interval::Minute => 60,
            Interval::Period(g) => g.next(start) - start,
        }
    }
}

/// One group's metrics in one bucket: the fields both official value shapes share, plus
/// `groupedBy` and `groupValue`.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UsageValue {
    /// The grouping column's official name, or `None`.
    pub grouped_by: String,
    /// The group's value (a number for response codes); absent without grouping.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group_value: Option<Value>,
    /// Requests.
    pub total_requests: u64,
    /// Requests over the bucket's length.
    pub requests_per_second: f64,
    /// Requests answered below 400, percent.
    pub success_rate_percent: f64,
    /// Median time to answer.
    pub median_response_time_msecs: f64,
    /// Requests answered 4xx.
    pub invalid_requests: u64,
    /// Credits spent (one per request).
    pub api_credits_used: u64,
    /// Credits spent on 4xx requests.
    pub api_credits_wasted: u64,
}

/// One bucket: its start (Unix seconds) and a value per group (`Metric`, `RpcMetrics`).
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct Bucket {
    /// Start of the bucket, Unix seconds.
    pub timestamp: u64,
    /// One value per group, by group value.
    pub values: Vec<UsageValue>,
}

/// `samples` (oldest first) in buckets of `interval`, grouped: `grouped_by` names the
/// grouping column on the wire (`None` without grouping), `numeric` says its values are
/// numbers (response codes).
pub(crate) fn aggregate(
    samples: &[UsageSample],
    interval: Interval,
    grouped_by: &str,
    numeric: bool,
) -> Vec<Bucket> {
    let mut buckets: BTreeMap<u64, BTreeMap<&str, Vec<&UsageSample>>> = BTreeMap::new();
    for s in samples {
        let start = interval.start_of(s.time_ms / 1_000);
        buckets
            .entry(start)
            .or_default()
            .entry(s.group.as_str())
            .or_default()
            .push(s);
    }
    buckets
        .into_iter()
        .map(|(start, groups)| Bucket {
            timestamp: start,
            values: groups
                .into_iter()
                .map(|(group, rows)| {
                    let group_value = (grouped_by != "None").then(|| match group.parse::<u64>() {
                        Ok(n) if numeric => Value::from(n),
                        _ => Value::from(group),
                    });
                    value(grouped_by, group_value, &rows, interval.seconds(start))
                })
                .collect(),
        })
        .collect()
}

fn value(
    grouped_by: &str,
    group_value: Option<Value>,
    rows: &[&UsageSample],
    secs: u64,
) -> UsageValue {
    let total = rows.len() as u64;
    let ok = rows.iter().filter(|r| r.status < 400).count() as u64;
    let invalid = rows
        .iter()
        .filter(|r| (400..500).contains(&r.status))
        .count() as u64;
    let mut durations: Vec<u64> = rows.iter().map(|r| r.duration_ms).collect();
    durations.sort_unstable();
    UsageValue {
        grouped_by: grouped_by.to_owned(),
        group_value,
        total_requests: total,
        requests_per_second: total as f64 / secs.max(1) as f64,
        success_rate_percent: if total == 0 {
            0.0
        } else {
            ok as f64 * 100.0 / total as f64
        },
        median_response_time_msecs: median(&durations),
        invalid_requests: invalid,
        api_credits_used: total,
        api_credits_wasted: invalid,
    }
}

/// The median of sorted `v` (the mean of the middle two for an even count); 0 when empty.
fn median(v: &[u64]) -> f64 {
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2] as f64,
        n => (v[n / 2 - 1] + v[n / 2]) as f64 / 2.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(time_ms: u64, group: &str, status: u16, duration_ms: u64) -> UsageSample {
        UsageSample {
            time_ms,
            group: group.to_owned(),
            status,
            duration_ms,
        }
    }

    #[test]
    fn buckets_group_and_count() {
        let s = [
            sample(0, "200", 200, 1),
            sample(30_000, "404", 404, 9),
            sample(59_999, "200", 200, 3),
            sample(60_000, "200", 200, 5),
        ];
        let b = aggregate(&s, Interval::Minute, "responseCode", true);
        assert_eq!(b.len(), 2);
        assert_eq!(b[0].timestamp, 0);
        let ok = &b[0].values[0];
        assert_eq!(ok.group_value, Some(Value::from(200)));
        assert_eq!((ok.total_requests, ok.median_response_time_msecs), (2, 2.0));
        let bad = &b[0].values[1];
        assert_eq!((bad.invalid_requests, bad.api_credits_wasted), (1, 1));
        assert_eq!(bad.success_rate_percent, 0.0);
        // Without grouping the store gives every sample the same (empty) group.
        let ungrouped: Vec<UsageSample> = s
            .iter()
            .map(|x| UsageSample {
                group: String::new(),
                ..x.clone()
            })
            .collect();
        let daily = Interval::from_name("daily").unwrap();
        let all = aggregate(&ungrouped, daily, "None", false);
        assert_eq!(all[0].values[0].total_requests, 4);
        assert_eq!(all[0].values[0].success_rate_percent, 75.0);
        assert!(all[0].values[0].group_value.is_none());
    }
}
