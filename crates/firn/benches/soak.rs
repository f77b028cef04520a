//! Soak: firn's indexer and API (`firn index` and `firn serve` on one embedded store, each its
//! own process) under mixed API load for `FIRN_SOAK_SECONDS` (default 600) while the chain they
//! follow (`firn devnet`, on a data dir `firn up` filled with two days of history) receives
//! hostile txs.
//!
//! The chain side, a few txs a second from one funded key: `FirnHostile` mints whose token
//! URIs point at a loopback server this bench plants (it counts the requests it gets: firn
//! must send none), mints whose `tokenURI` burns all its gas or answers 100 kB, Transfer
//! events of tokens nobody holds, 200-frame call trees, and ordinary transfers between them.
//! The API side: `FIRN_SOAK_CONNS` (default 8) keep-alive connections cycling through P-Chain,
//! C-Chain and Metrics API reads.
//!
//! Every `FIRN_SOAK_WINDOW` seconds (default 60) it prints requests/s, p50, p99 and errors of
//! the window, the anonymous memory (heap and stacks) of the indexer, the API and the devnet,
//! and the indexer's lag (the node's C-Chain height minus the newest block the Data API lists);
//! then the whole run's figures. Not criterion: one sample is the whole run.
//! `cargo bench -p firn --bench soak` (release build).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use alloy_primitives::{Address, U256};
use alloy_sol_types::{SolCall, SolConstructor, sol};
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

#[path = "../../firn-api/benches/load/client.rs"]
mod client;
mod support;

use support::{Firn, Node, Sender, env_u64, funded_key, store_mib};

sol! {
    contract FirnHostile {
        constructor(string name_);
        function mint(address to, uint256 tokenId, string uri, bool burnGas);
        function mintHugeUri(address to, uint256 tokenId, uint256 size);
        function forge(address from, address to, uint256 firstId, uint256 count);
        function deep(uint256 depth);
    }
}

use FirnHostile::{constructorCall, deepCall, forgeCall, mintCall, mintHugeUriCall};

/// The SQLite page cache budget the indexer and the API each run with
/// (`FIRN_SOAK_STORE_CACHE_MIB`, default 16): small enough that the caches fill within the
/// first window, so memory that still grows after it is not cache.
fn store_cache_mib() -> String {
    env_u64("FIRN_SOAK_STORE_CACHE_MIB", 16).max(1).to_string()
}

/// The chain under test and firn following it, as three processes so that the indexer's and
/// the API's memory show apart from the devnet's (which keeps every block it built).
struct Soak {
    devnet: Firn,
    indexer: Firn,
    api: Firn,
    /// `firn devnet --json`'s banner.
    banner: Value,
    /// The Data API's and the Metrics API's `host:port`.
    api_host: String,
    metrics_host: String,
    dir: tempfile::TempDir,
}

impl Soak {
    /// Generates two days of history with `firn up` on a fresh data dir and stops it, then
    /// runs the devnet, the indexer and the API on that dir.
    fn start() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().to_str().unwrap();
        let any = "127.0.0.1:0";
        let cache = store_cache_mib();
        let (up, _) = Firn::spawn(
            &[
                "up",
                "--json",
                "--days",
                "2",
                "--data-dir",
                d,
                "--rpc-addr",
                any,
                "--api-addr",
                any,
                "--metrics-addr",
                any,
            ],
            &["{"],
        );
        drop(up);
        let (devnet, banner) = Firn::spawn(
            &["devnet", "--json", "--data-dir", d, "--rpc-addr", any],
            &[""],
        );
        let banner: Value = serde_json::from_str(&banner[0]).expect("the devnet's --json banner");
        let rpc = banner["listening"].as_str().unwrap();
        let (indexer, _) = Firn::spawn(
            &[
                "index",
                "--rpc",
                rpc,
                "--data-dir",
                d,
                "--store-cache-mib",
                &cache,
            ],
            &[],
        );
        let database = format!("{d}/firn.db");
        let (api, hosts) = Firn::spawn(
            &[
                "serve",
                "--database",
                &database,
                "--listen",
                any,
                "--metrics-listen",
                any,
                "--store-cache-mib",
                &cache,
            ],
            &["Metrics API: http://", "Listening on http://"],
        );
        let [metrics_host, api_host] = <[String; 2]>::try_from(hosts).unwrap();
        Self {
            devnet,
            indexer,
            api,
            banner,
            api_host,
            metrics_host,
            dir,
        }
    }
}

/// A loopback HTTP server that counts the requests it receives.
async fn planted() -> (String, Arc<AtomicUsize>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/token.json", listener.local_addr().unwrap());
    let hits = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&hits);
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            counted.fetch_add(1, Ordering::SeqCst);
            let mut buf = [0u8; 1024];
            let _ = socket.read(&mut buf).await;
            let _ = socket
                .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}")
                .await;
        }
    });
    (url, hits)
}

