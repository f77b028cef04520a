//! Webhooks: the routes against the official schemas, owner scoping and validation; and the
//! dispatcher delivering indexed activity to a real receiver on loopback: signed, canonical,
//! in order, once per event between two dispatchers, through failures, retries and
//! deactivation.

use std::collections::{BTreeSet, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, Request, StatusCode};
use firn_api::ApiConfig;
use firn_api::webhooks::{WebhookConfig, canonical_json, signature};
use firn_store::rows::evm::EvmBlockRows;
use firn_store::types::Address;
use firn_store::{EvmReader, EvmWriter, Store};
use serde_json::{Value, json};

use crate::fixtures::{CHAIN, EvmHistory, activity_of, evm_address, evm_chain};
use crate::harness::{Api, Reply};
use crate::schema;

/// A receiver on loopback that checks every delivery's signature and canonical form.
#[derive(Clone, Default)]
pub(crate) struct Receiver {
    inner: Arc<Mutex<Received>>,
}

#[derive(Default)]
pub(crate) struct Received {
    /// Secrets a signature may be made with.
    secrets: Vec<String>,
    /// Requests still to refuse with a 500.
    fail_next: u32,
    /// Refuse every request.
    fail_all: bool,
    failed: u32,
    pub(crate) bad_signatures: u32,
    not_canonical: u32,
    pub(crate) events: Vec<Value>,
}

