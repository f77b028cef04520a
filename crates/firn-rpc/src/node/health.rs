//! `health.*` on `/ext/health`, and `GET /ext/health` answering the same JSON.

use std::sync::Arc;
use std::time::Instant;

use axum::body::Body;
use axum::http::{Method, Request, StatusCode, header};
use axum::response::Response;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{Node, RpcResult};
use crate::server::{BoxFuture, Endpoint, Limits};
use crate::{AvaServer, AvaService};

type N = Arc<Node>;

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Tags {
    #[allow(dead_code)]
    tags: Vec<String>,
}

/// The health report: `{"checks":{…},"healthy":true}` (AvalancheGo's `health.APIReply`).
pub fn report(node: &Node) -> Value {
    let started = Instant::now();
    let height = node.chain.height();
    let profile = node.chain.network().profile;
    let now = super::time::rfc3339(node.chain.clock().now());
    let duration = u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX);
    let check =
        |message: Value| json!({ "message": message, "timestamp": now, "duration": duration });
    json!({
        "checks": {
            "P": check(json!({ "height": height })),
            "devnet": check(json!({
                "localNetwork": true,
                "profile": profile,
                "note": "a local firn devnet, not a public network",
            })),
            "bootstrapped": check(json!([])),
            "network": check(json!({ "connectedPeers": 0 })),
        },
        "healthy": true,
    })
}

async fn health(node: N, _: Tags) -> RpcResult {
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
                .method("health", health)
                .method("readiness", health)
                .method("liveness", health),
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
            let status = if body["healthy"] == Value::Bool(true) {
                StatusCode::OK
            } else {
                StatusCode::SERVICE_UNAVAILABLE
            };
            let mut text = body.to_string();
            text.push('\n');
            Response::builder()
                .status(status)
                .header(header::CONTENT_TYPE, "application/json")
                .body(Body::from(text))
                .unwrap_or_else(|_| Response::new(Body::empty()))
        })
    }
}
