//! geth's polling filters over a real chain: block, log and pending-transaction filters report
//! what happened since their last poll, exactly once; log filters match their criteria and
//! `eth_getFilterLogs` answers as `eth_getLogs`; unknown, uninstalled and wrong-kind filters
//! are "filter not found"; a chain holds a bounded number of filters.

use std::sync::Arc;

use alloy_primitives::{Address, U256};
use firn_evm::testing::{chain, deploy_token, erc20_transfers, key, plain_transfers};
use firn_node::rpc::eth::filters::MAX_FILTERS;
use firn_node::rpc::eth::{EvmNode, server};
use serde_json::json;

use crate::common::{eth_call, eth_result, hex_bytes, served_chain};

#[tokio::test]
async fn filters_report_each_change_once() {
    let (chain, s) = served_chain(2);
    let k = key(0);
    let token = deploy_token(&chain, &k, 0);
    let other = deploy_token(&chain, &k, 1);

    let blocks = eth_result(&s, "eth_newBlockFilter", json!([])).await;
    let pending = eth_result(&s, "eth_newPendingTransactionFilter", json!([])).await;
    let token_logs = eth_result(
        &s,
        "eth_newFilter",
        json!([{ "address": format!("{token:#x}") }]),
    )
    .await;
    assert!(blocks.as_str().unwrap().starts_with("0x") && blocks != pending);
    // Nothing happened yet.
    for id in [&blocks, &pending, &token_logs] {
        assert_eq!(
            eth_result(&s, "eth_getFilterChanges", json!([id])).await,
            json!([])
        );
    }

    // Two transfers of each token and a plain transfer, pooled, then built into one block.
    let mut raw = erc20_transfers(&k, token, 2, 2);
    raw.extend(erc20_transfers(&k, other, 4, 1));
    raw.extend(plain_transfers(
        &k,
        Address::repeat_byte(9),
        U256::from(1),
        5,
        1,
    ));
    let mut hashes = Vec::new();
    for r in &raw {
        hashes.push(eth_result(&s, "eth_sendRawTransaction", json!([hex_bytes(r)])).await);
    }
    assert_eq!(
        eth_result(&s, "eth_getFilterChanges", json!([pending])).await,
        json!(hashes),
        "the pooled txs, in arrival order"
    );
    let block = chain.build_block().unwrap().unwrap();
    assert_eq!(block.txs.len(), 4);
    assert_eq!(
        eth_result(&s, "eth_getFilterChanges", json!([blocks])).await,
        json!([format!("{:#x}", block.hash)])
    );
    let logs = eth_result(&s, "eth_getFilterChanges", json!([token_logs])).await;
    let logs = logs.as_array().unwrap();
    assert_eq!(logs.len(), 2, "the token's two transfers: {logs:?}");
    for l in logs {
        assert_eq!(l["address"], format!("{token:#x}"));
        assert_eq!(l["blockHash"], format!("{:#x}", block.hash));
    }
    // Reported once.
    for id in [&blocks, &pending, &token_logs] {
        assert_eq!(
            eth_result(&s, "eth_getFilterChanges", json!([id])).await,
            json!([])
        );
    }
    // The filter's logs from its criteria, as eth_getLogs (from the latest block, without a
    // fromBlock).
    let criteria = json!({ "address": format!("{token:#x}") });
    let all = eth_result(&s, "eth_getFilterLogs", json!([token_logs])).await;
    assert_eq!(all, eth_result(&s, "eth_getLogs", json!([criteria])).await);
    assert_eq!(all.as_array().unwrap().len(), 2);

    // A log filter's own block range bounds what it reports.
    let head = chain.height();
    let bounded = eth_result(
        &s,
        "eth_newFilter",
        json!([{ "toBlock": format!("{:#x}", head + 1) }]),
    )
    .await;
    for (nonce, expect) in [(6, 1), (7, 0)] {
        let r = &erc20_transfers(&k, other, nonce, 1)[0];
        eth_result(&s, "eth_sendRawTransaction", json!([hex_bytes(r)])).await;
        chain.build_block().unwrap().unwrap();
        let got = eth_result(&s, "eth_getFilterChanges", json!([bounded])).await;
        assert_eq!(
            got.as_array().unwrap().len(),
            expect,
            "block {}",
            chain.height()
        );
    }

    // Gone once uninstalled; unknown IDs and wrong kinds are "filter not found".
    assert_eq!(
        eth_result(&s, "eth_uninstallFilter", json!([blocks])).await,
        true
    );
    assert_eq!(
        eth_result(&s, "eth_uninstallFilter", json!([blocks])).await,
        false
    );
    for (method, id) in [
        ("eth_getFilterChanges", blocks.clone()),
        ("eth_getFilterChanges", json!("0x1234")),
        ("eth_getFilterLogs", pending.clone()),
    ] {
        let r = eth_call(&s, method, json!([id])).await;
        assert_eq!(
            r["error"],
            json!({ "code": -32000, "message": "filter not found" }),
            "{method}"
        );
    }
    let r = eth_call(
        &s,
        "eth_newFilter",
        json!([{ "blockHash": format!("{:#x}", block.hash) }]),
    )
    .await;
    assert_eq!(r["error"]["code"], -32000, "{r}");
}

#[tokio::test]
async fn a_chain_holds_a_bounded_number_of_filters() {
    let chain = Arc::new(chain(1, 15_000_000));
    let s = server(Arc::new(EvmNode::new(chain, None)));
    let mut ids = Vec::new();
    for _ in 0..MAX_FILTERS {
        ids.push(eth_result(&s, "eth_newBlockFilter", json!([])).await);
    }
    let mut unique = ids.clone();
    unique.sort_by_key(|v| v.to_string());
    unique.dedup();
    assert_eq!(unique.len(), MAX_FILTERS, "IDs are distinct");
    let r = eth_call(&s, "eth_newBlockFilter", json!([])).await;
    assert_eq!(r["error"]["code"], -32000);
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("too many filters"),
        "{r}"
    );
    eth_result(&s, "eth_uninstallFilter", json!([ids[0]])).await;
    eth_result(&s, "eth_newBlockFilter", json!([])).await;
}
