//! `eth_getProof`, `eth_createAccessList`, `eth_callDetailed`, `eth_suggestPriceOptions`,
//! `eth_getBadBlocks` and `eth_pendingTransactions` over a real chain: proofs verify against
//! the blocks' state roots, the access list is what the call touches and lowers its gas, a
//! detailed call reports what `eth_call` reports as an error, and bad input gets geth's errors.

use alloy_primitives::{Address, B256, Bytes, U256, keccak256};
use alloy_trie::{Nibbles, TrieAccount, proof::verify_proof};
use firn_evm::history::STATE_HISTORY;
use firn_evm::testing::{deploy_token, key, mapping_slot, plain_transfers, transfer_data};
use serde_json::{Value, json};

use crate::common::{eth_call, eth_result, hex_bytes, served_chain, token_sent_to_bob};

fn proof_nodes(v: &Value) -> Vec<Bytes> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap().parse().unwrap())
        .collect()
}

fn u256(v: &Value) -> U256 {
    v.as_str().unwrap().parse().unwrap()
}

#[tokio::test]
async fn proofs_verify_against_the_blocks_state_roots() {
    let (chain, s) = served_chain(1);
    let k = key(0);
    let me = k.address();
    let (token, bob, _) = token_sent_to_bob(&chain, &s).await;
    let deployed = chain.height() - 1;

    // FirnToken keeps `balanceOf` at slot 4 (name, symbol, totalSupply and owner before it).
    let slots: Vec<B256> = (2..6).map(|i| mapping_slot(bob, i)).collect();
    let mut keys: Vec<String> = slots.iter().map(|s| format!("{s:#x}")).collect();
    keys.push("0x0".into());
    for (number, bob_has) in [(chain.height(), true), (deployed, false)] {
        let block = format!("{number:#x}");
        let header = eth_result(&s, "eth_getBlockByNumber", json!([block, false])).await;
        let root: B256 = header["stateRoot"].as_str().unwrap().parse().unwrap();
        let p = eth_result(
            &s,
            "eth_getProof",
            json!([format!("{token:#x}"), keys, block]),
        )
        .await;
        assert_eq!(p["address"], format!("{token:#x}"));
        let code_hash: B256 = p["codeHash"].as_str().unwrap().parse().unwrap();
        let storage_root: B256 = p["storageHash"].as_str().unwrap().parse().unwrap();
        let leaf = TrieAccount {
            nonce: u64::from_str_radix(p["nonce"].as_str().unwrap().trim_start_matches("0x"), 16)
                .unwrap(),
            balance: u256(&p["balance"]),
            storage_root,
            code_hash,
        };
        verify_proof(
            root,
            Nibbles::unpack(keccak256(token)),
            Some(alloy_rlp::encode(leaf)),
            &proof_nodes(&p["accountProof"]),
        )
        .unwrap();
        let code = eth_result(&s, "eth_getCode", json!([format!("{token:#x}"), block])).await;
        let code: Bytes = code.as_str().unwrap().parse().unwrap();
        assert_eq!(code_hash, keccak256(&code));
        let proved = p["storageProof"].as_array().unwrap();
        assert_eq!(proved.len(), keys.len());
        assert_eq!(
            proved[4]["key"], "0x0",
            "a short key comes back as a quantity"
        );
        let mut found = false;
        for (i, sp) in proved.iter().enumerate() {
            let slot = if i < 4 { slots[i] } else { B256::ZERO };
            if i < 4 {
                assert_eq!(sp["key"], keys[i], "a 32-byte key comes back as given");
            }
            let stored = eth_result(
                &s,
                "eth_getStorageAt",
                json!([format!("{token:#x}"), format!("{slot:#x}"), block]),
            )
            .await;
            let value = u256(&sp["value"]);
            assert_eq!(
                B256::from(value),
                stored.as_str().unwrap().parse::<B256>().unwrap()
            );
            found |= value == U256::from(500);
            let leaf = (!value.is_zero()).then(|| alloy_rlp::encode(value));
            verify_proof(
                storage_root,
                Nibbles::unpack(keccak256(slot)),
                leaf,
                &proof_nodes(&sp["proof"]),
            )
            .unwrap();
        }
        assert_eq!(found, bob_has, "bob's 500 tokens at block {number}");
    }

    // An account that never existed: zero hashes, and a proof of its absence.
    let nobody = Address::repeat_byte(0x77);
    let p = eth_result(
        &s,
        "eth_getProof",
        json!([format!("{nobody:#x}"), ["0x1"], "latest"]),
    )
    .await;
    assert_eq!(p["codeHash"], format!("{:#x}", B256::ZERO));
    assert_eq!(p["storageHash"], format!("{:#x}", B256::ZERO));
    assert_eq!(
        (p["balance"].clone(), p["nonce"].clone()),
        (json!("0x0"), json!("0x0"))
    );
    assert_eq!(
        p["storageProof"],
        json!([{ "key": "0x1", "value": "0x0", "proof": [] }])
    );
    let head = eth_result(&s, "eth_getBlockByNumber", json!(["latest", false])).await;
    let root: B256 = head["stateRoot"].as_str().unwrap().parse().unwrap();
    verify_proof(
        root,
        Nibbles::unpack(keccak256(nobody)),
        None,
        &proof_nodes(&p["accountProof"]),
    )
    .unwrap();
    // The sender: an account without code.
    let p = eth_result(
        &s,
        "eth_getProof",
        json!([format!("{me:#x}"), [], "latest"]),
    )
    .await;
    assert_eq!(p["nonce"], "0x2");
    assert_eq!(
        p["storageHash"],
        format!("{:#x}", alloy_trie::EMPTY_ROOT_HASH)
    );

    // Refusals, with geth's texts.
    let too_long = format!("0x{}", "11".repeat(33));
    for (key, want) in [
        (
            too_long.as_str(),
            "hex string too long, want at most 32 bytes",
        ),
        ("0xzz", "hex string invalid"),
    ] {
        let r = eth_call(
            &s,
            "eth_getProof",
            json!([format!("{me:#x}"), [key], "latest"]),
        )
        .await;
        assert_eq!(r["error"]["message"], want, "{r}");
    }
    let missing = eth_call(&s, "eth_getProof", json!([format!("{me:#x}"), []])).await;
    assert!(
        missing["error"].is_object(),
        "the block is required: {missing}"
    );
}

