//! Throughput of BaseTx transfers through the VM: issue (verify into the mempool), build the
//! block, execute and accept it (fsync included). Signing happens in the untimed setup.

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use firn_core::ids::ShortId;
use firn_devnet::clock::Clock;
use firn_devnet::genesis::DevnetConfig;
use firn_devnet::vm::PChain;
use firn_devnet::wallet::Wallet;

const TXS_PER_BLOCK: u32 = 100;

fn transfers(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("firn-devnet-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let config = DevnetConfig {
        funded_keys: TXS_PER_BLOCK,
        ..DevnetConfig::default()
    };
    let clock = Clock::frozen(config.genesis_time);
    let chain = match PChain::open(config.clone(), &dir, clock) {
        Ok(c) => c,
        Err(e) => panic!("open failed: {e}"),
    };
    let wallets: Vec<Wallet<'_>> = (0..TXS_PER_BLOCK)
        .map(|i| Wallet::with_keys(&chain, vec![config.funded_key(i)]))
        .collect();
    let sink = ShortId([0x5a; 20]);

    let mut group = c.benchmark_group("pchain");
    group.throughput(Throughput::Elements(u64::from(TXS_PER_BLOCK)));
    group.bench_function("base_tx_issue_build_accept", |b| {
        b.iter_batched(
            || {
                // Ten seconds refill the whole gas capacity and drain the excess of the
                // last block, so every block has room for all the transfers at a steady price.
                chain.clock().advance(10);
                wallets
                    .iter()
                    .map(|w| w.send(sink, 1_000).unwrap_or_else(|e| panic!("{e}")))
                    .collect::<Vec<_>>()
            },
            |txs| {
                for tx in txs {
                    if let Err(e) = chain.issue_tx(tx) {
                        panic!("issue failed: {e}");
                    }
                }
                match chain.build_block() {
                    Ok(Some(_)) => {}
                    other => panic!("no block built: {other:?}"),
                }
            },
            BatchSize::PerIteration,
        );
    });
    group.finish();
    drop(chain);
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, transfers);
criterion_main!(benches);
