//! The test services and a harness that sends the same request in process (`oneshot`) and over
//! real HTTP on 127.0.0.1:0.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderMap, Method, Request, StatusCode};
use firn_rpc::avajson::u64_string;
use firn_rpc::{AvaServer, AvaService, EmptyReply, ErrorObject, EthServer, Limits, RpcRouter};
use serde::{Deserialize, Serialize};
use tower::ServiceExt;

/// Shared state of the test services: an in-memory key-value store and a call counter.
#[derive(Clone, Default)]
pub struct TestState {
    pub kv: Arc<Mutex<HashMap<String, String>>>,
    pub calls: Arc<AtomicU64>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub struct NoArgs {}

#[derive(Serialize)]
pub struct NetworkIdReply {
    #[serde(rename = "networkID", with = "firn_rpc::avajson::u32_string")]
    pub network_id: u32,
}

/// `info.getNetworkID`
async fn get_network_id(_: TestState, _: NoArgs) -> Result<NetworkIdReply, String> {
    Ok(NetworkIdReply { network_id: 5 })
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub struct PutArgs {
    pub key: String,
    pub value: String,
}

/// `store.put`
async fn put(state: TestState, args: PutArgs) -> Result<EmptyReply, String> {
    state.calls.fetch_add(1, Ordering::SeqCst);
    if args.key.is_empty() {
        return Err("argument 'key' not given".to_owned());
    }
    state.kv.lock().unwrap().insert(args.key, args.value);
    Ok(EmptyReply {})
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub struct GetArgs {
    pub key: String,
}

#[derive(Serialize)]
pub struct GetReply {
    pub value: String,
}

/// `store.get`
async fn get(state: TestState, args: GetArgs) -> Result<GetReply, String> {
    match state.kv.lock().unwrap().get(&args.key) {
        Some(v) => Ok(GetReply { value: v.clone() }),
        None => Err(format!("key {} not found", args.key)),
    }
}

#[derive(Deserialize, Serialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub struct HeightArgs {
    #[serde(with = "u64_string")]
    pub height: u64,
    pub block_id: String,
}

/// `test.getBlockByHeight`: echoes the height and id it decoded.
async fn get_block_by_height(_: TestState, args: HeightArgs) -> Result<HeightArgs, String> {
    Ok(args)
}

/// `test.fail`: an error whose text needs HTML escaping.
async fn fail(_: TestState, _: NoArgs) -> Result<EmptyReply, String> {
    Err("couldn't get block <b> & co".to_owned())
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub struct SleepArgs {
    pub ms: u64,
}

/// `test.sleep`
async fn sleep(_: TestState, args: SleepArgs) -> Result<EmptyReply, String> {
    tokio::time::sleep(Duration::from_millis(args.ms)).await;
    Ok(EmptyReply {})
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub struct ValidatorsArgs {
    #[serde(rename = "nodeIDs")]
    pub node_ids: Vec<String>,
}

/// `validators.getCurrentValidators` (subnet-evm's `/validators`): raw numbers, not strings.
async fn get_current_validators(
    _: TestState,
    args: ValidatorsArgs,
) -> Result<serde_json::Value, String> {
    let validators: Vec<_> = args
        .node_ids
        .iter()
        .map(|id| serde_json::json!({"nodeID": id, "weight": 20, "isActive": true}))
        .collect();
    Ok(serde_json::json!({ "validators": validators }))
}

/// The AvalancheGo-style endpoints: `info`, `store` and `test` services.
pub fn ava_server(state: TestState) -> AvaServer<TestState> {
    AvaServer::new(state)
        .service(AvaService::new("info").method("getNetworkID", get_network_id))
        .service(
            AvaService::new("store")
                .method("put", put)
                .method("get", get),
        )
        .service(
            AvaService::new("test")
                .method("getBlockByHeight", get_block_by_height)
                .method("fail", fail)
                .method("sleep", sleep),
        )
}

/// `web3_clientVersion`
async fn client_version(_: TestState, (): ()) -> Result<&'static str, ErrorObject> {
    Ok("firn/v0.1.0")
}

/// `test_add`
async fn add(state: TestState, (a, b): (u64, Option<u64>)) -> Result<u64, ErrorObject> {
    state.calls.fetch_add(1, Ordering::SeqCst);
    Ok(a + b.unwrap_or(0))
}

/// `test_fail`: a handler error.
async fn eth_fail(_: TestState, (msg,): (String,)) -> Result<(), ErrorObject> {
    Err(ErrorObject::server(msg))
}

/// `eth_call`: always reverts.
async fn eth_call(
    _: TestState,
    _: (serde_json::Value, Option<String>),
) -> Result<String, ErrorObject> {
    Err(ErrorObject::revert(
        Some("denied"),
        &[0x08, 0xc3, 0x79, 0xa0],
    ))
}

/// `test_sleep`
async fn eth_sleep(_: TestState, (ms,): (u64,)) -> Result<u64, ErrorObject> {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    Ok(ms)
}

/// `test_blob`: a string of `n` bytes.
async fn blob(_: TestState, (n,): (usize,)) -> Result<String, ErrorObject> {
    Ok("x".repeat(n))
}

/// The go-ethereum-style endpoint.
pub fn eth_server(state: TestState) -> EthServer<TestState> {
    EthServer::new(state)
        .method("web3_clientVersion", client_version)
        .method("test_add", add)
        .method("test_fail", eth_fail)
        .method("eth_call", eth_call)
        .method("test_sleep", eth_sleep)
        .method("test_blob", blob)
        .batch_limits(5, 1000)
}

/// The router the tests use: `/ext/info`, `/ext/bc/P` (+ alias `/ext/P`), and for chain `C`
/// only `/ext/bc/{chain}/validators` and `/ext/bc/{chain}/rpc`.
pub fn app(state: TestState) -> Router {
    let ava = Arc::new(ava_server(state.clone()));
    let validators: Arc<dyn firn_rpc::Endpoint> = Arc::new(AvaServer::new(state.clone()).service(
        AvaService::new("validators").method("getCurrentValidators", get_current_validators),
    ));
    let eth: Arc<dyn firn_rpc::Endpoint> = Arc::new(eth_server(state));
    RpcRouter::new()
        .limits(Limits {
            body_limit: 64 * 1024,
            request_timeout: Some(Duration::from_millis(300)),
        })
        .mount("/ext/info", ava.clone())
        .mount("/ext/bc/P", ava)
        .alias("/ext/P", "/ext/bc/P")
        .mount_per_param("/ext/bc/{chain}/validators", move |chain| {
            (chain == "C").then(|| validators.clone())
        })
        .mount_per_param("/ext/bc/{chain}/rpc", move |chain| {
            (chain == "C").then(|| eth.clone())
        })
        .build()
        .unwrap()
}

/// What came back.
#[derive(Debug)]
pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: String,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {:?}", self.body))
    }
}

/// Sends requests in process or over HTTP.
pub enum Harness {
    InProcess(Router),
    Http {
        url: String,
        client: reqwest::Client,
        _server: firn_rpc::ServerHandle,
    },
}

impl Harness {
    /// Both harnesses over one fresh state each.
    pub async fn both() -> Vec<(Harness, TestState)> {
        let s1 = TestState::default();
        let s2 = TestState::default();
        let server = firn_rpc::spawn(firn_rpc::loopback(0), app(s2.clone()))
            .await
            .unwrap();
        vec![
            (Harness::InProcess(app(s1.clone())), s1),
            (
                Harness::Http {
                    url: server.url(),
                    client: reqwest::Client::new(),
                    _server: server,
                },
                s2,
            ),
        ]
    }

