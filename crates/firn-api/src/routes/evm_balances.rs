//! Balances of an EVM address. Its native token is read from the node the chain's indexer
//! follows (the index holds no native balances), now or at a past block. Token balances come
//! from the index, which folds every transfer into each holder's balance as it commits: the
//! balances at the newest indexed block, and at an earlier `blockNumber` those with the
//! transfers since undone (the store's `evm/history.rs`). Except for ERC-20 tokens the
//! indexer found to disagree with their own transfers (rebasing, fee-on-transfer): their
//! balances are the node's `balanceOf`, at the same block as the native balance.

use axum::extract::State;
use axum::http::Uri;
use axum::routing::get;
use axum::{Json, Router};
use firn_store::page::{CollectibleCursor, TokenCursor};
use firn_store::rows::ChainKey;
use firn_store::rows::evm::{Erc20BalanceRecord, EvmChainRecord, TokenStandard};
use firn_store::types::Address;
use firn_store::{CursorStore, EvmReader, MAX_LISTED_CONTRACTS};

use super::evm::{address_param, chain};
use crate::error::{ApiError, ApiResult};
use crate::params::{PathParams, Query, parse_evm_address};
use crate::state::AppState;
use crate::wire::evm::{
    CollectibleBalance, Erc20TokenBalance, GetNativeBalanceResponse, ListErc20BalancesResponse,
    ListErc721BalancesResponse, ListErc1155BalancesResponse, NativeTokenBalance,
};
use crate::wire::{CURRENCIES, money};

pub(crate) fn router() -> Router<AppState> {
    Router::new()
        .route(
            "/v1/chains/{chainId}/addresses/{address}/balances:getNative",
            get(get_native_balance),
        )
        .route(
            "/v1/chains/{chainId}/addresses/{address}/balances:listErc20",
            get(list_erc20_balances),
        )
        .route(
            "/v1/chains/{chainId}/addresses/{address}/balances:listErc721",
            get(list_erc721_balances),
        )
        .route(
            "/v1/chains/{chainId}/addresses/{address}/balances:listErc1155",
            get(list_erc1155_balances),
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
    Ok(Json(GetNativeBalanceResponse {
        native_token_balance: native_of(&state, &c, address, block, currency).await?,
    }))
}

/// The native balance of `owner` from the chain's node: at `block` when asked, else the
/// node's latest; priced in `currency` when the table has a price.
async fn native_of(
    state: &AppState,
    c: &EvmChainRecord,
    owner: Address,
    block: Option<u64>,
    currency: &str,
) -> ApiResult<NativeTokenBalance> {
    let balance = state.nodes.native_balance(c, owner, block).await?;
    let price = money(&state.config.prices, currency, &c.token_symbol);
    Ok(NativeTokenBalance::new(c, balance, price))
}

/// The past block `blockNumber` names, if any: token balances are the index's at its newest
/// block, replayed back to an earlier one by the store; a block the index has not reached is
/// refused.
async fn past_block(
    state: &AppState,
    c: &EvmChainRecord,
    block: Option<u64>,
) -> ApiResult<Option<u64>> {
    let Some(block) = block else { return Ok(None) };
    let head = state
        .store
        .find_cursor(ChainKey::Evm(c.chain_id))
        .await?
        .unwrap_or(0);
    match block.cmp(&head) {
        std::cmp::Ordering::Less => Ok(Some(block)),
        std::cmp::Ordering::Equal => Ok(None),
        std::cmp::Ordering::Greater => Err(ApiError::bad(format!(
            "blockNumber {block} is past the newest indexed block, {head}"
        ))),
    }
}

/// `contractAddresses`: a comma-separated list of EVM addresses (as many as any list
/// parameter holds, which the store's limit allows).
fn contract_list(q: &mut Query, name: &str) -> Vec<Address> {
    const _: () = assert!(crate::params::MAX_LIST <= MAX_LISTED_CONTRACTS);
    let raw = q.list(name);
    let parsed: Option<Vec<Address>> = raw.iter().map(|a| parse_evm_address(a)).collect();
    parsed.unwrap_or_else(|| {
        q.error(format!(
            "{name} must hold EVM addresses (0x and 40 hex digits), separated by commas"
        ));
        Vec::new()
    })
}

/// `GET /v1/chains/{chainId}/addresses/{address}/balances:listErc20`
#[utoipa::path(get, path = "/v1/chains/{chainId}/addresses/{address}/balances:listErc20",
    operation_id = "listErc20Balances", tag = "EVM Balances",
    summary = "List ERC-20 balances",
    description = "Lists the ERC-20 balances of an address at the newest indexed block or an earlier `blockNumber`, by token contract, with its native balance from the chain's node. Balances are folded from the tokens' transfers, except those of tokens whose `balanceOf` the indexer found to disagree with their transfers (rebasing, fee-on-transfer), which are read from the node. firn has no reputation source: `tokenReputation` is null and `filterSpamTokens` removes nothing.",
    params(("chainId" = String, Path), ("address" = String, Path, description = "Wallet address"),
           ("blockNumber" = Option<String>, Query, description = "The block to read balances at (default: the newest indexed; a later one is refused)"),
           ("pageToken" = Option<String>, Query), ("pageSize" = Option<u32>, Query, minimum = 1, maximum = 500),
           ("filterSpamTokens" = Option<bool>, Query, description = "Leave out tokens known to be malicious"),
           ("contractAddresses" = Option<String>, Query, description = "Only these contracts (comma-separated, at most 64)"),
           ("currency" = Option<String>, Query, description = "Currency of prices (default usd)")),
    responses((status = 200, description = "A page of balances", body = ListErc20BalancesResponse),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody),
              (status = 404, description = "Not indexed", body = crate::error::ErrorBody),
              (status = 503, description = "The chain's node did not answer", body = crate::error::ErrorBody)))]
