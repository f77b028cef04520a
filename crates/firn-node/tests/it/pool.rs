//! geth's `txpool_*` over a real pool (pending runs and queued gaps), transactions by block
//! position and raw, uncles (none), the coinbase, `web3_sha3` and `net_peerCount`.

use alloy_primitives::{Address, U256};
use firn_evm::testing::{key, plain_transfers};
use serde_json::{Value, json};

use crate::common::{eth_result, hex_bytes, served_chain};

#[tokio::test]
async fn txpool_shows_pending_runs_and_queued_gaps() {
    let (chain, s) = served_chain(2);
    let (a, b) = (key(0), key(1));
    let to = Address::repeat_byte(9);
    // a: nonces 0 and 1 run, 3 waits for 2; b: nonce 0 runs.
    let a_txs = plain_transfers(&a, to, U256::from(5), 0, 4);
    for raw in [&a_txs[0], &a_txs[1], &a_txs[3]] {
        eth_result(&s, "eth_sendRawTransaction", json!([hex_bytes(raw)])).await;
    }
    eth_result(
        &s,
        "eth_sendRawTransaction",
        json!([hex_bytes(&plain_transfers(&b, to, U256::from(7), 0, 1)[0])]),
    )
    .await;

    assert_eq!(
        eth_result(&s, "txpool_status", json!([])).await,
        json!({ "pending": "0x3", "queued": "0x1" })
    );
    let (a_key, b_key) = (format!("{:#x}", a.address()), format!("{:#x}", b.address()));
    let content = eth_result(&s, "txpool_content", json!([])).await;
    let nonces = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(nonces(&content["pending"][&a_key]), ["0", "1"]);
    assert_eq!(nonces(&content["queued"][&a_key]), ["3"]);
    assert_eq!(nonces(&content["pending"][&b_key]), ["0"]);
    assert!(content["queued"].get(&b_key).is_none());
    let pooled = &content["pending"][&a_key]["1"];
    assert_eq!(pooled["nonce"], "0x1");
    assert_eq!(pooled["blockHash"], Value::Null);
    assert_eq!(pooled["value"], "0x5");
    let from = eth_result(&s, "txpool_contentFrom", json!([a_key])).await;
    assert_eq!(from["pending"], content["pending"][&a_key]);
    assert_eq!(from["queued"], content["queued"][&a_key]);
    let inspect = eth_result(&s, "txpool_inspect", json!([])).await;
    assert_eq!(
        inspect["pending"][&b_key]["0"],
        format!(
            "{}: 7 wei + 21000 gas × 1000000000000 wei",
            to.to_checksum(None)
        )
    );

    // Mined: the run leaves the pool, the gapped tx stays queued.
    chain.build_block().unwrap().unwrap();
    assert_eq!(
        eth_result(&s, "txpool_status", json!([])).await,
        json!({ "pending": "0x0", "queued": "0x1" })
    );
}

#[tokio::test]
async fn transactions_by_position_raw_and_the_rest() {
    let (chain, s) = served_chain(1);
    let raws = plain_transfers(&key(0), Address::repeat_byte(9), U256::from(1), 0, 2);
    let mut hashes = Vec::new();
    for r in &raws {
        hashes.push(eth_result(&s, "eth_sendRawTransaction", json!([hex_bytes(r)])).await);
    }
    // Pooled: found by hash, raw too.
    assert_eq!(
        eth_result(&s, "eth_getRawTransactionByHash", json!([hashes[0]])).await,
        hex_bytes(&raws[0])
    );
    let block = chain.build_block().unwrap().unwrap();
    let (number, hash) = (
        format!("{:#x}", block.header.number),
        format!("{:#x}", block.hash),
    );
    for (i, h) in hashes.iter().enumerate() {
        let index = format!("{i:#x}");
        let by_hash = eth_result(&s, "eth_getTransactionByHash", json!([h])).await;
        assert_eq!(
            eth_result(
                &s,
                "eth_getTransactionByBlockNumberAndIndex",
                json!([number, index])
            )
            .await,
            by_hash
        );
        assert_eq!(
            eth_result(
                &s,
                "eth_getTransactionByBlockHashAndIndex",
                json!([hash, index])
            )
            .await,
            by_hash
        );
        for (method, at) in [
            ("eth_getRawTransactionByBlockNumberAndIndex", &number),
            ("eth_getRawTransactionByBlockHashAndIndex", &hash),
        ] {
            assert_eq!(
                eth_result(&s, method, json!([at, index])).await,
                hex_bytes(&raws[i])
            );
        }
        assert_eq!(
            eth_result(&s, "eth_getRawTransactionByHash", json!([h])).await,
            hex_bytes(&raws[i])
        );
    }
    // Past the block's txs, or an unknown block: null, and `0x` for raw.
    assert_eq!(
        eth_result(
            &s,
            "eth_getTransactionByBlockNumberAndIndex",
            json!([number, "0x2"])
        )
        .await,
        Value::Null
    );
    assert_eq!(
        eth_result(
            &s,
            "eth_getTransactionByBlockNumberAndIndex",
            json!(["0x99", "0x0"])
        )
        .await,
        Value::Null
    );
    assert_eq!(
        eth_result(
            &s,
            "eth_getRawTransactionByBlockNumberAndIndex",
            json!([number, "0x2"])
        )
        .await,
        "0x"
    );
    assert_eq!(
        eth_result(
            &s,
            "eth_getRawTransactionByHash",
            json!([format!("{:#x}", alloy_primitives::B256::repeat_byte(3))])
        )
        .await,
        "0x"
    );

    // No uncles on Avalanche.
    assert_eq!(
        eth_result(&s, "eth_getUncleCountByBlockNumber", json!([number])).await,
        "0x0"
    );
    assert_eq!(
        eth_result(&s, "eth_getUncleCountByBlockHash", json!([hash])).await,
        "0x0"
    );
    assert_eq!(
        eth_result(&s, "eth_getUncleCountByBlockNumber", json!(["0x99"])).await,
        Value::Null
    );
    assert_eq!(
        eth_result(
            &s,
            "eth_getUncleByBlockNumberAndIndex",
            json!([number, "0x0"])
        )
        .await,
        Value::Null
    );
    assert_eq!(
        eth_result(&s, "eth_getUncleByBlockHashAndIndex", json!([hash, "0x0"])).await,
        Value::Null
    );
    // Fees go to the burn address; hashes are Keccak-256.
    for method in ["eth_coinbase", "eth_etherbase"] {
        assert_eq!(
            eth_result(&s, method, json!([])).await,
            "0x0100000000000000000000000000000000000000"
        );
    }
    assert_eq!(
        eth_result(&s, "web3_sha3", json!(["0x68656c6c6f20776f726c64"])).await,
        "0x47173285a8d7341e5e972fc677286384f802f8ef42a5ec5f03bbfa254cb01fad"
    );
    assert_eq!(eth_result(&s, "net_peerCount", json!([])).await, "0x0");
}
