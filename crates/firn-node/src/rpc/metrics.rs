//! `/ext/metrics`: the node's Prometheus metrics, as AvalancheGo serves its own there (any
//! method, text format). The names are firn's: requests per route, latency histograms and
//! gauges of what the chains hold now (heights, mempools, fees, validator sets, WebSocket
//! connections). They are computed when scraped, so an idle node costs nothing.

use std::fmt::Write as _;
use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, Response, header};
use firn_core::ids::Id;
use firn_evm::EvmChain;
use firn_http::metrics::{CONTENT_TYPE, RouteMetrics};
use firn_rpc::server::{BoxFuture, Endpoint, Limits};

use super::Node;

/// Lists the EVM chains the node serves now (they appear as the P-Chain creates them).
pub type EvmChains = Arc<dyn Fn() -> Vec<Arc<EvmChain>> + Send + Sync>;

/// The `/ext/metrics` endpoint.
pub struct MetricsEndpoint {
    node: Arc<Node>,
    routes: Arc<RouteMetrics>,
    evm: EvmChains,
}

impl std::fmt::Debug for MetricsEndpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MetricsEndpoint").finish_non_exhaustive()
    }
}

impl MetricsEndpoint {
    /// Serves `routes` (fed by the router's [`firn_rpc::RpcRouter::metrics`]) and the state of
    /// `node`'s P-Chain and of the EVM chains `evm` lists.
    pub fn new(node: Arc<Node>, routes: Arc<RouteMetrics>, evm: EvmChains) -> Self {
        Self { node, routes, evm }
    }

    fn render(&self) -> String {
        let mut out = self.routes.render();
        let chain = self.node.chain();
        let network = chain.network();
        gauge(
            &mut out,
            "firn_node_info",
            "The node's version and network, as labels.",
        );
        let _ = writeln!(
            out,
            "firn_node_info{{version=\"{}\",network_id=\"{}\"}} 1",
            env!("CARGO_PKG_VERSION"),
            network.network_id
        );

        let mut heights = vec![("P".to_owned(), chain.height(), chain.timestamp())];
        let mut pools = vec![("P".to_owned(), chain.mempool_len())];
        let evm = (self.evm)();
        let mut fees = Vec::new();
        for c in &evm {
            let id = Id(c.blockchain_id().0);
            let label = if id == network.c_chain_id {
                "C".to_owned()
            } else {
                id.to_string()
            };
            let head = c.head();
            heights.push((label.clone(), head.header.number, head.header.timestamp));
            pools.push((label.clone(), c.pool_len()));
            fees.push((label, c.next_base_fee(), head.header.gas_used));
        }

        let per_chain = |out: &mut String, name: &str, help: &str, values: Vec<(&str, u64)>| {
            series(out, name, help, "chain", values)
        };
        per_chain(
            &mut out,
            "firn_node_chain_height",
            "Last accepted height.",
            heights.iter().map(|(c, h, _)| (c.as_str(), *h)).collect(),
        );
        per_chain(
            &mut out,
            "firn_node_chain_timestamp_seconds",
            "Timestamp of the last accepted block.",
            heights.iter().map(|(c, _, t)| (c.as_str(), *t)).collect(),
        );
        per_chain(
            &mut out,
            "firn_node_mempool_txs",
            "Transactions waiting for a block.",
            pools.iter().map(|(c, n)| (c.as_str(), *n as u64)).collect(),
        );
        per_chain(
            &mut out,
            "firn_node_evm_next_base_fee_wei",
            "Base fee the next EVM block will charge.",
            fees.iter().map(|(c, f, _)| (c.as_str(), *f)).collect(),
        );
        per_chain(
            &mut out,
            "firn_node_evm_head_gas_used",
            "Gas used by the last accepted EVM block.",
            fees.iter().map(|(c, _, g)| (c.as_str(), *g)).collect(),
        );

        let sets = chain.all_validators_at(chain.height()).unwrap_or_default();
        let subnets: Vec<String> = sets.keys().map(Id::to_string).collect();
        series(
            &mut out,
            "firn_node_validators",
            "Validators of each subnet (the primary network is 11111111111111111111111111111111LpoYY).",
            "subnet",
            subnets
                .iter()
                .zip(sets.values())
                .map(|(s, set)| (s.as_str(), set.len() as u64))
                .collect(),
        );
        series(
            &mut out,
            "firn_node_validator_weight",
            "Total validator weight of each subnet.",
            "subnet",
            subnets
                .iter()
                .zip(sets.values())
                .map(|(s, set)| {
                    let weight = set
                        .values()
                        .fold(0u64, |sum, v| sum.saturating_add(v.weight));
                    (s.as_str(), weight)
                })
                .collect(),
        );
        gauge(
            &mut out,
            "firn_node_websocket_connections",
            "WebSocket connections open now.",
        );
        let _ = writeln!(
            out,
            "firn_node_websocket_connections {}",
            firn_rpc::ws::open_sockets()
        );
        out
    }
}

fn gauge(out: &mut String, name: &str, help: &str) {
    let _ = writeln!(out, "# HELP {name} {help}");
    let _ = writeln!(out, "# TYPE {name} gauge");
}

/// A gauge with one sample per value of the label `key`.
fn series(out: &mut String, name: &str, help: &str, key: &str, values: Vec<(&str, u64)>) {
    gauge(out, name, help);
    for (label, value) in values {
        let _ = writeln!(out, "{name}{{{key}=\"{label}\"}} {value}");
    }
}

impl Endpoint for MetricsEndpoint {
    fn serve(
        self: Arc<Self>,
        _request: Request<Body>,
        _limits: Limits,
    ) -> BoxFuture<Response<Body>> {
        Box::pin(async move {
            let text = tokio::task::spawn_blocking(move || self.render())
                .await
                .unwrap_or_default();
            let mut response = Response::new(Body::from(text));
            if let Ok(v) = header::HeaderValue::from_str(CONTENT_TYPE) {
                response.headers_mut().insert(header::CONTENT_TYPE, v);
            }
            response
        })
    }
}
