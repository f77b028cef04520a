//! Request metrics in Prometheus' text format, for every HTTP service firn runs: requests per
//! route pattern and status, errors, and latency histograms. [`track`] records each request
//! under the pattern its router matched (`unmatched` otherwise), so clients cannot grow the
//! label set; [`RouteMetrics::render`] writes them with the service's metric prefix.
//!
//! ```
//! use std::time::Duration;
//!
//! let m = firn_http::metrics::RouteMetrics::new("firn_node");
//! m.record("/ext/bc/P", 200, Duration::from_millis(3));
//! assert!(m.render().contains("firn_node_requests_total{route=\"/ext/bc/P\",status=\"200\"} 1"));
//! ```

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::{MatchedPath, Request, State};
use axum::middleware::Next;
use axum::response::Response;

/// Upper bounds of the latency histogram buckets, seconds.
const BUCKETS: [f64; 12] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0,
];

/// The `Content-Type` of Prometheus' text format.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

#[derive(Debug, Default)]
struct RouteStats {
    by_status: BTreeMap<u16, u64>,
    buckets: [u64; BUCKETS.len()],
    count: u64,
    sum: f64,
}

/// Counters and histograms of served requests, by route pattern.
#[derive(Debug)]
pub struct RouteMetrics {
    prefix: &'static str,
    routes: Mutex<BTreeMap<String, RouteStats>>,
}

impl RouteMetrics {
    /// Empty metrics named `<prefix>_requests_total` and so on.
    pub fn new(prefix: &'static str) -> Self {
        Self {
            prefix,
            routes: Mutex::new(BTreeMap::new()),
        }
    }

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

    /// The metrics in Prometheus' text format.
    pub fn render(&self) -> String {
        let p = self.prefix;
        let routes = self.routes.lock().unwrap_or_else(|e| e.into_inner());
        let mut out = String::new();
        let _ = writeln!(
            out,
            "# HELP {p}_requests_total Requests answered, by route and status."
        );
        let _ = writeln!(out, "# TYPE {p}_requests_total counter");
        for (route, s) in routes.iter() {
            for (status, n) in &s.by_status {
                let _ = writeln!(
                    out,
                    "{p}_requests_total{{route=\"{route}\",status=\"{status}\"}} {n}"
                );
            }
        }
        let _ = writeln!(
            out,
            "# HELP {p}_errors_total Requests answered with a 4xx or 5xx status."
        );
        let _ = writeln!(out, "# TYPE {p}_errors_total counter");
        for (route, s) in routes.iter() {
            for (status, n) in s.by_status.iter().filter(|(st, _)| **st >= 400) {
                let _ = writeln!(
                    out,
                    "{p}_errors_total{{route=\"{route}\",status=\"{status}\"}} {n}"
                );
            }
        }
        let _ = writeln!(
            out,
            "# HELP {p}_request_duration_seconds Request latency, by route."
        );
        let _ = writeln!(out, "# TYPE {p}_request_duration_seconds histogram");
        for (route, s) in routes.iter() {
            for (bound, n) in BUCKETS.iter().zip(s.buckets) {
                let _ = writeln!(
                    out,
                    "{p}_request_duration_seconds_bucket{{route=\"{route}\",le=\"{bound}\"}} {n}"
                );
            }
            let _ = writeln!(
                out,
                "{p}_request_duration_seconds_bucket{{route=\"{route}\",le=\"+Inf\"}} {}",
                s.count
            );
            let _ = writeln!(
                out,
                "{p}_request_duration_seconds_sum{{route=\"{route}\"}} {}",
                s.sum
            );
            let _ = writeln!(
                out,
                "{p}_request_duration_seconds_count{{route=\"{route}\"}} {}",
                s.count
            );
        }
        out
    }
}

/// Middleware (`axum::middleware::from_fn_with_state`): times every request and records it
/// under its route pattern, `unmatched` for paths no route serves.
pub async fn track(
    State(metrics): State<Arc<RouteMetrics>>,
    request: Request,
    next: Next,
) -> Response {
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map(|p| p.as_str().to_owned())
        .unwrap_or_else(|| "unmatched".to_owned());
    let started = Instant::now();
    let response = next.run(request).await;
    metrics.record(&route, response.status().as_u16(), started.elapsed());
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_counters_and_histograms() {
        let m = RouteMetrics::new("firn_api");
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
