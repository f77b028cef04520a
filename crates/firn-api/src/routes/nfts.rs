//! NFT collections: the tokens of one (every ID the index has seen minted) and one token, with
//! the metadata the indexer has read for it.

use axum::extract::State;
use axum::http::Uri;
use axum::routing::get;
use axum::{Json, Router};
use firn_store::EvmReader;
use firn_store::page::CollectibleCursor;
use firn_store::rows::evm::{EvmChainRecord, Token, TokenStandard};
use firn_store::types::{Address, ParseText, U256};

use super::evm::{address_param, chain};
use crate::error::{ApiError, ApiResult};
use crate::params::{PathParams, Query};
use crate::state::AppState;
use crate::wire::evm::{ListNftTokens, NftToken};

pub(crate) fn router() -> Router<AppState> {
    Router::new()
        .route(
            "/v1/chains/{chainId}/nfts/collections/{address}/tokens",
            get(list_tokens),
        )
        .route(
            "/v1/chains/{chainId}/nfts/collections/{address}/tokens/{tokenId}",
            get(get_token),
        )
}

/// The collection at `address` on `c`: 404 unless the index knows it as ERC-721 or ERC-1155.
async fn collection(state: &AppState, c: &EvmChainRecord, address: Address) -> ApiResult<Token> {
    state
        .store
        .find_token(c.chain_id, address)
        .await?
        .filter(|t| t.standard != TokenStandard::Erc20)
        .ok_or_else(|| {
            ApiError::not_found(format!(
                "{address:#x} is not an NFT collection indexed on chain {}",
                c.chain_id
            ))
        })
}

/// `GET /v1/chains/{chainId}/nfts/collections/{address}/tokens`
#[utoipa::path(get, path = "/v1/chains/{chainId}/nfts/collections/{address}/tokens",
    operation_id = "listTokens", tag = "NFTs",
    summary = "List tokens", description = "Lists the tokens of an ERC-721 or ERC-1155 contract the index has seen minted, by token ID, with their metadata.",
    params(("chainId" = String, Path), ("address" = String, Path, description = "Collection address"),
           ("pageToken" = Option<String>, Query), ("pageSize" = Option<u32>, Query, minimum = 1, maximum = 100)),
    responses((status = 200, description = "A page of tokens", body = ListNftTokens),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody),
              (status = 404, description = "Not an indexed NFT collection", body = crate::error::ErrorBody)))]
pub async fn list_tokens(
    State(state): State<AppState>,
    uri: Uri,
    path: PathParams,
    mut q: Query,
) -> ApiResult<Json<ListNftTokens>> {
    let address = address_param(&path, &mut q, "address");
    let paging = q.paging::<CollectibleCursor>(uri.path(), &state.config.page_token_key, 10, 100);
    q.finish()?;
    let c = chain(&state, path.get("chainId")).await?;
    let address = address.ok_or_else(|| ApiError::bad("address is invalid"))?;
    let token = collection(&state, &c, address).await?;
    let page = state
        .store
        .list_nft_tokens(c.chain_id, address, &paging.request)
        .await?;
    Ok(Json(ListNftTokens {
        next_page_token: paging.binding.next(page.next.as_ref()),
        tokens: page
            .items
            .iter()
            .filter_map(|m| NftToken::of(&token, m))
            .collect(),
    }))
}

/// `GET /v1/chains/{chainId}/nfts/collections/{address}/tokens/{tokenId}`
#[utoipa::path(get, path = "/v1/chains/{chainId}/nfts/collections/{address}/tokens/{tokenId}",
    operation_id = "getTokenDetails", tag = "NFTs",
    summary = "Get token details", description = "Gets one token of an NFT contract with its metadata.",
    params(("chainId" = String, Path), ("address" = String, Path, description = "Collection address"),
           ("tokenId" = String, Path, description = "Token ID, decimal")),
    responses((status = 200, description = "The token", body = NftToken),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody),
              (status = 404, description = "Unknown collection or token", body = crate::error::ErrorBody)))]
pub async fn get_token(
    State(state): State<AppState>,
    path: PathParams,
    mut q: Query,
) -> ApiResult<Json<NftToken>> {
    let address = address_param(&path, &mut q, "address");
    let raw = path.get("tokenId");
    let token_id = U256::parse_text(raw).ok();
    if token_id.is_none() {
        q.error("tokenId must be a token ID (a decimal number below 2^256)");
    }
    q.finish()?;
    let c = chain(&state, path.get("chainId")).await?;
    let (address, token_id) = address
        .zip(token_id)
        .ok_or_else(|| ApiError::bad("address or tokenId is invalid"))?;
    let token = collection(&state, &c, address).await?;
    let not_found = || ApiError::not_found(format!("token {raw} of {address:#x} not found"));
    let m = state
        .store
        .find_nft_metadata(c.chain_id, address, token_id)
        .await?
        .ok_or_else(not_found)?;
    NftToken::of(&token, &m).map(Json).ok_or_else(not_found)
}
