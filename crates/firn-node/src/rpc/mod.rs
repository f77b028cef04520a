//! AvalancheGo's node RPC over firn's devnet: `/ext/bc/P` (alias `/ext/P`), `/ext/bc/X` (alias
//! `/ext/X`, [`avm`]), the C-Chain's atomic txs on `/ext/bc/C/avax` ([`avax`]),
//! `/ext/info`, `/ext/health`, `/ext/metrics`, `/ext/bc/<chain>/validators`, `/ext/bc/<chain>/proposervm` and
//! firn's own `/ext/firn`.
//!
//! A [`Node`] holds the [`PChain`] and what the services need around it (the network's JSON
//! context, the node's identity, a way to wake the block producer). [`node_router`] mounts one
//! [`AvaServer`] per endpoint; each method is one small async function next to its wire name in
//! [`platform`] (with its block and tx methods in `blocks`, its fee methods in `fees` and its
//! stake methods in `stake`), [`info`], [`health`], [`validators`], [`proposervm`] and [`firn`].

pub mod avax;
pub mod avm;
mod blocks;
mod error;
pub mod eth;
mod fees;
pub mod firn;
pub mod health;
pub mod index;
pub mod info;
pub mod metrics;
pub mod platform;
pub mod proposervm;
mod shapes;
mod stake;
mod upgrades;
pub mod usage;
mod utxos;
pub mod validators;

use std::sync::Arc;

use firn_core::address::ChainAddress;
use firn_core::encoding::Encoding;
use firn_core::ids::{Id, NodeId, ShortId};
use firn_core::pchain::json::JsonContext;
use firn_devnet::signers::DevnetSigners;
use firn_devnet::{NetworkIdentity, PChain, XChain};
use tokio::sync::Notify;

use firn_rpc::server::{Endpoint, RpcRouter};

/// What every node service works on: the chain and the node's identity. Share it in an `Arc`.
#[derive(Debug)]
pub struct Node {
    chain: Arc<PChain>,
    waker: Option<Arc<Notify>>,
    json: JsonContext,
    node_id: NodeId,
    public_key: [u8; 48],
    pop: [u8; 96],
    signers: Option<Arc<DevnetSigners>>,
    xchain: Option<Arc<XChain>>,
}

pub use error::MethodError;

impl Node {
    /// A node serving `chain`; `waker` (from [`firn_devnet::Producer::waker`]) is notified when a
    /// tx is issued. Its identity is the devnet's first initial validator.
    pub fn new(chain: Arc<PChain>, waker: Option<Arc<Notify>>) -> Self {
        let config = chain.config();
        let network = chain.network();
        let (public_key, pop) = match config.validator_bls_key(0) {
            Ok(sk) => (
                sk.public_key().to_bytes(),
                sk.sign_proof_of_possession().to_bytes(),
            ),
            Err(_) => ([0; 48], [0; 96]),
        };
        Self {
            json: JsonContext::pchain(network.network_id),
            node_id: config.validator_node_id(0),
            public_key,
            pop,
            chain,
            waker,
            signers: None,
            xchain: None,
        }
    }

    /// This node, also building the X-Chain's blocks when `firn.*` builds.
    pub fn with_xchain(mut self, xchain: Arc<XChain>) -> Self {
        self.xchain = Some(xchain);
        self
    }

    /// This node, also answering ACP-118 signature requests for the devnet's validators
    /// (`firn.requestWarpSignature`). Without signers it is like an AvalancheGo node, which
    /// answers them only over its p2p network.
    pub fn with_signers(mut self, signers: Arc<DevnetSigners>) -> Self {
        self.signers = Some(signers);
        self
    }

    /// The chain.
    pub fn chain(&self) -> &Arc<PChain> {
        &self.chain
    }

    /// The node ID `info.getNodeID` reports.
    pub fn node_id(&self) -> NodeId {
        self.node_id
    }

    fn wake_producer(&self) {
        if let Some(w) = &self.waker {
            w.notify_one();
        }
    }

    /// `P-<hrp>1…` for an address.
    fn address(&self, id: &ShortId) -> String {
        ChainAddress::new("P", self.chain.network().network_id, *id).to_string()
    }

    /// Parses a `P-<hrp>1…` address of this network.
    fn parse_address(&self, s: &str) -> Result<ShortId, MethodError> {
        parse_chain_address(s, "P", &self.json.hrp)
    }

    /// Resolves `P`, `X`, `C` or a chain ID (cb58): a primary network chain or a chain the
    /// P-Chain created.
    fn chain_alias(&self, alias: &str) -> Option<Id> {
        primary_chain_alias(&self.chain.network(), alias).or_else(|| {
            let id: Id = alias.parse().ok()?;
            self.chain.validated_by(&id).map(|_| id)
        })
    }
}

/// Resolves `P`/`platform`, `X`/`avm`, `C`/`evm` or the ID of one of those chains.
fn primary_chain_alias(n: &NetworkIdentity, alias: &str) -> Option<Id> {
    let primary = [n.p_chain_id, n.x_chain_id, n.c_chain_id];
    match alias {
        "P" | "platform" => Some(n.p_chain_id),
        "X" | "avm" => Some(n.x_chain_id),
        "C" | "evm" => Some(n.c_chain_id),
        other => other.parse::<Id>().ok().filter(|id| primary.contains(id)),
    }
}

/// Parses a `<chain>-<hrp>1…` address of chain `chain` on the network of `hrp`.
fn parse_chain_address(s: &str, chain: &str, hrp: &str) -> Result<ShortId, MethodError> {
    let bad = |reason: String| MethodError::BadAddress {
        address: s.to_string(),
        reason,
    };
    let a: ChainAddress = s.parse().map_err(|e| bad(format!("{e}")))?;
    if a.chain != chain {
        return Err(bad(format!("expected chain {chain}, got {}", a.chain)));
    }
    if a.hrp != hrp {
        return Err(bad(format!("expected hrp {hrp:?} but got {:?}", a.hrp)));
    }
    Ok(a.id)
}

/// Parses an `encoding` argument (`hex` default, `hexc`, `hexnc`, `json`), case-insensitively.
fn encoding(arg: Option<&str>) -> Result<Encoding, MethodError> {
    match arg {
        None | Some("") => Ok(Encoding::Hex),
        Some(s) => s.parse().map_err(|_| MethodError::InvalidArgument),
    }
}

/// Every node endpoint over `node`, ready to [`RpcRouter::build`].
pub fn node_router(node: Arc<Node>) -> RpcRouter {
    let platform: Arc<dyn Endpoint> = Arc::new(platform::server(node.clone()));
    let per_chain = node.clone();
    let proposer = node.clone();
    RpcRouter::new()
        .mount("/ext/bc/P", platform)
        .alias("/ext/P", "/ext/bc/P")
        .mount("/ext/info", Arc::new(info::server(node.clone())))
        .mount(
            "/ext/health",
            Arc::new(health::HealthEndpoint::new(node.clone())),
        )
        .mount("/ext/firn", Arc::new(firn::server(node)))
        .mount_per_param("/ext/bc/{chain}/validators", move |chain| {
            validators::endpoint(&per_chain, chain)
        })
        .mount_per_param("/ext/bc/{chain}/proposervm", move |chain| {
            proposervm::endpoint(&proposer, chain)
        })
}
