//! Backfill speed of the indexers from the devnet's node RPC (real HTTP on loopback), into
//! SQLite and (when reachable) PostgreSQL: the P-Chain in blocks/s, and an EVM chain of
//! ten-ERC-20-transfer blocks in blocks/s (criterion's throughput) and transfer events/s
//! (printed). The process's peak resident memory is printed after each group.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

#[allow(dead_code)]
#[path = "../tests/it/evm_devnet.rs"]
mod evm_devnet;

use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use firn_devnet::{PChain, Wallet};
use firn_indexer::{EvmIndexer, IndexerConfig, PChainIndexer};
use firn_node::NodeConfig;
use firn_rpc::{AvalancheClient, ClientConfig};
use sqlx::{Connection, Executor};

const BLOCKS: usize = 1_000;
/// EVM blocks of `TRANSFERS_PER_BLOCK` ERC-20 transfers each.
const EVM_BLOCKS: usize = 1_000;
const TRANSFERS_PER_BLOCK: usize = 10;

/// `BLOCKS` blocks of one transfer each.
fn fill(chain: &Arc<PChain>) {
    let addrs = chain.funded_addresses().to_vec();
    for i in 0..BLOCKS {
        let w = Wallet::with_keys(chain, vec![chain.funded_keys().swap_remove(i % 3)]);
        chain
            .issue_tx(w.send(addrs[(i + 1) % addrs.len()], 1_000_000).unwrap())
            .unwrap();
        chain.clock().advance(1);
        chain.build_until_idle().unwrap();
    }
}

async fn postgres_url() -> Option<(sqlx::AnyConnection, String)> {
    sqlx::any::install_default_drivers();
    let base = std::env::var("FIRN_TEST_POSTGRES_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".to_owned());
    let connect = sqlx::AnyConnection::connect(&base);
    let Ok(Ok(admin)) = tokio::time::timeout(Duration::from_secs(3), connect).await else {
        eprintln!("SKIPPED postgres backfill benchmark: PostgreSQL not reachable at {base}");
        return None;
    };
    Some((admin, base))
}

fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn backfill(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let dir = std::env::temp_dir().join(format!("firn-indexer-bench-{}", std::process::id()));
    let node = rt.block_on(firn_node::spawn(NodeConfig::test())).unwrap();
    fill(node.pchain());
    let blocks = node.pchain().height() + 1;
    let url = node.url_of("/ext/bc/P");
    let client = AvalancheClient::new(&url, ClientConfig::default()).unwrap();
    let mut pg = rt.block_on(postgres_url());

    let mut group = c.benchmark_group("pchain_backfill");
    group.sample_size(10);
    group.throughput(Throughput::Elements(blocks));
    group.bench_function("sqlite", |b| {
        b.to_async(&rt).iter_custom(|iters| {
            let client = client.clone();
            let dir = dir.clone();
            async move {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let db = dir.join(format!("run-{}.db", uuid::Uuid::new_v4().simple()));
                    let store = firn_store::open(db.to_str().unwrap()).await.unwrap();
                    let started = Instant::now();
                    PChainIndexer::new(client.clone(), store.clone(), IndexerConfig::default())
                        .on_progress(|_| {})
                        .backfill()
                        .await
                        .unwrap();
                    total += started.elapsed();
                    store.close().await;
                    let _ = std::fs::remove_file(&db);
                }
                total
            }
        });
    });
    if let Some((admin, base)) = pg.as_mut() {
        group.bench_function("postgres", |b| {
            b.iter_custom(|iters| {
                rt.block_on(async {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        let schema = format!("firn_idx_bench_{}", uuid::Uuid::new_v4().simple());
                        admin
                            .execute(format!("CREATE SCHEMA {schema}").as_str())
                            .await
                            .unwrap();
                        let sep = if base.contains('?') { '&' } else { '?' };
                        let store = firn_store::open(&format!(
                            "{base}{sep}options=-c%20search_path%3D{schema}"
                        ))
                        .await
                        .unwrap();
                        let started = Instant::now();
                        PChainIndexer::new(client.clone(), store.clone(), IndexerConfig::default())
                            .on_progress(|_| {})
                            .backfill()
                            .await
                            .unwrap();
                        total += started.elapsed();
                        store.close().await;
                        admin
                            .execute(format!("DROP SCHEMA {schema} CASCADE").as_str())
                            .await
                            .unwrap();
                    }
                    total
                })
            });
        });
    }
    group.finish();
    if let Some(kib) = peak_rss_kib() {
        println!(
            "peak resident memory of the benchmark process: {} MiB",
            kib / 1024
        );
    }
    drop(node);
    let _ = std::fs::remove_dir_all(&dir);
}

