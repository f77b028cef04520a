//! The X-Chain: its asset routes (`getAssetDetails`, `listAssetTransactions`), the DAG's
//! vertices from before Cortina (`listLatestXChainVertices`, `getVertexByHash`,
//! `getVertexByHeight`), and the X-Chain halves of the primary-network routes, which dispatch here when `blockchainId` names it
//! (transactions, blocks, UTXOs, balances).
//!
//! Every X-Chain shape names its assets; each response reads the ones it names in one query
//! ([`assets_named`]) before rendering.

use std::collections::HashMap;

use axum::extract::State;
use axum::http::Uri;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use firn_core::avm::{Tx, UnsignedTx};
use firn_core::codec;
use firn_core::ids::{Id, ShortId};
use firn_store::page::{HeightCursor, Page, PageRequest, TxCursor, UtxoCursor};
use firn_store::rows::atomic::AtomicExportRecord;
use firn_store::rows::xchain::{XAssetRecord, XTxRecord, XUtxoRecord, XVertexRecord};
use firn_store::{
    AtomicMemoryReader, SortOrder, XBlockFilter, XChainReader, XTxFilter, XUtxoFilter,
    XVertexReader,
};

use super::network::{PrimaryChain, check_network, primary_chain};
use crate::error::{ApiError, ApiResult};
use crate::paging::Binding;
use crate::params::{PathParams, Query};
use crate::state::AppState;
use crate::wire::pchain::{
    Ctx, ListPrimaryNetworkBlocksResponse, PrimaryNetworkBlock, PrimaryNetworkChainInfo,
};
use crate::wire::xchain::{
    ListUtxosResponse, ListXChainBalancesResponse, ListXChainTransactionsResponse,
    ListXChainVerticesResponse, Utxo, XChainAssetDetails, XChainBalances, XChainTransaction,
    XChainVertex, XCtx,
};

/// Default and largest `pageSize` of the asset's transactions.
const PAGE_DEFAULT: u32 = 10;
const PAGE_MAX: u32 = 100;

pub(crate) fn router() -> Router<AppState> {
    Router::new()
        .route(
            "/v1/networks/{network}/blockchains/{blockchainId}/assets/{assetId}",
            get(get_asset_details),
        )
        .route(
            "/v1/networks/{network}/blockchains/{blockchainId}/assets/{assetId}/transactions",
            get(list_asset_transactions),
        )
        .route(
            "/v1/networks/{network}/blockchains/{blockchainId}/vertices",
            get(list_latest_vertices),
        )
        .route(
            "/v1/networks/{network}/blockchains/{blockchainId}/vertices/{vertexHash}",
            get(get_vertex_by_hash),
        )
        .route(
            "/v1/networks/{network}/blockchains/{blockchainId}/vertices:listByHeight",
            get(list_vertices_by_height),
        )
}

pub(crate) fn chain_info(state: &AppState) -> PrimaryNetworkChainInfo {
    PrimaryNetworkChainInfo {
        chain_name: PrimaryChain::X.wire_name().to_owned(),
        network: state.config.network.wire_name().to_owned(),
    }
}

/// The network of the path, and its chain, which must be the X-Chain.
fn checked_x_chain(state: &AppState, path: &PathParams, q: &mut Query) -> ApiResult<()> {
    check_network(&state.config.network, path.get("network"))?;
    let chain = primary_chain(&state.config.network, q, path.get("blockchainId"));
    if chain.is_some() && chain != Some(PrimaryChain::X) {
        q.error(format!(
            "blockchainId must be the X-Chain's ID ({}) or x-chain",
            state.config.network.x_chain_id
        ));
    }
    Ok(())
}

/// A one-thing route on the X-Chain: its network and chain, no query, and the cb58 ID of
/// `what` in the path parameter `name` (with the text as sent, for messages).
fn checked_x_chain_id<'a>(
    state: &AppState,
    path: &'a PathParams,
    mut q: Query,
    name: &str,
    what: &str,
) -> ApiResult<(&'a str, Id)> {
    checked_x_chain(state, path, &mut q)?;
    let raw = path.get(name);
    let id: Option<Id> = raw.parse().ok();
    if id.is_none() {
        q.error(format!("{name} must be a cb58 {what} ID"));
    }
    q.finish()?;
    let id = id.ok_or_else(|| ApiError::bad(format!("{name} must be a cb58 {what} ID")))?;
    Ok((raw, id))
}

