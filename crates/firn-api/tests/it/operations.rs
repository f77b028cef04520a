//! Transaction exports: the worker really runs; its files hold exactly what the list endpoints
//! return for the same addresses and days, on both backends; a bounded export is truncated
//! with `nextDate`; jobs are scoped to their API key; bad requests are 400s naming the problem.

use std::future::Future;
use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use firn_api::operations::ExportConfig;
use firn_api::{ApiConfig, AppState};
use firn_core::calendar::{DAY, civil_from_days};
use firn_store::Store;
use serde_json::{Value, json};

use crate::fixtures::{CHAIN, fuji, seed};
use crate::harness::{Api, Reply};
use crate::schema;

const EXPORT: &str = "/v1/operations/transactions:export";

fn config(max_rows: u64) -> ApiConfig {
    ApiConfig {
        exports: ExportConfig {
            max_rows,
            poll: Duration::from_millis(10),
            ..ExportConfig::default()
        },
        ..ApiConfig::default()
    }
}

/// Starts the worker over `store` with `config`; it stops when the returned sender drops.
fn start_worker(store: &Store, config: ApiConfig) -> tokio::sync::oneshot::Sender<()> {
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let state = AppState::new(store.clone(), config);
    tokio::spawn(firn_api::operations::run(state, async move {
        let _ = stopped.await;
    }));
    stop
}

async fn send(api: &Api, key: &str, request: axum::http::request::Builder, body: Body) -> Reply {
    api.request(
        request
            .header("x-glacier-api-key", key)
            .header("host", "firn.test:8080")
            .body(body)
            .unwrap(),
    )
    .await
}

async fn post(api: &Api, key: &str, body: &Value) -> Reply {
    let request = Request::post(EXPORT).header("content-type", "application/json");
    send(api, key, request, Body::from(body.to_string())).await
}

async fn get(api: &Api, key: &str, uri: &str) -> Reply {
    send(api, key, Request::get(uri), Body::empty()).await
}

/// Polls `check` until it gives a value; fails after 30 s.
async fn wait_for<T, F: Future<Output = Option<T>>>(what: &str, mut check: impl FnMut() -> F) -> T {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(v) = check().await {
            return v;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Creates an export as `key` and waits for it to end; its final status.
async fn export(api: &Api, key: &str, body: &Value) -> Value {
    let created = post(api, key, body).await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.json);
    assert_eq!(created.json["operationStatus"], "RUNNING");
    if let Some(doc) = schema::official() {
        schema::assert_valid(&doc, "post", EXPORT, &created.json);
    }
    let uri = format!(
        "/v1/operations/{}",
        created.json["operationId"].as_str().unwrap()
    );
    let done = wait_for("the export to end", || async {
        let r = get(api, key, &uri).await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.json);
        (r.json["operationStatus"] != "RUNNING").then_some(r.json)
    })
    .await;
    if let Some(doc) = schema::official() {
        schema::assert_valid(&doc, "get", "/v1/operations/{operationId}", &done);
    }
    done
}

/// The CSV `done` points at, downloaded as `key`, parsed (RFC 4180) into records.
async fn download(api: &Api, key: &str, done: &Value) -> Vec<Vec<String>> {
    let url = done["metadata"]["downloadUrl"].as_str().unwrap();
    let path = url
        .strip_prefix("http://firn.test:8080")
        .expect("absolute URL of the request's host");
    let r = get(api, key, path).await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(
        r.headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/csv")
    );
    parse_csv(r.json.as_str().unwrap())
}

fn parse_csv(text: &str) -> Vec<Vec<String>> {
    let (mut records, mut record, mut field) = (Vec::new(), Vec::new(), String::new());
    let mut chars = text.chars().peekable();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => field.push(c),
            (false, '"') => quoted = true,
            (false, ',') => record.push(std::mem::take(&mut field)),
            (false, '\r') => {
                assert_eq!(chars.next(), Some('\n'), "records end with CRLF");
                record.push(std::mem::take(&mut field));
                records.push(std::mem::take(&mut record));
            }
            (false, c) => field.push(c),
        }
    }
    assert!(
        record.is_empty() && field.is_empty(),
        "the file ends with a whole record"
    );
    records
}

