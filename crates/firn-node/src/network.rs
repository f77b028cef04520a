//! The network assembled: [`Network::open`] opens the P-Chain and the EVM chains on a data
//! directory (nothing runs yet, so history can be generated on a frozen clock), and
//! [`Network::serve`] starts the producers, the signers and the RPC server, giving a
//! [`NodeHandle`]. [`crate::spawn`] does both.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use firn_core::ids::Id;
use firn_core::keys::secp256k1::PrivateKey;
use firn_devnet::history::HistoryPlan;
use firn_devnet::{Clock, DevnetSigners, NetworkIdentity, PChain, Producer, XChain};
use firn_evm::EvmChain;
use firn_http::metrics::RouteMetrics;
use firn_rpc::ServerHandle;
use tempfile::TempDir;
use tokio::net::TcpListener;
use tracing::{info, warn};

use crate::config::{ClockMode, NodeConfig, SignerKeys};
use crate::error::NodeError;
use crate::evm_chains::{self, EvmChainsHandle, OpenChains};
use crate::evm_rules::OffChainMessages;
use crate::rpc::avax::{self, CAtomicNode};
use crate::rpc::avm::{self, XNode};
use crate::rpc::eth::warp::WarpSigning;
use crate::rpc::index;
use crate::rpc::metrics::{EvmChains, MetricsEndpoint};
use crate::rpc::usage::{ChainResolver, RpcUsage};
use crate::rpc::{Node, node_router};
use crate::signers::{devnet_signers, plan_covering};
use firn_aggregator::{Aggregator, AggregatorConfig};

/// Where the P-Chain keeps its blocks inside the data dir.
pub const PCHAIN_DIR: &str = "pchain";
/// Where the X-Chain keeps its blocks inside the data dir.
pub const XCHAIN_DIR: &str = "xchain";

/// The data directory: the caller's, or a temporary one removed with the handle.
#[derive(Debug)]
enum DataDir {
    Given(PathBuf),
    Temporary(TempDir),
}

impl DataDir {
    fn path(&self) -> &Path {
        match self {
            Self::Given(p) => p,
            Self::Temporary(t) => t.path(),
        }
    }
}

/// The chains of a network, open on their data directory, not yet served.
#[derive(Debug)]
pub struct Network {
    config: NodeConfig,
    /// `config.warp_off_chain_messages`, checked.
    off_chain: OffChainMessages,
    dir: DataDir,
    pchain: Arc<PChain>,
    xchain: Arc<XChain>,
    evm: Option<OpenChains>,
}

impl Network {
    /// Opens (or creates) the P-Chain and, if the config asks, the C-Chain and every subnet-EVM
    /// chain the P-Chain created. A frozen clock starts at the chain's last block.
    pub fn open(config: NodeConfig) -> Result<Self, NodeError> {
        let off_chain = OffChainMessages::parse(
            NetworkIdentity::of(config.devnet.profile).network_id,
            &config.warp_off_chain_messages,
        )
        .map_err(NodeError::OffChainMessages)?;
        let dir = match &config.data_dir {
            Some(p) => DataDir::Given(p.clone()),
            None => DataDir::Temporary(
                tempfile::Builder::new()
                    .prefix("firn-node-")
                    .tempdir()
                    .map_err(NodeError::TempDir)?,
            ),
        };
        let chain_dir = dir.path().join(PCHAIN_DIR);
        let genesis_time = config.devnet.genesis_time;
        let clock = match config.clock {
            ClockMode::Live => Clock::live(genesis_time),
            ClockMode::Frozen => Clock::frozen(genesis_time),
        };
        let pchain =
            PChain::open(config.devnet.clone(), &chain_dir, clock.clone()).map_err(|source| {
                NodeError::OpenPChain {
                    dir: chain_dir,
                    source,
                }
            })?;
        let pchain = Arc::new(pchain);
        let x_dir = dir.path().join(XCHAIN_DIR);
        let xchain = XChain::open(&pchain, &x_dir)
            .map_err(|source| NodeError::OpenXChain { dir: x_dir, source })?;
        let xchain = Arc::new(xchain);
        if config.clock == ClockMode::Frozen {
            clock.set(pchain.timestamp());
        }
        // The EVM chains read the P-Chain's clock, so blocks built on a frozen clock get
        // virtual times too.
        let evm = match config.evm {
            true => Some(OpenChains::open(&pchain, dir.path())?),
            false => None,
        };
        Ok(Self {
            config,
            off_chain,
            dir,
            pchain,
            xchain,
            evm,
        })
    }

    /// The P-Chain.
    pub fn pchain(&self) -> &Arc<PChain> {
        &self.pchain
    }

    /// The X-Chain.
    pub fn xchain(&self) -> &Arc<XChain> {
        &self.xchain
    }

    /// The clock every chain reads.
    pub fn clock(&self) -> &Clock {
        self.pchain.clock()
    }

    /// The data directory.
    pub fn data_dir(&self) -> &Path {
        self.dir.path()
    }

