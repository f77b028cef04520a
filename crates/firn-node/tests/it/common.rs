//! A devnet served over real HTTP on 127.0.0.1:0, and raw JSON-RPC calls against it.

use std::sync::Arc;

use firn_core::pchain::tx::Tx;
use firn_devnet::{DevnetConfig, PChain};
use firn_node::{NodeConfig, NodeHandle};
use serde_json::{Value, json};

/// A devnet on a frozen clock at genesis, served with every node endpoint.
pub struct Devnet {
    pub chain: Arc<PChain>,
    pub url: String,
    http: reqwest::Client,
    pub node: NodeHandle,
}

impl Devnet {
    pub async fn start() -> Self {
        Self::spawn(NodeConfig::test()).await
    }

    pub async fn start_with(config: DevnetConfig) -> Self {
        Self::spawn(NodeConfig::test().with_devnet(config)).await
    }

    pub async fn spawn(config: NodeConfig) -> Self {
        let node = firn_node::spawn(config).await.unwrap();
        Self {
            chain: node.pchain().clone(),
            url: node.url().to_owned(),
            http: reqwest::Client::new(),
            node,
        }
    }

    /// The whole JSON-RPC response of `method` on `path`.
    pub async fn raw(&self, path: &str, method: &str, params: Value) -> Value {
        let body = json!({ "jsonrpc": "2.0", "method": method, "params": params, "id": 1 });
        let resp = self
            .http
            .post(format!("{}{path}", self.url))
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(
            resp.status(),
            200,
            "{method} answered HTTP {}",
            resp.status()
        );
        resp.json().await.unwrap()
    }

    /// The result of `method` on `path`; panics with the error if it failed.
    pub async fn call_at(&self, path: &str, method: &str, params: Value) -> Value {
        let r = self.raw(path, method, params).await;
        assert!(r.get("error").is_none(), "{method} failed: {r}");
        r["result"].clone()
    }

    /// A `platform.*` result.
    pub async fn p(&self, method: &str, params: Value) -> Value {
        self.call_at("/ext/bc/P", method, params).await
    }

    /// The error of `method` on `path`: (code, message); panics if it succeeded.
    pub async fn error_at(&self, path: &str, method: &str, params: Value) -> (i64, String) {
        let r = self.raw(path, method, params).await;
        let e = r
            .get("error")
            .unwrap_or_else(|| panic!("{method} succeeded: {r}"));
        assert!(e.get("data").is_some(), "error without data: {r}");
        (
            e["code"].as_i64().unwrap(),
            e["message"].as_str().unwrap().to_string(),
        )
    }

    /// A `platform.*` error message (asserting code -32000).
    pub async fn p_err(&self, method: &str, params: Value) -> String {
        let (code, msg) = self.error_at("/ext/bc/P", method, params).await;
        assert_eq!(code, -32000);
        msg
    }

    /// Issues a signed tx through `platform.issueTx` (hex), returns its ID.
    pub async fn issue(&self, tx: &Tx) -> String {
        let hex = firn_core::encoding::hex_encode_checksummed(&firn_core::codec::to_bytes(tx));
        let r = self
            .p("platform.issueTx", json!({ "tx": hex, "encoding": "hex" }))
            .await;
        assert_eq!(r["txID"].as_str().unwrap(), tx.id().to_string());
        r["txID"].as_str().unwrap().to_string()
    }

    /// `firn.advanceTime`; returns the new heights.
    pub async fn advance(&self, seconds: u64) -> Vec<u64> {
        let r = self
            .call_at(
                "/ext/firn",
                "firn.advanceTime",
                json!({ "seconds": seconds }),
            )
            .await;
        heights(&r)
    }

    /// Issues `tx`, moves the clock a second and builds; asserts it committed.
    pub async fn issue_and_build(&self, tx: &Tx) -> String {
        let id = self.issue(tx).await;
        self.advance(1).await;
        let s = self.p("platform.getTxStatus", json!({ "txID": id })).await;
        assert_eq!(s, json!({ "status": "Committed" }), "tx {id}");
        id
    }

    pub async fn height(&self) -> u64 {
        let r = self.p("platform.getHeight", json!({})).await;
        r["height"].as_str().unwrap().parse().unwrap()
    }
}

pub fn heights(r: &Value) -> Vec<u64> {
    r["heights"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h.as_str().unwrap().parse().unwrap())
        .collect()
}

/// Asserts `v` is a decimal string and returns its value.
pub fn dec(v: &Value) -> u64 {
    let s = v.as_str().unwrap_or_else(|| panic!("{v} is not a string"));
    s.parse().unwrap_or_else(|_| panic!("{s} is not decimal"))
}

/// The object keys of `v`, in order.
pub fn keys(v: &Value) -> Vec<&str> {
    v.as_object()
        .unwrap_or_else(|| panic!("{v} is not an object"))
        .keys()
        .map(String::as_str)
        .collect()
}

/// One EVM chain's endpoint, called in process.
pub type EthEndpoint = firn_rpc::EthServer<Arc<firn_node::rpc::eth::EvmNode>>;

/// The whole JSON-RPC response to `method` with `params`.
pub async fn eth_call(s: &EthEndpoint, method: &str, params: Value) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string();
    let out = s.call_raw(body.as_bytes(), None).await.unwrap();
    serde_json::from_slice(&out).unwrap()
}

/// The result of `method` with `params`, which must not fail.
pub async fn eth_result(s: &EthEndpoint, method: &str, params: Value) -> Value {
    let r = eth_call(s, method, params).await;
    assert!(r.get("error").is_none(), "{method}: {r}");
    r["result"].clone()
}

/// A fixture chain ([`firn_evm::testing::chain`], keys `0..keys` funded, 15M gas blocks) and
/// its RPC endpoint.
pub fn served_chain(keys: u8) -> (Arc<firn_evm::EvmChain>, EthEndpoint) {
    let chain = Arc::new(firn_evm::testing::chain(keys, 15_000_000));
    let node = firn_node::rpc::eth::EvmNode::new(chain.clone(), None);
    (chain.clone(), firn_node::rpc::eth::server(Arc::new(node)))
}

/// Deploys FirnToken from key 0 (nonce 0), then sends 500 of it to `0xb0…b0` over RPC in the
/// next block: the token, the recipient and the transfer's hash.
pub async fn token_sent_to_bob(
    chain: &firn_evm::EvmChain,
    s: &EthEndpoint,
) -> (alloy_primitives::Address, alloy_primitives::Address, Value) {
    use firn_evm::testing::{deploy_token, key, sign, transfer_data};
    let k = key(0);
    let token = deploy_token(chain, &k, 0);
    let bob = alloy_primitives::Address::repeat_byte(0xb0);
    let amount = alloy_primitives::U256::from(500);
    let data = transfer_data(bob, amount);
    let raw = sign(
        &k,
        1,
        Some(token),
        alloy_primitives::U256::ZERO,
        data,
        100_000,
    );
    let hash = eth_result(s, "eth_sendRawTransaction", json!([hex_bytes(&raw)])).await;
    chain.build_block().unwrap().unwrap();
    (token, bob, hash)
}

/// `0x`-hex of raw bytes.
pub fn hex_bytes(b: &[u8]) -> String {
    format!("0x{}", hex::encode(b))
}
