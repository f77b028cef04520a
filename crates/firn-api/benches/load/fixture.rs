//! The load store, built once per backend and reused: P-Chain transfer history and ERC-20
//! traffic written through the store's public commit APIs in large batches.
//!
//! A store is keyed by the fixture format and a hash of the backend's migrations, so a schema
//! change rebuilds it and nothing else does. SQLite lives under the target dir
//! (`firn-load/sqlite-<key>/`, its `complete` file names the sizes of the last finished fill);
//! PostgreSQL in its own database (`firn_load`), whose `firn_load_fixture` row holds the key
//! and sizes. The history is deterministic and commits skip blocks at or below the stored
//! cursors, so an interrupted build resumes and a larger size extends the store.

use std::path::{Path, PathBuf};
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
const EVM_BATCH_BLOCKS: u64 = 40;

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

fn migrations_hash(backend: &str) -> u64 {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../firn-store/migrations")
        .join(backend);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("reading the store's migrations")
        .map(|e| e.expect("migration entry").path())
        .collect();
    files.sort();
    // FNV-1a over names and contents.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for f in files {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read(&f).expect("reading a migration");
        for b in name.bytes().chain(text) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

fn key(backend: &str) -> String {
    format!("f{FORMAT}-{:016x}", migrations_hash(backend))
}

fn size_text(sizes: Sizes) -> String {
    format!("p{} t{}", sizes.p_txs, sizes.transfers)
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

/// Opens the SQLite load store, building it first when no finished build has this key.
pub async fn sqlite(sizes: Sizes) -> (Store, Built) {
    let key = key("sqlite");
    let root = target_dir().join("firn-load");
    let dir = root.join(format!("sqlite-{key}"));
    // Older builds are dead weight: remove them.
    if let Ok(entries) = std::fs::read_dir(&root) {
        for e in entries.flatten() {
            if e.path() != dir && e.file_name().to_string_lossy().starts_with("sqlite-") {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    }
    let db = dir.join("firn.db");
    let store = firn_store::open(db.to_str().expect("utf-8 path"))
        .await
        .expect("opening the SQLite load store");
    let marker = dir.join("complete");
    let done = std::fs::read_to_string(&marker).unwrap_or_default();
    let built = if done == size_text(sizes) {
        eprintln!("fixture: reusing {} ({done})", dir.display());
        extent(&store).await
    } else {
        eprintln!("fixture: filling {} to {}", dir.display(), size_text(sizes));
        let built = fill(&store, sizes).await;
        std::fs::write(&marker, size_text(sizes)).expect("writing the fixture marker");
        built
    };
    (store, built)
}

/// Opens the PostgreSQL load store (database `firn_load` on the server of `admin_url`),
/// building it first unless its `firn_load_fixture` row holds this key, marked complete.
pub async fn postgres(admin_url: &str, sizes: Sizes) -> (Store, Built) {
    let key = key("postgres");
    let base = admin_url
        .rsplit_once('/')
        .map(|(b, _)| b)
        .expect("a postgres URL with a database");
    let url = format!("{base}/firn_load");
    let mut admin = sqlx::PgConnection::connect(admin_url)
        .await
        .expect("connecting to PostgreSQL");
    let exists = admin
        .fetch_optional("SELECT 1 FROM pg_database WHERE datname = 'firn_load'")
        .await
        .expect("listing databases")
        .is_some();
    let stored: Option<(String, String)> = if exists {
        let mut c = sqlx::PgConnection::connect(&url).await.expect("firn_load");
        let row = c
            .fetch_optional("SELECT key, sizes FROM firn_load_fixture")
            .await
            .ok()
            .flatten();
        row.map(|r| (r.get::<String, _>(0), r.get::<String, _>(1)))
    } else {
        None
    };
    let same = stored.as_ref().is_some_and(|(k, _)| *k == key);
    if exists && !same {
        eprintln!("fixture: dropping firn_load (key {stored:?}, want {key})");
        admin
            .execute("DROP DATABASE firn_load WITH (FORCE)")
            .await
            .expect("dropping firn_load");
    }
    if !exists || !same {
        admin
            .execute("CREATE DATABASE firn_load")
            .await
            .expect("creating firn_load");
    }
    let store = firn_store::open(&url)
        .await
        .expect("opening the PostgreSQL load store");
    let mut c = sqlx::PgConnection::connect(&url).await.expect("firn_load");
    let built = if stored
        .as_ref()
        .is_some_and(|(k, done)| *k == key && *done == size_text(sizes))
    {
        eprintln!(
            "fixture: reusing PostgreSQL firn_load ({})",
            size_text(sizes)
        );
        extent(&store).await
    } else {
        eprintln!(
            "fixture: filling PostgreSQL firn_load to {}",
            size_text(sizes)
        );
        c.execute(
            "CREATE TABLE IF NOT EXISTS firn_load_fixture (key TEXT NOT NULL, sizes TEXT NOT NULL)",
        )
        .await
        .expect("fixture table");
        c.execute("DELETE FROM firn_load_fixture")
            .await
            .expect("reset");
        sqlx::query("INSERT INTO firn_load_fixture VALUES ($1, '')")
            .bind(key.clone())
            .execute(&mut c)
            .await
            .expect("fixture key");
        let built = fill(&store, sizes).await;
        c.execute("ANALYZE").await.expect("analyze");
        sqlx::query("UPDATE firn_load_fixture SET sizes = $1")
            .bind(size_text(sizes))
            .execute(&mut c)
            .await
            .expect("fixture sizes");
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
        if number % (EVM_BATCH_BLOCKS * 250) == 0 || number == evm_blocks {
            eprintln!(
                "fixture: {} ERC-20 transfers, {number} EVM blocks, {:.0} s",
                number * u64::from(TRANSFERS_PER_BLOCK),
                evm_started.elapsed().as_secs_f64()
            );
        }
    }
    extent(store).await
}