async fn fresh_pg(admin: &mut sqlx::AnyConnection, base: &str) -> (firn_store::Store, String) {
    let schema = format!("firn_idx_bench_{}", uuid::Uuid::new_v4().simple());
    admin
        .execute(format!("CREATE SCHEMA {schema}").as_str())
        .await
        .unwrap();
    let sep = if base.contains('?') { '&' } else { '?' };
    let store = firn_store::open(&format!("{base}{sep}options=-c%20search_path%3D{schema}"))
        .await
        .unwrap();
    (store, schema)
}

async fn index_evm(devnet: &evm_devnet::EvmDevnet, store: &firn_store::Store) -> Duration {
    let started = Instant::now();
    let mut indexer =
        EvmIndexer::new(devnet.endpoint(), store.clone(), IndexerConfig::default()).unwrap();
    let height = indexer.backfill().await.unwrap();
    assert_eq!(height, Some(devnet.chain.height()));
    started.elapsed()
}

fn evm_backfill(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let devnet = rt.block_on(async {
        let d = evm_devnet::EvmDevnet::start().await;
        d.token_blocks(EVM_BLOCKS, TRANSFERS_PER_BLOCK);
        d
    });
    let blocks = devnet.chain.height() + 1;
    let transfers = (EVM_BLOCKS * TRANSFERS_PER_BLOCK) as u64;
    let dir = std::env::temp_dir().join(format!("firn-indexer-evm-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut pg = rt.block_on(postgres_url());
    let mut group = c.benchmark_group("evm_backfill");
    group.sample_size(10);
    group.throughput(Throughput::Elements(blocks));
    let report = |backend: &str, total: Duration, iters: u64| {
        let secs = total.as_secs_f64() / iters.max(1) as f64;
        println!(
            "evm_backfill/{backend}: {:.0} blocks/s, {:.0} transfer events/s",
            blocks as f64 / secs,
            transfers as f64 / secs
        );
    };
    group.bench_function("sqlite", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let db = dir.join(format!("run-{}.db", uuid::Uuid::new_v4().simple()));
                    let store = firn_store::open(db.to_str().unwrap()).await.unwrap();
                    total += index_evm(&devnet, &store).await;
                    store.close().await;
                    let _ = std::fs::remove_file(&db);
                }
                report("sqlite", total, iters);
                total
            })
        });
    });
    if let Some((admin, base)) = pg.as_mut() {
        group.bench_function("postgres", |b| {
            b.iter_custom(|iters| {
                rt.block_on(async {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        let (store, schema) = fresh_pg(admin, base).await;
                        total += index_evm(&devnet, &store).await;
                        store.close().await;
                        admin
                            .execute(format!("DROP SCHEMA {schema} CASCADE").as_str())
                            .await
                            .unwrap();
                    }
                    report("postgres", total, iters);
                    total
                })
            });
        });
    }
    group.finish();
    if let Some(kib) = peak_rss_kib() {
        println!(
            "peak resident memory of the benchmark process (devnet included): {} MiB",
            kib / 1024
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, backfill, evm_backfill);
criterion_main!(benches);
