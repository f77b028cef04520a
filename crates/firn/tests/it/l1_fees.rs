//! The L1 validator fees the indexer replays, checked against the devnet's node: what each
//! validation paid (the Metrics API's cumulative series) is what was deposited into it less
//! the balance the node says it has left; the active validators of the last indexed block are
//! those the node charges; the network-wide total is the sum of the validations'.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::devnet::call;
use crate::up::{get_json, wait_for};

/// Every item of `field` over the pages of `first` (which holds a `?`).
fn all_items(first: &str, field: &str) -> Vec<Value> {
    let mut items = Vec::new();
    let mut url = first.to_owned();
    loop {
        let page = get_json(&url).unwrap_or_else(|| panic!("GET {url}"));
        items.extend(page[field].as_array().unwrap().iter().cloned());
        match page["nextPageToken"].as_str() {
            Some(t) => url = format!("{first}&pageToken={t}"),
            None => return items,
        }
    }
}

fn u64_of(v: &Value) -> u64 {
    v.as_u64()
        .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
        .unwrap_or_else(|| panic!("not an amount: {v}"))
}

/// The newest value of a Metrics API series (0 when it has none).
fn newest(url: &str) -> u64 {
    let series = get_json(url).unwrap_or_else(|| panic!("GET {url}"));
    series["results"][0]["value"].as_f64().unwrap_or(0.0) as u64
}

/// Returns what every L1 validator paid, nAVAX.
pub fn l1_fees_match_the_node(rpc: &str, api: &str, metrics: &str) -> u64 {
    let net = format!("{api}/v1/networks/fuji");
    // Indexed up to the node's P-Chain height.
    let height = u64_of(&call(rpc, "/ext/bc/P", "platform.getHeight", json!({}))["height"]);
    let last = wait_for(|| {
        let b = get_json(&format!("{net}/blockchains/p-chain/blocks?pageSize=1"))?;
        let block = b["blocks"][0].clone();
        (u64_of(&block["blockNumber"]) == height).then_some(block)
    });
    let validators = all_items(
        &format!("{net}/l1Validators?includeInactiveL1Validators=true&pageSize=4"),
        "validators",
    );
    assert!(validators.len() >= 3, "{} L1 validators", validators.len());
    // The node's balances, for the validators it still has.
    let mut left = BTreeMap::new();
    let mut subnets: Vec<&str> = validators
        .iter()
        .map(|v| v["subnetId"].as_str().unwrap())
        .collect();
    subnets.dedup();
    for subnet in subnets {
        let current = call(
            rpc,
            "/ext/bc/P",
            "platform.getCurrentValidators",
            json!({ "subnetID": subnet }),
        );
        for v in current["validators"].as_array().unwrap() {
            if let Some(id) = v["validationID"].as_str() {
                left.insert(id.to_owned(), u64_of(&v["balance"]));
            }
        }
    }
    let active = left.values().filter(|b| **b > 0).count() as u64;
    assert_eq!(
        last["activeL1Validators"], active,
        "active L1 validators at the last block"
    );
    assert!(u64_of(&last["l1ValidatorsAccruedFees"]) > 0, "{last}");

    let (mut total, mut exact, mut paying) = (0, 0, 0);
    for v in &validators {
        let id = v["validationId"].as_str().unwrap();
        let txs = all_items(
            &format!("{net}/blockchains/p-chain/transactions?l1ValidationId={id}&pageSize=10"),
            "transactions",
        );
        let deposits: u64 = txs
            .iter()
            .flat_map(|t| {
                t["l1ValidatorDetails"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default()
            })
            .filter(|d| d["validationId"] == id)
            .filter_map(|d| d.get("balanceChange").map(u64_of))
            .sum();
        let refunded = txs.iter().any(|t| {
            t["txType"] == "DisableL1ValidatorTx"
                || (t["txType"] == "SetL1ValidatorWeightTx"
                    && t["l1ValidatorDetails"][0]["weight"] == json!(0))
        });
        let paid = newest(&format!(
            "{metrics}/v2/validation/{id}/metrics/validationCumulativeFeesDaily"
        ));
        total += paid;
        paying += u64::from(paid > 0);
        assert!(paid <= deposits, "{id} paid {paid} of {deposits} deposited");
        // Not disabled nor removed: what it paid is all it does not have left.
        if !refunded && let Some(balance) = left.get(id) {
            assert_eq!(paid, deposits - balance, "{id}: fees paid");
            exact += 1;
        }
    }
    assert!(
        exact >= 2 && paying >= 2,
        "{exact} checked, {paying} paying"
    );
    assert_eq!(
        newest(&format!(
            "{metrics}/v2/validators/metrics/totalCumulativeFeesDaily"
        )),
        total,
        "the network's fees are the validations'"
    );
    total
}
