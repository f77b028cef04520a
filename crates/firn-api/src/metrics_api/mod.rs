//! firn's Metrics API: time series of chain and staking metrics, served from the counters the
//! store keeps per hour, day, week and month on every EVM commit (no rescans per request).
//!
//! Routes: `/v2/health-check` and `/v2/live-check` (the Data API's checks); the legacy
//! `GET /v1/avg_tps/{chainId}` ([`v1`]); the v2 chain list and chain metrics ([`chains`]);
//! rolling windows and staking metrics ([`windows`]); the L1 validator fee metrics
//! ([`l1_fees`]); ICM message counts ([`icm`]); the Looking Glass ([`looking_glass`], and its composite query of token and
//! native holders, [`composite`] over [`holders`]).
//! Every series is newest first, built by [`series`] from the store's rows; how a bucket
//! combines its rows, and how chains combine into a network-wide value, is in [`metric`];
//! bucket boundaries are the store's [`Granularity`].
//!
//! Paging uses UUID tokens ([`tokens`]) valid 24 hours on an injectable [`Clock`], bound to the
//! query that issued them. The service has no authentication and its own listener
//! ([`serve_metrics`], 127.0.0.1:8081 by default); it shares the Data API's error body, request
//! limits and [`AppState`].

pub mod clock;
pub mod metric;
pub mod series;
pub mod tokens;

mod chains;
mod composite;
mod holders;
mod icm;
mod l1_fees;
mod looking_glass;
mod v1;
mod windows;
mod wire;

use std::future::Future;
use std::sync::Arc;

use axum::Router;
use axum::extract::{Request, State};
use axum::middleware;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use tokio::net::TcpListener;

pub use clock::{Clock, SystemClock, VirtualClock};
pub use tokens::TokenTable;

use crate::error::{ApiError, ApiResult};
use crate::limits;
use crate::params::Query;
use crate::routes::health;
use crate::state::AppState;

/// The Metrics API's default listen address.
pub const DEFAULT_METRICS_LISTEN: &str = "127.0.0.1:8081";

/// Most points one page may hold (`pageSize`), as the official API allows.
pub const MAX_PAGE_SIZE: u64 = 2_160;

/// Points per page when `pageSize` is absent.
pub const DEFAULT_PAGE_SIZE: u64 = 100;

/// What the Metrics API's handlers read: the Data API's state plus the page tokens and the
/// clock they expire on.
#[derive(Debug, Clone)]
pub struct MetricsState {
    /// Store, configuration and limits shared with the Data API.
    pub app: AppState,
    /// Issues and redeems page tokens.
    pub tokens: Arc<TokenTable>,
    /// The clock tokens expire on.
    pub clock: Arc<dyn Clock>,
}

impl MetricsState {
    /// State on the wall clock.
    pub fn new(app: AppState) -> Self {
        Self::with_clock(app, Arc::new(SystemClock))
    }

    /// State on `clock` (tests pass a [`VirtualClock`]).
    pub fn with_clock(app: AppState, clock: Arc<dyn Clock>) -> Self {
        let key = app.config.page_token_key.clone();
        Self {
            app,
            tokens: Arc::new(TokenTable::new(clock.clone(), key)),
            clock,
        }
    }
}

/// The Metrics API as an axum `Router`.
pub fn metrics_router(state: MetricsState) -> Router {
    let app = state.app.clone();
    Router::new()
        .merge(v1::router())
        .merge(chains::router())
        .merge(windows::router())
        .merge(looking_glass::router())
        .merge(composite::router())
        .merge(l1_fees::router())
        .merge(icm::router())
        // The Data API's checks of the same store, under the Metrics API's paths.
        .route(
            "/v2/health-check",
            get(|State(s): State<MetricsState>| health::health_check(State(s.app))),
        )
        .route(
            "/v2/live-check",
            get(|State(s): State<MetricsState>| health::live_check(State(s.app))),
        )
        .fallback(not_found)
        .method_not_allowed_fallback(not_found)
        .layer(middleware::from_fn_with_state(app, limits::size_and_time))
        .with_state(state)
}

