//! Primary-network routes: latest transactions, active staking transactions, latest blocks,
//! blocks by proposer and chain IDs of addresses.

use axum::extract::State;
use axum::http::Uri;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use firn_core::ids::Id;
use firn_store::page::{HeightCursor, TxCursor};
use firn_store::rows::ChainKey;
use firn_store::{
    CAtomicReader, CursorStore, PBlockFilter, PChainReader, PTxFilter, SortOrder, XBlockFilter,
    XChainReader, XTxFilter,
};

use super::network::{PrimaryChain, check_network, primary_chain};
use crate::error::{ApiError, ApiResult};
use crate::metrics_api::{Clock, SystemClock};
use crate::params::{PathParams, Query};
use crate::state::AppState;
use crate::wire::pchain::{
    ChainAddressChainIdMap, ChainAddressChainIdMapListResponse, Ctx,
    ListPChainTransactionsResponse, ListPrimaryNetworkBlocksResponse, PChainTransaction,
    PrimaryNetworkBlock, PrimaryNetworkChainInfo, TX_TYPE_FILTER,
};

pub(crate) fn router() -> Router<AppState> {
    Router::new()
        .route(
            "/v1/networks/{network}/blockchains/{blockchainId}/transactions",
            get(list_latest_transactions),
        )
        .route(
            "/v1/networks/{network}/blockchains/{blockchainId}/transactions:listStaking",
            get(list_staking_transactions),
        )
        .route(
            "/v1/networks/{network}/blockchains/{blockchainId}/blocks",
            get(list_latest_blocks),
        )
        .route(
            "/v1/networks/{network}/blockchains/{blockchainId}/nodes/{nodeId}/blocks",
            get(list_blocks_by_node),
        )
        .route(
            "/v1/networks/{network}/addresses:listChainIds",
            get(list_chain_ids),
        )
}

/// Default and largest `pageSize` of primary-network lists.
const PAGE_DEFAULT: u32 = 10;
const PAGE_MAX: u32 = 100;

fn chain_info(state: &AppState, chain: PrimaryChain) -> PrimaryNetworkChainInfo {
    PrimaryNetworkChainInfo {
        chain_name: chain.wire_name().to_owned(),
        network: state.config.network.wire_name().to_owned(),
    }
}

/// The time stakers' status is judged at: the last stored P-Chain block's time (the devnet
/// runs on a virtual clock), or the wall clock before any block.
pub(crate) async fn chain_time(state: &AppState) -> ApiResult<u64> {
    if let Some(h) = state.store.find_cursor(ChainKey::PChain).await?
        && let Some(b) = state.store.find_pchain_block(h).await?
    {
        return Ok(b.block.timestamp);
    }
    Ok(SystemClock.now())
}

/// `txTypes`, `startTimestamp` and `endTimestamp` of a transaction list, checked.
pub(crate) fn types_and_window(q: &mut Query) -> (Vec<String>, Option<u64>, Option<u64>) {
    let tx_types = q.enum_list("txTypes", &TX_TYPE_FILTER);
    let start_ts = q.timestamp("startTimestamp");
    let end_ts = q.timestamp("endTimestamp");
    if let (Some(s), Some(e)) = (start_ts, end_ts)
        && s > e
    {
        q.error("startTimestamp must be less than or equal to endTimestamp");
    }
    (tx_types, start_ts, end_ts)
}

/// The filters shared by the two transaction lists, and on the C-Chain the EVM `0x` addresses
/// `addresses` may also hold (its atomic transactions name both kinds).
fn tx_filter(
    state: &AppState,
    q: &mut Query,
    chain: Option<PrimaryChain>,
) -> (PTxFilter, Vec<firn_store::types::Address>) {
    let hrp = &state.config.network.hrp;
    let (addresses, accounts) = match chain {
        Some(PrimaryChain::C) => q.atomic_addresses("addresses", hrp),
        _ => (q.pchain_addresses("addresses", hrp), Vec::new()),
    };
    let l1_validation_id = if chain == Some(PrimaryChain::P) {
        q.id("l1ValidationId")
    } else {
        None
    };
    let (tx_types, start_ts, end_ts) = types_and_window(q);
    let filter = PTxFilter {
        addresses,
        l1_validation_id,
        tx_types,
        start_ts,
        end_ts,
    };
    (filter, accounts)
}

