//! `debug_traceTransaction` / `debug_traceBlockByNumber` with `callTracer` over a real chain:
//! `contracts/src/FirnProbe.sol`'s `probe` CREATEs a child, CALLs it with value, STATICCALLs
//! it and catches its (pure, so STATICCALLed) revert, so one trace holds every frame kind geth reports; its `fail`
//! reverts at the top.

use std::sync::Arc;

use alloy_consensus::{SignableTransaction, TxEip1559, TxEnvelope};
use alloy_eips::eip2718::Encodable2718;
use alloy_primitives::{Address, B256, Bytes, TxKind, U256, keccak256};
use alloy_signer::SignerSync;
use alloy_signer_local::PrivateKeySigner;
use firn_evm::{EvmChain, EvmChainConfig, EvmGenesis};
use firn_node::rpc::eth::{EvmNode, server};
use firn_rpc::EthServer;
use serde_json::{Value, json};

const CHAIN_ID: u64 = 43113;
const CALL_TRACER: &str = "callTracer";

fn key() -> PrivateKeySigner {
    PrivateKeySigner::from_bytes(&B256::repeat_byte(9)).unwrap()
}

fn artifact(name: &str, field: &str) -> Vec<u8> {
    let path = format!(
        "{}/../../contracts/artifacts/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    hex::decode(v[field].as_str().unwrap().trim_start_matches("0x")).unwrap()
}

fn signed(nonce: u64, to: Option<Address>, value: u64, input: Vec<u8>, gas: u64) -> (B256, Bytes) {
    let tx = TxEip1559 {
        chain_id: CHAIN_ID,
        nonce,
        gas_limit: gas,
        max_fee_per_gas: 100_000_000_000,
        max_priority_fee_per_gas: 1_000_000_000,
        to: to.map_or(TxKind::Create, TxKind::Call),
        value: U256::from(value),
        access_list: Default::default(),
        input: Bytes::from(input),
    };
    let sig = key().sign_hash_sync(&tx.signature_hash()).unwrap();
    let env: TxEnvelope = tx.into_signed(sig).into();
    (*env.tx_hash(), Bytes::from(env.encoded_2718()))
}

fn selector(sig: &str) -> Vec<u8> {
    keccak256(sig.as_bytes())[..4].to_vec()
}

/// Calldata of `sig(string)`.
fn string_call(sig: &str, s: &str) -> Vec<u8> {
    let mut d = selector(sig);
    d.extend(U256::from(32).to_be_bytes::<32>());
    d.extend(U256::from(s.len()).to_be_bytes::<32>());
    let mut tail = s.as_bytes().to_vec();
    tail.resize(s.len().div_ceil(32) * 32, 0);
    d.extend(tail);
    d
}

fn hexs(b: &[u8]) -> String {
    format!("0x{}", hex::encode(b))
}

fn q(v: u64) -> String {
    format!("{v:#x}")
}

async fn call(s: &EthServer<Arc<EvmNode>>, method: &str, params: Value) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string();
    let out = s.call_raw(body.as_bytes(), None).await.unwrap();
    let v: Value = serde_json::from_slice(&out).unwrap();
    assert!(v.get("error").is_none(), "{method}: {v}");
    v["result"].clone()
}

fn keys(v: &Value) -> Vec<&str> {
    let mut k: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    k.sort();
    k
}

