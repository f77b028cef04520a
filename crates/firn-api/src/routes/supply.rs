//! `GET /v1/avax/supply`: the AVAX supply of the indexed primary network, from the followed
//! node's current supply and the index (see [`crate::wire::pchain::AvaxSupplyResponse`] for
//! how the parts add up).

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use firn_core::atomic::X2C_RATE;
use firn_core::calendar::{DAY, rfc3339};
use firn_core::network::P_CHAIN_ID;
use firn_store::page::{MAX_PAGE_LIMIT, PageRequest, SortOrder};
use firn_store::rows::evm::ChainRef;
use firn_store::rows::l1_fees::L1FeeScope;
use firn_store::rows::metrics::Granularity;
use firn_store::{CAtomicReader, EvmReader, MetricsReader, PChainReader, XChainReader};

use super::primary::chain_time;
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use crate::wire::pchain::{AvaxSupplyResponse, SupplyParts};

pub(crate) fn router() -> Router<AppState> {
    Router::new().route("/v1/avax/supply", get(get_avax_supply))
}

/// `GET /v1/avax/supply`
#[utoipa::path(get, path = "/v1/avax/supply",
    operation_id = "getAvaxSupply", tag = "AVAX Supply",
    summary = "Get AVAX supply information",
    description = "Gets the AVAX supply of the indexed network: total and circulating supply, what the P-, C- and X-Chain burned, what is staked and locked, rewards, genesis unlock and L1 validator fees, as of the last indexed P-Chain block.",
    responses((status = 200, description = "The AVAX supply", body = AvaxSupplyResponse),
              (status = 503, description = "The indexer has not read the current supply yet", body = crate::error::ErrorBody)))]
pub async fn get_avax_supply(State(state): State<AppState>) -> ApiResult<Json<AvaxSupplyResponse>> {
    let store = &state.store;
    let now = chain_time(&state).await?;
    let reading = store.find_supply(P_CHAIN_ID).await?.ok_or_else(|| {
        ApiError::Unavailable(
            "the indexer has not read the current supply from its node yet (it does once it \
             reaches the P-Chain's tip)"
                .to_owned(),
        )
    })?;
    let totals = store
        .find_supply_totals(state.config.network.avax_asset_id, now)
        .await?;
    let staking = store.find_staking_totals(P_CHAIN_ID, now).await?;
    let l1_fees: u128 = store
        .list_l1_fee_days(L1FeeScope::All, 0, now - now % DAY)
        .await?
        .iter()
        .map(|d| u128::from(d.fees))
        .sum();
    let parts = SupplyParts {
        current_supply: reading.supply.into(),
        p_burned: totals.burned.into(),
        l1_fees,
        c_burned_wei: c_chain_fees(&state).await?,
        x_burned: store
            .find_xchain_burned(state.config.network.avax_asset_id)
            .await?,
        staked: staking.validator_weight + staking.delegator_weight,
        locked: totals.locked.into(),
        rewards_paid: totals.rewarded.into(),
        rewards_pending: totals.pending_rewards.into(),
        genesis_locked: totals.genesis_locked.into(),
    };
    Ok(Json(AvaxSupplyResponse::new(&parts, rfc3339(now))))
}

/// Every fee paid on the C-Chain, wei (0 while it is not indexed): the sum of its monthly
/// metrics, a row per month of history, and what its atomic txs burned.
async fn c_chain_fees(state: &AppState) -> ApiResult<u128> {
    let store = &state.store;
    let c_chain = ChainRef::Blockchain(state.config.network.c_chain_id);
    let Some(chain) = store.find_evm_chain(c_chain).await? else {
        return Ok(0);
    };
    let atomic = store.find_c_atomic_burned(chain.chain_id).await?;
    let mut sum = atomic.saturating_mul(u128::from(X2C_RATE));
    let mut page = PageRequest::first(MAX_PAGE_LIMIT);
    loop {
        let months = store
            .list_chain_metrics(
                chain.chain_id,
                Granularity::Month,
                None,
                None,
                SortOrder::Asc,
                &page,
            )
            .await?;
        for m in &months.items {
            sum = sum.saturating_add(u128::try_from(m.fees_paid).unwrap_or(u128::MAX));
        }
        match months.next {
            Some(c) => page = PageRequest::after(MAX_PAGE_LIMIT, c),
            None => return Ok(sum),
        }
    }
}
