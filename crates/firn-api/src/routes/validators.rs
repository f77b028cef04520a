//! Validators: `listValidators` and `getSingleValidatorDetails`.
//!
//! A validator list in staking-transaction order pages through the store's keyset. One
//! sorted by what is worked out per validator (delegation capacity, time remaining, fee,
//! uptime), filtered by it, or filtered by part of a node ID ranks its candidates here: at
//! most [`MAX_RANKED`] of them (every current validator of Mainnet fits several times
//! over), else a 400 that says how to narrow the request. Both kinds of page token carry the
//! sort key and the staking transaction's position, so a page picks up after the last row.

use std::collections::{BTreeSet, HashMap};

use axum::extract::State;
use axum::http::Uri;
use axum::routing::get;
use axum::{Json, Router};
use firn_core::ids::{Id, NodeId};
use firn_store::page::{RankCursor, TxCursor};
use firn_store::rows::pchain::{
    DelegationTotals, StakerRecord, StakerStatus, ValidatorObservation,
};
use firn_store::{PChainReader, PageRequest, SortOrder, StakerFilter};

use super::network::check_network;
use super::primary::chain_time;
use crate::error::{ApiError, ApiResult};
use crate::paging::Paging;
use crate::params::{PathParams, Query};
use crate::state::AppState;
use crate::wire::pchain::{Ctx, ListValidatorDetailsResponse, ValidatorDetails, ValidatorFacts};

/// Most validators one ranked list (sorted or filtered by derived values) weighs.
pub const MAX_RANKED: u32 = 10_000;

/// Most delegation capacity a filter may name: the AVAX supply cap, in nAVAX.
const MAX_CAPACITY: u64 = 720_000_000_000_000_000;

pub(crate) fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/networks/{network}/validators", get(list_validators))
        .route(
            "/v1/networks/{network}/validators/{nodeId}",
            get(get_single_validator_details),
        )
}

/// `sortBy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SortBy {
    BlockIndex,
    DelegationCapacity,
    TimeRemaining,
    DelegationFee,
    UptimePerformance,
}

impl SortBy {
    const NAMES: [&'static str; 5] = [
        "blockIndex",
        "delegationCapacity",
        "timeRemaining",
        "delegationFee",
        "uptimePerformance",
    ];

    fn parse(q: &mut Query) -> Self {
        match q.one_of("sortBy", &Self::NAMES) {
            Some("delegationCapacity") => Self::DelegationCapacity,
            Some("timeRemaining") => Self::TimeRemaining,
            Some("delegationFee") => Self::DelegationFee,
            Some("uptimePerformance") => Self::UptimePerformance,
            _ => Self::BlockIndex,
        }
    }

    fn key(self, f: &ValidatorFacts) -> u64 {
        match self {
            Self::BlockIndex => 0,
            Self::DelegationCapacity => f.delegation_capacity.unwrap_or(0),
            Self::TimeRemaining => f.time_remaining,
            Self::DelegationFee => f.fee_shares.map_or(0, u64::from),
            Self::UptimePerformance => u64::from(f.uptime),
        }
    }
}

/// The `min…`/`max…` filters on derived values.
#[derive(Debug, Clone, Copy, Default)]
struct Ranges {
    capacity: (Option<u64>, Option<u64>),
    time_remaining: (Option<u64>, Option<u64>),
    fee: (Option<f64>, Option<f64>),
    uptime: (Option<f64>, Option<f64>),
}

fn within<T: PartialOrd>(v: T, (min, max): (Option<T>, Option<T>)) -> bool {
    min.is_none_or(|m| v >= m) && max.is_none_or(|m| v <= m)
}

fn set<T>((min, max): (Option<T>, Option<T>)) -> bool {
    min.is_some() || max.is_some()
}

