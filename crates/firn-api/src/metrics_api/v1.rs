//! `GET /v1/avg_tps/{chainId}`: the legacy average-TPS series — daily points, newest first,
//! each the day's transactions ÷ the time from the previous day's last block to the day's last
//! block (`total`, `mainnet` and `testnet` add up the chains'). Paged by UUID `pageToken`s, or
//! by the legacy `startKey` (the day to start from, answered with `nextPageStartKey`).

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};

use super::metric::Metric;
use super::series::{self, Bounds, SeriesQuery};
use super::wire::{AvgTpsResponse, MetricsValue};
use super::{MetricsState, chain_scope, page_size, query_key};
use crate::error::ApiResult;
use crate::params::{PathParams, Query};
use firn_store::rows::metrics::Granularity;

pub(super) fn router() -> Router<MetricsState> {
    Router::new().route("/v1/avg_tps/{chainId}", get(avg_tps))
}

async fn avg_tps(
    State(state): State<MetricsState>,
    path: PathParams,
    mut q: Query,
) -> ApiResult<Json<AvgTpsResponse>> {
    let scope = chain_scope(&state, path.get("chainId")).await?;
    let size = page_size(&mut q);
    let start_key = q.timestamp("startKey");
    let token = q.string("pageToken");
    if start_key.is_some() && token.is_some() {
        q.error("send either pageToken or startKey, not both");
    }
    q.finish()?;
    let key = query_key(&format!("/v1/avg_tps/{}", scope.name), &q);
    let after = match (&token, start_key) {
        (Some(t), _) => Some(state.tokens.redeem(&key, t)?),
        // The page starting at the day holding `startKey`: as if the previous page ended the
        // day after.
        (None, Some(k)) => Some(Granularity::Day.next(Granularity::Day.start_of(k))),
        (None, None) => None,
    };
    let page = series::page(
        &state.app.store,
        &SeriesQuery {
            chains: &scope.chains,
            metric: Metric::AvgTps,
            bounds: Bounds {
                interval: Granularity::Day,
                start_ts: None,
                end_ts: None,
                after,
                size,
            },
        },
    )
    .await?;
    let (next_page_token, next_page_start_key) = match (page.next, start_key) {
        (Some(last), Some(_)) => (None, Granularity::Day.prev(last).map(|d| d.to_string())),
        (Some(last), None) => (Some(state.tokens.issue(&key, last)), None),
        (None, _) => (None, None),
    };
    Ok(Json(AvgTpsResponse {
        results: MetricsValue::list(&page.points),
        status: 200,
        last_run: page.last_block_ts.unwrap_or_else(|| state.clock.now()),
        next_page_token,
        next_page_start_key,
    }))
}
