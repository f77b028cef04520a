//! `avm.*` and `avax.*` declarations against AvalancheGo's own examples and Go structs: every
//! documented call's params decode with Go's rules and write back what was sent (numbers as
//! Go's decimal strings, absent fields as zero values), and every documented reply reads and
//! writes back byte for byte, so in Go's key order.
//!
//! The avm examples are `tests/data/avm-service-md.json`, extracted from AvalancheGo's
//! `vms/avm/service.md` at 1cf1fc3d1711a09fde7319d2b48609c8cba93680. coreth's `service.md`
//! (`graft/coreth/plugin/evm/service.md`, same commit) documents `avax.*` calls but no
//! replies, so the `avax.*` replies below are written from `graft/coreth/plugin/evm/atomic/vm/api.go`
//! and `graft/coreth/plugin/evm/client/client.go` there.

use std::collections::BTreeSet;

use firn_rpc::methods::{Method, avax, avm};
use firn_rpc::params;
use serde_json::{Value, json};

const AVM_EXAMPLES: &str = include_str!("../data/avm-service-md.json");

/// Whether a value firn wrote is the one the example sent, allowing for a number sent where Go
/// writes a `json.Uint64`/`json.Uint32` string.
fn same_as_sent(written: &Value, sent: &Value) -> bool {
    match (written, sent) {
        (Value::String(w), Value::Number(n)) => *w == n.to_string(),
        (Value::Object(w), Value::Object(s)) => {
            w.len() == s.len()
                && w.iter()
                    .all(|(k, v)| s.get(k).is_some_and(|sv| same_as_sent(v, sv)))
        }
        _ => written == sent,
    }
}

/// Decodes `sent` as `M`'s params with Go's rules and checks what it writes back: every key
/// sent, and every other field at its zero value.
fn check_params<M: Method>(sent: &Value)
where
    M::Params: Default,
{
    let decoded: M::Params = params::from_value(sent.clone())
        .unwrap_or_else(|e| panic!("{}: params {sent} do not decode: {e}", M::NAME));
    let written = serde_json::to_value(&decoded).unwrap();
    let zero = serde_json::to_value(M::Params::default()).unwrap();
    let (Value::Object(written), Value::Object(sent)) = (&written, sent) else {
        panic!("{}: params are not objects", M::NAME);
    };
    for key in sent.keys() {
        assert!(written.contains_key(key), "{}: {key} is dropped", M::NAME);
    }
    for (key, value) in written {
        match sent.get(key) {
            Some(s) => assert!(same_as_sent(value, s), "{}: {key}: {value} != {s}", M::NAME),
            None => assert_eq!(value, &zero[key], "{}: {key} is not zero", M::NAME),
        }
    }
}

/// Reads `result` as `M`'s reply and writes it back: same values, same key order.
fn check_reply<M: Method>(result: &Value) {
    let reply: M::Reply = serde_json::from_value(result.clone())
        .unwrap_or_else(|e| panic!("{}: reply {result} does not decode: {e}", M::NAME));
    assert_eq!(
        serde_json::to_string(&reply).unwrap(),
        serde_json::to_string(result).unwrap(),
        "{}",
        M::NAME
    );
}

fn check_example<M: Method>(example: &Value) -> &'static str
where
    M::Params: Default,
{
    // `avm.getTxFee`'s example sends no params at all; Go reads that as the zero value.
    let sent = match &example["params"] {
        Value::Null => json!({}),
        p => p.clone(),
    };
    check_params::<M>(&sent);
    check_reply::<M>(&example["result"]);
    M::NAME
}

