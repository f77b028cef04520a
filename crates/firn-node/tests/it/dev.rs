//! The dev-loop methods over RPC, under anvil's and Hardhat's names: state set directly and
//! seen at once, impersonated senders, mining and the block clock; snapshots refused.

use serde_json::{Value, json};

use crate::common::{EthEndpoint, eth_call, eth_result, served_chain};

const WHALE: &str = "0xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const TO: &str = "0x7777777777777777777777777777777777777777";

fn hex_u64(v: &Value) -> u64 {
    u64::from_str_radix(v.as_str().unwrap().trim_start_matches("0x"), 16).unwrap()
}

async fn head(s: &EthEndpoint) -> Value {
    eth_result(s, "eth_getBlockByNumber", json!(["latest", false])).await
}

async fn error(s: &EthEndpoint, method: &str, params: Value) -> (i64, String) {
    let r = eth_call(s, method, params).await;
    let e = &r["error"];
    assert!(e.is_object(), "{method} should fail: {r}");
    (
        e["code"].as_i64().unwrap(),
        e["message"].as_str().unwrap().to_owned(),
    )
}

#[tokio::test]
async fn set_state_directly_and_see_it_at_once() {
    let (_chain, s) = served_chain(1);
    let before = hex_u64(&head(&s).await["number"]);

    assert_eq!(
        eth_result(&s, "anvil_setBalance", json!([WHALE, "0xde0b6b3a7640000"])).await,
        Value::Null
    );
    assert_eq!(
        eth_result(&s, "eth_getBalance", json!([WHALE, "latest"])).await,
        "0xde0b6b3a7640000"
    );
    assert_eq!(
        hex_u64(&head(&s).await["number"]),
        before + 1,
        "a block carries the change"
    );
    assert_eq!(
        eth_result(
            &s,
            "hardhat_setBalance",
            json!([WHALE, "0x56bc75e2d63100000"])
        )
        .await,
        true
    );
    assert_eq!(
        eth_result(&s, "eth_getBalance", json!([WHALE, "latest"])).await,
        "0x56bc75e2d63100000"
    );
    // The history keeps what was there before.
    assert_eq!(
        eth_result(&s, "eth_getBalance", json!([WHALE, format!("{before:#x}")])).await,
        "0x0"
    );

    eth_result(&s, "anvil_setCode", json!([TO, "0x602a60005260206000f3"])).await;
    assert_eq!(
        eth_result(&s, "eth_getCode", json!([TO, "latest"])).await,
        "0x602a60005260206000f3"
    );
    assert_eq!(
        eth_result(&s, "eth_call", json!([{ "to": TO }, "latest"])).await,
        format!("0x{:064x}", 42)
    );
    eth_result(&s, "hardhat_setNonce", json!([WHALE, "0x5"])).await;
    assert_eq!(
        eth_result(&s, "eth_getTransactionCount", json!([WHALE, "latest"])).await,
        "0x5"
    );
    let value = format!("0x{:064x}", 0xbeef);
    assert_eq!(
        eth_result(&s, "anvil_setStorageAt", json!([TO, "0x1", value])).await,
        true
    );
    assert_eq!(
        eth_result(&s, "eth_getStorageAt", json!([TO, "0x1", "latest"])).await,
        value
    );

    // Sending for an account needs it impersonated first.
    let send = json!([{ "from": WHALE, "to": TO, "value": "0x3" }]);
    assert_eq!(
        error(&s, "eth_sendTransaction", send.clone()).await,
        (-32000, "unknown account".to_owned())
    );
    eth_result(&s, "anvil_impersonateAccount", json!([WHALE])).await;
    assert_eq!(
        eth_result(&s, "eth_accounts", json!([])).await,
        json!([WHALE])
    );
    let hash = eth_result(&s, "eth_sendTransaction", send.clone()).await;
    let pending = eth_result(&s, "eth_pendingTransactions", json!([])).await;
    assert_eq!(pending[0]["hash"], hash);
    assert_eq!(eth_result(&s, "evm_mine", json!([])).await, "0x0");
    let receipt = eth_result(&s, "eth_getTransactionReceipt", json!([hash])).await;
    assert_eq!(receipt["status"], "0x1");
    assert_eq!(receipt["from"], WHALE);
    let tx = eth_result(&s, "eth_getTransactionByHash", json!([hash])).await;
    assert_eq!(tx["nonce"], "0x5");
    assert_eq!(tx["type"], "0x2");
    assert_eq!(
        eth_result(&s, "eth_getBalance", json!([TO, "latest"])).await,
        "0x3"
    );
    eth_result(&s, "hardhat_stopImpersonatingAccount", json!([WHALE])).await;
    assert_eq!(eth_result(&s, "eth_accounts", json!([])).await, json!([]));
    assert_eq!(
        error(&s, "eth_sendTransaction", send.clone()).await.1,
        "unknown account"
    );
    eth_result(&s, "anvil_autoImpersonateAccount", json!([true])).await;
    eth_result(&s, "eth_sendTransaction", send).await;
    // A gas price makes a legacy tx, with an access list an EIP-2930 one.
    let legacy = eth_result(
        &s,
        "eth_sendTransaction",
        json!([{ "from": WHALE, "to": TO, "gasPrice": "0xe8d4a51000", "nonce": "0x7" }]),
    )
    .await;
    let with_list = eth_result(
        &s,
        "eth_sendTransaction",
        json!([{ "from": WHALE, "to": TO, "gasPrice": "0xe8d4a51000", "nonce": "0x8", "accessList": [] }]),
    )
    .await;
    eth_result(&s, "evm_mine", json!([])).await;
    for (hash, ty) in [(legacy, "0x0"), (with_list, "0x1")] {
        let tx = eth_result(&s, "eth_getTransactionByHash", json!([hash])).await;
        assert_eq!(
            (tx["type"].as_str(), tx["from"].as_str()),
            (Some(ty), Some(WHALE))
        );
        let r = eth_result(&s, "eth_getTransactionReceipt", json!([hash])).await;
        assert_eq!(r["status"], "0x1", "{r}");
    }
}

