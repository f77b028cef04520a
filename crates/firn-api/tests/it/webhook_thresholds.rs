//! The threshold sub-events, delivered by real dispatchers to a receiver on loopback:
//! `balance_threshold` against balances worked out from the generated UTXOs themselves, and
//! `l1_validator_balance_threshold` against the L1 validator balances the node reported. Each
//! crossing below fires once, across a restart of the dispatchers; a balance that stays below
//! fires nothing more, one that comes back and falls again fires again.

use std::collections::HashMap;
use std::time::Duration;

use axum::http::StatusCode;
use firn_core::ids::{Id, ShortId};
use firn_core::network::{FUJI, P_CHAIN_ID};
use firn_store::rows::atomic::AtomicUtxo;
use firn_store::rows::pchain::{L1Observation, L1Validator, Owner, PChainBlockRows, PTx};
use firn_store::rows::xchain::XTx;
use firn_store::{CursorStore, PChainWriter, Store, WebhookStore, XChainWriter};
use serde_json::{Value, json};

use crate::fixtures::{
    PHistory, X_T as T, avax, fuji, id, node, pblock, ptx, short, utxo, x_block, x_tx,
};
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

/// A webhook watching `key`'s `balance_type` fall below `threshold`, delivered to `url`.
fn address_threshold(url: &str, key: &str, balance_type: &str, threshold: u64) -> Value {
    json!({
        "eventType": "primary_network_address_activity", "url": url, "network": "fuji",
        "chainId": "p-chain",
        "metadata": {"keyType": "addresses", "keys": [key],
                     "subEvents": {"addressActivitySubEvents": ["balance_threshold"]},
                     "balanceThresholdFilter": {"balanceType": balance_type,
                                                "balanceThreshold": threshold.to_string()}},
    })
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
    let body = address_threshold(&url, &key, "unlocked", threshold);
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

/// An X-Chain ExportTx of `amount` to `owner` on the P-Chain, and the UTXO it exported.
fn x_export_to_p(tx_id: Id, owner: ShortId, amount: u64) -> (XTx, AtomicUtxo) {
    let exported = AtomicUtxo {
        utxo_id: tx_id.prefix(0),
        tx_id,
        output_index: 0,
        source_chain: FUJI.x_chain_id,
        destination_chain: P_CHAIN_ID,
        asset_id: avax(),
        amount,
        threshold: 1,
        locktime: 0,
        addresses: vec![owner],
    };
    let mut tx = x_tx(tx_id, "ExportTx", vec![], vec![]);
    tx.destination_chain = Some(P_CHAIN_ID);
    tx.exported = vec![exported.clone()];
    (tx, exported)
}

/// The P-Chain's ImportTx of `exported`, paying `owner` what is left after a fee.
fn p_import(hash: Id, exported: &AtomicUtxo, owner: ShortId) -> PTx {
    let mut imported = utxo(exported.tx_id, 0, owner, exported.amount);
    imported.utxo_id = exported.utxo_id;
    imported.created_on_chain = FUJI.x_chain_id;
    let mut tx = ptx(hash, "ImportTx");
    tx.core.source_chain = Some(FUJI.x_chain_id);
    tx.consumed = vec![imported.utxo_id];
    tx.imported = vec![imported];
    tx.emitted = vec![utxo(hash, 0, owner, exported.amount - 1)];
    tx.addresses = vec![owner];
    tx
}

/// `atomicMemoryUnlocked` thresholds: the X-Chain's exports fill the address's atomic memory
/// on the P-Chain without a P-Chain tx, its imports empty it. Each import that empties it
/// fires, the second too (a rise between two P-Chain txs is not missed); a later tx while
/// it stays empty fires nothing.
pub async fn atomic_memory_thresholds_fire_once_per_crossing(store: Store) {
    let (watched, other) = (short(2), short(7));
    let (first, first_utxo) = x_export_to_p(id(0x3e, 1), watched, 50);
    let (second, second_utxo) = x_export_to_p(id(0x3e, 2), watched, 40);
    let x_blocks = [
        x_block(0, vec![]),
        x_block(1, vec![first]),
        x_block(2, vec![]),
        x_block(3, vec![second]),
    ];
    store.commit_xchain_blocks(&x_blocks).await.unwrap();
    let pay = |hash: Id, to: ShortId| {
        let mut tx = ptx(hash, "BaseTx");
        tx.emitted = vec![utxo(hash, 0, to, 5)];
        tx.addresses = vec![to];
        tx
    };
    store
        .commit_pchain_blocks(&[pblock(1, T + 1, vec![pay(id(0x3f, 1), other)])])
        .await
        .unwrap();

    let mut config = fast_config();
    config.network.avax_asset_id = avax();
    let api = Api::with_config(store.clone(), config.clone());
    let receiver = Receiver::default();
    let url = receiver.start().await;
    let key = format!("P-{}", fuji(2));
    let body = address_threshold(&url, &key, "atomicMemoryUnlocked", 30);
    let created = send(&api, "POST", "/v1/webhooks", None, Some(&body)).await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.json);
    let webhook = created.json["id"].as_str().unwrap().to_owned();
    receiver.trust(&api, None).await;

    let (import_first, import_second) = (id(0x3f, 3), id(0x3f, 4));
    store
        .commit_pchain_blocks(&[
            // 50 held: above the threshold.
            pblock(2, T + 15, vec![pay(id(0x3f, 2), watched)]),
            // Imported: 0 held, below.
            pblock(
                3,
                T + 25,
                vec![p_import(import_first, &first_utxo, watched)],
            ),
            // The X-Chain exported 40 at T + 30; imported at T + 35.
            pblock(
                4,
                T + 35,
                vec![p_import(import_second, &second_utxo, watched)],
            ),
            // Still nothing held: no second event for the same fall.
            pblock(5, T + 45, vec![pay(id(0x3f, 5), watched)]),
        ])
        .await
        .unwrap();
    let _running = dispatchers(&store, &config);
    caught_up(&store, &webhook).await;

    let events = receiver.with(|r| r.events.clone());
    let got: Vec<(String, String, String)> = events
        .iter()
        .map(|e| {
            let ev = &e["event"];
            assert_eq!(ev["subEvent"], "balance_threshold", "{e}");
            assert_eq!(ev["key"], key);
            (
                ev["transaction"]["txHash"].as_str().unwrap().to_owned(),
                ev["threshold"]["balanceType"].as_str().unwrap().to_owned(),
                ev["threshold"]["balance"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let fell = |hash: Id| {
        (
            hash.to_string(),
            "atomicMemoryUnlocked".to_owned(),
            "0".to_owned(),
        )
    };
    assert_eq!(got, [fell(import_first), fell(import_second)]);

    // The Data API's balance agrees: the memory held between the two crossings.
    let held = api
        .get(&format!(
            "/v1/networks/fuji/blockchains/p-chain/balances?addresses={}&blockTimestamp={}",
            fuji(2),
            T + 30
        ))
        .await
        .ok();
    let amounts: Vec<&str> = held["balances"]["atomicMemoryUnlocked"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["amount"].as_str().unwrap())
        .collect();
    assert_eq!(amounts, ["40"]);
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
