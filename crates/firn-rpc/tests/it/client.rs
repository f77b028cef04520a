//! The clients against the test services over real HTTP, and against a flaky server.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use axum::Router;
use axum::http::StatusCode;
use axum::routing::post;
use firn_rpc::{AvalancheClient, ClientConfig, ClientError, EthClient};
use serde_json::{Value, json};

use crate::common::{TestState, app};

fn fast() -> ClientConfig {
    ClientConfig {
        timeout: Duration::from_secs(5),
        max_retries: 3,
        initial_backoff: Duration::from_millis(20),
        max_backoff: Duration::from_millis(100),
        max_response_bytes: 1024 * 1024,
    }
}

async fn serve_app() -> firn_rpc::ServerHandle {
    firn_rpc::spawn(firn_rpc::loopback(0), app(TestState::default()))
        .await
        .unwrap()
}

#[tokio::test]
async fn avalanche_calls_and_errors() {
    let server = serve_app().await;
    let c = AvalancheClient::new(&format!("{}/ext/bc/P", server.url()), fast()).unwrap();
    let v: Value = c.call("info.getNetworkID", &()).await.unwrap();
    assert_eq!(v, json!({"networkID": "5"}));
    let () = c
        .call::<_, firn_rpc::EmptyReply>("store.put", &json!({"key": "a", "value": "b"}))
        .await
        .map(|_| ())
        .unwrap();
    let v: Value = c.call("store.get", &json!({"key": "a"})).await.unwrap();
    assert_eq!(v["value"], "b");

    let err = c
        .call::<_, Value>("store.get", &json!({"key": "zz"}))
        .await
        .unwrap_err();
    assert_eq!(err.rpc_code(), Some(-32000));
    match err {
        ClientError::Rpc(e) => assert_eq!(e.message, "key zz not found"),
        other => panic!("{other:?}"),
    }
    let err = c
        .call::<_, Value>("platform.GetHeight", &())
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "rpc error -32000: method must start with a non-uppercase letter"
    );

    let many = c
        .call_many::<_, Value>(
            "test.getBlockByHeight",
            (0..20u64).map(|h| json!({"height": h})).collect(),
            4,
        )
        .await;
    let heights: Vec<String> = many
        .into_iter()
        .map(|r| r.unwrap()["height"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        heights,
        (0..20).map(|h| h.to_string()).collect::<Vec<_>>(),
        "in order"
    );
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn eth_calls_batches_and_errors() {
    let server = serve_app().await;
    let c = EthClient::new(&format!("{}/ext/bc/C/rpc", server.url()), fast()).unwrap();
    let v: String = c.call("web3_clientVersion", ()).await.unwrap();
    assert_eq!(v, "firn/v0.1.0");
    let sum: u64 = c.call("test_add", (40, 2)).await.unwrap();
    assert_eq!(sum, 42);

    let err = c
        .call::<_, Value>("eth_call", (json!({}), "latest"))
        .await
        .unwrap_err();
    match &err {
        ClientError::Rpc(e) => {
            assert_eq!(
                (e.code, e.message.as_str()),
                (3, "execution reverted: denied")
            );
            assert_eq!(e.data, Some(json!("0x08c379a0")));
        }
        other => panic!("{other:?}"),
    }
    assert!(!err.is_retryable());

    let mut b = c.batch();
    let i0 = b.add("test_add", (1, 2)).unwrap();
    let i1 = b.add("nope_x", ()).unwrap();
    let i2 = b.add("web3_clientVersion", ()).unwrap();
    let out = b.send().await.unwrap();
    assert_eq!(out.len(), 3);
    assert_eq!(out.get::<u64>(i0).unwrap(), 3);
    assert_eq!(out.get::<Value>(i1).unwrap_err().rpc_code(), Some(-32601));
    assert_eq!(out.get::<String>(i2).unwrap(), "firn/v0.1.0");
    assert!(matches!(
        out.get::<String>(i0),
        Err(ClientError::Decode { .. })
    ));

    // the test server allows 5 calls per batch
    let mut b = c.batch();
    for i in 0..6u64 {
        b.add("test_add", (i,)).unwrap();
    }
    let err = b.send().await.unwrap_err();
    assert_eq!(err.to_string(), "rpc error -32600: batch too large");

    assert!(c.batch().send().await.unwrap().is_empty());
    server.shutdown().await.unwrap();
}

/// A server that answers 503 (or drops the connection) the first `fail` times.
async fn flaky(fail: usize, drop_connection: bool) -> (firn_rpc::ServerHandle, Arc<AtomicUsize>) {
    let hits = Arc::new(AtomicUsize::new(0));
    let counter = hits.clone();
    let router = Router::new().route(
        "/",
        post(move |body: String| {
            let counter = counter.clone();
            async move {
                let n = counter.fetch_add(1, Ordering::SeqCst);
                if n < fail {
                    if drop_connection {
                        // a body that lies about its length makes the client see a broken exchange
                        return axum::response::Response::builder()
                            .status(StatusCode::OK)
                            .header("content-length", "1000")
                            .body(axum::body::Body::from("{"))
                            .unwrap();
                    }
                    return axum::response::Response::builder()
                        .status(StatusCode::SERVICE_UNAVAILABLE)
                        .body(axum::body::Body::from("busy"))
                        .unwrap();
                }
                let req: Value = serde_json::from_str(&body).unwrap();
                let reply = json!({"jsonrpc":"2.0","id":req["id"],"result":n});
                axum::response::Response::new(axum::body::Body::from(reply.to_string()))
            }
        }),
    );
    (
        firn_rpc::spawn(firn_rpc::loopback(0), router)
            .await
            .unwrap(),
        hits,
    )
}

#[tokio::test]
async fn retries_5xx_with_backoff_then_succeeds() {
    let (server, hits) = flaky(2, false).await;
    let c = EthClient::new(&format!("{}/", server.url()), fast()).unwrap();
    let start = Instant::now();
    let n: u64 = c.call("x_y", ()).await.unwrap();
    assert_eq!(n, 2, "third attempt answered");
    assert_eq!(hits.load(Ordering::SeqCst), 3);
    assert!(
        start.elapsed() >= Duration::from_millis(60),
        "waited 20 + 40 ms"
    );
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn retries_broken_connections() {
    let (server, hits) = flaky(1, true).await;
    let c = AvalancheClient::new(&format!("{}/", server.url()), fast()).unwrap();
    let n: u64 = c.call("a.b", &()).await.unwrap();
    assert_eq!(n, 1);
    assert_eq!(hits.load(Ordering::SeqCst), 2);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn gives_up_after_max_retries() {
    let (server, hits) = flaky(100, false).await;
    let c = EthClient::new(&format!("{}/", server.url()), fast()).unwrap();
    let err = c.call::<_, u64>("x_y", ()).await.unwrap_err();
    match err {
        ClientError::Http { status, body, .. } => {
            assert_eq!((status, body.as_str()), (503, "busy"))
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(hits.load(Ordering::SeqCst), 4, "one try and three retries");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn rpc_errors_and_4xx_are_not_retried() {
    let server = serve_app().await;
    let base = server.url();
    let c = EthClient::new(&format!("{base}/ext/bc/C/rpc"), fast()).unwrap();
    let err = c.call::<_, Value>("test_fail", ("x",)).await.unwrap_err();
    assert_eq!(err.rpc_code(), Some(-32000));
    let c = EthClient::new(&format!("{base}/nowhere"), fast()).unwrap();
    match c.call::<_, Value>("a_b", ()).await.unwrap_err() {
        ClientError::Http { status, .. } => assert_eq!(status, 404),
        other => panic!("{other:?}"),
    }
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn connection_refused_is_a_transport_error() {
    let server = serve_app().await;
    let url = server.url();
    server.shutdown().await.unwrap();
    let c = EthClient::new(
        &format!("{url}/ext/bc/C/rpc"),
        ClientConfig {
            max_retries: 1,
            ..fast()
        },
    )
    .unwrap();
    let err = c
        .call::<_, Value>("web3_clientVersion", ())
        .await
        .unwrap_err();
    assert!(matches!(err, ClientError::Transport { .. }), "{err:?}");
}

#[tokio::test]
async fn timeouts_and_response_bounds() {
    let server = serve_app().await;
    let base = server.url();
    let c = EthClient::new(
        &format!("{base}/ext/bc/C/rpc"),
        ClientConfig {
            timeout: Duration::from_millis(100),
            max_retries: 0,
            ..fast()
        },
    )
    .unwrap();
    let err = c.call::<_, Value>("test_sleep", (250,)).await.unwrap_err();
    assert!(matches!(err, ClientError::Timeout { .. }), "{err:?}");

    let c = EthClient::new(
        &format!("{base}/ext/bc/C/rpc"),
        ClientConfig {
            max_response_bytes: 500,
            ..fast()
        },
    )
    .unwrap();
    let err = c.call::<_, String>("test_blob", (600,)).await.unwrap_err();
    assert!(
        matches!(err, ClientError::ResponseTooLarge { limit: 500, .. }),
        "{err:?}"
    );
    let ok: String = c.call("test_blob", (100,)).await.unwrap();
    assert_eq!(ok.len(), 100);
    server.shutdown().await.unwrap();
}

#[test]
fn bad_urls_are_refused() {
    assert!(matches!(
        EthClient::new("not a url", ClientConfig::default()),
        Err(ClientError::InvalidUrl { .. })
    ));
    assert!(matches!(
        AvalancheClient::new("ftp://x/", ClientConfig::default()),
        Err(ClientError::InvalidUrl { .. })
    ));
}
