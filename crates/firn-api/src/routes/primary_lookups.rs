//! One primary-network transaction or block by its ID: `getTxByHash` and `getBlockById`, on
//! the P-Chain and the X-Chain (`super::xchain` renders the X-Chain's), and `getTxByHash` of
//! the C-Chain's atomic transactions (`super::cchain`).

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use firn_core::ids::Id;
use firn_store::PChainReader;

use super::network::{PrimaryChain, check_network, p_chain_only, primary_chain};
use crate::error::{ApiError, ApiResult};
use crate::params::{PathParams, Query};
use crate::state::AppState;
use crate::wire::pchain::{Ctx, PChainTransaction, PrimaryNetworkBlock};
use crate::wire::xchain::PrimaryNetworkTransaction;

pub(crate) fn router() -> Router<AppState> {
    Router::new()
        .route(
            "/v1/networks/{network}/blockchains/{blockchainId}/transactions/{txHash}",
            get(get_tx_by_hash),
        )
        .route(
            "/v1/networks/{network}/blockchains/{blockchainId}/blocks/{blockId}",
            get(get_block_by_id),
        )
}

/// The primary-network chain of the path; `what` names the resource in the error when there
/// is none.
fn checked_chain(
    state: &AppState,
    path: &PathParams,
    q: &mut Query,
    what: &str,
) -> ApiResult<PrimaryChain> {
    check_network(&state.config.network, path.get("network"))?;
    let chain = primary_chain(&state.config.network, q, path.get("blockchainId"));
    q.finish()?;
    match chain {
        Some(c @ (PrimaryChain::X | PrimaryChain::C)) => Ok(c),
        other => p_chain_only(other, what).map(|()| PrimaryChain::P),
    }
}

/// `GET /v1/networks/{network}/blockchains/{blockchainId}/transactions/{txHash}`
#[utoipa::path(get, path = "/v1/networks/{network}/blockchains/{blockchainId}/transactions/{txHash}",
    operation_id = "getTxByHash", tag = "Primary Network Transactions",
    summary = "Get transaction", description = "A P-Chain or X-Chain transaction, or a C-Chain atomic transaction, by its ID, with the UTXOs it consumed and emitted.",
    params(("network" = String, Path), ("blockchainId" = String, Path, description = "p-chain, x-chain, c-chain, or the chain's ID"),
           ("txHash" = String, Path, description = "Transaction ID (cb58)")),
    responses((status = 200, description = "The transaction", body = PrimaryNetworkTransaction),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody),
              (status = 404, description = "Unknown transaction, or a chain firn does not index", body = crate::error::ErrorBody)))]
pub async fn get_tx_by_hash(
    State(state): State<AppState>,
    path: PathParams,
    mut q: Query,
) -> ApiResult<Json<PrimaryNetworkTransaction>> {
    let chain = checked_chain(&state, &path, &mut q, "transactions")?;
    let raw = path.get("txHash");
    let hash: Id = raw
        .parse()
        .map_err(|_| ApiError::bad("txHash must be a cb58 transaction ID"))?;
    if chain == PrimaryChain::X {
        let tx = super::xchain::get_tx(&state, raw, hash).await?;
        return Ok(Json(PrimaryNetworkTransaction::X(Box::new(tx))));
    }
    if chain == PrimaryChain::C {
        let tx = super::cchain::get_tx(&state, raw, hash).await?;
        return Ok(Json(PrimaryNetworkTransaction::C(Box::new(tx))));
    }
    let tx = state
        .store
        .find_pchain_tx(hash)
        .await?
        .ok_or_else(|| ApiError::not_found(format!("transaction {raw} not found")))?;
    let ctx = Ctx::new(&state.config.network, &state.avax_asset_cb58);
    Ok(Json(PrimaryNetworkTransaction::P(Box::new(
        PChainTransaction::from_record(ctx, &tx),
    ))))
}

/// `GET /v1/networks/{network}/blockchains/{blockchainId}/blocks/{blockId}`
#[utoipa::path(get, path = "/v1/networks/{network}/blockchains/{blockchainId}/blocks/{blockId}",
    operation_id = "getBlockById", tag = "Primary Network Blocks",
    summary = "Get block", description = "A P-Chain, X-Chain or C-Chain block by its height or its ID (on the C-Chain, its 0x hash; its transactions are its atomic txs).",
    params(("network" = String, Path), ("blockchainId" = String, Path, description = "p-chain, x-chain, c-chain, or the chain's ID"),
           ("blockId" = String, Path, description = "Block height, or block ID (cb58; a 0x hash on the C-Chain)")),
    responses((status = 200, description = "The block", body = PrimaryNetworkBlock),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody),
              (status = 404, description = "Unknown block, or a chain firn does not index", body = crate::error::ErrorBody)))]
pub async fn get_block_by_id(
    State(state): State<AppState>,
    path: PathParams,
    mut q: Query,
) -> ApiResult<Json<PrimaryNetworkBlock>> {
    let chain = checked_chain(&state, &path, &mut q, "blocks")?;
    let raw = path.get("blockId");
    if chain == PrimaryChain::X {
        return super::xchain::get_block(&state, raw).await;
    }
    if chain == PrimaryChain::C {
        return super::cchain::get_block(&state, raw).await;
    }
    let block = if !raw.is_empty() && raw.bytes().all(|b| b.is_ascii_digit()) {
        let height: u64 = raw
            .parse()
            .map_err(|_| ApiError::bad("blockId is a height too large for any block"))?;
        state.store.find_pchain_block(height).await?
    } else {
        let id: Id = raw
            .parse()
            .map_err(|_| ApiError::bad("blockId must be a block height or a cb58 block ID"))?;
        state.store.find_pchain_block_by_hash(id).await?
    };
    let block = block.ok_or_else(|| ApiError::not_found(format!("block {raw} not found")))?;
    Ok(Json(PrimaryNetworkBlock::from(&block)))
}
