//! What the node's benches share: one JSON-RPC call, and batches of raw transactions.
#![allow(dead_code)]

use alloy_primitives::Bytes;
use serde_json::{Value, json};

/// The result of `method` at `url`; panics on an error reply.
pub async fn rpc(client: &reqwest::Client, url: &str, method: &str, params: Value) -> Value {
    let body = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params });
    let r: Value = client
        .post(url)
        .json(&body)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(r.get("error").is_none(), "{method}: {r}");
    r["result"].clone()
}

/// JSON-RPC batch bodies of `eth_sendRawTransaction`, `per_request` txs each.
pub fn send_raw_batches(txs: &[Bytes], per_request: usize) -> Vec<String> {
    txs.chunks(per_request)
        .map(|chunk| {
            let calls: Vec<String> = chunk
                .iter()
                .enumerate()
                .map(|(i, raw)| {
                    format!(
                        r#"{{"jsonrpc":"2.0","id":{i},"method":"eth_sendRawTransaction","params":["{raw}"]}}"#
                    )
                })
                .collect();
            format!("[{}]", calls.join(","))
        })
        .collect()
}
