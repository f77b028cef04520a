//! [`Trie`]: a Merkle-Patricia trie over 32-byte (already hashed) keys whose root is
//! recomputed incrementally. Leaves sit in a sorted map; the reference (inline RLP or
//! hash) of every subtrie is cached by its key prefix, and a write forgets only the cached
//! subtries on its own key's path. A block touching `k` of `n` slots rehashes about
//! `k · log16(n)` nodes instead of all `n` leaves.

use std::collections::{BTreeMap, HashMap};

use alloy_primitives::{B256, keccak256};
use alloy_rlp::{BufMut, Header};
use alloy_trie::EMPTY_ROOT_HASH;

/// A node reference as its parent holds it: the node's RLP if shorter than 32 bytes,
/// else the RLP string of its keccak.
type NodeRef = Vec<u8>;

/// A trie of `keccak(key) → RLP value` leaves.
#[derive(Debug, Clone, Default)]
pub struct Trie {
    leaves: BTreeMap<B256, Vec<u8>>,
    /// Subtrie references by (depth in nibbles, key masked to that depth).
    cache: HashMap<(u8, B256), NodeRef>,
    root: Option<B256>,
}

fn nibble(key: &B256, i: usize) -> u8 {
    let b = key[i / 2];
    if i.is_multiple_of(2) {
        b >> 4
    } else {
        b & 0x0f
    }
}

/// `key` with every nibble from `depth` on set to `fill` (0 or 0xf).
fn masked(key: &B256, depth: usize, fill: u8) -> B256 {
    let mut out = *key;
    for i in depth..64 {
        let b = &mut out[i / 2];
        *b = if i.is_multiple_of(2) {
            (*b & 0x0f) | (fill << 4)
        } else {
            (*b & 0xf0) | fill
        };
    }
    out
}

/// Hex-prefix encoding of `key`'s nibbles `from..to`.
fn hex_prefix(key: &B256, from: usize, to: usize, leaf: bool) -> Vec<u8> {
    let flag = if leaf { 2u8 } else { 0 };
    let len = to - from;
    let mut out = Vec::with_capacity(len / 2 + 1);
    let mut i = from;
    if !len.is_multiple_of(2) {
        out.push(((flag + 1) << 4) | nibble(key, i));
        i += 1;
    } else {
        out.push(flag << 4);
    }
    while i < to {
        out.push((nibble(key, i) << 4) | nibble(key, i + 1));
        i += 2;
    }
    out
}

fn rlp_bytes(b: &[u8], out: &mut Vec<u8>) {
    alloy_rlp::Encodable::encode(b, out);
}

fn rlp_list(payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(payload.len() + 3);
    Header {
        list: true,
        payload_length: payload.len(),
    }
    .encode(&mut out);
    out.put_slice(payload);
    out
}

fn reference(rlp: Vec<u8>) -> NodeRef {
    if rlp.len() < 32 {
        return rlp;
    }
    let mut out = Vec::with_capacity(33);
    rlp_bytes(keccak256(&rlp).as_slice(), &mut out);
    out
}

impl Trie {
    /// Sets `key` (a hashed key) to `value` (its RLP).
    pub fn insert(&mut self, key: B256, value: Vec<u8>) {
        if self.leaves.get(&key) == Some(&value) {
            return;
        }
        self.forget(&key);
        self.leaves.insert(key, value);
    }

    /// Removes `key`.
    pub fn remove(&mut self, key: &B256) {
        if self.leaves.remove(key).is_some() {
            self.forget(key);
        }
    }

    fn forget(&mut self, key: &B256) {
        self.root = None;
        if self.cache.is_empty() {
            return;
        }
        for depth in 1..=64 {
            self.cache.remove(&(depth as u8, masked(key, depth, 0)));
        }
    }

    /// The root hash.
    pub fn root(&mut self) -> B256 {
        if let Some(root) = self.root {
            return root;
        }
        let root = match self.leaves.first_key_value() {
            None => EMPTY_ROOT_HASH,
            Some((first, _)) => {
                let first = *first;
                keccak256(self.node(&first, 0))
            }
        };
        self.root = Some(root);
        root
    }

    /// The RLP of the node holding the (non-empty) set of keys sharing `some_key`'s first
    /// `depth` nibbles.
    fn node(&mut self, some_key: &B256, depth: usize) -> Vec<u8> {
        let lo = masked(some_key, depth, 0);
        let hi = masked(some_key, depth, 0x0f);
        let mut range = self.leaves.range(lo..=hi);
        let (first, value) = match range.next() {
            Some((k, v)) => (*k, v),
            None => return Vec::new(),
        };
        let last = range.next_back().map_or(first, |(k, _)| *k);
        if first == last {
            let mut payload = Vec::with_capacity(value.len() + 40);
            rlp_bytes(&hex_prefix(&first, depth, 64, true), &mut payload);
            rlp_bytes(value, &mut payload);
            return rlp_list(&payload);
        }
        // Distinct sorted keys: all share the nibbles up to `split`, where first and last differ.
        let split = (depth..64)
            .find(|&i| nibble(&first, i) != nibble(&last, i))
            .unwrap_or(63);
        let mut payload = Vec::with_capacity(16 * 33 + 1);
        for n in 0..16u8 {
            let mut child = masked(&first, split, 0);
            let b = &mut child[split / 2];
            *b |= if split.is_multiple_of(2) { n << 4 } else { n };
            let child_hi = masked(&child, split + 1, 0x0f);
            if self.leaves.range(child..=child_hi).next().is_none() {
                payload.push(alloy_rlp::EMPTY_STRING_CODE);
                continue;
            }
            let slot = ((split + 1) as u8, child);
            if let Some(r) = self.cache.get(&slot) {
                payload.extend_from_slice(r);
                continue;
            }
            let r = reference(self.node(&child, split + 1));
            payload.extend_from_slice(&r);
            self.cache.insert(slot, r);
        }
        payload.push(alloy_rlp::EMPTY_STRING_CODE);
        let branch = rlp_list(&payload);
        if split == depth {
            return branch;
        }
        let mut ext = Vec::with_capacity(70);
        rlp_bytes(&hex_prefix(&first, depth, split, false), &mut ext);
        ext.extend_from_slice(&reference(branch));
        rlp_list(&ext)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_primitives::U256;

    fn expected(slots: &BTreeMap<U256, U256>) -> B256 {
        alloy_trie::root::storage_root_unhashed(
            slots.iter().map(|(k, v)| (B256::from(k.to_be_bytes()), *v)),
        )
    }

    #[test]
    fn matches_a_full_rebuild_through_inserts_updates_and_removals() {
        let mut trie = Trie::default();
        let mut slots = BTreeMap::new();
        assert_eq!(trie.root(), EMPTY_ROOT_HASH);
        // A small LCG: deterministic, spread over few and many keys.
        let mut x = 7u64;
        let mut next = || {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            x >> 33
        };
        for round in 0..60 {
            for _ in 0..(1 + round * 3) {
                let slot = U256::from(next() % 400);
                let value = U256::from(next() % 4);
                let key = keccak256(slot.to_be_bytes::<32>());
                if value.is_zero() {
                    slots.remove(&slot);
                    trie.remove(&key);
                } else {
                    slots.insert(slot, value);
                    trie.insert(key, alloy_rlp::encode(value));
                }
            }
            assert_eq!(trie.root(), expected(&slots), "round {round}");
        }
        for slot in slots.keys().copied().collect::<Vec<_>>() {
            slots.remove(&slot);
            trie.remove(&keccak256(slot.to_be_bytes::<32>()));
            assert_eq!(trie.root(), expected(&slots));
        }
    }
}
