//! Chain throughput without HTTP: signed transactions pooled with `submit_raw_tx` and mined
//! with `build_until_idle`. Signing happens before the timer starts. The end-to-end figure
//! through `eth_sendRawTransaction` is in `crates/firn-rpc/benches/eth.rs`; both build their
//! chain and token with `firn_evm::testing`.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use alloy_primitives::{Address, B256, Bytes, U256};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use firn_evm::EvmChain;
use firn_evm::testing::{chain, deploy_token, key, sign, transfer_data};

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
                let txs: Vec<Bytes> = (0..BATCH)
                    .map(|i| {
                        let to = Some(Address::repeat_byte(7));
                        sign(&k, nonce + i, to, U256::from(1), Bytes::new(), 21_000)
                    })
                    .collect();
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
                let txs: Vec<Bytes> = (0..BATCH)
                    .map(|i| {
                        let to = Address::from_word(B256::from(U256::from(nonce + i)));
                        let data = transfer_data(to, U256::from(1));
                        sign(&k, nonce + i, Some(token), U256::ZERO, data, 60_000)
                    })
                    .collect();
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
