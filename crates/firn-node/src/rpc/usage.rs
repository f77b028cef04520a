//! Logging node RPC requests for the Data API's usage routes: a layer over the whole RPC
//! router that notes each request's endpoint, EVM chain, JSON-RPC method(s) and status into
//! the node's [`UsageRecorder`] (which `firn up` shares with its Data API, whose flusher
//! stores them; this crate never touches the store).
//!
//! The layer reads the body once to learn the method(s), then hands the same bytes on. It
//! reads at most one byte past the RPC's body limit, so an oversized body is still refused by
//! the endpoint as it would be without the layer.

use std::sync::Arc;
use std::time::Instant;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::Method;
use axum::middleware::Next;
use axum::response::Response;
use firn_http::usage::{MAX_FIELD, RequestKind, RequestLog, UsageRecorder, cap};
use serde::Deserialize;

/// The EVM chain ID behind a `/ext/bc/{chain}/…` alias (`C`, a blockchain ID) and whether it is
/// the primary network's (the C-Chain); `None` for chains that are not EVM chains.
pub type ChainResolver = Arc<dyn Fn(&str) -> Option<(u64, bool)> + Send + Sync>;

/// What the layer needs.
#[derive(Clone)]
pub struct RpcUsage {
    /// Where logs go.
    pub recorder: UsageRecorder,
    /// EVM chains by alias.
    pub chains: ChainResolver,
    /// The RPC's body limit.
    pub body_limit: usize,
}

impl std::fmt::Debug for RpcUsage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RpcUsage")
            .field("body_limit", &self.body_limit)
            .finish()
    }
}

#[derive(Deserialize)]
struct Call {
    method: Option<String>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Calls {
    One(Call),
    Batch(Vec<Call>),
}

/// The method(s) of a JSON-RPC body, comma-separated; empty when it is not JSON-RPC.
fn methods(body: &[u8]) -> String {
    let calls = match serde_json::from_slice::<Calls>(body) {
        Ok(Calls::One(c)) => vec![c],
        Ok(Calls::Batch(b)) => b,
        Err(_) => return String::new(),
    };
    let names: Vec<String> = calls.into_iter().filter_map(|c| c.method).collect();
    cap(&names.join(","), MAX_FIELD)
}

/// The EVM chain ID (empty if none) and whether `path` is a primary-network endpoint:
/// `/ext/bc/{chain}/rpc|ws` of an L1 is not; every other node endpoint is.
fn classify(path: &str, chains: &ChainResolver) -> (String, bool) {
    let alias = path
        .strip_prefix("/ext/bc/")
        .and_then(|rest| {
            rest.strip_suffix("/rpc")
                .or_else(|| rest.strip_suffix("/ws"))
        })
        .filter(|alias| !alias.contains('/'));
    match alias.map(|a| chains(a)) {
        Some(Some((chain_id, primary))) => (chain_id.to_string(), primary),
        Some(None) => (String::new(), false),
        None => (String::new(), true),
    }
}

/// Middleware: logs the request once its response is made.
pub async fn record(State(usage): State<Arc<RpcUsage>>, request: Request, next: Next) -> Response {
    let mut log = RequestLog::of_request(RequestKind::Rpc, &request);
    (log.chain_id, log.primary_network) = classify(request.uri().path(), &usage.chains);
    let request = if request.method() == Method::POST {
        let (parts, body) = request.into_parts();
        match firn_rpc::server::read_body(body, usage.body_limit.saturating_add(1)).await {
            Ok((bytes, _)) => {
                log.rpc_method = methods(&bytes);
                Request::from_parts(parts, Body::from(bytes))
            }
            // The body broke off mid-way: nothing to serve, nothing worth logging.
            Err(_) => {
                let mut response = Response::new(Body::empty());
                *response.status_mut() = axum::http::StatusCode::BAD_REQUEST;
                return response;
            }
        }
    } else {
        request
    };
    let started = Instant::now();
    let response = next.run(request).await;
    let log = log.answered(response.status().as_u16(), started);
    usage.recorder.record(log);
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn methods_of_calls_and_batches() {
        assert_eq!(
            methods(br#"{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}"#),
            "eth_chainId"
        );
        assert_eq!(
            methods(br#"[{"method":"eth_a","id":1},{"method":"eth_b","params":[1]}]"#),
            "eth_a,eth_b"
        );
        assert_eq!(methods(b"not json"), "");
    }

    #[test]
    fn endpoints_are_classified() {
        let chains: ChainResolver = Arc::new(|alias| match alias {
            "C" => Some((43113, true)),
            "l1" => Some((99, false)),
            _ => None,
        });
        assert_eq!(classify("/ext/bc/C/rpc", &chains), ("43113".into(), true));
        assert_eq!(classify("/ext/bc/l1/ws", &chains), ("99".into(), false));
        assert_eq!(classify("/ext/bc/P", &chains), (String::new(), true));
        assert_eq!(classify("/ext/info", &chains), (String::new(), true));
    }
}
