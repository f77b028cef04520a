//! `platform.getBlockByHeight` calls per second over loopback HTTP against a devnet with 200
//! blocks. Run with `cargo bench -p firn-rpc --bench node`.
//!
//! - `node/getBlockByHeight-hex`: one keep-alive reqwest client, heights cycling over the chain;
//! - `node/getBlockByHeight-json`: the same with `encoding: json`.
#![allow(missing_docs, clippy::unwrap_used)]

use std::hint::black_box;
use std::sync::Arc;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use firn_devnet::{Clock, DevnetConfig, PChain, Wallet};
use firn_rpc::{Node, loopback, node_router, spawn};

const BLOCKS: u64 = 200;

fn benches(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let dir = std::env::temp_dir().join(format!("firn-rpc-bench-node-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let config = DevnetConfig::default();
    let chain =
        Arc::new(PChain::open(config.clone(), &dir, Clock::frozen(config.genesis_time)).unwrap());
    let to = chain.funded_addresses()[1];
    for _ in 0..BLOCKS {
        let tx = Wallet::new(&chain).send(to, 1_000_000_000).unwrap();
        chain.issue_tx(tx).unwrap();
        chain.advance(1).unwrap();
    }
    let node = Arc::new(Node::new(chain.clone(), None));
    let server = rt
        .block_on(spawn(loopback(0), node_router(node).build().unwrap()))
        .unwrap();
    let url = format!("{}/ext/bc/P", server.url());
    let http = reqwest::Client::new();

    let mut g = c.benchmark_group("node");
    g.throughput(Throughput::Elements(1));
    for encoding in ["hex", "json"] {
        let mut h = 0u64;
        g.bench_function(format!("getBlockByHeight-{encoding}"), |b| {
            b.iter(|| {
                h = (h + 1) % (BLOCKS + 1);
                let body = format!(
                    r#"{{"jsonrpc":"2.0","method":"platform.getBlockByHeight","params":{{"height":{h},"encoding":"{encoding}"}},"id":1}}"#
                );
                let resp = rt.block_on(async {
                    http.post(&url)
                        .header("content-type", "application/json")
                        .body(body)
                        .send()
                        .await
                        .unwrap()
                        .bytes()
                        .await
                        .unwrap()
                });
                black_box(resp)
            })
        });
    }
    g.finish();
    rt.block_on(server.shutdown()).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(node, benches);
criterion_main!(node);
