//! The threshold sub-events, delivered by real dispatchers to a receiver on loopback:
//! `balance_threshold` against balances worked out from the generated UTXOs themselves, and
//! `l1_validator_balance_threshold` against the L1 validator balances the node reported. Each
//! crossing below fires once, across a restart of the dispatchers; a balance that stays below
//! fires nothing more, one that comes back and falls again fires again.

use std::collections::HashMap;
use std::time::Duration;

use axum::http::StatusCode;
use firn_core::ids::Id;
use firn_store::rows::pchain::{L1Observation, L1Validator, Owner, PChainBlockRows};
use firn_store::{CursorStore, PChainWriter, Store, WebhookStore};
use serde_json::{Value, json};

use crate::fixtures::{PHistory, avax, fuji, id, node, pblock, ptx, short};
use crate::harness::Api;
use crate::schema;
use crate::webhooks::{Receiver, dispatchers, fast_config, send};

/// Waits until webhook `id` has matched through the indexed P-Chain tip and delivered
/// everything it found.
async fn caught_up(store: &Store, id: &str) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let tip = store
            .find_cursor(firn_store::rows::ChainKey::PChain)
            .await
            .unwrap();
        let w = store.find_webhook("", id).await.unwrap().unwrap();
        let waiting = store.count_webhook_outbox(id).await.unwrap();
        if Some(w.matched_through) == tip && waiting == 0 {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "webhook {id} never caught up: through {} of {tip:?}, {waiting} waiting",
            w.matched_through
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// The watched address's AVAX after each block that touches it, from the generated rows:
/// the last touching transaction of the block and the balance.
fn balance_series(
    before: &[PChainBlockRows],
    after: &[PChainBlockRows],
    watched: firn_core::ids::ShortId,
) -> Vec<(Id, u64)> {
    let mut owned: HashMap<Id, u64> = HashMap::new();
    let mut series = Vec::new();
    for (i, block) in before.iter().chain(after).enumerate() {
        let mut last = None;
        for tx in &block.txs {
            let mut touched = false;
            for spent in &tx.consumed {
                touched |= owned.remove(spent).is_some();
            }
            for u in tx.emitted.iter().filter(|u| u.addresses.contains(&watched)) {
                owned.insert(u.utxo_id, u.amount);
                touched = true;
            }
            if touched {
                last = Some(tx.core.tx_hash);
            }
        }
        if let Some(hash) = last.filter(|_| i >= before.len()) {
            series.push((hash, owned.values().sum()));
        }
    }
    series
}

pub async fn balance_thresholds_fire_once_per_crossing(store: Store) {
    let mut history = PHistory::new(11, 4);
    let before: Vec<_> = (0..5).map(|_| history.next_block()).collect();
    store.commit_pchain_blocks(&before).await.unwrap();
    let after: Vec<_> = (0..80).map(|_| history.next_block()).collect();
    let watched = short(2);
    let series = balance_series(&before, &after, watched);
    // The threshold the history crosses most often, and each fall below it, once.
    let falls = |threshold: u64| {
        let mut below = false;
        let mut falls = Vec::new();
        for (hash, balance) in &series {
            if *balance < threshold && !below {
                falls.push((hash.to_string(), balance.to_string()));
            }
            below = *balance < threshold;
        }
        falls
    };
    let threshold = series
        .iter()
        .map(|s| s.1)
        .max_by_key(|t| falls(*t).len())
        .unwrap();
    let want = falls(threshold);
    assert!(
        want.len() >= 3,
        "the history crosses the threshold: {series:?}"
    );

    let mut config = fast_config();
    config.network.avax_asset_id = avax();
    let api = Api::with_config(store.clone(), config.clone());
    let receiver = Receiver::default();
    let url = receiver.start().await;
    let key = format!("P-{}", fuji(2));
    let body = json!({
        "eventType": "primary_network_address_activity", "url": url, "network": "fuji",
        "chainId": "p-chain",
        "metadata": {"keyType": "addresses", "keys": [key],
                     "subEvents": {"addressActivitySubEvents": ["balance_threshold"]},
                     "balanceThresholdFilter": {"balanceType": "unlocked", "balanceThreshold": threshold.to_string()}},
    });
    let created = send(&api, "POST", "/v1/webhooks", None, Some(&body)).await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.json);
    if let Some(doc) = schema::official() {
        schema::assert_valid(&doc, "post", "/v1/webhooks", &created.json);
    }
    assert_eq!(
        created.json["metadata"]["balanceThresholdFilter"]["balanceThreshold"],
        threshold.to_string()
    );
    let webhook = created.json["id"].as_str().unwrap().to_owned();
    receiver.trust(&api, None).await;

    // Half the blocks, the dispatchers stop (their state written), then the rest.
    let (half, rest) = after.split_at(after.len() / 2);
    store.commit_pchain_blocks(half).await.unwrap();
    let (stop, handles) = dispatchers(&store, &config);
    caught_up(&store, &webhook).await;
    drop(stop);
    for h in handles {
        h.await.unwrap();
    }
    store.commit_pchain_blocks(rest).await.unwrap();
    let _running = dispatchers(&store, &config);
    caught_up(&store, &webhook).await;

    let (events, bad) = receiver.with(|r| (r.events.clone(), r.bad_signatures));
    assert_eq!(bad, 0);
    let got: Vec<(String, String)> = events
        .iter()
        .map(|e| {
            let ev = &e["event"];
            assert_eq!(ev["subEvent"], "balance_threshold", "{e}");
            assert_eq!(ev["key"], key);
            assert_eq!(ev["threshold"]["balanceType"], "unlocked");
            assert_eq!(ev["threshold"]["balanceThreshold"], threshold.to_string());
            (
                ev["transaction"]["txHash"].as_str().unwrap().to_owned(),
                ev["threshold"]["balance"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(got, want, "each crossing once, across the restart");

    // The oracle agrees with the Data API's balance of the address.
    let last_ts = after.last().unwrap().block.timestamp;
    let balances = api
        .get(&format!(
            "/v1/networks/fuji/blockchains/p-chain/balances?addresses={}&blockTimestamp={last_ts}",
            fuji(2)
        ))
        .await
        .ok();
    let unlocked: u64 = ["unlockedUnstaked", "unlockedStaked"]
        .iter()
        .flat_map(|k| balances["balances"][k].as_array().unwrap().clone())
        .map(|a| a["amount"].as_str().unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(unlocked, series.last().unwrap().1);
}

pub async fn l1_balance_thresholds_fire_once_per_crossing(store: Store) {
    let subnet = id(0x51, 1);
    let validation = id(0x68, 9);
    let owner = Owner {
        locktime: 0,
        threshold: 1,
        addresses: vec![short(1)],
    };
    let mut register = ptx(id(4, 9_001), "RegisterL1ValidatorTx");
    register.core.subnet_id = Some(subnet);
    register.core.node_id = Some(node(5));
    register.l1_validation_ids = vec![validation];
    register.l1_validators = vec![L1Validator {
        validation_id: validation,
        subnet_id: subnet,
        node_id: node(5),
        weight: 10,
        balance: 1_000,
        bls_public_key: vec![0xb1; 48],
        active: true,
        remaining_balance_owner: owner.clone(),
        deactivation_owner: owner,
    }];
    let ts = 1_700_000_000;
    store
        .commit_pchain_blocks(&[pblock(1, ts, vec![register])])
        .await
        .unwrap();

    let config = fast_config();
    let api = Api::with_config(store.clone(), config.clone());
    let receiver = Receiver::default();
    let url = receiver.start().await;
    let body = json!({
        "eventType": "validator_activity", "url": url, "network": "fuji",
        "metadata": {"keyType": "subnetId", "keys": [subnet.to_string()],
                     "subEvents": {"validatorActivitySubEvents": ["l1_validator_balance_threshold"]},
                     "l1ValidatorFeeBalanceThreshold": "500"},
    });
    let created = send(&api, "POST", "/v1/webhooks", None, Some(&body)).await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.json);
    let webhook = created.json["id"].as_str().unwrap().to_owned();
    receiver.trust(&api, None).await;
    let _running = dispatchers(&store, &config);

    // The node's readings, one block each: down past 500, further down, topped up, down again.
    for (height, balance) in (2..).zip([900, 400, 300, 800, 200, 100]) {
        store
            .record_l1_observations(&[L1Observation {
                validation_id: validation,
                balance,
                height,
                observed_at: ts + height,
            }])
            .await
            .unwrap();
        store
            .commit_pchain_blocks(&[pblock(height, ts + height, Vec::new())])
            .await
            .unwrap();
        caught_up(&store, &webhook).await;
    }
    let events: Vec<Value> = receiver.with(|r| r.events.clone());
    let got: Vec<&str> = events
        .iter()
        .map(|e| e["event"]["threshold"]["balance"].as_str().unwrap())
        .collect();
    assert_eq!(got, ["400", "200"], "{events:?}");
    for e in &events {
        let ev = &e["event"];
        assert_eq!(e["eventType"], "validator_activity");
        assert_eq!(ev["subEvent"], "l1_validator_balance_threshold");
        assert_eq!(ev["key"], subnet.to_string());
        assert_eq!(ev["l1Validator"]["validationId"], validation.to_string());
        assert_eq!(
            ev["l1Validator"]["remainingBalance"].to_string(),
            ev["threshold"]["balance"].as_str().unwrap()
        );
        assert_eq!(ev["threshold"]["balanceThreshold"], "500");
        assert!(ev.get("transaction").is_none());
    }
    assert_ne!(events[0]["messageId"], events[1]["messageId"]);
}
