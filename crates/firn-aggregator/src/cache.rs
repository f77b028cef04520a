//! Verified signatures by message ID, then by signer key.
//!
//! A validator's BLS signature of a message never changes, so once one has been verified it
//! counts for any later request for the same message, whatever the height, quorum or
//! signing subnet (it is looked up by the validator's key). Messages are evicted oldest
//! first past a capacity; every signature here verified (as part of a batch).

use firn_core::ids::Id;
use firn_core::keys::bls;
use std::collections::{HashMap, VecDeque};

type KeyBytes = [u8; bls::PUBLIC_KEY_LEN];

/// A bounded map of message ID → (signer key → signature).
#[derive(Debug)]
pub struct SignatureCache {
    capacity: usize,
    by_message: HashMap<Id, HashMap<KeyBytes, bls::UncheckedSignature>>,
    order: VecDeque<Id>,
}

impl SignatureCache {
    /// A cache of at most `capacity` messages (0 disables it).
    pub fn new(capacity: usize) -> Self {
        Self {
            capacity,
            by_message: HashMap::new(),
            order: VecDeque::new(),
        }
    }

    /// The cached signature of `key` over message `id`.
    pub fn get(&self, id: &Id, key: &bls::PublicKey) -> Option<&bls::UncheckedSignature> {
        self.by_message.get(id)?.get(&key.to_bytes())
    }

    /// How many signatures are cached for message `id`.
    pub fn len_of(&self, id: &Id) -> usize {
        self.by_message.get(id).map_or(0, HashMap::len)
    }

    /// Stores verified signatures of message `id`.
    pub fn insert_all(
        &mut self,
        id: Id,
        sigs: impl IntoIterator<Item = (KeyBytes, bls::UncheckedSignature)>,
    ) {
        if self.capacity == 0 {
            return;
        }
        if !self.by_message.contains_key(&id) {
            while self.order.len() >= self.capacity {
                if let Some(old) = self.order.pop_front() {
                    self.by_message.remove(&old);
                }
            }
            self.order.push_back(id);
        }
        self.by_message.entry(id).or_default().extend(sigs);
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        self.by_message.clear();
        self.order.clear();
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
}
