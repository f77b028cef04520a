//! `info.*` on `/ext/info`.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::json;

use super::shapes::hex0x;
use super::{Node, NodeError, RpcResult};
use crate::{AvaServer, AvaService};

type N = Arc<Node>;

/// The version string `info.getNodeVersion` reports.
pub const NODE_VERSION: &str = concat!("firn/", env!("CARGO_PKG_VERSION"));

/// The `info` service on its own server.
pub fn server(node: N) -> AvaServer<N> {
    AvaServer::new(node).service(
        AvaService::new("info")
            .method("getNetworkID", get_network_id)
            .method("getNetworkName", get_network_name)
            .method("getBlockchainID", get_blockchain_id)
            .method("getNodeID", get_node_id)
            .method("getNodeVersion", get_node_version)
            .method("isBootstrapped", is_bootstrapped),
    )
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Empty {}

/// `info.getNetworkID` → `{networkID}`.
async fn get_network_id(node: N, _: Empty) -> RpcResult {
    Ok(json!({ "networkID": node.chain.network().network_id.to_string() }))
}

/// `info.getNetworkName` → `{networkName}`.
async fn get_network_name(node: N, _: Empty) -> RpcResult {
    let name = firn_core::address::network_name(node.chain.network().network_id);
    Ok(json!({ "networkName": name }))
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct AliasArg {
    alias: String,
}

/// `info.getBlockchainID` `{alias}` → `{blockchainID}`.
async fn get_blockchain_id(node: N, args: AliasArg) -> RpcResult {
    let id = node
        .chain_alias(&args.alias)
        .ok_or(NodeError::UnknownChain(args.alias))?;
    Ok(json!({ "blockchainID": id }))
}

/// `info.getNodeID` → `{nodeID, nodePOP:{publicKey, proofOfPossession}}`.
async fn get_node_id(node: N, _: Empty) -> RpcResult {
    Ok(json!({
        "nodeID": node.node_id,
        "nodePOP": {
            "publicKey": hex0x(&node.public_key),
            "proofOfPossession": hex0x(&node.pop),
        },
    }))
}

/// `info.getNodeVersion` → firn's version in AvalancheGo's reply shape.
async fn get_node_version(_: N, _: Empty) -> RpcResult {
    Ok(json!({
        "version": NODE_VERSION,
        "databaseVersion": "v1.4.5",
        "rpcProtocolVersion": "42",
        "gitCommit": "",
        "vmVersions": { "platform": NODE_VERSION },
    }))
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct ChainArg {
    chain: String,
}

/// `info.isBootstrapped` `{chain}` → `{isBootstrapped: true}` for a known chain.
async fn is_bootstrapped(node: N, args: ChainArg) -> RpcResult {
    if args.chain.is_empty() {
        return Err(NodeError::MissingChain);
    }
    node.chain_alias(&args.chain)
        .ok_or(NodeError::UnknownChain(args.chain))?;
    Ok(json!({ "isBootstrapped": true }))
}
