//! Which EVM chains a node serves: the C-Chain at `/ext/bc/C/rpc`, and every chain
//! `platform.getBlockchains` lists with the subnet-EVM or coreth VM ID at
//! `/ext/bc/<blockchainID>/rpc`. [`follow_all`] runs one [`EvmIndexer`] per chain, each with
//! its own retries, and looks again for new chains while it runs.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use firn_core::ids::Id;
use firn_rpc::AvalancheClient;
use firn_store::Store;
use serde::Deserialize;
use serde_json::json;
use tokio::task::JoinSet;
use tracing::warn;

use super::EvmIndexer;
use crate::error::Result;
use crate::pchain::{IndexerConfig, Progress};

/// subnet-EVM's VM ID.
const SUBNET_EVM_VM_ID: &str = "srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy";
/// coreth's VM ID (`evm`, zero-padded): the C-Chain, and L1s running coreth.
const CORETH_VM_ID: Id = Id::from_padded_str("evm");
/// Avalanche Mainnet's network ID; every other network is a test network.
const MAINNET_ID: u32 = 1;

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

#[derive(Deserialize)]
struct Chains {
    blockchains: Vec<ChainEntry>,
}

#[derive(Deserialize)]
struct ChainEntry {
    id: Id,
    name: String,
    #[serde(rename = "subnetID")]
    subnet_id: Id,
    #[serde(rename = "vmID")]
    vm_id: Id,
}

#[derive(Deserialize)]
struct NetworkId {
    #[serde(rename = "networkID")]
    network_id: String,
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
    let testnet = match info
        .call::<_, NetworkId>("info.getNetworkID", &json!({}))
        .await
    {
        Ok(n) => n.network_id.parse::<u32>() != Ok(MAINNET_ID),
        Err(_) => true,
    };
    let pchain = AvalancheClient::new(&format!("{base}/ext/bc/P"), config)?;
    let listed: Chains = pchain.call("platform.getBlockchains", &json!({})).await?;
    let subnet_evm: Id = SUBNET_EVM_VM_ID
        .parse()
        .map_err(|e| crate::IndexerError::decode("subnet-EVM VM ID", e))?;
    let mut out = Vec::new();
    let mut has_c = false;
    for c in listed.blockchains {
        if c.vm_id != subnet_evm && c.vm_id != CORETH_VM_ID {
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

/// Follows every EVM chain of the node at `base` into `store` until the future is dropped:
/// one task per chain, each retrying its own failures; the chains list is read again every
/// `rediscover` to pick up new L1s. `progress` gets each chain's name with its progress.
pub async fn follow_all(
    base: String,
    store: Store,
    config: IndexerConfig,
    rediscover: Duration,
    progress: ChainProgress,
) {
    let mut seen: HashSet<String> = HashSet::new();
    let mut tasks = JoinSet::new();
    let mut backoff = config.initial_backoff;
    loop {
        match discover(&base).await {
            Ok(endpoints) => {
                backoff = config.initial_backoff;
                for e in endpoints {
                    if !seen.insert(e.url.clone()) {
                        continue;
                    }
                    let name = e.name.clone();
                    let report = progress.clone();
                    let indexer = EvmIndexer::new(e, store.clone(), config.clone());
                    let mut indexer = match indexer {
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
                tokio::time::sleep(rediscover).await;
            }
            Err(error) => {
                warn!(target: "indexer::evm", %error, backoff_ms = backoff.as_millis() as u64, "cannot list the node's evm chains, retrying");
                tokio::time::sleep(backoff).await;
                backoff = backoff.saturating_mul(2).min(config.max_backoff);
            }
        }
    }
}
