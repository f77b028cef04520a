//! The EVM chain RPC (`/ext/bc/<chain>/rpc`) over a real firn-evm chain: geth's shapes,
//! errors and batches; subnet-EVM's own methods.

use std::sync::Arc;

use alloy_consensus::{SignableTransaction, TxEip1559, TxEnvelope};
use alloy_eips::eip2718::Encodable2718;
use alloy_primitives::{Address, B256, Bytes, TxKind, U256};
use alloy_signer::SignerSync;
use alloy_signer_local::PrivateKeySigner;
use firn_evm::{EvmChain, EvmChainConfig, EvmGenesis};
use firn_node::rpc::eth::{EvmChains, EvmNode, server};
use firn_rpc::{RpcRouter, loopback, spawn};
use serde_json::{Value, json};

const CHAIN_ID: u64 = 99999;

fn key() -> PrivateKeySigner {
    PrivateKeySigner::from_bytes(&B256::repeat_byte(7)).unwrap()
}

fn genesis() -> EvmGenesis {
    let json = format!(
        r#"{{"config":{{"chainId":{CHAIN_ID},"feeConfig":{{"gasLimit":20000000,"minBaseFee":1000000000,"targetGas":100000000,
        "baseFeeChangeDenominator":48,"minBlockGasCost":0,"maxBlockGasCost":10000000,"targetBlockRate":2,"blockGasCostStep":500000}},
        "contractNativeMinterConfig":{{"blockTimestamp":0,"adminAddresses":["{a}"]}},"warpConfig":{{"blockTimestamp":0,"quorumNumerator":67}}}},
        "alloc":{{"{a}":{{"balance":"0x52B7D2DCC80CD2E4000000"}}}},"timestamp":"0x0","gasLimit":"0x1312D00"}}"#,
        a = key().address()
    );
    EvmGenesis::from_json(json.as_bytes()).unwrap()
}

fn chain() -> Arc<EvmChain> {
    Arc::new(
        EvmChain::open(EvmChainConfig {
            genesis: genesis(),
            blockchain_id: B256::repeat_byte(1),
            network_id: 5,
            data_dir: None,
            now: Arc::new(|| 1_700_000_000),
            atomic: None,
            warp: None,
        })
        .unwrap(),
    )
}

fn transfer(nonce: u64, to: Address, value: u64) -> String {
    let tx = TxEip1559 {
        chain_id: CHAIN_ID,
        nonce,
        gas_limit: 21_000,
        max_fee_per_gas: 10_000_000_000,
        max_priority_fee_per_gas: 1_000_000_000,
        to: TxKind::Call(to),
        value: U256::from(value),
        access_list: Default::default(),
        input: Bytes::new(),
    };
    let sig = key().sign_hash_sync(&tx.signature_hash()).unwrap();
    let env: TxEnvelope = tx.into_signed(sig).into();
    format!("0x{}", hex::encode(env.encoded_2718()))
}

async fn call(s: &firn_rpc::EthServer<Arc<EvmNode>>, method: &str, params: Value) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string();
    let out = s.call_raw(body.as_bytes(), None).await.unwrap();
    serde_json::from_slice(&out).unwrap()
}

