//! The devnet's EVM chains: the C-Chain, booted with the devnet, and every chain the P-Chain
//! creates with the subnet-EVM VM ID, booted from its genesis bytes as soon as it is accepted.
//! Each chain keeps its block file in `<data dir>/evm/<blockchainID>/` and gets a block
//! producer (unless blocks are built by hand); all are served through one [`EvmChains`] set.
//! Whoever needs every chain as it boots (the Warp signers) subscribes with
//! [`EvmChainsHandle::on_boot`].

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use alloy_primitives::{Address, B256, U256};
use firn_core::ids::Id;
use firn_core::network::SUBNET_EVM_VM_ID;
use firn_core::warp::validators::CanonicalValidatorSet;
use firn_devnet::PChain;
use firn_devnet::c_atomic::CChainAtomic;
use firn_devnet::state::validators::canonical;
use firn_evm::atomic::AtomicBackend;
use firn_evm::warp::receive::WarpBackend;
use firn_evm::{EvmChain, EvmChainConfig, EvmGenesis, Producer};
use tokio::sync::{Notify, watch};
use tokio::task::JoinHandle;
use tracing::{info, warn};

use crate::error::NodeError;
use crate::rpc::eth::warp::{WarpSigning, WarpSlot};
use crate::rpc::eth::{EvmChains, EvmNode};

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
    /// The C-Chain.
    pub c_chain: Arc<EvmChain>,
    /// Wakes the C-Chain's block producer (with `auto_build`).
    pub c_chain_waker: Option<Arc<Notify>>,
    served: Arc<Served>,
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

/// The devnet's shared memory as the C-Chain's EVM sees it.
struct SharedMemoryBackend(CChainAtomic);

impl AtomicBackend for SharedMemoryBackend {
    fn verify(&self, tx: &firn_core::atomic::Tx, base_fee: u64) -> Result<(), String> {
        self.0.verify(tx, base_fee)
    }

    fn accept(&self, txs: &[firn_core::atomic::Tx]) {
        self.0.accept(txs)
    }
}

/// The devnet's P-Chain as a receiving chain's Warp predicates are verified against.
struct PChainWarp(Arc<PChain>);

impl WarpBackend for PChainWarp {
    fn p_chain_height(&self) -> u64 {
        self.0.height()
    }

    fn subnet_of(&self, chain_id: &Id) -> Option<Id> {
        self.0.validated_by(chain_id)
    }

    fn validators_at(&self, subnet_id: &Id, height: u64) -> Result<CanonicalValidatorSet, String> {
        let set = self.0.validators_at(subnet_id, height).ok_or_else(|| {
            format!("subnet {subnet_id} has no validator set at P-Chain height {height}")
        })?;
        canonical(&set).map_err(|e| e.to_string())
    }
}

fn open_chain(
    pchain: &Arc<PChain>,
    data_dir: &Path,
    id: &Id,
    genesis: EvmGenesis,
) -> Result<Arc<EvmChain>, NodeError> {
    let atomic = (*id == pchain.network().c_chain_id).then(|| {
        let backend = CChainAtomic::new(
            pchain.network(),
            pchain.shared_memory().clone(),
            pchain.clock().clone(),
        );
        Arc::new(SharedMemoryBackend(backend)) as Arc<dyn AtomicBackend>
    });
    let chain = EvmChain::open(EvmChainConfig {
        genesis,
        blockchain_id: B256::from(*id.as_bytes()),
        network_id: pchain.network().network_id,
        data_dir: Some(evm_dir(data_dir, id)),
        now: time_source(pchain),
        atomic,
        warp: Some(Arc::new(PChainWarp(pchain.clone()))),
    })
    .map_err(|source| NodeError::OpenEvmChain { chain: *id, source })?;
    Ok(Arc::new(chain))
}

/// The EVM chains opened so far: the C-Chain and the subnet-EVM chains the P-Chain created.
/// History generation drives them on the frozen clock; [`start`] then serves them.
pub struct OpenChains {
    /// The C-Chain.
    pub c_chain: Arc<EvmChain>,
    /// The subnet-EVM chains, by blockchain ID, in creation order.
    pub subnets: Vec<(Id, Arc<EvmChain>)>,
    seen: HashSet<Id>,
}

