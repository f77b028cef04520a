//! Chain throughput without HTTP: signed transactions pooled with `submit_raw_tx` and mined
//! with `build_until_idle`. Signing happens before the timer starts. The end-to-end figure
//! through `eth_sendRawTransaction` is in `crates/firn-rpc/benches/eth.rs`; both build their
//! chain and token with `firn_evm::testing`.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use alloy_primitives::{Address, Bytes, U256};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use firn_evm::EvmChain;
use firn_evm::testing::{chain, deploy_token, erc20_transfers, key, plain_transfers};

const BATCH: u64 = 1000;
/// Room for a whole batch of token transfers in one block.
const GAS_LIMIT: u64 = 100_000_000;

fn run(chain: &EvmChain, txs: &[Bytes]) -> Duration {
    let start = Instant::now();
    for raw in txs {
        chain.submit_raw_tx(raw).unwrap();
    }
    chain.build_until_idle().unwrap();
    start.elapsed()
}

fn benches(c: &mut Criterion) {
    let k = key(0);
    let mut group = c.benchmark_group("evm_chain");
    group.throughput(Throughput::Elements(BATCH));
    group.sample_size(10);

    let plain = chain(1, GAS_LIMIT);
    let mut nonce = 0u64;
    group.bench_function("plain_transfers", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let txs = plain_transfers(&k, Address::repeat_byte(7), U256::from(1), nonce, BATCH);
                nonce += BATCH;
                total += run(&plain, &txs);
            }
            total
        })
    });

    let erc20 = chain(1, GAS_LIMIT);
    let token = deploy_token(&erc20, &k, 0);
    let mut nonce = 1u64;
    group.bench_function("erc20_transfers", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let txs = erc20_transfers(&k, token, nonce, BATCH);
                nonce += BATCH;
                total += run(&erc20, &txs);
            }
            total
        })
    });
    group.finish();
}

criterion_group!(chain_benches, benches);
criterion_main!(chain_benches);