impl Ranges {
    fn parse(q: &mut Query) -> Self {
        let time = i32::MAX as u64;
        Self {
            capacity: (
                q.u64_in("minDelegationCapacity", 0, MAX_CAPACITY),
                q.u64_in("maxDelegationCapacity", 0, MAX_CAPACITY),
            ),
            time_remaining: (
                q.u64_in("minTimeRemaining", 0, time),
                q.u64_in("maxTimeRemaining", 0, time),
            ),
            fee: (
                q.f64_in("minFeePercentage", 2.0, 100.0),
                q.f64_in("maxFeePercentage", 2.0, 100.0),
            ),
            uptime: (
                q.f64_in("minUptimePerformance", 0.0, 100.0),
                q.f64_in("maxUptimePerformance", 0.0, 100.0),
            ),
        }
    }

    fn any(&self) -> bool {
        set(self.capacity) || set(self.time_remaining) || set(self.fee) || set(self.uptime)
    }

    /// A validator without a value a set range asks about (a subnet validator has neither
    /// fee nor capacity) is left out, as the official service documents for fees.
    fn admit(&self, f: &ValidatorFacts) -> bool {
        let opt = |v: Option<u64>, r| v.map_or(!set(r), |v| within(v, r));
        let opt_f = |v: Option<f64>, r| v.map_or(!set(r), |v| within(v, r));
        opt(f.delegation_capacity, self.capacity)
            && within(f.time_remaining, self.time_remaining)
            && opt_f(f.fee_percent(), self.fee)
            && within(f.uptime_percent(), self.uptime)
    }
}

/// `nodeIds`: whole node IDs match exactly, anything else as part of `NodeID-…`.
#[derive(Debug, Default)]
struct NodeMatch {
    exact: Vec<NodeId>,
    parts: Vec<String>,
}

impl NodeMatch {
    fn parse(q: &mut Query) -> Self {
        let mut m = Self::default();
        for item in q.list("nodeIds") {
            if let Ok(n) = item.parse::<NodeId>() {
                m.exact.push(n);
            } else if item.len() <= 64
                && item.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
            {
                m.parts.push(item);
            } else {
                q.error(format!(
                    "nodeIds holds {item:?}, neither a node ID nor part of one"
                ));
            }
        }
        m
    }

    fn admit(&self, node: &NodeId) -> bool {
        if self.exact.contains(node) {
            return true;
        }
        let text = node.to_string();
        self.parts.iter().any(|p| text.contains(p.as_str()))
    }
}

/// What one validator list asks for.
struct ValidatorQuery {
    filter: StakerFilter,
    nodes: NodeMatch,
    sort: SortBy,
    ranges: Ranges,
    order: SortOrder,
    paging: Paging<RankCursor>,
}

/// `GET /v1/networks/{network}/validators`
#[utoipa::path(get, path = "/v1/networks/{network}/validators",
    operation_id = "listValidators", tag = "Primary Network",
    summary = "List validators",
    description = "Lists validators of the primary network and of subnets, filterable by validation status, delegation capacity, time remaining, fee percentage, uptime performance and subnet.",
    params(
        ("network" = String, Path),
        ("pageToken" = Option<String>, Query), ("pageSize" = Option<u32>, Query, minimum = 1, maximum = 100),
        ("nodeIds" = Option<String>, Query, description = "Comma-separated node IDs, or parts of them"),
        ("sortBy" = Option<String>, Query, description = "blockIndex, delegationCapacity, timeRemaining, delegationFee or uptimePerformance"),
        ("sortOrder" = Option<String>, Query, description = "asc or desc (default desc)"),
        ("validationStatus" = Option<String>, Query, description = "completed, active, pending or removed"),
        ("minDelegationCapacity" = Option<String>, Query), ("maxDelegationCapacity" = Option<String>, Query),
        ("minTimeRemaining" = Option<u64>, Query), ("maxTimeRemaining" = Option<u64>, Query),
        ("minFeePercentage" = Option<f64>, Query), ("maxFeePercentage" = Option<f64>, Query),
        ("minUptimePerformance" = Option<f64>, Query), ("maxUptimePerformance" = Option<f64>, Query),
        ("subnetId" = Option<String>, Query, description = "The subnet's ID (the primary network's is 11111111111111111111111111111111LpoYY)"),
    ),
    responses((status = 200, description = "A page of validators", body = ListValidatorDetailsResponse),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody)))]
