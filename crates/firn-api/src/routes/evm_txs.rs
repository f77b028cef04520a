//! EVM transaction routes: one transaction with its transfers and internal calls (by hash, or
//! a contract's deployment), a chain's latest transactions, a block's, and an address's native
//! transactions.

use axum::extract::State;
use axum::http::Uri;
use axum::routing::get;
use axum::{Json, Router};
use firn_store::page::TxCursor;
use firn_store::rows::evm::EvmChainRecord;
use firn_store::types::B256;
use firn_store::{EvmReader, EvmTxFilter, IcmReader, SortOrder};

use super::evm::{BlockId, address_filter, address_param, chain};
use crate::error::{ApiError, ApiResult};
use crate::paging::Paging;
use crate::params::{PathParams, Query, parse_hash};
use crate::state::AppState;
use crate::wire::evm::{
    FullNativeTransactionDetails, GetTransactionResponse, ListNativeTransactionsResponse,
    NetworkTokenDetails,
};
use crate::wire::{CURRENCIES, money};

pub(crate) fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/chains/{chainId}/transactions", get(list_latest))
        .route(
            "/v1/chains/{chainId}/transactions/{txHash}",
            get(get_transaction),
        )
        .route(
            "/v1/chains/{chainId}/blocks/{blockId}/transactions",
            get(list_block_transactions),
        )
        .route(
            "/v1/chains/{chainId}/addresses/{address}/transactions:listNative",
            get(list_native),
        )
        .route(
            "/v1/chains/{chainId}/contracts/{address}/transactions:getDeployment",
            get(get_deployment),
        )
}

/// Transaction `hash` with its block's base fee, transfers and internal calls; `None` when the
/// chain has no such transaction.
async fn details(
    state: &AppState,
    c: &EvmChainRecord,
    hash: B256,
    currency: &str,
) -> ApiResult<Option<GetTransactionResponse>> {
    let store = &state.store;
    let Some(tx) = store.find_evm_tx(c.chain_id, hash).await? else {
        return Ok(None);
    };
    let block = store.find_evm_block(c.chain_id, tx.block_number).await?;
    let transfers = store.list_evm_tx_transfers(c.chain_id, hash).await?;
    let internal = store.list_evm_internal_txs(c.chain_id, hash).await?;
    let prices = &state.config.prices;
    let native_price = money(prices, currency, &c.token_symbol);
    let token = NetworkTokenDetails {
        network_token: c.into(),
        current_price: native_price.clone(),
        historical_price: native_price,
    };
    let native = FullNativeTransactionDetails::new(&tx, block.and_then(|b| b.block.base_fee));
    let extras = super::erc20_extras(state, c.chain_id, currency);
    let mut response = GetTransactionResponse::new(native, token, &transfers, &internal, extras);
    let icm = store.list_icm_tx_messages(c.chain_id, hash).await?;
    response.teleporter_message_info = icm.first().map(Into::into);
    super::name_addresses(state, c.chain_id, &mut response).await?;
    Ok(Some(response))
}

/// `GET /v1/chains/{chainId}/transactions/{txHash}`
#[utoipa::path(get, path = "/v1/chains/{chainId}/transactions/{txHash}",
    operation_id = "getTransaction", tag = "EVM Transactions",
    summary = "Get transaction", description = "Gets the details of a single transaction: the native transaction, its ERC-20, ERC-721 and ERC-1155 transfers and its internal calls.",
    params(("chainId" = String, Path), ("txHash" = String, Path, description = "0x and 64 hex digits")),
    responses((status = 200, description = "The transaction", body = GetTransactionResponse),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody),
              (status = 404, description = "Unknown transaction", body = crate::error::ErrorBody)))]
pub async fn get_transaction(
    State(state): State<AppState>,
    path: PathParams,
    mut q: Query,
) -> ApiResult<Json<GetTransactionResponse>> {
    let raw = path.get("txHash");
    let hash = parse_hash(raw);
    if hash.is_none() {
        q.error("txHash must be a transaction hash (0x and 64 hex digits)");
    }
    q.finish()?;
    let c = chain(&state, path.get("chainId")).await?;
    let hash = hash.ok_or_else(|| ApiError::bad("txHash is invalid"))?;
    // The official operation takes no currency: prices in USD.
    details(&state, &c, hash, "usd")
        .await?
        .map(Json)
        .ok_or_else(|| ApiError::not_found(format!("transaction {raw} not found")))
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
    details(&state, &c, deployment.tx_hash, currency)
        .await?
        .map(Json)
        .ok_or_else(not_found)
}

/// One page of `filter`.
async fn page(
    state: &AppState,
    paging: Paging<TxCursor>,
    filter: EvmTxFilter,
) -> ApiResult<Json<ListNativeTransactionsResponse>> {
    let page = state.store.list_evm_txs(&filter, &paging.request).await?;
    let next = paging.binding.next(page.next.as_ref());
    let response = ListNativeTransactionsResponse::new(&page.items, next);
    super::named(state, filter.chain_id, response).await
}

