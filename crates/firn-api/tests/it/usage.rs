//! The usage routes: every Data API request is logged under its API key; `/v1/apiLogs` and
//! `/v1/apiUsageMetrics` show a key its own requests only; node RPC requests count in the RPC
//! usage metrics. Every answer matches the official schema.

use axum::body::Body;
use axum::http::Request;
use firn_api::usage::{Flusher, Retention, UsageRecorder};
use firn_api::{ApiConfig, AppState};
use firn_node::NodeConfig;
use firn_store::Store;
use serde_json::{Value, json};

use crate::harness::{Api, Reply};
use crate::schema::{assert_valid, official};

const KEY_A: &str = "key-a";
const KEY_B: &str = "key-b";

fn validate(path: &str, body: &Value) {
    match official() {
        Some(doc) => assert_valid(&doc, "get", path, body),
        None => eprintln!("SKIPPED schema check: shared/openapi/data-api.openapi.json not found"),
    }
}

async fn get_as(api: &Api, key: &str, uri: &str) -> Reply {
    api.request(
        Request::get(uri)
            .header("x-glacier-api-key", key)
            .body(Body::empty())
            .unwrap(),
    )
    .await
}

async fn ok_as(api: &Api, key: &str, uri: &str) -> Value {
    let r = get_as(api, key, uri).await;
    assert_eq!(r.status, 200, "{uri}: {}", r.json);
    r.json
}