pub async fn list_validators(
    State(state): State<AppState>,
    uri: Uri,
    path: PathParams,
    mut q: Query,
) -> ApiResult<Json<ListValidatorDetailsResponse>> {
    check_network(&state.config.network, path.get("network"))?;
    let nodes = NodeMatch::parse(&mut q);
    let status = validation_status(&mut q);
    let subnet_id = q.id("subnetId");
    let sort = SortBy::parse(&mut q);
    let ranges = Ranges::parse(&mut q);
    let order = q.sort_order();
    let paging = q.paging::<RankCursor>(uri.path(), &state.config.page_token_key, 10, 100);
    q.finish()?;
    let filter = StakerFilter {
        delegators: Some(false),
        node_ids: if nodes.parts.is_empty() {
            nodes.exact.clone()
        } else {
            Vec::new()
        },
        subnet_id,
        status,
        now: chain_time(&state).await?,
        ..StakerFilter::default()
    };
    let query = ValidatorQuery {
        filter,
        nodes,
        sort,
        ranges,
        order,
        paging,
    };
    Ok(Json(validators_page(&state, query).await?))
}

/// `GET /v1/networks/{network}/validators/{nodeId}`
#[utoipa::path(get, path = "/v1/networks/{network}/validators/{nodeId}",
    operation_id = "getSingleValidatorDetails", tag = "Primary Network",
    summary = "Get single validator details",
    description = "Lists the validations of one node, on every subnet, newest first by default.",
    params(
        ("network" = String, Path), ("nodeId" = String, Path),
        ("pageToken" = Option<String>, Query), ("pageSize" = Option<u32>, Query, minimum = 1, maximum = 100),
        ("validationStatus" = Option<String>, Query, description = "completed, active, pending or removed"),
        ("sortOrder" = Option<String>, Query, description = "asc or desc (default desc)"),
    ),
    responses((status = 200, description = "A page of the node's validations", body = ListValidatorDetailsResponse),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody)))]
pub async fn get_single_validator_details(
    State(state): State<AppState>,
    uri: Uri,
    path: PathParams,
    mut q: Query,
) -> ApiResult<Json<ListValidatorDetailsResponse>> {
    check_network(&state.config.network, path.get("network"))?;
    let node: NodeId = path.get("nodeId").parse().map_err(|_| {
        ApiError::BadRequest(vec![format!(
            "{:?} is not a node ID (NodeID-…)",
            path.get("nodeId")
        )])
    })?;
    let status = validation_status(&mut q);
    let order = q.sort_order();
    let paging = q.paging::<RankCursor>(uri.path(), &state.config.page_token_key, 10, 100);
    q.finish()?;
    let filter = StakerFilter {
        delegators: Some(false),
        node_ids: vec![node],
        status,
        now: chain_time(&state).await?,
        ..StakerFilter::default()
    };
    let query = ValidatorQuery {
        filter,
        nodes: NodeMatch::default(),
        sort: SortBy::BlockIndex,
        ranges: Ranges::default(),
        order,
        paging,
    };
    Ok(Json(validators_page(&state, query).await?))
}

fn validation_status(q: &mut Query) -> Option<StakerStatus> {
    q.one_of(
        "validationStatus",
        &["completed", "active", "pending", "removed"],
    )
    .and_then(StakerStatus::parse)
}

/// One validator with everything its row shows.
struct Ranked {
    record: StakerRecord,
    delegations: DelegationTotals,
    facts: ValidatorFacts,
    key: u64,
}

impl Ranked {
    fn cursor(&self) -> RankCursor {
        RankCursor {
            key: self.key,
            height: self.record.height,
            index: self.record.tx_index,
        }
    }
}

