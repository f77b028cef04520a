//! Webhook delivery, measured against a plain sender in the same run.
//!
//! A receiver on loopback counts deliveries. Over an embedded store with one webhook:
//! - throughput: `FIRN_WEBHOOK_EVENTS` (5,000) watched transactions are committed in blocks of
//!   50 at once; the dispatcher (production defaults) matches, builds, stores, signs and posts
//!   them; events/s is counted from the first commit to the last POST. Beside it, a plain
//!   sender posts as many signed bodies of the same size in a loop over one keep-alive
//!   connection: the ratio is what matching, the outbox and in-order delivery cost.
//! - latency: `FIRN_WEBHOOK_BLOCKS` (200) one-transaction blocks committed 25 ms apart; the time
//!   from each commit's return (the block is in the index) to its POST arriving, p50 and p99.
//!
//! `cargo bench -p firn-api --bench webhooks`.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::http::Request;
use firn_api::webhooks::{WebhookConfig, signature};
use firn_api::{ApiConfig, AppState};
use firn_store::EvmWriter;
use firn_store::types::Address;
use tower::ServiceExt;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[path = "../tests/it/fixtures.rs"]
mod fixtures;

use fixtures::{CHAIN, erc20_transfers_block, evm_address, evm_chain};

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.replace('_', "").parse().ok())
        .unwrap_or(default)
}

/// Arrivals: per block number, when its first event came; and how many came.
#[derive(Default)]
struct Arrivals {
    count: u64,
    bytes: u64,
    at: HashMap<u64, Instant>,
}

async fn receiver(arrivals: Arc<Mutex<Arrivals>>) -> String {
    let app = axum::Router::new().route(
        "/hook",
        axum::routing::post(move |body: Bytes| {
            let arrivals = arrivals.clone();
            async move {
                let now = Instant::now();
                let v: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
                let block = v["event"]["transaction"]["blockNumber"]
                    .as_str()
                    .and_then(|s| s.parse().ok())
                    .unwrap_or(0);
                let mut a = arrivals.lock().unwrap();
                a.count += 1;
                a.bytes += body.len() as u64;
                a.at.entry(block).or_insert(now);
                ""
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    url
}

async fn wait_for(arrivals: &Mutex<Arrivals>, n: u64) -> Instant {
    let deadline = Instant::now() + Duration::from_secs(600);
    loop {
        if arrivals.lock().unwrap().count >= n {
            return Instant::now();
        }
        assert!(Instant::now() < deadline, "deliveries stalled");
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
}

/// Blocks `first..first + n`, each of `per_block` transactions from `watched`.
fn blocks(
    first: u64,
    n: u64,
    per_block: u64,
    watched: Address,
) -> Vec<firn_store::rows::evm::EvmBlockRows> {
    (first..first + n)
        .map(|number| {
            let transfers: Vec<_> = (0..per_block)
                .map(|i| (evm_address(900), watched, evm_address(1000 + i), 1 + i))
                .collect();
            erc20_transfers_block(CHAIN, number, &transfers)
        })
        .collect()
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let events = env_u64("FIRN_WEBHOOK_EVENTS", 5_000);
    let latency_blocks = env_u64("FIRN_WEBHOOK_BLOCKS", 200);
    let per_block = 50;
    let dir = tempfile_dir();
    let store = firn_store::open(dir.join("bench.db").to_str().unwrap())
        .await
        .unwrap();
    store.upsert_evm_chain(&evm_chain(CHAIN)).await.unwrap();
    let watched = evm_address(7);
    store
        .commit_evm_blocks(&blocks(1, 1, 1, evm_address(8)))
        .await
        .unwrap();

    let arrivals = Arc::new(Mutex::new(Arrivals::default()));
    let url = receiver(arrivals.clone()).await;
    let config = ApiConfig {
        webhooks: WebhookConfig {
            allow_private_targets: true,
            ..WebhookConfig::default()
        },
        ..ApiConfig::default()
    };
    let app = firn_api::app(AppState::new(store.clone(), config.clone()));
    let body = serde_json::json!({
        "eventType": "address_activity", "url": url, "chainId": CHAIN.to_string(),
        "metadata": {"addresses": [format!("{watched:#x}")]}, "includeLogs": true,
    });
    let created = app
        .oneshot(
            Request::post("/v1/webhooks")
                .header("content-type", "application/json")
                .body(Body::from(body.to_string()))
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(created.status(), 201);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let dispatcher = tokio::spawn(firn_api::webhooks::run(
        store.clone(),
        config.network.clone(),
        config.webhooks.clone(),
        async {
            let _ = stopped.await;
        },
    ));

    // Throughput.
    let n_blocks = events.div_ceil(per_block);
    let all = blocks(2, n_blocks, per_block, watched);
    let start = Instant::now();
    for chunk in all.chunks(10) {
        store.commit_evm_blocks(chunk).await.unwrap();
    }
    let total = n_blocks * per_block;
    let done = wait_for(&arrivals, total).await;
    let secs = done.duration_since(start).as_secs_f64();
    let firn_rate = total as f64 / secs;
    let mean_body = arrivals.lock().unwrap().bytes / total.max(1);

    // The plain sender: the same number of signed bodies of the same size, one after another.
    let plain = plain_sender(&url, total, mean_body as usize).await;

    // Latency.
    let first = 2 + n_blocks;
    let mut committed = HashMap::new();
    let before = arrivals.lock().unwrap().count;
    for (i, block) in blocks(first, latency_blocks, 1, watched)
        .into_iter()
        .enumerate()
    {
        store.commit_evm_blocks(&[block]).await.unwrap();
        committed.insert(first + i as u64, Instant::now());
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    wait_for(&arrivals, before + latency_blocks).await;
    let mut latencies: Vec<f64> = {
        let a = arrivals.lock().unwrap();
        committed
            .iter()
            .map(|(n, at)| a.at[n].duration_since(*at).as_secs_f64() * 1000.0)
            .collect()
    };
    latencies.sort_by(f64::total_cmp);

    println!("webhook delivery, SQLite store, one webhook, {total} events of ~{mean_body} bytes");
    println!(
        "  throughput  firn {firn_rate:>8.0} events/s   plain sender {plain:>8.0} posts/s   ratio {:.3}",
        firn_rate / plain
    );
    println!(
        "  latency     commit -> POST  p50 {:.1} ms   p99 {:.1} ms   ({latency_blocks} blocks 25 ms apart)",
        percentile(&latencies, 0.5),
        percentile(&latencies, 0.99)
    );
    let _ = stop.send(());
    let _ = dispatcher.await;
    store.close().await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// Posts `n` signed bodies of `size` bytes to `url` one after another; posts per second.
async fn plain_sender(url: &str, n: u64, size: usize) -> f64 {
    let http = reqwest::Client::new();
    let body = format!("{{\"pad\":\"{}\"}}", "x".repeat(size.saturating_sub(10)));
    let start = Instant::now();
    for _ in 0..n {
        let r = http
            .post(url)
            .header("content-type", "application/json")
            .header("x-signature", signature("secret", body.as_bytes()))
            .body(body.clone())
            .send()
            .await
            .unwrap();
        assert!(r.status().is_success());
    }
    n as f64 / start.elapsed().as_secs_f64()
}

fn tempfile_dir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("firn-webhook-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
