//! EVM routes: the chains list, latest blocks, one block, ERC-20, ERC-721 and ERC-1155
//! transfers of an address, and collectible balances. Transactions are in [`super::evm_txs`].

use axum::extract::State;
use axum::http::Uri;
use axum::routing::get;
use axum::{Json, Router};
use firn_core::ids::Id;
use firn_store::page::{CollectibleCursor, EventCursor, HeightCursor};
use firn_store::rows::evm::{ChainRef, EvmBlockRecord, EvmChainRecord, TokenStandard};
use firn_store::types::{Address, B256};
use firn_store::{AddressFilter, EvmReader, PageCursor, TransferFilter};

use super::network::NETWORKS;
use crate::error::{ApiError, ApiResult};
use crate::paging::Paging;
use crate::params::{PathParams, Query, parse_evm_address, parse_hash};
use crate::state::AppState;
use crate::wire::evm::{
    ChainInfo, CollectibleBalance, Erc20Transfer, Erc721Transfer, Erc1155Transfer, EvmBlock,
    ListAddressChainsResponse, ListChainsResponse, ListCollectibleBalancesResponse,
    ListErc20TransactionsResponse, ListErc721TransactionsResponse, ListErc1155TransactionsResponse,
    ListEvmBlocksResponse,
};

pub(crate) fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/chains", get(list_chains))
        .route("/v1/chains/{chainId}", get(get_chain))
        .route("/v1/address/{address}/chains", get(list_address_chains))
        .route("/v1/chains/{chainId}/blocks", get(list_blocks))
        .route("/v1/chains/{chainId}/blocks/{blockId}", get(get_block))
        .route(
            "/v1/chains/{chainId}/addresses/{address}/transactions:listErc20",
            get(list_erc20),
        )
        .route(
            "/v1/chains/{chainId}/addresses/{address}/transactions:listErc721",
            get(list_erc721),
        )
        .route(
            "/v1/chains/{chainId}/addresses/{address}/transactions:listErc1155",
            get(list_erc1155),
        )
        .route(
            "/v1/chains/{chainId}/addresses/{address}/balances:listCollectibles",
            get(list_collectibles),
        )
}

/// Resolves `{chainId}` (EVM chain ID or blockchain ID): 400 when it is neither, 404 when no
/// such chain is indexed.
pub(super) async fn chain(state: &AppState, raw: &str) -> ApiResult<EvmChainRecord> {
    let reference = if let Ok(n) = raw.parse::<u64>() {
        ChainRef::Evm(n)
    } else if let Ok(id) = raw.parse::<Id>() {
        ChainRef::Blockchain(id)
    } else {
        return Err(ApiError::bad(
            "chainId must be an EVM chain ID (e.g. 43113) or a blockchain ID (cb58)",
        ));
    };
    state
        .store
        .find_evm_chain(reference)
        .await?
        .ok_or_else(|| ApiError::not_found(format!("chain {raw} is not indexed by this server")))
}

pub(super) fn address_param(path: &PathParams, q: &mut Query, name: &str) -> Option<Address> {
    let raw = path.get(name);
    let parsed = parse_evm_address(raw);
    if parsed.is_none() {
        q.error(format!(
            "{name} must be an EVM address (0x and 40 hex digits)"
        ));
    }
    parsed
}

/// `GET /v1/chains`
#[utoipa::path(get, path = "/v1/chains", operation_id = "supportedChains", tag = "EVM Chains",
    summary = "List chains", description = "Lists the EVM chains this server indexes.",
    params(("network" = Option<String>, Query, description = "mainnet, fuji or testnet"),
           ("feature" = Option<String>, Query, description = "nftIndexing, webhooks or teleporter")),
    responses((status = 200, description = "The chains", body = ListChainsResponse),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody)))]
pub async fn list_chains(
    State(state): State<AppState>,
    mut q: Query,
) -> ApiResult<Json<ListChainsResponse>> {
    let network = q.one_of("network", &NETWORKS);
    let feature = q.one_of("feature", &["nftIndexing", "webhooks", "teleporter"]);
    q.finish()?;
    let ours = network.is_none_or(|n| state.config.network.accepts(n));
    let served = feature.is_none_or(|f| f == "nftIndexing" || f == "teleporter");
    let chains = if ours && served {
        state.store.list_evm_chains().await?
    } else {
        Vec::new()
    };
    Ok(Json(ListChainsResponse {
        chains: chains.iter().map(ChainInfo::from).collect(),
    }))
}

