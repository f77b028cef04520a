//! The devnet X-Chain: a library VM that behaves like AvalancheGo's `avm` since Cortina
//! (linear StandardBlocks), with the secp256k1fx, nftfx and propertyfx feature extensions and
//! shared memory with the P-Chain and the C-Chain.
//!
//! [`XChain::open`] builds the X-Chain beside a [`PChain`]: the same network, clock, keys and
//! shared memory. Txs go in through [`XChain::issue_tx`] (verified by [`executor`] against the
//! last accepted state, then held in the mempool); [`XChain::build_block`] packs the mempool
//! into the next block, executes it, appends it to the chain's block file with an fsync, then
//! applies its exports and imports to shared memory. Opening a directory replays its blocks.
//!
//! Where it knowingly differs from AvalancheGo:
//! - genesis is AVAX alone, held by the funded keys; its CreateAssetTx is stored under the
//!   network's AVAX asset ID (the one the P-Chain uses), although its bytes, built from the
//!   devnet's own holders, hash to another ID; block 0 is an empty StandardBlock;
//! - a block is built as soon as the producer asks (shortly after a tx arrives), at the
//!   clock's time, with the mempool's txs up to [`TARGET_BLOCK_SIZE`] bytes; AvalancheGo's
//!   proposervm would also wait out the proposer window.

pub mod executor;
pub mod history;
pub mod state;
pub mod wallet;

use crate::clock::Clock;
use crate::error::{DevnetError, TxError};
use crate::genesis::{DevnetConfig, NetworkIdentity, Profile};
use crate::shared_memory::{AtomicUtxo, SharedMemory};
use crate::store::{AcceptedBlock, BlockStore};
use crate::vm::PChain;
use executor::{XExecutor, XFees};
use firn_core::avm::genesis::{Allocation, Genesis as AvmGenesis};
use firn_core::avm::tx::CreateAssetTx;
use firn_core::avm::{Block, Tx, UnsignedTx, Utxo};
use firn_core::ids::{Id, NodeId, ShortId};
use firn_core::network::MILLI_AVAX;
use state::{Asset, XState};
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::path::Path;
use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};
use tracing::{debug, info};

/// An accepted X-Chain block and its proposer.
pub type XBlock = AcceptedBlock<Block>;

/// Most bytes of txs a block carries (AvalancheGo's `targetBlockSize`).
pub const TARGET_BLOCK_SIZE: usize = 128 * 1024;

/// A tx's status, as `avm.getTxStatus` gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum XTxStatus {
    /// In an accepted block (or genesis).
    Accepted,
    /// In the mempool.
    Processing,
    /// Never seen, or dropped when building.
    Unknown,
}

/// An accepted tx and where it is.
#[derive(Debug, Clone)]
pub struct XTxInfo {
    /// The tx.
    pub tx: Tx,
    /// The block height; `None` for a genesis tx.
    pub height: Option<u64>,
    /// The block ID; `None` for a genesis tx.
    pub block_id: Option<Id>,
}

/// A page of UTXOs and where the next starts.
#[derive(Debug, Clone)]
pub struct XUtxoPage<U> {
    /// The UTXOs, by address then UTXO ID.
    pub utxos: Vec<U>,
    /// Pass back as `start` for the next page; `None` when this was the last.
    pub next: Option<(ShortId, Id)>,
}

/// The X-Chain's fees on each profile (`genesis/genesis_{fuji,local}.go`).
pub fn fees_of(profile: Profile) -> XFees {
    XFees {
        tx_fee: MILLI_AVAX,
        create_asset_tx_fee: match profile {
            Profile::Fuji => 10 * MILLI_AVAX,
            Profile::Local => MILLI_AVAX,
        },
    }
}

#[derive(Debug, Default)]
struct Mempool {
    order: VecDeque<Tx>,
    ids: HashSet<Id>,
    spent: HashSet<Id>,
}

impl Mempool {
    fn consumed(tx: &Tx) -> Vec<Id> {
        tx.unsigned()
            .consumed_utxos()
            .iter()
            .map(|u| u.id())
            .collect()
    }

    fn add(&mut self, tx: Tx) {
        self.spent.extend(Self::consumed(&tx));
        self.ids.insert(tx.id());
        self.order.push_back(tx);
    }

