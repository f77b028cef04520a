//! Metrics API benchmarks on SQLite: requests/s of `GET /v1/avg_tps/{chainId}`, of a v2 daily
//! series (`txCount`) and of the Looking Glass's composite query (ERC-20 holders at some point
//! of 30 days, which replays the token's 8,640 transfers), in process, over a store holding 60
//! days of blocks (one every ten minutes, three transactions and one token transfer each).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

#[path = "../../firn-store/tests/it/fixtures.rs"]
mod fixtures;

use axum::body::Body;
use axum::http::Request;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use firn_api::metrics_api::MetricsState;
use firn_api::{ApiConfig, AppState, metrics_router};
use firn_store::rows::evm::{TokenStandard, TokenTransfer};
use firn_store::types::U256;
use firn_store::{EvmWriter, open};
use fixtures::{evm_address, evm_block, evm_chain, evm_tx};
use serde_json::json;
use tower::ServiceExt;

const CHAIN: u64 = 43113;
const BLOCKS: u64 = 60 * 144;
const TOKEN: u64 = 500;

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = std::env::temp_dir().join(format!(
        "firn-metrics-bench-{}",
        uuid::Uuid::new_v4().simple()
    ));
    let app = rt.block_on(async {
        let store = open(dir.join("firn.db").to_str().unwrap()).await.unwrap();
        store.upsert_evm_chain(&evm_chain(CHAIN)).await.unwrap();
        let blocks: Vec<_> = (1..=BLOCKS)
            .map(|n| {
                let mut b = evm_block(CHAIN, n, 1_700_000_000 + n * 600);
                for i in 0..3u32 {
                    let tx = evm_tx(CHAIN, n, i, evm_address(n % 97), Some(evm_address(n % 89)));
                    b.block.gas_used += tx.gas_used;
                    b.txs.push(tx);
                }
                // The first tx moves a token between 97 holders (minted at first).
                b.transfers.push(TokenTransfer {
                    tx_index: 0,
                    log_index: 0,
                    batch_index: 0,
                    token: evm_address(TOKEN),
                    standard: TokenStandard::Erc20,
                    from: if n <= 97 {
                        firn_store::types::Address::ZERO
                    } else {
                        evm_address(n % 97)
                    },
                    to: evm_address((n * 7) % 97),
                    token_id: None,
                    value: U256::from(1 + n % 5),
                });
                b
            })
            .collect();
        for chunk in blocks.chunks(500) {
            store.commit_evm_blocks(chunk).await.unwrap();
        }
        metrics_router(MetricsState::new(AppState::new(
            store,
            ApiConfig::default(),
        )))
    });
    let mut group = c.benchmark_group("metrics_api");
    group.throughput(Throughput::Elements(1));
    for (name, uri) in [
        ("v1_avg_tps", format!("/v1/avg_tps/{CHAIN}")),
        (
            "v2_tx_count_day",
            format!("/v2/chains/{CHAIN}/metrics/txCount?timeInterval=day"),
        ),
    ] {
        group.bench_function(name, |b| {
            b.to_async(&rt).iter(|| async {
                let request = Request::get(uri.as_str()).body(Body::empty()).unwrap();
                let response = app.clone().oneshot(request).await.unwrap();
                assert!(response.status().is_success());
                axum::body::to_bytes(response.into_body(), 1 << 20)
                    .await
                    .unwrap()
            });
        });
    }
    // Holders with at least 3 at some point of the last 30 days of the 60.
    let composite = json!({
        "queries": [{ "id": "q", "type": "AnyTimeErc20Balance", "params": {
            "firstDate": "2023-12-15", "lastDate": "2024-01-13", "minBalance": "3",
            "evmChainId": CHAIN.to_string(), "contractAddress": format!("{:#x}", evm_address(TOKEN)),
        }}],
        "operator": "OR",
    })
    .to_string();
    let post = || {
        Request::post("/v2/lookingGlass/compositeQuery")
            .header("content-type", "application/json")
            .body(Body::from(composite.clone()))
            .unwrap()
    };
    let once = rt.block_on(async {
        let response = app.clone().oneshot(post()).await.unwrap();
        axum::body::to_bytes(response.into_body(), 1 << 20)
            .await
            .unwrap()
    });
    let once: serde_json::Value = serde_json::from_slice(&once).unwrap();
    assert!(once["totalCount"].as_u64().unwrap() > 10, "{once}");
    group.bench_function("composite_erc20_any_time_30_days", |b| {
        b.to_async(&rt).iter(|| async {
            let response = app.clone().oneshot(post()).await.unwrap();
            assert!(response.status().is_success());
            axum::body::to_bytes(response.into_body(), 1 << 20)
                .await
                .unwrap()
        });
    });
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, bench);
criterion_main!(benches);