#[test]
fn avm_service_md_examples_round_trip() {
    let doc: Value = serde_json::from_str(AVM_EXAMPLES).unwrap();
    let mut covered = BTreeSet::new();
    for example in doc["examples"].as_array().unwrap() {
        let name = match example["method"].as_str().unwrap() {
            "avm.getAllBalances" => check_example::<avm::GetAllBalances>(example),
            "avm.getAssetDescription" => check_example::<avm::GetAssetDescription>(example),
            "avm.getBalance" => check_example::<avm::GetBalance>(example),
            "avm.getBlock" => check_example::<avm::GetBlock>(example),
            "avm.getBlockByHeight" => check_example::<avm::GetBlockByHeight>(example),
            "avm.getHeight" => check_example::<avm::GetHeight>(example),
            "avm.getTx" => check_example::<avm::GetTx>(example),
            "avm.getTxFee" => check_example::<avm::GetTxFee>(example),
            "avm.getTxStatus" => check_example::<avm::GetTxStatus>(example),
            "avm.getUTXOs" => check_example::<avm::GetUtxos>(example),
            "avm.issueTx" => {
                check_params::<avm::IssueTx>(&example["params"]);
                // The documented txID is 66 cb58 characters, too long for a 32-byte ID with
                // its checksum: a made-up value, which an ID-typed reply rightly refuses.
                let bad = serde_json::from_value::<avm::TxIdReply>(example["result"].clone());
                assert!(bad.is_err());
                check_reply::<avm::IssueTx>(
                    &json!({"txID": "2QouvFWUbjuySRxeX5xMbNCuAaKWfbk5FeEa2JmoF85RKLk2dD"}),
                );
                avm::IssueTx::NAME
            }
            // The wallet service is not the X-Chain's `avm` API.
            "wallet.issueTx" => continue,
            other => panic!("an example of an undeclared method: {other}"),
        };
        covered.insert(name);
    }
    assert_eq!(covered.len(), 11, "{covered:?}");
}

#[test]
fn avm_get_tx_json_keeps_avalanchego_json_as_is() {
    let doc: Value = serde_json::from_str(AVM_EXAMPLES).unwrap();
    let example = doc["examples"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["method"] == "avm.getTx")
        .unwrap();
    let reply: avm::TxReply = serde_json::from_value(example["result"].clone()).unwrap();
    assert_eq!(reply.encoding, "json");
    let avm::Encoded::Json(tx) = &reply.tx else {
        panic!("a JSON tx read as text");
    };
    assert_eq!(tx["unsignedTx"]["networkID"], 1);
}

#[test]
fn avm_params_decode_with_go_rules() {
    // Absent fields take Go's zero values.
    let p: avm::GetBalanceParams = params::from_value(json!({})).unwrap();
    assert_eq!(p, avm::GetBalanceParams::default());
    let p: avm::GetUtxosParams = params::from_value(json!({"addresses": ["X-a"]})).unwrap();
    assert_eq!(
        (p.limit, p.source_chain.as_str(), p.encoding),
        (0, "", None)
    );
    let p: avm::TxIdParams = params::from_value(json!({"txID": null})).unwrap();
    assert_eq!(p, avm::TxIdParams::default());
    // Keys match case-insensitively, as `encoding/json` matches them.
    let p: avm::GetBalanceParams =
        params::from_value(json!({"ADDRESS": "X-a", "assetid": "AVAX", "IncludePartial": true}))
            .unwrap();
    assert_eq!(
        (p.address.as_str(), p.asset_id.as_str(), p.include_partial),
        ("X-a", "AVAX", true)
    );
    let p: avm::GetAllBalancesParams =
        params::from_value(json!({"address": "X-a", "includePartial": true})).unwrap();
    assert!(p.include_partial);
    // A Go `json.Uint64` height reads from a number or a decimal string.
    let p: avm::GetBlockByHeightParams = params::from_value(json!({"height": 5})).unwrap();
    assert_eq!(p.height, 5);
}

