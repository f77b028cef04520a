//! What the aggregator remembers between requests:
//!
//! - [`SignatureCache`]: verified signatures by message ID, then by signer key. A validator's
//!   BLS signature of a message never changes, so once one has been verified it counts for
//!   any later request for the same message, whatever the height, quorum or signing subnet
//!   (it is looked up by the validator's key). Every signature here verified (as part of a
//!   batch). With them, the last aggregate built for the message and whose signatures it
//!   sums: a repeated request that finds the same signers takes it instead of summing
//!   hundreds of signatures again.
//! - [`SetCache`]: canonical validator sets by (subnet, P-Chain height). The set at an
//!   accepted height never changes, and building one (reading it, merging and sorting 1,000
//!   validators by uncompressed key) costs more than answering from cached signatures.
//!
//! Both forget their oldest entry first past a capacity.

use firn_core::ids::Id;
use firn_core::keys::bls;
use firn_core::warp::validators::CanonicalValidatorSet;
use std::collections::{HashMap, VecDeque};
use std::hash::Hash;
use std::sync::Arc;

type KeyBytes = [u8; bls::PUBLIC_KEY_LEN];

/// A map of at most `capacity` entries that forgets the oldest inserted first.
#[derive(Debug)]
struct Fifo<K, V> {
    capacity: usize,
    entries: HashMap<K, V>,
    order: VecDeque<K>,
}

impl<K: Hash + Eq + Copy, V> Fifo<K, V> {
    fn new(capacity: usize) -> Self {
        Self {
            capacity,
            entries: HashMap::new(),
            order: VecDeque::new(),
        }
    }

    fn get(&self, key: &K) -> Option<&V> {
        self.entries.get(key)
    }

    /// The entry of `key`, made with `make` (after evicting the oldest past capacity) if
    /// missing; `None` when the capacity is 0.
    fn get_or_insert_with(&mut self, key: K, make: impl FnOnce() -> V) -> Option<&mut V> {
        if self.capacity == 0 {
            return None;
        }
        if !self.entries.contains_key(&key) {
            while self.order.len() >= self.capacity {
                if let Some(old) = self.order.pop_front() {
                    self.entries.remove(&old);
                }
            }
            self.order.push_back(key);
        }
        Some(self.entries.entry(key).or_insert_with(make))
    }

    fn clear(&mut self) {
        self.entries.clear();
        self.order.clear();
    }
}

/// The signers of an aggregate: a canonical set (subnet, P-Chain height) and the indices
/// of its validators whose signatures it sums, ascending.
pub type SignerSet = ((Id, u64), Vec<usize>);

/// What is cached for one message.
#[derive(Debug, Default)]
struct MessageSignatures {
    by_key: HashMap<KeyBytes, bls::UncheckedSignature>,
    last_aggregate: Option<(SignerSet, bls::Signature)>,
}

/// A bounded map of message ID → (signer key → signature), with each message's last
/// aggregate.
#[derive(Debug)]
pub struct SignatureCache {
    by_message: Fifo<Id, MessageSignatures>,
}

impl SignatureCache {
    /// A cache of at most `capacity` messages (0 disables it).
    pub fn new(capacity: usize) -> Self {
        Self {
            by_message: Fifo::new(capacity),
        }
    }

    /// The cached signature of `key` over message `id`.
    pub fn get(&self, id: &Id, key: &bls::PublicKey) -> Option<&bls::UncheckedSignature> {
        self.by_message.get(id)?.by_key.get(&key.to_bytes())
    }

    /// How many signatures are cached for message `id`.
    pub fn len_of(&self, id: &Id) -> usize {
        self.by_message.get(id).map_or(0, |m| m.by_key.len())
    }

    /// Stores verified signatures of message `id`.
    pub fn insert_all(
        &mut self,
        id: Id,
        sigs: impl IntoIterator<Item = (KeyBytes, bls::UncheckedSignature)>,
    ) {
        if let Some(m) = self.by_message.get_or_insert_with(id, Default::default) {
            m.by_key.extend(sigs);
        }
    }

    /// The last aggregate of message `id`, if it sums exactly `signers`' signatures.
    pub fn aggregate_of(&self, id: &Id, signers: &SignerSet) -> Option<&bls::Signature> {
        match &self.by_message.get(id)?.last_aggregate {
            Some((summed, sum)) if summed == signers => Some(sum),
            _ => None,
        }
    }

    /// Remembers `sum` as the aggregate of `signers`' signatures of message `id` (whose
    /// signatures are cached already).
    pub fn remember_aggregate(&mut self, id: Id, signers: SignerSet, sum: bls::Signature) {
        if let Some(m) = self.by_message.get_or_insert_with(id, Default::default) {
            m.last_aggregate = Some((signers, sum));
        }
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        self.by_message.clear();
    }
}

