//! [`AppState`]: what every handler reads — the store, the configuration, the service metrics
//! and the rate limiter. Cheap to clone (everything shared is behind `Arc`).

use std::sync::Arc;
use std::time::Instant;

use firn_aggregator::{Aggregator, JustificationSource};
use firn_store::Store;

use crate::config::ApiConfig;
use crate::limits::RateLimiter;
use crate::node::NodeReads;
use crate::routes::signature_aggregator::SignatureService;
use firn_http::metrics::RouteMetrics;

/// Shared state of one server.
#[derive(Debug, Clone)]
pub struct AppState {
    /// The store every route reads.
    pub store: Store,
    /// The configuration.
    pub config: Arc<ApiConfig>,
    /// Request counters and latency histograms served at `/metrics`.
    pub metrics: Arc<RouteMetrics>,
    /// The Warp signature aggregator behind `/v1/signatureAggregator`; `None` answers 503.
    pub signatures: Option<SignatureService>,
    /// The nodes behind the EVM chains, for what the index does not hold.
    pub(crate) nodes: Arc<NodeReads>,
    pub(crate) limiter: Arc<RateLimiter>,
    pub(crate) started: Instant,
    /// cb58 of the network's AVAX asset ID, printed with every UTXO and amount.
    pub(crate) avax_asset_cb58: Arc<str>,
    /// Responses of the store-only routes, by request and store generation.
    pub(crate) responses: Arc<crate::cache::ResponseCache>,
    /// Where each request is logged for the usage routes; `None` logs nothing.
    pub usage: Option<firn_http::usage::UsageRecorder>,
}

impl AppState {
    /// State over `store` with `config`.
    pub fn new(store: Store, config: ApiConfig) -> Self {
        Self {
            store,
            avax_asset_cb58: config.network.avax_asset_id.to_string().into(),
            responses: Arc::new(crate::cache::ResponseCache::new(
                config.response_cache_bytes,
            )),
            limiter: Arc::new(RateLimiter::new(
                &config.api_keys,
                config.key_rate_limit,
                config.ip_rate_limit,
            )),
            config: Arc::new(config),
            metrics: Arc::new(RouteMetrics::new("firn_api")),
            signatures: None,
            nodes: Arc::default(),
            started: Instant::now(),
            usage: None,
        }
    }

    /// This state, logging every request into `recorder` (see [`crate::usage`]).
    pub fn with_usage(mut self, recorder: firn_http::usage::UsageRecorder) -> Self {
        self.usage = Some(recorder);
        self
    }

    /// This state, serving signature aggregation with `aggregator`, reading P-Chain txs for
    /// `GET .../aggregateSignatures/{txHash}` through `pchain`.
    pub fn with_signature_aggregator(
        mut self,
        aggregator: Arc<Aggregator>,
        pchain: Arc<dyn JustificationSource>,
    ) -> Self {
        self.signatures = Some(SignatureService { aggregator, pchain });
        self
    }
}