/// `GET /v1/networks/{network}/blockchains/{blockchainId}/transactions`
#[utoipa::path(get, path = "/v1/networks/{network}/blockchains/{blockchainId}/transactions",
    operation_id = "listLatestPrimaryNetworkTransactions", tag = "Primary Network Transactions",
    summary = "List latest transactions",
    description = "Lists the latest transactions on one of the Primary Network chains. Transactions are filterable by addresses, txTypes, and timestamps (which need addresses), and on the P-Chain by l1ValidationId.",
    params(
        ("network" = String, Path, description = "mainnet, fuji or testnet"),
        ("blockchainId" = String, Path, description = "A primary network blockchain ID or alias (p-chain, x-chain, c-chain)"),
        ("addresses" = Option<String>, Query, description = "Comma-separated P-Chain addresses (fuji1…, P-fuji1…); on the C-Chain, EVM 0x addresses too"),
        ("l1ValidationId" = Option<String>, Query, description = "L1 validation ID (cb58)"),
        ("txTypes" = Option<Vec<String>>, Query, description = "Transaction types (PrimaryNetworkTxType)"),
        ("startTimestamp" = Option<u64>, Query, description = "Transactions at or after this time", minimum = 0),
        ("endTimestamp" = Option<u64>, Query, description = "Transactions at or before this time", minimum = 0),
        ("pageToken" = Option<String>, Query, description = "nextPageToken of the previous page"),
        ("pageSize" = Option<u32>, Query, description = "Items per page (default 10)", minimum = 1, maximum = 100),
        ("sortOrder" = Option<String>, Query, description = "asc or desc (default desc)"),
    ),
    responses((status = 200, description = "A page of transactions", body = ListPChainTransactionsResponse),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody),
              (status = 404, description = "Not served", body = crate::error::ErrorBody)))]
pub async fn list_latest_transactions(
    State(state): State<AppState>,
    uri: Uri,
    path: PathParams,
    mut q: Query,
) -> ApiResult<Response> {
    check_network(&state.config.network, path.get("network"))?;
    let chain = primary_chain(&state.config.network, &mut q, path.get("blockchainId"));
    let (filter, accounts) = tx_filter(&state, &mut q, chain);
    let has_filters =
        !filter.tx_types.is_empty() || filter.start_ts.is_some() || filter.end_ts.is_some();
    let no_addresses = filter.addresses.is_empty() && accounts.is_empty();
    if has_filters && no_addresses && filter.l1_validation_id.is_none() {
        q.error("txTypes, startTimestamp and endTimestamp need addresses (or, on the P-Chain, l1ValidationId)");
    }
    let order = q.sort_order();
    let paging = q.paging::<TxCursor>(
        uri.path(),
        &state.config.page_token_key,
        PAGE_DEFAULT,
        PAGE_MAX,
    );
    q.finish()?;
    match chain {
        Some(PrimaryChain::P) => {}
        Some(PrimaryChain::X) => {
            let filter = XTxFilter {
                addresses: filter.addresses,
                asset_id: None,
                tx_types: filter.tx_types,
                start_ts: filter.start_ts,
                end_ts: filter.end_ts,
            };
            return super::xchain::list_txs(
                &state,
                &filter,
                order,
                &paging.request,
                &paging.binding,
            )
            .await;
        }
        Some(PrimaryChain::C) => {
            let filter = super::cchain::filter(
                filter.addresses,
                accounts,
                filter.tx_types,
                (filter.start_ts, filter.end_ts),
            );
            return super::cchain::list_txs(
                &state,
                &filter,
                order,
                &paging.request,
                &paging.binding,
            )
            .await;
        }
        None => {
            return Err(ApiError::bad(
                "blockchainId must name a primary-network chain",
            ));
        }
    }
    let page = state
        .store
        .list_pchain_txs(&filter, order, &paging.request)
        .await?;
    let ctx = Ctx::new(&state.config.network, &state.avax_asset_cb58);
    Ok(Json(ListPChainTransactionsResponse {
        next_page_token: paging.binding.next(page.next.as_ref()),
        transactions: page
            .items
            .iter()
            .map(|t| PChainTransaction::from_record(ctx, t))
            .collect(),
        chain_info: chain_info(&state, PrimaryChain::P),
    })
    .into_response())
}

