//! The devnet's EVM chains: the C-Chain, booted with the devnet, and every chain the P-Chain
//! creates with the subnet-EVM VM ID, booted from its genesis bytes as soon as it is accepted.
//! Each chain keeps its block file in `<data dir>/evm/<blockchainID>/` and gets a block
//! producer; all are served through one [`EvmChains`] set. Whoever needs every chain as it
//! boots (the Warp signers) subscribes with [`EvmChainsHandle::on_boot`].

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use alloy_primitives::{Address, B256, U256};
use anyhow::Context;
use firn_core::ids::Id;
use firn_devnet::PChain;
use firn_evm::{EvmChain, EvmChainConfig, EvmGenesis, Producer, SUBNET_EVM_VM_ID};
use firn_rpc::node::eth::{EvmChains, EvmNode};
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tracing::{info, warn};

/// How often the P-Chain is checked for new subnet-EVM chains.
const CHAIN_POLL: Duration = Duration::from_millis(200);
/// What each funded key holds on the C-Chain: 50 million AVAX (18 decimals on C).
const C_CHAIN_FUNDS_AVAX: u64 = 50_000_000;

/// Called with each EVM chain once it is booted.
pub type OnBoot = Arc<dyn Fn(&Arc<EvmChain>) + Send + Sync>;

/// The chains booted so far and who wants to hear of the next ones.
#[derive(Default)]
struct Booted {
    chains: Vec<Arc<EvmChain>>,
    hooks: Vec<OnBoot>,
}

impl std::fmt::Debug for Booted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Booted")
            .field("chains", &self.chains.len())
            .field("hooks", &self.hooks.len())
            .finish()
    }
}

type Shared<T> = Arc<std::sync::Mutex<T>>;

fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The running EVM chains and the task that boots new ones.
#[derive(Debug)]
pub struct EvmChainsHandle {
    /// Every chain's endpoint, by alias.
    pub chains: Arc<EvmChains>,
    producers: Shared<Vec<Producer>>,
    booted: Shared<Booted>,
    stop: watch::Sender<bool>,
    watcher: JoinHandle<()>,
}

fn evm_dir(data_dir: &Path, chain_id: &Id) -> PathBuf {
    data_dir.join("evm").join(chain_id.to_string())
}

fn time_source(pchain: &Arc<PChain>) -> firn_evm::TimeSource {
    let clock = pchain.clock().clone();
    Arc::new(move || clock.now())
}

fn open_chain(
    pchain: &Arc<PChain>,
    data_dir: &Path,
    id: &Id,
    genesis: EvmGenesis,
) -> anyhow::Result<Arc<EvmChain>> {
    let chain = EvmChain::open(EvmChainConfig {
        genesis,
        blockchain_id: B256::from(*id.as_bytes()),
        network_id: pchain.network().network_id,
        data_dir: Some(evm_dir(data_dir, id)),
        now: time_source(pchain),
    })
    .with_context(|| format!("couldn't open EVM chain {id}"))?;
    Ok(Arc::new(chain))
}

/// Boots the C-Chain and every subnet-EVM chain already on the P-Chain, and starts watching
/// for new ones.
pub fn start(pchain: &Arc<PChain>, data_dir: &Path) -> anyhow::Result<EvmChainsHandle> {
    let n = pchain.network();
    let funds = U256::from(C_CHAIN_FUNDS_AVAX) * U256::from(10u64).pow(U256::from(18));
    let alloc: Vec<(Address, U256)> = pchain
        .funded_keys()
        .iter()
        .map(|k| (Address::from(k.public_key().eth_address()), funds))
        .collect();
    let genesis = EvmGenesis::c_chain(n.evm_chain_id, pchain.config().genesis_time, &alloc);
    let c_chain = open_chain(pchain, data_dir, &n.c_chain_id, genesis)?;
    let chains = Arc::new(EvmChains::new());
    let producers = Arc::new(std::sync::Mutex::new(Vec::new()));
    let booted: Shared<Booted> = Arc::default();
    serve(
        &chains,
        &producers,
        &booted,
        c_chain.clone(),
        &["C".into(), n.c_chain_id.to_string()],
    );

    let (stop, mut stopped) = watch::channel(false);
    let watcher = {
        let pchain = pchain.clone();
        let data_dir = data_dir.to_path_buf();
        let chains = chains.clone();
        let producers = producers.clone();
        let booted = booted.clone();
        tokio::spawn(async move {
            let mut seen: HashSet<Id> = HashSet::new();
            loop {
                boot_new_chains(&pchain, &data_dir, &chains, &producers, &booted, &mut seen);
                tokio::select! {
                    _ = stopped.changed() => break,
                    _ = tokio::time::sleep(CHAIN_POLL) => {}
                }
            }
        })
    };
    Ok(EvmChainsHandle {
        chains,
        producers,
        booted,
        stop,
        watcher,
    })
}

fn serve(
    chains: &EvmChains,
    producers: &std::sync::Mutex<Vec<Producer>>,
    booted: &std::sync::Mutex<Booted>,
    chain: Arc<EvmChain>,
    aliases: &[String],
) {
    let producer = Producer::spawn(chain.clone(), None);
    chains.add(
        aliases,
        Arc::new(EvmNode::new(chain.clone(), Some(producer.waker()))),
    );
    lock(producers).push(producer);
    let mut booted = lock(booted);
    for hook in &booted.hooks {
        hook(&chain);
    }
    booted.chains.push(chain);
}

fn boot_new_chains(
    pchain: &Arc<PChain>,
    data_dir: &Path,
    chains: &EvmChains,
    producers: &std::sync::Mutex<Vec<Producer>>,
    booted: &std::sync::Mutex<Booted>,
    seen: &mut HashSet<Id>,
) {
    let Ok(vm) = SUBNET_EVM_VM_ID.parse::<Id>() else {
        return;
    };
    for created in pchain.blockchains() {
        if created.vm_id != vm || !seen.insert(created.id) {
            continue;
        }
        let genesis = match EvmGenesis::from_json(&created.genesis) {
            Ok(g) => g,
            Err(error) => {
                warn!(target: "evm", chain = %created.id, %error, "not booting chain");
                continue;
            }
        };
        match open_chain(pchain, data_dir, &created.id, genesis) {
            Ok(chain) => {
                info!(target: "evm", chain = %created.id, chain_id = chain.chain_id(), "EVM chain booted");
                serve(chains, producers, booted, chain, &[created.id.to_string()]);
            }
            Err(error) => {
                warn!(target: "evm", chain = %created.id, error = %format!("{error:#}"), "not booting chain")
            }
        }
    }
}

impl EvmChainsHandle {
    /// Calls `hook` with every chain booted so far, then with each chain as it boots.
    pub fn on_boot(&self, hook: OnBoot) {
        let mut booted = lock(&self.booted);
        for chain in &booted.chains {
            hook(chain);
        }
        booted.hooks.push(hook);
    }

    /// Stops the watcher and every producer.
    pub async fn shutdown(self) {
        let _ = self.stop.send(true);
        let _ = self.watcher.await;
        let producers: Vec<Producer> = std::mem::take(&mut *lock(&self.producers));
        for p in producers {
            p.shutdown().await;
        }
    }
}
