//! The canonical validator set a warp signature's bitset indexes into, quorum checks,
//! verification and aggregation (AvalancheGo's `snow/validators/warp.go` and
//! `vms/platformvm/warp/signature.go`).
//!
//! The canonical set is built from a subnet's validators at a P-Chain height:
//! 1. the total weight sums *every* validator, with or without a BLS key (including the
//!    `NodeID-111111111111111111116DBWJs` bucket of inactive L1 validators);
//! 2. validators without a BLS key are dropped;
//! 3. validators sharing a key are merged into one (weights summed, node IDs collected);
//! 4. the rest are sorted by their *uncompressed* 96-byte public key (not the compressed
//!    form: the two orders differ).
//!
//! Bit `i` of a signature's bitset then marks the `i`-th validator of that list.

use super::{BitSetSignature, Message, UnsignedMessage, WarpError, bitset};
use crate::ids::NodeId;
use crate::keys::bls;
use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};

/// One entry of the canonical set: a BLS key and the validators that share it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CanonicalValidator {
    /// The BLS public key.
    pub public_key: bls::PublicKey,
    /// The summed weight of the validators with this key.
    pub weight: u64,
    /// The validators with this key, sorted.
    pub node_ids: Vec<NodeId>,
}

/// The validators of a subnet in canonical order, and the weight of the whole subnet.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CanonicalValidatorSet {
    /// Validators with a BLS key, merged by key, sorted by uncompressed key.
    pub validators: Vec<CanonicalValidator>,
    /// The weight of every validator, including those without a BLS key.
    pub total_weight: u64,
}

impl CanonicalValidatorSet {
    /// Builds the canonical set from `(node ID, BLS key, weight)` triples in any order.
    ///
    /// Fails if a node ID appears twice or the weights overflow u64.
    pub fn new<I>(validators: I) -> Result<Self, WarpError>
    where
        I: IntoIterator<Item = (NodeId, Option<bls::PublicKey>, u64)>,
    {
        let mut total_weight = 0u64;
        let mut seen = HashSet::new();
        let mut by_key: HashMap<[u8; bls::UNCOMPRESSED_PUBLIC_KEY_LEN], usize> = HashMap::new();
        let mut merged: Vec<([u8; bls::UNCOMPRESSED_PUBLIC_KEY_LEN], CanonicalValidator)> =
            Vec::new();
        for (node_id, public_key, weight) in validators {
            if !seen.insert(node_id) {
                return Err(WarpError::DuplicateNodeId(node_id));
            }
            total_weight = total_weight
                .checked_add(weight)
                .ok_or(WarpError::WeightOverflow)?;
            let Some(public_key) = public_key else {
                continue;
            };
            let key = public_key.to_uncompressed();
            match by_key.entry(key) {
                Entry::Occupied(slot) => {
                    let (_, v) = &mut merged[*slot.get()];
                    // Cannot overflow: bounded by the total weight, which did not.
                    v.weight = v
                        .weight
                        .checked_add(weight)
                        .ok_or(WarpError::WeightOverflow)?;
                    v.node_ids.push(node_id);
                }
                Entry::Vacant(slot) => {
                    slot.insert(merged.len());
                    merged.push((
                        key,
                        CanonicalValidator {
                            public_key,
                            weight,
                            node_ids: vec![node_id],
                        },
                    ));
                }
            }
        }
        merged.sort_unstable_by_key(|(key, _)| *key);
        let validators = merged
            .into_iter()
            .map(|(_, mut v)| {
                v.node_ids.sort_unstable();
                v
            })
            .collect();
        Ok(Self {
            validators,
            total_weight,
        })
    }

    /// Number of canonical validators (distinct keys).
    pub fn len(&self) -> usize {
        self.validators.len()
    }

    /// True when no validator has a BLS key.
    pub fn is_empty(&self) -> bool {
        self.validators.is_empty()
    }

    /// The canonical index of the validator with `node_id`, if it has a key.
    pub fn index_of(&self, node_id: &NodeId) -> Option<usize> {
        self.validators
            .iter()
            .position(|v| v.node_ids.contains(node_id))
    }