/// The assets `ids` names (those the store knows), by ID.
async fn assets_named(state: &AppState, mut ids: Vec<Id>) -> ApiResult<HashMap<Id, XAssetRecord>> {
    ids.sort_unstable();
    ids.dedup();
    let found = state.store.list_assets_by_id(&ids).await?;
    Ok(found.into_iter().map(|a| (a.asset.asset_id, a)).collect())
}

/// Every asset a tx's shape names: its UTXOs', its crossings', the one it created.
fn tx_assets(t: &XTxRecord, decoded: Option<&Tx>, out: &mut Vec<Id>) {
    out.extend(
        t.consumed
            .iter()
            .chain(&t.produced)
            .map(|u| u.utxo.asset_id),
    );
    match decoded.map(Tx::unsigned) {
        Some(UnsignedTx::Import(i)) => out.extend(i.imported_inputs.iter().map(|i| i.asset_id)),
        Some(UnsignedTx::Export(e)) => out.extend(e.exported_outputs.iter().map(|o| o.asset_id)),
        Some(UnsignedTx::CreateAsset(_)) => out.push(t.tx_id),
        _ => {}
    }
}

async fn render_txs(state: &AppState, txs: &[XTxRecord]) -> ApiResult<Vec<XChainTransaction>> {
    // Stored bytes were decoded once to be stored: one that fails now renders without crossings.
    let decoded: Vec<Option<Tx>> = txs
        .iter()
        .map(|t| codec::from_bytes::<Tx>(&t.bytes).ok())
        .collect();
    let (mut ids, mut imported) = (Vec::new(), Vec::new());
    for (t, tx) in txs.iter().zip(&decoded) {
        tx_assets(t, tx.as_ref(), &mut ids);
        if let Some(UnsignedTx::Import(i)) = tx.as_ref().map(Tx::unsigned) {
            imported.extend(i.imported_inputs.iter().map(|i| i.utxo_id()));
        }
    }
    let assets = assets_named(state, ids).await?;
    // Their owners and creation time, where the exporting chain is indexed.
    let exports: HashMap<Id, AtomicExportRecord> = state
        .store
        .list_atomic_exports(&imported)
        .await?
        .into_iter()
        .map(|e| (e.utxo.utxo_id, e))
        .collect();
    let ctx = XCtx::new(
        Ctx::new(&state.config.network, &state.avax_asset_cb58),
        &assets,
    )
    .with_exports(&exports);
    Ok(txs
        .iter()
        .zip(&decoded)
        .map(|(t, tx)| XChainTransaction::from_record(ctx, t, tx.as_ref()))
        .collect())
}

async fn tx_page(
    state: &AppState,
    filter: &XTxFilter,
    order: SortOrder,
    request: &PageRequest<TxCursor>,
    binding: &Binding,
) -> ApiResult<ListXChainTransactionsResponse> {
    let page = state.store.list_xchain_txs(filter, order, request).await?;
    Ok(ListXChainTransactionsResponse {
        next_page_token: binding.next(page.next.as_ref()),
        transactions: render_txs(state, &page.items).await?,
        chain_info: chain_info(state),
    })
}

/// `listLatestPrimaryNetworkTransactions` on the X-Chain.
pub(crate) async fn list_txs(
    state: &AppState,
    filter: &XTxFilter,
    order: SortOrder,
    request: &PageRequest<TxCursor>,
    binding: &Binding,
) -> ApiResult<Response> {
    Ok(Json(tx_page(state, filter, order, request, binding).await?).into_response())
}

/// `getTxByHash` on the X-Chain.
pub(crate) async fn get_tx(state: &AppState, raw: &str, hash: Id) -> ApiResult<XChainTransaction> {
    let tx = state.store.get_xchain_tx(hash).await?;
    render_txs(state, std::slice::from_ref(&tx))
        .await?
        .pop()
        .ok_or_else(|| ApiError::not_found(format!("transaction {raw} not found")))
}