impl Receiver {
    pub(crate) async fn start(&self) -> String {
        let receiver = self.clone();
        let app = axum::Router::new().route(
            "/hook",
            axum::routing::post(move |headers: HeaderMap, body: Bytes| {
                let receiver = receiver.clone();
                async move { receiver.take(&headers, &body) }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/hook", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        url
    }

    fn take(&self, headers: &HeaderMap, body: &[u8]) -> StatusCode {
        let mut r = self.inner.lock().unwrap();
        let sent = headers
            .get("x-signature")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        if !r.secrets.iter().any(|s| signature(s, body) == sent) {
            r.bad_signatures += 1;
        }
        let value: Value = serde_json::from_slice(body).unwrap();
        if canonical_json(&value).unwrap() != body {
            r.not_canonical += 1;
        }
        if r.fail_all || r.fail_next > 0 {
            r.fail_next = r.fail_next.saturating_sub(1);
            r.failed += 1;
            return StatusCode::INTERNAL_SERVER_ERROR;
        }
        r.events.push(value);
        StatusCode::OK
    }

    /// Accepts signatures made with the shared secret `key`'s owner has now.
    pub(crate) async fn trust(&self, api: &Api, key: Option<&str>) {
        let secret = send(api, "GET", "/v1/webhooks:getSharedSecret", key, None)
            .await
            .ok();
        let secret = secret["secret"].as_str().unwrap().to_owned();
        self.with(|r| r.secrets.push(secret));
    }

    pub(crate) fn with<T>(&self, f: impl FnOnce(&mut Received) -> T) -> T {
        f(&mut self.inner.lock().unwrap())
    }
}

/// Waits (polling) until `done` holds, failing after 60 s with `what`.
pub(crate) async fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    while !done() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

pub(crate) fn fast_config() -> ApiConfig {
    ApiConfig {
        webhooks: WebhookConfig {
            allow_private_targets: true,
            max_attempts: 10,
            first_retry: Duration::from_millis(20),
            max_retry: Duration::from_millis(100),
            request_timeout: Duration::from_secs(5),
            lease: Duration::from_millis(600),
            poll: Duration::from_millis(10),
            // Every step writes its cursor, so a test can see how far matching got.
            quiet_cursor_write: Duration::ZERO,
            ..WebhookConfig::default()
        },
        ..ApiConfig::default()
    }
}

pub(crate) async fn send(
    api: &Api,
    method: &str,
    uri: &str,
    key: Option<&str>,
    body: Option<&Value>,
) -> Reply {
    let mut request = Request::builder().method(method).uri(uri);
    if let Some(key) = key {
        request = request.header("x-glacier-api-key", key);
    }
    let body = match body {
        Some(b) => {
            request = request.header("content-type", "application/json");
            Body::from(b.to_string())
        }
        None => Body::empty(),
    };
    api.request(request.body(body).unwrap()).await
}

pub(crate) fn create_body(url: &str, addresses: &[Address]) -> Value {
    json!({
        "eventType": "address_activity",
        "url": url,
        "chainId": CHAIN.to_string(),
        "name": "watch",
        "description": "test",
        "metadata": {"addresses": addresses.iter().map(|a| a.to_checksum(None)).collect::<Vec<_>>()},
        "includeLogs": true,
        "includeInternalTxs": true,
    })
}

/// Two dispatchers over `store`, as two server processes would run them; they stop when the
/// returned sender is dropped, and aborting a handle is a process dying (no lease given up).
pub(crate) fn dispatchers(
    store: &Store,
    config: &ApiConfig,
) -> (
    tokio::sync::watch::Sender<()>,
    Vec<tokio::task::JoinHandle<()>>,
) {
    let (stop, stopped) = tokio::sync::watch::channel(());
    let handles = (0..2)
        .map(|_| {
            let mut stopped = stopped.clone();
            tokio::spawn(firn_api::webhooks::run(
                store.clone(),
                config.network.clone(),
                config.webhooks.clone(),
                async move {
                    let _ = stopped.changed().await;
                },
            ))
        })
        .collect();
    (stop, handles)
}

pub async fn webhook_routes_match_the_official_schemas(store: Store) {
    store.upsert_evm_chain(&evm_chain(CHAIN)).await.unwrap();
    let api = Api::with_config(store.clone(), fast_config());
    let doc = schema::official();
    let valid = |method: &str, path: &str, value: &Value| {
        if let Some(doc) = &doc {
            schema::assert_valid(doc, method, path, value);
        }
    };
    let (a, b, c) = (evm_address(1), evm_address(2), evm_address(3));
    let created = send(
        &api,
        "POST",
        "/v1/webhooks",
        Some("alice"),
        Some(&create_body("http://127.0.0.1:9/hook", &[a, b])),
    )
    .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.json);
    valid("post", "/v1/webhooks", &created.json);
    let id = created.json["id"].as_str().unwrap().to_owned();
    assert_eq!(created.json["status"], "active");
    assert_eq!(created.json["chainId"], CHAIN.to_string());
    assert_eq!(created.json["includeLogs"], true);
    let mut want: Vec<String> = [a, b].iter().map(|x| x.to_checksum(None)).collect();
    want.sort_by_key(|s| s.to_lowercase());
    assert_eq!(created.json["metadata"]["addresses"], json!(want));

    let got = send(
        &api,
        "GET",
        &format!("/v1/webhooks/{id}"),
        Some("alice"),
        None,
    )
    .await
    .ok();
    valid("get", "/v1/webhooks/{id}", &got);
    assert_eq!(got, created.json);
    send(
        &api,
        "GET",
        &format!("/v1/webhooks/{id}"),
        Some("bob"),
        None,
    )
    .await
    .assert_error(404, "not found");
    send(&api, "GET", &format!("/v1/webhooks/{id}"), None, None)
        .await
        .assert_error(404, "not found");

    // A second webhook, then the list, page by page.
    let second = send(
        &api,
        "POST",
        "/v1/webhooks",
        Some("alice"),
        Some(&create_body("http://127.0.0.1:9/other", &[c])),
    )
    .await;
    assert_eq!(second.status, StatusCode::CREATED);
    let page = send(&api, "GET", "/v1/webhooks?pageSize=1", Some("alice"), None)
        .await
        .ok();
    valid("get", "/v1/webhooks", &page);
    assert_eq!(page["webhooks"][0]["id"], id.as_str());
    let token = page["nextPageToken"].as_str().unwrap();
    let next = send(
        &api,
        "GET",
        &format!("/v1/webhooks?pageSize=1&pageToken={token}"),
        Some("alice"),
        None,
    )
    .await
    .ok();
    assert_eq!(next["webhooks"][0]["id"], second.json["id"]);
    assert!(next.get("nextPageToken").is_none());
    let bobs = send(&api, "GET", "/v1/webhooks", Some("bob"), None)
        .await
        .ok();
    assert_eq!(bobs["webhooks"], json!([]), "another key sees none of them");

    // Update, deactivate, filter by status.
    let patch = json!({"name": "renamed", "includeLogs": false, "url": "http://127.0.0.1:9/new"});
    let updated = send(
        &api,
        "PATCH",
        &format!("/v1/webhooks/{id}"),
        Some("alice"),
        Some(&patch),
    )
    .await
    .ok();
    valid("patch", "/v1/webhooks/{id}", &updated);
    assert_eq!(
        (updated["name"].as_str(), updated["includeLogs"].as_bool()),
        (Some("renamed"), Some(false))
    );
    assert_eq!(updated["url"], "http://127.0.0.1:9/new");
    let off = send(
        &api,
        "DELETE",
        &format!("/v1/webhooks/{id}"),
        Some("alice"),
        None,
    )
    .await
    .ok();
    valid("delete", "/v1/webhooks/{id}", &off);
    assert_eq!(off["status"], "inactive");
    let inactive = send(
        &api,
        "GET",
        "/v1/webhooks?status=inactive",
        Some("alice"),
        None,
    )
    .await
    .ok();
    assert_eq!(inactive["webhooks"].as_array().unwrap().len(), 1);
    assert_eq!(inactive["webhooks"][0]["id"], id.as_str());
    let on = send(
        &api,
        "PATCH",
        &format!("/v1/webhooks/{id}"),
        Some("alice"),
        Some(&json!({"status": "active"})),
    )
    .await
    .ok();
    assert_eq!(on["status"], "active");

    // Addresses.
    let added = send(
        &api,
        "PATCH",
        &format!("/v1/webhooks/{id}/addresses"),
        Some("alice"),
        Some(&json!({"addresses": [c.to_checksum(None), format!("{a:#x}")]})),
    )
    .await
    .ok();
    valid("patch", "/v1/webhooks/{id}/addresses", &added);
    assert_eq!(added["metadata"]["addresses"].as_array().unwrap().len(), 3);
    let listed = send(
        &api,
        "GET",
        &format!("/v1/webhooks/{id}/addresses?pageSize=2"),
        Some("alice"),
        None,
    )
    .await
    .ok();
    valid("get", "/v1/webhooks/{id}/addresses", &listed);
    assert_eq!(listed["totalAddresses"], 3);
    assert_eq!(listed["addresses"].as_array().unwrap().len(), 2);
    assert!(listed["nextPageToken"].is_string());
    let removed = send(
        &api,
        "DELETE",
        &format!("/v1/webhooks/{id}/addresses"),
        Some("alice"),
        Some(&json!({"addresses": [b.to_checksum(None)]})),
    )
    .await
    .ok();
    valid("delete", "/v1/webhooks/{id}/addresses", &removed);
    assert_eq!(
        removed["metadata"]["addresses"].as_array().unwrap().len(),
        2
    );
    send(
        &api,
        "PATCH",
        &format!("/v1/webhooks/{id}/addresses"),
        Some("bob"),
        Some(&json!({"addresses": [format!("{a:#x}")]})),
    )
    .await
    .assert_error(404, "not found");

    // The shared secret: made with the first webhook, kept, rotated on request.
    let secret = send(
        &api,
        "GET",
        "/v1/webhooks:getSharedSecret",
        Some("alice"),
        None,
    )
    .await
    .ok();
    valid("get", "/v1/webhooks:getSharedSecret", &secret);
    let s1 = secret["secret"].as_str().unwrap().to_owned();
    assert_eq!(s1.len(), 64);
    let again = send(
        &api,
        "GET",
        "/v1/webhooks:getSharedSecret",
        Some("alice"),
        None,
    )
    .await
    .ok();
    assert_eq!(again["secret"], s1.as_str());
    let rotated = send(
        &api,
        "POST",
        "/v1/webhooks:generateOrRotateSharedSecret",
        Some("alice"),
        None,
    )
    .await;
    assert_eq!(rotated.status, StatusCode::CREATED);
    valid(
        "post",
        "/v1/webhooks:generateOrRotateSharedSecret",
        &rotated.json,
    );
    assert_ne!(rotated.json["secret"], s1.as_str());
    let bob = send(
        &api,
        "GET",
        "/v1/webhooks:getSharedSecret",
        Some("bob"),
        None,
    )
    .await
    .ok();
    assert_ne!(
        bob["secret"], rotated.json["secret"],
        "each key has its own secret"
    );
}

pub async fn webhook_requests_are_validated(store: Store) {
    store.upsert_evm_chain(&evm_chain(CHAIN)).await.unwrap();
    let strict = Api::new(store.clone());
    let a = evm_address(1);
    for (url, needle) in [
        ("http://127.0.0.1:8080/hook", "loopback or private"),
        (
            "http://169.254.169.254/latest/meta-data",
            "loopback or private",
        ),
        ("http://[::1]/x", "loopback or private"),
        ("http://10.0.0.7/x", "loopback or private"),
        ("http://localhost:1/x", "loopback or private"),
        ("ftp://example.com/x", "http or https"),
        ("not a url", "http or https"),
    ] {
        send(
            &strict,
            "POST",
            "/v1/webhooks",
            None,
            Some(&create_body(url, &[a])),
        )
        .await
        .assert_error(400, needle);
    }
    let r = send(&strict, "POST", "/v1/webhooks", None, Some(&json!({}))).await;
    r.assert_error(400, "eventType is required");
    for needle in ["url is required", "metadata is required"] {
        assert!(r.json["message"].to_string().contains(needle), "{}", r.json);
    }
    let api = Api::with_config(store.clone(), fast_config());
    let mut body = create_body("http://127.0.0.1:9/x", &[a]);
    body["chainId"] = json!("99999");
    send(&api, "POST", "/v1/webhooks", None, Some(&body))
        .await
        .assert_error(400, "not an EVM chain this server indexes");
    body["chainId"] = json!(CHAIN.to_string());
    body["metadata"]["addresses"] = json!(["0x1234"]);
    send(&api, "POST", "/v1/webhooks", None, Some(&body))
        .await
        .assert_error(400, "not an EVM address");
    body["metadata"] = json!({"addresses": [format!("{a:#x}")], "eventSignatures": ["0xzz"]});
    send(&api, "POST", "/v1/webhooks", None, Some(&body))
        .await
        .assert_error(400, "not an event signature");
    let mut no_chain = create_body("http://127.0.0.1:9/x", &[a]);
    no_chain.as_object_mut().unwrap().remove("chainId");
    send(&api, "POST", "/v1/webhooks", None, Some(&no_chain))
        .await
        .assert_error(400, "chainId is required");
    // P-Chain webhooks: network, chain, keys and sub-events are checked.
    let validator = |metadata: Value| json!({"eventType": "validator_activity", "url": "http://127.0.0.1:9/v", "network": "fuji", "metadata": metadata});
    for (body, needle) in [
        (
            validator(
                json!({"keyType": "nodeId", "keys": ["NodeID-nope"], "subEvents": {"validatorActivitySubEvents": ["validator_stake"]}}),
            ),
            "is not a nodeId",
        ),
        (
            validator(
                json!({"keyType": "nodeId", "keys": [], "subEvents": {"validatorActivitySubEvents": ["validator_stake"]}}),
            ),
            "exactly one key",
        ),
        (
            validator(
                json!({"keyType": "subnetId", "keys": ["11111111111111111111111111111111LpoYY"], "subEvents": {"validatorActivitySubEvents": ["l1_validator_balance_threshold"]}}),
            ),
            "needs metadata.l1ValidatorFeeBalanceThreshold",
        ),
        (
            validator(
                json!({"keyType": "subnetId", "keys": ["11111111111111111111111111111111LpoYY"], "subEvents": {"validatorActivitySubEvents": ["l1_validator_balance_threshold"]}, "l1ValidatorFeeBalanceThreshold": "1e9"}),
            ),
            "is not a decimal amount of nAVAX",
        ),
        (
            validator(
                json!({"keyType": "subnetId", "keys": ["11111111111111111111111111111111LpoYY"], "subEvents": {"validatorActivitySubEvents": ["validator_stake"]}, "l1ValidatorFeeBalanceThreshold": "5"}),
            ),
            "needs the l1_validator_balance_threshold sub-event",
        ),
        (
            json!({"eventType": "primary_network_address_activity", "url": "http://127.0.0.1:9/p", "network": "fuji", "chainId": "p-chain",
                   "metadata": {"keyType": "addresses", "keys": [format!("P-{}", crate::fixtures::fuji(1))], "subEvents": {"addressActivitySubEvents": ["balance_threshold"]}}}),
            "needs metadata.balanceThresholdFilter",
        ),
        (
            json!({"eventType": "primary_network_address_activity", "url": "http://127.0.0.1:9/p", "network": "fuji", "chainId": "p-chain",
                   "metadata": {"keyType": "addresses", "keys": [format!("P-{}", crate::fixtures::fuji(1))], "subEvents": {"addressActivitySubEvents": ["balance_threshold"]},
                                "balanceThresholdFilter": {"balanceType": "atomicMemory", "balanceThreshold": "10"}}}),
            "is not one of unlockedUnstaked, unlockedStaked, lockedPlatform, lockedStakeable, \
             lockedStaked, pendingStaked, unlocked, locked, atomicMemoryUnlocked, atomicMemoryLocked",
        ),
        (
            validator(
                json!({"keyType": "subnetId", "keys": ["11111111111111111111111111111111LpoYY"], "subEvents": {"validatorActivitySubEvents": ["staking"]}}),
            ),
            "is not one of validator_stake",
        ),
        (
            json!({"eventType": "primary_network_address_activity", "url": "http://127.0.0.1:9/p", "network": "mainnet", "chainId": "x-chain",
                   "metadata": {"keyType": "addresses", "keys": ["avax1xyz"], "subEvents": {"addressActivitySubEvents": ["balance_change"]}}}),
            "not the network this server indexes",
        ),
        (
            json!({"eventType": "primary_network_address_activity", "url": "http://127.0.0.1:9/p", "network": "fuji", "chainId": "x-chain",
                   "metadata": {"keyType": "addresses", "keys": ["fuji1xyz"], "subEvents": {"addressActivitySubEvents": ["balance_change"]}}}),
            "no X-Chain activity",
        ),
    ] {
        send(&api, "POST", "/v1/webhooks", None, Some(&body))
            .await
            .assert_error(400, needle);
    }
    let too_many: Vec<String> = (0..50_001u64)
        .map(|n| format!("{:#x}", evm_address(n)))
        .collect();
    let mut body = create_body("http://127.0.0.1:9/x", &[a]);
    body["metadata"]["addresses"] = json!(too_many);
    let big = Api::with_config(
        store.clone(),
        ApiConfig {
            body_limit: 8 << 20,
            ..fast_config()
        },
    );
    send(&big, "POST", "/v1/webhooks", None, Some(&body))
        .await
        .assert_error(400, "at most 50000 addresses");
    let r = send(
        &api,
        "POST",
        "/v1/webhooks",
        None,
        Some(&create_body("http://127.0.0.1:9/x", &[a])),
    )
    .await;
    let id = r.json["id"].as_str().unwrap().to_owned();
    send(
        &api,
        "PATCH",
        &format!("/v1/webhooks/{id}"),
        None,
        Some(&json!({"status": "paused"})),
    )
    .await
    .assert_error(400, "status must be active or inactive");
    send(
        &strict,
        "PATCH",
        &format!("/v1/webhooks/{id}"),
        None,
        Some(&json!({"url": "http://192.168.1.1/"})),
    )
    .await
    .assert_error(400, "loopback or private");
    let r = strict
        .request(
            Request::post("/v1/webhooks")
                .body(Body::from("{}"))
                .unwrap(),
        )
        .await;
    r.assert_error(415, "Content-Type: application/json");
    send(&api, "POST", "/v1/webhooks", None, Some(&json!([1])))
        .await
        .assert_error(400, "invalid request body");
}

/// The transactions of `blocks` that touch any of `watched`, as `(block, index)`.
fn expected(blocks: &[EvmBlockRows], watched: &[Address]) -> Vec<(u64, u32)> {
    let mut set = BTreeSet::new();
    for a in watched {
        set.extend(activity_of(blocks, *a));
    }
    set.into_iter().collect()
}

fn position(event: &Value) -> (u64, u32) {
    let t = &event["event"]["transaction"];
    (
        t["blockNumber"].as_str().unwrap().parse().unwrap(),
        t["transactionIndex"].as_u64().unwrap() as u32,
    )
}

pub async fn webhooks_deliver_every_event_once_in_order(store: Store) {
    store.upsert_evm_chain(&evm_chain(CHAIN)).await.unwrap();
    let mut history = EvmHistory::new(8, CHAIN, 6);
    let before: Vec<_> = (0..5).map(|_| history.next_block()).collect();
    store.commit_evm_blocks(&before).await.unwrap();

    let receiver = Receiver::default();
    receiver.with(|r| r.fail_next = 3);
    let url = receiver.start().await;
    let config = fast_config();
    let api = Api::with_config(store.clone(), config.clone());
    let watched = [evm_address(2), evm_address(4)];
    let created = send(
        &api,
        "POST",
        "/v1/webhooks",
        Some("k"),
        Some(&create_body(&url, &watched)),
    )
    .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.json);
    let id = created.json["id"].as_str().unwrap().to_owned();
    receiver.trust(&api, Some("k")).await;
    let (_stop, handles) = dispatchers(&store, &config);

    let mut after = Vec::new();
    for _ in 0..3 {
        let batch: Vec<_> = (0..10).map(|_| history.next_block()).collect();
        store.commit_evm_blocks(&batch).await.unwrap();
        after.extend(batch);
    }
    let want = expected(&after, &watched);
    assert!(
        want.len() > 10,
        "the history gives the watched addresses activity"
    );
    wait_for("every event", || {
        receiver.with(|r| r.events.len() >= want.len())
    })
    .await;

    // Both "processes" die holding their leases; a third takes over once they lapse.
    for h in &handles {
        h.abort();
    }
    let (_stop_third, _third) = dispatchers(&store, &config);
    // A rotated secret signs what is sent from then on.
    let rotated = send(
        &api,
        "POST",
        "/v1/webhooks:generateOrRotateSharedSecret",
        Some("k"),
        None,
    )
    .await;
    let secret = rotated.json["secret"].as_str().map(str::to_owned);
    let secret = secret.unwrap_or_else(|| panic!("rotate: {} {}", rotated.status, rotated.json));
    receiver.with(|r| r.secrets.push(secret));
    let more: Vec<_> = (0..10).map(|_| history.next_block()).collect();
    store.commit_evm_blocks(&more).await.unwrap();
    let want_more = expected(&more, &watched);
    let total = want.len() + want_more.len();
    wait_for("the events after the rotation", || {
        receiver.with(|r| r.events.len() >= total)
    })
    .await;
    // Anything sent twice would show now.
    tokio::time::sleep(Duration::from_millis(300)).await;

    let doc = schema::official();
    let (events, failed, bad, not_canonical) = receiver.with(|r| {
        (
            r.events.clone(),
            r.failed,
            r.bad_signatures,
            r.not_canonical,
        )
    });
    assert_eq!(bad, 0, "every signature checks");
    assert_eq!(not_canonical, 0, "every body is canonical JSON");
    assert_eq!(
        failed, 3,
        "the first three attempts failed and were retried"
    );
    let ids: HashSet<&str> = events
        .iter()
        .map(|e| e["messageId"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids.len(),
        events.len(),
        "no event twice, between two dispatchers"
    );
    let got: Vec<(u64, u32)> = events.iter().map(position).collect();
    let mut all = want.clone();
    all.extend(want_more);
    assert_eq!(
        got, all,
        "each matching transaction once, in chain order, none from before"
    );
    for e in &events {
        assert_eq!(e["webhookId"], id.as_str());
        assert_eq!(e["eventType"], "address_activity");
        if let Some(doc) = &doc {
            let schema = &doc["components"]["schemas"]["WebhookAddressActivityResponse"];
            let mut problems = Vec::new();
            schema::check(doc, schema, e, "$", &mut problems);
            assert!(problems.is_empty(), "{problems:#?}\n{e:#}");
        }
    }
    // Against the store: the transaction, its logs and internal transactions.
    for e in events.iter().step_by(5) {
        let t = &e["event"]["transaction"];
        let hash = t["txHash"].as_str().unwrap().parse().unwrap();
        let stored = store.find_evm_tx(CHAIN, hash).await.unwrap().unwrap();
        assert_eq!(t["from"], stored.tx.from.to_checksum(None));
        assert_eq!(t["value"], stored.tx.value.to_string());
        assert_eq!(t["receiptGasUsed"], stored.tx.gas_used.to_string());
        let logs = store.list_evm_tx_logs(CHAIN, hash).await.unwrap();
        assert_eq!(e["event"]["logs"].as_array().unwrap().len(), logs.len());
        let internal = store.list_evm_internal_txs(CHAIN, hash).await.unwrap();
        assert_eq!(
            t["internalTransactions"].as_array().unwrap().len(),
            internal.len()
        );
        let transfers = store.list_evm_tx_transfers(CHAIN, hash).await.unwrap();
        let sent = ["erc20Transfers", "erc721Transfers", "erc1155Transfers"]
            .iter()
            .map(|k| t[k].as_array().unwrap().len())
            .sum::<usize>();
        assert_eq!(sent, transfers.len());
    }
    let w = send(&api, "GET", &format!("/v1/webhooks/{id}"), Some("k"), None)
        .await
        .ok();
    assert_eq!(w["status"], "active");
}

pub async fn failing_receivers_deactivate_and_resume(store: Store) {
    store.upsert_evm_chain(&evm_chain(CHAIN)).await.unwrap();
    let mut history = EvmHistory::new(3, CHAIN, 4);
    let receiver = Receiver::default();
    receiver.with(|r| r.fail_all = true);
    let url = receiver.start().await;
    let mut config = fast_config();
    config.webhooks.max_attempts = 3;
    let api = Api::with_config(store.clone(), config.clone());
    let watched = [evm_address(1), evm_address(2), evm_address(3)];
    let created = send(
        &api,
        "POST",
        "/v1/webhooks",
        None,
        Some(&create_body(&url, &watched)),
    )
    .await;
    let id = created.json["id"].as_str().unwrap().to_owned();
    receiver.trust(&api, None).await;
    let _running = dispatchers(&store, &config);
    let blocks: Vec<_> = (0..10).map(|_| history.next_block()).collect();
    store.commit_evm_blocks(&blocks).await.unwrap();
    let want = expected(&blocks, &watched);
    assert!(!want.is_empty());

    let mut w = Value::Null;
    for _ in 0..6000 {
        w = send(&api, "GET", &format!("/v1/webhooks/{id}"), None, None)
            .await
            .ok();
        if w["status"] == "inactive" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(w["status"], "inactive", "{w}");
    let reason = w["inactiveReason"].as_str().unwrap();
    assert!(
        reason.contains("3 times") && reason.contains("500"),
        "{reason}"
    );
    assert_eq!(receiver.with(|r| r.failed), 3);

    // Fixed and turned back on: what waited is delivered, nothing lost.
    receiver.with(|r| r.fail_all = false);
    send(
        &api,
        "PATCH",
        &format!("/v1/webhooks/{id}"),
        None,
        Some(&json!({"status": "active"})),
    )
    .await
    .ok();
    wait_for("the kept events", || {
        receiver.with(|r| r.events.len() >= want.len())
    })
    .await;
    let got: Vec<(u64, u32)> = receiver.with(|r| r.events.iter().map(position).collect());
    assert_eq!(got, want);
    let w = send(&api, "GET", &format!("/v1/webhooks/{id}"), None, None)
        .await
        .ok();
    assert!(w.get("inactiveReason").is_none(), "{w}");
}

pub async fn pchain_webhooks_deliver_address_activity(store: Store) {
    use firn_store::PChainWriter;
    let mut history = crate::fixtures::PHistory::new(4, 10);
    let before: Vec<_> = (0..5).map(|_| history.next_block()).collect();
    store.commit_pchain_blocks(&before).await.unwrap();
    let receiver = Receiver::default();
    let url = receiver.start().await;
    let config = fast_config();
    let api = Api::with_config(store.clone(), config.clone());
    let watched = crate::fixtures::fuji(3);
    let body = json!({
        "eventType": "primary_network_address_activity", "url": url, "network": "fuji",
        "chainId": "p-chain", "name": "p",
        "metadata": {"keyType": "addresses", "keys": [format!("P-{watched}")],
                     "subEvents": {"addressActivitySubEvents": ["balance_change", "reward_distribution"]}},
    });
    let created = send(&api, "POST", "/v1/webhooks", None, Some(&body)).await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.json);
    if let Some(doc) = schema::official() {
        schema::assert_valid(&doc, "post", "/v1/webhooks", &created.json);
    }
    assert_eq!(created.json["chainId"], "p-chain");
    assert!(created.json.get("includeLogs").is_none());
    receiver.trust(&api, None).await;
    let _running = dispatchers(&store, &config);
    let first_new = history.height + 1;
    let after: Vec<_> = (0..20).map(|_| history.next_block()).collect();
    store.commit_pchain_blocks(&after).await.unwrap();

    // What the Data API lists for the address, in the new blocks, oldest first.
    let listed = api
        .all_pages(
            &format!("/v1/networks/fuji/blockchains/p-chain/transactions?addresses={watched}&sortOrder=asc"),
            "transactions",
            100,
        )
        .await;
    let want: Vec<String> = listed
        .iter()
        .filter(|t| t["blockNumber"].as_str().unwrap().parse::<u64>().unwrap() >= first_new)
        .map(|t| t["txHash"].as_str().unwrap().to_owned())
        .collect();
    assert!(
        want.len() > 2,
        "the history moves the watched address's funds"
    );
    wait_for("the P-Chain events", || {
        receiver.with(|r| r.events.len() >= want.len())
    })
    .await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let (events, bad) = receiver.with(|r| (r.events.clone(), r.bad_signatures));
    assert_eq!(bad, 0);
    let got: Vec<String> = events
        .iter()
        .map(|e| {
            e["event"]["transaction"]["txHash"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(
        got, want,
        "each of the address's transactions once, in chain order"
    );
    for e in &events {
        assert_eq!(e["eventType"], "primary_network_address_activity");
        assert_eq!(e["event"]["subEvent"], "balance_change");
        assert_eq!(e["event"]["key"], format!("P-{watched}"));
    }
    let listed_by_hash: std::collections::HashMap<&str, &Value> = listed
        .iter()
        .map(|t| (t["txHash"].as_str().unwrap(), t))
        .collect();
    for e in &events {
        let t = &e["event"]["transaction"];
        assert_eq!(
            &t,
            &listed_by_hash[t["txHash"].as_str().unwrap()],
            "the Data API's shape"
        );
    }
}