    pub fn name(&self) -> &'static str {
        match self {
            Harness::InProcess(_) => "in-process",
            Harness::Http { .. } => "http",
        }
    }

    pub async fn send(
        &self,
        method: Method,
        path: &str,
        content_type: Option<&str>,
        body: impl Into<Vec<u8>>,
    ) -> Reply {
        let body: Vec<u8> = body.into();
        match self {
            Harness::InProcess(router) => {
                let mut req = Request::builder().method(method).uri(path);
                if let Some(ct) = content_type {
                    req = req.header("content-type", ct);
                }
                let req = req
                    .header("content-length", body.len().to_string())
                    .body(Body::from(body))
                    .unwrap();
                let resp = router.clone().oneshot(req).await.unwrap();
                let status = resp.status();
                let headers = resp.headers().clone();
                let bytes = axum::body::to_bytes(resp.into_body(), usize::MAX)
                    .await
                    .unwrap();
                Reply {
                    status,
                    headers,
                    body: String::from_utf8(bytes.to_vec()).unwrap(),
                }
            }
            Harness::Http { url, client, .. } => {
                let method = reqwest::Method::from_bytes(method.as_str().as_bytes()).unwrap();
                let mut req = client.request(method, format!("{url}{path}"));
                if let Some(ct) = content_type {
                    req = req.header("content-type", ct);
                }
                let resp = req.body(body).send().await.unwrap();
                let status = StatusCode::from_u16(resp.status().as_u16()).unwrap();
                let mut headers = HeaderMap::new();
                for (k, v) in resp.headers() {
                    headers.insert(
                        axum::http::HeaderName::from_bytes(k.as_str().as_bytes()).unwrap(),
                        axum::http::HeaderValue::from_bytes(v.as_bytes()).unwrap(),
                    );
                }
                Reply {
                    status,
                    headers,
                    body: resp.text().await.unwrap(),
                }
            }
        }
    }

    /// A JSON POST.
    pub async fn post(&self, path: &str, body: &str) -> Reply {
        self.send(Method::POST, path, Some("application/json"), body)
            .await
    }
}
