//! Bursts of transfers sent at once to the devnet's C-Chain, side by side with anvil:
//! `FIRN_ANVIL=<anvil binary> cargo bench -p firn-node --bench burst`.
//!
//! For each burst size in `FIRN_BURST` (default `10000,100000`): 200 senders each sign their
//! share of plain transfers, priced as a wallet prices them (ethers' rule: twice the latest base
//! fee plus `eth_maxPriorityFeePerGas`), before the timer. Then every tx goes out with
//! `eth_sendRawTransaction`, 100 to a JSON-RPC batch over 4 connections, and the clock stops
//! when every sender's mined nonce (`eth_getTransactionCount … latest`) has reached its last,
//! or after two minutes (then the rate is of what was mined by then).
//!
//! firn runs the devnet's C-Chain as `firn devnet` does: ACP-176 fees at the devnet's target,
//! the block file on disk (fsynced per block), the block producer, and the RPC server on a
//! runtime of its own (anvil runs in a process of its own). anvil (e.g. `npm install
//! @foundry-rs/anvil-linux-amd64`) gets the same room: a block a second of up to 1B gas
//! (`--block-time 1 --gas-limit 1000000000`, the devnet C-Chain's capacity). Its default,
//! automine, does not finish a burst sent this way: in anvil 1.7.1 it grew past 18 GiB in ten
//! minutes on 10,000 transfers. Prints seconds, transfers a second, blocks, the base fee range,
//! the ratio, the machine's load and each side's resident memory.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

#[path = "support/mod.rs"]
mod support;

use support::{load, rss_kib};

use std::sync::Arc;
use std::time::{Duration, Instant};

use alloy_consensus::{SignableTransaction, TxEip1559, TxEnvelope};
use alloy_eips::eip2718::Encodable2718;
use alloy_primitives::{Address, Bytes, TxKind, U256};
use alloy_signer::SignerSync;
use alloy_signer_local::PrivateKeySigner;
use firn_evm::testing::{CHAIN_ID, key};
use firn_evm::{EvmChain, EvmChainConfig, EvmGenesis, Producer};
use firn_node::rpc::eth::{EvmChains, EvmNode};
use firn_rpc::{RpcRouter, loopback, spawn};
use futures_util::StreamExt;
use serde_json::{Value, json};
use support::rpc;

const SENDERS: u8 = 200;
const PER_REQUEST: usize = 100;
const CONNECTIONS: usize = 4;
const GIVE_UP: Duration = Duration::from_secs(120);

fn hex_u128(v: &Value) -> u128 {
    u128::from_str_radix(v.as_str().unwrap().trim_start_matches("0x"), 16).unwrap()
}

/// The fee a wallet would offer now: `(max fee, tip)`.
async fn wallet_fees(client: &reqwest::Client, url: &str) -> (u128, u128) {
    let head = rpc(
        client,
        url,
        "eth_getBlockByNumber",
        json!(["latest", false]),
    )
    .await;
    let base = hex_u128(&head["baseFeePerGas"]);
    let tip = hex_u128(&rpc(client, url, "eth_maxPriorityFeePerGas", json!([])).await);
    (base * 2 + tip, tip)
}

/// A transfer of 1 wei from `k`, priced `(max fee, tip)`.
fn transfer(k: &PrivateKeySigner, nonce: u64, (max_fee, tip): (u128, u128)) -> Bytes {
    let tx = TxEip1559 {
        chain_id: CHAIN_ID,
        nonce,
        gas_limit: 21_000,
        max_fee_per_gas: max_fee,
        max_priority_fee_per_gas: tip,
        to: TxKind::Call(Address::repeat_byte(0xb0)),
        value: U256::from(1),
        access_list: Default::default(),
        input: Bytes::new(),
    };
    let sig = k.sign_hash_sync(&tx.signature_hash()).unwrap();
    let env: TxEnvelope = tx.into_signed(sig).into();
    Bytes::from(env.encoded_2718())
}

/// `count` transfers spread over the senders nonce by nonce, from `first_nonce`.
fn sign_burst(
    senders: &[PrivateKeySigner],
    first_nonce: u64,
    count: usize,
    fees: (u128, u128),
) -> Vec<Bytes> {
    (0..count)
        .map(|i| {
            let nonce = first_nonce + (i / senders.len()) as u64;
            transfer(&senders[i % senders.len()], nonce, fees)
        })
        .collect()
}

