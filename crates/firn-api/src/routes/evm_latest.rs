//! The latest transactions and blocks of every indexed EVM chain, merged newest first.
//!
//! The merged order is block time, then chain ID, block number and index, all descending; a
//! page token holds the last row's place in it ([`ChainsCursor`]). Each chain resumes below that
//! place: its own chain right after the row, the others below their last block older than
//! the row (or as old, for chains that sort after it). Within a chain block times never go
//! down, so each chain's newest-first walk is already in the merged order.

use axum::extract::State;
use axum::http::Uri;
use axum::routing::get;
use axum::{Json, Router};
use firn_store::page::{ChainsCursor, HeightCursor, TxCursor};
use firn_store::rows::evm::{EvmBlockRecord, EvmTxRecord};
use firn_store::{EvmReader, EvmTxFilter, PageRequest};

use super::network::NETWORKS;
use crate::error::ApiResult;
use crate::params::Query;
use crate::state::AppState;
use crate::wire::evm::{EvmBlock, ListEvmBlocksResponse, ListNativeTransactionsResponse};

pub(crate) fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/transactions", get(list_latest_transactions))
        .route("/v1/blocks", get(list_latest_blocks))
}

/// Where `chain_id` resumes after `after`: from its head, strictly before a place in it, or
/// nowhere (it has no rows old enough).
async fn resume(
    state: &AppState,
    chain_id: u64,
    after: Option<ChainsCursor>,
) -> ApiResult<Option<Option<TxCursor>>> {
    let Some(p) = after else {
        return Ok(Some(None));
    };
    if p.chain_id == chain_id {
        return Ok(Some(Some(TxCursor {
            height: p.height,
            index: p.index,
        })));
    }
    // Chains that sort before the cursor's (higher IDs) keep only older blocks; chains after
    // it also those as old.
    let before = if chain_id > p.chain_id {
        p.timestamp
    } else {
        p.timestamp.saturating_add(1)
    };
    let last = state
        .store
        .find_last_evm_block_before(chain_id, before)
        .await?;
    Ok(last.map(|n| {
        Some(TxCursor {
            height: n.saturating_add(1),
            index: 0,
        })
    }))
}

/// Where each chain `network` names (all without it; none when it names another network)
/// resumes after `after`, leaving out those with nothing left.
async fn resume_all(
    state: &AppState,
    network: Option<&str>,
    after: Option<ChainsCursor>,
) -> ApiResult<Vec<(u64, Option<TxCursor>)>> {
    if network.is_some_and(|n| !state.config.network.accepts(n)) {
        return Ok(Vec::new());
    }
    let chains = state.store.list_evm_chains().await?;
    let mut out = Vec::with_capacity(chains.len());
    for chain_id in chains.iter().map(|c| c.chain_id) {
        if let Some(below) = resume(state, chain_id, after).await? {
            out.push((chain_id, below));
        }
    }
    Ok(out)
}

/// The newest `limit` of the chains' `rows`, and the place of the last one when more follow
/// (`more`: some chain had rows beyond those read).
fn merge<T>(
    mut rows: Vec<(ChainsCursor, T)>,
    more: bool,
    limit: u32,
) -> (Vec<T>, Option<ChainsCursor>) {
    rows.sort_by_key(|r| std::cmp::Reverse(r.0));
    let limit = limit as usize;
    let more = more || rows.len() > limit;
    rows.truncate(limit);
    let next = if more { rows.last().map(|r| r.0) } else { None };
    (rows.into_iter().map(|r| r.1).collect(), next)
}

fn tx_position(t: &EvmTxRecord) -> ChainsCursor {
    ChainsCursor {
        timestamp: t.timestamp,
        chain_id: t.chain_id,
        height: t.block_number,
        index: t.tx.index,
    }
}

fn block_position(b: &EvmBlockRecord) -> ChainsCursor {
    ChainsCursor {
        timestamp: b.block.timestamp,
        chain_id: b.chain_id,
        height: b.block.number,
        index: 0,
    }
}

