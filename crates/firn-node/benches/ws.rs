//! WebSocket subscriptions under load: `cargo bench -p firn-node --bench ws`.
//!
//! One EVM chain served over loopback; `FIRN_WS_SUBSCRIBERS` connections (default 1,000), half
//! subscribed to `newHeads`, half to the `logs` of a token; blocks of `FIRN_WS_TXS` token
//! transfers (default 10) accepted at `FIRN_WS_BLOCK_RATE` a second (default 10) for
//! `FIRN_WS_SECONDS` (default 10). Prints the subscribers held, the notifications expected and
//! delivered, notifications a second, the latency from the start of a block's building to each
//! notification of it (p50, p99, max), and the process's resident memory (the subscribers'
//! clients run in the same process). With `FIRN_ANVIL` (an anvil binary, e.g. from
//! `npm install @foundry-rs/anvil`), the same load then runs against anvil (`--no-mining`,
//! each block by `evm_mine`) in the same run, for the ratio. firn's server runs on a runtime of
//! its own, apart from the clients', as anvil runs in a process of its own.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

#[path = "support/mod.rs"]
mod support;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use alloy_primitives::{Address, Bytes, U256};
use alloy_signer_local::PrivateKeySigner;
use firn_evm::EvmChain;
use firn_evm::testing::{
    CHAIN_ID, chain, deploy_token, erc20_transfers, key, sign, token_init_code,
};
use firn_node::rpc::eth::{EvmChains, EvmNode};
use firn_rpc::{RpcRouter, loopback, spawn};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

use support::rpc;

