//! `info.*` on `/ext/info`.
//!
//! The devnet is one process standing for every validator: its node is the first initial
//! validator, its peers the other current primary-network validators that are online. It has
//! no peer-to-peer listener, so addresses are empty. Upgrades are AvalancheGo's local-network
//! ones up to Fortuna, what firn's chains run; Granite and Helicon are unscheduled.

use std::collections::BTreeMap;
use std::sync::Arc;

use firn_core::ids::Id;
use firn_core::network::{AVM_VM_ID, CORETH_VM_ID, PLATFORM_VM_ID, SUBNET_EVM_VM_ID};
use firn_rpc::methods::NoParams;
use firn_rpc::methods::info::*;
use firn_rpc::{AvaServer, AvaService};

use super::shapes::{hex0x, is_offline};
use super::upgrades;
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
            .handle::<IsBootstrapped, _, _, _>(is_bootstrapped)
            .handle::<GetNodeIp, _, _, _>(get_node_ip)
            .handle::<Peers, _, _, _>(peers)
            .handle::<Upgrades, _, _, _>(upgrades)
            .handle::<Uptime, _, _, _>(uptime)
            .handle::<Acps, _, _, _>(acps)
            .handle::<GetTxFee, _, _, _>(get_tx_fee)
            .handle::<GetVms, _, _, _>(get_vms),
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
        vm_versions: VMS
            .iter()
            .map(|(id, alias)| (vm_name(*id, *alias), NODE_VERSION.to_owned()))
            .collect(),
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

/// The VMs firn runs with their aliases; a VM without one goes by its ID, as a plugin does.
const VMS: [(Id, Option<&str>); 4] = [
    (PLATFORM_VM_ID, Some("platform")),
    (AVM_VM_ID, Some("avm")),
    (CORETH_VM_ID, Some("evm")),
    (SUBNET_EVM_VM_ID, None),
];

fn vm_name(id: Id, alias: Option<&str>) -> String {
    alias.map_or_else(|| id.to_string(), str::to_owned)
}

/// The fxs every AvalancheGo node installs.
const FXS: [&str; 3] = ["secp256k1fx", "nftfx", "propertyfx"];

/// `info.getNodeIP` → `{ip}`: empty, firn has no peer-to-peer listener.
async fn get_node_ip(_: N, _: NoParams) -> Result<NodeIpReply, MethodError> {
    Ok(NodeIpReply { ip: String::new() })
}

/// `info.peers` `{nodeIDs?}` → the other online primary-network validators.
async fn peers(node: N, args: PeersParams) -> Result<PeersReply, MethodError> {
    let wanted = args.node_ids.unwrap_or_default();
    let now = firn_core::calendar::rfc3339(node.chain.clock().now());
    let subnets = node.chain.subnets();
    let mut peers = Vec::new();
    for v in node.chain.current_validators(Id::ZERO, &wanted) {
        let s = &v.validator;
        if s.node_id == node.node_id || is_offline(&node, s) {
            continue;
        }
        let tracked_subnets = subnets
            .iter()
            .filter(|sub| {
                !node
                    .chain
                    .current_validators(sub.id, &[s.node_id])
                    .is_empty()
            })
            .map(|sub| sub.id)
            .collect();
        peers.push(Peer {
            ip: String::new(),
            public_ip: String::new(),
            node_id: s.node_id,
            version: NODE_VERSION.to_owned(),
            upgrade_time: upgrades::GRANITE,
            last_sent: now.clone(),
            last_received: now.clone(),
            observed_uptime: 100,
            tracked_subnets,
            supported_acps: Vec::new(),
            objected_acps: Vec::new(),
            benched: Vec::new(),
        });
    }
    Ok(PeersReply {
        num_peers: peers.len() as u64,
        peers,
    })
}

/// `info.upgrades` → the devnet's upgrade times.
async fn upgrades(_: N, _: NoParams) -> Result<UpgradesReply, MethodError> {
    Ok(upgrades::devnet())
}

/// `info.uptime` → this node's uptime as the validators see it: all of it unless the devnet
/// set it offline.
async fn uptime(node: N, _: NoParams) -> Result<UptimeReply, MethodError> {
    let own = node.chain.current_validators(Id::ZERO, &[node.node_id]);
    let up = own
        .first()
        .is_some_and(|v| !is_offline(&node, &v.validator));
    let percent = if up { 100.0 } else { 0.0 };
    Ok(UptimeReply {
        rewarding_stake_percentage: percent,
        weighted_average_percentage: percent,
    })
}

/// `info.acps` → `{acps: {}}`: this AvalancheGo release puts no ACP up for a vote.
async fn acps(_: N, _: NoParams) -> Result<AcpsReply, MethodError> {
    Ok(AcpsReply {
        acps: BTreeMap::new(),
    })
}

/// `info.getTxFee` → AvalancheGo's static fees for the network (1 milli-AVAX base fees).
async fn get_tx_fee(node: N, _: NoParams) -> Result<TxFeeReply, MethodError> {
    use firn_core::network::{AVAX, FUJI_ID, MAINNET_ID, MILLI_AVAX};
    let (create_subnet, transform_subnet, create_blockchain) = match node.chain.network().network_id
    {
        MAINNET_ID => (AVAX, 10 * AVAX, AVAX),
        FUJI_ID => (100 * MILLI_AVAX, AVAX, 100 * MILLI_AVAX),
        _ => (100 * MILLI_AVAX, 100 * MILLI_AVAX, 100 * MILLI_AVAX),
    };
    Ok(TxFeeReply {
        tx_fee: MILLI_AVAX,
        create_asset_tx_fee: MILLI_AVAX,
        create_subnet_tx_fee: create_subnet,
        transform_subnet_tx_fee: transform_subnet,
        create_blockchain_tx_fee: create_blockchain,
        add_primary_network_validator_fee: 0,
        add_primary_network_delegator_fee: 0,
        add_subnet_validator_fee: MILLI_AVAX,
        add_subnet_delegator_fee: MILLI_AVAX,
    })
}

/// `info.getVMs` → firn's VMs by ID with their aliases, and the fxs.
async fn get_vms(_: N, _: NoParams) -> Result<VmsReply, MethodError> {
    Ok(VmsReply {
        vms: VMS
            .iter()
            .map(|(id, alias)| {
                (
                    id.to_string(),
                    alias.iter().map(|a| (*a).to_owned()).collect(),
                )
            })
            .collect(),
        fxs: FXS
            .iter()
            .map(|name| (Id::from_padded_str(name).to_string(), (*name).to_owned()))
            .collect(),
    })
}
