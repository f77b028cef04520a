//! Backfill speed of the indexers from the devnet's node RPC (real HTTP on loopback), into
//! SQLite and (when reachable) PostgreSQL: the P-Chain and the X-Chain (one-send blocks) in
//! blocks/s, and an EVM chain of
//! ten-ERC-20-transfer blocks in blocks/s (criterion's throughput) and transfer events/s
//! (printed). The process's peak resident memory is printed after each group.
//!
//! Beside each backfill, a plain concurrent RPC reader fetches the same blocks (the EVM's with
//! their receipts and traces) from the same node, in the same requests with as many in flight,
//! parsing each answer as JSON and keeping nothing: the rate a follower could reach if
//! indexing cost nothing. Each backend's rate is printed as a ratio of the reader's, measured in the same
//! run.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

#[allow(dead_code)]
#[path = "../tests/it/evm_devnet.rs"]
mod evm_devnet;

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use firn_devnet::xchain::wallet::XWallet;
use firn_devnet::{PChain, Wallet, XChain};
use firn_indexer::{EvmIndexer, IndexerConfig, PChainIndexer, XChainIndexer};
use firn_node::NodeConfig;
use firn_rpc::{AvalancheClient, ClientConfig};
use serde_json::json;
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

/// One chain's group: the plain reader, then the indexer (`index`, timed by itself) into a
/// fresh SQLite store and, when reachable, a fresh PostgreSQL schema. `report` prints what
/// each backend's run adds to the blocks/s criterion shows (its ratio to the reader's rate).
fn run_group<R, RF, I, IF>(
    c: &mut Criterion,
    rt: &tokio::runtime::Runtime,
    name: &str,
    blocks: u64,
    read: R,
    index: I,
    report: &dyn Fn(&Reader, &str, Duration, u64),
) where
    R: Fn() -> RF,
    RF: Future<Output = Duration>,
    I: Fn(firn_store::Store) -> IF,
    IF: Future<Output = Duration>,
{
    let dir =
        std::env::temp_dir().join(format!("firn-indexer-bench-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut pg = rt.block_on(postgres_url());
    let reader = Reader::default();
    let mut group = c.benchmark_group(name);
    group.sample_size(10);
    group.throughput(Throughput::Elements(blocks));
    group.bench_function("plain_rpc_reader", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    total += read().await;
                }
                reader.measured(name, blocks, total, iters);
                total
            })
        });
    });
    group.bench_function("sqlite", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let db = dir.join(format!("run-{}.db", uuid::Uuid::new_v4().simple()));
                    let store = firn_store::open(db.to_str().unwrap()).await.unwrap();
                    total += index(store.clone()).await;
                    store.close().await;
                    let _ = std::fs::remove_file(&db);
                }
                report(&reader, &format!("{name}/sqlite"), total, iters);
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
                        total += index(store.clone()).await;
                        store.close().await;
                        admin
                            .execute(format!("DROP SCHEMA {schema} CASCADE").as_str())
                            .await
                            .unwrap();
                    }
                    report(&reader, &format!("{name}/postgres"), total, iters);
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

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

fn by_height(method: &'static str) -> impl Fn(std::ops::Range<u64>) -> serde_json::Value {
    move |h| {
        json!({"jsonrpc": "2.0", "id": 1, "method": method,
               "params": {"height": h.start.to_string(), "encoding": "hex"}})
    }
}

/// A primary-network chain's group: `fill` makes its blocks on a fresh devnet, the reader
/// reads them with `method` (`…getBlockByHeight`) one per request, and `index` backfills
/// them from `client` into a store.
fn primary_chain_group<F, I, IF>(
    c: &mut Criterion,
    name: &str,
    path: &str,
    method: &'static str,
    fill: F,
    index: I,
) where
    F: Fn(&firn_node::NodeHandle) -> u64,
    I: Fn(AvalancheClient, firn_store::Store) -> IF,
    IF: Future<Output = ()>,
{
    let rt = runtime();
    let node = rt.block_on(firn_node::spawn(NodeConfig::test())).unwrap();
    let blocks = fill(&node) + 1;
    let url = node.url_of(path);
    let client = AvalancheClient::new(&url, ClientConfig::default()).unwrap();
    let config = IndexerConfig::default();
    run_group(
        c,
        &rt,
        name,
        blocks,
        || plain_read(&url, blocks, 1, config.concurrency, by_height(method)),
        |store| {
            let run = index(client.clone(), store);
            async move {
                let started = Instant::now();
                run.await;
                started.elapsed()
            }
        },
        &|reader, name, total, iters| reader.compare(name, blocks, total, iters),
    );
    drop(node);
}

fn backfill(c: &mut Criterion) {
    primary_chain_group(
        c,
        "pchain_backfill",
        "/ext/bc/P",
        "platform.getBlockByHeight",
        |node| {
            fill(node.pchain());
            node.pchain().height()
        },
        |client, store| async move {
            PChainIndexer::new(client, store, IndexerConfig::default())
                .on_progress(|_| {})
                .backfill()
                .await
                .unwrap();
        },
    );
}