impl std::fmt::Debug for OpenChains {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenChains")
            .field("subnets", &self.subnets.len())
            .finish_non_exhaustive()
    }
}

impl OpenChains {
    /// Opens the C-Chain and every subnet-EVM chain already on the P-Chain.
    pub fn open(pchain: &Arc<PChain>, data_dir: &Path) -> Result<Self, NodeError> {
        let n = pchain.network();
        let funds = U256::from(C_CHAIN_FUNDS_AVAX) * U256::from(10u64).pow(U256::from(18));
        let alloc: Vec<(Address, U256)> = pchain
            .funded_keys()
            .iter()
            .map(|k| (Address::from(k.public_key().eth_address()), funds))
            .collect();
        let mut genesis = EvmGenesis::c_chain(n.evm_chain_id, pchain.config().genesis_time, &alloc);
        let c_dir = evm_dir(data_dir, &n.c_chain_id);
        if firn_evm::settle_icm_genesis(&c_dir).map_err(|source| NodeError::OpenEvmChain {
            chain: n.c_chain_id,
            source,
        })? {
            genesis = genesis.with_warp().with_contract(
                Address::from(firn_devnet::teleporter::TELEPORTER_MESSENGER),
                firn_devnet::teleporter::messenger_code()
                    .parse()
                    .unwrap_or_default(),
            );
            // The node's relayer pays its deliveries from a key of its own.
            let relayer = pchain.config().relayer_key().public_key().eth_address();
            genesis
                .alloc
                .entry(Address::from(relayer))
                .or_default()
                .balance = funds;
        }
        let registry_genesis = firn_evm::settle_registry_genesis(&c_dir).map_err(|source| {
            NodeError::OpenEvmChain {
                chain: n.c_chain_id,
                source,
            }
        })?;
        if registry_genesis {
            use firn_devnet::teleporter::{
                GENESIS_VERSIONS, TELEPORTER_REGISTRY, registry_code, registry_storage,
            };
            genesis = genesis
                .with_contract(
                    Address::from(TELEPORTER_REGISTRY),
                    registry_code().parse().unwrap_or_default(),
                )
                .with_storage(
                    Address::from(TELEPORTER_REGISTRY),
                    registry_storage(GENESIS_VERSIONS),
                );
        }
        let c_chain = open_chain(pchain, data_dir, &n.c_chain_id, genesis)?;
        let mut opened = Self {
            c_chain,
            subnets: Vec::new(),
            seen: HashSet::new(),
        };
        opened.refresh(pchain, data_dir);
        Ok(opened)
    }

    /// Opens the subnet-EVM chains the P-Chain created since the last call; returns how many
    /// (the new ones are at the end of `subnets`).
    pub fn refresh(&mut self, pchain: &Arc<PChain>, data_dir: &Path) -> usize {
        let before = self.subnets.len();
        self.subnets
            .extend(open_new_chains(pchain, data_dir, &mut self.seen));
        self.subnets.len() - before
    }

    /// Every open chain, the C-Chain first.
    pub fn all(&self) -> Vec<Arc<EvmChain>> {
        std::iter::once(self.c_chain.clone())
            .chain(self.subnets.iter().map(|(_, c)| c.clone()))
            .collect()
    }
}

/// Serves chains opened already (say, by history generation), and starts watching for new ones;
/// with `auto_build`, each chain gets a block producer.
pub fn start(
    pchain: &Arc<PChain>,
    data_dir: &Path,
    opened: OpenChains,
    auto_build: bool,
) -> EvmChainsHandle {
    let n = pchain.network();
    let served = Arc::new(Served {
        pchain: pchain.clone(),
        data_dir: data_dir.to_path_buf(),
        seen: std::sync::Mutex::new(opened.seen),
        chains: Arc::new(EvmChains::new()),
        producers: Arc::default(),
        booted: Arc::default(),
        auto_build,
        warp: WarpSlot::default(),
    });
    let c_chain_waker = served.serve(
        opened.c_chain.clone(),
        &["C".into(), n.c_chain_id.to_string()],
    );
    for (id, chain) in &opened.subnets {
        served.serve(chain.clone(), &[id.to_string()]);
    }

    let (stop, mut stopped) = watch::channel(false);
    let watcher = {
        let served = served.clone();
        tokio::spawn(async move {
            loop {
                served.boot_new_chains();
                tokio::select! {
                    _ = stopped.changed() => break,
                    _ = tokio::time::sleep(CHAIN_POLL) => {}
                }
            }
        })
    };
    EvmChainsHandle {
        chains: served.chains.clone(),
        c_chain: opened.c_chain,
        c_chain_waker,
        served,
        stop,
        watcher,
    }
}