#[tokio::test]
async fn proofs_stop_at_the_kept_window() {
    let (chain, s) = served_chain(1);
    let k = key(0);
    for nonce in 0..(STATE_HISTORY as u64 + 2) {
        let raw = &plain_transfers(&k, Address::repeat_byte(9), U256::from(1), nonce, 1)[0];
        chain.submit_raw_tx(raw).unwrap();
        chain.build_block().unwrap().unwrap();
    }
    let head = chain.height();
    let oldest = head - STATE_HISTORY as u64;
    let who = format!("{:#x}", Address::repeat_byte(9));
    let at_oldest = eth_result(&s, "eth_getProof", json!([who, [], format!("{oldest:#x}")])).await;
    assert_eq!(u256(&at_oldest["balance"]), U256::from(oldest));
    let r = eth_call(
        &s,
        "eth_getProof",
        json!([who, [], format!("{:#x}", oldest - 1)]),
    )
    .await;
    assert_eq!(
        r["error"]["message"],
        format!(
            "historical proof query not allowed: block number {} is before the oldest allowed \
             block number {oldest} (window of {STATE_HISTORY} blocks)",
            oldest - 1
        )
    );
}

#[tokio::test]
async fn access_lists_and_detailed_calls() {
    let (chain, s) = served_chain(1);
    let k = key(0);
    let me = format!("{:#x}", k.address());
    let token = deploy_token(&chain, &k, 0);
    let bob = Address::repeat_byte(0xb0);
    let transfer = json!({
        "from": me,
        "to": format!("{token:#x}"),
        "data": hex_bytes(&transfer_data(bob, U256::from(5))),
    });

    // The token with the sender's and bob's balance slots; nothing else.
    let listed = eth_result(&s, "eth_createAccessList", json!([transfer, "latest"])).await;
    let list = listed["accessList"].as_array().unwrap();
    assert_eq!(list.len(), 1, "{listed}");
    assert_eq!(list[0]["address"], format!("{token:#x}"));
    let slots = list[0]["storageKeys"].as_array().unwrap();
    assert_eq!(slots.len(), 2, "{listed}");
    assert!(listed.get("error").is_none());
    // With the list the call uses less gas than without (warm slots), and gasUsed says so.
    let with_list = eth_result(&s, "eth_estimateGas", json!([{
        "from": me, "to": format!("{token:#x}"), "data": transfer["data"], "accessList": listed["accessList"],
    }])).await;
    let without = eth_result(&s, "eth_estimateGas", json!([transfer])).await;
    let gas =
        |v: &Value| u64::from_str_radix(v.as_str().unwrap().trim_start_matches("0x"), 16).unwrap();
    assert!(
        gas(&listed["gasUsed"]) <= gas(&with_list),
        "{listed} {with_list}"
    );
    assert!(
        gas(&with_list) < gas(&without) + 2 * 2400,
        "{with_list} vs {without}"
    );
    // A failing call still lists what it touched, with the failure.
    let broke = json!({
        "from": format!("{bob:#x}"),
        "to": format!("{token:#x}"),
        "data": hex_bytes(&transfer_data(Address::repeat_byte(1), U256::from(5))),
    });
    let failed = eth_result(&s, "eth_createAccessList", json!([broke])).await;
    assert_eq!(failed["error"], "execution reverted", "{failed}");
    assert!(!failed["accessList"].as_array().unwrap().is_empty());

    // eth_callDetailed: what eth_call answers, failures as answers.
    let ok = eth_result(&s, "eth_callDetailed", json!([transfer, "latest"])).await;
    let plain = eth_result(&s, "eth_call", json!([transfer, "latest"])).await;
    assert_eq!(ok["returnData"], plain);
    assert_eq!(
        (ok["errCode"].clone(), ok["err"].clone()),
        (json!(0), json!(""))
    );
    assert!(ok["gas"].as_u64().unwrap() > 21_000);
    let reverted = eth_result(&s, "eth_callDetailed", json!([broke, "latest"])).await;
    let as_error = eth_call(&s, "eth_call", json!([broke, "latest"])).await;
    assert_eq!(
        reverted["err"], as_error["error"]["message"],
        "{reverted} {as_error}"
    );
    let data = as_error["error"]["data"].as_str().unwrap_or("0x");
    assert_eq!(reverted["returnData"], data);
    assert_eq!(reverted["errCode"], if data == "0x" { 0 } else { 3 });

    // Fees and the lists a devnet keeps empty.
    let options = eth_result(&s, "eth_suggestPriceOptions", json!([])).await;
    let base = u256(&eth_result(&s, "eth_baseFee", json!([])).await);
    let tip = u256(&eth_result(&s, "eth_maxPriorityFeePerGas", json!([])).await);
    assert_eq!(u256(&options["normal"]["maxPriorityFeePerGas"]), tip);
    assert_eq!(
        u256(&options["normal"]["maxFeePerGas"]),
        base * U256::from(2) + tip
    );
    assert!(u256(&options["slow"]["maxPriorityFeePerGas"]) < tip);
    assert!(u256(&options["fast"]["maxPriorityFeePerGas"]) > tip);
    assert_eq!(
        eth_result(&s, "eth_getBadBlocks", json!([])).await,
        json!([])
    );
    let raw = &plain_transfers(&k, bob, U256::from(1), 1, 1)[0];
    eth_result(&s, "eth_sendRawTransaction", json!([hex_bytes(raw)])).await;
    assert_eq!(
        eth_result(&s, "eth_pendingTransactions", json!([])).await,
        json!([]),
        "pooled, but not from an account the node holds"
    );
}
