//! Looking Glass: `GET /v2/subnets/{subnetId}/validators:getAddresses`, the reward addresses
//! of a subnet's validators whose validation period shares a moment with a time frame, one
//! entry per staking transaction (its reward owner's addresses, and its start time as the
//! `sortKey`), by start time.
//!
//! Validators without a reward owner (a permissioned subnet's) have nothing to show and are
//! left out, so a page may hold fewer entries than `pageSize` while more follow.
//!
//! `GET /v2/chains/43114/btcb/bridged:getAddresses`: the addresses whose net amount of BTC.b
//! bridged in (minted to them, less burned from them when they bridged out; the token is
//! [`crate::ApiConfig::btcb_token`]) is above `threshold`, by address, the amount as the
//! `sortKey`. The sums are made per request from the chain's mints and burns (at most
//! [`MAX_BRIDGE_TRANSFERS`]).

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use firn_core::ids::Id;
use firn_core::network::P_CHAIN_ID;
use firn_store::page::{PageRequest, RankCursor};
use firn_store::rows::evm::ChainRef;
use firn_store::types::{Address, U256};
use firn_store::{EvmReader, MetricsReader, PChainReader};

use super::chains::NETWORKS;
use super::wire::{
    AddressDetails, LookingGlassResponse, PChainAddressDetails, PChainLookingGlassResponse,
};
use super::{MetricsState, query_key};
use crate::error::{ApiError, ApiResult};
use crate::params::{PathParams, Query};
use crate::wire::evm::checksummed;
use crate::wire::pchain::Ctx;

/// Most entries one page may hold, and the default, as the official API has them (both
/// Looking Glass lists).
const MAX_PAGE_SIZE: u64 = 5_000;
const DEFAULT_PAGE_SIZE: u64 = 1_000;

/// Mints and burns one bridged-amounts request adds up at most.
pub const MAX_BRIDGE_TRANSFERS: u64 = 500_000;

/// The chain BTC.b is bridged to.
const BTCB_CHAIN: u64 = 43_114;

pub(super) fn router() -> Router<MetricsState> {
    Router::new()
        .route(
            "/v2/subnets/{subnetId}/validators:getAddresses",
            get(validator_addresses),
        )
        .route(
            "/v2/chains/43114/btcb/bridged:getAddresses",
            get(btcb_bridgers),
        )
}

/// `pageSize` (default [`DEFAULT_PAGE_SIZE`]) and `pageToken`.
fn paging(q: &mut Query) -> (u64, Option<String>) {
    let size = q
        .u64_in("pageSize", 1, MAX_PAGE_SIZE)
        .unwrap_or(DEFAULT_PAGE_SIZE);
    (size, q.string("pageToken"))
}

/// A token's keyset words as a cursor: start time, height, index in the block.
fn cursor(words: &[u64]) -> ApiResult<RankCursor> {
    match *words {
        [key, height, index] => Ok(RankCursor {
            key,
            height,
            index: u32::try_from(index)
                .map_err(|_| ApiError::bad("pageToken is not a page token of this list"))?,
        }),
        _ => Err(ApiError::bad("pageToken is not a page token of this list")),
    }
}

async fn validator_addresses(
    State(state): State<MetricsState>,
    path: PathParams,
    mut q: Query,
) -> ApiResult<Json<PChainLookingGlassResponse>> {
    let raw = path.get("subnetId");
    let subnet: Option<Id> = raw.parse().ok();
    if subnet.is_none() {
        q.error("subnetId must be a cb58 subnet ID");
    }
    let network = q.one_of("network", &NETWORKS);
    let (from, to) = q.time_window();
    let (from, to) = (from.unwrap_or(0), to.unwrap_or(i64::MAX as u64));
    let (size, token) = paging(&mut q);
    q.finish()?;
    let app = &state.app;
    if let Some(network) = network
        && !app.config.network.accepts(network)
    {
        return Err(ApiError::not_found(format!(
            "network {network} is not the network this server indexes"
        )));
    }
    let subnet = subnet.unwrap_or(P_CHAIN_ID);
    if subnet != P_CHAIN_ID && app.store.find_subnet(subnet).await?.is_none() {
        return Err(ApiError::not_found(format!("subnet {raw} not found")));
    }
    let key = query_key(&format!("/v2/subnets/{raw}/validators:getAddresses"), &q);
    let limit = u32::try_from(size).unwrap_or(u32::MAX);
    let request = match &token {
        Some(t) => PageRequest::after(limit, cursor(&state.tokens.redeem_words(&key, t)?)?),
        None => PageRequest::first(limit),
    };
    let page = app
        .store
        .list_validators_overlapping(subnet, from, to, &request)
        .await?;
    let ctx = Ctx::new(&app.config.network, &app.avax_asset_cb58);
    let addresses = page
        .items
        .iter()
        .filter(|s| !s.staker.reward_addresses.is_empty())
        .map(|s| PChainAddressDetails {
            addresses: s
                .staker
                .reward_addresses
                .iter()
                .map(|a| ctx.address(a))
                .collect(),
            sort_key: s.staker.start_ts.to_string(),
        })
        .collect();
    let next_page_token = page.next.map(|c| {
        state
            .tokens
            .issue_words(&key, &[c.key, c.height, u64::from(c.index)])
    });
    Ok(Json(PChainLookingGlassResponse {
        next_page_token,
        addresses,
    }))
}

