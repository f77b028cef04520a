//! Looking Glass: `POST /v2/lookingGlass/compositeQuery`, the addresses that meet every
//! (`AND`) or any (`OR`) of up to [`MAX_QUERIES`] subqueries, by address, with each
//! subquery's count.
//!
//! What each subquery type asks, on one EVM chain:
//! - `AllTimeErc20Balance` / `AnyTimeErc20Balance`: held at least `minBalance` (base units) of
//!   a token from the start of `firstDate` to the end of `lastDate` (UTC), at every block's end
//!   / at some block's end ([`super::holders`] replays the token's transfers, at most
//!   [`MAX_REPLAYED`]);
//! - `AllTimeNftHolders` / `AnyTimeNftHolders`: held a token of a collection over the dates or
//!   the `startTs`–`endTs` seconds, likewise;
//! - `LatestBalance`: holds at least `minBalance` now (at the chain's last indexed block): of an
//!   ERC-20 token from the index, of the native coin as the chain's node reports it for each
//!   address active on the chain (at most [`MAX_NATIVE_HOLDERS`]).
//!
//! Native balances over past dates are not indexed (the index holds no native balance history)
//! and Stars Arena is one C-Chain mainnet contract this server does not follow: those
//! subqueries get a 400 that says so.

use std::collections::{BTreeMap, BTreeSet};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::routing::post;
use axum::{Json, Router};
use firn_core::calendar::{DAY, days_from_civil};
use firn_store::page::PageRequest;
use firn_store::rows::ChainKey;
use firn_store::rows::evm::{ChainRef, EvmChainRecord, TokenStandard};
use firn_store::rows::metrics::TransferKey;
use firn_store::types::{Address, ParseText, U256};
use firn_store::{CursorStore, EvmReader, MetricsReader};
use serde::Deserialize;
use serde::de::IgnoredAny;

use super::holders::{Replay, Span};
use super::looking_glass::{address_of_words, address_words};
use super::wire::CompositeQueryResponse;
use super::{MetricsState, evm_chain_id};
use crate::error::{ApiError, ApiResult};
use crate::routes::require_json;
use crate::wire::evm::checksummed;

/// Subqueries one request may hold.
pub const MAX_QUERIES: usize = 10;
/// Transfers one subquery replays at most.
pub const MAX_REPLAYED: u64 = 1_000_000;
/// Addresses whose native balance one `LatestBalance` subquery reads from the node at most.
pub const MAX_NATIVE_HOLDERS: u64 = 10_000;
/// `pageSize` bounds and default, as the official API has them.
const MAX_PAGE_SIZE: u64 = 10_000;
const DEFAULT_PAGE_SIZE: u64 = 1_000;
/// Rows one store read returns.
const READ_PAGE: u32 = 10_000;
const PATH: &str = "/v2/lookingGlass/compositeQuery";