/// A canonical set and the order its validators are asked in.
#[derive(Debug)]
pub struct PreparedSet {
    /// The set.
    pub canonical: CanonicalValidatorSet,
    /// Canonical indices, heaviest first (equal weights keep canonical order).
    pub heaviest_first: Vec<usize>,
}

impl PreparedSet {
    /// Prepares `canonical` for requests.
    pub fn new(canonical: CanonicalValidatorSet) -> Self {
        let mut heaviest_first: Vec<usize> = (0..canonical.len()).collect();
        // Stable: equal weights keep canonical order.
        heaviest_first.sort_by_key(|&i| std::cmp::Reverse(canonical.validators[i].weight));
        Self {
            canonical,
            heaviest_first,
        }
    }
}

/// A bounded map of (subnet ID, P-Chain height) → prepared canonical set.
#[derive(Debug)]
pub struct SetCache {
    sets: Fifo<(Id, u64), Arc<PreparedSet>>,
}

impl SetCache {
    /// A cache of at most `capacity` sets (0 disables it).
    pub fn new(capacity: usize) -> Self {
        Self {
            sets: Fifo::new(capacity),
        }
    }

    /// The set of `subnet_id` at `height`, if kept.
    pub fn get(&self, subnet_id: Id, height: u64) -> Option<Arc<PreparedSet>> {
        self.sets.get(&(subnet_id, height)).cloned()
    }

    /// Keeps the set of `subnet_id` at `height`.
    pub fn insert(&mut self, subnet_id: Id, height: u64, set: Arc<PreparedSet>) {
        if let Some(slot) = self
            .sets
            .get_or_insert_with((subnet_id, height), || set.clone())
        {
            *slot = set;
        }
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        self.sets.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evicts_oldest_message_first_and_zero_capacity_stores_nothing() {
        let sk = bls::SecretKey::from_seed(&[1; 32]).unwrap();
        let pk = sk.public_key();
        let sig = bls::UncheckedSignature::from(sk.sign(b"m"));
        let mut cache = SignatureCache::new(2);
        for n in 0..3u8 {
            cache.insert_all(Id([n; 32]), [(pk.to_bytes(), sig.clone())]);
        }
        assert!(cache.get(&Id([0; 32]), &pk).is_none());
        assert_eq!(cache.get(&Id([2; 32]), &pk), Some(&sig));
        assert_eq!(cache.len_of(&Id([1; 32])), 1);

        let mut off = SignatureCache::new(0);
        off.insert_all(Id([0; 32]), [(pk.to_bytes(), sig)]);
        assert_eq!(off.len_of(&Id([0; 32])), 0);
    }

    #[test]
    fn an_aggregate_is_only_reused_for_exactly_the_signers_it_sums() {
        let sk = bls::SecretKey::from_seed(&[1; 32]).unwrap();
        let sum = sk.sign(b"m");
        let mut cache = SignatureCache::new(4);
        let id = Id([1; 32]);
        let signers: SignerSet = ((Id::ZERO, 7), vec![0, 2]);
        cache.remember_aggregate(id, signers.clone(), sum.clone());
        assert_eq!(cache.aggregate_of(&id, &signers), Some(&sum));
        assert_eq!(cache.aggregate_of(&id, &((Id::ZERO, 7), vec![0])), None);
        assert_eq!(cache.aggregate_of(&id, &((Id::ZERO, 8), vec![0, 2])), None);
        assert_eq!(cache.aggregate_of(&Id([2; 32]), &signers), None);
    }

    #[test]
    fn sets_are_kept_by_subnet_and_height_and_ordered_heaviest_first() {
        let key = |seed: u8| bls::SecretKey::from_seed(&[seed; 32]).unwrap().public_key();
        let canonical = CanonicalValidatorSet::new([
            (firn_core::ids::NodeId([1; 20]), Some(key(1)), 10),
            (firn_core::ids::NodeId([2; 20]), Some(key(2)), 30),
            (firn_core::ids::NodeId([3; 20]), Some(key(3)), 10),
        ])
        .unwrap();
        let prepared = PreparedSet::new(canonical);
        let weights: Vec<u64> = prepared
            .heaviest_first
            .iter()
            .map(|&i| prepared.canonical.validators[i].weight)
            .collect();
        assert_eq!(weights, vec![30, 10, 10]);
        let light: Vec<usize> = prepared.heaviest_first[1..].to_vec();
        assert!(light[0] < light[1], "equal weights keep canonical order");

        let prepared = Arc::new(prepared);
        let mut sets = SetCache::new(1);
        sets.insert(Id::ZERO, 7, prepared.clone());
        assert!(sets.get(Id::ZERO, 7).is_some());
        assert!(sets.get(Id::ZERO, 8).is_none());
        sets.insert(Id::ZERO, 8, prepared);
        assert!(
            sets.get(Id::ZERO, 7).is_none(),
            "capacity 1 keeps the newest"
        );
        sets.clear();
        assert!(sets.get(Id::ZERO, 8).is_none());
    }
}