    fn take_all(&mut self) -> Vec<Tx> {
        self.ids.clear();
        self.spent.clear();
        self.order.drain(..).collect()
    }
}

#[derive(Debug, Clone, Copy)]
struct TxLocation {
    height: u64,
    index: usize,
}

#[derive(Debug)]
struct Inner {
    state: XState,
    blocks: Vec<XBlock>,
    block_index: HashMap<Id, u64>,
    tx_index: HashMap<Id, TxLocation>,
    genesis_txs: HashMap<Id, Tx>,
    mempool: Mempool,
    dropped: HashSet<Id>,
    store: Option<BlockStore<Block>>,
}

/// The devnet X-Chain VM. `Send + Sync`: share it in an `Arc`.
#[derive(Debug)]
pub struct XChain {
    inner: RwLock<Inner>,
    identity: NetworkIdentity,
    config: DevnetConfig,
    fees: XFees,
    peers: Vec<Id>,
    clock: Clock,
    shared: SharedMemory,
    validators: Vec<NodeId>,
}

impl XChain {
    /// Opens the X-Chain of `pchain`'s network in `data_dir`: genesis from the devnet's
    /// configuration, then every stored block replayed.
    pub fn open(pchain: &PChain, data_dir: impl AsRef<Path>) -> Result<Self, DevnetError> {
        let identity = pchain.network();
        let config = pchain.config();
        let validators = pchain
            .current_validators(Id::ZERO, &[])
            .into_iter()
            .map(|v| v.validator.node_id)
            .collect();
        let chain = Self {
            inner: RwLock::new(Inner {
                state: XState::default(),
                blocks: Vec::new(),
                block_index: HashMap::new(),
                tx_index: HashMap::new(),
                genesis_txs: HashMap::new(),
                mempool: Mempool::default(),
                dropped: HashSet::new(),
                store: None,
            }),
            fees: fees_of(identity.profile),
            peers: vec![identity.p_chain_id, identity.c_chain_id],
            identity,
            config,
            clock: pchain.clock().clone(),
            shared: pchain.shared_memory().clone(),
            validators,
        };
        let (store, stored) = BlockStore::<Block>::open(data_dir.as_ref())?;
        let genesis_block = chain.accept_genesis();
        let mut stored = stored.into_iter();
        let mut inner = chain.write();
        match stored.next() {
            Some(first) if first.block.id() != genesis_block.block.id() => {
                return Err(DevnetError::GenesisMismatch {
                    stored: first.block.id(),
                    configured: genesis_block.block.id(),
                });
            }
            Some(_) => {}
            None => {
                inner.store = Some(store);
                chain.persist(&mut inner, &genesis_block)?;
                chain.finish(&mut inner, genesis_block);
                drop(inner);
                return Ok(chain);
            }
        }
        chain.finish(&mut inner, genesis_block);
        for block in stored {
            chain.execute(&mut inner, &block, true)?;
            chain.finish(&mut inner, block);
        }
        inner.store = Some(store);
        info!(height = inner.blocks.len() - 1, "replayed X-Chain");
        drop(inner);
        Ok(chain)
    }