pub(super) fn router() -> axum::Router<MetricsState> {
    Router::new().route(PATH, post(composite_query))
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct CompositeQueryRequest {
    page_token: Option<String>,
    page_size: Option<u64>,
    queries: Vec<SubQuery>,
    operator: Operator,
}

#[derive(Debug, Clone, Copy, Deserialize)]
enum Operator {
    #[serde(rename = "AND")]
    And,
    #[serde(rename = "OR")]
    Or,
}

#[derive(Debug, Deserialize)]
struct SubQuery {
    id: String,
    #[serde(flatten)]
    kind: Kind,
}

/// The subquery types of the official file. The params of those this server refuses are
/// accepted unread (`IgnoredAny`).
#[derive(Debug, Deserialize)]
#[serde(tag = "type", content = "params")]
enum Kind {
    AllTimeNativeBalance(IgnoredAny),
    AnyTimeNativeBalance(IgnoredAny),
    AllTimeErc20Balance(Erc20Range),
    AnyTimeErc20Balance(Erc20Range),
    AllTimeNftHolders(NftRange),
    AnyTimeNftHolders(NftRange),
    LatestBalance(LatestParams),
    AllTimeStarsArenaBalance(IgnoredAny),
    AnyTimeStarsArenaBalance(IgnoredAny),
    LatestBalanceStarsArena(IgnoredAny),
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Erc20Range {
    first_date: String,
    last_date: String,
    min_balance: String,
    evm_chain_id: String,
    contract_address: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct NftRange {
    evm_chain_id: String,
    contract_address: String,
    first_date: Option<String>,
    last_date: Option<String>,
    start_ts: Option<f64>,
    end_ts: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct LatestParams {
    min_balance: String,
    evm_chain_id: String,
    token_type: TokenType,
    contract_address: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
enum TokenType {
    Erc20,
    Native,
}

/// One subquery, checked: what to read and over which seconds.
enum Plan {
    /// Holders of a token over `[from, to]` (Unix seconds, inclusive), or at the last block.
    Holders {
        chain: EvmChainRecord,
        token: Address,
        collectible: bool,
        min: U256,
        span: Span,
        window: Option<(u64, u64)>,
    },
    /// Native balances now.
    Native { chain: EvmChainRecord, min: U256 },
}

async fn composite_query(
    State(state): State<MetricsState>,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult<Json<CompositeQueryResponse>> {
    require_json(&headers)?;
    let mut raw: serde_json::Value = serde_json::from_slice(&body)
        .map_err(|e| ApiError::bad(format!("request body must be JSON: {e}")))?;
    let request: CompositeQueryRequest = serde_json::from_value(raw.clone()).map_err(|e| {
        ApiError::bad(format!(
            "request body must be a CompositeQueryRequestDto (queries, operator, pageSize, \
             pageToken): {e}"
        ))
    })?;
    let size = request.page_size.unwrap_or(DEFAULT_PAGE_SIZE);
    if !(1..=MAX_PAGE_SIZE).contains(&size) {
        return Err(ApiError::bad(format!(
            "pageSize must be between 1 and {MAX_PAGE_SIZE}"
        )));
    }
    if request.queries.is_empty() || request.queries.len() > MAX_QUERIES {
        return Err(ApiError::bad(format!(
            "queries must hold 1 to {MAX_QUERIES} subqueries"
        )));
    }
    let mut ids = BTreeSet::new();
    let mut plans = Vec::with_capacity(request.queries.len());
    for q in &request.queries {
        if q.id.is_empty() || !ids.insert(q.id.as_str()) {
            return Err(ApiError::bad(format!(
                "every subquery needs an id of its own (got {:?} twice or empty)",
                q.id
            )));
        }
        plans.push(plan(&state, q).await?);
    }
    // A page token is bound to the whole request but itself.
    if let Some(o) = raw.as_object_mut() {
        o.remove("pageToken");
    }
    let key = format!("{PATH}?{raw}");
    let after = match &request.page_token {
        Some(t) => Some(address_of_words(&state.tokens.redeem_words(&key, t)?)?),
        None => None,
    };

    let mut counts = BTreeMap::new();
    let mut combined: Option<BTreeSet<Address>> = None;
    for (q, p) in request.queries.iter().zip(plans) {
        let found = run(&state, p).await?;
        counts.insert(q.id.clone(), found.len() as u64);
        combined = Some(match (combined, request.operator) {
            (None, _) => found,
            (Some(c), Operator::And) => c.intersection(&found).copied().collect(),
            (Some(c), Operator::Or) => c.union(&found).copied().collect(),
        });
    }
    let combined = combined.unwrap_or_default();
    let mut rest = combined
        .iter()
        .filter(|a| after.is_none_or(|after| **a > after));
    let page: Vec<Address> = rest
        .by_ref()
        .take(usize::try_from(size).unwrap_or(usize::MAX))
        .copied()
        .collect();
    let next_page_token = match (rest.next(), page.last()) {
        (Some(_), Some(last)) => Some(state.tokens.issue_words(&key, &address_words(last))),
        _ => None,
    };
    Ok(Json(CompositeQueryResponse {
        next_page_token,
        sub_query_counts: counts,
        total_count: combined.len() as u64,
        addresses: page.iter().map(checksummed).collect(),
    }))
}

/// Checks one subquery: 400 for a malformed one or one this server cannot answer, 404 for a
/// chain it does not index.
async fn plan(state: &MetricsState, q: &SubQuery) -> ApiResult<Plan> {
    let id = &q.id;
    let bad = |what: String| ApiError::bad(format!("subquery {id}: {what}"));
    match &q.kind {
        Kind::AllTimeNativeBalance(_) | Kind::AnyTimeNativeBalance(_) => Err(bad(
            "native balances over past dates are not indexed by this server (ERC-20 and NFT \
             holders over dates are; LatestBalance reads native balances now)"
                .to_owned(),
        )),
        Kind::AllTimeStarsArenaBalance(_)
        | Kind::AnyTimeStarsArenaBalance(_)
        | Kind::LatestBalanceStarsArena(_) => Err(bad(
            "Stars Arena is a C-Chain mainnet contract this server does not follow".to_owned(),
        )),
        Kind::AllTimeErc20Balance(p) | Kind::AnyTimeErc20Balance(p) => {
            let span = if matches!(q.kind, Kind::AllTimeErc20Balance(_)) {
                Span::Throughout
            } else {
                Span::AtSomePoint
            };
            Ok(Plan::Holders {
                chain: chain(state, id, &p.evm_chain_id).await?,
                token: address(id, "contractAddress", &p.contract_address)?,
                collectible: false,
                min: amount(id, &p.min_balance)?,
                span,
                window: Some(dates(id, &p.first_date, &p.last_date)?),
            })
        }
        Kind::AllTimeNftHolders(p) | Kind::AnyTimeNftHolders(p) => {
            let span = if matches!(q.kind, Kind::AllTimeNftHolders(_)) {
                Span::Throughout
            } else {
                Span::AtSomePoint
            };
            let window = match (&p.first_date, &p.last_date, p.start_ts, p.end_ts) {
                (Some(first), Some(last), None, None) => dates(id, first, last)?,
                (None, None, Some(start), Some(end)) => seconds(id, start, end)?,
                _ => {
                    return Err(bad(
                        "params take firstDate and lastDate, or startTs and endTs".to_owned(),
                    ));
                }
            };
            Ok(Plan::Holders {
                chain: chain(state, id, &p.evm_chain_id).await?,
                token: address(id, "contractAddress", &p.contract_address)?,
                collectible: true,
                min: U256::from(1u8),
                span,
                window: Some(window),
            })
        }
        Kind::LatestBalance(p) => {
            let chain = chain(state, id, &p.evm_chain_id).await?;
            let min = amount(id, &p.min_balance)?;
            match (&p.token_type, &p.contract_address) {
                (TokenType::Native, _) => Ok(Plan::Native { chain, min }),
                (TokenType::Erc20, Some(token)) => Ok(Plan::Holders {
                    chain,
                    token: address(id, "contractAddress", token)?,
                    collectible: false,
                    min,
                    span: Span::AtSomePoint,
                    window: None,
                }),
                (TokenType::Erc20, None) => Err(bad(
                    "an ERC20 LatestBalance needs contractAddress".to_owned(),
                )),
            }
        }
    }
}

async fn chain(state: &MetricsState, id: &str, raw: &str) -> ApiResult<EvmChainRecord> {
    let chain_id = evm_chain_id(raw).map_err(|_| {
        ApiError::bad(format!(
            "subquery {id}: evmChainId must be an EVM chain ID (an integer such as 43114), got \
             {raw:?}"
        ))
    })?;
    state
        .app
        .store
        .find_evm_chain(ChainRef::Evm(chain_id))
        .await?
        .ok_or_else(|| {
            ApiError::not_found(format!(
                "subquery {id}: chain {chain_id} is not indexed by this server"
            ))
        })
}

fn address(id: &str, field: &str, raw: &str) -> ApiResult<Address> {
    Address::parse_text(raw).map_err(|_| {
        ApiError::bad(format!(
            "subquery {id}: {field} must be a 0x-prefixed 20-byte hex address, got {raw:?}"
        ))
    })
}

/// A non-negative integer amount in the token's base units.
fn amount(id: &str, raw: &str) -> ApiResult<U256> {
    raw.bytes()
        .all(|b| b.is_ascii_digit())
        .then(|| U256::from_str_radix(raw, 10).ok())
        .flatten()
        .ok_or_else(|| {
            ApiError::bad(format!(
                "subquery {id}: minBalance must be a non-negative integer amount in base \
                 units, got {raw:?}"
            ))
        })
}

/// The seconds from the start of `first` to the end of `last` (`YYYY-MM-DD`, UTC).
fn dates(id: &str, first: &str, last: &str) -> ApiResult<(u64, u64)> {
    let day = |field: &str, raw: &str| {
        parse_date(raw).ok_or_else(|| {
            ApiError::bad(format!(
                "subquery {id}: {field} must be a date (YYYY-MM-DD, 1970 or later), got {raw:?}"
            ))
        })
    };
    let (from, to) = (day("firstDate", first)?, day("lastDate", last)?);
    if to < from {
        return Err(ApiError::bad(format!(
            "subquery {id}: lastDate {last} is before firstDate {first}"
        )));
    }
    Ok((from * DAY, (to + 1) * DAY - 1))
}

/// A `startTs`–`endTs` range of Unix seconds.
fn seconds(id: &str, start: f64, end: f64) -> ApiResult<(u64, u64)> {
    let whole = |v: f64| (v.is_finite() && v >= 0.0 && v <= i64::MAX as f64).then_some(v as u64);
    match (whole(start), whole(end)) {
        (Some(s), Some(e)) if s <= e => Ok((s, e)),
        _ => Err(ApiError::bad(format!(
            "subquery {id}: startTs and endTs must be Unix seconds with startTs <= endTs"
        ))),
    }
}

/// Days since 1970-01-01 of `YYYY-MM-DD`.
fn parse_date(raw: &str) -> Option<u64> {
    let mut parts = raw.split('-');
    let (y, m, d) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() || y.len() != 4 || m.len() != 2 || d.len() != 2 {
        return None;
    }
    let (y, m, d): (u64, u64, u64) = (y.parse().ok()?, m.parse().ok()?, d.parse().ok()?);
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    let days_in_month = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return None,
    };
    (y >= 1970 && (1..=days_in_month).contains(&d)).then(|| days_from_civil(y, m, d))
}

/// The addresses one checked subquery finds.
async fn run(state: &MetricsState, plan: Plan) -> ApiResult<BTreeSet<Address>> {
    match plan {
        Plan::Holders {
            chain,
            token,
            collectible,
            min,
            span,
            window,
        } => holders(state, &chain, token, collectible, min, span, window).await,
        Plan::Native { chain, min } => native_holders(state, &chain, min).await,
    }
}

/// Holders of `token` over `window` (or at the chain's last indexed block), replayed from its
/// transfers of the asked kind.
async fn holders(
    state: &MetricsState,
    chain: &EvmChainRecord,
    token: Address,
    collectible: bool,
    min: U256,
    span: Span,
    window: Option<(u64, u64)>,
) -> ApiResult<BTreeSet<Address>> {
    let store = &state.app.store;
    let Some(last_indexed) = store.find_cursor(ChainKey::Evm(chain.chain_id)).await? else {
        return Ok(BTreeSet::new());
    };
    // Blocks from the first at or after the window's start to the last at or before its end.
    let (start, end) = match window {
        None => (last_indexed, last_indexed),
        Some((from, to)) => {
            let before = |ts: u64| store.find_last_evm_block_before(chain.chain_id, ts);
            let start = before(from).await?.map_or(0, |b| b + 1);
            match before(to.saturating_add(1)).await? {
                Some(end) => (start, end),
                // The window ends before the chain's first block: nobody held anything.
                None => return Ok(BTreeSet::new()),
            }
        }
    };
    let mut replay = Replay::new(start, min, span);
    let mut page = PageRequest::<TransferKey>::first(READ_PAGE);
    let mut replayed = 0u64;
    loop {
        let moves = store
            .list_token_moves(chain.chain_id, token, end, &page)
            .await?;
        replayed += moves.len() as u64;
        if replayed > MAX_REPLAYED {
            return Err(ApiError::Unavailable(format!(
                "{token:#x} on chain {} has more than {MAX_REPLAYED} transfers to replay; this \
                 server does not answer holder queries of it",
                chain.chain_id
            )));
        }
        for m in &moves {
            if (m.standard != TokenStandard::Erc20) == collectible {
                replay.apply(m);
            }
        }
        match moves.last() {
            Some(last) if moves.len() == READ_PAGE as usize => {
                page = PageRequest::after(READ_PAGE, last.key)
            }
            _ => break,
        }
    }
    Ok(replay.finish())
}

/// The addresses active on `chain` whose native balance (the node's, now) is at least `min`
/// and above zero.
async fn native_holders(
    state: &MetricsState,
    chain: &EvmChainRecord,
    min: U256,
) -> ApiResult<BTreeSet<Address>> {
    let store = &state.app.store;
    let mut addresses = Vec::new();
    let mut page = PageRequest::<Address>::first(READ_PAGE);
    loop {
        let read = store.list_chain_addresses(chain.chain_id, &page).await?;
        addresses.extend_from_slice(&read);
        if addresses.len() as u64 > MAX_NATIVE_HOLDERS {
            return Err(ApiError::Unavailable(format!(
                "chain {} has more than {MAX_NATIVE_HOLDERS} active addresses to read native \
                 balances of; this server does not answer native LatestBalance for it",
                chain.chain_id
            )));
        }
        match read.last() {
            Some(last) if read.len() == READ_PAGE as usize => {
                page = PageRequest::after(READ_PAGE, *last)
            }
            _ => break,
        }
    }
    let min = min.max(U256::from(1u8));
    let balances = state.app.nodes.native_balances(chain, &addresses).await?;
    Ok(balances
        .into_iter()
        .filter(|(_, b)| *b >= min)
        .map(|(a, _)| a)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_calendar_days() {
        assert_eq!(parse_date("1970-01-01"), Some(0));
        assert_eq!(parse_date("2024-02-29"), Some(19_782));
        assert_eq!(parse_date("2023-02-29"), None);
        assert_eq!(parse_date("2024-13-01"), None);
        assert_eq!(parse_date("2024-1-01"), None);
        assert_eq!(parse_date("1969-12-31"), None);
        assert_eq!(parse_date("2024-01-01T00:00:00Z"), None);
        assert_eq!(
            dates("q", "2024-01-01", "2024-01-02").unwrap(),
            (19_723 * DAY, 19_725 * DAY - 1)
        );
        assert!(dates("q", "2024-01-02", "2024-01-01").is_err());
    }
}