#[tokio::test]
async fn eth_methods_follow_geth() {
    let chain = chain();
    let s = server(Arc::new(EvmNode::new(chain.clone(), None)));
    assert_eq!(
        call(&s, "eth_chainId", json!([])).await["result"],
        "0x1869f"
    );
    assert_eq!(call(&s, "net_version", json!([])).await["result"], "99999");
    assert_eq!(
        call(&s, "eth_blockNumber", json!([])).await["result"],
        "0x0"
    );
    let to = Address::repeat_byte(0x55);
    let sent = call(&s, "eth_sendRawTransaction", json!([transfer(0, to, 77)])).await;
    let hash = sent["result"].as_str().unwrap().to_owned();
    // Pooled: found, but no receipt yet.
    let pending = call(&s, "eth_getTransactionByHash", json!([hash])).await;
    assert_eq!(pending["result"]["blockHash"], Value::Null);
    assert_eq!(
        call(&s, "eth_getTransactionReceipt", json!([hash])).await["result"],
        Value::Null
    );
    assert_eq!(
        call(
            &s,
            "eth_getTransactionCount",
            json!([format!("{:#x}", key().address()), "pending"])
        )
        .await["result"],
        "0x1"
    );
    chain.build_block().unwrap().unwrap();
    let r = call(&s, "eth_getTransactionReceipt", json!([hash])).await["result"].clone();
    assert_eq!(r["status"], "0x1");
    assert_eq!(r["gasUsed"], "0x5208");
    assert_eq!(r["blockNumber"], "0x1");
    assert_eq!(r["type"], "0x2");
    assert_eq!(r["to"], format!("{to:#x}"));
    let keys: Vec<&str> = r.as_object().unwrap().keys().map(String::as_str).collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted, "receipt keys are sorted like a Go map");
    let b = call(&s, "eth_getBlockByNumber", json!(["latest", true])).await["result"].clone();
    assert_eq!(b["number"], "0x1");
    assert_eq!(b["transactions"][0]["hash"], hash.as_str());
    assert_eq!(b["baseFeePerGas"], "0x3b9aca00");
    assert!(b["blockGasCost"].is_string());
    assert_eq!(b["miner"], "0x0100000000000000000000000000000000000000");
    let by_hash = call(&s, "eth_getBlockByHash", json!([b["hash"], false])).await["result"].clone();
    assert_eq!(by_hash["transactions"][0], hash.as_str());
    let receipts = call(&s, "eth_getBlockReceipts", json!(["0x1"])).await["result"].clone();
    assert_eq!(receipts.as_array().unwrap().len(), 1);
    assert_eq!(receipts[0], r);
    let block_keys: Vec<&str> = receipts[0]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        block_keys, keys,
        "eth_getBlockReceipts keeps the receipt's key order"
    );
    assert_eq!(
        call(&s, "eth_getBalance", json!([format!("{to:#x}"), "latest"])).await["result"],
        "0x4d"
    );
    assert_eq!(
        call(&s, "eth_getBlockByNumber", json!(["0x99", false])).await["result"],
        Value::Null
    );
    let history =
        call(&s, "eth_feeHistory", json!(["0x2", "latest", [50]])).await["result"].clone();
    assert_eq!(history["oldestBlock"], "0x0");
    assert_eq!(history["baseFeePerGas"].as_array().unwrap().len(), 3);
    assert_eq!(history["reward"][1][0], "0x3b9aca00");
}

