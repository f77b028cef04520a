//! Subnets and blockchains of the primary network: `listSubnets`, `getSubnetById`,
//! `listBlockchains` and `getBlockchainById`.
//!
//! Subnets and the chains they run come from the P-Chain's `CreateSubnetTx`, `CreateChainTx`
//! and `ConvertSubnetToL1Tx`, as the indexer stored them. The X-Chain and the C-Chain come
//! from the network's genesis, not from a transaction: they are listed as
//! `platform.getBlockchains` names them (the primary network's subnet, the AVM and coreth
//! VM IDs), created at height 0 at the P-Chain's genesis time, before every created chain.

use axum::extract::State;
use axum::http::Uri;
use axum::routing::get;
use axum::{Json, Router};
use firn_core::ids::Id;
use firn_core::network::{AVM_VM_ID, CORETH_VM_ID};
use firn_store::page::CreatedCursor;
use firn_store::rows::pchain::{BlockchainRecord, NewBlockchain, SubnetRecord};
use firn_store::{EvmReader, PChainReader, Page, PageRequest, SortOrder};

use super::network::check_network;
use crate::error::{ApiError, ApiResult};
use crate::paging::Paging;
use crate::params::{PathParams, Query};
use crate::state::AppState;
use crate::wire::pchain::{Blockchain, Ctx, ListBlockchainsResponse, ListSubnetsResponse, Subnet};

pub(crate) fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/networks/{network}/subnets", get(list_subnets))
        .route("/v1/networks/{network}/subnets/{subnetId}", get(get_subnet))
        .route("/v1/networks/{network}/blockchains", get(list_blockchains))
        .route(
            "/v1/networks/{network}/blockchains/{blockchainId}",
            get(get_blockchain),
        )
}

/// Default and largest `pageSize` of these lists.
const PAGE_DEFAULT: u32 = 10;
const PAGE_MAX: u32 = 100;
/// Chains one subnet lists at most (each costs a `CreateChainTx` fee; real subnets run a few).
const MAX_SUBNET_CHAINS: u32 = 100;

/// The parameters of a list by creation: `{network}`, `sortOrder` and the page.
fn by_creation(
    state: &AppState,
    uri: &Uri,
    path: &PathParams,
    q: &mut Query,
) -> ApiResult<(SortOrder, Paging<CreatedCursor>)> {
    check_network(&state.config.network, path.get("network"))?;
    let order = q.sort_order();
    let paging = q.paging::<CreatedCursor>(
        uri.path(),
        &state.config.page_token_key,
        PAGE_DEFAULT,
        PAGE_MAX,
    );
    q.finish()?;
    Ok((order, paging))
}

/// `GET /v1/networks/{network}/subnets`
#[utoipa::path(get, path = "/v1/networks/{network}/subnets",
    operation_id = "listSubnets", tag = "Primary Network",
    summary = "List subnets", description = "Lists the subnets created on the P-Chain by creation, with their owner, L1 conversion and chains.",
    params(("network" = String, Path), ("pageToken" = Option<String>, Query),
           ("pageSize" = Option<u32>, Query, minimum = 1, maximum = 100),
           ("sortOrder" = Option<String>, Query, description = "asc or desc (default desc)")),
    responses((status = 200, description = "A page of subnets", body = ListSubnetsResponse),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody)))]
pub async fn list_subnets(
    State(state): State<AppState>,
    uri: Uri,
    path: PathParams,
    mut q: Query,
) -> ApiResult<Json<ListSubnetsResponse>> {
    let (order, paging) = by_creation(&state, &uri, &path, &mut q)?;
    let page = state.store.list_subnets(order, &paging.request).await?;
    let mut subnets = Vec::with_capacity(page.items.len());
    for r in &page.items {
        subnets.push(subnet(&state, r).await?);
    }
    Ok(Json(ListSubnetsResponse {
        next_page_token: paging.binding.next(page.next.as_ref()),
        subnets,
    }))
}

/// `GET /v1/networks/{network}/subnets/{subnetId}`
#[utoipa::path(get, path = "/v1/networks/{network}/subnets/{subnetId}",
    operation_id = "getSubnetById", tag = "Primary Network",
    summary = "Get subnet details by ID", description = "A subnet created on the P-Chain, with its owner, L1 conversion and chains.",
    params(("network" = String, Path), ("subnetId" = String, Path, description = "Subnet ID (cb58)")),
    responses((status = 200, description = "The subnet", body = Subnet),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody),
              (status = 404, description = "Unknown subnet", body = crate::error::ErrorBody)))]
