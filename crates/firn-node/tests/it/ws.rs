//! The EVM RPC over WebSocket (`/ext/bc/<chain>/ws`) on a real server: calls as over HTTP,
//! `eth_subscribe` to `newHeads`, `logs`, `newPendingTransactions` and coreth's
//! `newAcceptedTransactions`, `eth_unsubscribe`, geth's errors, the per-connection bound
//! on subscriptions, and `debug_subscribe`'s `traceChain`.

use std::sync::Arc;
use std::time::Duration;

use alloy_primitives::{Address, U256};
use firn_evm::testing::{chain, deploy_token, erc20_transfers, key, plain_transfers};
use firn_node::rpc::eth::{EvmChains, EvmNode};
use firn_rpc::ws::MAX_SUBSCRIPTIONS;
use firn_rpc::{RpcRouter, loopback, spawn};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

use crate::common::hex_bytes;

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

struct Client {
    socket: Socket,
    /// Messages read but not yet taken.
    seen: Vec<Value>,
    next_id: u64,
}

impl Client {
    async fn connect(url: &str) -> Self {
        let (socket, _) = tokio_tungstenite::connect_async(url).await.unwrap();
        Self {
            socket,
            seen: Vec::new(),
            next_id: 1,
        }
    }

    async fn read(&mut self) {
        let message = tokio::time::timeout(Duration::from_secs(10), self.socket.next())
            .await
            .expect("a message within 10 s")
            .expect("the connection is open")
            .unwrap();
        if let Message::Text(t) = message {
            self.seen.push(serde_json::from_str(&t).unwrap());
        }
    }

    /// The reply to `method` with `params`.
    async fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let request = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        self.socket
            .send(Message::Text(request.to_string().into()))
            .await
            .unwrap();
        loop {
            if let Some(i) = self.seen.iter().position(|m| m["id"] == id) {
                return self.seen.remove(i);
            }
            self.read().await;
        }
    }

    async fn subscribe(&mut self, params: Value) -> String {
        let r = self.call("eth_subscribe", params).await;
        r["result"]
            .as_str()
            .unwrap_or_else(|| panic!("{r}"))
            .to_owned()
    }

    /// The next `n` notifications of subscription `id`.
    async fn notifications(&mut self, id: &str, n: usize) -> Vec<Value> {
        let mine = |m: &Value| {
            m["method"]
                .as_str()
                .is_some_and(|s| s.ends_with("_subscription"))
                && m["params"]["subscription"] == id
        };
        while self.seen.iter().filter(|m| mine(m)).count() < n {
            self.read().await;
        }
        let mut out = Vec::new();
        let mut i = 0;
        while out.len() < n {
            if mine(&self.seen[i]) {
                out.push(self.seen.remove(i)["params"]["result"].clone());
            } else {
                i += 1;
            }
        }
        out
    }
}

/// The response to `method` on the C-Chain's HTTP endpoint.
async fn over_http(url: &str, method: &str, params: Value) -> Value {
    let body = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params });
    let resp = reqwest::Client::new()
        .post(format!("{url}/ext/bc/C/rpc"))
        .json(&body)
        .send()
        .await
        .unwrap();
    resp.json().await.unwrap()
}

