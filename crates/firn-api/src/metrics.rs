//! Service metrics in Prometheus' text format at `/metrics`: requests and errors per route and
//! status, latency histograms per route, and the indexer's position and lag per chain (read
//! from the store's cursors at scrape time).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use axum::extract::{MatchedPath, Request, State};
use axum::http::header;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use firn_store::rows::ChainKey;
use firn_store::{CursorStore, EvmReader, PChainReader};

use crate::error::ApiResult;
use crate::state::AppState;

/// Upper bounds of the latency histogram buckets, seconds.
const BUCKETS: [f64; 12] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0,
];

#[derive(Debug, Default)]
struct RouteStats {
    by_status: BTreeMap<u16, u64>,
    buckets: [u64; BUCKETS.len()],
    count: u64,
    sum: f64,
}

/// Counters and histograms of served requests, by route pattern.
#[derive(Debug, Default)]
pub struct ServiceMetrics {
    routes: Mutex<BTreeMap<String, RouteStats>>,
}

impl ServiceMetrics {
    /// Records one request to `route` that answered `status` after `elapsed`.
    pub fn record(&self, route: &str, status: u16, elapsed: Duration) {
        let secs = elapsed.as_secs_f64();
        let mut routes = self.routes.lock().unwrap_or_else(|e| e.into_inner());
        let stats = match routes.get_mut(route) {
            Some(s) => s,
            None => routes.entry(route.to_owned()).or_default(),
        };
        *stats.by_status.entry(status).or_default() += 1;
        for (bucket, bound) in stats.buckets.iter_mut().zip(BUCKETS) {
            if secs <= bound {
                *bucket += 1;
            }
        }
        stats.count += 1;
        stats.sum += secs;
    }

    /// The request metrics in Prometheus' text format.
    pub fn render(&self) -> String {
        let routes = self.routes.lock().unwrap_or_else(|e| e.into_inner());
        let mut out = String::new();
        out.push_str("# HELP firn_api_requests_total Requests answered, by route and status.\n");
        out.push_str("# TYPE firn_api_requests_total counter\n");
        for (route, s) in routes.iter() {
            for (status, n) in &s.by_status {
                let _ = writeln!(
                    out,
                    "firn_api_requests_total{{route=\"{route}\",status=\"{status}\"}} {n}"
                );
            }
        }
        out.push_str("# HELP firn_api_errors_total Requests answered with a 4xx or 5xx status.\n");
        out.push_str("# TYPE firn_api_errors_total counter\n");
        for (route, s) in routes.iter() {
            for (status, n) in s.by_status.iter().filter(|(st, _)| **st >= 400) {
                let _ = writeln!(
                    out,
                    "firn_api_errors_total{{route=\"{route}\",status=\"{status}\"}} {n}"
                );
            }
        }
        out.push_str("# HELP firn_api_request_duration_seconds Request latency, by route.\n");
        out.push_str("# TYPE firn_api_request_duration_seconds histogram\n");
        for (route, s) in routes.iter() {
            for (bound, n) in BUCKETS.iter().zip(s.buckets) {
                let _ = writeln!(
                    out,
                    "firn_api_request_duration_seconds_bucket{{route=\"{route}\",le=\"{bound}\"}} {n}"
                );
            }
            let _ = writeln!(
                out,
                "firn_api_request_duration_seconds_bucket{{route=\"{route}\",le=\"+Inf\"}} {}",
                s.count
            );
            let _ = writeln!(
                out,
                "firn_api_request_duration_seconds_sum{{route=\"{route}\"}} {}",
                s.sum
            );
            let _ = writeln!(
                out,
                "firn_api_request_duration_seconds_count{{route=\"{route}\"}} {}",
                s.count
            );
        }
        out
    }
}

/// Middleware: times every request and records it under its route pattern (`unmatched` for
/// paths no route serves, so scanners cannot grow the label set).
pub async fn track(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map(|p| p.as_str().to_owned())
        .unwrap_or_else(|| "unmatched".to_owned());
    let started = Instant::now();
    let response = next.run(request).await;
    state
        .metrics
        .record(&route, response.status().as_u16(), started.elapsed());
    response
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// `GET /metrics`: the request metrics plus the indexer's height and lag per chain.
pub async fn serve_metrics(State(state): State<AppState>) -> ApiResult<Response> {
    let mut out = state.metrics.render();
    out.push_str("# HELP firn_indexer_height Last block the store holds, by chain.\n");
    out.push_str("# TYPE firn_indexer_height gauge\n");
    let mut lags = Vec::new();
    let now = now_secs();
    if let Some(h) = state.store.find_cursor(ChainKey::PChain).await? {
        let _ = writeln!(out, "firn_indexer_height{{chain=\"p-chain\"}} {h}");
        if let Some(b) = state.store.find_pchain_block(h).await? {
            lags.push(("p-chain".to_owned(), now.saturating_sub(b.block.timestamp)));
        }
    }
    for chain in state.store.list_evm_chains().await? {
        let key = ChainKey::Evm(chain.chain_id);
        if let Some(h) = state.store.find_cursor(key).await? {
            let _ = writeln!(out, "firn_indexer_height{{chain=\"{key}\"}} {h}");
            if let Some(b) = state.store.find_evm_block(chain.chain_id, h).await? {
                lags.push((key.to_string(), now.saturating_sub(b.block.timestamp)));
            }
        }
    }
    out.push_str(
        "# HELP firn_indexer_lag_seconds Wall-clock time minus the time of the last stored block.\n",
    );
    out.push_str("# TYPE firn_indexer_lag_seconds gauge\n");
    for (chain, lag) in lags {
        let _ = writeln!(out, "firn_indexer_lag_seconds{{chain=\"{chain}\"}} {lag}");
    }
    Ok((
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        out,
    )
        .into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_counters_and_histograms() {
        let m = ServiceMetrics::default();
        m.record("/v1/chains", 200, Duration::from_millis(2));
        m.record("/v1/chains", 400, Duration::from_millis(20));
        let text = m.render();
        assert!(text.contains("firn_api_requests_total{route=\"/v1/chains\",status=\"200\"} 1"));
        assert!(text.contains("firn_api_errors_total{route=\"/v1/chains\",status=\"400\"} 1"));
        assert!(text.contains(
            "firn_api_request_duration_seconds_bucket{route=\"/v1/chains\",le=\"0.005\"} 1"
        ));
        assert!(text.contains("firn_api_request_duration_seconds_count{route=\"/v1/chains\"} 2"));
    }
}