/// `GET /v1/chains/{chainId}`
#[utoipa::path(get, path = "/v1/chains/{chainId}", operation_id = "getChainInfo", tag = "EVM Chains",
    summary = "Get chain information", description = "Gets chain information for an indexed EVM chain.",
    params(("chainId" = String, Path, description = "EVM chain ID or blockchain ID")),
    responses((status = 200, description = "The chain", body = ChainInfo),
              (status = 404, description = "Not indexed", body = crate::error::ErrorBody)))]
pub async fn get_chain(
    State(state): State<AppState>,
    path: PathParams,
) -> ApiResult<Json<ChainInfo>> {
    let c = chain(&state, path.get("chainId")).await?;
    Ok(Json(ChainInfo::from(&c)))
}

/// `GET /v1/address/{address}/chains`
#[utoipa::path(get, path = "/v1/address/{address}/chains", operation_id = "listAddressChains", tag = "EVM Chains",
    summary = "List all chains associated with a given address",
    description = "Lists the indexed chains on which the address sent or received a transaction, a token transfer or a value-moving internal call.",
    params(("address" = String, Path, description = "EVM address")),
    responses((status = 200, description = "The chains", body = ListAddressChainsResponse),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody)))]
pub async fn list_address_chains(
    State(state): State<AppState>,
    path: PathParams,
    mut q: Query,
) -> ApiResult<Json<ListAddressChainsResponse>> {
    let address = address_param(&path, &mut q, "address");
    q.finish()?;
    let address = address.ok_or_else(|| ApiError::bad("address is invalid"))?;
    let chains = state.store.list_address_evm_chains(address).await?;
    Ok(Json(ListAddressChainsResponse {
        indexed_chains: chains.iter().map(ChainInfo::from).collect(),
        unindexed_chains: Vec::new(),
    }))
}

/// `GET /v1/chains/{chainId}/blocks`
#[utoipa::path(get, path = "/v1/chains/{chainId}/blocks", operation_id = "getLatestBlocks", tag = "EVM Blocks",
    summary = "List latest blocks", description = "Lists the latest indexed blocks on the EVM-compatible chain sorted in descending order by block timestamp.",
    params(("chainId" = String, Path, description = "EVM chain ID or blockchain ID"),
           ("pageToken" = Option<String>, Query), ("pageSize" = Option<u32>, Query, minimum = 1, maximum = 100)),
    responses((status = 200, description = "A page of blocks", body = ListEvmBlocksResponse),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody),
              (status = 404, description = "Not indexed", body = crate::error::ErrorBody)))]
pub async fn list_blocks(
    State(state): State<AppState>,
    uri: Uri,
    path: PathParams,
    mut q: Query,
) -> ApiResult<Json<ListEvmBlocksResponse>> {
    let paging = q.paging::<HeightCursor>(uri.path(), &state.config.page_token_key, 10, 100);
    q.finish()?;
    let c = chain(&state, path.get("chainId")).await?;
    let page = state
        .store
        .list_evm_blocks(c.chain_id, &paging.request)
        .await?;
    Ok(Json(ListEvmBlocksResponse {
        next_page_token: paging.binding.next(page.next.as_ref()),
        blocks: page.items.iter().map(EvmBlock::from).collect(),
    }))
}

/// `GET /v1/chains/{chainId}/blocks/{blockId}`
#[utoipa::path(get, path = "/v1/chains/{chainId}/blocks/{blockId}", operation_id = "getBlock", tag = "EVM Blocks",
    summary = "Get block", description = "Gets the details of an individual block by number or hash.",
    params(("chainId" = String, Path), ("blockId" = String, Path, description = "Block number or 0x block hash")),
    responses((status = 200, description = "The block", body = EvmBlock),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody),
              (status = 404, description = "Unknown block", body = crate::error::ErrorBody)))]
pub async fn get_block(
    State(state): State<AppState>,
    path: PathParams,
) -> ApiResult<Json<EvmBlock>> {
    let raw = path.get("blockId");
    let id = BlockId::parse(raw)?;
    let c = chain(&state, path.get("chainId")).await?;
    let block = id.find(&state, c.chain_id).await?;
    let block = block.ok_or_else(|| ApiError::not_found(format!("block {raw} not found")))?;
    Ok(Json(EvmBlock::from(&block)))
}

/// `{blockId}`: a block number or a `0x` block hash.
pub(super) enum BlockId {
    Number(u64),
    Hash(B256),
}

