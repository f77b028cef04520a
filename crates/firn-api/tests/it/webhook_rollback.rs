//! A chain the indexer rolls back under a webhook: the blocks that replace the undone ones are
//! matched and delivered, each of their transactions once.

use std::collections::{BTreeSet, HashSet};

use axum::http::StatusCode;
use firn_store::rows::evm::EvmBlockRows;
use firn_store::{EvmWriter, Store};
use serde_json::Value;

use crate::fixtures::{CHAIN, EvmHistory, activity_of, b256, evm_address, evm_chain};
use crate::harness::Api;
use crate::webhooks::{Receiver, create_body, dispatchers, fast_config, send, wait_for};

/// The hashes of the transactions of `blocks` that touch any of `watched`.
fn watched_hashes(blocks: &[EvmBlockRows], watched: &[firn_store::types::Address]) -> Vec<String> {
    let mut positions = BTreeSet::new();
    for a in watched {
        positions.extend(activity_of(blocks, *a));
    }
    positions
        .into_iter()
        .map(|(number, index)| {
            let block = blocks.iter().find(|b| b.block.number == number).unwrap();
            let tx = block.txs.iter().find(|t| t.index == index).unwrap();
            format!("{:#x}", tx.hash)
        })
        .collect()
}

fn received(receiver: &Receiver) -> Vec<Value> {
    receiver.with(|r| r.events.clone())
}

fn hashes(events: &[Value]) -> HashSet<String> {
    events
        .iter()
        .map(|e| {
            e["event"]["transaction"]["txHash"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

pub async fn a_rolled_back_chain_is_matched_again(store: Store) {
    store.upsert_evm_chain(&evm_chain(CHAIN)).await.unwrap();
    let mut a = EvmHistory::new(8, CHAIN, 6);
    let mut b = EvmHistory::new(8, CHAIN, 6);
    let base: Vec<_> = (0..5).map(|_| a.next_block()).collect();
    store.commit_evm_blocks(&base).await.unwrap();

    let receiver = Receiver::default();
    let url = receiver.start().await;
    let config = fast_config();
    let api = Api::with_config(store.clone(), config.clone());
    let watched = [evm_address(2), evm_address(4)];
    let created = send(
        &api,
        "POST",
        "/v1/webhooks",
        None,
        Some(&create_body(&url, &watched)),
    )
    .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.json);
    receiver.trust(&api, None).await;
    let _running = dispatchers(&store, &config);

    let blocks_a: Vec<_> = (0..20).map(|_| a.next_block()).collect();
    for part in blocks_a.chunks(5) {
        store.commit_evm_blocks(part).await.unwrap();
    }
    let want_a = watched_hashes(&blocks_a, &watched);
    assert!(
        want_a.len() > 5,
        "the history moves the watched addresses' funds"
    );
    wait_for("history A's events", || {
        hashes(&received(&receiver)).len() >= want_a.len()
    })
    .await;

    // The indexer undoes the last blocks; the chain goes on from there with other ones.
    let cursor = store.rollback_evm_chain(CHAIN, 15).await.unwrap().unwrap();
    assert_eq!(cursor, 15, "whole commits of five blocks go");
    for _ in 0..cursor {
        b.next_block();
    }
    b.reseed(99);
    b.skip(86_400);
    let blocks_b: Vec<_> = (0..12)
        .map(|_| {
            let mut block = b.next_block();
            // Other blocks, other transactions: other hashes.
            let n = block.block.number;
            block.block.hash = b256(5, n);
            for tx in &mut block.txs {
                tx.hash = b256(6, n * 1_000 + u64::from(tx.index));
            }
            block
        })
        .collect();
    store.commit_evm_blocks(&blocks_b).await.unwrap();
    let want_b = watched_hashes(&blocks_b, &watched);
    assert!(
        !want_b.is_empty(),
        "the new blocks move the watched addresses' funds"
    );
    wait_for("the new blocks' events", || {
        let got = hashes(&received(&receiver));
        want_b.iter().all(|h| got.contains(h))
    })
    .await;

    let events = received(&receiver);
    let ids: HashSet<&str> = events
        .iter()
        .map(|e| e["messageId"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), events.len(), "each event once");
    let known: HashSet<&String> = want_a.iter().chain(&want_b).collect();
    for h in hashes(&events) {
        assert!(
            known.contains(&h),
            "{h} is a watched transaction of either history"
        );
    }
}