#[tokio::test]
async fn mine_on_demand_and_move_the_clock() {
    let (_chain, s) = served_chain(1);
    eth_result(&s, "evm_mine", json!([])).await;
    let t0 = hex_u64(&head(&s).await["timestamp"]);

    assert_eq!(
        eth_result(&s, "evm_increaseTime", json!([3600])).await,
        3600
    );
    assert_eq!(
        eth_result(&s, "evm_increaseTime", json!(["0x10"])).await,
        3616
    );
    eth_result(&s, "evm_mine", json!([])).await;
    let b = head(&s).await;
    // The fixture's clock ticks 10 s a read; the offset comes on top.
    let t = hex_u64(&b["timestamp"]);
    assert!((t0 + 3616..t0 + 3616 + 100).contains(&t), "{t} vs {t0}");
    assert_eq!(b["transactions"], json!([]), "an empty block");

    let pinned = t0 + 10_000;
    eth_result(
        &s,
        "evm_setNextBlockTimestamp",
        json!([format!("{pinned:#x}")]),
    )
    .await;
    eth_result(&s, "evm_mine", json!([])).await;
    assert_eq!(hex_u64(&head(&s).await["timestamp"]), pinned);
    eth_result(&s, "evm_mine", json!([pinned + 5])).await;
    assert_eq!(hex_u64(&head(&s).await["timestamp"]), pinned + 5);
    assert_eq!(
        error(&s, "evm_setNextBlockTimestamp", json!([t0])).await,
        (
            -32000,
            format!("Timestamp error: {t0} is lower than previous block's timestamp")
        )
    );

    let n = hex_u64(&head(&s).await["number"]);
    assert_eq!(
        eth_result(&s, "anvil_mine", json!(["0x3", "0x2"])).await,
        Value::Null
    );
    let b = head(&s).await;
    assert_eq!(hex_u64(&b["number"]), n + 3);
    let prev = eth_result(
        &s,
        "eth_getBlockByNumber",
        json!([format!("{:#x}", n + 2), false]),
    )
    .await;
    assert_eq!(hex_u64(&b["timestamp"]), hex_u64(&prev["timestamp"]) + 2);
    assert_eq!(eth_result(&s, "hardhat_mine", json!([])).await, true);
    eth_result(&s, "evm_mine", json!([{ "blocks": 2 }])).await;
    assert_eq!(hex_u64(&head(&s).await["number"]), n + 6);

    let (code, message) = error(&s, "hardhat_mine", json!(["0x2711"])).await;
    assert_eq!(
        (code, message.as_str()),
        (-32000, "10001 blocks asked for; at most 10000 a call")
    );
    for method in ["evm_snapshot", "evm_revert", "anvil_reset"] {
        let (code, message) = error(&s, method, json!([])).await;
        assert_eq!(code, -32000);
        assert!(
            message.starts_with(&format!("{method} is not supported")),
            "{message}"
        );
    }
    assert_eq!(hex_u64(&head(&s).await["number"]), n + 6);
}

