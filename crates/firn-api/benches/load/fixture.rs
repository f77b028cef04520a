//! The load store, built once per backend and size and reused: P-Chain transfer history and
//! ERC-20 traffic written through the store's public commit APIs in large batches.
//!
//! A store is keyed by the fixture format and its sizes. Opening it runs the store's migrations
//! like any deployment upgrading in place, so a new migration (an index, say) is applied to the
//! built store instead of forcing a rebuild; only a store the migrations refuse (an applied
//! migration was edited) or a new [`FORMAT`] is rebuilt. SQLite lives under the target dir
//! (`firn-load/sqlite-f<format>-p<txs>-t<transfers>/`, its `complete` file marks a finished
//! fill); PostgreSQL in its own database (`firn_load_p<txs>_t<transfers>`), whose
//! `firn_load_fixture` row holds the format and whether the fill finished. The history is
//! deterministic and commits skip blocks at or below the stored cursors, so an interrupted
//! build resumes where it stopped.

use std::path::PathBuf;
use std::time::Instant;

use firn_store::rows::ChainKey;
use firn_store::{CursorStore, EvmWriter, PChainWriter, Store};
use sqlx::{Connection, Executor, Row};

use crate::fixtures;

/// Bumped when what the fixture writes changes.
const FORMAT: u32 = 1;
/// Addresses the P-Chain history spreads over (each sees ~2.75 × txs / this many txs).
pub const P_ADDRESSES: u64 = 1_000;
/// ERC-20 transfers per EVM block (one tx each).
pub const TRANSFERS_PER_BLOCK: u32 = 50;
const P_BATCH_BLOCKS: usize = 2_000;
const EVM_BATCH_BLOCKS: u64 = 200;

#[derive(Debug, Clone, Copy)]
pub struct Sizes {
    pub p_txs: u64,
    pub transfers: u64,
}

/// What a built fixture holds.
#[derive(Debug, Clone, Copy)]
pub struct Built {
    pub p_height: u64,
    pub evm_blocks: u64,
}

/// Opens a store with `FIRN_LOAD_READERS` reader connections (default: the store's default).
async fn open(location: &str) -> firn_store::Result<Store> {
    let mut options = firn_store::StoreOptions::default();
    if let Some(n) = std::env::var("FIRN_LOAD_READERS")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        options.max_connections = n;
    }
    Store::open_with(location, &options).await
}

fn format_tag() -> String {
    format!("f{FORMAT}")
}

fn size_tag(sizes: Sizes) -> String {
    format!("p{}_t{}", sizes.p_txs, sizes.transfers)
}

/// The target dir: `CARGO_TARGET_DIR`, else three levels above this bench binary
/// (`<target>/<profile>/deps/load-…`).
fn target_dir() -> PathBuf {
    if let Ok(d) = std::env::var("CARGO_TARGET_DIR") {
        return PathBuf::from(d);
    }
    let exe = std::env::current_exe().expect("bench path");
    exe.ancestors().nth(3).expect("target dir").to_path_buf()
}

/// Opens the SQLite load store, building it first unless a finished build of this format and
/// size exists.
pub async fn sqlite(sizes: Sizes) -> (Store, Built) {
    let root = target_dir().join("firn-load");
    let prefix = format!("sqlite-{}-", format_tag());
    let dir = root.join(format!("{prefix}{}", size_tag(sizes)));
    // Builds of an older format are dead weight: remove them.
    if let Ok(entries) = std::fs::read_dir(&root) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with("sqlite-") && !name.starts_with(&prefix) {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    }
    let db = dir.join("firn.db");
    let db = db.to_str().expect("utf-8 path");
    let store = match open(db).await {
        Ok(store) => store,
        Err(e) => {
            eprintln!("fixture: rebuilding {} ({e})", dir.display());
            std::fs::remove_dir_all(&dir).expect("removing the old SQLite load store");
            open(db).await.expect("opening the SQLite load store")
        }
    };
    let marker = dir.join("complete");
    let built = if marker.exists() {
        eprintln!("fixture: reusing {}", dir.display());
        extent(&store).await
    } else {
        eprintln!("fixture: filling {}", dir.display());
        let built = fill(&store, sizes).await;
        std::fs::write(&marker, "").expect("writing the fixture marker");
        built
    };
    (store, built)
}

