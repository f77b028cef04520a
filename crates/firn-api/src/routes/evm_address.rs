//! An address's activity on one EVM chain: every transaction it took part in, with the
//! transfers and value-moving internal calls that were its own (v1 and v2), and its internal
//! transactions.

use axum::extract::State;
use axum::http::Uri;
use axum::routing::get;
use axum::{Json, Router};
use firn_store::page::{EventCursor, TxCursor};
use firn_store::{EvmReader, EvmTxFilter, TxParties};

use super::evm::address_filter;
use crate::error::ApiResult;
use crate::params::{PathParams, Query};
use crate::state::AppState;
use crate::wire::evm::{
    InternalTransaction, ListInternalTransactionsResponse, ListTransactionDetailsResponse,
    ListTransactionDetailsResponseV2, TransactionDetails,
};

pub(crate) fn router() -> Router<AppState> {
    Router::new()
        .route(
            "/v1/chains/{chainId}/addresses/{address}/transactions",
            get(list_transactions),
        )
        .route(
            "/v2/chains/{chainId}/addresses/{address}/transactions",
            get(list_transactions_v2),
        )
        .route(
            "/v1/chains/{chainId}/addresses/{address}/transactions:listInternals",
            get(list_internal),
        )
}

/// One page of an address's transactions with what each did for it, and the next page's
/// token, its tokens named. `q` has been read up to the v1/v2 differences.
async fn activity(
    state: &AppState,
    uri: &Uri,
    path: &PathParams,
    mut q: Query,
) -> ApiResult<ListTransactionDetailsResponse> {
    let order = q.sort_order();
    let (a, paging) = address_filter::<TxCursor>(state, uri, path, q).await?;
    let filter = EvmTxFilter {
        chain_id: a.chain_id,
        address: Some(a.address),
        parties: TxParties::Any,
        start_block: a.start_block,
        end_block: a.end_block,
        order,
        ..EvmTxFilter::default()
    };
    let page = state.store.list_evm_txs(&filter, &paging.request).await?;
    let positions: Vec<TxCursor> = page
        .items
        .iter()
        .map(|t| TxCursor {
            height: t.block_number,
            index: t.tx.index,
        })
        .collect();
    let effects = state
        .store
        .list_evm_tx_effects(a.chain_id, &positions, a.address)
        .await?;
    // The official operations take no currency: prices in USD.
    let extras = super::erc20_extras(state, a.chain_id, "usd");
    let txs = page
        .items
        .iter()
        .zip(&effects)
        .map(|(tx, e)| TransactionDetails::new(tx, e, &extras))
        .collect();
    let mut response = ListTransactionDetailsResponse {
        next_page_token: paging.binding.next(page.next.as_ref()),
        transactions: txs,
    };
    super::name_addresses(state, a.chain_id, &mut response).await?;
    Ok(response)
}

/// `GET /v1/chains/{chainId}/addresses/{address}/transactions`
#[utoipa::path(get, path = "/v1/chains/{chainId}/addresses/{address}/transactions",
    operation_id = "listTransactions", tag = "EVM Transactions",
    summary = "List transactions",
    description = "Lists the transactions an address took part in: sent, received, created a contract with, sent or received a token in, or called or was called with value by an internal transaction. Each carries only the transfers and internal transactions the address sent or received. Filterable by block range.",
    params(("chainId" = String, Path), ("address" = String, Path, description = "Wallet address"),
           ("startBlock" = Option<u64>, Query, description = "First block, inclusive", minimum = 0),
           ("endBlock" = Option<u64>, Query, description = "Last block, exclusive", minimum = 0),
           ("sortOrder" = Option<String>, Query, description = "asc or desc (default)"),
           ("pageToken" = Option<String>, Query), ("pageSize" = Option<u32>, Query, minimum = 1, maximum = 100)),
    responses((status = 200, description = "A page of transactions", body = ListTransactionDetailsResponse),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody),
              (status = 404, description = "Not indexed", body = crate::error::ErrorBody)))]
