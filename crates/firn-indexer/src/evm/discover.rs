//! Which EVM chains a node serves: the C-Chain at `/ext/bc/C/rpc`, and every chain
//! `platform.getBlockchains` lists with the subnet-EVM or coreth VM ID at
//! `/ext/bc/<blockchainID>/rpc`. [`follow_all`] runs one [`EvmIndexer`] per chain, each with
//! its own retries, and looks again for new chains while it runs.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use firn_core::ids::Id;
use firn_core::network::{CORETH_VM_ID, MAINNET_ID, SUBNET_EVM_VM_ID};
use firn_rpc::AvalancheClient;
use firn_rpc::methods::NoParams;
use firn_rpc::methods::info::GetNetworkId;
use firn_rpc::methods::platform::GetBlockchains;
use firn_store::Store;
use tokio::task::JoinSet;
use tracing::{debug, warn};

use super::EvmIndexer;
use crate::error::Result;
use crate::pchain::{IndexerConfig, Progress};

/// One EVM chain endpoint of a node, with what the chains list says about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvmEndpoint {
    /// `http://node:9650/ext/bc/<chain>/rpc`.
    pub url: String,
    /// Avalanche blockchain ID.
    pub blockchain_id: Id,
    /// Subnet (the zero ID for the primary network).
    pub subnet_id: Id,
    /// Chain name.
    pub name: String,
    /// Whether the node is on a test network.
    pub is_testnet: bool,
    /// Native token name.
    pub token_name: String,
    /// Native token symbol.
    pub token_symbol: String,
}

impl EvmEndpoint {
    /// The C-Chain of the node at `base` (`http://node:9650`).
    pub fn c_chain(base: &str, blockchain_id: Id, is_testnet: bool) -> Self {
        Self {
            url: format!("{}/ext/bc/C/rpc", base.trim_end_matches('/')),
            blockchain_id,
            subnet_id: Id::ZERO,
            name: "C-Chain".to_owned(),
            is_testnet,
            token_name: "Avalanche".to_owned(),
            token_symbol: "AVAX".to_owned(),
        }
    }

    pub(super) fn description(&self) -> String {
        if self.subnet_id == Id::ZERO {
            "The Avalanche Contract Chain".to_owned()
        } else {
            format!(
                "EVM chain {} on subnet {}",
                self.blockchain_id, self.subnet_id
            )
        }
    }
}

/// The EVM chains the node at `base` (`http://node:9650`) serves. The C-Chain is always
/// included; the P-Chain's list adds the L1s.
pub async fn discover(base: &str) -> Result<Vec<EvmEndpoint>> {
    let base = base.trim_end_matches('/');
    let config = firn_rpc::ClientConfig {
        max_retries: 1,
        ..firn_rpc::ClientConfig::default()
    };
    let info = AvalancheClient::new(&format!("{base}/ext/info"), config.clone())?;
    let testnet = match info.request::<GetNetworkId>(&NoParams {}).await {
        Ok(n) => n.network_id != MAINNET_ID,
        Err(_) => true,
    };
    let pchain = AvalancheClient::new(&format!("{base}/ext/bc/P"), config)?;
    let listed = pchain.request::<GetBlockchains>(&NoParams {}).await?;
    let mut out = Vec::new();
    let mut has_c = false;
    for c in listed.blockchains {
        if c.vm_id != SUBNET_EVM_VM_ID && c.vm_id != CORETH_VM_ID {
            continue;
        }
        if c.subnet_id == Id::ZERO && c.vm_id == CORETH_VM_ID {
            has_c = true;
            out.insert(0, EvmEndpoint::c_chain(base, c.id, testnet));
            continue;
        }
        let symbol: String = c
            .name
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .take(6)
            .collect::<String>()
            .to_uppercase();
        out.push(EvmEndpoint {
            url: format!("{base}/ext/bc/{}/rpc", c.id),
            blockchain_id: c.id,
            subnet_id: c.subnet_id,
            token_name: format!("{} token", c.name),
            token_symbol: symbol,
            name: c.name,
            is_testnet: testnet,
        });
    }
    if !has_c {
        out.insert(0, EvmEndpoint::c_chain(base, Id::ZERO, testnet));
    }
    Ok(out)
}

