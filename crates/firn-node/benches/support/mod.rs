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

/// A two-worker runtime, as the benches give each side.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// Starts anvil at `bin` on a free port for chain `chain_id` with `args`, and waits until it
/// answers: its port and the child to kill.
pub async fn spawn_anvil(
    client: &reqwest::Client,
    bin: &str,
    chain_id: u64,
    args: &[&str],
) -> (u16, std::process::Child) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut child = std::process::Command::new(bin)
        .args([
            "--port",
            &port.to_string(),
            "--chain-id",
            &chain_id.to_string(),
        ])
        .args(args)
        .spawn()
        .expect("running anvil");
    let url = format!("http://127.0.0.1:{port}");
    for _ in 0..400 {
        let asked = client
            .post(&url)
            .json(&json!({ "jsonrpc": "2.0", "id": 1, "method": "eth_chainId", "params": [] }))
            .send()
            .await;
        if asked.is_ok() {
            return (port, child);
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("anvil at {bin} did not answer on port {port}");
}

/// Resident memory of process `pid` (`self` for this one), KiB.
#[allow(dead_code)]
pub fn rss_kib(pid: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.split_whitespace().next()?.parse().ok())
        })
        .unwrap_or(0)
}

/// The machine's load averages (1, 5, 15 minutes).
#[allow(dead_code)]
pub fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}