/// An address as page-token words (8, 8 and 4 bytes).
pub(super) fn address_words(a: &Address) -> [u64; 3] {
    let b = a.0.0;
    let word = |r: std::ops::Range<usize>| {
        b[r].iter()
            .fold(0u64, |w, byte| (w << 8) | u64::from(*byte))
    };
    [word(0..8), word(8..16), word(16..20)]
}

pub(super) fn address_of_words(words: &[u64]) -> ApiResult<Address> {
    let bad = || ApiError::bad("pageToken is not a page token of this list");
    let [a, b, c] = *words else {
        return Err(bad());
    };
    let tail = u32::try_from(c).map_err(|_| bad())?;
    let mut bytes = [0u8; 20];
    bytes[..8].copy_from_slice(&a.to_be_bytes());
    bytes[8..16].copy_from_slice(&b.to_be_bytes());
    bytes[16..].copy_from_slice(&tail.to_be_bytes());
    Ok(Address::new(bytes))
}

async fn btcb_bridgers(
    State(state): State<MetricsState>,
    mut q: Query,
) -> ApiResult<Json<LookingGlassResponse>> {
    let threshold = match q.str("threshold") {
        None => {
            q.error("threshold is required");
            None
        }
        Some(t) => {
            let parsed = t
                .bytes()
                .all(|b| b.is_ascii_digit())
                .then(|| U256::from_str_radix(t, 10).ok())
                .flatten();
            if parsed.is_none() {
                q.error("threshold must be a non-negative integer amount (BTC.b base units)");
            }
            parsed
        }
    };
    let (size, token) = paging(&mut q);
    q.finish()?;
    let app = &state.app;
    if app
        .store
        .find_evm_chain(ChainRef::Evm(BTCB_CHAIN))
        .await?
        .is_none()
    {
        return Err(ApiError::not_found(format!(
            "chain {BTCB_CHAIN} is not indexed by this server"
        )));
    }
    let key = query_key("/v2/chains/43114/btcb/bridged:getAddresses", &q);
    let after = match &token {
        Some(t) => Some(address_of_words(&state.tokens.redeem_words(&key, t)?)?),
        None => None,
    };
    let Some(sums) = app
        .store
        .list_net_mints(BTCB_CHAIN, app.config.btcb_token, MAX_BRIDGE_TRANSFERS)
        .await?
    else {
        return Err(ApiError::Unavailable(format!(
            "BTC.b has more than {MAX_BRIDGE_TRANSFERS} mints and burns to add up; this server \
             does not answer this list"
        )));
    };
    let threshold = threshold.unwrap_or_default();
    let mut above = sums
        .iter()
        .filter(|m| after.is_none_or(|a| m.address > a) && m.net() > threshold);
    let page: Vec<_> = above
        .by_ref()
        .take(usize::try_from(size).unwrap_or(usize::MAX))
        .collect();
    let next_page_token = match (above.next(), page.last()) {
        (Some(_), Some(last)) => Some(
            state
                .tokens
                .issue_words(&key, &address_words(&last.address)),
        ),
        _ => None,
    };
    let addresses = page
        .iter()
        .map(|m| AddressDetails {
            address: checksummed(&m.address),
            sort_key: m.net().to_string(),
        })
        .collect();
    Ok(Json(LookingGlassResponse {
        next_page_token,
        addresses,
    }))
}
