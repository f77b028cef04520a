//! The EVM chains' RPC at `/ext/bc/<blockchainID>/rpc` (and `/ext/bc/C/rpc`): go-ethereum's
//! `eth_`, `net_`, `web3_` and `debug_` methods and subnet-EVM's own, over an
//! [`firn_evm::EvmChain`].
//!
//! An [`EvmNode`] holds one chain and a waker for its block producer; [`server`] registers one
//! small function per method: [`blocks`] (blocks, receipts, logs, fees), [`txs`] (sending and
//! finding transactions, account state, calls), [`debug`] (`callTracer` traces), [`filters`]
//! (geth's polling filters), [`pool`] (`txpool_*`), [`state`] (`eth_getProof`,
//! `eth_createAccessList`, `eth_callDetailed`, …), [`raw`] (`debug_getRaw*`), [`warp`] (`warp_*`), [`subnet`] (`eth_feeConfig`,
//! `eth_getChainConfig`, `eth_getActivePrecompilesAt`, `eth_getActiveRulesAt`), [`dev`]
//! (anvil's and Hardhat's dev-loop methods, `eth_sendTransaction` for impersonated accounts),
//! [`wallet`] (`eth_sign`, `eth_signTransaction`, `eth_fillTransaction`, `eth_resend`), and over
//! WebSocket (`/ext/bc/<chain>/ws`) [`subscriptions`] and `debug_subscribe`'s
//! [`trace_chain`].
//! [`EvmChains`] maps `C` and blockchain IDs to endpoints, for chains booted at any time.

pub mod blocks;
pub mod debug;
pub mod dev;
pub mod filters;
pub mod params;
pub mod pool;
pub mod raw;
pub mod shapes;
pub mod state;
pub mod subnet;
pub mod subscriptions;
pub mod trace_chain;
pub mod txs;
pub mod wallet;
pub mod warp;

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use firn_evm::{EvmChain, EvmError, TxError};
use serde_json::Value;
use tokio::sync::Notify;

use firn_rpc::EthServer;
use firn_rpc::error::{ErrorObject, REVERT_ERROR};
use firn_rpc::server::{Endpoint, RpcRouter};

/// The most blocks one `eth_getLogs` may cover (subnet-evm's default `api-max-blocks-per-request`
/// is 0 = unlimited; firn limits it so a request cannot scan the whole chain).
pub const MAX_LOG_RANGE: u64 = 2048;
/// The most blocks one `eth_feeHistory` covers (geth's `maxBlockFetchers` cap is 1024).
pub const MAX_FEE_HISTORY: u64 = 1024;

/// One chain served over RPC.
#[derive(Debug)]
pub struct EvmNode {
    chain: Arc<EvmChain>,
    waker: Option<Arc<Notify>>,
    filters: filters::Filters,
    payloads: subscriptions::Payloads,
    warp: warp::WarpSlot,
    impersonation: dev::Impersonation,
}

/// The state every handler gets.
pub type State = Arc<EvmNode>;

impl EvmNode {
    /// Serves `chain`; `waker` (from [`firn_evm::Producer::waker`]) is notified when a tx is
    /// pooled.
    pub fn new(chain: Arc<EvmChain>, waker: Option<Arc<Notify>>) -> Self {
        Self {
            chain,
            waker,
            filters: filters::Filters::default(),
            payloads: subscriptions::Payloads::default(),
            warp: warp::WarpSlot::default(),
            impersonation: dev::Impersonation::default(),
        }
    }

    /// Signs Warp messages with what `slot` holds once it is set.
    pub fn with_warp(mut self, slot: warp::WarpSlot) -> Self {
        self.warp = slot;
        self
    }

    /// The chain.
    pub fn chain(&self) -> &Arc<EvmChain> {
        &self.chain
    }

    fn wake(&self) {
        if let Some(w) = &self.waker {
            w.notify_one();
        }
    }

