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

/// The leaves a node is computed from, and the subtrie references known for them.
trait Leaves {
    /// The first and last key in `lo..=hi`.
    fn bounds(&self, lo: &B256, hi: &B256) -> Option<(B256, B256)>;
    /// A leaf's value.
    fn value(&self, key: &B256) -> Option<&[u8]>;
    /// A known reference of the subtrie at `slot`.
    fn known(&self, slot: &(u8, B256)) -> Option<&NodeRef>;
}

impl Leaves for Trie {
    fn bounds(&self, lo: &B256, hi: &B256) -> Option<(B256, B256)> {
        let mut range = self.leaves.range(*lo..=*hi);
        let first = *range.next()?.0;
        Some((first, range.next_back().map_or(first, |(k, _)| *k)))
    }

    fn value(&self, key: &B256) -> Option<&[u8]> {
        self.leaves.get(key).map(Vec::as_slice)
    }

    fn known(&self, slot: &(u8, B256)) -> Option<&NodeRef> {
        self.cache.get(slot)
    }
}

/// The RLP of the node holding the (non-empty) set of keys sharing `some_key`'s first
/// `depth` nibbles; subtrie references it computes go to `fresh`.
fn node<L: Leaves>(
    leaves: &L,
    fresh: &mut HashMap<(u8, B256), NodeRef>,
    some_key: &B256,
    depth: usize,
) -> Vec<u8> {
    let lo = masked(some_key, depth, 0);
    let hi = masked(some_key, depth, 0x0f);
    let Some((first, last)) = leaves.bounds(&lo, &hi) else {
        return Vec::new();
    };
    if first == last {
        let value = leaves.value(&first).unwrap_or_default();
        let mut payload = Vec::with_capacity(value.len() + 40);
        rlp_bytes(&hex_prefix(&first, depth, 64, true), &mut payload);
        rlp_bytes(value, &mut payload);
        return rlp_list(&payload);
    }
    let split = split_of(&first, &last, depth);
    let mut payload = Vec::with_capacity(16 * 33 + 1);
    for n in 0..16u8 {
        let child = child_key(&first, split, n);
        let child_hi = masked(&child, split + 1, 0x0f);
        if leaves.bounds(&child, &child_hi).is_none() {
            payload.push(alloy_rlp::EMPTY_STRING_CODE);
            continue;
        }
        let slot = ((split + 1) as u8, child);
        if let Some(r) = leaves.known(&slot).or_else(|| fresh.get(&slot)) {
            payload.extend_from_slice(r);
            continue;
        }
        let r = reference(node(leaves, fresh, &child, split + 1));
        payload.extend_from_slice(&r);
        fresh.insert(slot, r);
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

/// Where distinct sorted keys `first` and `last`, equal up to `depth`, part: the nibbles up
/// to it are shared by every key between them.
fn split_of(first: &B256, last: &B256, depth: usize) -> usize {
    (depth..64)
        .find(|&i| nibble(first, i) != nibble(last, i))
        .unwrap_or(63)
}

/// `key`'s first `split` nibbles followed by nibble `n`, the rest zero.
fn child_key(key: &B256, split: usize, n: u8) -> B256 {
    let mut child = masked(key, split, 0);
    let b = &mut child[split / 2];
    *b |= if split.is_multiple_of(2) { n << 4 } else { n };
    child
}

fn root_of<L: Leaves>(leaves: &L, fresh: &mut HashMap<(u8, B256), NodeRef>) -> B256 {
    match leaves.bounds(&B256::ZERO, &B256::repeat_byte(0xff)) {
        None => EMPTY_ROOT_HASH,
        Some((first, _)) => keccak256(node(leaves, fresh, &first, 0)),
    }
}

/// The nodes on `key`'s path from the root, as `eth_getProof` lists them: the root and every
/// node referenced by hash (shorter ones sit inside their parent). It proves the leaf, or,
/// ending where the path leaves the trie, that there is none.
fn proof_of<L: Leaves>(leaves: &L, key: &B256) -> Vec<Vec<u8>> {
    let mut fresh = HashMap::new();
    let mut out = Vec::new();
    let mut depth = 0;
    while depth <= 64 {
        let lo = masked(key, depth, 0);
        let hi = masked(key, depth, 0x0f);
        let Some((first, last)) = leaves.bounds(&lo, &hi) else {
            break;
        };
        let rlp = node(leaves, &mut fresh, key, depth);
        let inline = rlp.len() < 32 && !out.is_empty();
        if !inline {
            out.push(rlp);
        }
        if first == last {
            break;
        }
        let split = split_of(&first, &last, depth);
        // An extension first, then its branch; a branch leads to the child on the path.
        depth = if split > depth { split } else { split + 1 };
    }
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
        let mut fresh = HashMap::new();
        let root = root_of(self, &mut fresh);
        self.cache.extend(fresh);
        self.root = Some(root);
        root
    }

    /// The nodes proving `key` (see [`Past::proof`]).
    #[cfg(test)]
    pub fn proof(&self, key: &B256) -> Vec<Vec<u8>> {
        proof_of(self, key)
    }

    /// This trie with some leaves as they were: `Some` sets one, `None` removes it.
    pub fn past(&self, overrides: BTreeMap<B256, Option<Vec<u8>>>) -> Past<'_> {
        Past {
            trie: self,
            overrides,
        }
    }
}

