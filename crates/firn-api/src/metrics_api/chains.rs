//! v2 chain routes: `GET /v2/chains`, `GET /v2/chains/{chainId}` and the series
//! `GET /v2/chains/{chainId}/metrics/{metric}` (of one chain, or network-wide for `total`,
//! `mainnet` and `testnet`).

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use firn_store::EvmReader;

use super::metric::Metric;
use super::series::{self, Bounds, SeriesQuery};
use super::wire::{Chain, ListChainsResponse, MetricsApiResponse, MetricsValue};
use super::{MetricsState, chain_scope, known_chain, query_key};
use crate::error::{ApiError, ApiResult};
use crate::params::{PathParams, Query};

pub(super) fn router() -> Router<MetricsState> {
    Router::new()
        .route("/v2/chains", get(list_chains))
        .route("/v2/chains/{chainId}", get(get_chain))
        .route("/v2/chains/{chainId}/metrics/{metric}", get(chain_metrics))
}

/// The networks `network` and `{network}` accept.
pub(super) const NETWORKS: [&str; 3] = ["mainnet", "fuji", "testnet"];

async fn list_chains(
    State(state): State<MetricsState>,
    mut q: Query,
) -> ApiResult<Json<ListChainsResponse>> {
    let network = q.one_of("network", &NETWORKS);
    if q.str("pageToken").is_some() {
        // Every chain fits the first page, so no token was ever issued for this list.
        q.error("pageToken is unknown: this list has a single page");
    }
    q.finish()?;
    let chains = state.app.store.list_evm_chains().await?;
    let chains = chains
        .iter()
        .filter(|c| match network {
            Some("mainnet") => !c.is_testnet,
            Some(_) => c.is_testnet,
            None => true,
        })
        .map(Chain::from)
        .collect();
    Ok(Json(ListChainsResponse {
        next_page_token: None,
        chains,
    }))
}

async fn get_chain(State(state): State<MetricsState>, path: PathParams) -> ApiResult<Json<Chain>> {
    let chain = known_chain(&state, path.get("chainId")).await?;
    Ok(Json(Chain::from(&chain)))
}

/// Parses `{metric}` of the chain routes: 400 listing the valid names otherwise.
pub(super) fn metric_param(raw: &str, allowed: &[&str]) -> ApiResult<Metric> {
    Metric::from_name(raw)
        .filter(|_| allowed.contains(&raw))
        .ok_or_else(|| {
            ApiError::bad(format!(
                "metric must be one of the following values: {}",
                allowed.join(", ")
            ))
        })
}

async fn chain_metrics(
    State(state): State<MetricsState>,
    path: PathParams,
    mut q: Query,
) -> ApiResult<Json<MetricsApiResponse>> {
    let metric_name = path.get("metric");
    let metric = metric_param(metric_name, &Metric::names())?;
    let (bounds, token) = Bounds::parse(&mut q);
    q.finish()?;
    let scope = chain_scope(&state, path.get("chainId")).await?;
    let key = query_key(
        &format!("/v2/chains/{}/metrics/{metric_name}", scope.name),
        &q,
    );
    let page = series::page(
        &state.app.store,
        &SeriesQuery {
            chains: &scope.chains,
            metric,
            bounds: bounds.continue_after(&state, &key, token.as_deref())?,
        },
    )
    .await?;
    Ok(Json(MetricsApiResponse {
        next_page_token: page.next.map(|last| state.tokens.issue(&key, last)),
        results: MetricsValue::list(&page.points),
    }))
}
