//! `info.*`, `health.*` (POST and GET), `firn.*` and the block producer.

use std::sync::Arc;
use std::time::Duration;

use firn_devnet::{DevnetConfig, Wallet};
use firn_node::NodeConfig;
use serde_json::{Value, json};

use crate::common::*;

#[tokio::test]
async fn info_methods() {
    let d = Devnet::start().await;
    let n = d.chain.network();
    let cfg = d.chain.config();
    let info = |m: &'static str, p: Value| {
        let d = &d;
        async move { d.call_at("/ext/info", m, p).await }
    };
    assert_eq!(
        info("info.getNetworkID", json!({})).await,
        json!({ "networkID": "5" })
    );
    assert_eq!(
        info("info.getNetworkName", json!({})).await,
        json!({ "networkName": "fuji" })
    );
    for (alias, id) in [
        ("P", n.p_chain_id),
        ("X", n.x_chain_id),
        ("C", n.c_chain_id),
    ] {
        assert_eq!(
            info("info.getBlockchainID", json!({ "alias": alias })).await,
            json!({ "blockchainID": id })
        );
    }
    let (code, msg) = d
        .error_at("/ext/info", "info.getBlockchainID", json!({ "alias": "Q" }))
        .await;
    assert_eq!(
        (code, msg.as_str()),
        (-32000, "there is no chain with alias/ID 'Q'")
    );
    let id = info("info.getNodeID", json!({})).await;
    assert_eq!(keys(&id), ["nodeID", "nodePOP"]);
    assert_eq!(id["nodeID"], cfg.validator_node_id(0).to_string());
    let sk = cfg.validator_bls_key(0).unwrap();
    assert_eq!(
        id["nodePOP"]["publicKey"],
        format!("0x{}", hex::encode(sk.public_key().to_bytes()))
    );
    assert_eq!(
        id["nodePOP"]["proofOfPossession"].as_str().unwrap().len(),
        2 + 192
    );
    let v = info("info.getNodeVersion", json!({})).await;
    assert!(v["version"].as_str().unwrap().starts_with("firn/"));
    assert_eq!(
        info("info.isBootstrapped", json!({ "chain": "P" })).await,
        json!({ "isBootstrapped": true })
    );
    let (code, _) = d.error_at("/ext/info", "info.getFoo", json!({})).await;
    assert_eq!(code, -32000);
}

#[tokio::test]
async fn info_on_the_local_profile() {
    let d = Devnet::start_with(DevnetConfig::for_profile(firn_devnet::Profile::Local)).await;
    assert_eq!(
        d.call_at("/ext/info", "info.getNetworkID", json!({})).await,
        json!({ "networkID": "12345" })
    );
    assert_eq!(
        d.call_at("/ext/info", "info.getNetworkName", json!({}))
            .await,
        json!({ "networkName": "local" })
    );
}

#[tokio::test]
async fn health_over_post_and_get() {
    let d = Devnet::start().await;
    for m in ["health.health", "health.readiness", "health.liveness"] {
        let r = d.call_at("/ext/health", m, json!({})).await;
        assert_eq!(keys(&r), ["checks", "healthy"]);
        assert_eq!(r["healthy"], true);
    }
    let resp = reqwest::get(format!("{}/ext/health", d.url)).await.unwrap();
    assert_eq!(resp.status(), 200);
    let body: Value = resp.json().await.unwrap();
    assert_eq!(body["healthy"], true);
    assert_eq!(body["checks"]["devnet"]["message"]["localNetwork"], true);
    assert_eq!(body["checks"]["devnet"]["message"]["profile"], "fuji");
}