#[tokio::test]
async fn sign_fill_and_resend_without_keys() {
    let (_chain, s) = served_chain(1);
    assert_eq!(
        error(&s, "eth_sign", json!([WHALE, "0xdeadbeef"])).await,
        (-32000, "unknown account".to_owned())
    );
    for (args, message) in [
        (json!({ "from": WHALE, "to": TO }), "gas not specified"),
        (
            json!({ "from": WHALE, "to": TO, "gas": "0x5208" }),
            "missing gasPrice or maxFeePerGas/maxPriorityFeePerGas",
        ),
        (
            json!({ "from": WHALE, "to": TO, "gas": "0x5208", "gasPrice": "0x1" }),
            "nonce not specified",
        ),
        (
            json!({ "from": WHALE, "to": TO, "gas": "0x5208", "gasPrice": "0x1", "nonce": "0x0" }),
            "unknown account",
        ),
    ] {
        assert_eq!(
            error(&s, "eth_signTransaction", json!([args])).await.1,
            message
        );
    }

    // Filled as eth_sendTransaction would, unsigned: geth's bytes and JSON.
    let funded = format!("{:#x}", firn_evm::testing::key(0).address());
    let filled = eth_result(
        &s,
        "eth_fillTransaction",
        json!([{ "from": funded, "to": TO, "value": "0x7" }]),
    )
    .await;
    let tx = &filled["tx"];
    assert_eq!(tx["type"], "0x2");
    assert_eq!(tx["nonce"], "0x0");
    assert_eq!(tx["gas"], "0x5208");
    assert_eq!(tx["to"], TO);
    assert_eq!(
        (tx["r"].as_str(), tx["yParity"].as_str()),
        (Some("0x0"), Some("0x0"))
    );
    let raw = alloy_primitives::hex::decode(filled["raw"].as_str().unwrap()).unwrap();
    assert_eq!(raw[0], 2);
    assert_eq!(
        tx["hash"],
        format!("{:#x}", alloy_primitives::keccak256(&raw))
    );
    let legacy = eth_result(
        &s,
        "eth_fillTransaction",
        json!([{ "from": funded, "to": TO, "gasPrice": "0xe8d4a51000" }]),
    )
    .await;
    assert_eq!(legacy["tx"]["type"], "0x0");
    assert!(legacy["tx"].get("chainId").is_none(), "{legacy}");
    let raw = alloy_primitives::hex::decode(legacy["raw"].as_str().unwrap()).unwrap();
    assert_eq!(
        &raw[raw.len() - 3..],
        &[0x80, 0x80, 0x80],
        "V, R and S are zero"
    );

    // Resend replaces a pooled tx of an impersonated account with a new gas price.
    eth_result(
        &s,
        "anvil_setBalance",
        json!([WHALE, "0x56bc75e2d63100000"]),
    )
    .await;
    eth_result(&s, "anvil_impersonateAccount", json!([WHALE])).await;
    let spec = json!({ "from": WHALE, "to": TO, "value": "0x1", "gasPrice": "0xe8d4a51000", "nonce": "0x0" });
    let first = eth_result(&s, "eth_sendTransaction", json!([spec])).await;
    assert_eq!(
        error(&s, "eth_resend", json!([{ "from": WHALE, "to": TO }]))
            .await
            .1,
        "missing transaction nonce in transaction spec"
    );
    let (_, missing) = error(
        &s,
        "eth_resend",
        json!([{ "from": WHALE, "to": TO, "value": "0x2", "nonce": "0x0", "gasPrice": "0xe8d4a51000" }]),
    )
    .await;
    assert!(
        missing.starts_with("transaction 0x") && missing.ends_with(" not found"),
        "{missing}"
    );
    let second = eth_result(&s, "eth_resend", json!([spec, "0x1d1a94a2000"])).await;
    assert_ne!(first, second);
    let pooled = eth_result(&s, "eth_pendingTransactions", json!([])).await;
    assert_eq!(pooled.as_array().unwrap().len(), 1);
    assert_eq!(pooled[0]["hash"], second);
    assert_eq!(pooled[0]["gasPrice"], "0x1d1a94a2000");
}