    /// The EVM chains opened so far, if the network runs them.
    pub fn evm_chains(&self) -> Option<&OpenChains> {
        self.evm.as_ref()
    }

    /// The EVM chains opened so far, with the P-Chain and data dir to open new ones.
    pub(crate) fn parts_mut(&mut self) -> (&Arc<PChain>, &Path, Option<&mut OpenChains>) {
        (&self.pchain, self.dir.path(), self.evm.as_mut())
    }

    /// Starts the producers (if the config asks), the signers and the node RPC on
    /// `config.listen`.
    pub async fn serve(self) -> Result<NodeHandle, NodeError> {
        let addr = self.config.listen;
        let listener = TcpListener::bind(addr)
            .await
            .map_err(|source| NodeError::Bind { addr, source })?;
        self.serve_on(listener)
    }

    /// As [`Network::serve`], on a listener bound already (to fail fast on a taken port
    /// before anything starts).
    pub fn serve_on(self, listener: TcpListener) -> Result<NodeHandle, NodeError> {
        let Self {
            config,
            off_chain,
            dir,
            pchain,
            xchain,
            evm,
        } = self;
        let producer = config.auto_build.then(|| Producer::spawn(pchain.clone()));
        let x_producer = config.auto_build.then(|| Producer::spawn(xchain.clone()));
        let avm = Arc::new(avm::server(Arc::new(XNode::new(
            xchain.clone(),
            x_producer.as_ref().map(Producer::waker),
        ))));
        let evm = evm.map(|opened| {
            Arc::new(evm_chains::start(
                &pchain,
                dir.path(),
                opened,
                config.auto_build,
            ))
        });
        // Whether the node signs, and the history plan whose validators' keys it holds.
        let history = match &config.signers {
            SignerKeys::Off => None,
            SignerKeys::Genesis => Some(None),
            SignerKeys::Plan(plan) => Some(Some(plan.clone())),
            SignerKeys::Covering => Some(Some(plan_covering(&pchain))),
        };
        let signers = history
            .map(|plan| devnet_signers(&pchain, plan.as_ref(), evm.as_deref(), off_chain))
            .transpose()?;
        let mut node = Node::new(pchain.clone(), producer.as_ref().map(Producer::waker))
            .with_xchain(xchain.clone());
        let mut relayer = None;
        if let (Some(signers), Some(evm)) = (&signers, &evm) {
            let network: Arc<dyn firn_aggregator::ValidatorNetwork> = signers.clone();
            let aggregator = Arc::new(Aggregator::new(
                network.clone(),
                AggregatorConfig::default(),
            ));
            evm.set_warp_signing(WarpSigning {
                aggregator: aggregator.clone(),
                network,
                node_id: node.node_id(),
            });
            if config.relay {
                let key = pchain.config().relayer_key();
                let cursor = dir.path().join(crate::relayer::CURSOR_FILE);
                relayer = Some(crate::relayer::spawn(evm.clone(), aggregator, key, cursor));
            }
        }
        if let Some(signers) = &signers {
            node = node.with_signers(signers.clone());
        }
        let node = Arc::new(node);
        let request_metrics = Arc::new(RouteMetrics::new("firn_node"));
        let served = evm.clone();
        let evm_list: EvmChains =
            Arc::new(move || served.as_ref().map(|e| e.served()).unwrap_or_default());
        let p_index = index::endpoint(pchain.clone());
        let x_index = index::endpoint(xchain.clone());
        let c_chain = evm.clone();
        let c_chain_id = pchain.network().c_chain_id;
        let mut routes = node_router(node.clone())
            .mount("/ext/bc/X", avm)
            .alias("/ext/X", "/ext/bc/X")
            .limits(config.limits)
            .metrics(request_metrics.clone())
            .mount(
                "/ext/metrics",
                Arc::new(MetricsEndpoint::new(node, request_metrics, evm_list)),
            )
            .mount_per_param("/ext/index/{chain}/block", move |chain| match chain {
                "P" => Some(p_index.clone()),
                "X" => Some(x_index.clone()),
                "C" => {
                    let c = c_chain.as_ref()?.chain(&c_chain_id)?;
                    Some(index::endpoint(c))
                }
                _ => None,
            });
        if let Some(evm) = &evm {
            routes = evm.chains.mount(routes);
            let atomic = CAtomicNode::new(
                evm.c_chain.clone(),
                pchain.shared_memory().clone(),
                pchain.network(),
                evm.c_chain_waker.clone(),
            );
            routes = routes
                .mount("/ext/bc/C/avax", Arc::new(avax::server(Arc::new(atomic))))
                .alias(&format!("/ext/bc/{c_chain_id}/avax"), "/ext/bc/C/avax");
        }
        let mut app = routes.build()?;
        if let Some(recorder) = config.usage.clone() {
            app = app.layer(axum::middleware::from_fn_with_state(
                Arc::new(RpcUsage {
                    recorder,
                    chains: evm_resolver(evm.clone(), c_chain_id),
                    body_limit: config.limits.body_limit,
                }),
                crate::rpc::usage::record,
            ));
        }
        let server = firn_rpc::spawn_on(listener, app).map_err(NodeError::Serve)?;
        info!(url = %server.url(), height = pchain.height(), "node serving");
        Ok(NodeHandle {
            url: server.url(),
            server: Some(server),
            pchain,
            xchain,
            producer,
            x_producer,
            evm,
            signers,
            relayer,
            dir,
        })
    }
}