fn setting(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// When each block was accepted, by number.
type Accepted = Arc<Mutex<HashMap<u64, Instant>>>;

/// One subscriber: subscribes, then times every notification until `stop`; its latencies.
async fn subscriber(
    url: String,
    params: Value,
    accepted: Accepted,
    delivered: Arc<AtomicU64>,
    ready: tokio::sync::mpsc::Sender<()>,
    mut stop: tokio::sync::watch::Receiver<bool>,
) -> Vec<Duration> {
    let (mut socket, _) = tokio_tungstenite::connect_async(&url).await.unwrap();
    let request = json!({ "jsonrpc": "2.0", "id": 1, "method": "eth_subscribe", "params": params });
    socket
        .send(Message::Text(request.to_string().into()))
        .await
        .unwrap();
    let mut mine = Vec::new();
    loop {
        let message = tokio::select! {
            m = socket.next() => m,
            _ = stop.changed() => break,
        };
        let Some(Ok(Message::Text(text))) = message else {
            break;
        };
        let v: Value = serde_json::from_str(&text).unwrap();
        if v["id"] == 1 {
            let _ = ready.send(()).await;
            continue;
        }
        let result = &v["params"]["result"];
        let number = result["number"]
            .as_str()
            .or(result["blockNumber"].as_str())
            .unwrap();
        let number = u64::from_str_radix(number.trim_start_matches("0x"), 16).unwrap();
        let at = accepted.lock().unwrap().get(&number).copied();
        if let Some(at) = at {
            mine.push(at.elapsed());
        }
        delivered.fetch_add(1, Ordering::Relaxed);
    }
    mine
}

fn resident_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// What the subscribers connect to, and how it accepts a block.
enum Target {
    /// firn's chain in process, served over loopback.
    Firn(Arc<EvmChain>),
    /// An anvil process without automine: txs over HTTP, then `evm_mine`.
    Anvil {
        http: String,
        client: reqwest::Client,
    },
}

impl Target {
    /// The next block's number.
    async fn next_number(&self) -> u64 {
        match self {
            Target::Firn(chain) => chain.height() + 1,
            Target::Anvil { http, client } => {
                let n = rpc(client, http, "eth_blockNumber", json!([])).await;
                u64::from_str_radix(n.as_str().unwrap().trim_start_matches("0x"), 16).unwrap() + 1
            }
        }
    }

    /// Pools `txs`, then accepts a block with them; times the acceptance from its start.
    async fn block(&self, txs: &[Bytes], accepted: &Accepted) {
        let number = self.next_number().await;
        match self {
            Target::Firn(chain) => {
                for raw in txs {
                    chain.submit_raw_tx(raw).unwrap();
                }
                accepted.lock().unwrap().insert(number, Instant::now());
                let chain = chain.clone();
                tokio::task::spawn_blocking(move || chain.build_block().unwrap().unwrap())
                    .await
                    .unwrap();
            }
            Target::Anvil { http, client } => {
                for raw in txs {
                    rpc(
                        client,
                        http,
                        "eth_sendRawTransaction",
                        json!([format!("{raw}")]),
                    )
                    .await;
                }
                accepted.lock().unwrap().insert(number, Instant::now());
                rpc(client, http, "evm_mine", json!([])).await;
            }
        }
    }
}

/// Starts anvil at `bin` with the fixture key funded and the token deployed: the target, its
/// WebSocket URL and the child to kill.
async fn anvil(bin: &str, k: &PrivateKeySigner) -> (Target, String, std::process::Child, Address) {
    let client = reqwest::Client::new();
    let args = ["--no-mining", "--gas-limit", "200000000", "--silent"];
    let (port, child) = support::spawn_anvil(&client, bin, CHAIN_ID, &args).await;
    let http = format!("http://127.0.0.1:{port}");
    let funds = format!("{:#x}", U256::from(10u64).pow(U256::from(30)));
    rpc(
        &client,
        &http,
        "anvil_setBalance",
        json!([format!("{:#x}", k.address()), funds]),
    )
    .await;
    let init = token_init_code("Bench", "BNCH", U256::MAX);
    let deploy = sign(k, 0, None, U256::ZERO, init, 5_000_000);
    rpc(
        &client,
        &http,
        "eth_sendRawTransaction",
        json!([format!("{deploy}")]),
    )
    .await;
    rpc(&client, &http, "evm_mine", json!([])).await;
    let token = k.address().create(0);
    (
        Target::Anvil { http, client },
        format!("ws://127.0.0.1:{port}"),
        child,
        token,
    )
}

/// Subscribes the subscribers at `url`, accepts the blocks, and prints what they received.
async fn run(
    name: &str,
    target: &Target,
    url: &str,
    token: Address,
    k: &PrivateKeySigner,
    load: Load,
) {
    let Load {
        subscribers,
        rate,
        seconds,
        per_block,
    } = load;
    let accepted: Accepted = Arc::default();
    let delivered: Arc<AtomicU64> = Arc::default();
    let (stop_tx, stop) = tokio::sync::watch::channel(false);
    let (ready_tx, mut ready) = tokio::sync::mpsc::channel(subscribers.max(1));
    let mut tasks = Vec::new();
    for i in 0..subscribers {
        let params = if i % 2 == 0 {
            json!(["newHeads"])
        } else {
            json!(["logs", { "address": format!("{token:#x}") }])
        };
        tasks.push(tokio::spawn(subscriber(
            url.to_owned(),
            params,
            accepted.clone(),
            delivered.clone(),
            ready_tx.clone(),
            stop.clone(),
        )));
    }
    for _ in 0..subscribers {
        ready.recv().await.unwrap();
    }
    let blocks = rate * seconds;
    let txs = erc20_transfers(k, token, 1, blocks * per_block);
    let before = resident_mib();
    let started = Instant::now();
    let tick = Duration::from_secs_f64(1.0 / rate as f64);
    for (n, chunk) in txs.chunks(per_block as usize).enumerate() {
        tokio::time::sleep_until((started + tick * n as u32).into()).await;
        target.block(chunk, &accepted).await;
    }
    let produced = started.elapsed();
    let half = subscribers as u64 / 2;
    let expected = blocks * (subscribers as u64 - half) + blocks * per_block * half;
    // Wait for the last notifications (at most 10 s more).
    let deadline = Instant::now() + Duration::from_secs(10);
    while delivered.load(Ordering::Relaxed) < expected && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let delivered_in = started.elapsed();
    let during = resident_mib();
    let _ = stop_tx.send(true);
    let mut all = Vec::new();
    for t in tasks {
        all.extend(t.await.unwrap());
    }
    all.sort();
    println!(
        "{name}: {subscribers} subscribers ({} newHeads, {half} logs), {blocks} blocks of {per_block} token transfers at {rate}/s in {:.2?}",
        subscribers as u64 - half,
        produced
    );
    println!(
        "{name}: {} of {expected} notifications delivered ({:.0}/s over {:.2?}); latency p50 {:.2?}, p99 {:.2?}, max {:.2?}",
        all.len(),
        all.len() as f64 / delivered_in.as_secs_f64(),
        delivered_in,
        percentile(&all, 0.5),
        percentile(&all, 0.99),
        all.last().copied().unwrap_or_default()
    );
    println!(
        "{name}: this process's resident memory {before:.1} MiB with every subscriber connected, {during:.1} MiB after the run"
    );
}

#[derive(Clone, Copy)]
struct Load {
    subscribers: usize,
    rate: u64,
    seconds: u64,
    per_block: u64,
}

fn main() {
    let load = Load {
        subscribers: setting("FIRN_WS_SUBSCRIBERS", 1_000) as usize,
        rate: setting("FIRN_WS_BLOCK_RATE", 10),
        seconds: setting("FIRN_WS_SECONDS", 10),
        per_block: setting("FIRN_WS_TXS", 10),
    };
    // The server has its own runtime, as anvil has its own process: the subscribers' clients
    // share the cores with it, not its scheduler.
    let server_rt = tokio::runtime::Runtime::new().unwrap();
    let k = key(0);
    let chain = Arc::new(chain(1, 200_000_000));
    let token = deploy_token(&chain, &k, 0);
    let chains = Arc::new(EvmChains::new());
    chains.add(&["C".into()], Arc::new(EvmNode::new(chain.clone(), None)));
    let router = chains.mount(RpcRouter::new()).build().unwrap();
    let handle = server_rt.block_on(spawn(loopback(0), router)).unwrap();
    let url = format!("ws://{}/ext/bc/C/ws", handle.local_addr());
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(run("firn", &Target::Firn(chain), &url, token, &k, load));
    server_rt.block_on(handle.shutdown()).unwrap();
    match std::env::var("FIRN_ANVIL") {
        Ok(bin) => rt.block_on(async {
            let (target, url, mut child, token) = anvil(&bin, &k).await;
            run("anvil", &target, &url, token, &k, load).await;
            let _ = child.kill();
            let _ = child.wait();
        }),
        Err(_) => println!(
            "anvil: not measured; set FIRN_ANVIL to an anvil binary (npm install @foundry-rs/anvil)"
        ),
    }
}