    /// Runs `f` on the chain off the async runtime (it takes the chain's locks and may run
    /// the EVM).
    async fn on_chain<T, E>(
        &self,
        f: impl FnOnce(&EvmChain) -> Result<T, E> + Send + 'static,
    ) -> Result<T, EthError>
    where
        T: Send + 'static,
        E: Into<EthError> + Send + 'static,
    {
        let chain = self.chain.clone();
        blocking(move || f(&chain)).await
    }
}

/// Runs `f` off the async runtime; a task that panicked is a server error.
async fn blocking<T, E>(f: impl FnOnce() -> Result<T, E> + Send + 'static) -> Result<T, EthError>
where
    T: Send + 'static,
    E: Into<EthError> + Send + 'static,
{
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| EthError::server(e.to_string()))?
        .map_err(Into::into)
}

/// A handler's error: its JSON-RPC error object.
#[derive(Debug)]
pub struct EthError(pub ErrorObject);

impl From<EthError> for ErrorObject {
    fn from(e: EthError) -> Self {
        e.0
    }
}

impl From<TxError> for EthError {
    fn from(e: TxError) -> Self {
        match e {
            TxError::Reverted { message, data } => EthError(ErrorObject {
                code: REVERT_ERROR,
                message,
                data: Some(Value::String(format!("0x{}", hex::encode(&data)))),
            }),
            other => EthError(ErrorObject::server(other.to_string())),
        }
    }
}

impl From<EvmError> for EthError {
    fn from(e: EvmError) -> Self {
        EthError::server(e.to_string())
    }
}

impl EthError {
    /// A `-32000` error with `message`.
    pub fn server(message: impl Into<String>) -> Self {
        EthError(ErrorObject::server(message))
    }
}

/// The endpoint for one chain, with every method registered.
pub fn server(node: State) -> EthServer<State> {
    let has_fee_config = matches!(node.chain.fee_rules(), firn_evm::FeeRules::Window(_));
    let s = EthServer::new(node).subscriptions(Arc::new(subscriptions::subscribe));
    let s = blocks::register(s);
    let s = txs::register(s);
    let s = debug::register(s);
    let s = filters::register(s);
    let s = pool::register(s);
    let s = state::register(s);
    let s = raw::register(s);
    let s = warp::register(s);
    let s = dev::register(s);
    let s = wallet::register(s);
    subnet::register(s, has_fee_config)
}

/// The EVM chains a node serves, by `C` and by blockchain ID (cb58), added while running.
#[derive(Default)]
pub struct EvmChains {
    endpoints: RwLock<HashMap<String, Arc<dyn Endpoint>>>,
}

impl std::fmt::Debug for EvmChains {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let map = self.endpoints.read().unwrap_or_else(|p| p.into_inner());
        let mut aliases: Vec<&String> = map.keys().collect();
        aliases.sort();
        f.debug_struct("EvmChains")
            .field("aliases", &aliases)
            .finish()
    }
}

impl EvmChains {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Serves `node` under each of `aliases` (`C`, the cb58 blockchain ID).
    pub fn add(&self, aliases: &[String], node: State) {
        let endpoint: Arc<dyn Endpoint> = Arc::new(server(node));
        let mut map = self.endpoints.write().unwrap_or_else(|p| p.into_inner());
        for a in aliases {
            map.insert(a.clone(), endpoint.clone());
        }
    }

    /// Whether `alias` is served.
    pub fn contains(&self, alias: &str) -> bool {
        self.endpoints
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .contains_key(alias)
    }

    fn endpoint(&self, alias: &str) -> Option<Arc<dyn Endpoint>> {
        self.endpoints
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get(alias)
            .cloned()
    }

    /// Mounts `/ext/bc/{chain}/rpc` and `/ext/bc/{chain}/ws` (WebSocket, with subscriptions)
    /// on `router`, resolved against this set at request time.
    pub fn mount(self: &Arc<Self>, router: RpcRouter) -> RpcRouter {
        let (rpc, ws) = (self.clone(), self.clone());
        router
            .mount_per_param("/ext/bc/{chain}/rpc", move |alias| rpc.endpoint(alias))
            .mount_per_param("/ext/bc/{chain}/ws", move |alias| ws.endpoint(alias))
    }
}