/// A callback told each chain's name with its progress.
pub type ChainProgress = Arc<dyn Fn(&str, &Progress) + Send + Sync>;

/// Which of the EVM chains a node lists to follow.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum ChainSelection {
    /// Every one the node serves (a node lists every chain of the network, serving few).
    #[default]
    Served,
    /// Only these, by blockchain ID (cb58), chain name, or `C` for the C-Chain.
    Only(Vec<String>),
}

impl ChainSelection {
    /// Whether `e` is one of the chains to follow.
    pub fn wants(&self, e: &EvmEndpoint) -> bool {
        match self {
            Self::Served => true,
            Self::Only(names) => names.iter().any(|n| {
                *n == e.blockchain_id.to_string()
                    || *n == e.name
                    || (n == "C" && e.subnet_id == Id::ZERO)
            }),
        }
    }
}

/// What discovery decided, for whoever reports it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DiscoveryStatus {
    /// Chains followed, by name.
    pub followed: Vec<String>,
    /// Chains the node lists but does not serve, by name, probed again later.
    pub skipped: Vec<String>,
}

/// The first wait before probing a chain the node did not serve again; doubled each time.
const FIRST_PROBE_BACKOFF: Duration = Duration::from_secs(30);
/// The longest wait between probes of a chain the node does not serve.
const MAX_PROBE_BACKOFF: Duration = Duration::from_secs(3600);
/// Probes in flight at once (a Fuji node lists thousands of chains).
const PROBES_IN_FLIGHT: usize = 16;

/// Whether the node serves the EVM chain at `url`: one `eth_chainId`, no retries.
pub async fn probe(url: &str) -> Result<u64> {
    let config = firn_rpc::ClientConfig {
        max_retries: 0,
        timeout: Duration::from_secs(10),
        ..firn_rpc::ClientConfig::default()
    };
    let client = firn_rpc::EthClient::new(url, config)?;
    let id: String = client.call("eth_chainId", ()).await?;
    firn_rpc::methods::eth::quantity::parse(&id)
        .map_err(|e| crate::IndexerError::decode("eth_chainId", e))
}

/// A chain the node listed but did not serve, and when to ask again.
#[derive(Debug)]
struct Unserved {
    name: String,
    next_probe: tokio::time::Instant,
    backoff: Duration,
}

