//! `debug_getRaw*`, `debug_traceBlock` and `debug_intermediateRoots` over a real chain: the
//! raw header hashes to the block's hash, the raw block traces as the block does, the raw
//! receipts decode to what `eth_getTransactionReceipt` says, and the intermediate roots end at
//! the block's state root; unknown blocks and bad bytes get geth's answers.

use alloy_eips::eip2718::Decodable2718;
use alloy_primitives::{B256, Bytes, keccak256};
use serde_json::{Value, json};

use crate::common::{eth_call, eth_result, served_chain, token_sent_to_bob};

fn bytes(v: &Value) -> Bytes {
    v.as_str().unwrap().parse().unwrap()
}

#[tokio::test]
async fn raw_blocks_receipts_and_intermediate_roots() {
    let (chain, s) = served_chain(1);
    let (_, _, hash) = token_sent_to_bob(&chain, &s).await;
    let block = eth_result(&s, "eth_getBlockByNumber", json!(["latest", false])).await;
    let number = block["number"].clone();
    let block_hash = block["hash"].clone();

    for id in [
        number.clone(),
        block_hash.clone(),
        json!({ "blockHash": block_hash }),
    ] {
        let header = eth_result(&s, "debug_getRawHeader", json!([id])).await;
        assert_eq!(format!("{:#x}", keccak256(bytes(&header))), block_hash);
    }
    let raw = eth_result(&s, "debug_getRawBlock", json!([number])).await;
    assert_eq!(
        format!("{:#x}", firn_evm::Block::hash_of_rlp(&bytes(&raw)).unwrap()),
        block_hash
    );
    assert_eq!(
        (raw.as_str().unwrap().len() - 2) / 2,
        u64::from_str_radix(block["size"].as_str().unwrap().trim_start_matches("0x"), 16).unwrap()
            as usize,
        "as long as the block's size"
    );

    // The raw block traces as the block does.
    for tracer in [
        json!({ "tracer": "callTracer" }),
        json!({ "tracer": "prestateTracer" }),
    ] {
        let by_raw = eth_result(&s, "debug_traceBlock", json!([raw, tracer])).await;
        let by_hash = eth_result(&s, "debug_traceBlockByHash", json!([block_hash, tracer])).await;
        assert_eq!(by_raw, by_hash);
        assert_eq!(by_raw[0]["txHash"], hash);
    }
    let garbage = eth_call(&s, "debug_traceBlock", json!(["0x01ff", {}])).await;
    assert!(
        garbage["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("could not decode block"),
        "{garbage}"
    );

    // Receipts in their consensus encoding.
    let receipts = eth_result(&s, "debug_getRawReceipts", json!([number])).await;
    let receipts = receipts.as_array().unwrap();
    assert_eq!(receipts.len(), 1);
    let decoded =
        alloy_consensus::ReceiptEnvelope::decode_2718(&mut &bytes(&receipts[0])[..]).unwrap();
    let want = eth_result(&s, "eth_getTransactionReceipt", json!([hash])).await;
    assert_eq!(json!(decoded.status()), json!(want["status"] == "0x1"));
    assert_eq!(
        format!("{:#x}", decoded.cumulative_gas_used()),
        want["cumulativeGasUsed"]
    );
    assert_eq!(decoded.logs().len(), want["logs"].as_array().unwrap().len());
    assert_eq!(
        eth_result(&s, "debug_getRawTransaction", json!([hash])).await,
        eth_result(&s, "eth_getRawTransactionByHash", json!([hash])).await
    );

    // Intermediate roots: one per tx, the last the block's.
    let roots = eth_result(&s, "debug_intermediateRoots", json!([block_hash])).await;
    assert_eq!(roots, json!([block["stateRoot"]]));

    // Past the head, unknown hashes, genesis.
    assert_eq!(
        eth_result(&s, "debug_getRawHeader", json!(["0x99"])).await,
        "0x"
    );
    assert_eq!(
        eth_result(&s, "debug_getRawBlock", json!(["0x99"])).await,
        "0x"
    );
    assert_eq!(
        eth_result(&s, "debug_getRawReceipts", json!(["0x99"])).await,
        Value::Null
    );
    let unknown = format!("{:#x}", B256::with_last_byte(7));
    assert_eq!(
        eth_result(&s, "debug_getRawReceipts", json!([unknown])).await,
        json!([])
    );
    let missing = eth_call(&s, "debug_getRawHeader", json!([unknown])).await;
    let zeros = "0 ".repeat(31);
    assert_eq!(
        missing["error"]["message"],
        format!("header #[{zeros}7] not found")
    );
    assert_eq!(
        eth_result(&s, "debug_getRawTransaction", json!([unknown])).await,
        "0x"
    );
    let genesis = eth_result(&s, "eth_getBlockByNumber", json!(["0x0", false])).await;
    for (method, param) in [
        ("debug_intermediateRoots", genesis["hash"].clone()),
        ("debug_traceBlockByNumber", json!("0x0")),
    ] {
        let r = eth_call(&s, method, json!([param])).await;
        assert_eq!(
            r["error"]["message"], "genesis is not traceable",
            "{method}"
        );
    }
}
