//! The Looking Glass's composite query against the devnet's node: a native `LatestBalance`
//! finds exactly the addresses active on the chain whose `eth_getBalance` is at least the
//! minimum, paged to the end; `AND` with itself at a higher minimum narrows it.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use crate::devnet::{call, post_json};

/// Every address of a composite query's answer, page by page (lower-case hex).
fn all_addresses(metrics: &str, mut body: Value) -> (BTreeSet<String>, Value) {
    let mut found = BTreeSet::new();
    loop {
        let (status, page) = post_json(metrics, "/v2/lookingGlass/compositeQuery", &body);
        assert_eq!(status, 200, "{page}");
        for a in page["addresses"].as_array().unwrap() {
            assert!(
                found.insert(a.as_str().unwrap().to_lowercase()),
                "{a} twice"
            );
        }
        match page["nextPageToken"].as_str() {
            Some(t) => body["pageToken"] = json!(t),
            None => return (found, page),
        }
    }
}

/// `active` are the senders and recipients of every transaction of the chain at `path`.
pub fn native_holders_match_the_node(
    rpc: &str,
    metrics: &str,
    chain_id: u64,
    path: &str,
    active: &BTreeSet<String>,
) {
    let balance = |a: &str| {
        let raw = call(rpc, path, "eth_getBalance", json!([a, "latest"]));
        u128::from_str_radix(raw.as_str().unwrap().trim_start_matches("0x"), 16).unwrap()
    };
    let balances: Vec<(String, u128)> = active.iter().map(|a| (a.clone(), balance(a))).collect();
    let mut held: Vec<u128> = balances.iter().map(|b| b.1).filter(|b| *b > 0).collect();
    held.sort_unstable();
    assert!(
        held.len() >= 4,
        "{} addresses hold the native coin",
        held.len()
    );
    let (median, top) = (held[held.len() / 2], held[held.len() - 1]);
    let at_least = |min: u128| -> BTreeSet<String> {
        balances
            .iter()
            .filter(|(_, b)| *b >= min.max(1))
            .map(|(a, _)| a.clone())
            .collect()
    };
    let query = |id: &str, min: u128| {
        json!({ "id": id, "type": "LatestBalance", "params": {
            "minBalance": min.to_string(), "evmChainId": chain_id.to_string(), "tokenType": "NATIVE",
        }})
    };
    let (got, _) = all_addresses(
        metrics,
        json!({ "queries": [query("half", median)], "operator": "OR", "pageSize": 2 }),
    );
    assert_eq!(got, at_least(median), "chain {chain_id}: at least {median}");
    let (got, last) = all_addresses(
        metrics,
        json!({ "queries": [query("half", median), query("top", top)], "operator": "AND" }),
    );
    assert_eq!(got, at_least(top), "chain {chain_id}: AND at least {top}");
    assert_eq!(
        last["subQueryCounts"],
        json!({ "half": at_least(median).len(), "top": at_least(top).len() })
    );
}