#[tokio::test]
async fn subscriptions_follow_the_chain() {
    let chain = Arc::new(chain(2, 15_000_000));
    let k = key(0);
    let token = deploy_token(&chain, &k, 0);
    let chains = Arc::new(EvmChains::new());
    chains.add(&["C".into()], Arc::new(EvmNode::new(chain.clone(), None)));
    let router = chains.mount(RpcRouter::new()).build().unwrap();
    let handle = spawn(loopback(0), router).await.unwrap();
    let ws = format!("ws://{}/ext/bc/C/ws", handle.local_addr());
    let mut c = Client::connect(&ws).await;

    // Calls answer as over HTTP.
    assert_eq!(c.call("eth_chainId", json!([])).await["result"], "0xa869");
    let heads = c.subscribe(json!(["newHeads"])).await;
    let logs = c
        .subscribe(json!(["logs", { "address": format!("{token:#x}") }]))
        .await;
    let pending = c.subscribe(json!(["newPendingTransactions"])).await;
    let accepted = c.subscribe(json!(["newAcceptedTransactions", true])).await;
    assert_ne!(heads, logs);
    let unknown = c.call("eth_subscribe", json!(["syncingSoon"])).await;
    assert_eq!(
        unknown["error"],
        json!({ "code": -32601, "message": "no \"syncingSoon\" subscription in eth namespace" })
    );
    let ranged = c
        .call("eth_subscribe", json!(["logs", { "fromBlock": "0x0" }]))
        .await;
    assert_eq!(ranged["error"]["code"], -32000, "{ranged}");

    // Two token transfers and a plain one, sent over the socket, then accepted in one block.
    let mut raws = erc20_transfers(&k, token, 1, 2);
    raws.extend(plain_transfers(
        &k,
        Address::repeat_byte(9),
        U256::from(1),
        3,
        1,
    ));
    let mut hashes = Vec::new();
    for r in &raws {
        let sent = c
            .call("eth_sendRawTransaction", json!([hex_bytes(r)]))
            .await;
        hashes.push(sent["result"].clone());
    }
    assert_eq!(
        c.notifications(&pending, 3).await,
        hashes,
        "arrivals in order"
    );
    let block = chain.build_block().unwrap().unwrap();
    let head = c.notifications(&heads, 1).await.remove(0);
    assert_eq!(head["hash"], format!("{:#x}", block.hash));
    assert_eq!(head["number"], format!("{:#x}", block.header.number));
    assert!(head.get("transactions").is_none(), "a header: {head}");
    let by_number = c
        .call(
            "eth_getHeaderByNumber",
            json!([format!("{:#x}", block.header.number)]),
        )
        .await;
    assert_eq!(
        by_number["result"], head,
        "newHeads sends eth_getHeaderByNumber's header"
    );
    let token_logs = c.notifications(&logs, 2).await;
    for l in &token_logs {
        assert_eq!(l["address"], format!("{token:#x}"));
        assert_eq!(l["blockHash"], format!("{:#x}", block.hash));
    }
    let txs = c.notifications(&accepted, 3).await;
    assert_eq!(
        txs.iter().map(|t| t["hash"].clone()).collect::<Vec<_>>(),
        hashes
    );
    assert_eq!(txs[0]["blockHash"], format!("{:#x}", block.hash));

    // Unsubscribed: nothing more from it; unknown IDs are geth's error.
    assert_eq!(
        c.call("eth_unsubscribe", json!([heads])).await["result"],
        true
    );
    let again = c.call("eth_unsubscribe", json!([heads])).await;
    assert_eq!(
        again["error"],
        json!({ "code": -32000, "message": "subscription not found" })
    );
    let r = &plain_transfers(&k, Address::repeat_byte(9), U256::from(1), 4, 1)[0];
    c.call("eth_sendRawTransaction", json!([hex_bytes(r)]))
        .await;
    let next = chain.build_block().unwrap().unwrap();
    let later = c.notifications(&accepted, 1).await.remove(0);
    assert_eq!(later["blockHash"], format!("{:#x}", next.hash));
    assert!(
        !c.seen
            .iter()
            .any(|m| m["params"]["subscription"] == heads.as_str()),
        "no header after unsubscribing"
    );

    // Over HTTP there are no notifications.
    let http = over_http(&handle.url(), "eth_subscribe", json!(["newHeads"])).await;
    assert_eq!(
        http["error"],
        json!({ "code": -32601, "message": "notifications not supported" })
    );

    // One connection holds a bounded number of subscriptions; others are not affected.
    let mut crowd = Client::connect(&ws).await;
    for _ in 0..MAX_SUBSCRIPTIONS {
        crowd.subscribe(json!(["newHeads"])).await;
    }
    let refused = crowd.call("eth_subscribe", json!(["newHeads"])).await;
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("too many subscriptions"),
        "{refused}"
    );
    assert!(c.subscribe(json!(["newHeads"])).await.starts_with("0x"));
    handle.shutdown().await.unwrap();
}

