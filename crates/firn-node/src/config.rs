//! [`NodeConfig`]: everything [`crate::spawn`] needs, with [`NodeConfig::test`] for tests and
//! benches and [`NodeConfig::new`] for a node on a data directory.

use std::net::SocketAddr;
use std::path::PathBuf;

use firn_devnet::DevnetConfig;
use firn_devnet::history::HistoryPlan;
use firn_http::usage::UsageRecorder;
use firn_rpc::{Limits, loopback};

/// How the devnet's clock moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClockMode {
    /// With wall time (never behind the last block).
    Live,
    /// Only when moved: by the caller ([`firn_devnet::Clock::advance`]) or `firn.advanceTime`.
    Frozen,
}

/// Which validators answer ACP-118 signature requests (`firn.requestWarpSignature`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SignerKeys {
    /// None: the node answers like AvalancheGo, which signs only over its p2p network.
    Off,
    /// The genesis validators (add others with `DevnetSigners::add_key`).
    Genesis,
    /// The genesis validators and those a history of this plan added.
    Plan(HistoryPlan),
    /// The genesis validators and those any history since genesis can have added (a data dir
    /// whose plan is not known).
    Covering,
}

/// What [`crate::spawn`] starts.
#[derive(Debug, Clone)]
pub struct NodeConfig {
    /// The network's genesis and identity (an existing data dir must have been made with it).
    pub devnet: DevnetConfig,
    /// Where the chains keep their blocks; `None` for a temporary directory removed when the
    /// [`crate::NodeHandle`] is dropped.
    pub data_dir: Option<PathBuf>,
    /// Where the node RPC listens (`127.0.0.1:0` picks a free port).
    pub listen: SocketAddr,
    /// How the clock moves.
    pub clock: ClockMode,
    /// Whether blocks are built as txs arrive and as stakers' end times pass (a producer per
    /// chain); without it the caller builds (`PChain::build_until_idle`, `firn.advanceTime`).
    pub auto_build: bool,
    /// Whether the C-Chain runs, and every subnet-EVM chain the P-Chain creates.
    pub evm: bool,
    /// Which validators answer signature requests.
    pub signers: SignerKeys,
    /// Unsigned Warp messages (bytes) the EVM chains' validators sign besides what their chains
    /// vouch for, each on the chain it names as its source: subnet-EVM's
    /// `warp-off-chain-messages`. Checked at [`crate::Network::open`].
    pub warp_off_chain_messages: Vec<Vec<u8>>,
    /// Whether the node relays Teleporter messages between its EVM chains
    /// ([`crate::relayer`]; needs `evm` and signers).
    pub relay: bool,
    /// Body, time and concurrency limits of the RPC.
    pub limits: Limits,
    /// Where each RPC request is logged for the Data API's usage routes; `None` logs nothing.
    pub usage: Option<UsageRecorder>,
}

impl NodeConfig {
    /// A node on `data_dir` as `firn devnet` runs it: live clock, producers, EVM chains,
    /// signers, on AvalancheGo's default port 9650 on loopback.
    pub fn new(devnet: DevnetConfig, data_dir: impl Into<PathBuf>) -> Self {
        Self {
            devnet,
            data_dir: Some(data_dir.into()),
            listen: loopback(firn_rpc::server::DEFAULT_PORT),
            clock: ClockMode::Live,
            auto_build: true,
            evm: true,
            signers: SignerKeys::Covering,
            warp_off_chain_messages: Vec::new(),
            relay: true,
            limits: Limits::default(),
            usage: None,
        }
    }

    /// A node for a test or a bench: the default devnet on a temporary directory, a frozen
    /// clock at genesis, blocks built by hand, P-Chain only, no signers, a free loopback port.
    /// Turn on what the test needs:
    ///
    /// ```
    /// # use firn_node::NodeConfig;
    /// let config = NodeConfig::test().with_evm().with_auto_build();
    /// assert!(config.evm && config.auto_build);
    /// ```
    pub fn test() -> Self {
        Self {
            devnet: DevnetConfig::default(),
            data_dir: None,
            listen: loopback(0),
            clock: ClockMode::Frozen,
            auto_build: false,
            evm: false,
            signers: SignerKeys::Off,
            warp_off_chain_messages: Vec::new(),
            relay: false,
            limits: Limits::default(),
            usage: None,
        }
    }

    /// With this devnet configuration.
    pub fn with_devnet(mut self, devnet: DevnetConfig) -> Self {
        self.devnet = devnet;
        self
    }

    /// With the C-Chain and subnet-EVM chains.
    pub fn with_evm(mut self) -> Self {
        self.evm = true;
        self
    }

    /// With block producers.
    pub fn with_auto_build(mut self) -> Self {
        self.auto_build = true;
        self
    }

    /// With these signers.
    pub fn with_signers(mut self, signers: SignerKeys) -> Self {
        self.signers = signers;
        self
    }

    /// Relaying Teleporter messages between the EVM chains.
    pub fn with_relayer(mut self) -> Self {
        self.relay = true;
        self
    }

    /// Logging every RPC request into `recorder`.
    pub fn with_usage(mut self, recorder: UsageRecorder) -> Self {
        self.usage = Some(recorder);
        self
    }

    /// On this data directory.
    pub fn with_data_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.data_dir = Some(dir.into());
        self
    }
}