async fn not_found(request: Request) -> Response {
    ApiError::not_found(format!(
        "Cannot {} {}",
        request.method(),
        request.uri().path()
    ))
    .into_response()
}

/// Serves the Metrics API on `listener` until `shutdown` completes, then finishes the requests
/// in flight.
pub async fn serve_metrics(
    listener: TcpListener,
    state: MetricsState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    if let Ok(addr) = listener.local_addr() {
        tracing::info!(target: "api", %addr, "serving the Metrics API");
    }
    let limits = state.app.config.http;
    firn_http::serve(listener, metrics_router(state), limits, shutdown).await
}

/// The identity of a query for binding page tokens: the path and every parameter but the
/// token itself, sorted.
fn query_key(path: &str, q: &Query) -> String {
    let mut pairs: Vec<String> = q
        .pairs()
        .iter()
        .filter(|(k, _)| k != "pageToken")
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    pairs.sort();
    format!("{path}?{}", pairs.join("&"))
}

/// `pageSize` (1..=2160, default 100).
fn page_size(q: &mut Query) -> usize {
    let n = q
        .u64_in("pageSize", 1, MAX_PAGE_SIZE)
        .unwrap_or(DEFAULT_PAGE_SIZE);
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// An EVM chain ID in a path: 400 when it is not an integer.
fn evm_chain_id(raw: &str) -> ApiResult<u64> {
    raw.parse::<u64>()
        .ok()
        .filter(|n| i64::try_from(*n).is_ok())
        .ok_or_else(|| {
            ApiError::bad(format!(
                "chainId must be an EVM chain ID (an integer such as 43114), got {raw:?}"
            ))
        })
}

/// The chains a series' `{chainId}` covers.
#[derive(Debug, Clone)]
struct Scope {
    /// Their EVM chain IDs.
    chains: Vec<u64>,
    /// How the path names them in page-token keys: the chain ID, or `total`, `mainnet`,
    /// `testnet`.
    name: String,
}

/// The `{chainId}` words that name every indexed chain of a network.
const NETWORK_SCOPES: [&str; 3] = ["total", "mainnet", "testnet"];

/// The chains `raw` names: one EVM chain (400 when malformed, 404 when not indexed), every
/// indexed chain (`total`), or those of one network (`mainnet`, `testnet`; 404 when none is
/// indexed).
async fn chain_scope(state: &MetricsState, raw: &str) -> ApiResult<Scope> {
    use firn_store::EvmReader;
    if !NETWORK_SCOPES.contains(&raw) {
        if evm_chain_id(raw).is_err() {
            return Err(ApiError::bad(format!(
                "chainId must be an EVM chain ID (an integer such as 43114) or one of {}, got \
                 {raw:?}",
                NETWORK_SCOPES.join(", ")
            )));
        }
        let chain = known_chain(state, raw).await?;
        return Ok(Scope {
            chains: vec![chain.chain_id],
            name: chain.chain_id.to_string(),
        });
    }
    let chains: Vec<u64> = state
        .app
        .store
        .list_evm_chains()
        .await?
        .iter()
        .filter(|c| match raw {
            "mainnet" => !c.is_testnet,
            "testnet" => c.is_testnet,
            _ => true,
        })
        .map(|c| c.chain_id)
        .collect();
    if chains.is_empty() && raw != "total" {
        return Err(ApiError::not_found(format!(
            "no {raw} chain is indexed by this server"
        )));
    }
    Ok(Scope {
        chains,
        name: raw.to_owned(),
    })
}

/// The chain `raw` names: 400 when malformed, 404 when not indexed.
async fn known_chain(
    state: &MetricsState,
    raw: &str,
) -> ApiResult<firn_store::rows::evm::EvmChainRecord> {
    use firn_store::EvmReader;
    let id = evm_chain_id(raw)?;
    state
        .app
        .store
        .find_evm_chain(firn_store::rows::evm::ChainRef::Evm(id))
        .await?
        .ok_or_else(|| ApiError::not_found(format!("chain {raw} is not indexed by this server")))
}