pub async fn list_erc20_balances(
    State(state): State<AppState>,
    uri: Uri,
    path: PathParams,
    mut q: Query,
) -> ApiResult<Json<ListErc20BalancesResponse>> {
    let owner = address_param(&path, &mut q, "address");
    let block = q.u64_in("blockNumber", 0, i64::MAX as u64);
    let _ = q.one_of("filterSpamTokens", &["true", "false"]);
    let contracts = contract_list(&mut q, "contractAddresses");
    let currency = q.one_of("currency", &CURRENCIES).unwrap_or("usd");
    let paging = q.paging::<TokenCursor>(uri.path(), &state.config.page_token_key, 10, 500);
    q.finish()?;
    let c = chain(&state, path.get("chainId")).await?;
    let owner = owner.ok_or_else(|| ApiError::bad("address is invalid"))?;
    let store = &state.store;
    let mut page = match past_block(&state, &c, block).await? {
        Some(past) => {
            let request = &paging.request;
            store
                .list_erc20_balances_at(c.chain_id, owner, past, &contracts, request)
                .await?
        }
        None => {
            let request = &paging.request;
            store
                .list_erc20_balances(c.chain_id, owner, &contracts, request)
                .await?
        }
    };
    balances_from_node(&state, &c, owner, block, &mut page.items).await?;
    let extras = super::erc20_extras(&state, c.chain_id, currency);
    Ok(Json(ListErc20BalancesResponse {
        next_page_token: paging.binding.next(page.next.as_ref()),
        native_token_balance: native_of(&state, &c, owner, block, currency).await?,
        erc20_token_balances: page
            .items
            .iter()
            .map(|b| Erc20TokenBalance::new(b, extras(&b.token)))
            .collect(),
    }))
}

/// Puts the node's `balanceOf` in place of the folded balance of each token in `items` whose
/// transfers are known to disagree with it; a token that does not answer keeps its folded
/// balance.
async fn balances_from_node(
    state: &AppState,
    c: &EvmChainRecord,
    owner: Address,
    block: Option<u64>,
    items: &mut [Erc20BalanceRecord],
) -> ApiResult<()> {
    let tokens: Vec<Address> = items.iter().map(|b| b.token).collect();
    let flagged = state
        .store
        .list_balance_mismatches(c.chain_id, &tokens)
        .await?;
    if flagged.is_empty() {
        return Ok(());
    }
    let flagged: Vec<Address> = flagged.iter().map(|m| m.token).collect();
    let read = state
        .nodes
        .erc20_balances(c, owner, &flagged, block)
        .await?;
    for item in items {
        if let Some(balance) = read.get(&item.token) {
            item.balance = *balance;
        }
    }
    Ok(())
}

