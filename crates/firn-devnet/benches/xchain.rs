//! X-Chain throughput: BaseTx transfers issued (verified into the mempool), packed into a block,
//! executed and accepted (fsync included), 100 per block. Signing happens in the untimed setup.
//! A second case runs X-Chain ExportTxs to the P-Chain, which also write shared memory.

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use firn_core::ids::ShortId;
use firn_devnet::clock::Clock;
use firn_devnet::genesis::DevnetConfig;
use firn_devnet::vm::PChain;
use firn_devnet::xchain::XChain;
use firn_devnet::xchain::wallet::XWallet;

const TXS_PER_BLOCK: u32 = 100;

fn transfers(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("firn-xchain-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let config = DevnetConfig {
        funded_keys: TXS_PER_BLOCK,
        ..DevnetConfig::default()
    };
    let clock = Clock::frozen(config.genesis_time);
    let p = PChain::open(config.clone(), dir.join("p"), clock)
        .unwrap_or_else(|e| panic!("open P failed: {e}"));
    let x = XChain::open(&p, dir.join("x")).unwrap_or_else(|e| panic!("open X failed: {e}"));
    let wallets: Vec<XWallet<'_>> = (0..TXS_PER_BLOCK)
        .map(|i| XWallet::with_keys(&x, vec![config.funded_key(i)]))
        .collect();
    let sink = ShortId([0x5a; 20]);
    let avax = x.network().avax_asset_id;
    let p_chain = p.network().p_chain_id;

    let mut group = c.benchmark_group("xchain");
    group.throughput(Throughput::Elements(u64::from(TXS_PER_BLOCK)));
    let mut run = |name: &str, make: &dyn Fn(&XWallet<'_>) -> firn_core::avm::Tx| {
        group.bench_function(name, |b| {
            b.iter_batched(
                || {
                    x.clock().advance(1);
                    wallets.iter().map(make).collect::<Vec<_>>()
                },
                |txs| {
                    for tx in txs {
                        if let Err(e) = x.issue_tx(tx) {
                            panic!("issue failed: {e}");
                        }
                    }
                    match x.build_block() {
                        Ok(Some(b)) if b.block.txs().len() == TXS_PER_BLOCK as usize => {}
                        other => panic!("not one full block: {other:?}"),
                    }
                },
                BatchSize::PerIteration,
            );
        });
    };
    run("base_tx_issue_build_accept", &|w| {
        w.send(avax, sink, 1_000).unwrap_or_else(|e| panic!("{e}"))
    });
    run("export_tx_issue_build_accept", &|w| {
        w.export(p_chain, sink, 1_000)
            .unwrap_or_else(|e| panic!("{e}"))
    });
    group.finish();
    drop((x, p));
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, transfers);
criterion_main!(benches);