/// Where a booted chain goes: the endpoint set, its producer, the boot hooks; and what is
/// needed to boot the chains the P-Chain creates next.
struct Served {
    pchain: Arc<PChain>,
    data_dir: PathBuf,
    seen: std::sync::Mutex<HashSet<Id>>,
    chains: Arc<EvmChains>,
    producers: Shared<Vec<Producer>>,
    booted: Shared<Booted>,
    auto_build: bool,
    warp: WarpSlot,
}

impl std::fmt::Debug for Served {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Served")
            .field("booted", &*lock(&self.booted))
            .field("auto_build", &self.auto_build)
            .finish_non_exhaustive()
    }
}

impl Served {
    /// Boots and serves the subnet-EVM chains the P-Chain created since the last look.
    fn boot_new_chains(&self) {
        let opened = open_new_chains(&self.pchain, &self.data_dir, &mut lock(&self.seen));
        for (id, chain) in opened {
            self.serve(chain, &[id.to_string()]);
        }
    }

    /// Serves `chain`; returns its producer's waker.
    fn serve(&self, chain: Arc<EvmChain>, aliases: &[String]) -> Option<Arc<Notify>> {
        let waker = if self.auto_build {
            let producer = Producer::spawn(chain.clone(), None);
            let waker = producer.waker();
            lock(&self.producers).push(producer);
            Some(waker)
        } else {
            None
        };
        self.chains.add(
            aliases,
            Arc::new(EvmNode::new(chain.clone(), waker.clone()).with_warp(self.warp.clone())),
        );
        let mut booted = lock(&self.booted);
        for hook in &booted.hooks {
            hook(&chain);
        }
        booted.chains.push(chain);
        waker
    }
}

/// Opens the subnet-EVM chains on the P-Chain not in `seen` yet.
fn open_new_chains(
    pchain: &Arc<PChain>,
    data_dir: &Path,
    seen: &mut HashSet<Id>,
) -> Vec<(Id, Arc<EvmChain>)> {
    let mut opened = Vec::new();
    for created in pchain.blockchains() {
        if created.vm_id != SUBNET_EVM_VM_ID || !seen.insert(created.id) {
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
                opened.push((created.id, chain));
            }
            Err(error) => {
                warn!(target: "evm", chain = %created.id, %error, "not booting chain")
            }
        }
    }
    opened
}

impl EvmChainsHandle {
    /// Every chain served so far, the C-Chain first.
    pub fn served(&self) -> Vec<Arc<EvmChain>> {
        lock(&self.served.booted).chains.clone()
    }

    /// The chain with blockchain ID `id`, if it is served.
    pub fn chain(&self, id: &Id) -> Option<Arc<EvmChain>> {
        let id = B256::from(*id.as_bytes());
        self.served().into_iter().find(|c| c.blockchain_id() == id)
    }

    /// Boots the subnet-EVM chains the P-Chain created since the last look now, rather than
    /// at the watcher's next poll (for callers that build P-Chain blocks by hand).
    pub fn boot_new_chains(&self) {
        self.served.boot_new_chains();
    }

    /// Lets every chain's `warp_*` methods sign with `signing` (set once, when the node's
    /// signers start; a later call keeps the first).
    pub fn set_warp_signing(&self, signing: WarpSigning) {
        let _ = self.served.warp.set(signing);
    }

    /// Calls `hook` with every chain booted so far, then with each chain as it boots.
    pub fn on_boot(&self, hook: OnBoot) {
        let mut booted = lock(&self.served.booted);
        for chain in &booted.chains {
            hook(chain);
        }
        booted.hooks.push(hook);
    }

    /// Stops the watcher and every producer.
    pub async fn shutdown(self) {
        let _ = self.stop.send(true);
        let _ = self.watcher.await;
        let producers: Vec<Producer> = std::mem::take(&mut *lock(&self.served.producers));
        for p in producers {
            p.shutdown().await;
        }
    }
}