async fn validators_page(
    state: &AppState,
    vq: ValidatorQuery,
) -> ApiResult<ListValidatorDetailsResponse> {
    let limit = vq.paging.request.limit as usize;
    let after = vq.paging.request.after;
    let ranked = vq.sort != SortBy::BlockIndex || vq.ranges.any() || !vq.nodes.parts.is_empty();
    let (rows, next) = if ranked {
        let page = state
            .store
            .list_stakers(&vq.filter, SortOrder::Asc, &PageRequest::first(MAX_RANKED))
            .await?;
        if page.next.is_some() {
            return Err(ApiError::BadRequest(vec![format!(
                "this sort or filter weighs every validator that matches, at most {MAX_RANKED}; \
                 more match: narrow the request with validationStatus, subnetId or nodeIds"
            )]));
        }
        let candidates: Vec<StakerRecord> = page
            .items
            .into_iter()
            .filter(|r| vq.nodes.parts.is_empty() || vq.nodes.admit(&r.staker.node_id))
            .collect();
        let mut all = with_facts(state, candidates, vq.sort, vq.filter.now).await?;
        all.retain(|v| vq.ranges.admit(&v.facts));
        all.sort_by_key(Ranked::cursor);
        if vq.order == SortOrder::Desc {
            all.reverse();
        }
        let mut rest: Vec<Ranked> = all
            .into_iter()
            .filter(|v| {
                after.is_none_or(|c| match vq.order {
                    SortOrder::Asc => v.cursor() > c,
                    SortOrder::Desc => v.cursor() < c,
                })
            })
            .take(limit + 1)
            .collect();
        let more = rest.len() > limit;
        rest.truncate(limit);
        let next = more.then(|| rest.last().map(Ranked::cursor)).flatten();
        (rest, next)
    } else {
        let request = PageRequest {
            limit: vq.paging.request.limit,
            after: after.map(|c| TxCursor {
                height: c.height,
                index: c.index,
            }),
        };
        let page = state
            .store
            .list_stakers(&vq.filter, vq.order, &request)
            .await?;
        let next = page.next.map(|c| RankCursor {
            key: 0,
            height: c.height,
            index: c.index,
        });
        (
            with_facts(state, page.items, vq.sort, vq.filter.now).await?,
            next,
        )
    };
    let ctx = Ctx::new(&state.config.network, &state.avax_asset_cb58);
    let stakes = subnet_stakes(state, &rows, vq.filter.now).await?;
    Ok(ListValidatorDetailsResponse {
        next_page_token: vq.paging.binding.next(next.as_ref()),
        validators: rows
            .iter()
            .map(|v| {
                let stake = stakes.get(&v.record.staker.subnet_id).copied().unwrap_or(0);
                ValidatorDetails::from_record(ctx, &v.record, &v.delegations, &v.facts, stake)
            })
            .collect(),
    })
}

/// `records` with their delegations, the node's observations and their facts at `now`.
async fn with_facts(
    state: &AppState,
    records: Vec<StakerRecord>,
    sort: SortBy,
    now: u64,
) -> ApiResult<Vec<Ranked>> {
    let hashes: Vec<Id> = records.iter().map(|r| r.tx_hash).collect();
    let nodes: Vec<NodeId> = records
        .iter()
        .map(|r| r.staker.node_id)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let delegations = state.store.list_delegation_totals(&hashes).await?;
    let observed: HashMap<NodeId, ValidatorObservation> = state
        .store
        .list_validator_observations(&nodes)
        .await?
        .into_iter()
        .map(|o| (o.node_id, o))
        .collect();
    Ok(records
        .into_iter()
        .zip(delegations)
        .map(|(record, delegations)| {
            let facts = ValidatorFacts::of(
                &record,
                &delegations,
                observed.get(&record.staker.node_id),
                now,
            );
            Ranked {
                key: sort.key(&facts),
                record,
                delegations,
                facts,
            }
        })
        .collect())
}

/// The active validators' total weight of each subnet with an active validator on the page.
async fn subnet_stakes(
    state: &AppState,
    rows: &[Ranked],
    now: u64,
) -> ApiResult<HashMap<Id, u128>> {
    let subnets: BTreeSet<Id> = rows
        .iter()
        .filter(|v| v.facts.status == StakerStatus::Active)
        .map(|v| v.record.staker.subnet_id)
        .collect();
    let mut out = HashMap::with_capacity(subnets.len());
    for subnet in subnets {
        let totals = state.store.find_staking_totals(subnet, now).await?;
        out.insert(subnet, totals.validator_weight);
    }
    Ok(out)
}
