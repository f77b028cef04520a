//! Native balances come from the chain's node (a real devnet here), now and at a past block;
//! a node that is down or cannot answer at a block gets a clear error, never a 500. And the
//! chains an address took part on come from the index.

use firn_node::NodeConfig;
use firn_rpc::{ClientConfig, EthClient};
use firn_store::types::{Address, ParseText, U256};
use firn_store::{EvmWriter, Store};
use serde_json::json;

use crate::fixtures::{CHAIN, evm_address, evm_chain, seed};
use crate::harness::Api;
use crate::schema::{assert_valid, official};

/// `eth_getBalance` of `address` at `block`, straight from the node, in decimal.
async fn node_balance(rpc: &str, address: Address, block: &str) -> String {
    let node = EthClient::new(rpc, ClientConfig::default()).unwrap();
    let hex: String = node
        .call("eth_getBalance", (format!("{address:#x}"), block))
        .await
        .unwrap();
    U256::parse_text(&hex).unwrap().to_string()
}

pub async fn native_balances_come_from_the_node(store: Store) {
    let node = firn_node::spawn(NodeConfig::test().with_evm())
        .await
        .unwrap();
    let rpc = node.url_of("/ext/bc/C/rpc");
    let funded = Address::from(node.pchain().funded_keys()[0].public_key().eth_address());
    let mut chain = evm_chain(CHAIN);
    chain.rpc_url = rpc.clone();
    store.upsert_evm_chain(&chain).await.unwrap();
    // A chain whose node is gone.
    let mut gone = evm_chain(CHAIN + 1);
    gone.rpc_url = "http://127.0.0.1:9/ext/bc/C/rpc".to_owned();
    store.upsert_evm_chain(&gone).await.unwrap();
    let api = Api::new(store);

    let path = format!("/v1/chains/{CHAIN}/addresses/{funded:#x}/balances:getNative");
    let now = api.ok(&path).await;
    let b = &now["nativeTokenBalance"];
    assert_eq!(b["balance"], node_balance(&rpc, funded, "latest").await);
    assert_ne!(
        b["balance"], "0",
        "the devnet funds its keys on the C-Chain"
    );
    assert_eq!(
        (
            b["symbol"].clone(),
            b["decimals"].clone(),
            b["chainId"].clone()
        ),
        (json!("AVAX"), json!(18), json!(CHAIN.to_string()))
    );
    match official() {
        Some(doc) => assert_valid(
            &doc,
            "get",
            "/v1/chains/{chainId}/addresses/{address}/balances:getNative",
            &now,
        ),
        None => eprintln!("SKIPPED schema check: shared/openapi/data-api.openapi.json not found"),
    }
    let at_genesis = api.ok(&format!("{path}?blockNumber=0")).await;
    assert_eq!(
        at_genesis["nativeTokenBalance"]["balance"],
        node_balance(&rpc, funded, "0x0").await
    );
    let empty = api
        .ok(&format!(
            "/v1/chains/{CHAIN}/addresses/{:#x}/balances:getNative",
            evm_address(5)
        ))
        .await;
    assert_eq!(empty["nativeTokenBalance"]["balance"], "0");

    api.get(&format!("{path}?blockNumber=99999999"))
        .await
        .assert_error(400, "blockNumber 99999999");
    api.get(&format!("{path}?blockNumber=latest"))
        .await
        .assert_error(400, "blockNumber");
    api.get(&format!(
        "/v1/chains/{}/addresses/{funded:#x}/balances:getNative",
        CHAIN + 1
    ))
    .await
    .assert_error(503, "did not answer eth_getBalance");
    node.shutdown().await;
}

pub async fn address_chains_come_from_the_index(store: Store) {
    let world = seed(&store, 2, 40).await;
    let api = Api::new(store);
    let active = world.evm.blocks[5]
        .txs
        .first()
        .map(|t| t.from)
        .unwrap_or(evm_address(1));
    let got = api.ok(&format!("/v1/address/{active:#x}/chains")).await;
    let ids: Vec<&str> = got["indexedChains"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["chainId"].as_str().unwrap())
        .collect();
    assert_eq!(ids, vec![CHAIN.to_string().as_str()]);
    assert_eq!(got["unindexedChains"], json!([]));
    if let Some(doc) = official() {
        assert_valid(&doc, "get", "/v1/address/{address}/chains", &got);
    }
    let none = api
        .ok(&format!("/v1/address/{:#x}/chains", evm_address(424242)))
        .await;
    assert_eq!(none["indexedChains"], json!([]));
    api.get("/v1/address/0x12/chains")
        .await
        .assert_error(400, "address must be an EVM address");
}