#[tokio::test]
async fn firn_clock_methods() {
    let d = Devnet::start().await;
    let genesis = d.chain.config().genesis_time;
    let t = d.call_at("/ext/firn", "firn.getTime", json!({})).await;
    assert_eq!(dec(&t["time"]), genesis);
    assert_eq!(dec(&t["chainTime"]), genesis);
    let a = d
        .call_at("/ext/firn", "firn.advanceTime", json!({ "seconds": "60" }))
        .await;
    assert_eq!(dec(&a["time"]), genesis + 60);
    assert_eq!(a["heights"], json!([]), "nothing to build");
    let s = d
        .call_at(
            "/ext/firn",
            "firn.setTime",
            json!({ "time": genesis + 120 }),
        )
        .await;
    assert_eq!(dec(&s["time"]), genesis + 120);
    let (code, msg) = d
        .error_at("/ext/firn", "firn.setTime", json!({ "time": genesis }))
        .await;
    assert_eq!(code, -32000);
    assert!(msg.contains("only moves forward"), "{msg}");
    // A pending tx is built by firn.buildBlock.
    let w = Wallet::new(&d.chain);
    d.issue(
        &w.send(d.chain.funded_addresses()[2], 1_000_000_000)
            .unwrap(),
    )
    .await;
    let b = d.call_at("/ext/firn", "firn.buildBlock", json!({})).await;
    assert_eq!(heights(&b), vec![1]);
    let t = d.call_at("/ext/firn", "firn.getTime", json!({})).await;
    assert_eq!(dec(&t["chainTime"]), genesis + 120);
    assert_eq!(t["height"], "1");
    let (code, msg) = d.error_at("/ext/firn", "firn.nope", json!({})).await;
    assert_eq!(
        (code, msg.as_str()),
        (-32000, "rpc: can't find method \"firn.Nope\"")
    );
}

#[tokio::test]
async fn producer_builds_soon_after_issue() {
    let d = Devnet::spawn(NodeConfig::test().with_auto_build()).await;
    d.chain.clock().advance(1);
    let w = Wallet::new(&d.chain);
    let id = d
        .issue(
            &w.send(d.chain.funded_addresses()[4], 1_000_000_000)
                .unwrap(),
        )
        .await;
    let mut status = Value::Null;
    for _ in 0..100 {
        status = d.p("platform.getTxStatus", json!({ "txID": id })).await;
        if status["status"] == "Committed" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(status, json!({ "status": "Committed" }));
    assert_eq!(d.height().await, 1);
    d.node.shutdown().await;
}

#[tokio::test]
async fn producer_pays_rewards_when_the_clock_passes_end_times() {
    let config = DevnetConfig::default();
    let end = config.genesis_time + config.validator_duration_secs;
    let validators = config.initial_validators as usize;
    let d = Devnet::spawn(NodeConfig::test().with_auto_build()).await;
    // Move the clock itself (not firn.advanceTime): only the producer's tick builds.
    d.chain.clock().set(end + 1);
    let mut left = usize::MAX;
    for _ in 0..200 {
        let r = d.p("platform.getCurrentValidators", json!({})).await;
        left = r["validators"].as_array().unwrap().len();
        if left == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert_eq!(left, 0, "initial validators were not retired");
    // At least one proposal and one commit per validator.
    assert!(d.height().await >= 2 * validators as u64);
    d.node.shutdown().await;
}

#[tokio::test]
async fn node_router_answers_without_a_socket() {
    use axum::body::Body;
    use axum::http::Request;
    use tower::ServiceExt;

    let d = Devnet::start().await;
    let app =
        firn_node::rpc::node_router(Arc::new(firn_node::rpc::Node::new(d.chain.clone(), None)))
            .build()
            .unwrap();
    let req = Request::post("/ext/P")
        .header("content-type", "application/json")
        .body(Body::from(
            r#"{"jsonrpc":"2.0","method":"platform.getHeight","params":{},"id":7}"#,
        ))
        .unwrap();
    let resp = app.clone().oneshot(req).await.unwrap();
    assert_eq!(resp.status(), 200);
    let body = axum::body::to_bytes(resp.into_body(), 1 << 20)
        .await
        .unwrap();
    assert_eq!(
        &body[..],
        b"{\"jsonrpc\":\"2.0\",\"result\":{\"height\":\"0\"},\"id\":7}\n"
    );
    let resp = app
        .oneshot(Request::get("/ext/health").body(Body::empty()).unwrap())
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
}
