//! Store benchmarks, on SQLite and (when reachable) PostgreSQL:
//! - `commit`: committing blocks of 10 ERC-20 transfers, one block per transaction and 100
//!   blocks per transaction (backfill); throughput in blocks/s;
//! - `list_transfers`: the first page (25) of one address's ERC-20 transfers, and a page deep in
//!   its history, on a store holding 100,000 transfers.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

#[path = "../tests/it/fixtures.rs"]
mod fixtures;

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use firn_store::page::EventCursor;
use firn_store::rows::evm::TokenStandard;
use firn_store::{EvmReader, EvmWriter, PageRequest, Store, TransferFilter, open};
use fixtures::{erc20_block, evm_address, evm_chain};
use sqlx::{Connection, Executor};

const CHAIN: u64 = 43113;
const TRANSFERS_PER_BLOCK: u32 = 10;
const PREFILL_BLOCKS: u64 = 10_000;

struct Backend {
    name: &'static str,
    store: Store,
    cleanup: Cleanup,
}

/// What to remove once the benchmarks are done.
enum Cleanup {
    Dir(std::path::PathBuf),
    Schema(sqlx::AnyConnection, String),
}

async fn sqlite() -> Backend {
    let dir = std::env::temp_dir().join(format!(
        "firn-store-bench-{}",
        uuid::Uuid::new_v4().simple()
    ));
    let store = open(dir.join("firn.db").to_str().unwrap()).await.unwrap();
    Backend {
        name: "sqlite",
        store,
        cleanup: Cleanup::Dir(dir),
    }
}

async fn postgres() -> Option<Backend> {
    sqlx::any::install_default_drivers();
    let base = std::env::var("FIRN_TEST_POSTGRES_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".to_owned());
    let connect = sqlx::AnyConnection::connect(&base);
    let Ok(Ok(mut admin)) = tokio::time::timeout(Duration::from_secs(3), connect).await else {
        eprintln!("SKIPPED postgres benchmarks: PostgreSQL not reachable at {base}");
        return None;
    };
    let schema = format!("firn_bench_{}", uuid::Uuid::new_v4().simple());
    admin
        .execute(format!("CREATE SCHEMA {schema}").as_str())
        .await
        .unwrap();
    let sep = if base.contains('?') { '&' } else { '?' };
    let store = open(&format!("{base}{sep}options=-c%20search_path%3D{schema}"))
        .await
        .unwrap();
    Some(Backend {
        name: "postgres",
        store,
        cleanup: Cleanup::Schema(admin, schema),
    })
}

async fn backends() -> Vec<Backend> {
    let mut out = vec![sqlite().await];
    out.extend(postgres().await);
    for b in &out {
        b.store.upsert_evm_chain(&evm_chain(CHAIN)).await.unwrap();
    }
    out
}

fn bench_store(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let backends = rt.block_on(backends());

    let mut group = c.benchmark_group("commit");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(8));
    for b in &backends {
        let next = AtomicU64::new(1);
        group.throughput(Throughput::Elements(1));
        group.bench_function(format!("{}/1_block_per_tx", b.name), |bench| {
            bench.to_async(&rt).iter(|| async {
                let n = next.fetch_add(1, Ordering::Relaxed);
                let block = erc20_block(CHAIN, n, 1_700_000_000 + n * 2, TRANSFERS_PER_BLOCK);
                b.store.commit_evm_blocks(&[block]).await.unwrap();
            })
        });
        group.throughput(Throughput::Elements(100));
        group.bench_function(format!("{}/100_blocks_per_tx", b.name), |bench| {
            bench.to_async(&rt).iter(|| async {
                let first = next.fetch_add(100, Ordering::Relaxed);
                let blocks: Vec<_> = (first..first + 100)
                    .map(|n| erc20_block(CHAIN, n, 1_700_000_000 + n * 2, TRANSFERS_PER_BLOCK))
                    .collect();
                b.store.commit_evm_blocks(&blocks).await.unwrap();
            })
        });
        // Top up to the prefill size for the list benchmark (100,000 transfers).
        rt.block_on(async {
            loop {
                let first = next.load(Ordering::Relaxed);
                if first > PREFILL_BLOCKS {
                    break;
                }
                let last = (first + 500).min(PREFILL_BLOCKS + 1);
                let blocks: Vec<_> = (first..last)
                    .map(|n| erc20_block(CHAIN, n, 1_700_000_000 + n * 2, TRANSFERS_PER_BLOCK))
                    .collect();
                b.store.commit_evm_blocks(&blocks).await.unwrap();
                next.store(last, Ordering::Relaxed);
            }
        });
    }
    group.finish();

    let mut group = c.benchmark_group("list_transfers");
    group
        .sample_size(50)
        .measurement_time(Duration::from_secs(5));
    for b in &backends {
        let filter = TransferFilter {
            chain_id: CHAIN,
            address: evm_address(500),
            standard: TokenStandard::Erc20,
            start_block: None,
            end_block: None,
        };
        let total = rt.block_on(async {
            let page = b
                .store
                .list_transfers(&filter, &PageRequest::first(10_000))
                .await
                .unwrap();
            page.items.len()
        });
        eprintln!("{}: address has {total} transfers in the store", b.name);
        group.bench_function(format!("{}/first_page_25", b.name), |bench| {
            bench.to_async(&rt).iter(|| async {
                let page = b
                    .store
                    .list_transfers(&filter, &PageRequest::first(25))
                    .await
                    .unwrap();
                assert_eq!(page.items.len(), 25);
            })
        });
        let deep = EventCursor {
            height: PREFILL_BLOCKS / 4,
            index: u32::MAX,
            sub: 0,
        };
        group.bench_function(format!("{}/deep_page_25", b.name), |bench| {
            bench.to_async(&rt).iter(|| async {
                let page = b
                    .store
                    .list_transfers(&filter, &PageRequest::after(25, deep))
                    .await
                    .unwrap();
                assert!(!page.items.is_empty());
            })
        });
    }
    group.finish();
    rt.block_on(async {
        for b in backends {
            b.store.close().await;
            match b.cleanup {
                Cleanup::Dir(dir) => {
                    let _ = std::fs::remove_dir_all(dir);
                }
                Cleanup::Schema(mut admin, schema) => {
                    admin
                        .execute(format!("DROP SCHEMA {schema} CASCADE").as_str())
                        .await
                        .unwrap();
                }
            }
        }
    });
}

criterion_group!(benches, bench_store);
criterion_main!(benches);