#[test]
fn avm_replies_write_go_shapes() {
    let d = avm::AssetDescriptionReply {
        asset_id: "FvwEAhmxKfeiG8SnEvq42hc6whRyY3EFYAvebMqDNDGCgxN5Z"
            .parse()
            .unwrap(),
        name: "Avalanche".into(),
        symbol: "AVAX".into(),
        denomination: 9,
    };
    assert_eq!(
        serde_json::to_string(&d).unwrap(),
        r#"{"assetID":"FvwEAhmxKfeiG8SnEvq42hc6whRyY3EFYAvebMqDNDGCgxN5Z","name":"Avalanche","symbol":"AVAX","denomination":"9"}"#
    );
    // No UTXOs counted is `[]`, not `null`: AvalancheGo always makes the list.
    assert_eq!(
        serde_json::to_string(&avm::BalanceReply::default()).unwrap(),
        r#"{"balance":"0","utxoIDs":[]}"#
    );
    let rejected: avm::TxStatusReply = serde_json::from_str(r#"{"status":"Rejected"}"#).unwrap();
    assert_eq!(rejected.status, avm::TxStatus::Rejected);
}

#[test]
fn avax_params_from_coreth_service_md_decode() {
    // `graft/coreth/plugin/evm/service.md` at 1cf1fc3d1711a09fde7319d2b48609c8cba93680 (its
    // `txID` examples are elided, `2QouvNW...`, so only these two are usable).
    check_params::<avax::GetUtxos>(&json!({
        "addresses": ["X-avax1..."],
        "sourceChain": "X",
        "limit": 100,
        "encoding": "hex"
    }));
    check_params::<avax::IssueTx>(&json!({"tx": "0x...", "encoding": "hex"}));
    let id = "2QouvFWUbjuySRxeX5xMbNCuAaKWfbk5FeEa2JmoF85RKLk2dD";
    check_params::<avax::GetAtomicTx>(&json!({"txID": id, "encoding": "hex"}));
    check_params::<avax::GetAtomicTxStatus>(&json!({"txID": id}));
    let p: avax::TxParams = params::from_value(json!({})).unwrap();
    assert_eq!(p, avax::TxParams::default());
}

#[test]
fn avax_replies_carry_block_height_only_when_accepted() {
    // `FormattedTx{api.FormattedTx; BlockHeight *json.Uint64 "blockHeight,omitempty"}`.
    check_reply::<avax::GetAtomicTx>(
        &json!({"tx": "0x0000", "encoding": "hex", "blockHeight": "42"}),
    );
    check_reply::<avax::GetAtomicTx>(&json!({"tx": "0x0000", "encoding": "hex"}));
    // `GetAtomicTxStatusReply{Status atomic.Status; BlockHeight *json.Uint64 omitempty}`.
    check_reply::<avax::GetAtomicTxStatus>(&json!({"status": "Accepted", "blockHeight": "42"}));
    for status in ["Unknown", "Dropped", "Processing"] {
        check_reply::<avax::GetAtomicTxStatus>(&json!({ "status": status }));
    }
    let r: avax::AtomicTxStatusReply =
        serde_json::from_str(r#"{"status":"Processing","blockHeight":null}"#).unwrap();
    assert_eq!(r.block_height, None);
    assert!(serde_json::from_str::<avax::AtomicTxStatusReply>(r#"{"status":"Rejected"}"#).is_err());
    check_reply::<avax::GetUtxos>(&json!({
        "numFetched": "0",
        "utxos": [],
        "endIndex": {"address": "C-avax1", "utxo": "11111111111111111111111111111111LpoYY"},
        "encoding": "hex"
    }));
}

#[test]
fn method_names_are_avalanchegos() {
    let names = [
        avm::GetBlock::NAME,
        avm::GetBlockByHeight::NAME,
        avm::GetHeight::NAME,
        avm::IssueTx::NAME,
        avm::GetTx::NAME,
        avm::GetTxStatus::NAME,
        avm::GetUtxos::NAME,
        avm::GetAssetDescription::NAME,
        avm::GetBalance::NAME,
        avm::GetAllBalances::NAME,
        avm::GetTxFee::NAME,
        avax::GetUtxos::NAME,
        avax::IssueTx::NAME,
        avax::GetAtomicTx::NAME,
        avax::GetAtomicTxStatus::NAME,
    ];
    assert_eq!(
        names,
        [
            "avm.getBlock",
            "avm.getBlockByHeight",
            "avm.getHeight",
            "avm.issueTx",
            "avm.getTx",
            "avm.getTxStatus",
            "avm.getUTXOs",
            "avm.getAssetDescription",
            "avm.getBalance",
            "avm.getAllBalances",
            "avm.getTxFee",
            "avax.getUTXOs",
            "avax.issueTx",
            "avax.getAtomicTx",
            "avax.getAtomicTxStatus",
        ]
    );
}