/// `GET /v1/chains/{chainId}/transactions`
#[utoipa::path(get, path = "/v1/chains/{chainId}/transactions",
    operation_id = "listLatestTransactions", tag = "EVM Transactions",
    summary = "List latest transactions", description = "Lists the latest transactions, newest first. Filterable by status.",
    params(("chainId" = String, Path),
           ("status" = Option<String>, Query, description = "failed or success"),
           ("pageToken" = Option<String>, Query), ("pageSize" = Option<u32>, Query, minimum = 1, maximum = 100)),
    responses((status = 200, description = "A page of transactions", body = ListNativeTransactionsResponse),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody),
              (status = 404, description = "Not indexed", body = crate::error::ErrorBody)))]
pub async fn list_latest(
    State(state): State<AppState>,
    uri: Uri,
    path: PathParams,
    mut q: Query,
) -> ApiResult<Json<ListNativeTransactionsResponse>> {
    let success = q
        .one_of("status", &["failed", "success"])
        .map(|s| s == "success");
    let paging = q.paging::<TxCursor>(uri.path(), &state.config.page_token_key, 10, 100);
    q.finish()?;
    let c = chain(&state, path.get("chainId")).await?;
    let filter = EvmTxFilter {
        chain_id: c.chain_id,
        success,
        ..EvmTxFilter::default()
    };
    page(&state, paging, filter).await
}

/// `GET /v1/chains/{chainId}/blocks/{blockId}/transactions`
#[utoipa::path(get, path = "/v1/chains/{chainId}/blocks/{blockId}/transactions",
    operation_id = "getTransactionsForBlock", tag = "EVM Transactions",
    summary = "List transactions for a block", description = "Lists the transactions of a block in block order.",
    params(("chainId" = String, Path), ("blockId" = String, Path, description = "Block number or 0x block hash"),
           ("pageToken" = Option<String>, Query),
           ("pageSize" = Option<u32>, Query, minimum = 0, maximum = 100, description = "0 or absent: 100")),
    responses((status = 200, description = "A page of transactions", body = ListNativeTransactionsResponse),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody),
              (status = 404, description = "Unknown block", body = crate::error::ErrorBody)))]
pub async fn list_block_transactions(
    State(state): State<AppState>,
    uri: Uri,
    path: PathParams,
    mut q: Query,
) -> ApiResult<Json<ListNativeTransactionsResponse>> {
    let raw = path.get("blockId");
    let id = BlockId::parse(raw);
    // The official schema's pageSize runs from 0, its default: the whole block.
    q.forget_zero("pageSize");
    let paging = q.paging::<TxCursor>(uri.path(), &state.config.page_token_key, 100, 100);
    q.finish()?;
    let id = id?;
    let c = chain(&state, path.get("chainId")).await?;
    let block = id
        .find(&state, c.chain_id)
        .await?
        .ok_or_else(|| ApiError::not_found(format!("block {raw} not found")))?;
    let number = block.block.number;
    let filter = EvmTxFilter {
        chain_id: c.chain_id,
        start_block: Some(number),
        end_block: Some(number + 1),
        order: SortOrder::Asc,
        ..EvmTxFilter::default()
    };
    page(&state, paging, filter).await
}

/// `GET /v1/chains/{chainId}/addresses/{address}/transactions:listNative`
#[utoipa::path(get, path = "/v1/chains/{chainId}/addresses/{address}/transactions:listNative",
    operation_id = "listNativeTransactions", tag = "EVM Transactions",
    summary = "List native transactions", description = "Lists the transactions an address sent, received or created a contract with, newest first. Filterable by block range.",
    params(("chainId" = String, Path), ("address" = String, Path, description = "Wallet address"),
           ("startBlock" = Option<u64>, Query, description = "First block, inclusive", minimum = 0),
           ("endBlock" = Option<u64>, Query, description = "Last block, exclusive", minimum = 0),
           ("pageToken" = Option<String>, Query), ("pageSize" = Option<u32>, Query, minimum = 1, maximum = 100)),
    responses((status = 200, description = "A page of transactions", body = ListNativeTransactionsResponse),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody),
              (status = 404, description = "Not indexed", body = crate::error::ErrorBody)))]
pub async fn list_native(
    State(state): State<AppState>,
    uri: Uri,
    path: PathParams,
    q: Query,
) -> ApiResult<Json<ListNativeTransactionsResponse>> {
    let (a, paging) = address_filter::<TxCursor>(&state, &uri, &path, q).await?;
    let filter = EvmTxFilter {
        chain_id: a.chain_id,
        address: Some(a.address),
        start_block: a.start_block,
        end_block: a.end_block,
        ..EvmTxFilter::default()
    };
    page(&state, paging, filter).await
}
