//! Requests per second of trivial methods, in process. Run with `cargo bench -p firn-rpc`.
//!
//! - `avalanche/router`: `info.getNetworkID` through the axum router (`oneshot`): HTTP checks,
//!   body read, envelope, handler, response;
//! - `avalanche/envelope`: the same body through [`AvaServer::call_raw`] only;
//! - `eth/router`: `web3_clientVersion` through the router; `eth/batch100`: 100 of them in one
//!   batch (throughput counts calls).
#![allow(missing_docs, clippy::unwrap_used)]

use std::hint::black_box;
use std::sync::Arc;

use axum::body::Body;
use axum::http::Request;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use firn_rpc::{AvaServer, AvaService, EthServer, RpcRouter};
use tower::ServiceExt;

#[derive(serde::Deserialize, Default)]
#[serde(default)]
struct NoArgs {}

#[derive(serde::Serialize)]
struct NetworkId {
    #[serde(rename = "networkID", with = "firn_rpc::avajson::u32_string")]
    network_id: u32,
}

/// `info.getNetworkID`
async fn get_network_id(network: u32, _: NoArgs) -> Result<NetworkId, String> {
    Ok(NetworkId {
        network_id: network,
    })
}

/// `web3_clientVersion`
async fn client_version(_: u32, (): ()) -> Result<&'static str, String> {
    Ok("firn/v0.1.0")
}

const AVA_BODY: &str = r#"{"jsonrpc":"2.0","method":"info.getNetworkID","params":{},"id":1}"#;
const ETH_BODY: &str = r#"{"jsonrpc":"2.0","id":1,"method":"web3_clientVersion","params":[]}"#;

fn request(path: &str, body: String) -> Request<Body> {
    Request::post(path)
        .header("content-type", "application/json")
        .body(Body::from(body))
        .unwrap()
}

fn benches(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let info = Arc::new(
        AvaServer::new(5u32)
            .service(AvaService::new("info").method("getNetworkID", get_network_id)),
    );
    let eth = Arc::new(EthServer::new(5u32).method("web3_clientVersion", client_version));
    let app = RpcRouter::new()
        .mount("/ext/info", info.clone())
        .mount("/ext/bc/C/rpc", eth)
        .build()
        .unwrap();
    let batch = format!("[{}]", vec![ETH_BODY; 100].join(","));

    let mut g = c.benchmark_group("avalanche");
    g.throughput(Throughput::Elements(1));
    g.bench_function("router", |b| {
        b.iter(|| {
            let resp = rt.block_on(
                app.clone()
                    .oneshot(request("/ext/info", AVA_BODY.to_owned())),
            );
            black_box(resp.unwrap())
        })
    });
    g.bench_function("envelope", |b| {
        b.iter(|| black_box(rt.block_on(info.call_raw(AVA_BODY.as_bytes(), None))))
    });
    g.finish();

    let mut g = c.benchmark_group("eth");
    g.throughput(Throughput::Elements(1));
    g.bench_function("router", |b| {
        b.iter(|| {
            let resp = rt.block_on(
                app.clone()
                    .oneshot(request("/ext/bc/C/rpc", ETH_BODY.to_owned())),
            );
            black_box(resp.unwrap())
        })
    });
    g.throughput(Throughput::Elements(100));
    g.bench_function("batch100", |b| {
        b.iter(|| {
            let resp = rt.block_on(app.clone().oneshot(request("/ext/bc/C/rpc", batch.clone())));
            black_box(resp.unwrap())
        })
    });
    g.finish();
}

criterion_group!(rpc, benches);
criterion_main!(rpc);
