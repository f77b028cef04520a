//! The C-Chain's side of the primary-network routes: its atomic txs
//! (`listLatestPrimaryNetworkTransactions`, `getTxByHash`) and its atomic memory
//! (`getUtxosByAddresses`, `getBalancesByAddresses`), and its blocks in the primary-network
//! shape (`listLatestPrimaryNetworkBlocks`, `getBlockById`), each listing its atomic txs. Each rendered from the store's rows and the txs' own bytes.

use std::collections::HashMap;
use std::sync::LazyLock;

use axum::Json;
use axum::response::{IntoResponse, Response};
use firn_core::atomic::{Tx, UnsignedTx};
use firn_core::codec;
use firn_core::ids::{Id, ShortId};
use firn_store::page::{HeightCursor, TxCursor, UtxoCursor};
use firn_store::rows::atomic::{
    AtomicExportRecord, CAtomicParty, CAtomicTxFilter, CAtomicTxRecord,
};
use firn_store::rows::evm::{ChainRef, EvmBlockRecord};
use firn_store::rows::xchain::XAssetRecord;
use firn_store::types::B256;
use firn_store::{
    AtomicMemoryReader, CAtomicReader, EvmReader, PageRequest, SortOrder, XUtxoFilter,
};

use super::network::PrimaryChain;
use crate::error::{ApiError, ApiResult};
use crate::paging::Binding;
use crate::state::AppState;
use crate::wire::cchain::{
    CChainAtomicBalances, CChainAtomicTransaction, ListCChainAtomicBalancesResponse,
    ListCChainAtomicTransactionsResponse,
};
use crate::wire::pchain::{
    Ctx, ListPrimaryNetworkBlocksResponse, PrimaryNetworkBlock, PrimaryNetworkChainInfo,
};
use crate::wire::xchain::{ListUtxosResponse, Utxo, XCtx};

/// The C-Chain names no assets of its own: AVAX is the network's.
static NO_ASSETS: LazyLock<HashMap<Id, XAssetRecord>> = LazyLock::new(HashMap::new);

fn ctx(state: &AppState) -> XCtx<'_> {
    XCtx::new(
        Ctx::new(&state.config.network, &state.avax_asset_cb58),
        &NO_ASSETS,
    )
}

fn chain_info(state: &AppState) -> PrimaryNetworkChainInfo {
    PrimaryNetworkChainInfo {
        chain_name: PrimaryChain::C.wire_name().to_owned(),
        network: state.config.network.wire_name().to_owned(),
    }
}

/// The filter of a C-Chain tx list: owners (bech32) and EVM accounts (`0x`) alike.
pub(crate) fn filter(
    owners: Vec<ShortId>,
    accounts: Vec<firn_store::types::Address>,
    tx_types: Vec<String>,
    (start_ts, end_ts): (Option<u64>, Option<u64>),
) -> CAtomicTxFilter {
    let parties = owners
        .into_iter()
        .map(CAtomicParty::Owner)
        .chain(accounts.into_iter().map(|a| CAtomicParty::Account(a.0.0)))
        .collect();
    CAtomicTxFilter {
        parties,
        tx_types,
        start_ts,
        end_ts,
    }
}

/// Renders `txs`, with the stored exports of the UTXOs their imports took.
async fn render(
    state: &AppState,
    txs: &[CAtomicTxRecord],
) -> ApiResult<Vec<CChainAtomicTransaction>> {
    // A stored tx's bytes decoded when it was indexed; a row that no longer does is damaged
    // and left out.
    let decoded: Vec<(&CAtomicTxRecord, Tx)> = txs
        .iter()
        .filter_map(|t| Some((t, codec::from_bytes::<Tx>(&t.bytes).ok()?)))
        .collect();
    let imported: Vec<Id> = decoded
        .iter()
        .filter_map(|(_, tx)| match tx.unsigned() {
            UnsignedTx::Import(i) => Some(i.imported_inputs.iter().map(|i| i.utxo_id())),
            UnsignedTx::Export(_) => None,
        })
        .flatten()
        .collect();
    let exports: HashMap<Id, AtomicExportRecord> = state
        .store
        .list_atomic_exports(&imported)
        .await?
        .into_iter()
        .map(|e| (e.utxo.utxo_id, e))
        .collect();
    let ctx = ctx(state).with_exports(&exports);
    Ok(decoded
        .iter()
        .map(|(t, tx)| CChainAtomicTransaction::from_record(ctx, t, tx))
        .collect())
}

/// `listLatestPrimaryNetworkTransactions` on the C-Chain.
pub(crate) async fn list_txs(
    state: &AppState,
    filter: &CAtomicTxFilter,
    order: SortOrder,
    request: &PageRequest<TxCursor>,
    binding: &Binding,
) -> ApiResult<Response> {
    let page = state
        .store
        .list_c_atomic_txs(filter, order, request)
        .await?;
    Ok(Json(ListCChainAtomicTransactionsResponse {
        next_page_token: binding.next(page.next.as_ref()),
        transactions: render(state, &page.items).await?,
        chain_info: chain_info(state),
    })
    .into_response())
}

