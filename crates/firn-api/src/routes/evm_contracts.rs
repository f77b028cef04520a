//! EVM contracts: what the index knows of one (token kind, name, deployment), the contracts an
//! address deployed, and a token contract's transfers.

use axum::extract::State;
use axum::http::Uri;
use axum::routing::get;
use axum::{Json, Router};
use firn_store::EvmReader;
use firn_store::page::{DeploymentCursor, EventCursor};

use super::evm::{address_filter, address_param, chain};
use crate::error::{ApiError, ApiResult};
use crate::params::{PathParams, Query};
use crate::state::AppState;
use crate::wire::evm::{AnyTransfer, Contract, ListContractsResponse, ListTransfersResponse};

pub(crate) fn router() -> Router<AppState> {
    Router::new()
        .route(
            "/v1/chains/{chainId}/addresses/{address}",
            get(get_contract),
        )
        .route(
            "/v1/chains/{chainId}/contracts/{address}/deployments",
            get(list_deployments),
        )
        .route(
            "/v1/chains/{chainId}/tokens/{address}/transfers",
            get(list_token_transfers),
        )
}

/// `GET /v1/chains/{chainId}/addresses/{address}`
#[utoipa::path(get, path = "/v1/chains/{chainId}/addresses/{address}",
    operation_id = "getContractMetadata", tag = "EVM Contracts",
    summary = "Get contract metadata",
    description = "Gets what the index knows of the contract at the address: ERC-20, ERC-721, ERC-1155 or unknown, its name and symbol, and how it was deployed.",
    params(("chainId" = String, Path), ("address" = String, Path, description = "Contract address")),
    responses((status = 200, description = "The contract", body = Contract),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody),
              (status = 404, description = "No contract known at the address", body = crate::error::ErrorBody)))]
pub async fn get_contract(
    State(state): State<AppState>,
    path: PathParams,
    mut q: Query,
) -> ApiResult<Json<Contract>> {
    let address = address_param(&path, &mut q, "address");
    q.finish()?;
    let c = chain(&state, path.get("chainId")).await?;
    let address = address.ok_or_else(|| ApiError::bad("address is invalid"))?;
    if let Some(found) = state.store.find_contract(c.chain_id, address).await? {
        return Ok(Json(Contract::from(&found)));
    }
    // A token seen in transfers whose deployment the index never saw.
    let token = state.store.find_token(c.chain_id, address).await?;
    token
        .map(|t| Json(Contract::new(&address, None, Some(&t))))
        .ok_or_else(|| {
            ApiError::not_found(format!(
                "no contract known at {address:#x} on chain {}",
                c.chain_id
            ))
        })
}

/// `GET /v1/chains/{chainId}/contracts/{address}/deployments`
#[utoipa::path(get, path = "/v1/chains/{chainId}/contracts/{address}/deployments",
    operation_id = "listContractDeployments", tag = "EVM Transactions",
    summary = "List deployed contracts",
    description = "Lists the contracts the address deployed, newest first: by a creation transaction it sent, or as a factory (CREATE/CREATE2).",
    params(("chainId" = String, Path), ("address" = String, Path, description = "Deployer address"),
           ("pageToken" = Option<String>, Query), ("pageSize" = Option<u32>, Query, minimum = 1, maximum = 100)),
    responses((status = 200, description = "A page of contracts", body = ListContractsResponse),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody),
              (status = 404, description = "Not indexed", body = crate::error::ErrorBody)))]
pub async fn list_deployments(
    State(state): State<AppState>,
    uri: Uri,
    path: PathParams,
    mut q: Query,
) -> ApiResult<Json<ListContractsResponse>> {
    let address = address_param(&path, &mut q, "address");
    let paging = q.paging::<DeploymentCursor>(uri.path(), &state.config.page_token_key, 10, 100);
    q.finish()?;
    let c = chain(&state, path.get("chainId")).await?;
    let address = address.ok_or_else(|| ApiError::bad("address is invalid"))?;
    let page = state
        .store
        .list_contracts(c.chain_id, address, &paging.request)
        .await?;
    Ok(Json(ListContractsResponse {
        next_page_token: paging.binding.next(page.next.as_ref()),
        contracts: page.items.iter().map(Contract::from).collect(),
    }))
}

/// `GET /v1/chains/{chainId}/tokens/{address}/transfers`
#[utoipa::path(get, path = "/v1/chains/{chainId}/tokens/{address}/transfers",
    operation_id = "listTransfers", tag = "EVM Transactions",
    summary = "List ERC transfers",
    description = "Lists the transfers of an ERC-20, ERC-721 or ERC-1155 token contract, newest first. Filterable by block range.",
    params(("chainId" = String, Path), ("address" = String, Path, description = "Token contract address"),
           ("startBlock" = Option<u64>, Query, description = "First block, inclusive", minimum = 0),
           ("endBlock" = Option<u64>, Query, description = "Last block, exclusive", minimum = 0),
           ("pageToken" = Option<String>, Query), ("pageSize" = Option<u32>, Query, minimum = 1, maximum = 100)),
    responses((status = 200, description = "A page of transfers", body = ListTransfersResponse),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody),
              (status = 404, description = "Not indexed", body = crate::error::ErrorBody)))]
pub async fn list_token_transfers(
    State(state): State<AppState>,
    uri: Uri,
    path: PathParams,
    q: Query,
) -> ApiResult<Json<ListTransfersResponse>> {
    let (filter, paging) = address_filter::<EventCursor>(&state, &uri, &path, q).await?;
    let page = state
        .store
        .list_token_transfers(&filter, &paging.request)
        .await?;
    let extras = super::erc20_extras(&state, filter.chain_id, "usd");
    let response = ListTransfersResponse {
        next_page_token: paging.binding.next(page.next.as_ref()),
        transfers: page
            .items
            .iter()
            .map(|t| AnyTransfer::new(t, &extras))
            .collect(),
    };
    super::named(&state, filter.chain_id, response).await
}
