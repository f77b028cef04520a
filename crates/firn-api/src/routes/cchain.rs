//! The C-Chain's side of the primary-network routes: its atomic txs
//! (`listLatestPrimaryNetworkTransactions`, `getTxByHash`) and its atomic memory
//! (`getUtxosByAddresses`, `getBalancesByAddresses`). Each rendered from the store's rows and the txs' own bytes.

use std::collections::HashMap;
use std::sync::LazyLock;

use axum::Json;
use axum::response::{IntoResponse, Response};
use firn_core::atomic::{Tx, UnsignedTx};
use firn_core::codec;
use firn_core::ids::{Id, ShortId};
use firn_store::page::{TxCursor, UtxoCursor};
use firn_store::rows::atomic::{
    AtomicExportRecord, CAtomicParty, CAtomicTxFilter, CAtomicTxRecord,
};
use firn_store::rows::xchain::XAssetRecord;
use firn_store::{AtomicMemoryReader, CAtomicReader, PageRequest, SortOrder, XUtxoFilter};

use super::network::PrimaryChain;
use crate::error::{ApiError, ApiResult};
use crate::paging::Binding;
use crate::state::AppState;
use crate::wire::cchain::{
    CChainAtomicBalances, CChainAtomicTransaction, ListCChainAtomicBalancesResponse,
    ListCChainAtomicTransactionsResponse,
};
use crate::wire::pchain::{Ctx, PrimaryNetworkChainInfo};
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
    let mut imported = Vec::new();
    for t in txs {
        if let Ok(tx) = codec::from_bytes::<Tx>(&t.bytes)
            && let UnsignedTx::Import(i) = tx.unsigned()
        {
            imported.extend(i.imported_inputs.iter().map(|i| i.utxo_id()));
        }
    }
    let exports: HashMap<Id, AtomicExportRecord> = state
        .store
        .list_atomic_exports(&imported)
        .await?
        .into_iter()
        .map(|e| (e.utxo.utxo_id, e))
        .collect();
    let ctx = ctx(state).with_exports(&exports);
    Ok(txs
        .iter()
        .filter_map(|t| CChainAtomicTransaction::from_record(ctx, t))
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