pub async fn list_transactions(
    State(state): State<AppState>,
    uri: Uri,
    path: PathParams,
    q: Query,
) -> ApiResult<Json<ListTransactionDetailsResponse>> {
    Ok(Json(activity(&state, &uri, &path, q).await?))
}

/// `GET /v2/chains/{chainId}/addresses/{address}/transactions`
#[utoipa::path(get, path = "/v2/chains/{chainId}/addresses/{address}/transactions",
    operation_id = "listTransactionsV2", tag = "EVM Transactions",
    summary = "List transactions v2",
    description = "As listTransactions, with each ERC-20 token's reputation. firn has no reputation source: `tokenReputation` is null and `filterSpamTokens` removes nothing.",
    params(("chainId" = String, Path), ("address" = String, Path, description = "Wallet address"),
           ("startBlock" = Option<u64>, Query, description = "First block, inclusive", minimum = 0),
           ("endBlock" = Option<u64>, Query, description = "Last block, exclusive", minimum = 0),
           ("filterSpamTokens" = Option<bool>, Query, description = "Leave out transfers of tokens known to be malicious"),
           ("sortOrder" = Option<String>, Query, description = "asc or desc (default)"),
           ("pageToken" = Option<String>, Query), ("pageSize" = Option<u32>, Query, minimum = 1, maximum = 100)),
    responses((status = 200, description = "A page of transactions", body = ListTransactionDetailsResponseV2),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody),
              (status = 404, description = "Not indexed", body = crate::error::ErrorBody)))]
pub async fn list_transactions_v2(
    State(state): State<AppState>,
    uri: Uri,
    path: PathParams,
    mut q: Query,
) -> ApiResult<Json<ListTransactionDetailsResponseV2>> {
    // Checked, but there is nothing to filter: no token is known to be malicious.
    let _ = q.one_of("filterSpamTokens", &["true", "false"]);
    let v1 = activity(&state, &uri, &path, q).await?;
    Ok(Json(ListTransactionDetailsResponseV2 {
        next_page_token: v1.next_page_token,
        transactions: v1.transactions.into_iter().map(Into::into).collect(),
    }))
}

/// `GET /v1/chains/{chainId}/addresses/{address}/transactions:listInternals`
#[utoipa::path(get, path = "/v1/chains/{chainId}/addresses/{address}/transactions:listInternals",
    operation_id = "listInternalTransactions", tag = "EVM Transactions",
    summary = "List internal transactions",
    description = "Lists the internal transactions an address made or received, newest first: CALL and CALLCODE with a non-zero value, and CREATE/CREATE2. Filterable by block range.",
    params(("chainId" = String, Path), ("address" = String, Path, description = "Wallet address"),
           ("startBlock" = Option<u64>, Query, description = "First block, inclusive", minimum = 0),
           ("endBlock" = Option<u64>, Query, description = "Last block, exclusive", minimum = 0),
           ("pageToken" = Option<String>, Query), ("pageSize" = Option<u32>, Query, minimum = 1, maximum = 100)),
    responses((status = 200, description = "A page of internal transactions", body = ListInternalTransactionsResponse),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody),
              (status = 404, description = "Not indexed", body = crate::error::ErrorBody)))]
pub async fn list_internal(
    State(state): State<AppState>,
    uri: Uri,
    path: PathParams,
    q: Query,
) -> ApiResult<Json<ListInternalTransactionsResponse>> {
    let (filter, paging) = address_filter::<EventCursor>(&state, &uri, &path, q).await?;
    let page = state
        .store
        .list_address_internal_txs(&filter, &paging.request)
        .await?;
    let response = ListInternalTransactionsResponse {
        next_page_token: paging.binding.next(page.next.as_ref()),
        transactions: page.items.iter().map(InternalTransaction::from).collect(),
    };
    super::named(&state, filter.chain_id, response).await
}