/// A running node: its URL, chains, signers and keys. [`NodeHandle::shutdown`] stops it
/// cleanly; dropping it stops the server and removes a temporary data dir.
#[derive(Debug)]
pub struct NodeHandle {
    url: String,
    server: Option<ServerHandle>,
    pchain: Arc<PChain>,
    xchain: Arc<XChain>,
    producer: Option<Producer>,
    x_producer: Option<Producer>,
    evm: Option<Arc<EvmChainsHandle>>,
    signers: Option<Arc<DevnetSigners>>,
    relayer: Option<crate::relayer::Relayer>,
    dir: DataDir,
}

impl NodeHandle {
    /// `http://127.0.0.1:<port>`: the node's base URL (`/ext/bc/P`, `/ext/bc/C/rpc`, …).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The URL of a path on the node (`node.url_of("/ext/bc/P")`).
    pub fn url_of(&self, path: &str) -> String {
        format!("{}{path}", self.url)
    }

    /// The P-Chain.
    pub fn pchain(&self) -> &Arc<PChain> {
        &self.pchain
    }

    /// The X-Chain.
    pub fn xchain(&self) -> &Arc<XChain> {
        &self.xchain
    }

    /// The clock every chain reads.
    pub fn clock(&self) -> &Clock {
        self.pchain.clock()
    }

    /// The network's identity (network ID, HRP, chain and asset IDs).
    pub fn network(&self) -> NetworkIdentity {
        self.pchain.network()
    }

    /// The funded keys, in genesis order.
    pub fn funded_keys(&self) -> Vec<PrivateKey> {
        self.pchain.funded_keys()
    }

    /// The data directory.
    pub fn data_dir(&self) -> &Path {
        self.dir.path()
    }

    /// The EVM chains, if the node runs them.
    pub fn evm(&self) -> Option<&Arc<EvmChainsHandle>> {
        self.evm.as_ref()
    }

    /// The C-Chain, if the node runs EVM chains.
    pub fn c_chain(&self) -> Option<Arc<EvmChain>> {
        self.evm.as_ref()?.served().into_iter().next()
    }

    /// Every EVM chain served so far, the C-Chain first.
    pub fn evm_chains(&self) -> Vec<Arc<EvmChain>> {
        self.evm.as_ref().map(|e| e.served()).unwrap_or_default()
    }

    /// The validators answering signature requests, if the node has them.
    pub fn signers(&self) -> Option<&Arc<DevnetSigners>> {
        self.signers.as_ref()
    }

    /// Whether the node relays Teleporter messages between its EVM chains.
    pub fn relaying(&self) -> bool {
        self.relayer.is_some()
    }

    /// The plan whose validators' keys the signers hold, for a node whose history is unknown.
    pub fn covering_plan(&self) -> HistoryPlan {
        plan_covering(&self.pchain)
    }

    /// Stops accepting requests (those in flight finish), then stops the producers.
    pub async fn shutdown(mut self) {
        if let Some(server) = self.server.take()
            && let Err(e) = server.shutdown().await
        {
            warn!(error = %e, "the node RPC stopped with an error");
        }
        if let Some(producer) = self.producer.take() {
            producer.shutdown().await;
        }
        if let Some(producer) = self.x_producer.take() {
            producer.shutdown().await;
        }
        if let Some(relayer) = self.relayer.take() {
            relayer.stop().await;
        }
        if let Some(evm) = self.evm.take() {
            match Arc::try_unwrap(evm) {
                Ok(evm) => evm.shutdown().await,
                Err(_) => warn!("the EVM chains are still in use; not waiting for their producers"),
            }
        }
        info!(height = self.pchain.height(), "node stopped");
    }
}

/// Opens the network `config` describes and serves it: the node the binary, the benches and
/// every test start.
///
/// ```
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let node = firn_node::spawn(firn_node::NodeConfig::test()).await.unwrap();
/// assert!(node.url().starts_with("http://127.0.0.1:"));
/// assert_eq!(node.pchain().height(), 0);
/// node.shutdown().await;
/// # });
/// ```
pub async fn spawn(config: NodeConfig) -> Result<NodeHandle, NodeError> {
    Network::open(config)?.serve().await
}

/// The EVM chain ID behind a `/ext/bc/{chain}/…` alias, and whether it is the C-Chain.
fn evm_resolver(evm: Option<Arc<EvmChainsHandle>>, c_chain_id: Id) -> ChainResolver {
    Arc::new(move |alias: &str| {
        let id = if alias == "C" {
            c_chain_id
        } else {
            alias.parse::<Id>().ok()?
        };
        let chain = evm.as_ref()?.chain(&id)?;
        Some((chain.chain_id(), id == c_chain_id))
    })
}