/// `GET /v1/transactions`
#[utoipa::path(get, path = "/v1/transactions",
    operation_id = "listLatestTransactionsAllChains", tag = "EVM Transactions",
    summary = "List the latest transactions across all supported EVM chains",
    description = "Lists the latest transactions of every indexed EVM chain, newest first. Filterable by network and status.",
    params(("network" = Option<String>, Query, description = "mainnet, fuji or testnet"),
           ("status" = Option<String>, Query, description = "failed or success"),
           ("pageToken" = Option<String>, Query), ("pageSize" = Option<u32>, Query, minimum = 1, maximum = 100)),
    responses((status = 200, description = "A page of transactions", body = ListNativeTransactionsResponse),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody)))]
pub async fn list_latest_transactions(
    State(state): State<AppState>,
    uri: Uri,
    mut q: Query,
) -> ApiResult<Json<ListNativeTransactionsResponse>> {
    let network = q.one_of("network", &NETWORKS);
    let success = q
        .one_of("status", &["failed", "success"])
        .map(|s| s == "success");
    let paging = q.paging::<ChainsCursor>(uri.path(), &state.config.page_token_key, 10, 100);
    q.finish()?;
    let (limit, after) = (paging.request.limit, paging.request.after);
    let (mut rows, mut more) = (Vec::new(), false);
    for (chain_id, below) in resume_all(&state, network, after).await? {
        let filter = EvmTxFilter {
            chain_id,
            success,
            ..EvmTxFilter::default()
        };
        let request = PageRequest {
            limit,
            after: below,
        };
        let page = state.store.list_evm_txs(&filter, &request).await?;
        more |= page.next.is_some();
        rows.extend(page.items.into_iter().map(|t| (tx_position(&t), t)));
    }
    let (txs, next) = merge(rows, more, limit);
    let mut response =
        ListNativeTransactionsResponse::new(&txs, paging.binding.next(next.as_ref()));
    // The same address can be a token on one chain and not on another: named chain by chain.
    let chains: std::collections::BTreeSet<u64> = txs.iter().map(|t| t.chain_id).collect();
    for chain_id in chains {
        let wire_id = chain_id.to_string();
        let mut of_chain: Vec<_> = response
            .transactions
            .iter_mut()
            .filter(|t| t.chain_id == wire_id)
            .collect();
        super::name_addresses(&state, chain_id, &mut of_chain).await?;
    }
    Ok(Json(response))
}

/// `GET /v1/blocks`
#[utoipa::path(get, path = "/v1/blocks",
    operation_id = "listLatestBlocksAllChains", tag = "EVM Blocks",
    summary = "List latest blocks across all supported EVM chains",
    description = "Lists the latest blocks of every indexed EVM chain, newest first. Filterable by network.",
    params(("network" = Option<String>, Query, description = "mainnet, fuji or testnet"),
           ("pageToken" = Option<String>, Query), ("pageSize" = Option<u32>, Query, minimum = 1, maximum = 100)),
    responses((status = 200, description = "A page of blocks", body = ListEvmBlocksResponse),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody)))]
pub async fn list_latest_blocks(
    State(state): State<AppState>,
    uri: Uri,
    mut q: Query,
) -> ApiResult<Json<ListEvmBlocksResponse>> {
    let network = q.one_of("network", &NETWORKS);
    let paging = q.paging::<ChainsCursor>(uri.path(), &state.config.page_token_key, 10, 100);
    q.finish()?;
    let (limit, after) = (paging.request.limit, paging.request.after);
    let (mut rows, mut more) = (Vec::new(), false);
    for (chain_id, below) in resume_all(&state, network, after).await? {
        let after = below.map(|b| HeightCursor { height: b.height });
        let page = state
            .store
            .list_evm_blocks(chain_id, &PageRequest { limit, after })
            .await?;
        more |= page.next.is_some();
        rows.extend(page.items.into_iter().map(|b| (block_position(&b), b)));
    }
    let (blocks, next) = merge(rows, more, limit);
    Ok(Json(ListEvmBlocksResponse {
        next_page_token: paging.binding.next(next.as_ref()),
        blocks: blocks.iter().map(EvmBlock::from).collect(),
    }))
}