#[tokio::test]
async fn errors_use_geth_codes_and_texts() {
    let chain = chain();
    let s = server(Arc::new(EvmNode::new(chain.clone(), None)));
    let to = Address::repeat_byte(1);
    call(&s, "eth_sendRawTransaction", json!([transfer(0, to, 1)])).await;
    let again = call(&s, "eth_sendRawTransaction", json!([transfer(0, to, 1)])).await;
    assert_eq!(
        again["error"],
        json!({"code": -32000, "message": "already known"})
    );
    chain.build_block().unwrap().unwrap();
    let low = call(&s, "eth_sendRawTransaction", json!([transfer(0, to, 2)])).await;
    assert_eq!(
        low["error"]["message"],
        "nonce too low: next nonce 1, tx nonce 0"
    );
    let bad = call(&s, "eth_getBalance", json!(["0x12", "latest"])).await;
    assert_eq!(bad["error"]["code"], -32602);
    assert!(
        bad["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("invalid argument 0:")
    );
    let missing = call(&s, "eth_foo", json!([])).await;
    assert_eq!(missing["error"]["code"], -32601);
    assert_eq!(
        missing["error"]["message"],
        "the method eth_foo does not exist/is not available"
    );
    let wide = call(
        &s,
        "eth_getLogs",
        json!([{"fromBlock": "0x0", "toBlock": "0x100000"}]),
    )
    .await;
    assert_eq!(wide["error"]["code"], -32000);
    assert!(
        wide["error"]["message"]
            .as_str()
            .unwrap()
            .contains("maximum is set to 2048")
    );
    // Recent blocks' state is kept: before block 1, `to` had nothing; a block that does not
    // exist has no header.
    let old = call(&s, "eth_getBalance", json!([format!("{to:#x}"), "0x0"])).await;
    assert_eq!(old["result"], "0x0", "{old}");
    let now = call(&s, "eth_getBalance", json!([format!("{to:#x}"), "0x1"])).await;
    assert_eq!(now["result"], "0x1", "{now}");
    let missing = call(&s, "eth_getBalance", json!([format!("{to:#x}"), "0x99"])).await;
    assert_eq!(missing["error"]["message"], "header not found", "{missing}");
    let revert = call(
        &s,
        "eth_call",
        json!([{"to": format!("{:#x}", Address::ZERO), "data": "0xzz"}, "latest"]),
    )
    .await;
    assert_eq!(revert["error"]["code"], -32602);
}

#[tokio::test]
async fn batches_and_the_router_over_http() {
    let chain = chain();
    let chains = Arc::new(EvmChains::new());
    let id = "2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm".to_owned();
    chains.add(
        &["C".into(), id.clone()],
        Arc::new(EvmNode::new(chain, None)),
    );
    let router = chains.mount(RpcRouter::new()).build().unwrap();
    let handle = spawn(loopback(0), router).await.unwrap();
    let http = reqwest::Client::new();
    for path in ["/ext/bc/C/rpc".to_owned(), format!("/ext/bc/{id}/rpc")] {
        let r: Value = http
            .post(format!("{}{path}", handle.url()))
            .json(&json!([
                {"jsonrpc": "2.0", "id": 1, "method": "eth_chainId", "params": []},
                {"jsonrpc": "2.0", "id": 2, "method": "eth_blockNumber"}
            ]))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(r[0]["result"], "0x1869f");
        assert_eq!(r[1]["result"], "0x0");
    }
    let unknown = http
        .post(format!("{}/ext/bc/nope/rpc", handle.url()))
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "eth_chainId"}))
        .send()
        .await
        .unwrap();
    assert_eq!(unknown.status(), 404);
    handle.shutdown().await.unwrap();
}

#[tokio::test]
async fn subnet_evm_methods_show_the_genesis_config() {
    let s = server(Arc::new(EvmNode::new(chain(), None)));
    let fee = call(&s, "eth_feeConfig", json!([])).await["result"].clone();
    assert_eq!(
        fee,
        json!({"feeConfig": {"gasLimit": 20000000, "targetBlockRate": 2, "minBaseFee": 1000000000,
            "targetGas": 100000000, "baseFeeChangeDenominator": 48, "minBlockGasCost": 0,
            "maxBlockGasCost": 10000000, "blockGasCostStep": 500000}, "lastChangedAt": 0})
    );
    let config = call(&s, "eth_getChainConfig", json!([])).await["result"].clone();
    assert_eq!(config["chainId"], 99999);
    assert_eq!(config["feeConfig"]["targetGas"], 100000000);
    assert_eq!(config["upgrades"], json!({}));
    assert_eq!(config["contractNativeMinterConfig"]["blockTimestamp"], 0);
    let active = call(&s, "eth_getActivePrecompilesAt", json!([])).await["result"].clone();
    assert!(active["contractNativeMinterConfig"]["adminAddresses"].is_array());
    assert!(active["warpConfig"].is_object());
    let rules = call(&s, "eth_getActiveRulesAt", json!([])).await["result"].clone();
    assert_eq!(rules["ethRules"]["ChainID"], 99999);
    assert_eq!(rules["ethRules"]["IsCancun"], true);
    assert_eq!(rules["ethRules"]["IsPrague"], false);
    assert_eq!(rules["avalancheRules"]["IsSubnetEVM"], true);
    assert_eq!(rules["avalancheRules"]["IsGranite"], false);
    assert_eq!(rules["precompiles"]["warpConfig"], json!({"timestamp": 0}));
}