impl BlockId {
    pub(super) fn parse(raw: &str) -> ApiResult<Self> {
        if let Ok(n) = raw.parse::<u64>() {
            Ok(Self::Number(n))
        } else if let Some(h) = parse_hash(raw) {
            Ok(Self::Hash(h))
        } else {
            Err(ApiError::bad(
                "blockId must be a block number or a block hash (0x and 64 hex digits)",
            ))
        }
    }

    pub(super) async fn find(
        &self,
        state: &AppState,
        chain_id: u64,
    ) -> ApiResult<Option<EvmBlockRecord>> {
        Ok(match *self {
            Self::Number(n) if n <= i64::MAX as u64 => {
                state.store.find_evm_block(chain_id, n).await?
            }
            Self::Number(_) => None,
            Self::Hash(h) => state.store.find_evm_block_by_hash(chain_id, h).await?,
        })
    }
}

/// `startBlock` (inclusive) and `endBlock` (exclusive).
fn block_range(q: &mut Query) -> (Option<u64>, Option<u64>) {
    let max_block = i64::MAX as u64;
    let start_block = q.u64_in("startBlock", 0, max_block);
    let end_block = q.u64_in("endBlock", 0, max_block);
    if let (Some(s), Some(e)) = (start_block, end_block)
        && s > e
    {
        q.error("startBlock must be less than or equal to endBlock");
    }
    (start_block, end_block)
}

/// `{chainId}`, `{address}`, `startBlock`/`endBlock` and the paging of an address's list (or a
/// token's): the chain, address and block range to read, and the page. Finishes `q`.
pub(super) async fn address_filter<C: PageCursor>(
    state: &AppState,
    uri: &Uri,
    path: &PathParams,
    mut q: Query,
) -> ApiResult<(AddressFilter, Paging<C>)> {
    let address = address_param(path, &mut q, "address");
    let (start_block, end_block) = block_range(&mut q);
    let paging = q.paging::<C>(uri.path(), &state.config.page_token_key, 10, 100);
    q.finish()?;
    let c = chain(state, path.get("chainId")).await?;
    let filter = AddressFilter {
        chain_id: c.chain_id,
        address: address.ok_or_else(|| ApiError::bad("address is invalid"))?,
        start_block,
        end_block,
    };
    Ok((filter, paging))
}

async fn transfers(
    state: &AppState,
    uri: &Uri,
    path: &PathParams,
    q: Query,
    standard: TokenStandard,
) -> ApiResult<(
    u64,
    Option<String>,
    Vec<firn_store::rows::evm::TransferRecord>,
)> {
    let (a, paging) = address_filter::<EventCursor>(state, uri, path, q).await?;
    let filter = TransferFilter {
        chain_id: a.chain_id,
        address: a.address,
        standard,
        start_block: a.start_block,
        end_block: a.end_block,
    };
    let page = state.store.list_transfers(&filter, &paging.request).await?;
    let next = paging.binding.next(page.next.as_ref());
    Ok((a.chain_id, next, page.items))
}

/// `GET /v1/chains/{chainId}/addresses/{address}/transactions:listErc20`
#[utoipa::path(get, path = "/v1/chains/{chainId}/addresses/{address}/transactions:listErc20",
    operation_id = "listErc20Transactions", tag = "EVM Transactions",
    summary = "List ERC-20 transfers", description = "Lists ERC-20 transfers for an address, newest first.",
    params(("chainId" = String, Path), ("address" = String, Path, description = "Wallet address"),
           ("startBlock" = Option<u64>, Query, description = "First block, inclusive", minimum = 0),
           ("endBlock" = Option<u64>, Query, description = "Last block, exclusive", minimum = 0),
           ("pageToken" = Option<String>, Query), ("pageSize" = Option<u32>, Query, minimum = 1, maximum = 100)),
    responses((status = 200, description = "A page of transfers", body = ListErc20TransactionsResponse),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody)))]
pub async fn list_erc20(
    State(state): State<AppState>,
    uri: Uri,
    path: PathParams,
    q: Query,
) -> ApiResult<Json<ListErc20TransactionsResponse>> {
    let (chain, next, items) = transfers(&state, &uri, &path, q, TokenStandard::Erc20).await?;
    let extras = super::erc20_extras(&state, chain, "usd");
    let response = ListErc20TransactionsResponse {
        next_page_token: next,
        transactions: items
            .iter()
            .map(|t| Erc20Transfer::from_record(t, extras(&t.transfer.token)))
            .collect(),
    };
    super::named(&state, chain, response).await
}