/// A trie as it was: its leaves with some replaced or removed, read without copying it; the
/// cached subtries off the changed paths are reused.
#[derive(Debug)]
pub struct Past<'a> {
    trie: &'a Trie,
    overrides: BTreeMap<B256, Option<Vec<u8>>>,
}

impl Past<'_> {
    /// Its root hash.
    pub fn root(&self) -> B256 {
        root_of(self, &mut HashMap::new())
    }

    /// The nodes on `key`'s path from the root: the root and every node referenced by hash,
    /// as `eth_getProof` lists them.
    pub fn proof(&self, key: &B256) -> Vec<Vec<u8>> {
        proof_of(self, key)
    }

    /// The first key of the trie's own in `lo..=hi` not overridden, from either end.
    fn own(&self, lo: &B256, hi: &B256, from_end: bool) -> Option<B256> {
        let range = self.trie.leaves.range(*lo..=*hi).map(|(k, _)| *k);
        let kept = |k: &B256| !self.overrides.contains_key(k);
        if from_end {
            range.rev().find(kept)
        } else {
            range.into_iter().find(kept)
        }
    }
}

impl Leaves for Past<'_> {
    fn bounds(&self, lo: &B256, hi: &B256) -> Option<(B256, B256)> {
        let mut set = self
            .overrides
            .range(*lo..=*hi)
            .filter(|(_, v)| v.is_some())
            .map(|(k, _)| *k);
        let set_first = set.next();
        let set_last = set.next_back().or(set_first);
        let first = [set_first, self.own(lo, hi, false)]
            .into_iter()
            .flatten()
            .min()?;
        let last = [set_last, self.own(lo, hi, true)]
            .into_iter()
            .flatten()
            .max()
            .unwrap_or(first);
        Some((first, last))
    }

    fn value(&self, key: &B256) -> Option<&[u8]> {
        match self.overrides.get(key) {
            Some(v) => v.as_deref(),
            None => self.trie.value(key),
        }
    }

    fn known(&self, slot: &(u8, B256)) -> Option<&NodeRef> {
        let hi = masked(&slot.1, slot.0 as usize, 0x0f);
        if self.overrides.range(slot.1..=hi).next().is_some() {
            return None;
        }
        self.trie.known(slot)
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

    fn verify(root: B256, key: &B256, value: Option<Vec<u8>>, proof: Vec<Vec<u8>>) {
        let proof: Vec<alloy_primitives::Bytes> = proof.into_iter().map(Into::into).collect();
        alloy_trie::proof::verify_proof(
            root,
            alloy_trie::Nibbles::unpack(key),
            value,
            proof.iter(),
        )
        .unwrap_or_else(|e| panic!("{key}: {e:?}"));
    }

    #[test]
    fn past_leaves_hash_and_prove_like_a_rebuilt_trie() {
        let slot_key = |i: u64| keccak256(U256::from(i).to_be_bytes::<32>());
        let mut trie = Trie::default();
        for i in 0..300u64 {
            trie.insert(slot_key(i), alloy_rlp::encode(U256::from(i + 1)));
        }
        let now = trie.root();
        // The past: 0..20 had other values, 20..40 did not exist, 300..310 did.
        let mut overrides = BTreeMap::new();
        let mut rebuilt = Trie::default();
        for i in 0..310u64 {
            let value = match i {
                0..20 => Some(U256::from(i + 1000)),
                20..40 => None,
                _ => Some(U256::from(i + 1)),
            };
            if let Some(v) = value {
                rebuilt.insert(slot_key(i), alloy_rlp::encode(v));
            }
            if !(40..300).contains(&i) {
                overrides.insert(slot_key(i), value.map(alloy_rlp::encode));
            }
        }
        let past = trie.past(overrides);
        let then = rebuilt.root();
        assert_eq!(past.root(), then);
        assert_ne!(then, now);
        for i in [0u64, 19, 20, 39, 40, 299, 305, 10_000] {
            let key = slot_key(i);
            let value = rebuilt.value(&key).map(<[u8]>::to_vec);
            let proof = past.proof(&key);
            assert_eq!(proof, rebuilt.proof(&key), "{i}");
            verify(then, &key, value, proof);
            verify(
                now,
                &key,
                trie.value(&key).map(<[u8]>::to_vec),
                trie.proof(&key),
            );
        }
        drop(past);
        assert_eq!(trie.root(), now, "the trie itself is untouched");
    }

    #[test]
    fn proofs_of_tiny_and_empty_tries() {
        let empty = Trie::default();
        assert!(empty.proof(&B256::ZERO).is_empty());
        let mut one = Trie::default();
        let key = keccak256([1]);
        one.insert(key, alloy_rlp::encode(U256::from(7)));
        let root = one.root();
        verify(
            root,
            &key,
            Some(alloy_rlp::encode(U256::from(7))),
            one.proof(&key),
        );
        verify(root, &keccak256([2]), None, one.proof(&keccak256([2])));
    }
}