/// The primary-network block shape of X-Chain blocks, with their txs' IDs.
async fn blocks_shape(
    state: &AppState,
    blocks: &[firn_store::rows::xchain::XBlockRecord],
) -> ApiResult<Vec<PrimaryNetworkBlock>> {
    let heights: Vec<u64> = blocks.iter().map(|b| b.height).collect();
    let mut txs =
        PrimaryNetworkBlock::txs_by_height(state.store.list_xchain_block_txs(&heights).await?);
    Ok(blocks
        .iter()
        .map(|b| {
            PrimaryNetworkBlock::standard(
                b.height,
                (b.block_id.to_string(), b.parent_id.to_string()),
                b.timestamp,
                b.size_bytes,
                b.tx_count,
                txs.remove(&b.height).unwrap_or_default(),
            )
        })
        .collect())
}

/// `listLatestPrimaryNetworkBlocks` on the X-Chain.
pub(crate) async fn list_blocks(
    state: &AppState,
    filter: &XBlockFilter,
    request: &PageRequest<HeightCursor>,
    binding: &Binding,
) -> ApiResult<Json<ListPrimaryNetworkBlocksResponse>> {
    let page = state
        .store
        .list_xchain_blocks(filter, SortOrder::Desc, request)
        .await?;
    Ok(Json(ListPrimaryNetworkBlocksResponse {
        next_page_token: binding.next(page.next.as_ref()),
        blocks: blocks_shape(state, &page.items).await?,
        chain_info: chain_info(state),
    }))
}

/// `getBlockById` on the X-Chain: `raw` is a height or a block ID.
pub(crate) async fn get_block(state: &AppState, raw: &str) -> ApiResult<Json<PrimaryNetworkBlock>> {
    let found = if !raw.is_empty() && raw.bytes().all(|b| b.is_ascii_digit()) {
        let height: u64 = raw
            .parse()
            .map_err(|_| ApiError::bad("blockId is a height too large for any block"))?;
        state.store.get_xchain_block_by_height(height).await
    } else {
        let id: Id = raw
            .parse()
            .map_err(|_| ApiError::bad("blockId must be a block height or a cb58 block ID"))?;
        state.store.get_xchain_block_by_id(id).await
    };
    let block = found?;
    let mut shaped = blocks_shape(state, std::slice::from_ref(&block)).await?;
    shaped
        .pop()
        .map(Json)
        .ok_or_else(|| ApiError::not_found(format!("block {raw} not found")))
}

/// `getUtxosByAddresses` on the X-Chain.
pub(crate) async fn list_utxos(
    state: &AppState,
    filter: &XUtxoFilter,
    order: SortOrder,
    request: &PageRequest<UtxoCursor>,
    binding: &Binding,
) -> ApiResult<Response> {
    let page: Page<XUtxoRecord, UtxoCursor> = state
        .store
        .list_xchain_utxos(filter, order, request)
        .await?;
    let assets = assets_named(state, page.items.iter().map(|u| u.utxo.asset_id).collect()).await?;
    let ctx = XCtx::new(
        Ctx::new(&state.config.network, &state.avax_asset_cb58),
        &assets,
    );
    Ok(Json(ListUtxosResponse {
        next_page_token: binding.next(page.next.as_ref()),
        utxos: page
            .items
            .iter()
            .map(|u| Utxo::from_record(ctx, u))
            .collect(),
        chain_info: chain_info(state),
    })
    .into_response())
}

/// The time X-Chain locks are judged at: the last stored X-Chain block's (the devnet runs on
/// a virtual clock), or the P-Chain's before any.
async fn x_chain_time(state: &AppState) -> ApiResult<u64> {
    let last = state
        .store
        .list_xchain_blocks(
            &XBlockFilter::default(),
            SortOrder::Desc,
            &PageRequest::first(1),
        )
        .await?;
    match last.items.first() {
        Some(b) => Ok(b.timestamp),
        None => super::primary::chain_time(state).await,
    }
}

/// `getBalancesByAddresses` on the X-Chain.
pub(crate) async fn balances(state: &AppState, addresses: &[ShortId]) -> ApiResult<Response> {
    let now = x_chain_time(state).await?;
    let sums = state.store.list_xchain_balances(addresses, now).await?;
    let x_chain = state.config.network.x_chain_id;
    let held = state
        .store
        .list_atomic_balances(x_chain, addresses, None, now)
        .await?;
    let named = sums.iter().map(|s| s.asset_id);
    let assets = assets_named(
        state,
        named.chain(held.iter().map(|b| b.asset_id)).collect(),
    )
    .await?;
    let ctx = XCtx::new(
        Ctx::new(&state.config.network, &state.avax_asset_cb58),
        &assets,
    );
    Ok(Json(ListXChainBalancesResponse {
        balances: XChainBalances::from_sums(ctx, &sums).with_atomic_memory(ctx, &held),
        chain_info: chain_info(state),
    })
    .into_response())
}