/// `GET /v1/chains/{chainId}/addresses/{address}/transactions:listErc721`
#[utoipa::path(get, path = "/v1/chains/{chainId}/addresses/{address}/transactions:listErc721",
    operation_id = "listErc721Transactions", tag = "EVM Transactions",
    summary = "List ERC-721 transfers", description = "Lists ERC-721 transfers for an address, newest first.",
    params(("chainId" = String, Path), ("address" = String, Path, description = "Wallet address"),
           ("startBlock" = Option<u64>, Query, description = "First block, inclusive", minimum = 0),
           ("endBlock" = Option<u64>, Query, description = "Last block, exclusive", minimum = 0),
           ("pageToken" = Option<String>, Query), ("pageSize" = Option<u32>, Query, minimum = 1, maximum = 100)),
    responses((status = 200, description = "A page of transfers", body = ListErc721TransactionsResponse),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody)))]
pub async fn list_erc721(
    State(state): State<AppState>,
    uri: Uri,
    path: PathParams,
    q: Query,
) -> ApiResult<Json<ListErc721TransactionsResponse>> {
    let (chain, next, items) = transfers(&state, &uri, &path, q, TokenStandard::Erc721).await?;
    let response = ListErc721TransactionsResponse {
        next_page_token: next,
        transactions: items.iter().map(Erc721Transfer::from).collect(),
    };
    super::named(&state, chain, response).await
}

/// `GET /v1/chains/{chainId}/addresses/{address}/transactions:listErc1155`
#[utoipa::path(get, path = "/v1/chains/{chainId}/addresses/{address}/transactions:listErc1155",
    operation_id = "listErc1155Transactions", tag = "EVM Transactions",
    summary = "List ERC-1155 transfers", description = "Lists ERC-1155 transfers for an address, newest first: one entry per token id of a batch.",
    params(("chainId" = String, Path), ("address" = String, Path, description = "Wallet address"),
           ("startBlock" = Option<u64>, Query, description = "First block, inclusive", minimum = 0),
           ("endBlock" = Option<u64>, Query, description = "Last block, exclusive", minimum = 0),
           ("pageToken" = Option<String>, Query), ("pageSize" = Option<u32>, Query, minimum = 1, maximum = 100)),
    responses((status = 200, description = "A page of transfers", body = ListErc1155TransactionsResponse),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody)))]
pub async fn list_erc1155(
    State(state): State<AppState>,
    uri: Uri,
    path: PathParams,
    q: Query,
) -> ApiResult<Json<ListErc1155TransactionsResponse>> {
    let (chain, next, items) = transfers(&state, &uri, &path, q, TokenStandard::Erc1155).await?;
    let response = ListErc1155TransactionsResponse {
        next_page_token: next,
        transactions: items.iter().map(Erc1155Transfer::from).collect(),
    };
    super::named(&state, chain, response).await
}

/// `GET /v1/chains/{chainId}/addresses/{address}/balances:listCollectibles`
#[utoipa::path(get, path = "/v1/chains/{chainId}/addresses/{address}/balances:listCollectibles",
    operation_id = "listCollectibleBalances", tag = "EVM Balances",
    summary = "List collectible (ERC-721/ERC-1155) balances", description = "Lists ERC-721 and ERC-1155 token balances of a wallet address.",
    params(("chainId" = String, Path), ("address" = String, Path, description = "Wallet address"),
           ("pageToken" = Option<String>, Query), ("pageSize" = Option<u32>, Query, minimum = 1, maximum = 500),
           ("contractAddress" = Option<String>, Query, description = "Only this contract")),
    responses((status = 200, description = "A page of balances", body = ListCollectibleBalancesResponse),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody)))]
pub async fn list_collectibles(
    State(state): State<AppState>,
    uri: Uri,
    path: PathParams,
    mut q: Query,
) -> ApiResult<Json<ListCollectibleBalancesResponse>> {
    let owner = address_param(&path, &mut q, "address");
    let contract = q.evm_address("contractAddress");
    let paging = q.paging::<CollectibleCursor>(uri.path(), &state.config.page_token_key, 10, 500);
    q.finish()?;
    let c = chain(&state, path.get("chainId")).await?;
    let owner = owner.ok_or_else(|| ApiError::bad("address is invalid"))?;
    let page = state
        .store
        .list_collectibles(c.chain_id, owner, None, contract, &paging.request)
        .await?;
    Ok(Json(ListCollectibleBalancesResponse {
        next_page_token: paging.binding.next(page.next.as_ref()),
        collectible_balances: page.items.iter().map(CollectibleBalance::from).collect(),
    }))
}