fn day(ts: u64) -> String {
    let (y, m, d) = civil_from_days(ts / DAY);
    format!("{y:04}-{m:02}-{d:02}")
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn amounts(v: &Value) -> String {
    v.as_array()
        .unwrap()
        .iter()
        .map(|a| format!("{}:{}", text(&a["amount"]), text(&a["assetId"])))
        .collect::<Vec<_>>()
        .join(";")
}

fn evm_record(address: &str, t: &Value) -> Vec<String> {
    let n = &t["nativeTransaction"];
    [
        &n["chainId"],
        &n["blockNumber"],
        &n["blockTimestamp"],
        &n["blockHash"],
        &n["txHash"],
        &n["txStatus"],
        &n["txType"],
        &n["from"]["address"],
        &n["to"]["address"],
        &n["value"],
        &n["gasLimit"],
        &n["gasUsed"],
        &n["gasPrice"],
        &n["nonce"],
        &n["method"]["methodHash"],
        &n["method"]["methodName"],
    ]
    .into_iter()
    .map(text)
    .fold(vec![address.to_owned()], |mut r, f| {
        r.push(f);
        r
    })
}

fn pchain_record(t: &Value) -> Vec<String> {
    vec![
        text(&t["txHash"]),
        text(&t["txType"]),
        text(&t["blockNumber"]),
        text(&t["blockTimestamp"]),
        text(&t["blockHash"]),
        amounts(&t["value"]),
        amounts(&t["amountBurned"]),
        amounts(&t["amountStaked"]),
        amounts(&t["amountL1ValidatorBalanceBurned"]),
        text(&t["nodeId"]),
        text(&t["subnetId"]),
        text(&t["startTimestamp"]),
        text(&t["endTimestamp"]),
        text(&t["sourceChain"]),
        text(&t["destinationChain"]),
        text(&t["memo"]),
    ]
}

/// The first and last day of `txs`' times (at `field`).
fn days_of(txs: &[Value], field: impl Fn(&Value) -> u64) -> (String, String) {
    let ts: Vec<u64> = txs.iter().map(field).collect();
    (
        day(*ts.iter().min().unwrap()),
        day(*ts.iter().max().unwrap()),
    )
}

/// An address with EVM activity: the sender of the chain's first transaction.
async fn evm_sender(api: &Api) -> String {
    let txs = api
        .ok(&format!(
            "/v1/chains/{CHAIN}/transactions?sortOrder=asc&pageSize=1"
        ))
        .await;
    text(&txs["transactions"][0]["from"]["address"])
}

pub async fn exports_match_the_list_endpoints(store: Store) {
    seed(&store, 30, 30).await;
    let api = Api::with_config(store.clone(), config(100_000));
    let _worker = start_worker(&store, config(100_000));

    // EVM: one address's transactions, as listTransactions gives them, oldest first.
    let address = evm_sender(&api).await;
    let listed = api
        .all_pages(
            &format!("/v1/chains/{CHAIN}/addresses/{address}/transactions?sortOrder=asc"),
            "transactions",
            100,
        )
        .await;
    assert!(listed.len() > 2, "the fixture gives the address activity");
    let (first, last) = days_of(&listed, |t| {
        t["nativeTransaction"]["blockTimestamp"].as_u64().unwrap()
    });
    let body = json!({"type": "TRANSACTION_EXPORT_EVM", "firstDate": first, "lastDate": last,
        "options": {"addresses": [address], "includeChains": [CHAIN.to_string()]}});
    let done = export(&api, "alice", &body).await;
    assert_eq!(done["operationStatus"], "COMPLETED", "{done}");
    assert_eq!(done["operationType"], "TRANSACTION_EXPORT_EVM");
    let records = download(&api, "alice", &done).await;
    assert_eq!(records[0][0], "address");
    let expected: Vec<Vec<String>> = listed
        .iter()
        .map(|t| evm_record(&address.to_ascii_lowercase(), t))
        .collect();
    assert_eq!(records[1..], expected[..]);

    // A range of days before any activity holds the header alone (the deprecated names work).
    let body = json!({"type": "TRANSACTION_EXPORT_EVM", "startDate": "1971-01-01", "endDate": "1971-01-02",
        "options": {"addresses": [address], "includeChains": [CHAIN.to_string()]}});
    let done = export(&api, "alice", &body).await;
    assert_eq!(download(&api, "alice", &done).await.len(), 1);

    // P-Chain: two addresses' transactions, as listLatestPrimaryNetworkTransactions gives them.
    let addresses = format!("{},{}", fuji(1), fuji(2));
    let listed = api
        .all_pages(&format!("/v1/networks/fuji/blockchains/p-chain/transactions?addresses={addresses}&sortOrder=asc"), "transactions", 100)
        .await;
    assert!(listed.len() > 2);
    let (first, last) = days_of(&listed, |t| t["blockTimestamp"].as_u64().unwrap());
    let body = json!({"type": "TRANSACTION_EXPORT_PRIMARY_NETWORK", "firstDate": first, "lastDate": last,
        "options": {"addresses": [fuji(1), format!("P-{}", fuji(2))], "includeChains": ["p-chain"]}});
    let done = export(&api, "alice", &body).await;
    assert_eq!(done["operationStatus"], "COMPLETED", "{done}");
    let records = download(&api, "alice", &done).await;
    assert_eq!(records[0][..2], ["txHash".to_owned(), "txType".to_owned()]);
    let expected: Vec<Vec<String>> = listed.iter().map(pchain_record).collect();
    assert_eq!(records[1..], expected[..]);

    // Staking: the staking types only, as the list filtered by them gives them.
    let staking =
        "AddValidatorTx,AddDelegatorTx,AddPermissionlessValidatorTx,AddPermissionlessDelegatorTx";
    let start = first.clone();
    let body = json!({"type": "TRANSACTION_EXPORT_PRIMARY_NETWORK_STAKING", "firstDate": start, "lastDate": last,
        "options": {"addresses": [fuji(1), fuji(2)], "includeChains": ["11111111111111111111111111111111LpoYY"]}});
    let done = export(&api, "alice", &body).await;
    let records = download(&api, "alice", &done).await;
    let listed = api
        .all_pages(&format!("/v1/networks/fuji/blockchains/p-chain/transactions?addresses={addresses}&txTypes={staking}&sortOrder=asc"), "transactions", 100)
        .await;
    let expected: Vec<Vec<String>> = listed.iter().map(pchain_record).collect();
    assert_eq!(records[1..], expected[..]);
}

pub async fn exports_are_bounded_scoped_and_validated(store: Store) {
    seed(&store, 30, 0).await;
    let api = Api::with_config(store.clone(), config(3));
    let _worker = start_worker(&store, config(3));

    let addresses = format!("{},{}", fuji(1), fuji(2));
    let listed = api
        .all_pages(&format!("/v1/networks/fuji/blockchains/p-chain/transactions?addresses={addresses}&sortOrder=asc"), "transactions", 100)
        .await;
    assert!(listed.len() > 3);
    let (first, last) = days_of(&listed, |t| t["blockTimestamp"].as_u64().unwrap());
    let body = json!({"type": "TRANSACTION_EXPORT_PRIMARY_NETWORK_SIMPLE", "firstDate": first, "lastDate": last,
        "options": {"addresses": [fuji(1), fuji(2)], "includeChains": ["p-chain"]}});
    let done = export(&api, "alice", &body).await;
    assert_eq!(done["operationStatus"], "COMPLETED_WITH_WARNING", "{done}");
    assert_eq!(done["metadata"]["code"], "WarnTruncatedExport");
    assert_eq!(
        done["metadata"]["nextDate"],
        day(listed[3]["blockTimestamp"].as_u64().unwrap())
    );
    let records = download(&api, "alice", &done).await;
    assert_eq!(records.len(), 4, "the header and the first 3 rows");
    let hashes: Vec<&str> = listed[..3]
        .iter()
        .map(|t| t["txHash"].as_str().unwrap())
        .collect();
    assert_eq!(
        records[1..]
            .iter()
            .map(|r| r[0].as_str())
            .collect::<Vec<_>>(),
        hashes
    );

    // Another key sees neither the job nor its file.
    let id = done["operationId"].as_str().unwrap();
    get(&api, "bob", &format!("/v1/operations/{id}"))
        .await
        .assert_error(404, "not found");
    get(&api, "bob", &format!("/v1/operations/{id}/file"))
        .await
        .assert_error(404, "not found");
    get(
        &api,
        "alice",
        "/v1/operations/00000000-0000-0000-0000-000000000000",
    )
    .await
    .assert_error(404, "not found");

    let evm = |extra: Value| {
        let mut b = json!({"type": "TRANSACTION_EXPORT_EVM", "firstDate": "2024-01-01", "lastDate": "2024-01-31",
            "options": {"addresses": ["0x0000000000000000000000000000000000000001"], "includeChains": [CHAIN.to_string()]}});
        for (k, v) in extra.as_object().unwrap() {
            b[k] = v.clone();
        }
        b
    };
    let many: Vec<String> = (0..65).map(|i| format!("0x{i:040x}")).collect();
    let cases = [
        (
            evm(json!({"type": "TRANSACTION_EXPORT_X"})),
            "type must be one of",
        ),
        (
            evm(json!({"firstDate": "2024-02-30"})),
            "firstDate must be a date",
        ),
        (
            evm(json!({"lastDate": "yesterday"})),
            "lastDate must be a date",
        ),
        (
            evm(json!({"firstDate": "2024-02-01"})),
            "lastDate must be on or after firstDate",
        ),
        (evm(json!({"firstDate": "2022-01-01"})), "at most 366 days"),
        (
            evm(json!({"options": {"addresses": [], "includeChains": ["43113"]}})),
            "options.addresses must name at least one",
        ),
        (
            evm(json!({"options": {"addresses": many, "includeChains": ["43113"]}})),
            "at most 64 addresses",
        ),
        (
            evm(json!({"options": {"addresses": ["0xzz"], "includeChains": ["43113"]}})),
            "is not an EVM address",
        ),
        (
            evm(
                json!({"options": {"addresses": ["0x0000000000000000000000000000000000000001"], "includeChains": ["99999"]}}),
            ),
            "options.includeChains",
        ),
        (
            json!({"type": "TRANSACTION_EXPORT_PRIMARY_NETWORK", "firstDate": "2024-01-01", "lastDate": "2024-01-02",
            "options": {"addresses": [fuji(1)], "includeChains": ["x-chain"]}}),
            "only p-chain is",
        ),
        (
            json!({"type": "TRANSACTION_EXPORT_PRIMARY_NETWORK", "firstDate": "2024-01-01", "lastDate": "2024-01-02",
            "options": {"addresses": ["0x0000000000000000000000000000000000000001"], "includeChains": ["p-chain"]}}),
            "not a P-Chain address",
        ),
        (
            json!({"type": "TRANSACTION_EXPORT_EVM", "options": {}}),
            "firstDate is required",
        ),
        (
            json!({"type": "TRANSACTION_EXPORT_EVM", "firstDate": 5}),
            "invalid request body",
        ),
    ];
    for (body, needle) in cases {
        post(&api, "alice", &body).await.assert_error(400, needle);
    }
}