    fn read(&self) -> RwLockReadGuard<'_, Inner> {
        self.inner.read().unwrap_or_else(|e| e.into_inner())
    }

    fn write(&self) -> RwLockWriteGuard<'_, Inner> {
        self.inner.write().unwrap_or_else(|e| e.into_inner())
    }

    fn executor(&self, replaying: bool) -> XExecutor<'_> {
        XExecutor {
            network_id: self.identity.network_id,
            chain_id: self.identity.x_chain_id,
            avax: self.identity.avax_asset_id,
            fees: self.fees,
            peers: &self.peers,
            shared: &self.shared,
            replaying,
        }
    }

    /// AVAX's CreateAssetTx as the devnet's genesis holds it: each funded key holds
    /// `funded_amount`.
    pub fn genesis_asset_tx(config: &DevnetConfig, network_id: u32) -> CreateAssetTx {
        let allocations: Vec<Allocation> = (0..config.funded_keys)
            .map(|i| {
                let key = config.funded_key(i).public_key();
                Allocation {
                    avax_address: key.short_id(),
                    eth_address: key.eth_address(),
                    initial_amount: config.funded_amount,
                }
            })
            .collect();
        let mut genesis = AvmGenesis::avax(network_id, &allocations);
        let mut tx = genesis.assets.remove(0).tx;
        // The holders' Ethereum addresses would pass the X-Chain's memo limit.
        tx.base.memo = Default::default();
        tx
    }

    /// Applies genesis to the empty state and returns block 0.
    fn accept_genesis(&self) -> XBlock {
        let avax = self.identity.avax_asset_id;
        let create = Self::genesis_asset_tx(&self.config, self.identity.network_id);
        let mut inner = self.write();
        let state = &mut inner.state;
        state.set_timestamp(self.config.genesis_time);
        let mut index = 0u32;
        for s in &create.initial_states {
            for o in &s.outputs {
                state.add_utxo(Utxo {
                    tx_id: avax,
                    output_index: index,
                    asset_id: avax,
                    output: o.clone(),
                });
                index += 1;
            }
        }
        state.add_asset(Asset {
            id: avax,
            name: create.name.clone(),
            symbol: create.symbol.clone(),
            denomination: create.denomination,
            fxs: [firn_core::avm::Fx::Secp256k1].into(),
        });
        inner
            .genesis_txs
            .insert(avax, Tx::new(UnsignedTx::CreateAsset(create), Vec::new()));
        XBlock {
            block: Block::new(Id::ZERO, 0, self.config.genesis_time, Id::ZERO, Vec::new()),
            proposer: NodeId::EMPTY,
        }
    }

    /// Executes a block's txs on the state; on error the state is unchanged.
    fn execute(&self, inner: &mut Inner, b: &XBlock, replaying: bool) -> Result<(), DevnetError> {
        let block = &b.block;
        let height = block.height();
        let tip = inner.blocks.last().ok_or(DevnetError::Corrupt {
            height,
            reason: "no genesis block".into(),
        })?;
        if block.parent_id() != tip.block.id() || height != tip.block.height() + 1 {
            return Err(DevnetError::Corrupt {
                height,
                reason: "block does not extend the last accepted block".into(),
            });
        }
        if block.time() < inner.state.timestamp() {
            return Err(DevnetError::InvalidBlock {
                height,
                source: TxError::Rule("block timestamp is before its parent's".into()),
            });
        }
        let mark = inner.state.mark();
        inner.state.set_timestamp(block.time());
        let exec = self.executor(replaying);
        for tx in block.txs() {
            if let Err(source) = exec.execute(&mut inner.state, tx, block.time()) {
                inner.state.rollback_to(mark);
                return Err(DevnetError::InvalidBlock { height, source });
            }
        }
        Ok(())
    }

    fn persist(&self, inner: &mut Inner, b: &XBlock) -> Result<(), DevnetError> {
        match inner.store.as_mut() {
            Some(store) => store.append(b),
            None => Ok(()),
        }
    }

    /// Records an executed (and persisted) block: commits the state, applies its shared
    /// memory requests, indexes it.
    fn finish(&self, inner: &mut Inner, b: XBlock) {
        let height = b.block.height();
        let requests = inner.state.commit();
        self.shared.apply(&self.identity.x_chain_id, &requests);
        for (index, tx) in b.block.txs().iter().enumerate() {
            inner.tx_index.insert(tx.id(), TxLocation { height, index });
        }
        inner.block_index.insert(b.block.id(), height);
        inner.blocks.push(b);
    }

    // ---- writes ----

    /// Verifies a tx against the last accepted state and adds it to the mempool.
    pub fn issue_tx(&self, tx: Tx) -> Result<Id, TxError> {
        let id = tx.id();
        let mut inner = self.write();
        if inner.mempool.ids.contains(&id) || inner.tx_index.contains_key(&id) {
            return Err(TxError::Duplicate);
        }
        if Mempool::consumed(&tx)
            .iter()
            .any(|u| inner.mempool.spent.contains(u))
        {
            return Err(TxError::ConflictsWithOtherTx);
        }
        let now = self.clock.now().max(inner.state.timestamp());
        let mark = inner.state.mark();
        let result = self.executor(false).execute(&mut inner.state, &tx, now);
        inner.state.rollback_to(mark);
        result?;
        inner.dropped.remove(&id);
        inner.mempool.add(tx);
        Ok(id)
    }

    /// Decodes signed tx bytes (as `avm.issueTx` receives them) and issues the tx.
    pub fn issue_tx_bytes(&self, bytes: &[u8]) -> Result<Id, TxError> {
        let tx: Tx =
            firn_core::codec::from_bytes(bytes).map_err(|e| TxError::Malformed(e.to_string()))?;
        self.issue_tx(tx)
    }

    /// Builds and accepts the next block from the mempool, if it holds a tx that still
    /// verifies.
    pub fn build_block(&self) -> Result<Option<XBlock>, DevnetError> {
        let mut inner = self.write();
        if inner.mempool.order.is_empty() {
            return Ok(None);
        }
        let Some(tip) = inner.blocks.last() else {
            return Ok(None);
        };
        let parent_id = tip.block.id();
        let height = tip.block.height() + 1;
        let time = self.clock.now().max(inner.state.timestamp());
        let mark = inner.state.mark();
        inner.state.set_timestamp(time);
        let exec = self.executor(false);
        let mut included = Vec::new();
        let mut size = 0usize;
        let mut pending = inner.mempool.take_all().into_iter();
        for tx in pending.by_ref() {
            let tx_size = tx.bytes().len();
            if !included.is_empty() && size + tx_size > TARGET_BLOCK_SIZE {
                inner.mempool.add(tx);
                break;
            }
            match exec.execute(&mut inner.state, &tx, time) {
                Ok(()) => {
                    size += tx_size;
                    included.push(tx);
                }
                Err(error) => {
                    debug!(tx_id = %tx.id(), %error, "dropped X-Chain tx from mempool");
                    inner.dropped.insert(tx.id());
                }
            }
        }
        for tx in pending {
            inner.mempool.add(tx);
        }
        if included.is_empty() {
            inner.state.rollback_to(mark);
            return Ok(None);
        }
        let proposer = match self.validators.len() {
            0 => NodeId::EMPTY,
            n => self.validators[(height % n as u64) as usize],
        };
        let accepted = XBlock {
            block: Block::new(parent_id, height, time, Id::ZERO, included),
            proposer,
        };
        if let Err(e) = self.persist(&mut inner, &accepted) {
            inner.state.rollback_to(mark);
            for tx in accepted.block.txs() {
                inner.mempool.add(tx.clone());
            }
            return Err(e);
        }
        let txs = accepted.block.txs().len();
        self.finish(&mut inner, accepted.clone());
        info!(height, time, txs, "built X-Chain block");
        Ok(Some(accepted))
    }

    /// Builds blocks until the mempool is empty.
    pub fn build_until_idle(&self) -> Result<Vec<XBlock>, DevnetError> {
        let mut out = Vec::new();
        while let Some(b) = self.build_block()? {
            out.push(b);
        }
        Ok(out)
    }

    // ---- reads ----

    /// The network identity.
    pub fn network(&self) -> &NetworkIdentity {
        &self.identity
    }

    /// The X-Chain's ID.
    pub fn chain_id(&self) -> Id {
        self.identity.x_chain_id
    }

    /// The shared clock.
    pub fn clock(&self) -> &Clock {
        &self.clock
    }

    /// The static fees.
    pub fn fees(&self) -> XFees {
        self.fees
    }

    /// The devnet configuration.
    pub fn config(&self) -> &DevnetConfig {
        &self.config
    }

    /// Shared memory.
    pub fn shared_memory(&self) -> &SharedMemory {
        &self.shared
    }

    /// Number of pending txs.
    pub fn mempool_len(&self) -> usize {
        self.read().mempool.order.len()
    }

    /// The last accepted height.
    pub fn height(&self) -> u64 {
        self.read().blocks.len().saturating_sub(1) as u64
    }

    /// The chain time of the last accepted block.
    pub fn timestamp(&self) -> u64 {
        self.read().state.timestamp()
    }

    /// The last accepted block.
    pub fn last_accepted(&self) -> Option<XBlock> {
        self.read().blocks.last().cloned()
    }

    /// A block by height.
    pub fn block_by_height(&self, height: u64) -> Option<XBlock> {
        let inner = self.read();
        usize::try_from(height)
            .ok()
            .and_then(|h| inner.blocks.get(h).cloned())
    }

    /// A block by ID.
    pub fn block_by_id(&self, id: &Id) -> Option<XBlock> {
        let inner = self.read();
        let h = *inner.block_index.get(id)?;
        inner.blocks.get(h as usize).cloned()
    }

    /// An accepted tx (genesis txs included).
    pub fn tx(&self, id: &Id) -> Option<XTxInfo> {
        let inner = self.read();
        if let Some(tx) = inner.genesis_txs.get(id) {
            return Some(XTxInfo {
                tx: tx.clone(),
                height: None,
                block_id: None,
            });
        }
        let loc = *inner.tx_index.get(id)?;
        let b = inner.blocks.get(loc.height as usize)?;
        Some(XTxInfo {
            tx: b.block.txs().get(loc.index)?.clone(),
            height: Some(loc.height),
            block_id: Some(b.block.id()),
        })
    }

    /// A tx's status.
    pub fn tx_status(&self, id: &Id) -> XTxStatus {
        let inner = self.read();
        if inner.tx_index.contains_key(id) || inner.genesis_txs.contains_key(id) {
            XTxStatus::Accepted
        } else if inner.mempool.ids.contains(id) {
            XTxStatus::Processing
        } else {
            XTxStatus::Unknown
        }
    }

    /// An asset by ID.
    pub fn asset(&self, id: &Id) -> Option<Asset> {
        self.read().state.asset(id).cloned()
    }

    /// Every asset, by ID.
    pub fn assets(&self) -> Vec<Asset> {
        let mut all: Vec<Asset> = self.read().state.assets().cloned().collect();
        all.sort_by_key(|a| a.id);
        all
    }

    /// A UTXO by ID.
    pub fn utxo(&self, id: &Id) -> Option<Utxo> {
        self.read().state.utxo(id).cloned()
    }

    /// UTXOs owned by any of `addresses`, `limit` at most, after `start` (exclusive).
    pub fn utxos(
        &self,
        addresses: &[ShortId],
        start: Option<(ShortId, Id)>,
        limit: usize,
    ) -> XUtxoPage<Utxo> {
        let inner = self.read();
        let (utxos, next) = crate::paging::page_by_address(
            addresses,
            start,
            limit,
            |address, after| inner.state.utxo_ids_of(address, after),
            |id| inner.state.utxo(id).cloned(),
        );
        XUtxoPage { utxos, next }
    }

    /// UTXOs `source` exported to the X-Chain that any of `addresses` owns.
    pub fn atomic_utxos(
        &self,
        source: &Id,
        addresses: &[ShortId],
        start: Option<(ShortId, Id)>,
        limit: usize,
    ) -> XUtxoPage<AtomicUtxo> {
        let (utxos, next) =
            self.shared
                .list(&self.identity.x_chain_id, source, addresses, start, limit);
        XUtxoPage { utxos, next }
    }

    /// Per asset, the amounts of the secp256k1fx transfer outputs `addresses` own, as
    /// `avm.getAllBalances` counts them: with `include_partial` false only outputs with one
    /// owner and a locktime passed on the clock, with it every output naming an address.
    pub fn balances(&self, addresses: &[ShortId], include_partial: bool) -> BTreeMap<Id, Balance> {
        let inner = self.read();
        let now = self.clock.now();
        let mut wanted = addresses.to_vec();
        wanted.sort();
        wanted.dedup();
        let mut seen = HashSet::new();
        let mut out: BTreeMap<Id, Balance> = BTreeMap::new();
        for address in &wanted {
            for id in inner.state.utxo_ids_of(*address, None) {
                if !seen.insert(id) {
                    continue;
                }
                let Some(u) = inner.state.utxo(&id) else {
                    continue;
                };
                let firn_core::avm::FxOutput::Secp256k1Transfer(t) = &u.output else {
                    continue;
                };
                let owners = &t.owners;
                let sole = owners.addresses.len() == 1 && owners.locktime <= now;
                if !include_partial && !sole {
                    continue;
                }
                let b = out.entry(u.asset_id).or_default();
                b.amount = b.amount.saturating_add(t.amount);
                b.utxos.push(u.utxo());
            }
        }
        out
    }

    /// The funded keys' addresses, in index order.
    pub fn funded_addresses(&self) -> Vec<ShortId> {
        (0..self.config.funded_keys)
            .map(|i| self.config.funded_key(i).public_key().short_id())
            .collect()
    }
}

/// An asset's balance and the UTXOs making it up.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Balance {
    /// The amount.
    pub amount: u64,
    /// The UTXOs counted.
    pub utxos: Vec<firn_core::avax::UtxoId>,
}
