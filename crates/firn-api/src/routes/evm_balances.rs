//! Balances of an EVM address: its native token, read from the node the chain's indexer
//! follows (the index holds no native balances), now or at a past block.

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};

use super::evm::{address_param, chain};
use crate::error::{ApiError, ApiResult};
use crate::params::{PathParams, Query};
use crate::state::AppState;
use crate::wire::evm::{GetNativeBalanceResponse, NativeTokenBalance};
use crate::wire::{CURRENCIES, money};

pub(crate) fn router() -> Router<AppState> {
    Router::new().route(
        "/v1/chains/{chainId}/addresses/{address}/balances:getNative",
        get(get_native_balance),
    )
}

/// `GET /v1/chains/{chainId}/addresses/{address}/balances:getNative`
#[utoipa::path(get, path = "/v1/chains/{chainId}/addresses/{address}/balances:getNative",
    operation_id = "getNativeBalance", tag = "EVM Balances",
    summary = "Get native token balance",
    description = "Gets the native token balance of an address, from the node the chain's indexer follows; at a past block with `blockNumber`.",
    params(("chainId" = String, Path), ("address" = String, Path, description = "Wallet address"),
           ("blockNumber" = Option<String>, Query, description = "The block to read the balance at (default: the node's latest)"),
           ("currency" = Option<String>, Query, description = "Currency of prices (default usd)")),
    responses((status = 200, description = "The balance", body = GetNativeBalanceResponse),
              (status = 400, description = "Bad parameters, or a block the node cannot answer at", body = crate::error::ErrorBody),
              (status = 404, description = "Not indexed", body = crate::error::ErrorBody),
              (status = 503, description = "The chain's node did not answer", body = crate::error::ErrorBody)))]
pub async fn get_native_balance(
    State(state): State<AppState>,
    path: PathParams,
    mut q: Query,
) -> ApiResult<Json<GetNativeBalanceResponse>> {
    let address = address_param(&path, &mut q, "address");
    let block = q.u64_in("blockNumber", 0, i64::MAX as u64);
    let currency = q.one_of("currency", &CURRENCIES).unwrap_or("usd");
    q.finish()?;
    let c = chain(&state, path.get("chainId")).await?;
    let address = address.ok_or_else(|| ApiError::bad("address is invalid"))?;
    let balance = state.nodes.native_balance(&c, address, block).await?;
    let price = money(&state.config.prices, currency, &c.token_symbol);
    Ok(Json(GetNativeBalanceResponse {
        native_token_balance: NativeTokenBalance::new(&c, balance, price),
    }))
}
