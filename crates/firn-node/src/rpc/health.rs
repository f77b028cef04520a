//! `health.*` on `/ext/health`, and `GET /ext/health` answering the same JSON.

use std::sync::Arc;
use std::time::Instant;

use axum::body::Body;
use axum::http::{Method, Request, StatusCode, header};
use axum::response::Response;
use std::collections::BTreeMap;

use firn_rpc::methods::health::{Check, Health, HealthReply, Liveness, Readiness, TagsParams};
use firn_rpc::server::{BoxFuture, Endpoint, Limits};
use firn_rpc::{AvaServer, AvaService};
use serde_json::{Value, json};

use super::{MethodError, Node};

type N = Arc<Node>;

/// The health report: `{"checks":{…},"healthy":true}` (AvalancheGo's `health.APIReply`, whose
/// checks are a Go map: their names come out sorted).
pub fn report(node: &Node) -> HealthReply {
    let started = Instant::now();
    let height = node.chain.height();
    let profile = node.chain.network().profile;
    let now = firn_core::calendar::rfc3339(node.chain.clock().now());
    let duration = u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX);
    let check = |name: &str, message: Value| {
        let check = Check {
            message,
            timestamp: now.clone(),
            duration,
        };
        (name.to_owned(), check)
    };
    HealthReply {
        checks: BTreeMap::from([
            check("P", json!({ "height": height })),
            check(
                "devnet",
                json!({
                    "localNetwork": true,
                    "profile": profile,
                    "note": "a local firn devnet, not a public network",
                }),
            ),
            check("bootstrapped", json!([])),
            check("network", json!({ "connectedPeers": 0 })),
        ]),
        healthy: true,
    }
}

async fn health(node: N, _: TagsParams) -> Result<HealthReply, MethodError> {
    Ok(report(&node))
}

/// `/ext/health`: POST is the `health` service (`health`, `readiness`, `liveness`); GET answers
/// the report with HTTP 200 (503 if it were unhealthy).
#[derive(Debug)]
pub struct HealthEndpoint {
    node: N,
    rpc: Arc<AvaServer<N>>,
}

impl HealthEndpoint {
    /// The endpoint over `node`.
    pub fn new(node: N) -> Self {
        let rpc = AvaServer::new(node.clone()).service(
            AvaService::new("health")
                .handle::<Health, _, _, _>(health)
                .handle::<Readiness, _, _, _>(health)
                .handle::<Liveness, _, _, _>(health),
        );
        Self {
            node,
            rpc: Arc::new(rpc),
        }
    }
}

impl Endpoint for HealthEndpoint {
    fn serve(self: Arc<Self>, request: Request<Body>, limits: Limits) -> BoxFuture<Response> {
        if request.method() != Method::GET {
            return self.rpc.clone().serve(request, limits);
        }
        let body = report(&self.node);
        Box::pin(async move {
            let status = if body.healthy {
                StatusCode::OK
            } else {
                StatusCode::SERVICE_UNAVAILABLE
            };
            let mut text = serde_json::to_string(&body).unwrap_or_default();
            text.push('\n');
            Response::builder()
                .status(status)
                .header(header::CONTENT_TYPE, "application/json")
                .body(Body::from(text))
                .unwrap_or_else(|_| Response::new(Body::empty()))
        })
    }
}