/// Opens the PostgreSQL load store (database `firn_load_p…_t…` on the server of `admin_url`),
/// building it first unless its `firn_load_fixture` row says a fill of this format finished.
pub async fn postgres(admin_url: &str, sizes: Sizes) -> (Store, Built) {
    let base = admin_url
        .rsplit_once('/')
        .map(|(b, _)| b)
        .expect("a postgres URL with a database");
    let name = format!("firn_load_{}", size_tag(sizes));
    let url = format!("{base}/{name}");
    let mut admin = sqlx::PgConnection::connect(admin_url)
        .await
        .expect("connecting to PostgreSQL");
    let exists = sqlx::query("SELECT 1 FROM pg_database WHERE datname = $1")
        .bind(&name)
        .fetch_optional(&mut admin)
        .await
        .expect("listing databases")
        .is_some();
    let stored: Option<(String, bool)> = if exists {
        let mut c = sqlx::PgConnection::connect(&url).await.expect(&name);
        c.fetch_optional("SELECT key, complete FROM firn_load_fixture")
            .await
            .ok()
            .flatten()
            .map(|r| (r.get::<String, _>(0), r.get::<bool, _>(1)))
    } else {
        None
    };
    let same_format = stored.as_ref().is_some_and(|(k, _)| *k == format_tag());
    let opened = if same_format {
        open(&url).await.map_err(|e| e.to_string())
    } else {
        Err(format!("format {stored:?}, want {}", format_tag()))
    };
    let complete = stored.is_some_and(|(_, complete)| complete);
    let (store, complete) = match opened {
        Ok(store) => (store, complete),
        Err(why) => {
            if exists {
                eprintln!("fixture: dropping {name} ({why})");
                admin
                    .execute(format!("DROP DATABASE {name} WITH (FORCE)").as_str())
                    .await
                    .expect("dropping the old load database");
            }
            admin
                .execute(format!("CREATE DATABASE {name}").as_str())
                .await
                .expect("creating the load database");
            let store = open(&url).await.expect("opening the PostgreSQL load store");
            let mut c = sqlx::PgConnection::connect(&url).await.expect(&name);
            c.execute(
                "CREATE TABLE firn_load_fixture (key TEXT NOT NULL, complete BOOLEAN NOT NULL)",
            )
            .await
            .expect("fixture table");
            sqlx::query("INSERT INTO firn_load_fixture VALUES ($1, FALSE)")
                .bind(format_tag())
                .execute(&mut c)
                .await
                .expect("fixture key");
            (store, false)
        }
    };
    let built = if complete {
        eprintln!("fixture: reusing PostgreSQL {name}");
        extent(&store).await
    } else {
        eprintln!("fixture: filling PostgreSQL {name}");
        let built = fill(&store, sizes).await;
        let mut c = sqlx::PgConnection::connect(&url).await.expect(&name);
        // What autovacuum would reach on its own after a bulk load: planner statistics, and
        // the visibility map that lets index-only scans skip the heap.
        c.execute("VACUUM ANALYZE").await.expect("vacuum analyze");
        c.execute("UPDATE firn_load_fixture SET complete = TRUE")
            .await
            .expect("fixture done");
        built
    };
    (store, built)
}

async fn extent(store: &Store) -> Built {
    Built {
        p_height: store
            .find_cursor(ChainKey::PChain)
            .await
            .expect("cursor")
            .unwrap_or(0),
        evm_blocks: store
            .find_cursor(ChainKey::Evm(fixtures::CHAIN))
            .await
            .expect("cursor")
            .unwrap_or(0),
    }
}

/// Writes the history, skipping what an interrupted earlier build already committed.
async fn fill(store: &Store, sizes: Sizes) -> Built {
    let done = extent(store).await;
    let started = Instant::now();
    let mut p = fixtures::PHistory::new(7, P_ADDRESSES);
    let mut txs = 0u64;
    let mut batch = Vec::with_capacity(P_BATCH_BLOCKS);
    while txs < sizes.p_txs {
        let block = p.next_block();
        txs += block.txs.len() as u64;
        // The model's per-tx facts are not needed here; keep memory flat.
        p.facts.clear();
        if block.block.height > done.p_height {
            batch.push(block);
        }
        if batch.len() == P_BATCH_BLOCKS || (txs >= sizes.p_txs && !batch.is_empty()) {
            store
                .commit_pchain_blocks(&batch)
                .await
                .expect("committing P-Chain blocks");
            batch.clear();
            if p.height.is_multiple_of(P_BATCH_BLOCKS as u64 * 25) || txs >= sizes.p_txs {
                eprintln!(
                    "fixture: {txs} P-Chain txs, {} blocks, {:.0} s",
                    p.height,
                    started.elapsed().as_secs_f64()
                );
            }
        }
    }
    store
        .upsert_evm_chain(&fixtures::evm_chain(fixtures::CHAIN))
        .await
        .expect("registering the EVM chain");
    let evm_blocks = sizes.transfers.div_ceil(u64::from(TRANSFERS_PER_BLOCK));
    let evm_started = Instant::now();
    let mut number = done.evm_blocks;
    while number < evm_blocks {
        let n = (evm_blocks - number).min(EVM_BATCH_BLOCKS);
        let blocks: Vec<_> = (1..=n)
            .map(|i| {
                fixtures::erc20_block(
                    fixtures::CHAIN,
                    number + i,
                    1_700_000_000 + (number + i) * 2,
                    TRANSFERS_PER_BLOCK,
                )
            })
            .collect();
        store
            .commit_evm_blocks(&blocks)
            .await
            .expect("committing EVM blocks");
        number += n;
        if number.is_multiple_of(10_000) || number == evm_blocks {
            eprintln!(
                "fixture: {} ERC-20 transfers, {number} EVM blocks, {:.0} s",
                number * u64::from(TRANSFERS_PER_BLOCK),
                evm_started.elapsed().as_secs_f64()
            );
        }
    }
    extent(store).await
}
