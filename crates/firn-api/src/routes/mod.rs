//! One module per resource group, each with a `router()` of its routes; [`router`] merges them.
//! A new group (e.g. `/v1/signatureAggregator/...`) adds a module and one `.merge` line here,
//! and its `#[utoipa::path]` handlers to [`crate::openapi::ApiDoc`].

use axum::http::{HeaderMap, header};
use axum::routing::get;
use axum::{Json, Router};
use firn_store::EvmReader;
use firn_store::types::Address;

use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use crate::wire::evm::RichAddresses;
use crate::wire::{TokenExtras, money};

pub(crate) mod cchain;
pub mod evm;
pub mod evm_address;
pub mod evm_balances;
pub mod evm_contracts;
pub mod evm_latest;
pub mod evm_txs;
pub mod health;
pub mod icm;
pub mod l1_validators;
pub(crate) mod network;
pub mod nfts;
pub mod primary;
pub mod primary_lookups;
pub mod signature_aggregator;
pub mod staking;
pub mod subnets;
pub mod supply;
pub mod utxos;
pub mod validators;
pub mod xchain;

/// Every route of the Data API, plus `/metrics`, `/api-json` and `/api`. The routes that read
/// nothing but the store answer through the response cache ([`crate::cache`]).
pub fn router(state: &AppState) -> Router<AppState> {
    let store_only = Router::new()
        .merge(primary::router())
        .merge(primary_lookups::router())
        .merge(subnets::router())
        .merge(staking::router())
        .merge(supply::router())
        .merge(validators::router())
        .merge(utxos::router())
        .merge(xchain::router())
        .merge(l1_validators::router())
        .merge(evm::router())
        .merge(evm_txs::router())
        .merge(evm_address::router())
        .merge(evm_contracts::router())
        .merge(evm_latest::router())
        .merge(nfts::router())
        .merge(icm::router())
        .route_layer(axum::middleware::from_fn_with_state(
            state.clone(),
            crate::cache::cached,
        ));
    Router::new()
        .merge(store_only)
        .merge(health::router())
        .merge(evm_balances::router())
        .merge(signature_aggregator::router())
        .merge(crate::webhooks::routes::router())
        .merge(crate::operations::routes::router())
        .merge(crate::usage::router())
        .merge(crate::openapi::router())
        .route("/metrics", get(crate::metrics::serve_metrics))
}

/// `response` with the token contracts among its senders and recipients named.
pub(crate) async fn named<R: RichAddresses>(
    state: &AppState,
    chain_id: u64,
    mut response: R,
) -> ApiResult<Json<R>> {
    name_addresses(state, chain_id, &mut response).await?;
    Ok(Json(response))
}

/// Names the token contracts among `response`'s senders and recipients (their name, symbol
/// and decimals, read from the store in one query per 512 addresses, and their logo from the
/// token list).
pub(crate) async fn name_addresses<R: RichAddresses>(
    state: &AppState,
    chain_id: u64,
    response: &mut R,
) -> ApiResult<()> {
    let addresses = response.raw_addresses();
    let mut tokens = Vec::new();
    for chunk in addresses.chunks(firn_store::MAX_TOKEN_LOOKUP) {
        tokens.extend(state.store.find_tokens(chain_id, chunk).await?);
    }
    response.name_with(&tokens);
    response.add_logos(&state.config.token_logos, chain_id);
    Ok(())
}

/// The operator's price (in `currency`) and logo of each ERC-20 token of chain `chain_id`.
pub(crate) fn erc20_extras<'a>(
    state: &'a AppState,
    chain_id: u64,
    currency: &'a str,
) -> impl Fn(&Address) -> TokenExtras + 'a {
    move |token| TokenExtras {
        price: money(&state.config.prices, currency, &format!("{token:#x}")),
        logo_uri: state.config.token_logos.logo(chain_id, token),
    }
}

/// Refuses a body that is not declared JSON: a browser sends a cross-site form post without
/// asking first, but never one of type `application/json`.
pub(crate) fn require_json(headers: &HeaderMap) -> Result<(), ApiError> {
    let declared = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(str::trim);
    match declared {
        Some(t) if t.eq_ignore_ascii_case("application/json") => Ok(()),
        _ => Err(ApiError::UnsupportedMediaType(
            "the request body must be JSON, sent with Content-Type: application/json".to_owned(),
        )),
    }
}
