//! `platform.getBlockByHeight` calls per second over loopback HTTP against a devnet with 200
//! blocks. Run with `cargo bench -p firn-node --bench node`.
//!
//! - `node/getBlockByHeight-hex`: one keep-alive reqwest client, heights cycling over the chain;
//! - `node/getBlockByHeight-json`: the same with `encoding: json`.
#![allow(missing_docs, clippy::unwrap_used)]

#[path = "support/mod.rs"]
mod support;

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use firn_devnet::Wallet;
use firn_node::NodeConfig;

const BLOCKS: u64 = 200;

fn benches(c: &mut Criterion) {
    let rt = support::runtime();
    let node = rt.block_on(firn_node::spawn(NodeConfig::test())).unwrap();
    let chain = node.pchain();
    let to = chain.funded_addresses()[1];
    for _ in 0..BLOCKS {
        let tx = Wallet::new(chain).send(to, 1_000_000_000).unwrap();
        chain.issue_tx(tx).unwrap();
        chain.advance(1).unwrap();
    }
    let url = node.url_of("/ext/bc/P");
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
    rt.block_on(node.shutdown());
}

criterion_group!(node, benches);
criterion_main!(node);