/// Follows the EVM chains of the node at `base` that `selection` names and the node serves,
/// into `store`, until the future is dropped: one task per chain, each retrying its own
/// failures. The chains list is read again every `rediscover` to pick up new L1s. A listed
/// chain the node does not serve (most of a public network's) gets no follower: it is probed
/// again with a backoff from 30 s to an hour, and `status` says which are skipped.
pub async fn follow_all(
    base: String,
    store: Store,
    config: IndexerConfig,
    rediscover: Duration,
    progress: ChainProgress,
    selection: ChainSelection,
    status: Arc<std::sync::Mutex<DiscoveryStatus>>,
) {
    // Chains followed and chains not served, by URL, with their names.
    let mut followed: HashMap<String, String> = HashMap::new();
    let mut unserved: HashMap<String, Unserved> = HashMap::new();
    let mut tasks = JoinSet::new();
    let mut backoff = config.initial_backoff;
    loop {
        let endpoints = match discover(&base).await {
            Ok(endpoints) => endpoints,
            Err(error) => {
                warn!(target: "indexer::evm", %error, backoff_ms = backoff.as_millis() as u64, "cannot list the node's evm chains, retrying");
                tokio::time::sleep(backoff).await;
                backoff = backoff.saturating_mul(2).min(config.max_backoff);
                continue;
            }
        };
        backoff = config.initial_backoff;
        let now = tokio::time::Instant::now();
        let due: Vec<EvmEndpoint> = endpoints
            .into_iter()
            .filter(|e| selection.wants(e) && !followed.contains_key(&e.url))
            .filter(|e| unserved.get(&e.url).is_none_or(|u| u.next_probe <= now))
            .collect();
        let mut newly_skipped = Vec::new();
        for (e, served) in probe_all(due).await {
            match served {
                Ok(_) => {
                    unserved.remove(&e.url);
                    followed.insert(e.url.clone(), e.name.clone());
                    let name = e.name.clone();
                    let report = progress.clone();
                    let mut indexer = match EvmIndexer::new(e, store.clone(), config.clone()) {
                        Ok(i) => i.on_progress(move |p| report(&name, p)),
                        Err(error) => {
                            warn!(target: "indexer::evm", %error, "cannot follow evm chain");
                            continue;
                        }
                    };
                    tasks.spawn(async move {
                        if let Err(error) = indexer.follow().await {
                            warn!(target: "indexer::evm", %error, "evm follower stopped");
                        }
                    });
                }
                Err(error) => {
                    let next = unserved.get(&e.url).map_or(FIRST_PROBE_BACKOFF, |u| {
                        (u.backoff * 2).min(MAX_PROBE_BACKOFF)
                    });
                    if !unserved.contains_key(&e.url) {
                        debug!(target: "indexer::evm", chain = %e.name, %error, "the node does not serve this evm chain");
                        newly_skipped.push(e.name.clone());
                    }
                    unserved.insert(
                        e.url.clone(),
                        Unserved {
                            name: e.name,
                            next_probe: now + next,
                            backoff: next,
                        },
                    );
                }
            }
        }
        if !newly_skipped.is_empty() {
            let shown: Vec<&str> = newly_skipped.iter().take(5).map(String::as_str).collect();
            warn!(target: "indexer::evm", skipped = newly_skipped.len(), first = ?shown, "not following evm chains the node lists but does not serve; probing them again later");
        }
        if let Ok(mut s) = status.lock() {
            s.followed = followed.values().cloned().collect();
            s.followed.sort();
            s.skipped = unserved.values().map(|u| u.name.clone()).collect();
            s.skipped.sort();
        }
        tokio::time::sleep(rediscover).await;
    }
}

/// Probes `endpoints`, [`PROBES_IN_FLIGHT`] at a time.
async fn probe_all(endpoints: Vec<EvmEndpoint>) -> Vec<(EvmEndpoint, Result<u64>)> {
    let mut out = Vec::with_capacity(endpoints.len());
    let mut pending = endpoints.into_iter();
    let mut probes = JoinSet::new();
    loop {
        while probes.len() < PROBES_IN_FLIGHT {
            let Some(e) = pending.next() else { break };
            probes.spawn(async move {
                let served = probe(&e.url).await;
                (e, served)
            });
        }
        match probes.join_next().await {
            Some(Ok(done)) => out.push(done),
            Some(Err(error)) => warn!(target: "indexer::evm", %error, "a probe task failed"),
            None => return out,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_selection_names_chains_by_id_name_or_c() {
        let c = EvmEndpoint::c_chain("http://n:9650", Id([1; 32]), true);
        let l1 = EvmEndpoint {
            url: "http://n:9650/ext/bc/x/rpc".into(),
            blockchain_id: Id([2; 32]),
            subnet_id: Id([3; 32]),
            name: "Dexalot".into(),
            is_testnet: true,
            token_name: String::new(),
            token_symbol: String::new(),
        };
        assert!(ChainSelection::Served.wants(&c) && ChainSelection::Served.wants(&l1));
        let only_c = ChainSelection::Only(vec!["C".into()]);
        assert!(only_c.wants(&c) && !only_c.wants(&l1));
        let by_id = ChainSelection::Only(vec![Id([2; 32]).to_string()]);
        assert!(!by_id.wants(&c) && by_id.wants(&l1));
        let by_name = ChainSelection::Only(vec!["Dexalot".into()]);
        assert!(by_name.wants(&l1));
    }
}