    /// The validators a bitset selects. Fails on a leading zero byte or a bit at or past
    /// the number of validators.
    pub fn signers(&self, signers: &[u8]) -> Result<Vec<&CanonicalValidator>, WarpError> {
        bitset::validate(signers)?;
        let bit_len = bitset::bit_len(signers);
        if bit_len > self.validators.len() {
            return Err(WarpError::UnknownValidator {
                index: bit_len - 1,
                validators: self.validators.len(),
            });
        }
        Ok(self
            .validators
            .iter()
            .enumerate()
            .filter(|(i, _)| bitset::contains(signers, *i))
            .map(|(_, v)| v)
            .collect())
    }

    /// The summed weight of the validators a bitset selects.
    pub fn signed_weight(&self, signers: &[u8]) -> Result<u64, WarpError> {
        sum_weight(&self.signers(signers)?)
    }

    /// Verifies a signed message as AvalancheGo does: the network ID matches, the bitset
    /// is valid and within the set, the signers hold at least `quorum_num / quorum_den`
    /// of the total weight, and the signature is their aggregate BLS signature over the
    /// unsigned message bytes.
    pub fn verify(
        &self,
        msg: &Message,
        network_id: u32,
        quorum_num: u64,
        quorum_den: u64,
    ) -> Result<(), WarpError> {
        if msg.unsigned.network_id != network_id {
            return Err(WarpError::WrongNetwork {
                expected: network_id,
                actual: msg.unsigned.network_id,
            });
        }
        let signers = self.signers(&msg.signature.signers)?;
        let signed = sum_weight(&signers)?;
        verify_weight(signed, self.total_weight, quorum_num, quorum_den)?;

        let signature = bls::Signature::from_bytes(&msg.signature.signature)
            .map_err(|e| WarpError::MalformedSignature(e.to_string()))?;
        if signers.is_empty() {
            return Err(WarpError::NoSigners);
        }
        let keys: Vec<&bls::PublicKey> = signers.iter().map(|v| &v.public_key).collect();
        if !bls::fast_aggregate_verify(&keys, &msg.unsigned.bytes(), &signature) {
            return Err(WarpError::InvalidSignature);
        }
        Ok(())
    }

    /// Builds the signed message from individual signatures, each with the canonical index
    /// of its signer. The signatures are aggregated as given, not verified.
    ///
    /// Fails with no signatures, an index out of range or an index given twice.
    pub fn aggregate(
        &self,
        unsigned: UnsignedMessage,
        signatures: &[(usize, bls::Signature)],
    ) -> Result<Message, WarpError> {
        if signatures.is_empty() {
            return Err(WarpError::NoSigners);
        }
        let mut seen = vec![false; self.validators.len()];
        for &(index, _) in signatures {
            match seen.get_mut(index) {
                None => {
                    return Err(WarpError::UnknownValidator {
                        index,
                        validators: self.validators.len(),
                    });
                }
                Some(true) => return Err(WarpError::DuplicateSigner(index)),
                Some(slot) => *slot = true,
            }
        }
        let sigs: Vec<&bls::Signature> = signatures.iter().map(|(_, s)| s).collect();
        let aggregate =
            bls::aggregate_signatures(&sigs).map_err(|e| WarpError::Bls(e.to_string()))?;
        let indices: Vec<usize> = signatures.iter().map(|&(i, _)| i).collect();
        Ok(Message::new(
            unsigned,
            BitSetSignature {
                signers: bitset::from_indices(&indices),
                signature: aggregate.to_bytes(),
            },
        ))
    }
}

fn sum_weight(validators: &[&CanonicalValidator]) -> Result<u64, WarpError> {
    validators.iter().try_fold(0u64, |acc, v| {
        acc.checked_add(v.weight).ok_or(WarpError::WeightOverflow)
    })
}

