//! A load generator: fills a store (SQLite by default, PostgreSQL with
//! `FIRN_BENCH_DATABASE=postgres://…`), serves the Data API on loopback, and drives each
//! endpoint with concurrent keep-alive clients, printing requests/s and p50/p99 latency.
//!
//! `cargo bench -p firn-api --bench load` (add `--profile dev` to reuse the test build). Sizes: `FIRN_BENCH_P_BLOCKS` (default 20,000
//! P-Chain blocks, ~1.5 txs each), `FIRN_BENCH_EVM_BLOCKS` (default 5,000 blocks of
//! `FIRN_BENCH_TRANSFERS` = 20 ERC-20 transfers), `FIRN_BENCH_SECONDS` per endpoint (3),
//! `FIRN_BENCH_CLIENTS` (16).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::time::{Duration, Instant};

use firn_api::{ApiConfig, AppState};
use firn_store::{EvmWriter, PChainWriter};

#[path = "../tests/it/fixtures.rs"]
mod fixtures;

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

async fn fill(store: &firn_store::Store) {
    let p_blocks = env("FIRN_BENCH_P_BLOCKS", 20_000);
    let evm_blocks = env("FIRN_BENCH_EVM_BLOCKS", 5_000);
    let transfers = env("FIRN_BENCH_TRANSFERS", 20) as u32;
    let mut p = fixtures::PHistory::new(7, 1_000);
    let mut done = 0;
    while done < p_blocks {
        let n = (p_blocks - done).min(500);
        let blocks: Vec<_> = (0..n).map(|_| p.next_block()).collect();
        store.commit_pchain_blocks(&blocks).await.unwrap();
        done += n;
    }
    store
        .upsert_evm_chain(&fixtures::evm_chain(fixtures::CHAIN))
        .await
        .unwrap();
    let mut number = 0;
    while number < evm_blocks {
        let n = (evm_blocks - number).min(100);
        let blocks: Vec<_> = (1..=n)
            .map(|i| {
                fixtures::erc20_block(
                    fixtures::CHAIN,
                    number + i,
                    1_700_000_000 + number + i,
                    transfers,
                )
            })
            .collect();
        store.commit_evm_blocks(&blocks).await.unwrap();
        number += n;
    }
    eprintln!(
        "store: {p_blocks} P-Chain blocks ({} txs), {evm_blocks} EVM blocks ({} ERC-20 transfers)",
        p.facts.len(),
        evm_blocks * u64::from(transfers)
    );
}

async fn drive(base: &str, path: &str, clients: u64, seconds: u64) -> (f64, Duration, Duration) {
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(64)
        .build()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let mut tasks = Vec::new();
    for _ in 0..clients {
        let (client, url) = (client.clone(), format!("{base}{path}"));
        tasks.push(tokio::spawn(async move {
            let mut lat = Vec::new();
            while Instant::now() < deadline {
                let t = Instant::now();
                let r = client.get(&url).send().await.unwrap();
                assert!(r.status().is_success(), "{url}: {}", r.status());
                let _ = r.bytes().await.unwrap();
                lat.push(t.elapsed());
            }
            lat
        }));
    }
    let started = Instant::now();
    let mut all = Vec::new();
    for t in tasks {
        all.extend(t.await.unwrap());
    }
    let elapsed = started.elapsed().as_secs_f64().max(seconds as f64);
    all.sort();
    let pct = |q: f64| all[((all.len() as f64 * q) as usize).min(all.len() - 1)];
    (all.len() as f64 / elapsed, pct(0.50), pct(0.99))
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let dir = std::env::temp_dir().join(format!("firn-api-bench-{}", std::process::id()));
        let location = std::env::var("FIRN_BENCH_DATABASE")
            .unwrap_or_else(|_| dir.join("firn.db").to_string_lossy().into_owned());
        let store = firn_store::open(&location).await.unwrap();
        fill(&store).await;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let state = AppState::new(store.clone(), ApiConfig::default());
        tokio::spawn(firn_api::serve(listener, state, std::future::pending()));
        let a = fixtures::fuji(5);
        let e = fixtures::evm_address(5);
        let c = fixtures::CHAIN;
        let endpoints = [
            "/v1/networks/fuji/blockchains/p-chain/transactions?pageSize=10".to_owned(),
            format!("/v1/networks/fuji/blockchains/p-chain/transactions?addresses={a}&pageSize=10"),
            "/v1/networks/fuji/blockchains/p-chain/blocks?pageSize=10".to_owned(),
            format!(
                "/v1/networks/fuji/blockchains/p-chain/nodes/{}/blocks",
                fixtures::node(1)
            ),
            format!("/v1/networks/fuji/addresses:listChainIds?addresses={a}"),
            format!("/v1/chains/{c}/blocks?pageSize=10"),
            format!("/v1/chains/{c}/blocks/100"),
            format!("/v1/chains/{c}/addresses/{e}/transactions:listErc20?pageSize=10"),
            "/v1/chains".to_owned(),
            "/v1/live-check".to_owned(),
        ];
        let clients = env("FIRN_BENCH_CLIENTS", 16);
        let seconds = env("FIRN_BENCH_SECONDS", 3);
        println!(
            "{:<90} {:>9} {:>9} {:>9}",
            "endpoint", "req/s", "p50 ms", "p99 ms"
        );
        for path in &endpoints {
            let (rps, p50, p99) = drive(&base, path, clients, seconds).await;
            println!(
                "{path:<90} {rps:>9.0} {:>9.2} {:>9.2}",
                p50.as_secs_f64() * 1e3,
                p99.as_secs_f64() * 1e3
            );
        }
        store.close().await;
        let _ = std::fs::remove_dir_all(&dir);
    });
}
