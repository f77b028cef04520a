//! The tracers that re-run history (`callTracer` with `withLog`, the struct logger,
//! `prestateTracer`, `4byteTracer`) and `debug_traceCall`, over a real chain: a re-run call
//! tree equals the one recorded when the block was built, logs sit where they were emitted,
//! the struct logger walks the opcodes with their storage, `prestateTracer` reports the
//! accounts as they were and what changed, and calls trace on past blocks' state.

use alloy_primitives::{Address, U256, keccak256};
use firn_evm::testing::{key, plain_transfers};
use serde_json::{Value, json};

use crate::common::{eth_call, eth_result, hex_bytes, served_chain, token_sent_to_bob};

fn word(v: U256) -> String {
    format!("{:#x}", alloy_primitives::B256::from(v))
}

/// Without `logs`, for comparing with the recorded tree.
fn without_logs(mut frame: Value) -> Value {
    if let Some(o) = frame.as_object_mut() {
        o.remove("logs");
        if let Some(calls) = o.get_mut("calls").and_then(Value::as_array_mut) {
            for c in calls.iter_mut() {
                *c = without_logs(c.take());
            }
        }
    }
    frame
}

#[tokio::test]
async fn re_run_tracers_agree_with_the_chain() {
    let (chain, s) = served_chain(1);
    let k = key(0);
    let me = k.address();
    // Block 1 deploys the token, block 2 transfers 500 to bob.
    let (token, bob, hash) = token_sent_to_bob(&chain, &s).await;
    let before_transfer = chain.height() - 1;
    let block = chain.block_by_number(chain.height()).unwrap();
    let receipt = &block.receipts[0];

    // callTracer re-run with logs: the recorded tree, plus the Transfer log before any call.
    let recorded = eth_result(
        &s,
        "debug_traceTransaction",
        json!([hash, {"tracer": "callTracer"}]),
    )
    .await;
    let with_log = eth_result(
        &s,
        "debug_traceTransaction",
        json!([hash, {"tracer": "callTracer", "tracerConfig": {"withLog": true}}]),
    )
    .await;
    assert_eq!(
        without_logs(with_log.clone()),
        recorded,
        "a re-run equals the recorded tree"
    );
    let logs = with_log["logs"].as_array().unwrap();
    assert_eq!(logs.len(), 1);
    assert_eq!(logs[0]["address"], format!("{token:#x}"));
    assert_eq!(logs[0]["position"], "0x0");
    let transfer_topic = keccak256("Transfer(address,address,uint256)");
    assert_eq!(logs[0]["topics"][0], format!("{transfer_topic:#x}"));

    // The struct logger: every opcode, the storage at SLOAD and SSTORE.
    let steps = eth_result(&s, "debug_traceTransaction", json!([hash, {}])).await;
    assert_eq!(steps["failed"], false);
    assert_eq!(steps["gas"], receipt.gas_used);
    assert_eq!(
        steps["returnValue"],
        hex::encode(U256::from(1).to_be_bytes::<32>())
    );
    let logs = steps["structLogs"].as_array().unwrap();
    assert!(logs.len() > 50, "{} steps", logs.len());
    assert_eq!(
        (
            logs[0]["pc"].clone(),
            logs[0]["op"].clone(),
            logs[0]["depth"].clone()
        ),
        (json!(0), json!("PUSH1"), json!(1))
    );
    let sstores: Vec<&Value> = logs.iter().filter(|l| l["op"] == "SSTORE").collect();
    assert_eq!(sstores.len(), 2, "the sender's and bob's balances");
    for st in &sstores {
        assert!(
            st["storage"].as_object().is_some_and(|m| !m.is_empty()),
            "{st}"
        );
    }
    let gas: Vec<u64> = logs.iter().map(|l| l["gas"].as_u64().unwrap()).collect();
    assert!(
        gas.windows(2).all(|w| w[1] <= w[0]),
        "gas only goes down at one depth"
    );
    let bare = eth_result(
        &s,
        "debug_traceTransaction",
        json!([hash, {"disableStack": true, "disableStorage": true, "limit": 5}]),
    )
    .await;
    let bare = bare["structLogs"].as_array().unwrap();
    assert_eq!(bare.len(), 5);
    assert!(
        bare.iter()
            .all(|l| l.get("stack").is_none() && l.get("storage").is_none())
    );
    let memory = eth_result(
        &s,
        "debug_traceTransaction",
        json!([hash, {"enableMemory": true, "limit": 20}]),
    )
    .await;
    assert!(
        memory["structLogs"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l["memory"].as_array().is_some_and(|m| !m.is_empty()))
    );

    // prestateTracer: the accounts as they were; with diffMode, what changed.
    let pre = eth_result(
        &s,
        "debug_traceTransaction",
        json!([hash, {"tracer": "prestateTracer"}]),
    )
    .await;
    let sender = &pre[format!("{me:#x}")];
    assert_eq!(sender["nonce"], 1);
    assert!(sender["balance"].is_string());
    let token_pre = &pre[format!("{token:#x}")];
    assert!(token_pre["code"].as_str().unwrap().len() > 100);
    assert!(
        token_pre["storage"].as_object().unwrap().len() >= 2,
        "{token_pre}"
    );
    let diff = eth_result(
        &s,
        "debug_traceTransaction",
        json!([hash, {"tracer": "prestateTracer", "tracerConfig": {"diffMode": true}}]),
    )
    .await;
    assert_eq!(diff["post"][format!("{me:#x}")]["nonce"], 2);
    let post_storage = diff["post"][format!("{token:#x}")]["storage"]
        .as_object()
        .unwrap();
    assert!(
        post_storage
            .values()
            .any(|v| v == &json!(word(U256::from(500)))),
        "{post_storage:?}"
    );
    assert!(
        diff["post"][format!("{token:#x}")].get("code").is_none(),
        "code unchanged"
    );

    // 4byteTracer: the top call by selector and calldata size.
    let four = eth_result(
        &s,
        "debug_traceTransaction",
        json!([hash, {"tracer": "4byteTracer"}]),
    )
    .await;
    assert_eq!(four, json!({ "0xa9059cbb-64": 1 }));

    // Per block: one entry per tx, whatever the tracer.
    let by_block = eth_result(
        &s,
        "debug_traceBlockByNumber",
        json!([format!("{:#x}", block.header.number), {"tracer": "prestateTracer"}]),
    )
    .await;
    assert_eq!(by_block, json!([{ "txHash": hash, "result": pre }]));

    // debug_traceCall on the head's state and on the state before the transfer.
    let balance_of = |who: Address| {
        let mut d = vec![0x70, 0xa0, 0x82, 0x31];
        d.extend([0u8; 12]);
        d.extend(who.as_slice());
        json!({ "to": format!("{token:#x}"), "data": hex_bytes(&d) })
    };
    let now = eth_result(
        &s,
        "debug_traceCall",
        json!([balance_of(bob), "latest", {"tracer": "callTracer"}]),
    )
    .await;
    assert_eq!(now["output"], word(U256::from(500)));
    assert_eq!(now["type"], "CALL");
    let then = eth_result(
        &s,
        "debug_traceCall",
        json!([balance_of(bob), format!("{before_transfer:#x}"), {"tracer": "callTracer"}]),
    )
    .await;
    assert_eq!(then["output"], word(U256::ZERO));
    let call_steps = eth_result(
        &s,
        "debug_traceCall",
        json!([balance_of(bob), "latest", {}]),
    )
    .await;
    assert_eq!(
        call_steps["returnValue"],
        hex::encode(U256::from(500).to_be_bytes::<32>())
    );

    // Refusals.
    let unknown = eth_call(
        &s,
        "debug_traceTransaction",
        json!([hash, {"tracer": "noopTracer2"}]),
    )
    .await;
    assert!(
        unknown["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not supported"),
        "{unknown}"
    );
}

#[tokio::test]
async fn re_runs_need_the_blocks_state() {
    let (chain, s) = served_chain(1);
    let k = key(0);
    let mut first = None;
    for nonce in 0..(firn_evm::history::STATE_HISTORY as u64 + 3) {
        let raw = &plain_transfers(&k, Address::repeat_byte(9), U256::from(1), nonce, 1)[0];
        let hash = eth_result(&s, "eth_sendRawTransaction", json!([hex_bytes(raw)])).await;
        first.get_or_insert(hash);
        chain.build_block().unwrap().unwrap();
    }
    let first = first.unwrap();
    let old = eth_call(
        &s,
        "debug_traceTransaction",
        json!([first.clone(), {"tracer": "prestateTracer"}]),
    )
    .await;
    assert!(
        old["error"]["message"]
            .as_str()
            .unwrap()
            .contains("historical state"),
        "{old}"
    );
    // The recorded call trees stay: callTracer still answers.
    let recorded = eth_call(
        &s,
        "debug_traceTransaction",
        json!([first, {"tracer": "callTracer"}]),
    )
    .await;
    assert_eq!(recorded["result"]["type"], "CALL", "{recorded}");
}