/// `GET /v1/networks/{network}/blockchains/{blockchainId}/assets/{assetId}`
#[utoipa::path(get, path = "/v1/networks/{network}/blockchains/{blockchainId}/assets/{assetId}",
    operation_id = "getAssetDetails", tag = "Primary Network",
    summary = "Get asset details",
    description = "An X-Chain asset: its name, symbol, denomination, type, cap and creation time.",
    params(("network" = String, Path), ("blockchainId" = String, Path, description = "x-chain or the X-Chain's ID"),
           ("assetId" = String, Path, description = "Asset ID (cb58): its CreateAssetTx's ID")),
    responses((status = 200, description = "The asset", body = XChainAssetDetails),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody),
              (status = 404, description = "Unknown asset", body = crate::error::ErrorBody)))]
pub async fn get_asset_details(
    State(state): State<AppState>,
    path: PathParams,
    q: Query,
) -> ApiResult<Json<XChainAssetDetails>> {
    let (raw, id) = checked_x_chain_id(&state, &path, q, "assetId", "asset")?;
    let assets = assets_named(&state, vec![id]).await?;
    let asset = assets
        .get(&id)
        .ok_or_else(|| ApiError::not_found(format!("asset {raw} not found")))?;
    let ctx = XCtx::new(
        Ctx::new(&state.config.network, &state.avax_asset_cb58),
        &assets,
    );
    Ok(Json(XChainAssetDetails::from_record(ctx, asset)))
}

/// `GET /v1/networks/{network}/blockchains/{blockchainId}/assets/{assetId}/transactions`
#[utoipa::path(get, path = "/v1/networks/{network}/blockchains/{blockchainId}/assets/{assetId}/transactions",
    operation_id = "listAssetTransactions", tag = "Primary Network Transactions",
    summary = "List asset transactions",
    description = "The X-Chain transactions that created an asset or moved it, newest first.",
    params(
        ("network" = String, Path), ("blockchainId" = String, Path, description = "x-chain or the X-Chain's ID"),
        ("assetId" = String, Path, description = "Asset ID (cb58)"),
        ("txTypes" = Option<Vec<String>>, Query, description = "Transaction types"),
        ("startTimestamp" = Option<u64>, Query, minimum = 0), ("endTimestamp" = Option<u64>, Query, minimum = 0),
        ("pageToken" = Option<String>, Query), ("pageSize" = Option<u32>, Query, minimum = 1, maximum = 100),
    ),
    responses((status = 200, description = "A page of transactions", body = ListXChainTransactionsResponse),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody)))]
pub async fn list_asset_transactions(
    State(state): State<AppState>,
    uri: Uri,
    path: PathParams,
    mut q: Query,
) -> ApiResult<Json<ListXChainTransactionsResponse>> {
    checked_x_chain(&state, &path, &mut q)?;
    let asset_id: Option<Id> = path.get("assetId").parse().ok();
    if asset_id.is_none() {
        q.error("assetId must be a cb58 asset ID");
    }
    let (tx_types, start_ts, end_ts) = super::primary::types_and_window(&mut q);
    let paging = q.paging::<TxCursor>(
        uri.path(),
        &state.config.page_token_key,
        PAGE_DEFAULT,
        PAGE_MAX,
    );
    q.finish()?;
    let filter = XTxFilter {
        addresses: Vec::new(),
        asset_id,
        tx_types,
        start_ts,
        end_ts,
    };
    let page = tx_page(
        &state,
        &filter,
        SortOrder::Desc,
        &paging.request,
        &paging.binding,
    )
    .await?;
    Ok(Json(page))
}

fn vertices_page(
    state: &AppState,
    page: Page<XVertexRecord, HeightCursor>,
    binding: &Binding,
) -> Json<ListXChainVerticesResponse> {
    Json(ListXChainVerticesResponse {
        next_page_token: binding.next(page.next.as_ref()),
        vertices: page.items.iter().map(XChainVertex::from).collect(),
        chain_info: chain_info(state),
    })
}

