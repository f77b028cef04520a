//! Service metrics in Prometheus' text format at `/metrics`: requests and errors per route and
//! status, latency histograms per route ([`firn_http::metrics`]), and the indexer's position
//! and lag per chain (read from the store's cursors at scrape time).

use std::fmt::Write as _;

use axum::extract::{Request, State};
use axum::http::header;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use firn_store::rows::ChainKey;
use firn_store::{CursorStore, EvmReader, PChainReader};

use crate::error::ApiResult;
use crate::state::AppState;

/// Middleware: times every request and records it under its route pattern (`unmatched` for
/// paths no route serves, so scanners cannot grow the label set).
pub async fn track(State(state): State<AppState>, request: Request, next: Next) -> Response {
    firn_http::metrics::track(State(state.metrics.clone()), request, next).await
}

/// `GET /metrics`: the request metrics plus the indexer's height and lag per chain.
pub async fn serve_metrics(State(state): State<AppState>) -> ApiResult<Response> {
    let mut out = state.metrics.render();
    out.push_str("# HELP firn_indexer_height Last block the store holds, by chain.\n");
    out.push_str("# TYPE firn_indexer_height gauge\n");
    let mut lags = Vec::new();
    let now = crate::metrics_api::clock::unix_secs();
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
        [(header::CONTENT_TYPE, firn_http::metrics::CONTENT_TYPE)],
        out,
    )
        .into_response())
}
