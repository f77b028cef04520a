//! JSON-RPC for firn: the two envelopes an AvalancheGo node speaks, served on axum, and the
//! clients the indexer and the aggregator use to follow any node. It knows no chain: the
//! node's methods over the devnet live in `firn-node`, which mounts them here.
//!
//! The key types:
//! - [`AvaService`] / [`AvaServer`]: AvalancheGo's gorilla `json2` envelope (`/ext/bc/P`,
//!   `/ext/info`, `/ext/health`, `/ext/bc/<chain>/validators`): object params decoded with Go's
//!   rules ([`params`], [`avajson`]), one handler per `service.method`;
//! - [`EthServer`]: go-ethereum's envelope (`/ext/bc/<chain>/rpc`): positional params, batches,
//!   geth's error codes and texts; over WebSocket too, with `eth_subscribe` ([`ws`]);
//! - [`RpcRouter`]: mounts endpoints on paths with body and time [`Limits`] and builds an
//!   `axum::Router`; [`spawn`] serves it on 127.0.0.1 with graceful shutdown;
//! - [`methods`]: every AvalancheGo-style method's name, params and reply, declared once for
//!   the server ([`AvaService::handle`]) and the clients ([`AvalancheClient::request`]);
//! - [`AvalancheClient`] / [`EthClient`]: the clients, with timeouts, retries with backoff,
//!   batches and typed [`ClientError`]s that keep the server's [`ErrorObject`];
//! - [`RpcValidatorNetwork`]: the signature aggregator's validators and P-Chain reads over a
//!   node's RPC (signature requests through `firn devnet`'s `firn.requestWarpSignature`).
//!
//! Data flows HTTP request → [`RpcRouter`] → endpoint envelope (parse, look up, decode params)
//! → handler `(state, params) → Result<reply, error>` → envelope (serialize as Go would) → HTTP
//! response; the clients do the reverse.
//!
//! ```
//! use std::sync::Arc;
//! use firn_rpc::{AvaServer, AvaService, RpcRouter};
//!
//! #[derive(serde::Deserialize, Default)]
//! #[serde(default)]
//! struct Empty {}
//! #[derive(serde::Serialize)]
//! struct NetworkId {
//!     #[serde(rename = "networkID", with = "firn_rpc::avajson::u32_string")]
//!     network_id: u32,
//! }
//!
//! /// `info.getNetworkID`
//! async fn get_network_id(network: u32, _: Empty) -> Result<NetworkId, String> {
//!     Ok(NetworkId { network_id: network })
//! }
//!
//! # tokio_test_block();
//! # fn tokio_test_block() {
//! let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
//! rt.block_on(async {
//!     let info = AvaServer::new(5).service(AvaService::new("info").method("getNetworkID", get_network_id));
//!     let body = br#"{"jsonrpc":"2.0","method":"info.getNetworkID","params":{},"id":1}"#;
//!     let out = info.call_raw(body, None).await.unwrap();
//!     assert_eq!(out, b"{\"jsonrpc\":\"2.0\",\"result\":{\"networkID\":\"5\"},\"id\":1}\n");
//!     let _app = RpcRouter::new().mount("/ext/info", Arc::new(info)).build().unwrap();
//! });
//! # }
//! ```

pub mod avajson;
pub mod avalanche;
pub mod client;
pub mod error;
pub mod eth;
mod gojson;
pub mod methods;
pub mod params;
pub mod server;
pub mod ws;

pub use avalanche::{AvaServer, AvaService, EmptyReply};
pub use client::{
    AvalancheClient, BatchRequest, BatchResponse, ClientConfig, ClientError, EthClient,
    RpcNetworkConfig, RpcValidatorNetwork,
};
pub use error::ErrorObject;
pub use eth::{EthServer, PositionalParams};
pub use server::{
    Endpoint, Limits, RouteError, RpcRouter, ServerHandle, loopback, serve, spawn, spawn_on,
};
