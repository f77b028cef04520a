//! Shared memory between the primary network's chains: the UTXOs one chain exported to
//! another, until the other imports them (AvalancheGo's `chains/atomic`).
//!
//! An ExportTx on chain A puts UTXOs into B's view of A; an ImportTx on B consumes them from
//! there, exactly once. A chain applies its block's [`AtomicRequests`] when it accepts the
//! block, after the block is on disk, in one step under one lock.
//!
//! Nothing here is persisted: every request is derived from the chains' blocks, and each chain
//! reapplies its own when it replays them. Chains replay one after another, so an import may
//! be replayed before the export it consumes; a consumed UTXO is therefore remembered, and a
//! later put of it is dropped. The final state is the same in any replay order.

use firn_core::avax::secp256k1fx::TransferOutput;
use firn_core::ids::{Id, ShortId};
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::ops::Bound;
use std::sync::{Arc, Mutex, MutexGuard};

/// A UTXO in shared memory: what every chain can export, a secp256k1fx transfer output.
/// Its codec bytes are what `getUTXOs` with `sourceChain` returns on every chain.
pub type AtomicUtxo = firn_core::avax::Utxo<TransferOutput>;

/// A block's changes to shared memory, made by the chain accepting it.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct AtomicRequests {
    /// UTXOs exported, with the chain each goes to.
    pub puts: Vec<(Id, AtomicUtxo)>,
    /// UTXO IDs imported, with the chain each came from.
    pub removes: Vec<(Id, Id)>,
}

impl AtomicRequests {
    /// True if the block touches no shared memory.
    pub fn is_empty(&self) -> bool {
        self.puts.is_empty() && self.removes.is_empty()
    }

    /// True if these requests already import `utxo_id` from `source`.
    pub fn removes(&self, source: &Id, utxo_id: &Id) -> bool {
        self.removes
            .iter()
            .any(|(s, u)| s == source && u == utxo_id)
    }
}

/// Where a page of [`SharedMemory::list`] stopped: the address and UTXO ID to resume after.
pub type Cursor = (ShortId, Id);

#[derive(Debug, Default)]
struct Inner {
    /// (destination, source) → UTXO ID → UTXO.
    utxos: BTreeMap<(Id, Id), BTreeMap<Id, AtomicUtxo>>,
    /// (destination, source, owner address, UTXO ID): the listing index.
    by_address: BTreeSet<(Id, Id, ShortId, Id)>,
    /// Every UTXO ever imported (never put back).
    consumed: HashSet<Id>,
}

/// The shared memory of one devnet: cheap to clone, every clone the same memory.
#[derive(Debug, Default, Clone)]
pub struct SharedMemory {
    inner: Arc<Mutex<Inner>>,
}

impl SharedMemory {
    /// Empty shared memory.
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The UTXO `utxo_id` that `source` exported to `chain`, if it is still there.
    pub fn get(&self, chain: &Id, source: &Id, utxo_id: &Id) -> Option<AtomicUtxo> {
        self.lock()
            .utxos
            .get(&(*chain, *source))
            .and_then(|m| m.get(utxo_id))
            .cloned()
    }

    /// Applies the requests of a block accepted on `chain`.
    pub fn apply(&self, chain: &Id, requests: &AtomicRequests) {
        if requests.is_empty() {
            return;
        }
        let mut inner = self.lock();
        for (source, utxo_id) in &requests.removes {
            inner.consumed.insert(*utxo_id);
            let key = (*chain, *source);
            let removed = inner.utxos.get_mut(&key).and_then(|m| m.remove(utxo_id));
            if let Some(u) = removed {
                for a in &u.output.owners.addresses {
                    inner.by_address.remove(&(key.0, key.1, *a, *utxo_id));
                }
            }
        }
        for (destination, utxo) in &requests.puts {
            let id = utxo.id();
            if inner.consumed.contains(&id) {
                continue;
            }
            for a in &utxo.output.owners.addresses {
                inner.by_address.insert((*destination, *chain, *a, id));
            }
            inner
                .utxos
                .entry((*destination, *chain))
                .or_default()
                .insert(id, utxo.clone());
        }
    }