/// `GET /v1/networks/{network}/blockchains/{blockchainId}/transactions:listStaking`
#[utoipa::path(get, path = "/v1/networks/{network}/blockchains/{blockchainId}/transactions:listStaking",
    operation_id = "listActivePrimaryNetworkStakingTransactions", tag = "Primary Network Transactions",
    summary = "List staking transactions",
    description = "Lists active staking transactions on the P-Chain for the supplied addresses.",
    params(
        ("network" = String, Path, description = "mainnet, fuji or testnet"),
        ("blockchainId" = String, Path, description = "The P-Chain ID or p-chain"),
        ("addresses" = Option<String>, Query, description = "Comma-separated P-Chain addresses"),
        ("txTypes" = Option<Vec<String>>, Query, description = "Transaction types"),
        ("startTimestamp" = Option<u64>, Query, minimum = 0),
        ("endTimestamp" = Option<u64>, Query, minimum = 0),
        ("pageToken" = Option<String>, Query),
        ("pageSize" = Option<u32>, Query, minimum = 1, maximum = 100),
        ("sortOrder" = Option<String>, Query, description = "asc or desc (default desc)"),
    ),
    responses((status = 200, description = "A page of staking transactions", body = ListPChainTransactionsResponse),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody)))]
pub async fn list_staking_transactions(
    State(state): State<AppState>,
    uri: Uri,
    path: PathParams,
    mut q: Query,
) -> ApiResult<Json<ListPChainTransactionsResponse>> {
    check_network(&state.config.network, path.get("network"))?;
    let chain = primary_chain(&state.config.network, &mut q, path.get("blockchainId"));
    if matches!(chain, Some(PrimaryChain::X | PrimaryChain::C)) {
        q.error("blockchainId must be the P-Chain ID or p-chain");
    }
    // Staking lists take neither EVM addresses nor l1ValidationId.
    let (filter, _) = tx_filter(&state, &mut q, None);
    let order = q.sort_order();
    let paging = q.paging::<TxCursor>(
        uri.path(),
        &state.config.page_token_key,
        PAGE_DEFAULT,
        PAGE_MAX,
    );
    q.finish()?;
    let now = chain_time(&state).await?;
    let page = state
        .store
        .list_active_staking_txs(&filter, now, order, &paging.request)
        .await?;
    let ctx = Ctx::new(&state.config.network, &state.avax_asset_cb58);
    Ok(Json(ListPChainTransactionsResponse {
        next_page_token: paging.binding.next(page.next.as_ref()),
        transactions: page
            .items
            .iter()
            .map(|t| PChainTransaction::from_record(ctx, t))
            .collect(),
        chain_info: chain_info(&state, PrimaryChain::P),
    }))
}

async fn blocks(
    state: AppState,
    uri: Uri,
    path: PathParams,
    mut q: Query,
    by_node: bool,
) -> ApiResult<Json<ListPrimaryNetworkBlocksResponse>> {
    check_network(&state.config.network, path.get("network"))?;
    let chain = primary_chain(&state.config.network, &mut q, path.get("blockchainId"));
    let proposer = if by_node {
        match path.get("nodeId").parse() {
            Ok(n) => Some(n),
            Err(_) => {
                q.error("nodeId must be a node ID (NodeID-…)");
                None
            }
        }
    } else {
        None
    };
    let start_ts = q.timestamp("startTimestamp");
    let end_ts = q.timestamp("endTimestamp");
    let paging = q.paging::<HeightCursor>(
        uri.path(),
        &state.config.page_token_key,
        PAGE_DEFAULT,
        PAGE_MAX,
    );
    q.finish()?;
    match chain {
        Some(PrimaryChain::P) => {}
        Some(PrimaryChain::X) if proposer.is_none() => {
            let filter = XBlockFilter { start_ts, end_ts };
            return super::xchain::list_blocks(&state, &filter, &paging.request, &paging.binding)
                .await;
        }
        Some(PrimaryChain::X) => {
            return Err(ApiError::not_found(
                "X-Chain blocks are not indexed by proposer: list them without nodeId",
            ));
        }
        Some(PrimaryChain::C) if proposer.is_none() => {
            let window = (start_ts, end_ts);
            return super::cchain::list_blocks(&state, window, &paging.request, &paging.binding)
                .await;
        }
        Some(PrimaryChain::C) => {
            return Err(ApiError::not_found(
                "C-Chain blocks are not indexed by proposer: list them without nodeId",
            ));
        }
        None => {
            return Err(ApiError::bad(
                "blockchainId must name a primary-network chain",
            ));
        }
    }
    let filter = PBlockFilter {
        proposer,
        start_ts,
        end_ts,
    };
    let page = state
        .store
        .list_pchain_blocks(&filter, SortOrder::Desc, &paging.request)
        .await?;
    Ok(Json(ListPrimaryNetworkBlocksResponse {
        next_page_token: paging.binding.next(page.next.as_ref()),
        blocks: page.items.iter().map(PrimaryNetworkBlock::from).collect(),
        chain_info: chain_info(&state, PrimaryChain::P),
    }))
}