/// What a burst came to: the time until every tx was mined, or until [`GIVE_UP`] and how
/// many were mined by then.
#[derive(Clone, Copy)]
struct Outcome {
    elapsed: Duration,
    mined: u64,
    complete: bool,
}

impl Outcome {
    fn rate(&self) -> f64 {
        self.mined as f64 / self.elapsed.as_secs_f64()
    }
}

/// Sends `txs` and waits until every sender's nonce reached `start + its share`, or
/// [`GIVE_UP`]; `None` when a send failed.
async fn burst(
    client: &reqwest::Client,
    url: &str,
    senders: &[PrivateKeySigner],
    start_nonce: u64,
    txs: &[Bytes],
) -> Option<Outcome> {
    let bodies = support::send_raw_batches(txs, PER_REQUEST);
    let want = start_nonce + (txs.len() / senders.len()) as u64;
    let count_body = {
        let calls: Vec<String> = senders
            .iter()
            .enumerate()
            .map(|(i, k)| {
                format!(
                    r#"{{"jsonrpc":"2.0","id":{i},"method":"eth_getTransactionCount","params":["{:#x}","latest"]}}"#,
                    k.address()
                )
            })
            .collect();
        format!("[{}]", calls.join(","))
    };
    let started = Instant::now();
    let sending = futures_util::stream::iter(bodies)
        .map(|body| async move {
            let sent = client
                .post(url)
                .header("content-type", "application/json")
                .body(body)
                .send()
                .await;
            match sent {
                Ok(reply) => {
                    let text = reply.text().await.unwrap_or_default();
                    text.contains("\"error\"")
                        .then(|| text[..text.len().min(400)].to_string())
                }
                Err(e) => Some(e.to_string()),
            }
        })
        .buffer_unordered(CONNECTIONS)
        .filter_map(|r| async move { r })
        .collect::<Vec<String>>();
    // Sending counts against the same limit: a target slow to take txs is measured too.
    let refused = tokio::time::timeout(GIVE_UP, sending)
        .await
        .unwrap_or_default();
    if let Some(first) = refused.first() {
        println!(
            "{} of the batches failed; the first: {first}",
            refused.len()
        );
        return None;
    }
    loop {
        let replies: Vec<Value> = client
            .post(url)
            .header("content-type", "application/json")
            .body(count_body.clone())
            .send()
            .await
            .ok()?
            .json()
            .await
            .ok()?;
        let mined: u64 = replies
            .iter()
            .map(|r| (hex_u128(&r["result"]) as u64).min(want) - start_nonce)
            .sum();
        let complete = mined == txs.len() as u64;
        if complete || started.elapsed() > GIVE_UP {
            return Some(Outcome {
                elapsed: started.elapsed(),
                mined,
                complete,
            });
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// CPU seconds this process used so far (user + system).
fn cpu_seconds() -> f64 {
    std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|s| {
            let after = s.rsplit_once(')')?.1;
            let f: Vec<&str> = after.split_whitespace().collect();
            Some((f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?) / 100.0)
        })
        .unwrap_or(0.0)
}

struct Side {
    name: &'static str,
    url: String,
    /// Transfers each sender already sent (the next nonce).
    sent: u64,
}

async fn run_side(
    client: &reqwest::Client,
    side: &mut Side,
    senders: &[PrivateKeySigner],
    n: usize,
) -> Option<Outcome> {
    let fees = wallet_fees(client, &side.url).await;
    let txs = sign_burst(senders, side.sent, n, fees);
    let outcome = burst(client, &side.url, senders, side.sent, &txs).await;
    side.sent += (n / senders.len()) as u64;
    if let Some(o) = outcome {
        println!(
            "{:>6} {:>7} transfers: {} {:>7.2} s, {:>8.0} transfers/s (max fee {} wei, tip {} wei)",
            side.name,
            n,
            if o.complete {
                "all mined in".to_string()
            } else {
                format!("{} mined in", o.mined)
            },
            o.elapsed.as_secs_f64(),
            o.rate(),
            fees.0,
            fees.1
        );
    }
    outcome
}

/// Starts anvil at `bin` with every sender funded: its URL and process.
fn start_anvil(
    rt: &tokio::runtime::Runtime,
    client: &reqwest::Client,
    bin: &str,
    senders: &[PrivateKeySigner],
    funds: U256,
) -> (String, std::process::Child) {
    let args = ["--silent", "--block-time", "1", "--gas-limit", "1000000000"];
    rt.block_on(async {
        let (port, child) = support::spawn_anvil(client, bin, CHAIN_ID, &args).await;
        let url = format!("http://127.0.0.1:{port}");
        for k in senders {
            let balance = json!([format!("{:#x}", k.address()), format!("{funds:#x}")]);
            rpc(client, &url, "anvil_setBalance", balance).await;
        }
        (url, child)
    })
}

fn main() {
    let sizes: Vec<usize> = std::env::var("FIRN_BURST")
        .unwrap_or_else(|_| "10000,100000".into())
        .split(',')
        .map(|s| {
            s.trim()
                .parse()
                .expect("FIRN_BURST: burst sizes, comma-separated")
        })
        .collect();
    assert!(
        sizes.iter().all(|n| n % usize::from(SENDERS) == 0),
        "FIRN_BURST: each size must be a multiple of {SENDERS} (the senders)"
    );
    let senders: Vec<PrivateKeySigner> = (0..SENDERS).map(key).collect();
    let funds = U256::from(10u64).pow(U256::from(30));
    let alloc: Vec<(Address, U256)> = senders.iter().map(|k| (k.address(), funds)).collect();
    let now = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs()
    };

    // firn: the devnet's C-Chain on disk, its producer and RPC server on their own runtime.
    let dir = tempfile::tempdir().unwrap();
    let chain = Arc::new(
        EvmChain::open(EvmChainConfig {
            genesis: EvmGenesis::c_chain(CHAIN_ID, now(), &alloc),
            blockchain_id: Default::default(),
            network_id: 5,
            data_dir: Some(dir.path().join("c")),
            now: Arc::new(now),
            atomic: None,
            warp: None,
        })
        .unwrap(),
    );
    let server_rt = support::runtime();
    let (server, producer) = server_rt.block_on(async {
        let producer = Producer::spawn(chain.clone(), None);
        let chains = Arc::new(EvmChains::new());
        chains.add(
            &["C".into()],
            Arc::new(EvmNode::new(chain.clone(), Some(producer.waker()))),
        );
        let router = chains.mount(RpcRouter::new()).build().unwrap();
        (spawn(loopback(0), router).await.unwrap(), producer)
    });
    let client_rt = support::runtime();
    let client = reqwest::Client::new();
    println!("load before: {}", load());
    let mut firn = Side {
        name: "firn",
        url: format!("{}/ext/bc/C/rpc", server.url()),
        sent: 0,
    };
    let mut firn_outcomes = Vec::new();
    for &n in &sizes {
        let first_block = chain.height() + 1;
        let cpu = cpu_seconds();
        let outcome = client_rt.block_on(run_side(&client, &mut firn, &senders, n));
        // Signing happens before the timer, in this process: it counts here too.
        println!(
            "         {:.1} CPU seconds (signing included)",
            cpu_seconds() - cpu
        );
        firn_outcomes.push(outcome);
        let blocks: Vec<_> = (first_block..=chain.height())
            .filter_map(|h| chain.block_by_number(h))
            .collect();
        let fees: Vec<u64> = blocks.iter().filter_map(|b| b.header.base_fee).collect();
        println!(
            "         {} blocks, {:.0} transfers a block, base fee {}..{} wei",
            blocks.len(),
            n as f64 / blocks.len().max(1) as f64,
            fees.iter().min().unwrap_or(&0),
            fees.iter().max().unwrap_or(&0)
        );
    }
    println!(
        "firn RSS (chain, server and clients): {} MiB",
        rss_kib("self") / 1024
    );
    server_rt.block_on(async {
        producer.shutdown().await;
        server.shutdown().await.unwrap();
    });
    drop(server_rt);

    let Ok(bin) = std::env::var("FIRN_ANVIL") else {
        println!("FIRN_ANVIL is not set: anvil skipped, no ratio");
        return;
    };
    // A fresh anvil per burst, so one that is not done cannot slow the next.
    for (&n, firn_outcome) in sizes.iter().zip(&firn_outcomes) {
        let (url, mut child) = start_anvil(&client_rt, &client, &bin, &senders, funds);
        let mut anvil = Side {
            name: "anvil",
            url,
            sent: 0,
        };
        let outcome = client_rt.block_on(run_side(&client, &mut anvil, &senders, n));
        println!("anvil RSS: {} MiB", rss_kib(&child.id().to_string()) / 1024);
        let _ = child.kill();
        let _ = child.wait();
        if let (Some(f), Some(a)) = (firn_outcome, outcome) {
            println!(
                "ratio at {n}: firn {:.1}x anvil's transfers/s",
                f.rate() / a.rate()
            );
        }
    }
    println!("load after: {}", load());
}