/// One standard's collectibles of the path's address, with its native balance.
async fn collectibles_of(
    state: &AppState,
    uri: &Uri,
    path: &PathParams,
    mut q: Query,
    standard: TokenStandard,
) -> ApiResult<(Option<String>, NativeTokenBalance, Vec<CollectibleBalance>)> {
    let owner = address_param(path, &mut q, "address");
    let block = match standard {
        TokenStandard::Erc1155 => q.u64_in("blockNumber", 0, i64::MAX as u64),
        _ => None,
    };
    let contract = q.evm_address("contractAddress");
    let paging = q.paging::<CollectibleCursor>(uri.path(), &state.config.page_token_key, 10, 500);
    q.finish()?;
    let c = chain(state, path.get("chainId")).await?;
    let owner = owner.ok_or_else(|| ApiError::bad("address is invalid"))?;
    let store = &state.store;
    let page = match past_block(state, &c, block).await? {
        Some(past) => {
            let request = &paging.request;
            store
                .list_erc1155_balances_at(c.chain_id, owner, past, contract, request)
                .await?
        }
        None => {
            let request = &paging.request;
            store
                .list_collectibles(c.chain_id, owner, Some(standard), contract, request)
                .await?
        }
    };
    Ok((
        paging.binding.next(page.next.as_ref()),
        native_of(state, &c, owner, block, "usd").await?,
        page.items.iter().map(CollectibleBalance::from).collect(),
    ))
}

/// `GET /v1/chains/{chainId}/addresses/{address}/balances:listErc721`
#[utoipa::path(get, path = "/v1/chains/{chainId}/addresses/{address}/balances:listErc721",
    operation_id = "listErc721Balances", tag = "EVM Balances",
    summary = "List ERC-721 balances",
    description = "Lists the ERC-721 tokens an address holds at the newest indexed block, by contract then token ID, with its native balance from the chain's node.",
    params(("chainId" = String, Path), ("address" = String, Path, description = "Wallet address"),
           ("pageToken" = Option<String>, Query), ("pageSize" = Option<u32>, Query, minimum = 1, maximum = 500),
           ("contractAddress" = Option<String>, Query, description = "Only this contract")),
    responses((status = 200, description = "A page of holdings", body = ListErc721BalancesResponse),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody),
              (status = 404, description = "Not indexed", body = crate::error::ErrorBody),
              (status = 503, description = "The chain's node did not answer", body = crate::error::ErrorBody)))]
pub async fn list_erc721_balances(
    State(state): State<AppState>,
    uri: Uri,
    path: PathParams,
    q: Query,
) -> ApiResult<Json<ListErc721BalancesResponse>> {
    let (next, native, items) =
        collectibles_of(&state, &uri, &path, q, TokenStandard::Erc721).await?;
    Ok(Json(ListErc721BalancesResponse {
        next_page_token: next,
        native_token_balance: native,
        erc721_token_balances: items,
    }))
}

/// `GET /v1/chains/{chainId}/addresses/{address}/balances:listErc1155`
#[utoipa::path(get, path = "/v1/chains/{chainId}/addresses/{address}/balances:listErc1155",
    operation_id = "listErc1155Balances", tag = "EVM Balances",
    summary = "List ERC-1155 balances",
    description = "Lists the ERC-1155 balances of an address at the newest indexed block or an earlier `blockNumber`, by contract then token ID, with its native balance from the chain's node.",
    params(("chainId" = String, Path), ("address" = String, Path, description = "Wallet address"),
           ("blockNumber" = Option<String>, Query, description = "The block to read balances at (default: the newest indexed; a later one is refused)"),
           ("pageToken" = Option<String>, Query), ("pageSize" = Option<u32>, Query, minimum = 1, maximum = 500),
           ("contractAddress" = Option<String>, Query, description = "Only this contract")),
    responses((status = 200, description = "A page of holdings", body = ListErc1155BalancesResponse),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody),
              (status = 404, description = "Not indexed", body = crate::error::ErrorBody),
              (status = 503, description = "The chain's node did not answer", body = crate::error::ErrorBody)))]
pub async fn list_erc1155_balances(
    State(state): State<AppState>,
    uri: Uri,
    path: PathParams,
    q: Query,
) -> ApiResult<Json<ListErc1155BalancesResponse>> {
    let (next, native, items) =
        collectibles_of(&state, &uri, &path, q, TokenStandard::Erc1155).await?;
    Ok(Json(ListErc1155BalancesResponse {
        next_page_token: next,
        native_token_balance: native,
        erc1155_token_balances: items,
    }))
}
