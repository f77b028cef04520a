//! EVM routes: the chains list, latest blocks, one block, the deployment transaction of a
//! contract, ERC-20 and ERC-721 transfers of an address, and collectible balances.

use axum::extract::State;
use axum::http::Uri;
use axum::routing::get;
use axum::{Json, Router};
use firn_core::ids::Id;
use firn_store::page::{CollectibleCursor, EventCursor, HeightCursor};
use firn_store::rows::evm::{ChainRef, EvmChainRecord, TokenStandard};
use firn_store::types::{Address, B256, ParseText};
use firn_store::{EvmReader, TransferFilter};

use super::network::NETWORKS;
use crate::error::{ApiError, ApiResult};
use crate::params::{PathParams, Query, parse_evm_address};
use crate::state::AppState;
use crate::wire::evm::{
    ChainInfo, CollectibleBalance, Erc20Transfer, Erc721Transfer, EvmBlock,
    FullNativeTransactionDetails, GetTransactionResponse, ListChainsResponse,
    ListCollectibleBalancesResponse, ListErc20TransactionsResponse, ListErc721TransactionsResponse,
    ListEvmBlocksResponse, NetworkTokenDetails,
};
use crate::wire::{CURRENCIES, money};

pub(crate) fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/chains", get(list_chains))
        .route("/v1/chains/{chainId}", get(get_chain))
        .route("/v1/chains/{chainId}/blocks", get(list_blocks))
        .route("/v1/chains/{chainId}/blocks/{blockId}", get(get_block))
        .route(
            "/v1/chains/{chainId}/contracts/{address}/transactions:getDeployment",
            get(get_deployment),
        )
        .route(
            "/v1/chains/{chainId}/addresses/{address}/transactions:listErc20",
            get(list_erc20),
        )
        .route(
            "/v1/chains/{chainId}/addresses/{address}/transactions:listErc721",
            get(list_erc721),
        )
        .route(
            "/v1/chains/{chainId}/addresses/{address}/balances:listCollectibles",
            get(list_collectibles),
        )
}

/// Resolves `{chainId}` (EVM chain ID or blockchain ID): 400 when it is neither, 404 when no
/// such chain is indexed.
async fn chain(state: &AppState, raw: &str) -> ApiResult<EvmChainRecord> {
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

fn address_param(path: &PathParams, q: &mut Query, name: &str) -> Option<Address> {
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
    let served = feature.is_none_or(|f| f == "nftIndexing");
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
    enum BlockId {
        Number(u64),
        Hash(B256),
    }
    let id = if let Ok(n) = raw.parse::<u64>() {
        BlockId::Number(n)
    } else if let Ok(h) = B256::parse_text(&raw.to_ascii_lowercase()) {
        BlockId::Hash(h)
    } else {
        return Err(ApiError::bad(
            "blockId must be a block number or a block hash (0x and 64 hex digits)",
        ));
    };
    let c = chain(&state, path.get("chainId")).await?;
    let block = match id {
        BlockId::Number(n) if n <= i64::MAX as u64 => {
            state.store.find_evm_block(c.chain_id, n).await?
        }
        BlockId::Number(_) => None,
        BlockId::Hash(h) => state.store.find_evm_block_by_hash(c.chain_id, h).await?,
    };
    let block = block.ok_or_else(|| ApiError::not_found(format!("block {raw} not found")))?;
    Ok(Json(EvmBlock::from(&block)))
}

/// `GET /v1/chains/{chainId}/contracts/{address}/transactions:getDeployment`
#[utoipa::path(get, path = "/v1/chains/{chainId}/contracts/{address}/transactions:getDeployment",
    operation_id = "getDeploymentTransaction", tag = "EVM Transactions",
    summary = "Get deployment transaction", description = "If the address is a smart contract, returns the transaction in which it was deployed.",
    params(("chainId" = String, Path), ("address" = String, Path, description = "Contract address"),
           ("currency" = Option<String>, Query, description = "Currency of prices (default usd)")),
    responses((status = 200, description = "The deployment transaction", body = GetTransactionResponse),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody),
              (status = 404, description = "Not a deployed contract", body = crate::error::ErrorBody)))]
