//! The Data API's recording layer: one [`RequestLog`] per request, handed to the process's
//! [`firn_http::usage::UsageRecorder`] after the response is made (never waiting on it).

use std::time::Instant;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use firn_http::usage::{RequestKind, RequestLog, cap};

use crate::state::AppState;
use crate::webhooks::routes::owner;

/// Longest chain ID kept from a path.
const MAX_CHAIN_ID: usize = 64;

/// Middleware: logs the request (API key digest, path, chain, status, duration, client) when
/// the server records usage; passes it through untouched otherwise.
pub(crate) async fn record(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let Some(recorder) = state.usage.clone() else {
        return next.run(request).await;
    };
    let mut log = RequestLog::of_request(RequestKind::Data, &request);
    log.api_key_id = owner(request.headers());
    log.chain_id = chain_of(request.uri().path());
    let started = Instant::now();
    let response = next.run(request).await;
    let log = log.answered(response.status().as_u16(), started);
    recorder.record(log);
    response
}

/// The `{chainId}` of a `/v1/chains/{chainId}/…` path; empty for other paths.
fn chain_of(path: &str) -> String {
    path.strip_prefix("/v1/chains/")
        .and_then(|rest| rest.split('/').next())
        .map(|id| cap(id, MAX_CHAIN_ID))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chain_ids_come_from_chain_paths_only() {
        assert_eq!(chain_of("/v1/chains/43113/blocks"), "43113");
        assert_eq!(chain_of("/v1/chains/43113"), "43113");
        assert_eq!(chain_of("/v1/chains"), "");
        assert_eq!(chain_of("/v1/networks/fuji/blockchains"), "");
    }
}
