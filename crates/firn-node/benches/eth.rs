//! EVM throughput end to end over loopback HTTP. Run with `cargo bench -p firn-node --bench eth`.
//!
//! - `eth/erc20_transfers`, `eth/plain_transfers`: signed transactions (signed before the
//!   timer) sent with `eth_sendRawTransaction`, 100 calls per JSON-RPC batch over 2 keep-alive
//!   connections, timed until the last one is mined by the chain's block producer;
//! - `eth/getBlockReceipts`: `eth_getBlockReceipts` of a 100-transaction ERC-20 block.
#![allow(missing_docs, clippy::unwrap_used)]

#[path = "support/mod.rs"]
mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use alloy_primitives::{Address, B256, Bytes, U256};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use firn_evm::testing::{chain, deploy_token, erc20_transfers, key, plain_transfers};
use firn_evm::{EvmChain, Producer};
use firn_node::rpc::eth::{EvmChains, EvmNode};
use firn_rpc::{RpcRouter, loopback, spawn};

const BATCH: u64 = 2000;
const PER_REQUEST: usize = 100;
/// Room for a whole batch of token transfers in one block.
const GAS_LIMIT: u64 = 200_000_000;

struct Bench {
    chain: Arc<EvmChain>,
    url: String,
    http: reqwest::Client,
}

impl Bench {
    /// Sends `txs` in batches over two concurrent connections; waits until `last` is mined.
    async fn send(&self, txs: &[Bytes], last: B256) -> Duration {
        let bodies = support::send_raw_batches(txs, PER_REQUEST);
        let start = Instant::now();
        let (a, b): (Vec<_>, Vec<_>) = bodies
            .into_iter()
            .enumerate()
            .partition(|(i, _)| i % 2 == 0);
        let post = |part: Vec<(usize, String)>| {
            let http = self.http.clone();
            let url = self.url.clone();
            async move {
                for (_, body) in part {
                    let r = http
                        .post(&url)
                        .header("content-type", "application/json")
                        .body(body)
                        .send()
                        .await
                        .unwrap();
                    let text = r.text().await.unwrap();
                    assert!(
                        !text.contains("\"error\""),
                        "{}",
                        &text[..text.len().min(300)]
                    );
                }
            }
        };
        tokio::join!(post(a), post(b));
        while self.chain.mined(&last).is_none() {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        start.elapsed()
    }
}

fn benches(c: &mut Criterion) {
    let rt = support::runtime();
    let k = key(0);
    let chain = Arc::new(chain(1, GAS_LIMIT));
    let token = deploy_token(&chain, &k, 0);
    let (server, producer, bench) = rt.block_on(async {
        let producer = Producer::spawn(chain.clone(), None);
        let chains = Arc::new(EvmChains::new());
        chains.add(
            &["C".into()],
            Arc::new(EvmNode::new(chain.clone(), Some(producer.waker()))),
        );
        let router = chains.mount(RpcRouter::new()).build().unwrap();
        let server = spawn(loopback(0), router).await.unwrap();
        let url = format!("{}/ext/bc/C/rpc", server.url());
        let bench = Bench {
            chain: chain.clone(),
            url,
            http: reqwest::Client::new(),
        };
        (server, producer, bench)
    });

    let mut g = c.benchmark_group("eth");
    g.sample_size(10);
    g.throughput(Throughput::Elements(BATCH));
    let mut nonce = 1u64;
    g.bench_function("erc20_transfers", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let txs = erc20_transfers(&k, token, nonce, BATCH);
                nonce += BATCH;
                let last = alloy_primitives::keccak256(txs.last().unwrap());
                total += rt.block_on(bench.send(&txs, last));
            }
            total
        })
    });
    g.bench_function("plain_transfers", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let txs = plain_transfers(&k, Address::repeat_byte(9), U256::ZERO, nonce, BATCH);
                nonce += BATCH;
                let last = alloy_primitives::keccak256(txs.last().unwrap());
                total += rt.block_on(bench.send(&txs, last));
            }
            total
        })
    });

    // A block of 100 ERC-20 transfers for the receipts call.
    for tx in erc20_transfers(&k, token, nonce, 100) {
        chain.submit_raw_tx(&tx).unwrap();
    }
    rt.block_on(async { tokio::time::sleep(Duration::from_millis(200)).await });
    chain.build_until_idle().unwrap();
    let height = chain.height();
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"eth_getBlockReceipts","params":["{height:#x}"]}}"#
    );
    g.throughput(Throughput::Elements(1));
    g.sample_size(30);
    g.bench_function("getBlockReceipts", |b| {
        b.iter(|| {
            rt.block_on(async {
                let r = bench
                    .http
                    .post(&bench.url)
                    .header("content-type", "application/json")
                    .body(body.clone())
                    .send()
                    .await
                    .unwrap();
                let text = r.bytes().await.unwrap();
                assert!(text.len() > 10_000);
            })
        })
    });
    g.finish();
    rt.block_on(async {
        producer.shutdown().await;
        server.shutdown().await.unwrap();
    });
}

criterion_group!(eth_benches, benches);
criterion_main!(eth_benches);
