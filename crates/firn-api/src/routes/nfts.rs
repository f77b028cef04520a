//! NFT collections: the tokens of one (every ID the index has seen minted) and one token, with
//! the metadata the indexer has read for it; and a client's request to read a token's metadata
//! again, the API's one write (it queues, the indexer's metadata worker reads).

use axum::extract::State;
use axum::http::StatusCode;
use axum::http::Uri;
use axum::routing::get;
use axum::{Json, Router};
use firn_store::page::CollectibleCursor;
use firn_store::rows::evm::{EvmChainRecord, ReindexRequest, Token, TokenStandard};
use firn_store::types::{Address, ParseText, U256};
use firn_store::{EvmReader, EvmWriter};

use super::evm::{address_param, chain};
use crate::error::{ApiError, ApiResult};
use crate::metrics_api::{Clock, SystemClock};
use crate::params::{PathParams, Query};
use crate::state::AppState;
use crate::wire::evm::{ListNftTokens, NftToken};

pub(crate) fn router() -> Router<AppState> {
    Router::new()
        .route(
            "/v1/chains/{chainId}/nfts/collections/{address}/tokens",
            get(list_tokens),
        )
        // `…/tokens/{tokenId}:reindex` is this route's POST: a path segment holds one
        // parameter, so the action comes with the token ID and the handler splits it off.
        .route(
            "/v1/chains/{chainId}/nfts/collections/{address}/tokens/{tokenId}",
            get(get_token).post(reindex_nft),
        )
}

/// The chain, collection address and token ID a token's path names (`raw_id` is its
/// `tokenId` segment), with the query checked: 400 on a bad address or ID, 404 on an
/// unindexed chain.
async fn token_in(
    state: &AppState,
    path: &PathParams,
    mut q: Query,
    raw_id: &str,
) -> ApiResult<(EvmChainRecord, Address, U256)> {
    let address = address_param(path, &mut q, "address");
    let token_id = U256::parse_text(raw_id).ok();
    if token_id.is_none() {
        q.error("tokenId must be a token ID (a decimal number below 2^256)");
    }
    q.finish()?;
    let c = chain(state, path.get("chainId")).await?;
    let (address, token_id) = address
        .zip(token_id)
        .ok_or_else(|| ApiError::bad("address or tokenId is invalid"))?;
    Ok((c, address, token_id))
}

/// `POST /v1/chains/{chainId}/nfts/collections/{address}/tokens/{tokenId}:reindex`
#[utoipa::path(post, path = "/v1/chains/{chainId}/nfts/collections/{address}/tokens/{tokenId}:reindex",
    operation_id = "reindexNft", tag = "NFTs",
    summary = "Reindex NFT metadata",
    description = "Queues one token's metadata to be read again (its token URI, then the document) by the indexer's metadata worker. Once per hour per token; sooner gets a 429 with Retry-After.",
    params(("chainId" = String, Path), ("address" = String, Path, description = "Collection address"),
           ("tokenId" = String, Path, description = "Token ID, decimal")),
    responses((status = 201, description = "Queued"),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody),
              (status = 404, description = "Unknown chain or token", body = crate::error::ErrorBody),
              (status = 429, description = "Asked within the hour", body = crate::error::ErrorBody)))]
pub async fn reindex_nft(
    State(state): State<AppState>,
    path: PathParams,
    q: Query,
) -> ApiResult<StatusCode> {
    let Some(raw) = path.get("tokenId").strip_suffix(":reindex") else {
        return Err(ApiError::not_found(
            "POST on a token takes the :reindex action (…/tokens/{tokenId}:reindex)",
        ));
    };
    let (c, address, token_id) = token_in(&state, &path, q, raw).await?;
    match state
        .store
        .request_nft_reindex(c.chain_id, address, token_id, SystemClock.now())
        .await?
    {
        ReindexRequest::Queued => Ok(StatusCode::CREATED),
        ReindexRequest::TooSoon { retry_after } => Err(ApiError::TooManyRequests {
            retry_after,
            reason: Some(format!(
                "token {token_id} of {address:#x} was queued for reindexing less than an hour \
                 ago; ask again in {retry_after} s"
            )),
        }),
        ReindexRequest::Unknown => Err(ApiError::not_found(format!(
            "token {token_id} of {address:#x} has not been minted on chain {}",
            c.chain_id
        ))),
    }
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
    q: Query,
) -> ApiResult<Json<NftToken>> {
    let raw = path.get("tokenId");
    let (c, address, token_id) = token_in(&state, &path, q, raw).await?;
    let token = collection(&state, &c, address).await?;
    let not_found = || ApiError::not_found(format!("token {raw} of {address:#x} not found"));
    let m = state
        .store
        .find_nft_metadata(c.chain_id, address, token_id)
        .await?
        .ok_or_else(not_found)?;
    NftToken::of(&token, &m).map(Json).ok_or_else(not_found)
}
