//! `info.*` on `/ext/info`.

use std::collections::BTreeMap;
use std::sync::Arc;

use firn_rpc::methods::NoParams;
use firn_rpc::methods::info::*;
use firn_rpc::{AvaServer, AvaService};

use super::shapes::hex0x;
use super::{MethodError, Node};

type N = Arc<Node>;

/// The version string `info.getNodeVersion` reports.
pub const NODE_VERSION: &str = concat!("firn/", env!("CARGO_PKG_VERSION"));

/// The `info` service on its own server.
pub fn server(node: N) -> AvaServer<N> {
    AvaServer::new(node).service(
        AvaService::new("info")
            .handle::<GetNetworkId, _, _, _>(get_network_id)
            .handle::<GetNetworkName, _, _, _>(get_network_name)
            .handle::<GetBlockchainId, _, _, _>(get_blockchain_id)
            .handle::<GetNodeId, _, _, _>(get_node_id)
            .handle::<GetNodeVersion, _, _, _>(get_node_version)
            .handle::<IsBootstrapped, _, _, _>(is_bootstrapped),
    )
}

/// `info.getNetworkID` → `{networkID}`.
async fn get_network_id(node: N, _: NoParams) -> Result<NetworkIdReply, MethodError> {
    Ok(NetworkIdReply {
        network_id: node.chain.network().network_id,
    })
}

/// `info.getNetworkName` → `{networkName}`.
async fn get_network_name(node: N, _: NoParams) -> Result<NetworkNameReply, MethodError> {
    Ok(NetworkNameReply {
        network_name: firn_core::network::network_name(node.chain.network().network_id),
    })
}

/// `info.getBlockchainID` `{alias}` → `{blockchainID}`.
async fn get_blockchain_id(node: N, args: AliasParams) -> Result<BlockchainIdReply, MethodError> {
    let blockchain_id = node
        .chain_alias(&args.alias)
        .ok_or(MethodError::UnknownChain(args.alias))?;
    Ok(BlockchainIdReply { blockchain_id })
}

/// `info.getNodeID` → `{nodeID, nodePOP:{publicKey, proofOfPossession}}`.
async fn get_node_id(node: N, _: NoParams) -> Result<NodeIdReply, MethodError> {
    Ok(NodeIdReply {
        node_id: node.node_id,
        node_pop: ProofOfPossession {
            public_key: hex0x(&node.public_key),
            proof_of_possession: hex0x(&node.pop),
        },
    })
}

/// `info.getNodeVersion` → firn's version in AvalancheGo's reply shape.
async fn get_node_version(_: N, _: NoParams) -> Result<NodeVersionReply, MethodError> {
    Ok(NodeVersionReply {
        version: NODE_VERSION.to_owned(),
        database_version: "v1.4.5".to_owned(),
        rpc_protocol_version: "42".to_owned(),
        git_commit: String::new(),
        vm_versions: BTreeMap::from([("platform".to_owned(), NODE_VERSION.to_owned())]),
    })
}

/// `info.isBootstrapped` `{chain}` → `{isBootstrapped: true}` for a known chain.
async fn is_bootstrapped(node: N, args: ChainParams) -> Result<BootstrappedReply, MethodError> {
    if args.chain.is_empty() {
        return Err(MethodError::MissingChain);
    }
    node.chain_alias(&args.chain)
        .ok_or(MethodError::UnknownChain(args.chain))?;
    Ok(BootstrappedReply {
        is_bootstrapped: true,
    })
}
