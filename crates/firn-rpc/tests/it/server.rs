//! Router building, binding and graceful shutdown.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use firn_rpc::{RouteError, RpcRouter};

use crate::common::{TestState, app, ava_server};

#[test]
fn bad_routes_are_errors_not_panics() {
    let ava = || Arc::new(ava_server(TestState::default()));
    let build = |r: RpcRouter| r.build().map(|_| ()).unwrap_err();
    assert_eq!(
        build(RpcRouter::new().mount("ext/P", ava())),
        RouteError::InvalidPath("ext/P".into())
    );
    assert_eq!(
        build(RpcRouter::new().mount("/ext/{x", ava())),
        RouteError::InvalidPath("/ext/{x".into())
    );
    assert_eq!(
        build(RpcRouter::new().mount("/ext/bc/{chain}/validators", ava())),
        RouteError::UnexpectedParam("/ext/bc/{chain}/validators".into())
    );
    assert_eq!(
        build(RpcRouter::new().mount_per_param("/ext/bc/P", |_| None)),
        RouteError::ParamCount("/ext/bc/P".into())
    );
    assert_eq!(
        build(
            RpcRouter::new()
                .mount_per_param("/a/{x}", |_| None)
                .mount_per_param("/a/{y}", |_| None)
        ),
        RouteError::Conflict("/a/{y}".into())
    );
    assert!(matches!(
        build(RpcRouter::new().alias("/ext/P", "/ext/bc/P")),
        RouteError::UnknownAliasTarget { .. }
    ));
    // mounting a path twice keeps the last endpoint, no conflict
    let _router = RpcRouter::new()
        .mount("/x", ava())
        .mount("/x", ava())
        .build()
        .unwrap();
}

#[tokio::test]
async fn binds_loopback_and_shuts_down_gracefully() {
    let server = firn_rpc::spawn(firn_rpc::loopback(0), app(TestState::default()))
        .await
        .unwrap();
    assert_eq!(server.local_addr().ip(), IpAddr::from([127, 0, 0, 1]));
    assert_ne!(server.local_addr().port(), 0);
    let url = format!("{}/ext/bc/P", server.url());

    // a request in flight when shutdown starts still gets its answer
    let client = reqwest::Client::new();
    let slow = tokio::spawn({
        let (client, url) = (client.clone(), url.clone());
        async move {
            client
                .post(url)
                .header("content-type", "application/json")
                .body(r#"{"jsonrpc":"2.0","method":"test.sleep","params":{"ms":150},"id":1}"#)
                .send()
                .await?
                .text()
                .await
        }
    });
    tokio::time::sleep(Duration::from_millis(50)).await;
    server.shutdown().await.unwrap();
    assert_eq!(
        slow.await.unwrap().unwrap(),
        "{\"jsonrpc\":\"2.0\",\"result\":{},\"id\":1}\n"
    );

    // and afterwards nothing listens
    let refused = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .body("{}")
        .send()
        .await;
    assert!(refused.is_err());
}