/// The sum of `totalRequests` per group value over every bucket.
fn totals(metrics: &Value) -> std::collections::BTreeMap<String, u64> {
    let mut out = std::collections::BTreeMap::new();
    for bucket in metrics["metrics"].as_array().unwrap() {
        for v in bucket["values"].as_array().unwrap() {
            let key = match &v["groupValue"] {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            *out.entry(key).or_default() += v["totalRequests"].as_u64().unwrap();
        }
    }
    out
}

pub async fn data_api_requests_are_logged_per_key(store: Store) {
    let (recorder, queue) = UsageRecorder::channel(1_000);
    let mut flusher = Flusher::new(store.clone(), queue, Retention::default());
    let state = AppState::new(store, ApiConfig::default()).with_usage(recorder);
    let api = Api {
        app: firn_api::app(state),
    };

    // Key A: three health checks and two unknown paths (404); key B: one health check.
    let mut sent = Vec::new();
    for path in [
        "/v1/health-check",
        "/v1/nope",
        "/v1/health-check",
        "/v1/nope",
        "/v1/health-check",
    ] {
        let r = get_as(&api, KEY_A, path).await;
        sent.push((path, r.status.as_u16()));
    }
    assert_eq!(get_as(&api, KEY_B, "/v1/health-check").await.status, 200);
    assert_eq!(flusher.flush().await.unwrap(), 6);

    // Newest first, two to a page, exactly what key A sent.
    let mut logs = Vec::new();
    let mut uri = "/v1/apiLogs?pageSize=2".to_owned();
    loop {
        let page = ok_as(&api, KEY_A, &uri).await;
        validate("/v1/apiLogs", &page);
        assert!(page["logs"].as_array().unwrap().len() <= 2);
        logs.extend(page["logs"].as_array().unwrap().iter().cloned());
        match page["nextPageToken"].as_str() {
            Some(t) => uri = format!("/v1/apiLogs?pageSize=2&pageToken={t}"),
            None => break,
        }
    }
    let got: Vec<(String, u16)> = logs
        .iter()
        .map(|l| {
            (
                l["requestPath"].as_str().unwrap().to_owned(),
                u16::try_from(l["responseCode"].as_u64().unwrap()).unwrap(),
            )
        })
        .collect();
    let want: Vec<(String, u16)> = sent
        .iter()
        .rev()
        .map(|(p, s)| ((*p).to_owned(), *s))
        .collect();
    assert_eq!(got, want);
    let org = logs[0]["orgId"].as_str().unwrap().to_owned();
    assert_eq!(org.len(), 64, "the key's SHA-256, hex");
    assert!(
        logs.iter()
            .all(|l| l["apiKeyId"] == org.as_str() && l["requestType"] == "data")
    );
    let times: Vec<u64> = logs
        .iter()
        .map(|l| l["eventTimestamp"].as_u64().unwrap())
        .collect();
    assert!(times.windows(2).all(|w| w[0] >= w[1]), "newest first");

    // Metrics grouped by response code and by path add up to what was sent. The apiLogs
    // requests above are logged too, but not flushed yet.
    let by_code = ok_as(
        &api,
        KEY_A,
        "/v1/apiUsageMetrics?groupBy=responseCode&timeInterval=hourly",
    )
    .await;
    validate("/v1/apiUsageMetrics", &by_code);
    assert_eq!(by_code["orgId"], org.as_str());
    assert_eq!(
        totals(&by_code),
        [("200".to_owned(), 3), ("404".to_owned(), 2)].into()
    );
    let value = |code: u64| {
        by_code["metrics"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|b| b["values"].as_array().unwrap().iter())
            .find(|v| v["groupValue"] == code)
            .cloned()
            .unwrap()
    };
    assert_eq!(value(404)["invalidRequests"], 2);
    assert_eq!(value(404)["apiCreditsWasted"], 2);
    assert_eq!(value(200)["successRatePercent"], 100.0);
    let by_path = ok_as(&api, KEY_A, "/v1/apiUsageMetrics?groupBy=requestPath").await;
    validate("/v1/apiUsageMetrics", &by_path);
    assert_eq!(
        totals(&by_path),
        [
            ("/v1/health-check".to_owned(), 3),
            ("/v1/nope".to_owned(), 2)
        ]
        .into()
    );
    let filtered = ok_as(&api, KEY_A, "/v1/apiUsageMetrics?responseCode=404").await;
    assert_eq!(totals(&filtered).values().sum::<u64>(), 2);

    // Key B sees its one request and none of A's; nobody sees another organization.
    let b = ok_as(&api, KEY_B, "/v1/apiLogs").await;
    assert_eq!(b["logs"].as_array().unwrap().len(), 1);
    assert_ne!(b["orgId"], org.as_str());
    let b = ok_as(&api, KEY_B, &format!("/v1/apiUsageMetrics?apiKeyId={org}")).await;
    assert!(b["metrics"].as_array().unwrap().is_empty());
    get_as(&api, KEY_B, &format!("/v1/apiLogs?orgId={org}"))
        .await
        .assert_error(404, "not found");

    // Bad parameters are 400s naming them.
    get_as(&api, KEY_A, "/v1/apiUsageMetrics?groupBy=color")
        .await
        .assert_error(400, "groupBy");
    get_as(&api, KEY_A, "/v1/apiLogs?startTimestamp=20&endTimestamp=10")
        .await
        .assert_error(400, "startTimestamp");
}

async fn rpc(client: &reqwest::Client, url: &str, method: &str, params: Value) {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let r = client.post(url).json(&body).send().await.unwrap();
    assert_eq!(r.status(), 200, "{method}");
}

pub async fn node_rpc_requests_count_in_rpc_metrics(store: Store) {
    let (recorder, queue) = UsageRecorder::channel(1_000);
    let mut flusher = Flusher::new(store.clone(), queue, Retention::default());
    let node = firn_node::spawn(NodeConfig::test().with_evm().with_usage(recorder))
        .await
        .unwrap();
    let client = reqwest::Client::new();
    let c = node.url_of("/ext/bc/C/rpc");
    let p = node.url_of("/ext/bc/P");
    rpc(&client, &c, "eth_chainId", json!([])).await;
    rpc(&client, &c, "eth_blockNumber", json!([])).await;
    rpc(&client, &c, "eth_chainId", json!([])).await;
    rpc(&client, &p, "platform.getHeight", json!({})).await;
    assert_eq!(flusher.flush().await.unwrap(), 4);
    let api = Api::new(store);

    let subnet = api.ok("/v1/subnetRpcUsageMetrics?groupBy=rpcMethod").await;
    validate("/v1/subnetRpcUsageMetrics", &subnet);
    assert_eq!(
        totals(&subnet),
        [
            ("eth_blockNumber".to_owned(), 1),
            ("eth_chainId".to_owned(), 2)
        ]
        .into()
    );
    let one_chain = api.ok("/v1/subnetRpcUsageMetrics?chainId=43113").await;
    assert_eq!(one_chain["chainId"], "43113");
    assert_eq!(totals(&one_chain).values().sum::<u64>(), 3);

    let primary = api
        .ok("/v1/primaryNetworkRpcUsageMetrics?network=fuji&groupBy=rpcMethod")
        .await;
    validate("/v1/primaryNetworkRpcUsageMetrics", &primary);
    assert_eq!(primary["network"], "testnet");
    assert_eq!(
        totals(&primary),
        [
            ("eth_blockNumber".to_owned(), 1),
            ("eth_chainId".to_owned(), 2),
            ("platform.getHeight".to_owned(), 1)
        ]
        .into()
    );
    api.get("/v1/primaryNetworkRpcUsageMetrics")
        .await
        .assert_error(400, "network");
    node.shutdown().await;
}