pub async fn get_subnet(
    State(state): State<AppState>,
    path: PathParams,
) -> ApiResult<Json<Subnet>> {
    check_network(&state.config.network, path.get("network"))?;
    let raw = path.get("subnetId");
    let id: Id = raw
        .parse()
        .map_err(|_| ApiError::bad("subnetId must be a cb58 subnet ID"))?;
    if id == Id::ZERO {
        return Err(ApiError::not_found(format!(
            "{raw} is the primary network, which no CreateSubnetTx made: listBlockchains lists its chains"
        )));
    }
    let record = state
        .store
        .find_subnet(id)
        .await?
        .ok_or_else(|| ApiError::not_found(format!("subnet {raw} not found")))?;
    Ok(Json(subnet(&state, &record).await?))
}

/// `r` with its chains (oldest first) and the transaction that made it an L1.
async fn subnet(state: &AppState, r: &SubnetRecord) -> ApiResult<Subnet> {
    let chains = state
        .store
        .list_blockchains(
            Some(r.subnet_id),
            SortOrder::Asc,
            &PageRequest::first(MAX_SUBNET_CHAINS),
        )
        .await?;
    let ctx = Ctx::new(&state.config.network, &state.avax_asset_cb58);
    let conversion_tx = conversion_tx(state, r).await?;
    let chains = chains.items.iter().map(Blockchain::from).collect();
    Ok(Subnet::new(ctx, r, conversion_tx, chains))
}

/// The `ConvertSubnetToL1Tx` of `r` (if converted), found in the block that converted it.
async fn conversion_tx(state: &AppState, r: &SubnetRecord) -> ApiResult<Option<String>> {
    let Some(conversion) = &r.conversion else {
        return Ok(None);
    };
    let Some(block) = state.store.find_pchain_block(conversion.height).await? else {
        return Ok(None);
    };
    for hash in &block.tx_hashes {
        if let Some(tx) = state.store.find_pchain_tx(*hash).await?
            && tx.core.tx_type == "ConvertSubnetToL1Tx"
            && tx.core.subnet_id == Some(r.subnet_id)
        {
            return Ok(Some(hash.to_string()));
        }
    }
    Ok(None)
}

/// `GET /v1/networks/{network}/blockchains`
#[utoipa::path(get, path = "/v1/networks/{network}/blockchains",
    operation_id = "listBlockchains", tag = "Primary Network",
    summary = "List blockchains", description = "Lists every blockchain of the network by creation: the X-Chain and C-Chain of its genesis, then those CreateChainTx made.",
    params(("network" = String, Path), ("pageToken" = Option<String>, Query),
           ("pageSize" = Option<u32>, Query, minimum = 1, maximum = 100),
           ("sortOrder" = Option<String>, Query, description = "asc or desc (default desc)")),
    responses((status = 200, description = "A page of blockchains", body = ListBlockchainsResponse),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody)))]
pub async fn list_blockchains(
    State(state): State<AppState>,
    uri: Uri,
    path: PathParams,
    mut q: Query,
) -> ApiResult<Json<ListBlockchainsResponse>> {
    let (order, paging) = by_creation(&state, &uri, &path, &mut q)?;
    let created = state
        .store
        .list_blockchains(None, order, &paging.request)
        .await?;
    let genesis = genesis_chains(&state).await?;
    let page = with_genesis(genesis, created, order, &paging.request);
    Ok(Json(ListBlockchainsResponse {
        next_page_token: paging.binding.next(page.next.as_ref()),
        blockchains: page.items.iter().map(Blockchain::from).collect(),
    }))
}

/// `GET /v1/networks/{network}/blockchains/{blockchainId}`
#[utoipa::path(get, path = "/v1/networks/{network}/blockchains/{blockchainId}",
    operation_id = "getBlockchainById", tag = "Primary Network",
    summary = "Get blockchain details by ID", description = "Details of a blockchain: the X-Chain or C-Chain of the genesis, or one created on the P-Chain, with its genesis data.",
    params(("network" = String, Path), ("blockchainId" = String, Path, description = "Blockchain ID (cb58)")),
    responses((status = 200, description = "The blockchain", body = Blockchain),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody),
              (status = 404, description = "Unknown blockchain", body = crate::error::ErrorBody)))]
pub async fn get_blockchain(
    State(state): State<AppState>,
    path: PathParams,
) -> ApiResult<Json<Blockchain>> {
    check_network(&state.config.network, path.get("network"))?;
    let raw = path.get("blockchainId");
    let id: Id = raw
        .parse()
        .map_err(|_| ApiError::bad("blockchainId must be a cb58 blockchain ID"))?;
    let network = &state.config.network;
    if id == network.x_chain_id || id == network.c_chain_id {
        let genesis = genesis_chains(&state).await?;
        if let Some(chain) = genesis.iter().find(|c| c.chain.blockchain_id == id) {
            return Ok(Json(Blockchain::from(chain)));
        }
    }
    let record = state
        .store
        .find_blockchain(id)
        .await?
        .ok_or_else(|| ApiError::not_found(format!("blockchain {raw} not found")))?;
    Ok(Json(Blockchain::from(&record)))
}