    /// Up to `limit` UTXOs that `source` exported to `chain` and any of `addresses` owns,
    /// by address then UTXO ID, starting after `start`; and where the next page starts.
    pub fn list(
        &self,
        chain: &Id,
        source: &Id,
        addresses: &[ShortId],
        start: Option<Cursor>,
        limit: usize,
    ) -> (Vec<AtomicUtxo>, Option<Cursor>) {
        let inner = self.lock();
        let Some(utxos) = inner.utxos.get(&(*chain, *source)) else {
            return (Vec::new(), None);
        };
        let index = &inner.by_address;
        crate::paging::page_by_address(
            addresses,
            start,
            limit,
            |address, after| {
                let from = match after {
                    Some(u) => Bound::Excluded((*chain, *source, address, u)),
                    None => Bound::Included((*chain, *source, address, Id::ZERO)),
                };
                let to = Bound::Included((*chain, *source, address, Id([0xff; 32])));
                index.range((from, to)).map(|(_, _, _, id)| *id)
            },
            |id| utxos.get(id).cloned(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use firn_core::avax::secp256k1fx::OutputOwners;

    fn utxo(tx: u8, owners: &[u8]) -> AtomicUtxo {
        AtomicUtxo {
            tx_id: Id([tx; 32]),
            output_index: 0,
            asset_id: Id([9; 32]),
            output: TransferOutput {
                amount: 5,
                owners: OutputOwners {
                    locktime: 0,
                    threshold: 1,
                    addresses: owners.iter().map(|b| ShortId([*b; 20])).collect(),
                },
            },
        }
    }

    #[test]
    fn an_export_is_imported_once_in_either_replay_order() {
        let (p, x) = (Id([0; 32]), Id([1; 32]));
        let u = utxo(7, &[1]);
        let export = AtomicRequests {
            puts: vec![(p, u.clone())],
            removes: vec![],
        };
        let import = AtomicRequests {
            puts: vec![],
            removes: vec![(x, u.id())],
        };
        let in_order = SharedMemory::new();
        in_order.apply(&x, &export);
        assert_eq!(in_order.get(&p, &x, &u.id()), Some(u.clone()));
        in_order.apply(&p, &import);
        assert_eq!(in_order.get(&p, &x, &u.id()), None);
        // Replayed the other way round: the import first, so the put is dropped.
        let reversed = SharedMemory::new();
        reversed.apply(&p, &import);
        reversed.apply(&x, &export);
        assert_eq!(reversed.get(&p, &x, &u.id()), None);
        assert!(
            reversed
                .list(&p, &x, &[ShortId([1; 20])], None, 10)
                .0
                .is_empty()
        );
    }

    #[test]
    fn listing_pages_by_address_without_repeats() {
        let (p, x) = (Id([0; 32]), Id([1; 32]));
        let m = SharedMemory::new();
        let puts = vec![
            (p, utxo(1, &[1, 2])),
            (p, utxo(2, &[2])),
            (p, utxo(3, &[1])),
        ];
        m.apply(
            &x,
            &AtomicRequests {
                puts,
                removes: vec![],
            },
        );
        let owners = [ShortId([2; 20]), ShortId([1; 20])];
        let (all, next) = m.list(&p, &x, &owners, None, 10);
        assert_eq!(all.len(), 3);
        assert_eq!(next, None);
        let (first, next) = m.list(&p, &x, &owners, None, 2);
        assert_eq!(first.len(), 2);
        let (rest, _) = m.list(&p, &x, &owners, next, 10);
        let mut ids: Vec<Id> = first.iter().chain(&rest).map(|u| u.id()).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), 3);
        assert!(m.list(&x, &p, &owners, None, 10).0.is_empty());
    }
}
