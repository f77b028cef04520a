//! Memory over a long backfill: `firn index`, its own process, backfills the C-Chain of a
//! `firn devnet` holding `FIRN_MEMORY_BLOCKS` blocks (default 1,000,000) into the embedded
//! store, with the page cache budget of `FIRN_MEMORY_STORE_CACHE_MIB` (default 64).
//!
//! The chain is made first, in rounds of `FIRN_MEMORY_ROUND` blocks (default 1,000): 100
//! native transfers to addresses never seen before (the devnet mines them as they come), then
//! `anvil_mine` up to the round's end. Then the indexer starts on a fresh store. Every second
//! this reads its cursor (a second read-only handle on the store) and its memory; at each
//! tenth of the chain it prints the blocks indexed, the rate over that tenth, the indexer's
//! resident and anonymous memory (heap and stacks: the page cache and the database's memory
//! map are the rest) and the store's size. Memory is flat when the anonymous figure stops
//! moving after the first tenths while blocks and store keep growing.
//!
//! `cargo bench -p firn --bench backfill_memory` (release build; ~10 minutes for a million
//! blocks). Not criterion: one sample is the whole run.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod support;

use std::time::{Duration, Instant};

use alloy_primitives::{Address, B256, U256};
use firn_store::CursorStore;
use firn_store::rows::ChainKey;
use serde_json::{Value, json};
use support::{Firn, Memory, Node, Sender, env_u64, funded_key, store_mib};

/// Transfers to fresh addresses in each round.
const TRANSFERS_PER_ROUND: u64 = 100;

/// Makes the chain: rounds of transfers, each round padded with empty blocks to `round`
/// blocks, until the chain holds `blocks`. Returns the head.
async fn make_chain(node: &Node, sender: &mut Sender, blocks: u64, round: u64) -> u64 {
    let started = Instant::now();
    let mut recipient = 0u64;
    let mut last = None;
    let mut height = node.height().await;
    while height < blocks {
        for _ in 0..TRANSFERS_PER_ROUND {
            recipient += 1;
            let to = Address::from_word(B256::from(U256::from(recipient) << 64));
            last = sender.send(Some(to), Vec::new(), 21_000).await.or(last);
        }
        if let Some(hash) = last {
            sender.receipt(hash).await;
        }
        height = node.height().await;
        let mut pad = (height / round + 1) * round - height;
        pad = pad.min(blocks.saturating_sub(height));
        while pad > 0 {
            let n = pad.min(10_000);
            node.client
                .call::<_, Value>("anvil_mine", json!([format!("{n:#x}")]))
                .await
                .expect("anvil_mine");
            pad -= n;
        }
        height = node.height().await;
    }
    println!(
        "made {height} blocks ({recipient} transfers) in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    height
}

fn main() {
    let blocks = env_u64("FIRN_MEMORY_BLOCKS", 1_000_000);
    let round = env_u64("FIRN_MEMORY_ROUND", 1_000).max(1);
    let cache = env_u64("FIRN_MEMORY_STORE_CACHE_MIB", 64).to_string();
    let chain_dir = tempfile::tempdir().unwrap();
    let store_dir = tempfile::tempdir().unwrap();
    let (devnet, banner) = Firn::spawn(
        &[
            "devnet",
            "--json",
            "--data-dir",
            chain_dir.path().to_str().unwrap(),
            "--rpc-addr",
            "127.0.0.1:0",
        ],
        &[""],
    );
    let banner: Value = serde_json::from_str(&banner[0]).expect("the devnet's --json banner");
    let chain_id = banner["chains"]["evmChainID"].as_u64().unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let node = Node::c_chain(&banner);
        let mut sender = Sender::new(node.clone(), funded_key(&banner, 0), chain_id).await;
        let head = make_chain(&node, &mut sender, blocks, round).await;

        let (indexer, _) = Firn::spawn(
            &[
                "index",
                "--rpc",
                banner["listening"].as_str().unwrap(),
                "--data-dir",
                store_dir.path().to_str().unwrap(),
                "--store-cache-mib",
                &cache,
            ],
            &[],
        );
        let database = store_dir.path().join("firn.db");
        while !database.exists() {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let store = firn_store::open(database.to_str().unwrap()).await.unwrap();
        println!(
            "firn index: C-Chain blocks 0..={head} into SQLite, store page caches {cache} MiB"
        );
        println!(
            "{:>9} {:>8} {:>9} {:>9} {:>10} {:>9}",
            "blocks", "t (s)", "blocks/s", "RSS MiB", "anon MiB", "store MiB"
        );
        let started = Instant::now();
        let tenth = (head / 10).max(1);
        let (mut next, mut last_mark) = (tenth, (0u64, Duration::ZERO));
        let mut peak = Memory {
            all: 0.0,
            anon: 0.0,
        };
        loop {
            tokio::time::sleep(Duration::from_secs(1)).await;
            let memory = indexer.memory();
            peak.all = peak.all.max(memory.all);
            peak.anon = peak.anon.max(memory.anon);
            let cursor = store
                .find_cursor(ChainKey::Evm(chain_id))
                .await
                .unwrap()
                .unwrap_or(0);
            if cursor < next && cursor < head {
                continue;
            }
            let elapsed = started.elapsed();
            let rate = (cursor - last_mark.0) as f64 / (elapsed - last_mark.1).as_secs_f64();
            println!(
                "{cursor:>9} {:>8.0} {rate:>9.0} {:>9.1} {:>10.1} {:>9.0}",
                elapsed.as_secs_f64(),
                memory.all,
                memory.anon,
                store_mib(store_dir.path())
            );
            last_mark = (cursor, elapsed);
            if cursor >= head {
                break;
            }
            next = (cursor / tenth + 1) * tenth;
        }
        println!(
            "peak: RSS {:.1} MiB, anonymous {:.1} MiB; {:.0} blocks/s over the whole backfill",
            peak.all,
            peak.anon,
            head as f64 / started.elapsed().as_secs_f64()
        );
        drop(indexer);
    });
    drop(devnet);
}