/// The X-Chain and the C-Chain, in creation-cursor order: genesis made them at height 0, at
/// the P-Chain's genesis time (0 before the indexer has stored that block). The C-Chain's EVM
/// chain ID is the indexed one, when its indexer has registered it.
async fn genesis_chains(state: &AppState) -> ApiResult<Vec<BlockchainRecord>> {
    let network = &state.config.network;
    let time = state
        .store
        .find_pchain_block(0)
        .await?
        .map_or(0, |b| b.block.timestamp);
    let c_evm_id = state
        .store
        .list_evm_chains()
        .await?
        .iter()
        .find(|c| c.blockchain_id == network.c_chain_id)
        .map(|c| c.chain_id);
    let chain = |blockchain_id, name: &str, vm_id, evm_chain_id| BlockchainRecord {
        chain: NewBlockchain {
            blockchain_id,
            subnet_id: Id::ZERO,
            name: name.to_owned(),
            vm_id,
            genesis: Vec::new(),
            evm_chain_id,
        },
        height: 0,
        tx_hash: Id::ZERO,
        timestamp: time,
    };
    let mut chains = vec![
        chain(network.x_chain_id, "X-Chain", AVM_VM_ID, None),
        chain(network.c_chain_id, "C-Chain", CORETH_VM_ID, c_evm_id),
    ];
    chains.sort_by_key(created);
    Ok(chains)
}

fn created(b: &BlockchainRecord) -> CreatedCursor {
    CreatedCursor {
        height: b.height,
        id: b.chain.blockchain_id,
    }
}

/// Merges the genesis chains (height 0: before every created chain) into a page of created
/// ones asked for with `request`: the page keeps its length, and its cursor is the last row
/// shown, so rows pushed past the end come on the next page.
fn with_genesis(
    genesis: Vec<BlockchainRecord>,
    created_page: Page<BlockchainRecord, CreatedCursor>,
    order: SortOrder,
    request: &PageRequest<CreatedCursor>,
) -> Page<BlockchainRecord, CreatedCursor> {
    let after = |b: &BlockchainRecord| match (request.after, order) {
        (None, _) => true,
        (Some(c), SortOrder::Asc) => created(b) > c,
        (Some(c), SortOrder::Desc) => created(b) < c,
    };
    let more_created = created_page.next.is_some();
    let mut items: Vec<BlockchainRecord> = genesis.into_iter().filter(after).collect();
    items.extend(created_page.items);
    items.sort_by_key(created);
    if order == SortOrder::Desc {
        items.reverse();
    }
    let limit = request.limit as usize;
    let more = more_created || items.len() > limit;
    items.truncate(limit);
    let next = if more {
        items.last().map(created)
    } else {
        None
    };
    Page { items, next }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(height: u64, id: u8) -> BlockchainRecord {
        BlockchainRecord {
            chain: NewBlockchain {
                blockchain_id: Id([id; 32]),
                subnet_id: Id::ZERO,
                name: String::new(),
                vm_id: Id::ZERO,
                genesis: Vec::new(),
                evm_chain_id: None,
            },
            height,
            tx_hash: Id::ZERO,
            timestamp: 0,
        }
    }

    /// Pages through genesis chains `g` and created chains `c` (the store's part simulated
    /// from `c` itself) two at a time; returns the IDs in the order shown.
    fn walk(order: SortOrder, g: &[BlockchainRecord], c: &[BlockchainRecord]) -> Vec<u8> {
        let mut shown = Vec::new();
        let mut after = None;
        loop {
            let request = PageRequest { limit: 2, after };
            let mut rest: Vec<_> = c
                .iter()
                .filter(|b| match (after, order) {
                    (None, _) => true,
                    (Some(x), SortOrder::Asc) => created(b) > x,
                    (Some(x), SortOrder::Desc) => created(b) < x,
                })
                .cloned()
                .collect();
            rest.sort_by_key(created);
            if order == SortOrder::Desc {
                rest.reverse();
            }
            let next = (rest.len() > 2).then(|| created(&rest[1]));
            rest.truncate(2);
            let store_page = Page { items: rest, next };
            let page = with_genesis(g.to_vec(), store_page, order, &request);
            shown.extend(page.items.iter().map(|b| b.chain.blockchain_id.0[0]));
            match page.next {
                Some(n) => after = Some(n),
                None => return shown,
            }
        }
    }

    #[test]
    fn genesis_chains_come_first_in_creation_order() {
        let g = [record(0, 7), record(0, 9)];
        let c = [record(3, 1), record(5, 2), record(8, 3)];
        assert_eq!(walk(SortOrder::Asc, &g, &c), vec![7, 9, 1, 2, 3]);
        assert_eq!(walk(SortOrder::Desc, &g, &c), vec![3, 2, 1, 9, 7]);
        assert_eq!(walk(SortOrder::Asc, &g, &[]), vec![7, 9]);
        assert_eq!(walk(SortOrder::Desc, &g, &c[..1]), vec![1, 9, 7]);
    }
}
