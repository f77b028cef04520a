//! Validator sets per subnet, as AvalancheGo's validator manager reports them, and their
//! history by height.
//!
//! The current set of each subnet is cached. After each accepted block the sets of the
//! subnets the block touched are recomputed and diffed; the history keeps, per height, only
//! the entries that changed and what they were before. A past set is the current set with
//! the later diffs undone: memory grows with the number of changes, not with heights.

use super::State;
use firn_core::ids::{Id, NodeId};
use firn_core::keys::bls;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// One validator in a set: its weight and BLS key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetEntry {
    /// The weight (for primary network validators: stake plus delegations).
    pub weight: u64,
    /// The compressed BLS public key, if any.
    pub public_key: Option<[u8; 48]>,
}

/// A validator set: node ID → entry.
pub type ValidatorSet = BTreeMap<NodeId, SetEntry>;

type Change = (Id, NodeId, Option<SetEntry>);

/// Current sets and the history of changes.
#[derive(Debug, Default)]
pub struct ValidatorHistory {
    current: HashMap<Id, ValidatorSet>,
    /// height → (subnet, node, entry before that height's block).
    changes: BTreeMap<u64, Vec<Change>>,
    tip: u64,
}

/// Computes the validator set of `subnet_id` from the state.
///
/// Primary network: validators weighted by stake plus delegations. Permissioned subnets: the
/// subnet validators, with their primary network BLS key. L1s: active L1 validators, and the
/// weight of inactive ones summed under `NodeID-111111111111111111116DBWJs` with no key.
pub fn compute_set(state: &State, subnet_id: Id) -> ValidatorSet {
    let mut set = ValidatorSet::new();
    for v in state.validators_of(subnet_id) {
        let mut weight = v.weight;
        let mut public_key = v.public_key;
        if subnet_id == Id::ZERO {
            for d in state.delegators_of(&subnet_id, &v.node_id) {
                weight = weight.saturating_add(d.weight);
            }
        } else {
            public_key = state
                .validator(&Id::ZERO, &v.node_id)
                .and_then(|p| p.public_key);
        }
        set.insert(v.node_id, SetEntry { weight, public_key });
    }
    let mut inactive = 0u64;
    for v in state.l1_validators_of(subnet_id) {
        if v.is_active() {
            set.insert(
                v.node_id,
                SetEntry {
                    weight: v.weight,
                    public_key: Some(v.public_key),
                },
            );
        } else {
            inactive = inactive.saturating_add(v.weight);
        }
    }
    if inactive > 0 {
        set.insert(
            NodeId::EMPTY,
            SetEntry {
                weight: inactive,
                public_key: None,
            },
        );
    }
    set
}

impl ValidatorHistory {
    /// Records the block at `height`: recomputes the sets of `touched` subnets.
    pub fn record(&mut self, state: &State, height: u64, touched: &BTreeSet<Id>) {
        self.tip = height;
        let mut changes = Vec::new();
        for subnet in touched {
            let new = compute_set(state, *subnet);
            let old = self.current.remove(subnet).unwrap_or_default();
            for (node, entry) in &new {
                if old.get(node) != Some(entry) {
                    changes.push((*subnet, *node, old.get(node).cloned()));
                }
            }
            for (node, entry) in &old {
                if !new.contains_key(node) {
                    changes.push((*subnet, *node, Some(entry.clone())));
                }
            }
            if !new.is_empty() {
                self.current.insert(*subnet, new);
            }
        }
        if !changes.is_empty() {
            self.changes.insert(height, changes);
        }
    }

    /// The last recorded height.
    pub fn tip(&self) -> u64 {
        self.tip
    }

    /// The current set of a subnet.
    pub fn current(&self, subnet_id: &Id) -> ValidatorSet {
        self.current.get(subnet_id).cloned().unwrap_or_default()
    }

    /// The set of `subnet_id` after the block at `height` was accepted; `None` past the tip.
    pub fn at(&self, subnet_id: &Id, height: u64) -> Option<ValidatorSet> {
        if height > self.tip {
            return None;
        }
        let mut set = self.current(subnet_id);
        for (_, changes) in self.changes.range(height + 1..).rev() {
            for (subnet, node, before) in changes.iter().rev() {
                if subnet != subnet_id {
                    continue;
                }
                match before {
                    Some(e) => {
                        set.insert(*node, e.clone());
                    }
                    None => {
                        set.remove(node);
                    }
                }
            }
        }
        Some(set)
    }

    /// Every non-empty set at `height`, by subnet.
    pub fn all_at(&self, height: u64) -> Option<BTreeMap<Id, ValidatorSet>> {
        if height > self.tip {
            return None;
        }
        let mut subnets: BTreeSet<Id> = self.current.keys().copied().collect();
        for (_, changes) in self.changes.range(height + 1..) {
            subnets.extend(changes.iter().map(|(s, _, _)| *s));
        }
        let mut out = BTreeMap::new();
        for s in subnets {
            if let Some(set) = self.at(&s, height)
                && !set.is_empty()
            {
                out.insert(s, set);
            }
        }
        Some(out)
    }
}

/// The canonical Warp validator set of a [`ValidatorSet`].
pub fn canonical(
    set: &ValidatorSet,
) -> Result<firn_core::warp::validators::CanonicalValidatorSet, firn_core::warp::WarpError> {
    firn_core::warp::validators::CanonicalValidatorSet::new(set.iter().map(|(node, e)| {
        let pk = e
            .public_key
            .as_ref()
            .and_then(|b| bls::PublicKey::from_bytes(b).ok());
        (*node, pk, e.weight)
    }))
}