#[tokio::test]
async fn trace_chain_sends_each_block_traced() {
    let chain = Arc::new(chain(2, 15_000_000));
    let k = key(0);
    let token = deploy_token(&chain, &k, 0);
    for first in [1, 3] {
        for tx in erc20_transfers(&k, token, first, 2) {
            chain.submit_raw_tx(&tx).unwrap();
        }
        chain.build_block().unwrap().unwrap();
    }
    assert_eq!(chain.height(), 3);
    let chains = Arc::new(EvmChains::new());
    chains.add(&["C".into()], Arc::new(EvmNode::new(chain.clone(), None)));
    let router = chains.mount(RpcRouter::new()).build().unwrap();
    let handle = spawn(loopback(0), router).await.unwrap();
    let mut c = Client::connect(&format!("ws://{}/ext/bc/C/ws", handle.local_addr())).await;

    let r = c
        .call(
            "debug_subscribe",
            json!(["traceChain", "0x0", "latest", { "tracer": "callTracer" }]),
        )
        .await;
    let id = r["result"]
        .as_str()
        .unwrap_or_else(|| panic!("{r}"))
        .to_owned();
    let blocks = c.notifications(&id, 3).await;
    for (i, b) in blocks.iter().enumerate() {
        let block = chain.block_by_number(i as u64 + 1).unwrap();
        assert_eq!(b["block"], format!("{:#x}", i + 1));
        assert_eq!(b["hash"], format!("{:#x}", block.hash));
        let traces = b["traces"].as_array().unwrap();
        assert_eq!(traces.len(), block.txs.len());
        for (t, tx) in traces.iter().zip(&block.txs) {
            assert_eq!(t["txHash"], format!("{:#x}", tx.hash));
        }
        let kind = if i == 0 { "CREATE" } else { "CALL" };
        assert_eq!(traces[0]["result"]["type"], kind, "{b}");
    }
    // geth names the notifications after the namespace.
    let raw = c
        .call("debug_subscribe", json!(["traceChain", "0x1", "0x2"]))
        .await;
    let id = raw["result"].as_str().unwrap().to_owned();
    while !c
        .seen
        .iter()
        .any(|m| m["params"]["subscription"] == id.as_str())
    {
        c.read().await;
    }
    let first = c
        .seen
        .iter()
        .find(|m| m["params"]["subscription"] == id.as_str())
        .unwrap();
    assert_eq!(first["method"], "debug_subscription");
    let logged = c.notifications(&id, 1).await.remove(0);
    assert_eq!(logged["block"], "0x2");
    assert!(
        !logged["traces"][0]["result"]["structLogs"]
            .as_array()
            .unwrap()
            .is_empty(),
        "the struct logger by default: {logged}"
    );

    for (params, message) in [
        (
            json!(["traceChain", "0x2", "0x1"]),
            "end block (#1) needs to come after start block (#2)",
        ),
        (json!(["traceChain", "0x1", "0x63"]), "block #99 not found"),
        (
            json!(["traceChain", "0x0", "0x1", { "tracer": "muxTracer" }]),
            "tracer muxTracer is not supported: firn runs callTracer, prestateTracer, 4byteTracer and the struct logger",
        ),
        (
            json!(["traceBlocks"]),
            "no \"traceBlocks\" subscription in debug namespace",
        ),
    ] {
        let r = c.call("debug_subscribe", params).await;
        assert_eq!(r["error"]["message"], message, "{r}");
    }
    let r = c.call("txpool_subscribe", json!(["x"])).await;
    assert_eq!(
        r["error"],
        json!({ "code": -32601, "message": "the method txpool_subscribe does not exist/is not available" })
    );
    let http = over_http(
        &handle.url(),
        "debug_subscribe",
        json!(["traceChain", "0x0", "0x1"]),
    )
    .await;
    assert_eq!(
        http["error"],
        json!({ "code": -32601, "message": "notifications not supported" })
    );
    handle.shutdown().await.unwrap();
}