/// Passes if `signed` is at least `quorum_num / quorum_den` of `total`, i.e.
/// `quorum_num · total ≤ quorum_den · signed` (exact, in 128 bits).
///
/// The quorum must satisfy `0 < quorum_den` and `quorum_num ≤ quorum_den`.
pub fn verify_weight(
    signed: u64,
    total: u64,
    quorum_num: u64,
    quorum_den: u64,
) -> Result<(), WarpError> {
    if quorum_den == 0 || quorum_num > quorum_den {
        return Err(WarpError::InvalidQuorum {
            num: quorum_num,
            den: quorum_den,
        });
    }
    let needed = u128::from(quorum_num) * u128::from(total);
    if needed > u128::from(quorum_den) * u128::from(signed) {
        // ceil(needed / den) ≤ total because num ≤ den, so it fits in u64.
        let required = needed.div_ceil(u128::from(quorum_den));
        return Err(WarpError::InsufficientWeight {
            signed,
            required: u64::try_from(required).unwrap_or(u64::MAX),
            total,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quorum_is_inclusive_and_exact() {
        assert_eq!(verify_weight(67, 100, 67, 100), Ok(()));
        assert_eq!(
            verify_weight(66, 100, 67, 100),
            Err(WarpError::InsufficientWeight {
                signed: 66,
                required: 67,
                total: 100
            })
        );
        // 240/360 is 66.67 %.
        assert!(verify_weight(240, 360, 67, 100).is_err());
        assert_eq!(verify_weight(240, 360, 66, 100), Ok(()));
        assert_eq!(verify_weight(240, 360, 2, 3), Ok(()));
        assert!(verify_weight(239, 360, 2, 3).is_err());
        // No overflow at the extremes.
        assert_eq!(
            verify_weight(u64::MAX, u64::MAX, u64::MAX, u64::MAX),
            Ok(())
        );
        assert_eq!(
            verify_weight(u64::MAX - 1, u64::MAX, u64::MAX, u64::MAX),
            Err(WarpError::InsufficientWeight {
                signed: u64::MAX - 1,
                required: u64::MAX,
                total: u64::MAX
            })
        );
        assert_eq!(verify_weight(0, 0, 67, 100), Ok(()));
    }

    #[test]
    fn nonsense_quorums_are_rejected() {
        assert_eq!(
            verify_weight(1, 1, 1, 0),
            Err(WarpError::InvalidQuorum { num: 1, den: 0 })
        );
        assert_eq!(
            verify_weight(1, 1, 3, 2),
            Err(WarpError::InvalidQuorum { num: 3, den: 2 })
        );
    }

    fn key(seed: u8) -> bls::SecretKey {
        bls::SecretKey::from_seed(&[seed; 32]).unwrap()
    }

    fn node(n: u8) -> NodeId {
        NodeId([n; 20])
    }

    /// Three keys, the second shared by two nodes, plus a key-less node.
    fn set() -> (CanonicalValidatorSet, Vec<bls::SecretKey>) {
        let keys = vec![key(1), key(2), key(3)];
        let set = CanonicalValidatorSet::new([
            (node(1), Some(keys[0].public_key()), 10),
            (node(2), Some(keys[1].public_key()), 20),
            (node(3), Some(keys[1].public_key()), 5),
            (node(4), None, 40),
            (node(5), Some(keys[2].public_key()), 25),
        ])
        .unwrap();
        (set, keys)
    }

    fn sign_by(
        set: &CanonicalValidatorSet,
        keys: &[bls::SecretKey],
        unsigned: &UnsignedMessage,
    ) -> Vec<(usize, bls::Signature)> {
        keys.iter()
            .map(|k| {
                let i = set
                    .validators
                    .iter()
                    .position(|v| v.public_key == k.public_key())
                    .unwrap();
                (i, k.sign(&unsigned.bytes()))
            })
            .collect()
    }

    #[test]
    fn shared_keys_merge_and_key_less_count_in_total_only() {
        let (set, keys) = set();
        assert_eq!(set.len(), 3);
        assert_eq!(set.total_weight, 100);
        let shared = set.index_of(&node(3)).unwrap();
        assert_eq!(set.index_of(&node(2)), Some(shared));
        assert_eq!(set.validators[shared].weight, 25);
        assert_eq!(set.validators[shared].node_ids, vec![node(2), node(3)]);
        assert_eq!(set.validators[shared].public_key, keys[1].public_key());
        assert_eq!(set.index_of(&node(4)), None);
        let mut sorted = set.validators.clone();
        sorted.sort_by_key(|v| v.public_key.to_uncompressed());
        assert_eq!(sorted, set.validators);
        assert_eq!(set.signed_weight(&bitset::from_indices(&[0, 1, 2])), Ok(60));
    }

    #[test]
    fn aggregate_then_verify() {
        let (set, keys) = set();
        let unsigned = UnsignedMessage::new(7, crate::ids::Id([1; 32]), b"ok".to_vec());
        let sigs = sign_by(&set, &keys, &unsigned);
        let msg = set.aggregate(unsigned.clone(), &sigs).unwrap();
        assert_eq!(msg.signature.signers, vec![0b111]);
        assert_eq!(set.verify(&msg, 7, 60, 100), Ok(()));
        assert_eq!(
            set.verify(&msg, 7, 61, 100),
            Err(WarpError::InsufficientWeight {
                signed: 60,
                required: 61,
                total: 100
            })
        );
        assert_eq!(
            set.verify(&msg, 8, 60, 100),
            Err(WarpError::WrongNetwork {
                expected: 8,
                actual: 7
            })
        );

        // Two of three signatures under a bitset claiming all three.
        let partial = set.aggregate(unsigned.clone(), &sigs[..2]).unwrap();
        let mut forged = msg.clone();
        forged.signature.signature = partial.signature.signature;
        assert_eq!(
            set.verify(&forged, 7, 1, 100),
            Err(WarpError::InvalidSignature)
        );

        // Another message under the same signature.
        let mut other = msg.clone();
        other.unsigned.payload = b"no".to_vec();
        assert_eq!(
            set.verify(&other, 7, 1, 100),
            Err(WarpError::InvalidSignature)
        );

        // Not a G2 point.
        let mut garbage = msg;
        garbage.signature.signature = [0x42; 96];
        assert!(matches!(
            set.verify(&garbage, 7, 1, 100),
            Err(WarpError::MalformedSignature(_))
        ));
    }

    #[test]
    fn aggregate_rejects_bad_indices() {
        let (set, keys) = set();
        let unsigned = UnsignedMessage::new(7, crate::ids::Id::ZERO, vec![]);
        let sig = keys[0].sign(&unsigned.bytes());
        assert_eq!(
            set.aggregate(unsigned.clone(), &[]),
            Err(WarpError::NoSigners)
        );
        assert_eq!(
            set.aggregate(unsigned.clone(), &[(3, sig.clone())]),
            Err(WarpError::UnknownValidator {
                index: 3,
                validators: 3
            })
        );
        assert_eq!(
            set.aggregate(unsigned, &[(1, sig.clone()), (1, sig)]),
            Err(WarpError::DuplicateSigner(1))
        );
    }

    #[test]
    fn empty_signer_sets_never_verify() {
        let (set, _) = set();
        let msg = Message::new(
            UnsignedMessage::new(7, crate::ids::Id::ZERO, vec![]),
            BitSetSignature {
                signers: vec![],
                signature: bls::aggregate_signatures(&[&key(1).sign(b"x")])
                    .unwrap()
                    .to_bytes(),
            },
        );
        // A zero quorum passes the weight check but there is nothing to verify.
        assert_eq!(set.verify(&msg, 7, 0, 100), Err(WarpError::NoSigners));
        assert!(matches!(
            set.verify(&msg, 7, 1, 100),
            Err(WarpError::InsufficientWeight { .. })
        ));
    }

    #[test]
    fn key_less_sets_count_weight_only() {
        let set =
            CanonicalValidatorSet::new([(NodeId([1; 20]), None, 10), (NodeId::EMPTY, None, 5)])
                .unwrap();
        assert!(set.is_empty());
        assert_eq!(set.total_weight, 15);
        assert_eq!(set.signed_weight(&[]), Ok(0));
        assert_eq!(
            set.signed_weight(&[1]),
            Err(WarpError::UnknownValidator {
                index: 0,
                validators: 0
            })
        );
    }

    #[test]
    fn weight_overflow_and_duplicate_nodes_are_errors() {
        assert_eq!(
            CanonicalValidatorSet::new([
                (NodeId([1; 20]), None, u64::MAX),
                (NodeId([2; 20]), None, 1)
            ]),
            Err(WarpError::WeightOverflow)
        );
        assert_eq!(
            CanonicalValidatorSet::new([(NodeId([1; 20]), None, 1), (NodeId([1; 20]), None, 1)]),
            Err(WarpError::DuplicateNodeId(NodeId([1; 20])))
        );
    }
}