/// The node's C-Chain height, and the newest block the Data API lists.
async fn lag(api: &str, node: &Node, chain_id: u64) -> (u64, u64) {
    let node = node.height().await;
    let (_, body) = client::fetch(api, &format!("/v1/chains/{chain_id}/blocks?pageSize=1")).await;
    let listed = serde_json::from_str::<Value>(&body)
        .ok()
        .and_then(|v| v["blocks"][0]["blockNumber"].as_str()?.parse().ok())
        .unwrap_or(0);
    (node, listed)
}

fn main() {
    let seconds = env_u64("FIRN_SOAK_SECONDS", 600);
    let window = env_u64("FIRN_SOAK_WINDOW", 60).max(1);
    let conns = usize::try_from(env_u64("FIRN_SOAK_CONNS", 8)).unwrap();
    let running = Soak::start();
    let soak = &running;
    let data_dir = soak.dir.path().to_path_buf();
    let b = &soak.banner;
    let (api, metrics) = (soak.api_host.clone(), soak.metrics_host.clone());
    let chain_id = b["chains"]["evmChainID"].as_u64().unwrap();
    let p_address = b["fundedKeys"][0]["pChainAddress"]
        .as_str()
        .unwrap()
        .to_owned();
    let key = funded_key(b, 1);
    let evm_address = format!("{:#x}", key.address());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async move {
        let (planted_url, planted_hits) = planted().await;
        let node = Node::c_chain(b);
        let mut sender = Sender::new(node.clone(), key, chain_id).await;
        let artifact: Value = serde_json::from_str(
            &std::fs::read_to_string(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../contracts/artifacts/FirnHostile.json"
            ))
            .unwrap(),
        )
        .unwrap();
        let mut code =
            hex::decode(artifact["bytecode"].as_str().unwrap().trim_start_matches("0x")).unwrap();
        code.extend(
            constructorCall {
                name_: "Soak".into(),
            }
            .abi_encode(),
        );
        let deployed = sender.send(None, code, 3_000_000).await.expect("deployed");
        let receipt = sender.receipt(deployed).await;
        let hostile: Address = receipt["contractAddress"].as_str().unwrap().parse().unwrap();

        let stop = Arc::new(AtomicBool::new(false));
        let sent = Arc::new(AtomicUsize::new(0));
        let attacks = {
            let (stop, sent) = (Arc::clone(&stop), Arc::clone(&sent));
            tokio::spawn(async move {
                let holder = Address::repeat_byte(0xa1);
                let mut id = 1u64;
                while !stop.load(Ordering::Relaxed) {
                    let call: Vec<u8> = match id % 6 {
                        0 => mintCall {
                            to: holder,
                            tokenId: U256::from(id),
                            uri: planted_url.clone(),
                            burnGas: false,
                        }
                        .abi_encode(),
                        1 => mintCall {
                            to: holder,
                            tokenId: U256::from(id),
                            uri: String::new(),
                            burnGas: true,
                        }
                        .abi_encode(),
                        2 => mintHugeUriCall {
                            to: holder,
                            tokenId: U256::from(id),
                            size: U256::from(100_000u64),
                        }
                        .abi_encode(),
                        3 => forgeCall {
                            from: Address::repeat_byte(0xb0),
                            to: Address::repeat_byte(0xc0),
                            firstId: U256::from(id * 1_000),
                            count: U256::from(50u64),
                        }
                        .abi_encode(),
                        4 => deepCall {
                            depth: U256::from(200u64),
                        }
                        .abi_encode(),
                        _ => Vec::new(),
                    };
                    let to = if call.is_empty() {
                        Address::repeat_byte(0xd0)
                    } else {
                        hostile
                    };
                    let gas = if call.is_empty() { 21_000 } else { 8_000_000 };
                    if sender.send(Some(to), call, gas).await.is_some() {
                        sent.fetch_add(1, Ordering::Relaxed);
                    }
                    id += 1;
                    tokio::time::sleep(Duration::from_millis(250)).await;
                }
            })
        };

        let api_paths = [
            "/v1/networks/fuji/blockchains/p-chain/transactions?pageSize=10".to_owned(),
            format!("/v1/networks/fuji/blockchains/p-chain/transactions?addresses={p_address}&pageSize=10"),
            "/v1/networks/fuji/blockchains/p-chain/blocks?pageSize=10".to_owned(),
            "/v1/networks/fuji/blockchains/p-chain/transactions:listStaking?pageSize=10".to_owned(),
            format!("/v1/chains/{chain_id}/blocks?pageSize=10"),
            format!("/v1/chains/{chain_id}"),
            format!("/v1/chains/{chain_id}/addresses/{evm_address}/transactions:listErc20?pageSize=10"),
            format!("/v1/chains/{chain_id}/addresses/0x{}/transactions:listErc721?pageSize=10", "c0".repeat(20)),
            format!("/v1/chains/{chain_id}/addresses/0x{}/balances:listCollectibles?pageSize=10", "a1".repeat(20)),
        ];
        let metrics_paths = [
            format!("/v2/chains/{chain_id}/metrics/txCount?timeInterval=hour&pageSize=10"),
            format!("/v2/chains/{chain_id}/metrics/activeAddresses?timeInterval=day&pageSize=10"),
        ];
        println!(
            "soak: {seconds} s, {conns} connections (Data API) + 1 (Metrics API), hostile txs every 250 ms, store page caches {} MiB in the indexer and in the API",
            store_cache_mib()
        );
        println!("memory: anonymous MiB (heap and stacks) of each process");
        println!(
            "{:>6} {:>9} {:>9} {:>9} {:>7} {:>8} {:>8} {:>8} {:>9} {:>9} {:>5}",
            "t (s)", "req/s", "p50", "p99", "errors", "indexer", "API", "devnet", "store MiB", "C height", "lag"
        );
        let processes = || [&soak.indexer, &soak.api].map(Firn::memory);
        let start = processes();
        let started = Instant::now();
        let mut total_requests = 0usize;
        let mut total_errors = 0usize;
        let mut worst_p99 = Duration::ZERO;
        let mut max_lag = 0u64;
        let mut first_error = None;
        let mut after_first_window = None;
        while started.elapsed() < Duration::from_secs(seconds) {
            let secs = window.min(seconds.saturating_sub(started.elapsed().as_secs())).max(1) as f64;
            let (data, metric) = tokio::join!(
                client::drive(&api, &api_paths, conns, secs),
                client::drive(&metrics, &metrics_paths, 1, secs),
            );
            let requests = data.requests + metric.requests;
            total_requests += requests;
            total_errors += data.errors + metric.errors;
            first_error = first_error.or(data.first_error).or(metric.first_error);
            worst_p99 = worst_p99.max(data.p99);
            let (node, listed) = lag(&api, &node, chain_id).await;
            let behind = node.saturating_sub(listed);
            max_lag = max_lag.max(behind);
            let [indexer, served] = processes();
            after_first_window.get_or_insert([indexer, served]);
            println!(
                "{:>6} {:>9.0} {:>9.2?} {:>9.2?} {:>7} {:>8.1} {:>8.1} {:>8.1} {:>9.1} {:>9} {:>5}",
                started.elapsed().as_secs(),
                data.rps + metric.rps,
                data.p50,
                data.p99,
                data.errors + metric.errors,
                indexer.anon,
                served.anon,
                soak.devnet.memory().anon,
                store_mib(&data_dir),
                node,
                behind
            );
        }
        stop.store(true, Ordering::Relaxed);
        attacks.await.unwrap();
        let end = processes();
        // Let the indexer catch up with the last txs, then read the final lag.
        let mut caught_up = None;
        for _ in 0..100 {
            let (node, listed) = lag(&api, &node, chain_id).await;
            if listed >= node {
                caught_up = Some(node);
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let elapsed = started.elapsed().as_secs_f64();
        println!(
            "total: {:.0} req/s over {elapsed:.0} s ({total_requests} requests, {total_errors} errors), worst window p99 {worst_p99:.2?}",
            total_requests as f64 / elapsed
        );
        if let Some(e) = first_error {
            println!("first error: {e}");
        }
        println!(
            "indexer lag at most {max_lag} blocks, caught up at the end: {}; store on disk {:.1} MiB",
            caught_up.map_or("no".to_owned(), |h| format!("yes (height {h})")),
            store_mib(&data_dir)
        );
        for (i, name) in ["indexer", "API"].into_iter().enumerate() {
            let (start, end) = (start[i], end[i]);
            print!(
                "{name} RSS: {:.1} MiB at start, {:.1} MiB at the end (anonymous {:.1} -> {:.1} MiB",
                start.all, end.all, start.anon, end.anon
            );
            match after_first_window {
                Some(warm) => println!(
                    "; {:+.1} MiB after the first window, over the remaining {:.0} s)",
                    end.anon - warm[i].anon,
                    elapsed - window as f64
                ),
                None => println!(")"),
            }
        }
        println!(
            "hostile txs sent: {}; requests the loopback server got: {}",
            sent.load(Ordering::Relaxed),
            planted_hits.load(Ordering::SeqCst)
        );
    });
    drop(running);
}
