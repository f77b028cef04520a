//! One module per resource group, each with a `router()` of its routes; [`router`] merges them.
//! A new group (e.g. `/v1/signatureAggregator/...`) adds a module and one `.merge` line here,
//! and its `#[utoipa::path]` handlers to [`crate::openapi::ApiDoc`].

use axum::Router;
use axum::routing::get;

use crate::state::AppState;

pub mod evm;
pub mod evm_address;
pub mod evm_balances;
pub mod evm_contracts;
pub mod evm_latest;
pub mod evm_txs;
pub mod health;
mod network;
pub mod nfts;
pub mod primary;
pub mod signature_aggregator;
pub mod staking;
mod unsupported;

/// Every route of the Data API, plus `/metrics`, `/api-json` and `/api`.
pub fn router() -> Router<AppState> {
    Router::new()
        .merge(health::router())
        .merge(primary::router())
        .merge(staking::router())
        .merge(evm::router())
        .merge(evm_txs::router())
        .merge(evm_address::router())
        .merge(evm_balances::router())
        .merge(evm_contracts::router())
        .merge(evm_latest::router())
        .merge(nfts::router())
        .merge(signature_aggregator::router())
        .merge(unsupported::router())
        .merge(crate::openapi::router())
        .route("/metrics", get(crate::metrics::serve_metrics))
}