#[tokio::test]
async fn call_tracer_reports_nested_calls_creations_and_reverts_like_geth() {
    let me = key().address();
    let genesis = EvmGenesis::c_chain(CHAIN_ID, 0, &[(me, U256::from(10u64).pow(U256::from(24)))]);
    let chain = Arc::new(
        EvmChain::open(EvmChainConfig {
            genesis,
            blockchain_id: B256::repeat_byte(1),
            network_id: 5,
            data_dir: None,
            now: Arc::new(|| 1_700_000_000),
            atomic: None,
            warp: None,
        })
        .unwrap(),
    );
    let s = server(Arc::new(EvmNode::new(chain.clone(), None)));

    let (_, deploy) = signed(0, None, 0, artifact("FirnProbe", "bytecode"), 2_000_000);
    chain.submit_raw_tx(&deploy).unwrap();
    chain.build_block().unwrap().unwrap();
    let probe = me.create(0);
    assert!(!chain.code(&probe).is_empty());

    // Block 2: a probe that succeeds (its inner failure caught), and a call that reverts.
    let probe_input = string_call("probe(string)", "child says no");
    let (probe_hash, raw) = signed(1, Some(probe), 1_000, probe_input.clone(), 1_000_000);
    chain.submit_raw_tx(&raw).unwrap();
    let fail_input = string_call("fail(string)", "top says no");
    let (fail_hash, raw) = signed(2, Some(probe), 0, fail_input.clone(), 100_000);
    chain.submit_raw_tx(&raw).unwrap();
    let block = chain.build_block().unwrap().unwrap();
    assert_eq!((block.header.number, block.txs.len()), (2, 2));
    let receipt = &block.receipts[0];
    assert!(receipt.success && !block.receipts[1].success);

    let config = json!({"tracer": CALL_TRACER});
    let top = call(
        &s,
        "debug_traceTransaction",
        json!([format!("{probe_hash:#x}"), config]),
    )
    .await;
    let child = probe.create(1);
    let mut child_word = [0u8; 32];
    child_word[12..].copy_from_slice(child.as_slice());
    assert_eq!(
        keys(&top),
        [
            "calls", "from", "gas", "gasUsed", "input", "output", "to", "type", "value"
        ]
    );
    assert_eq!(top["type"], "CALL");
    assert_eq!(top["from"], format!("{me:#x}"));
    assert_eq!(top["to"], format!("{probe:#x}"));
    assert_eq!(top["value"], q(1_000));
    assert_eq!(top["gas"], q(1_000_000));
    assert_eq!(top["gasUsed"], q(receipt.gas_used));
    assert_eq!(top["input"], hexs(&probe_input));
    assert_eq!(top["output"], hexs(&child_word));

    let calls = top["calls"].as_array().unwrap();
    let kinds: Vec<&str> = calls.iter().map(|c| c["type"].as_str().unwrap()).collect();
    // `pings()` is a view and `fail` is pure: Solidity calls both with STATICCALL.
    assert_eq!(kinds, ["CREATE", "CALL", "STATICCALL", "STATICCALL"]);
    for c in calls {
        assert_eq!(c["from"], format!("{probe:#x}"));
        assert_eq!(c["to"], format!("{child:#x}"));
        let (gas, used) = (c["gas"].as_str().unwrap(), c["gasUsed"].as_str().unwrap());
        let gas = u64::from_str_radix(&gas[2..], 16).unwrap();
        let used = u64::from_str_radix(&used[2..], 16).unwrap();
        assert!(used <= gas && gas < 1_000_000, "{c}");
    }
    let (create, ping, read, fail) = (&calls[0], &calls[1], &calls[2], &calls[3]);
    assert_eq!(create["value"], "0x0");
    assert!(create["input"].as_str().unwrap().len() > 100);
    assert_eq!(create["output"], hexs(&chain.code(&child)));
    assert_eq!(ping["value"], q(1_000));
    assert_eq!(ping["input"], hexs(&selector("ping()")));
    assert!(ping.get("output").is_none() && ping.get("error").is_none());
    assert!(
        read.get("value").is_none(),
        "a STATICCALL carries no value: {read}"
    );
    assert_eq!(read["output"], hexs(&U256::from(1).to_be_bytes::<32>()));
    assert_eq!(fail["error"], "execution reverted");
    assert_eq!(fail["revertReason"], "child says no");
    assert_eq!(
        fail["input"],
        hexs(&string_call("fail(string)", "child says no"))
    );
    assert!(fail.get("calls").is_none());

    let reverted = call(
        &s,
        "debug_traceTransaction",
        json!([format!("{fail_hash:#x}"), config]),
    )
    .await;
    assert_eq!(reverted["error"], "execution reverted");
    assert_eq!(reverted["revertReason"], "top says no");
    assert_eq!(reverted["gas"], q(100_000));
    assert_eq!(reverted["gasUsed"], q(block.receipts[1].gas_used));
    // geth keeps a revert's data as the frame's output.
    assert!(
        reverted["output"]
            .as_str()
            .unwrap()
            .starts_with("0x08c379a0")
    );

    let traces = call(&s, "debug_traceBlockByNumber", json!(["0x2", config])).await;
    assert_eq!(
        traces,
        json!([
            {"txHash": format!("{probe_hash:#x}"), "result": top},
            {"txHash": format!("{fail_hash:#x}"), "result": reverted},
        ])
    );
    let by_hash = call(
        &s,
        "debug_traceBlockByHash",
        json!([format!("{:#x}", block.hash), config]),
    )
    .await;
    assert_eq!(by_hash, traces);

    let only_top = call(
        &s,
        "debug_traceTransaction",
        json!([format!("{probe_hash:#x}"), {"tracer": CALL_TRACER, "tracerConfig": {"onlyTopCall": true}}]),
    )
    .await;
    assert!(only_top.get("calls").is_none());
    assert_eq!(only_top["gasUsed"], top["gasUsed"]);
}