pub async fn get_deployment(
    State(state): State<AppState>,
    path: PathParams,
    mut q: Query,
) -> ApiResult<Json<GetTransactionResponse>> {
    let address = address_param(&path, &mut q, "address");
    let currency = q.one_of("currency", &CURRENCIES).unwrap_or("usd");
    q.finish()?;
    let c = chain(&state, path.get("chainId")).await?;
    let address = address.ok_or_else(|| ApiError::bad("address is invalid"))?;
    let not_found = || ApiError::not_found(format!("no deployment of contract {address:#x} found"));
    let deployment = state
        .store
        .find_contract_deployment(c.chain_id, address)
        .await?
        .ok_or_else(not_found)?;
    let tx = state
        .store
        .find_evm_tx(c.chain_id, deployment.tx_hash)
        .await?
        .ok_or_else(not_found)?;
    let block = state
        .store
        .find_evm_block(c.chain_id, tx.block_number)
        .await?;
    let transfers = state
        .store
        .list_evm_tx_transfers(c.chain_id, deployment.tx_hash)
        .await?;
    let internal = state
        .store
        .list_evm_internal_txs(c.chain_id, deployment.tx_hash)
        .await?;
    let prices = &state.config.prices;
    let native_price = money(prices, currency, &c.token_symbol);
    let token = NetworkTokenDetails {
        network_token: (&c).into(),
        current_price: native_price.clone(),
        historical_price: native_price,
    };
    let native = FullNativeTransactionDetails::new(&tx, block.and_then(|b| b.block.base_fee));
    Ok(Json(GetTransactionResponse::new(
        native,
        token,
        &transfers,
        &internal,
        |a| money(prices, currency, &format!("{a:#x}")),
    )))
}

async fn transfers(
    state: &AppState,
    uri: &Uri,
    path: &PathParams,
    mut q: Query,
    standard: TokenStandard,
) -> ApiResult<(Option<String>, Vec<firn_store::rows::evm::TransferRecord>)> {
    let address = address_param(path, &mut q, "address");
    let max_block = i64::MAX as u64;
    let start_block = q.u64_in("startBlock", 0, max_block);
    let end_block = q.u64_in("endBlock", 0, max_block);
    if let (Some(s), Some(e)) = (start_block, end_block)
        && s > e
    {
        q.error("startBlock must be less than or equal to endBlock");
    }
    let paging = q.paging::<EventCursor>(uri.path(), &state.config.page_token_key, 10, 100);
    q.finish()?;
    let c = chain(state, path.get("chainId")).await?;
    let filter = TransferFilter {
        chain_id: c.chain_id,
        address: address.ok_or_else(|| ApiError::bad("address is invalid"))?,
        standard,
        start_block,
        end_block,
    };
    let page = state.store.list_transfers(&filter, &paging.request).await?;
    Ok((paging.binding.next(page.next.as_ref()), page.items))
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
    let (next, items) = transfers(&state, &uri, &path, q, TokenStandard::Erc20).await?;
    let prices = &state.config.prices;
    Ok(Json(ListErc20TransactionsResponse {
        next_page_token: next,
        transactions: items
            .iter()
            .map(|t| {
                Erc20Transfer::from_record(
                    t,
                    money(prices, "usd", &format!("{:#x}", t.transfer.token)),
                )
            })
            .collect(),
    }))
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
    let (next, items) = transfers(&state, &uri, &path, q, TokenStandard::Erc721).await?;
    Ok(Json(ListErc721TransactionsResponse {
        next_page_token: next,
        transactions: items.iter().map(Erc721Transfer::from).collect(),
    }))
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
        .list_collectibles(c.chain_id, owner, contract, &paging.request)
        .await?;
    Ok(Json(ListCollectibleBalancesResponse {
        next_page_token: paging.binding.next(page.next.as_ref()),
        collectible_balances: page.items.iter().map(CollectibleBalance::from).collect(),
    }))
}
