//! What the process benches share: running `firn` as a child process, reading a process's
//! memory, and the C-Chain's JSON-RPC with a sender of signed txs.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use alloy_consensus::{SignableTransaction, TxEip1559, TxEnvelope};
use alloy_eips::eip2718::Encodable2718;
use alloy_primitives::{Address, B256, Bytes, TxKind, U256};
use alloy_signer::SignerSync;
use alloy_signer_local::PrivateKeySigner;
use serde_json::{Value, json};

pub fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Resident memory of a process in MiB.
#[derive(Debug, Clone, Copy)]
pub struct Memory {
    /// VmRSS: everything resident.
    pub all: f64,
    /// RssAnon: heap and stacks. The rest is file pages, mostly the SQLite database read
    /// through its memory map, which grows with the chain.
    pub anon: f64,
}

impl Memory {
    pub fn of(pid: u32) -> Self {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        let field = |name: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(name))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
                .map_or(0.0, |kib| kib / 1024.0)
        };
        Self {
            all: field("VmRSS:"),
            anon: field("RssAnon:"),
        }
    }
}

pub fn store_mib(dir: &std::path::Path) -> f64 {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter(|e| e.file_name().to_string_lossy().starts_with("firn.db"))
                .filter_map(|e| e.metadata().ok())
                .map(|m| m.len() as f64)
                .sum::<f64>()
        })
        .unwrap_or(0.0)
        / (1024.0 * 1024.0)
}

/// One firn process, stopped with Ctrl-C when dropped.
pub struct Firn {
    pub child: Child,
}

impl Firn {
    /// Runs `firn <args>`, its log discarded, and reads standard output up to a line starting
    /// with each of `prefixes` in turn, returning the rest of those lines. What it prints
    /// after them is read and dropped, so it never blocks on a full pipe.
    pub fn spawn(args: &[&str], prefixes: &[&str]) -> (Self, Vec<String>) {
        let mut child = Command::new(env!("CARGO_BIN_EXE_firn"))
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("running firn {args:?}: {e}"));
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut found = Vec::new();
        let mut line = String::new();
        for prefix in prefixes {
            loop {
                line.clear();
                let n = out.read_line(&mut line).unwrap();
                assert!(n > 0, "firn {args:?} exited before printing {prefix:?}");
                if let Some(rest) = line.trim_end().strip_prefix(prefix) {
                    found.push(rest.to_owned());
                    break;
                }
            }
        }
        std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
        (Self { child }, found)
    }

    pub fn memory(&self) -> Memory {
        Memory::of(self.child.id())
    }
}

impl Drop for Firn {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-INT", &self.child.id().to_string()])
            .status();
        let _ = self.child.wait();
    }
}

/// The node's C-Chain JSON-RPC.
#[derive(Clone)]
pub struct Node {
    pub client: firn_rpc::EthClient,
}

impl Node {
    /// The C-Chain of the devnet whose `--json` banner is `banner`.
    pub fn c_chain(banner: &Value) -> Self {
        let url = format!("{}/ext/bc/C/rpc", banner["listening"].as_str().unwrap());
        Self {
            client: firn_rpc::EthClient::new(&url, firn_rpc::ClientConfig::default()).unwrap(),
        }
    }

    /// The call's result; `null` when the node answers with an error.
    pub async fn rpc(&self, method: &str, params: Value) -> Value {
        self.client
            .call::<_, Value>(method, params)
            .await
            .unwrap_or(Value::Null)
    }

    pub async fn height(&self) -> u64 {
        let n = self.rpc("eth_blockNumber", json!([])).await;
        u64::from_str_radix(n.as_str().unwrap_or("0x0").trim_start_matches("0x"), 16).unwrap_or(0)
    }
}

/// Sends signed EIP-1559 txs from one key.
pub struct Sender {
    node: Node,
    key: PrivateKeySigner,
    chain_id: u64,
    nonce: u64,
}

impl Sender {
    /// Sends from `key`, from its next nonce.
    pub async fn new(node: Node, key: PrivateKeySigner, chain_id: u64) -> Self {
        let address = format!("{:#x}", key.address());
        let nonce = node
            .rpc("eth_getTransactionCount", json!([address, "pending"]))
            .await;
        let nonce =
            u64::from_str_radix(nonce.as_str().unwrap().trim_start_matches("0x"), 16).unwrap();
        Self {
            node,
            key,
            chain_id,
            nonce,
        }
    }

    pub async fn send(&mut self, to: Option<Address>, input: Vec<u8>, gas: u64) -> Option<B256> {
        let tx = TxEip1559 {
            chain_id: self.chain_id,
            nonce: self.nonce,
            gas_limit: gas,
            max_fee_per_gas: 500_000_000_000,
            max_priority_fee_per_gas: 1_000_000_000,
            to: to.map_or(TxKind::Create, TxKind::Call),
            value: U256::from(u64::from(to.is_some())),
            access_list: Default::default(),
            input: Bytes::from(input),
        };
        let sig = self.key.sign_hash_sync(&tx.signature_hash()).unwrap();
        let env: TxEnvelope = tx.into_signed(sig).into();
        let raw = format!("0x{}", hex::encode(env.encoded_2718()));
        let hash = self.node.rpc("eth_sendRawTransaction", json!([raw])).await;
        self.nonce += 1;
        hash.as_str().and_then(|h| h.parse().ok())
    }

    pub async fn receipt(&self, hash: B256) -> Value {
        loop {
            let r = self
                .node
                .rpc("eth_getTransactionReceipt", json!([format!("{hash:#x}")]))
                .await;
            if !r.is_null() {
                return r;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

/// Funded key `i` of the devnet whose `--json` banner is `banner`.
pub fn funded_key(banner: &Value, i: usize) -> PrivateKeySigner {
    let secret: firn_core::keys::secp256k1::PrivateKey = banner["fundedKeys"][i]["privateKey"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    PrivateKeySigner::from_bytes(&B256::from(secret.to_bytes())).unwrap()
}