/// `BLOCKS` X-Chain blocks of one AVAX send each.
fn fill_xchain(x: &Arc<XChain>) {
    let addrs = x.funded_addresses();
    let avax = x.network().avax_asset_id;
    for i in 0..BLOCKS {
        let w = XWallet::new(x);
        x.issue_tx(
            w.send(avax, addrs[(i + 1) % addrs.len()], 1_000_000)
                .unwrap(),
        )
        .unwrap();
        x.clock().advance(1);
        x.build_until_idle().unwrap();
    }
}

fn xchain_backfill(c: &mut Criterion) {
    primary_chain_group(
        c,
        "xchain_backfill",
        "/ext/bc/X",
        "avm.getBlockByHeight",
        |node| {
            fill_xchain(node.xchain());
            node.xchain().height()
        },
        |client, store| async move {
            let tip = XChainIndexer::new(client, store, IndexerConfig::default())
                .on_progress(|_| {})
                .backfill()
                .await
                .unwrap();
            assert!(tip.is_some());
        },
    );
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

/// The plain reader's last rate in blocks/s, to print each backend's as a ratio of it.
#[derive(Default)]
struct Reader(std::cell::Cell<f64>);

fn blocks_per_second(blocks: u64, total: Duration, iters: u64) -> f64 {
    blocks as f64 / (total.as_secs_f64() / iters.max(1) as f64)
}

impl Reader {
    fn measured(&self, group: &str, blocks: u64, total: Duration, iters: u64) {
        let rate = blocks_per_second(blocks, total, iters);
        self.0.set(rate);
        println!("{group}/plain_rpc_reader: {rate:.0} blocks/s");
    }

    fn compare(&self, name: &str, blocks: u64, total: Duration, iters: u64) {
        let rate = blocks_per_second(blocks, total, iters);
        let ratio = rate / self.0.get();
        println!("{name}: {rate:.0} blocks/s, {ratio:.2}x the plain RPC reader");
    }
}

/// Reads blocks `0..blocks` as an indexer's fetch does: `body` is the request for a run of
/// `per_request` heights, `in_flight` requests at a time. Every answer is parsed as JSON,
/// checked to be a JSON-RPC answer, and dropped. Returns the time it took.
async fn plain_read(
    url: &str,
    blocks: u64,
    per_request: u64,
    in_flight: usize,
    body: impl Fn(std::ops::Range<u64>) -> serde_json::Value,
) -> Duration {
    let http = reqwest::Client::new();
    let started = Instant::now();
    let permits = Arc::new(tokio::sync::Semaphore::new(in_flight));
    let mut tasks = tokio::task::JoinSet::new();
    let mut start = 0;
    while start < blocks {
        let end = (start + per_request).min(blocks);
        let body = body(start..end);
        let permit = permits.clone().acquire_owned().await.unwrap();
        let (http, url) = (http.clone(), url.to_owned());
        tasks.spawn(async move {
            let bytes = http.post(url).json(&body).send().await.unwrap();
            let answer: serde_json::Value =
                serde_json::from_slice(&bytes.bytes().await.unwrap()).unwrap();
            let answers = match answer {
                serde_json::Value::Array(batch) => batch,
                one => vec![one],
            };
            // Genesis has no traces: its answer is an error, as the indexer sees it too.
            let answered =
                |a: &serde_json::Value| a.get("result").is_some() || a.get("error").is_some();
            if let Some(failed) = answers.iter().find(|a| !answered(a)) {
                panic!("not a JSON-RPC answer: {:.500}", failed.to_string());
            }
            drop(permit);
        });
        start = end;
    }
    while let Some(done) = tasks.join_next().await {
        done.unwrap();
    }
    started.elapsed()
}

/// One batched request for the block, receipts and `callTracer` traces of each height.
fn evm_request(heights: std::ops::Range<u64>) -> serde_json::Value {
    let calls = heights.flat_map(|n| {
        let tag = format!("{n:#x}");
        [
            ("eth_getBlockByNumber", json!([tag, true])),
            ("eth_getBlockReceipts", json!([tag])),
            (
                "debug_traceBlockByNumber",
                json!([tag, {"tracer": "callTracer"}]),
            ),
        ]
    });
    let calls = calls.enumerate().map(
        |(id, (method, params))| json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
    );
    serde_json::Value::Array(calls.collect())
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
    let rt = runtime();
    let devnet = rt.block_on(async {
        let d = evm_devnet::EvmDevnet::start().await;
        d.token_blocks(EVM_BLOCKS, TRANSFERS_PER_BLOCK);
        d
    });
    let blocks = devnet.chain.height() + 1;
    let transfers = (EVM_BLOCKS * TRANSFERS_PER_BLOCK) as u64;
    let config = IndexerConfig::default();
    let url = devnet.endpoint().url.clone();
    run_group(
        c,
        &rt,
        "evm_backfill",
        blocks,
        || {
            plain_read(
                &url,
                blocks,
                config.request_blocks,
                config.concurrency,
                evm_request,
            )
        },
        |store| {
            let devnet = &devnet;
            async move { index_evm(devnet, &store).await }
        },
        &|reader, name, total, iters| {
            let secs = total.as_secs_f64() / iters.max(1) as f64;
            println!("{name}: {:.0} transfer events/s", transfers as f64 / secs);
            reader.compare(name, blocks, total, iters);
        },
    );
}

criterion_group!(benches, backfill, xchain_backfill, evm_backfill);
criterion_main!(benches);