/// `getTxByHash` on the C-Chain.
pub(crate) async fn get_tx(
    state: &AppState,
    raw: &str,
    hash: Id,
) -> ApiResult<CChainAtomicTransaction> {
    let not_found = || ApiError::not_found(format!("transaction {raw} not found"));
    let tx = state
        .store
        .find_c_atomic_tx(hash)
        .await?
        .ok_or_else(not_found)?;
    render(state, std::slice::from_ref(&tx))
        .await?
        .pop()
        .ok_or_else(not_found)
}

/// `getBalancesByAddresses` on the C-Chain: what its atomic memory holds for `addresses`, as
/// of `at` (or everything stored), locks judged at `now`.
pub(crate) async fn balances(
    state: &AppState,
    addresses: &[ShortId],
    at: Option<u64>,
    now: u64,
) -> ApiResult<Response> {
    let c_chain = state.config.network.c_chain_id;
    let held = state
        .store
        .list_atomic_balances(c_chain, addresses, at, at.unwrap_or(now))
        .await?;
    let ctx = ctx(state);
    Ok(Json(ListCChainAtomicBalancesResponse {
        balances: CChainAtomicBalances::from_held(ctx, &held),
        chain_info: chain_info(state),
    })
    .into_response())
}

/// `getUtxosByAddresses` on the C-Chain: the UTXOs other chains exported to it.
pub(crate) async fn list_utxos(
    state: &AppState,
    filter: &XUtxoFilter,
    order: SortOrder,
    request: &PageRequest<UtxoCursor>,
    binding: &Binding,
) -> ApiResult<Response> {
    let c_chain = state.config.network.c_chain_id;
    let page = state
        .store
        .list_atomic_utxos(c_chain, filter, order, request)
        .await?;
    let ctx = ctx(state);
    Ok(Json(ListUtxosResponse {
        next_page_token: binding.next(page.next.as_ref()),
        utxos: page
            .items
            .iter()
            .map(|u| Utxo::from_atomic(ctx, u))
            .collect(),
        chain_info: chain_info(state),
    })
    .into_response())
}

/// The C-Chain's EVM chain ID, once its indexer registered it.
async fn evm_chain_id(state: &AppState) -> ApiResult<Option<u64>> {
    let c_chain = ChainRef::Blockchain(state.config.network.c_chain_id);
    Ok(state
        .store
        .find_evm_chain(c_chain)
        .await?
        .map(|c| c.chain_id))
}

/// The primary-network shape of C-Chain blocks: their transactions are the atomic txs they
/// carry (the EVM txs are on `/v1/chains/{chainId}/blocks`).
async fn blocks_shape(
    state: &AppState,
    blocks: &[EvmBlockRecord],
) -> ApiResult<Vec<PrimaryNetworkBlock>> {
    let heights: Vec<u64> = blocks.iter().map(|b| b.block.number).collect();
    let mut txs =
        PrimaryNetworkBlock::txs_by_height(state.store.list_c_atomic_block_txs(&heights).await?);
    Ok(blocks
        .iter()
        .map(|b| {
            let transactions = txs.remove(&b.block.number).unwrap_or_default();
            PrimaryNetworkBlock::standard(
                b.block.number,
                (b.block.hash.to_string(), b.block.parent_hash.to_string()),
                b.block.timestamp,
                b.block.size_bytes,
                transactions.len() as u64,
                transactions,
            )
        })
        .collect())
}

/// `listLatestPrimaryNetworkBlocks` on the C-Chain.
pub(crate) async fn list_blocks(
    state: &AppState,
    (start_ts, end_ts): (Option<u64>, Option<u64>),
    request: &PageRequest<HeightCursor>,
    binding: &Binding,
) -> ApiResult<Json<ListPrimaryNetworkBlocksResponse>> {
    let (blocks, next) = match evm_chain_id(state).await? {
        Some(chain_id) => {
            let page = state
                .store
                .list_evm_blocks_between(chain_id, start_ts, end_ts, request)
                .await?;
            (blocks_shape(state, &page.items).await?, page.next)
        }
        None => (Vec::new(), None),
    };
    Ok(Json(ListPrimaryNetworkBlocksResponse {
        next_page_token: binding.next(next.as_ref()),
        blocks,
        chain_info: chain_info(state),
    }))
}

/// `getBlockById` on the C-Chain: by height or `0x` block hash.
pub(crate) async fn get_block(state: &AppState, raw: &str) -> ApiResult<Json<PrimaryNetworkBlock>> {
    let not_found = || ApiError::not_found(format!("block {raw} not found"));
    let chain_id = evm_chain_id(state).await?.ok_or_else(not_found)?;
    let block = if !raw.is_empty() && raw.bytes().all(|b| b.is_ascii_digit()) {
        let height: u64 = raw
            .parse()
            .map_err(|_| ApiError::bad("blockId is a height too large for any block"))?;
        state.store.find_evm_block(chain_id, height).await?
    } else {
        let hash: B256 = raw
            .parse()
            .map_err(|_| ApiError::bad("blockId must be a block height or a 0x block hash"))?;
        state.store.find_evm_block_by_hash(chain_id, hash).await?
    };
    let block = block.ok_or_else(not_found)?;
    blocks_shape(state, std::slice::from_ref(&block))
        .await?
        .pop()
        .map(Json)
        .ok_or_else(not_found)
}