/// `GET /v1/networks/{network}/blockchains/{blockchainId}/blocks`
#[utoipa::path(get, path = "/v1/networks/{network}/blockchains/{blockchainId}/blocks",
    operation_id = "listLatestPrimaryNetworkBlocks", tag = "Primary Network Blocks",
    summary = "List latest blocks", description = "Lists latest blocks on one of the Primary Network chains, newest first.",
    params(
        ("network" = String, Path), ("blockchainId" = String, Path),
        ("startTimestamp" = Option<u64>, Query, minimum = 0), ("endTimestamp" = Option<u64>, Query, minimum = 0),
        ("pageToken" = Option<String>, Query), ("pageSize" = Option<u32>, Query, minimum = 1, maximum = 100),
    ),
    responses((status = 200, description = "A page of blocks", body = ListPrimaryNetworkBlocksResponse),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody)))]
pub async fn list_latest_blocks(
    State(state): State<AppState>,
    uri: Uri,
    path: PathParams,
    q: Query,
) -> ApiResult<Json<ListPrimaryNetworkBlocksResponse>> {
    blocks(state, uri, path, q, false).await
}

/// `GET /v1/networks/{network}/blockchains/{blockchainId}/nodes/{nodeId}/blocks`
#[utoipa::path(get, path = "/v1/networks/{network}/blockchains/{blockchainId}/nodes/{nodeId}/blocks",
    operation_id = "listPrimaryNetworkBlocksByNodeId", tag = "Primary Network Blocks",
    summary = "List blocks proposed by node", description = "Lists the latest blocks proposed by a given NodeID.",
    params(
        ("network" = String, Path), ("blockchainId" = String, Path), ("nodeId" = String, Path),
        ("startTimestamp" = Option<u64>, Query, minimum = 0), ("endTimestamp" = Option<u64>, Query, minimum = 0),
        ("pageToken" = Option<String>, Query), ("pageSize" = Option<u32>, Query, minimum = 1, maximum = 100),
    ),
    responses((status = 200, description = "A page of blocks", body = ListPrimaryNetworkBlocksResponse),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody)))]
pub async fn list_blocks_by_node(
    State(state): State<AppState>,
    uri: Uri,
    path: PathParams,
    q: Query,
) -> ApiResult<Json<ListPrimaryNetworkBlocksResponse>> {
    blocks(state, uri, path, q, true).await
}

/// `GET /v1/networks/{network}/addresses:listChainIds`
#[utoipa::path(get, path = "/v1/networks/{network}/addresses:listChainIds",
    operation_id = "getChainIdsForAddresses", tag = "Primary Network",
    summary = "Get chain interactions for addresses",
    description = "Returns the Primary Network chains each address has touched (the P-Chain and the X-Chain).",
    params(("network" = String, Path), ("addresses" = String, Query, description = "Comma-separated addresses")),
    responses((status = 200, description = "Chains per address", body = ChainAddressChainIdMapListResponse),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody)))]
pub async fn list_chain_ids(
    State(state): State<AppState>,
    path: PathParams,
    mut q: Query,
) -> ApiResult<Json<ChainAddressChainIdMapListResponse>> {
    check_network(&state.config.network, path.get("network"))?;
    let raw = q.list("addresses");
    if raw.is_empty() {
        q.error("addresses should not be empty");
    }
    let ids = q.pchain_addresses("addresses", &state.config.network.hrp);
    q.finish()?;
    let mut found: std::collections::HashMap<_, Vec<Id>> = state
        .store
        .list_address_chains(&ids)
        .await?
        .into_iter()
        .collect();
    // The X-Chain's holders are read from its UTXOs, the C-Chain's from the owners its atomic
    // txs name; the lists stay sorted by ID bytes.
    let network = &state.config.network;
    let x_holders = state.store.list_xchain_holders(&ids).await?;
    let c_owners = state.store.list_c_atomic_owners(&ids).await?;
    for (holders, chain) in [
        (x_holders, network.x_chain_id),
        (c_owners, network.c_chain_id),
    ] {
        for holder in holders {
            let chains = found.entry(holder).or_default();
            chains.push(chain);
            chains.sort();
            chains.dedup();
        }
    }
    let addresses = raw
        .into_iter()
        .zip(ids)
        .map(|(address, id)| ChainAddressChainIdMap {
            address,
            blockchain_ids: found
                .get(&id)
                .map(|chains| chains.iter().map(Id::to_string).collect())
                .unwrap_or_default(),
        })
        .collect();
    Ok(Json(ChainAddressChainIdMapListResponse { addresses }))
}
