//! The X-Chain state: UTXOs (by ID and by owner address), assets, and the block's pending
//! shared-memory requests.
//!
//! As on the P-Chain, every write journals its inverse, so a tx or a block that fails part way
//! is undone by [`XState::rollback_to`] a [`XState::mark`].

use crate::shared_memory::{AtomicRequests, AtomicUtxo};
use firn_core::avm::fx::Fx;
use firn_core::avm::{FxOutput, Utxo};
use firn_core::ids::{Id, ShortId};
use std::collections::{BTreeSet, HashMap};

/// An asset: what its CreateAssetTx declared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Asset {
    /// The asset ID: its CreateAssetTx's ID.
    pub id: Id,
    /// The name.
    pub name: String,
    /// The symbol.
    pub symbol: String,
    /// Decimal places.
    pub denomination: u8,
    /// The fxs its initial states use: the only fxs its UTXOs and operations may use.
    pub fxs: BTreeSet<Fx>,
}

#[derive(Debug)]
enum Undo {
    UtxoAdded(Id),
    UtxoRemoved(Utxo),
    AssetAdded(Id),
    Timestamp(u64),
    AtomicPut,
    AtomicRemove,
}

/// The X-Chain state at the last accepted block (plus the block being built).
#[derive(Debug, Default)]
pub struct XState {
    timestamp: u64,
    utxos: HashMap<Id, Utxo>,
    by_address: BTreeSet<(ShortId, Id)>,
    assets: HashMap<Id, Asset>,
    atomic: AtomicRequests,
    journal: Vec<Undo>,
}

impl XState {
    /// The chain time of the last block.
    pub fn timestamp(&self) -> u64 {
        self.timestamp
    }

    /// A UTXO by ID.
    pub fn utxo(&self, id: &Id) -> Option<&Utxo> {
        self.utxos.get(id)
    }

    /// An asset by ID.
    pub fn asset(&self, id: &Id) -> Option<&Asset> {
        self.assets.get(id)
    }

    /// Every asset.
    pub fn assets(&self) -> impl Iterator<Item = &Asset> {
        self.assets.values()
    }

    /// The IDs of the UTXOs `address` owns, from `after` (exclusive) on.
    pub fn utxo_ids_of(
        &self,
        address: ShortId,
        after: Option<Id>,
    ) -> impl Iterator<Item = Id> + '_ {
        let from = match after {
            Some(id) => std::ops::Bound::Excluded((address, id)),
            None => std::ops::Bound::Included((address, Id::ZERO)),
        };
        let to = std::ops::Bound::Included((address, Id([0xff; 32])));
        self.by_address.range((from, to)).map(|(_, id)| *id)
    }

    /// The shared-memory requests of the block being executed.
    pub fn atomic(&self) -> &AtomicRequests {
        &self.atomic
    }

    /// Where the journal stands, for [`Self::rollback_to`].
    pub fn mark(&self) -> usize {
        self.journal.len()
    }

    /// Undoes every write since `mark`.
    pub fn rollback_to(&mut self, mark: usize) {
        while self.journal.len() > mark {
            let Some(undo) = self.journal.pop() else {
                break;
            };
            match undo {
                Undo::UtxoAdded(id) => {
                    self.raw_remove_utxo(&id);
                }
                Undo::UtxoRemoved(u) => self.raw_put_utxo(u),
                Undo::AssetAdded(id) => {
                    self.assets.remove(&id);
                }
                Undo::Timestamp(t) => self.timestamp = t,
                Undo::AtomicPut => {
                    self.atomic.puts.pop();
                }
                Undo::AtomicRemove => {
                    self.atomic.removes.pop();
                }
            }
        }
    }

    /// Makes the writes since the last commit permanent, returning the block's shared-memory
    /// requests for the caller to apply.
    pub fn commit(&mut self) -> AtomicRequests {
        self.journal.clear();
        std::mem::take(&mut self.atomic)
    }

    /// Sets the chain time.
    pub fn set_timestamp(&mut self, t: u64) {
        self.journal.push(Undo::Timestamp(self.timestamp));
        self.timestamp = t;
    }

    /// Adds a UTXO.
    pub fn add_utxo(&mut self, utxo: Utxo) {
        self.journal.push(Undo::UtxoAdded(utxo.id()));
        self.raw_put_utxo(utxo);
    }

    /// Removes a UTXO.
    pub fn remove_utxo(&mut self, id: &Id) {
        if let Some(u) = self.raw_remove_utxo(id) {
            self.journal.push(Undo::UtxoRemoved(u));
        }
    }

    /// Registers an asset.
    pub fn add_asset(&mut self, asset: Asset) {
        self.journal.push(Undo::AssetAdded(asset.id));
        self.assets.insert(asset.id, asset);
    }

    /// Exports a UTXO to `destination` when the block is accepted.
    pub fn put_atomic(&mut self, destination: Id, utxo: AtomicUtxo) {
        self.journal.push(Undo::AtomicPut);
        self.atomic.puts.push((destination, utxo));
    }

    /// Imports a UTXO from `source` when the block is accepted.
    pub fn remove_atomic(&mut self, source: Id, utxo_id: Id) {
        self.journal.push(Undo::AtomicRemove);
        self.atomic.removes.push((source, utxo_id));
    }

    fn raw_put_utxo(&mut self, u: Utxo) {
        let id = u.id();
        for a in owners_of(&u.output) {
            self.by_address.insert((*a, id));
        }
        self.utxos.insert(id, u);
    }

    fn raw_remove_utxo(&mut self, id: &Id) -> Option<Utxo> {
        let u = self.utxos.remove(id)?;
        for a in owners_of(&u.output) {
            self.by_address.remove(&(*a, *id));
        }
        Some(u)
    }
}

fn owners_of(o: &FxOutput) -> &[ShortId] {
    &o.owners().addresses
}