/// `GET /v1/networks/{network}/blockchains/{blockchainId}/vertices`
#[utoipa::path(get, path = "/v1/networks/{network}/blockchains/{blockchainId}/vertices",
    operation_id = "listLatestXChainVertices", tag = "Primary Network Vertices",
    summary = "List vertices",
    description = "The X-Chain's DAG vertices from before Cortina, latest accepted first (empty on a chain born linear).",
    params(("network" = String, Path), ("blockchainId" = String, Path, description = "x-chain or the X-Chain's ID"),
        ("pageToken" = Option<String>, Query), ("pageSize" = Option<u32>, Query, minimum = 1, maximum = 100)),
    responses((status = 200, description = "A page of vertices", body = ListXChainVerticesResponse),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody)))]
pub async fn list_latest_vertices(
    State(state): State<AppState>,
    uri: Uri,
    path: PathParams,
    mut q: Query,
) -> ApiResult<Json<ListXChainVerticesResponse>> {
    checked_x_chain(&state, &path, &mut q)?;
    let paging = q.paging::<HeightCursor>(
        uri.path(),
        &state.config.page_token_key,
        PAGE_DEFAULT,
        PAGE_MAX,
    );
    q.finish()?;
    let page = state
        .store
        .list_xchain_vertices(SortOrder::Desc, &paging.request)
        .await?;
    Ok(vertices_page(&state, page, &paging.binding))
}

/// `GET /v1/networks/{network}/blockchains/{blockchainId}/vertices/{vertexHash}`
#[utoipa::path(get, path = "/v1/networks/{network}/blockchains/{blockchainId}/vertices/{vertexHash}",
    operation_id = "getVertexByHash", tag = "Primary Network Vertices",
    summary = "Get vertex", description = "An X-Chain DAG vertex by its ID.",
    params(("network" = String, Path), ("blockchainId" = String, Path, description = "x-chain or the X-Chain's ID"),
           ("vertexHash" = String, Path, description = "Vertex ID (cb58)")),
    responses((status = 200, description = "The vertex", body = XChainVertex),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody),
              (status = 404, description = "Unknown vertex", body = crate::error::ErrorBody)))]
pub async fn get_vertex_by_hash(
    State(state): State<AppState>,
    path: PathParams,
    q: Query,
) -> ApiResult<Json<XChainVertex>> {
    let (_, id) = checked_x_chain_id(&state, &path, q, "vertexHash", "vertex")?;
    let vertex = state.store.get_xchain_vertex_by_id(id).await?;
    Ok(Json(XChainVertex::from(&vertex)))
}

/// `GET /v1/networks/{network}/blockchains/{blockchainId}/vertices:listByHeight`
#[utoipa::path(get, path = "/v1/networks/{network}/blockchains/{blockchainId}/vertices:listByHeight",
    operation_id = "getVertexByHeight", tag = "Primary Network Vertices",
    summary = "List vertices by height", description = "The X-Chain DAG vertices at one height, by acceptance.",
    params(("network" = String, Path), ("blockchainId" = String, Path, description = "x-chain or the X-Chain's ID"),
        ("vertexHeight" = u64, Query, description = "DAG height", minimum = 0),
        ("pageToken" = Option<String>, Query), ("pageSize" = Option<u32>, Query, minimum = 1, maximum = 100),
        ("sortOrder" = Option<String>, Query, description = "asc or desc (default desc)")),
    responses((status = 200, description = "A page of vertices", body = ListXChainVerticesResponse),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody)))]
pub async fn list_vertices_by_height(
    State(state): State<AppState>,
    uri: Uri,
    path: PathParams,
    mut q: Query,
) -> ApiResult<Json<ListXChainVerticesResponse>> {
    checked_x_chain(&state, &path, &mut q)?;
    if q.str("vertexHeight").is_none() {
        q.error("vertexHeight is required (a DAG height, 0 or more)");
    }
    let height = q.u64_in("vertexHeight", 0, i64::MAX as u64);
    let order = q.sort_order();
    let paging = q.paging::<HeightCursor>(
        uri.path(),
        &state.config.page_token_key,
        PAGE_DEFAULT,
        PAGE_MAX,
    );
    q.finish()?;
    let height = height.ok_or_else(|| ApiError::bad("vertexHeight is required"))?;
    let page = state
        .store
        .list_xchain_vertices_by_height(height, order, &paging.request)
        .await?;
    Ok(vertices_page(&state, page, &paging.binding))
}
