//! Vectors and properties of `firn_core::warp`.

use crate::vectors::{json, unhex};
use firn_core::codec::CodecError;
use firn_core::ids::{Id, NodeId, ShortId};
use firn_core::keys::bls;
use firn_core::network::P_CHAIN_ID;
use firn_core::warp::acp118::{
    L1ValidatorRegistrationJustification, Preimage, SignatureRequest, SignatureResponse,
    SubnetIdIndex,
};
use firn_core::warp::messages::{
    ConversionValidatorData, L1Message, L1ValidatorRegistration, L1ValidatorWeight, PChainOwner,
    RegisterL1Validator, SubnetToL1Conversion, SubnetToL1ConversionData,
};
use firn_core::warp::payload::{AddressedCall, Payload};
use firn_core::warp::validators::CanonicalValidatorSet;
use firn_core::warp::{
    BitSetSignature, DEFAULT_QUORUM_NUM, Message, QUORUM_DEN, UnsignedMessage, WarpError, bitset,
};
use proptest::prelude::*;

const L1_VECTORS: &str = "warp/pchain-l1-messages.json";
const SIG_VECTOR: &str = "warp/generated-bitset-signature.json";

fn str_of<'a>(v: &'a serde_json::Value, key: &str) -> &'a str {
    v[key]
        .as_str()
        .unwrap_or_else(|| panic!("vector field {key} is not a string"))
}

#[test]
fn pchain_l1_messages_round_trip_byte_exactly() {
    let v = json(L1_VECTORS);
    let messages = v["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 4);
    for m in messages {
        let name = str_of(m, "name");
        let bytes = unhex(str_of(m, "hex"));
        let msg = L1Message::from_bytes(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(msg.type_name(), name);
        assert_eq!(u64::from(msg.type_id()), m["type_id"].as_u64().unwrap());
        assert_eq!(msg.bytes(), bytes, "{name} re-encodes");

        // The typed parsers agree, and reject the other types.
        match &msg {
            L1Message::SubnetToL1Conversion(x) => {
                assert_eq!(x.id, Id(std::array::from_fn(|i| i as u8 + 1)));
                assert_eq!(SubnetToL1Conversion::from_bytes(&bytes).unwrap(), *x);
                assert_eq!(x.bytes(), bytes);
            }
            L1Message::RegisterL1Validator(x) => {
                assert_eq!(RegisterL1Validator::from_bytes(&bytes).unwrap(), *x);
                assert_eq!(x.bytes(), bytes);
                assert_eq!(
                    x.validation_id().to_string(),
                    str_of(m, "validationID_computed_cb58")
                );
                assert_eq!(x.validation_id(), Id::hash_of(&bytes));
                assert_eq!(x.node_id, NodeId(std::array::from_fn(|i| 0x21 + i as u8)));
                assert_eq!(x.bls_public_key[0], 0x35);
                assert_eq!(x.expiry, 0x65666768696a6b6c);
                assert_eq!(x.remaining_balance_owner.threshold, 0x6d6e6f70);
                assert_eq!(x.remaining_balance_owner.addresses.len(), 1);
                assert_eq!(x.disable_owner.addresses.len(), 1);
                assert_eq!(x.weight, 0x9d9e9fa0a1a2a3a4);
            }
            L1Message::L1ValidatorRegistration(x) => {
                assert!(!x.registered);
                assert_eq!(L1ValidatorRegistration::from_bytes(&bytes).unwrap(), *x);
                assert_eq!(x.bytes(), bytes);
            }
            L1Message::L1ValidatorWeight(x) => {
                assert_eq!(x.nonce, 0x2122232425262728);
                assert_eq!(x.weight, 0x292a2b2c2d2e2f30);
                assert_eq!(L1ValidatorWeight::from_bytes(&bytes).unwrap(), *x);
                assert_eq!(x.bytes(), bytes);
            }
        }
        if !matches!(msg, L1Message::L1ValidatorWeight(_)) {
            assert!(matches!(
                L1ValidatorWeight::from_bytes(&bytes),
                Err(WarpError::WrongType { .. })
            ));
        }

        // Wrapped for the wire and back.
        let unsigned = msg.to_unsigned_message(5);
        assert_eq!(unsigned.source_chain_id, P_CHAIN_ID);
        let parsed = UnsignedMessage::from_bytes(&unsigned.bytes()).unwrap();
        assert_eq!(L1Message::from_unsigned_message(&parsed).unwrap(), msg);
    }
}

#[test]
fn subnet_to_l1_conversion_data_round_trips_and_hashes() {
    let v = json(L1_VECTORS);
    let c = &v["conversion_data"];
    let bytes = unhex(str_of(c, "hex"));
    let data = SubnetToL1ConversionData::from_bytes(&bytes).unwrap();
    assert_eq!(data.bytes(), bytes);
    assert_eq!(data.manager_address, vec![0x41]);
    assert_eq!(data.validators.len(), 1);
    assert_eq!(data.validators[0].weight, 0x868788898a8b8c8d);
    let want = Id::from_slice(&unhex(str_of(c, "conversionID_sha256_hex"))).unwrap();
    assert_eq!(data.id(), want);
    assert_eq!(data.message(), SubnetToL1Conversion { id: want });
}

#[test]
fn generated_vector_unsigned_message_and_id_reproduce() {
    let v = json(SIG_VECTOR);
    let source = Id::from_slice(&unhex(str_of(&v, "source_chain_id_hex"))).unwrap();
    assert_eq!(source.to_string(), str_of(&v, "source_chain_id_cb58"));

    let payload_bytes = unhex(str_of(&v, "addressed_call_hex"));
    let call = AddressedCall::from_bytes(&payload_bytes).unwrap();
    assert_eq!(call.source_address.len(), 20);
    assert_eq!(call.payload, b"hello warp");
    assert_eq!(call.bytes(), payload_bytes);

    let network_id = u32::try_from(v["network_id"].as_u64().unwrap()).unwrap();
    let unsigned = UnsignedMessage::new(network_id, source, call.bytes());
    let unsigned_bytes = unhex(str_of(&v, "unsigned_message_hex"));
    assert_eq!(unsigned.bytes(), unsigned_bytes);
    assert_eq!(
        UnsignedMessage::from_bytes(&unsigned_bytes).unwrap(),
        unsigned
    );
    assert_eq!(hex::encode(unsigned.id().0), str_of(&v, "message_id_hex"));
    assert_eq!(unsigned.id().to_string(), str_of(&v, "message_id_cb58"));

    let hash = unhex(str_of(&v, "hash_payload_example_hex"));
    let p = Payload::from_bytes(&hash).unwrap();
    assert!(matches!(p, Payload::Hash(_)));
    assert_eq!(p.bytes(), hash);
}

#[test]
fn generated_vector_signed_message_decodes_and_bitset_matches() {
    let v = json(SIG_VECTOR);
    let signed = unhex(str_of(&v, "signed_message_hex"));
    let msg = Message::from_bytes(&signed).unwrap();
    assert_eq!(msg.bytes(), signed);
    assert_eq!(
        msg.unsigned.bytes(),
        unhex(str_of(&v, "unsigned_message_hex"))
    );
    assert!(signed.starts_with(&msg.unsigned.bytes()));
    assert_eq!(
        msg.signature.signers,
        unhex(str_of(&v, "signers_bitset_hex"))
    );
    let indices: Vec<usize> = v["signer_indices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i.as_u64().unwrap() as usize)
        .collect();
    assert_eq!(bitset::from_indices(&indices), msg.signature.signers);
    assert_eq!(msg.signature.signer_indices().unwrap(), indices);
    assert_eq!(msg.signature.num_signers().unwrap(), 5);
    assert_eq!(
        msg.signature.signature.to_vec(),
        unhex(str_of(&v, "aggregate_signature_hex"))
    );
    assert_eq!(hex::encode(msg.id().0), str_of(&v, "message_id_hex"));
}

#[test]
fn truncated_signed_messages_never_panic() {
    let v = json(SIG_VECTOR);
    let signed = unhex(str_of(&v, "signed_message_hex"));
    for n in 0..signed.len() {
        assert!(Message::from_bytes(&signed[..n]).is_err(), "prefix {n}");
    }
    let unsigned_len = unhex(str_of(&v, "unsigned_message_hex")).len();
    assert!(matches!(
        Message::from_bytes(&signed[..unsigned_len]),
        Err(WarpError::Codec(CodecError::UnexpectedEof { .. }))
    ));
}

/// One validator of the generated vector, in canonical order.
struct Vdr {
    sk: bls::SecretKey,
    pk: bls::PublicKey,
    weight: u64,
    node_id: NodeId,
}

fn generated_validators(v: &serde_json::Value) -> Vec<Vdr> {
    v["validators_canonical_order"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(i, x)| {
            assert_eq!(x["index"].as_u64().unwrap() as usize, i);
            let sk: [u8; 32] = unhex(str_of(x, "sk_hex")).try_into().unwrap();
            let sk = bls::SecretKey::from_bytes(&sk).unwrap();
            let pk = sk.public_key();
            assert_eq!(pk.to_bytes().to_vec(), unhex(str_of(x, "pk_compressed")));
            assert_eq!(
                pk.to_uncompressed().to_vec(),
                unhex(str_of(x, "pk_uncompressed"))
            );
            Vdr {
                sk,
                pk,
                weight: x["weight"].as_u64().unwrap(),
                node_id: str_of(x, "nodeID").parse().unwrap(),
            }
        })
        .collect()
}

/// The validators as `CanonicalValidatorSet::new` takes them, in the order of `perm`.
fn triples(vdrs: &[Vdr], perm: &[usize]) -> Vec<(NodeId, Option<bls::PublicKey>, u64)> {
    perm.iter()
        .map(|&i| (vdrs[i].node_id, Some(vdrs[i].pk.clone()), vdrs[i].weight))
        .collect()
}

/// A fixed pseudo-random permutation of `0..n` (xorshift Fisher–Yates).
fn shuffled(n: usize, mut seed: u64) -> Vec<usize> {
    let mut out: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        out.swap(i, (seed % (i as u64 + 1)) as usize);
    }
    out
}

struct Generated {
    v: serde_json::Value,
    vdrs: Vec<Vdr>,
    set: CanonicalValidatorSet,
    msg: Message,
    network_id: u32,
}

fn generated() -> Generated {
    let v = json(SIG_VECTOR);
    let vdrs = generated_validators(&v);
    // Reverse order: as far from canonical as it gets.
    let perm: Vec<usize> = (0..vdrs.len()).rev().collect();
    let set = CanonicalValidatorSet::new(triples(&vdrs, &perm)).unwrap();
    let msg = Message::from_bytes(&unhex(str_of(&v, "signed_message_hex"))).unwrap();
    let network_id = u32::try_from(v["network_id"].as_u64().unwrap()).unwrap();
    Generated {
        v,
        vdrs,
        set,
        msg,
        network_id,
    }
}

#[test]
fn generated_vector_canonical_order_reproduces_from_any_order() {
    let g = generated();
    assert_eq!(g.vdrs.len(), 8);
    for seed in [1u64, 7, 42, 0x5eed, 0xdead_beef] {
        let perm = shuffled(g.vdrs.len(), seed);
        let set = CanonicalValidatorSet::new(triples(&g.vdrs, &perm)).unwrap();
        assert_eq!(set.total_weight, g.v["total_weight"].as_u64().unwrap());
        let order: Vec<NodeId> = set.validators.iter().map(|x| x.node_ids[0]).collect();
        let want: Vec<NodeId> = g.vdrs.iter().map(|x| x.node_id).collect();
        assert_eq!(order, want, "permutation {perm:?}");
        for (c, x) in set.validators.iter().zip(&g.vdrs) {
            assert_eq!(c.public_key, x.pk);
            assert_eq!(c.weight, x.weight);
            assert_eq!(c.node_ids, vec![x.node_id]);
        }
        assert_eq!(set, g.set);
    }

    // Sorting by the compressed keys would give another order, listed in the vector.
    assert!(
        g.v["canonical_order_differs_from_compressed_sort"]
            .as_bool()
            .unwrap()
    );
    let mut by_compressed: Vec<usize> = (0..g.vdrs.len()).collect();
    by_compressed.sort_by_key(|&i| g.vdrs[i].pk.to_bytes());
    let want: Vec<usize> = g.v["compressed_sort_order_indices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i.as_u64().unwrap() as usize)
        .collect();
    assert_eq!(by_compressed, want);
    assert_ne!(by_compressed, (0..g.vdrs.len()).collect::<Vec<_>>());
}

#[test]
fn generated_vector_signing_and_aggregation_reproduce() {
    let g = generated();
    let unsigned =
        UnsignedMessage::from_bytes(&unhex(str_of(&g.v, "unsigned_message_hex"))).unwrap();
    let signers: Vec<usize> = g.v["signer_indices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i.as_u64().unwrap() as usize)
        .collect();
    let individual = g.v["individual_signatures_hex"].as_array().unwrap();
    assert_eq!(individual.len(), signers.len());

    let mut sigs = Vec::new();
    for (&i, want) in signers.iter().zip(individual) {
        let sig = g.vdrs[i].sk.sign(&unsigned.bytes());
        assert_eq!(
            sig.to_bytes().to_vec(),
            unhex(want.as_str().unwrap()),
            "signer {i}"
        );
        assert!(bls::verify(&g.vdrs[i].pk, &unsigned.bytes(), &sig));
        sigs.push((i, sig));
    }
    // The order the signatures arrive in does not matter.
    sigs.reverse();
    let msg = g.set.aggregate(unsigned, &sigs).unwrap();
    assert_eq!(
        msg.signature.signature.to_vec(),
        unhex(str_of(&g.v, "aggregate_signature_hex"))
    );
    assert_eq!(msg.signature.signers, vec![0xad]);
    assert_eq!(msg.bytes(), unhex(str_of(&g.v, "signed_message_hex")));
    assert_eq!(msg, g.msg);
}

#[test]
fn generated_vector_is_below_the_default_quorum() {
    let g = generated();
    let signed = g.v["signature_weight"].as_u64().unwrap();
    assert_eq!(g.set.signed_weight(&g.msg.signature.signers), Ok(signed));
    assert!(!g.v["quorum_67_of_100_met"].as_bool().unwrap());
    assert_eq!(
        g.set
            .verify(&g.msg, g.network_id, DEFAULT_QUORUM_NUM, QUORUM_DEN),
        Err(WarpError::InsufficientWeight {
            signed: 240,
            required: 242,
            total: 360
        })
    );
    // 240/360 = 66.67 %.
    assert_eq!(g.set.verify(&g.msg, g.network_id, 66, 100), Ok(()));
}

#[test]
fn quorum_exactly_at_the_threshold_passes_and_one_unit_below_fails() {
    let g = generated();
    // Exactly 240 of 360 needed.
    assert_eq!(g.set.verify(&g.msg, g.network_id, 2, 3), Ok(()));
    assert_eq!(g.set.verify(&g.msg, g.network_id, 240, 360), Ok(()));
    // 241 needed: one unit more than was signed.
    assert_eq!(
        g.set.verify(&g.msg, g.network_id, 241, 360),
        Err(WarpError::InsufficientWeight {
            signed: 240,
            required: 241,
            total: 360
        })
    );
    // One more unit of key-less weight moves the threshold past the signed weight.
    let mut with_extra = triples(&g.vdrs, &(0..8).collect::<Vec<_>>());
    with_extra.push((NodeId::EMPTY, None, 1));
    let set = CanonicalValidatorSet::new(with_extra).unwrap();
    assert_eq!(set.total_weight, 361);
    assert_eq!(set.validators, g.set.validators);
    assert_eq!(
        set.verify(&g.msg, g.network_id, 2, 3),
        Err(WarpError::InsufficientWeight {
            signed: 240,
            required: 241,
            total: 361
        })
    );
}

#[test]
fn tampered_messages_fail() {
    let g = generated();
    let ok = |m: &Message| g.set.verify(m, g.network_id, 66, 100);
    assert_eq!(ok(&g.msg), Ok(()));

    // Any flipped bit of the signature.
    for byte in [0usize, 1, 47, 48, 95] {
        let mut m = g.msg.clone();
        m.signature.signature[byte] ^= 0x01;
        let err = ok(&m).unwrap_err();
        assert!(
            matches!(
                err,
                WarpError::InvalidSignature | WarpError::MalformedSignature(_)
            ),
            "byte {byte}: {err}"
        );
    }
    // A valid signature over something else.
    let mut m = g.msg.clone();
    m.signature.signature = g.vdrs[0].sk.sign(&m.unsigned.bytes()).to_bytes();
    assert_eq!(ok(&m), Err(WarpError::InvalidSignature));
    // The payload.
    let mut m = g.msg.clone();
    m.unsigned.payload[10] ^= 1;
    assert_eq!(ok(&m), Err(WarpError::InvalidSignature));
    // The claimed signers: swap validator 7 (weight 10) for 6 (weight 30).
    let mut m = g.msg.clone();
    m.signature.signers = bitset::from_indices(&[0, 2, 3, 5, 6]);
    assert_eq!(ok(&m), Err(WarpError::InvalidSignature));
    // Source chain.
    let mut m = g.msg.clone();
    m.unsigned.source_chain_id = Id::ZERO;
    assert_eq!(ok(&m), Err(WarpError::InvalidSignature));
}

#[test]
fn wrong_network_fails() {
    let g = generated();
    assert_eq!(
        g.set.verify(&g.msg, 1, 66, 100),
        Err(WarpError::WrongNetwork {
            expected: 1,
            actual: 5
        })
    );
}

#[test]
fn malformed_bitsets_fail() {
    let g = generated();
    let mut m = g.msg.clone();
    m.signature.signers = vec![0x00, 0xad];
    assert_eq!(
        g.set.verify(&m, g.network_id, 66, 100),
        Err(WarpError::InvalidBitSet)
    );
    assert_eq!(m.signature.num_signers(), Err(WarpError::InvalidBitSet));
    assert_eq!(g.set.signed_weight(&[0x00]), Err(WarpError::InvalidBitSet));

    // Bit 8 with 8 validators.
    m.signature.signers = vec![0x01, 0xad];
    assert_eq!(
        g.set.verify(&m, g.network_id, 66, 100),
        Err(WarpError::UnknownValidator {
            index: 8,
            validators: 8
        })
    );
    // It round-trips through the codec all the same: the bitset is checked at verification.
    assert_eq!(Message::from_bytes(&m.bytes()).unwrap(), m);
}

#[test]
fn shared_keys_merge_and_key_less_validators_only_add_weight() {
    let g = generated();
    let mut input = triples(&g.vdrs, &shuffled(8, 99));
    // A second node with validator 7's key, and two without keys.
    let twin = NodeId([0xee; 20]);
    input.push((twin, Some(g.vdrs[7].pk.clone()), 15));
    input.push((NodeId([0xaa; 20]), None, 100));
    input.push((NodeId::EMPTY, None, 25));
    let set = CanonicalValidatorSet::new(input).unwrap();
    assert_eq!(set.len(), 8);
    assert_eq!(set.total_weight, 360 + 15 + 100 + 25);
    let merged = &set.validators[7];
    assert_eq!(merged.weight, 10 + 15);
    let mut ids = vec![g.vdrs[7].node_id, twin];
    ids.sort();
    assert_eq!(merged.node_ids, ids);
    assert_eq!(set.index_of(&twin), Some(7));
    assert_eq!(set.index_of(&NodeId::EMPTY), None);

    // Validator 7's one signature now carries both nodes' weight.
    assert_eq!(set.signed_weight(&g.msg.signature.signers), Ok(240 + 15));
    assert_eq!(set.verify(&g.msg, g.network_id, 255, 500), Ok(()));
    assert!(set.verify(&g.msg, g.network_id, 256, 500).is_err());
}

// ---- properties ----

fn id() -> impl Strategy<Value = Id> {
    any::<[u8; 32]>().prop_map(Id)
}

fn short_id() -> impl Strategy<Value = ShortId> {
    any::<[u8; 20]>().prop_map(ShortId)
}

fn node_id() -> impl Strategy<Value = NodeId> {
    any::<[u8; 20]>().prop_map(NodeId)
}

fn bytes(max: usize) -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(any::<u8>(), 0..max)
}

fn bls_key() -> impl Strategy<Value = [u8; 48]> {
    prop::collection::vec(any::<u8>(), 48).prop_map(|v| v.try_into().unwrap())
}

fn owner() -> impl Strategy<Value = PChainOwner> {
    (any::<u32>(), prop::collection::vec(short_id(), 0..4)).prop_map(|(threshold, addresses)| {
        PChainOwner {
            threshold,
            addresses,
        }
    })
}

fn l1_message() -> impl Strategy<Value = L1Message> {
    prop_oneof![
        id().prop_map(|id| SubnetToL1Conversion { id }.into()),
        (
            id(),
            node_id(),
            bls_key(),
            any::<u64>(),
            owner(),
            owner(),
            any::<u64>()
        )
            .prop_map(
                |(subnet_id, node_id, bls_public_key, expiry, rbo, disable, weight)| {
                    RegisterL1Validator {
                        subnet_id,
                        node_id,
                        bls_public_key,
                        expiry,
                        remaining_balance_owner: rbo,
                        disable_owner: disable,
                        weight,
                    }
                    .into()
                }
            ),
        (id(), any::<bool>()).prop_map(|(validation_id, registered)| {
            L1ValidatorRegistration {
                validation_id,
                registered,
            }
            .into()
        }),
        (id(), any::<u64>(), any::<u64>()).prop_map(|(validation_id, nonce, weight)| {
            // u64::MAX is reserved for removal, with weight 0.
            let weight = if nonce == u64::MAX { 0 } else { weight };
            L1ValidatorWeight {
                validation_id,
                nonce,
                weight,
            }
            .into()
        }),
    ]
}

fn payload() -> impl Strategy<Value = Payload> {
    prop_oneof![
        id().prop_map(Payload::Hash),
        (bytes(40), bytes(200)).prop_map(|(source_address, payload)| {
            Payload::AddressedCall(AddressedCall {
                source_address,
                payload,
            })
        }),
    ]
}

fn unsigned() -> impl Strategy<Value = UnsignedMessage> {
    (any::<u32>(), id(), bytes(300)).prop_map(|(n, c, p)| UnsignedMessage::new(n, c, p))
}

fn signature() -> impl Strategy<Value = BitSetSignature> {
    (bytes(8), prop::collection::vec(any::<u8>(), 96)).prop_map(|(signers, sig)| BitSetSignature {
        signers,
        signature: sig.try_into().unwrap(),
    })
}

proptest! {
    #[test]
    fn unsigned_message_round_trips(m in unsigned()) {
        let bytes = m.bytes();
        prop_assert_eq!(UnsignedMessage::from_bytes(&bytes).unwrap(), m.clone());
        prop_assert_eq!(m.id(), Id::hash_of(&bytes));
    }

    #[test]
    fn message_round_trips(u in unsigned(), s in signature()) {
        let m = Message::new(u, s);
        let bytes = m.bytes();
        prop_assert!(bytes.starts_with(&m.unsigned.bytes()));
        prop_assert_eq!(Message::from_bytes(&bytes).unwrap(), m);
    }

    #[test]
    fn payload_round_trips(p in payload()) {
        prop_assert_eq!(Payload::from_bytes(&p.bytes()).unwrap(), p);
    }

    #[test]
    fn l1_messages_round_trip(m in l1_message()) {
        let bytes = m.bytes();
        prop_assert_eq!(L1Message::from_bytes(&bytes).unwrap(), m.clone());
        let unsigned = m.to_unsigned_message(1);
        prop_assert_eq!(L1Message::from_unsigned_message(&unsigned).unwrap(), m.clone());
        match m {
            L1Message::SubnetToL1Conversion(x) =>
                prop_assert_eq!(SubnetToL1Conversion::from_bytes(&bytes).unwrap(), x),
            L1Message::RegisterL1Validator(x) => {
                prop_assert_eq!(x.validation_id(), Id::hash_of(&bytes));
                prop_assert_eq!(RegisterL1Validator::from_bytes(&bytes).unwrap(), x);
            }
            L1Message::L1ValidatorRegistration(x) =>
                prop_assert_eq!(L1ValidatorRegistration::from_bytes(&bytes).unwrap(), x),
            L1Message::L1ValidatorWeight(x) =>
                prop_assert_eq!(L1ValidatorWeight::from_bytes(&bytes).unwrap(), x),
        }
    }

    #[test]
    fn conversion_data_round_trips(
        subnet_id in id(),
        manager_chain_id in id(),
        manager_address in bytes(40),
        validators in prop::collection::vec(
            (node_id(), bls_key(), any::<u64>()).prop_map(|(node_id, bls_public_key, weight)| {
                ConversionValidatorData { node_id, bls_public_key, weight }
            }),
            0..5,
        ),
    ) {
        let data = SubnetToL1ConversionData { subnet_id, manager_chain_id, manager_address, validators };
        let bytes = data.bytes();
        prop_assert_eq!(SubnetToL1ConversionData::from_bytes(&bytes).unwrap(), data.clone());
        prop_assert_eq!(data.id(), Id::hash_of(&bytes));
    }

    #[test]
    fn acp118_messages_round_trip(
        message in bytes(300),
        justification in bytes(100),
        sig in bytes(120),
        subnet_id in bytes(40),
        index in any::<u32>(),
        register in prop::option::of(bytes(200)),
    ) {
        let req = SignatureRequest { message, justification };
        prop_assert_eq!(SignatureRequest::from_bytes(&req.bytes()).unwrap(), req.clone());
        prop_assert_eq!(
            SignatureRequest::from_app_request_bytes(&req.app_request_bytes()).unwrap(),
            req
        );
        let resp = SignatureResponse { signature: sig };
        prop_assert_eq!(SignatureResponse::from_bytes(&resp.bytes()).unwrap(), resp);
        let j = L1ValidatorRegistrationJustification::from(match register {
            Some(m) => Preimage::RegisterL1ValidatorMessage(m),
            None => Preimage::ConvertSubnetToL1TxData(SubnetIdIndex { subnet_id, index }),
        });
        prop_assert_eq!(L1ValidatorRegistrationJustification::from_bytes(&j.bytes()).unwrap(), j);
    }

    #[test]
    fn bitsets_round_trip(mut indices in prop::collection::vec(0usize..300, 0..40)) {
        let bits = bitset::from_indices(&indices);
        indices.sort_unstable();
        indices.dedup();
        prop_assert_eq!(bitset::to_indices(&bits).unwrap(), indices.clone());
        prop_assert_eq!(bitset::bit_len(&bits), indices.last().map_or(0, |i| i + 1));
    }

    #[test]
    fn decoders_never_panic_on_garbage(data in bytes(400)) {
        let _ = UnsignedMessage::from_bytes(&data);
        let _ = Message::from_bytes(&data);
        let _ = Payload::from_bytes(&data);
        let _ = L1Message::from_bytes(&data);
        let _ = SubnetToL1ConversionData::from_bytes(&data);
        let _ = SignatureRequest::from_bytes(&data);
        let _ = SignatureRequest::from_app_request_bytes(&data);
        let _ = SignatureResponse::from_bytes(&data);
        let _ = L1ValidatorRegistrationJustification::from_bytes(&data);
        let _ = bitset::to_indices(&data);
    }

    #[test]
    fn decoders_never_panic_on_prefixed_garbage(tail in bytes(400), ty in 0u32..5) {
        // Garbage after a valid version and type ID reaches the field decoders.
        let mut data = vec![0, 0];
        data.extend_from_slice(&ty.to_be_bytes());
        data.extend_from_slice(&tail);
        let _ = Payload::from_bytes(&data);
        let _ = L1Message::from_bytes(&data);
        let _ = SubnetToL1ConversionData::from_bytes(&data);
        let _ = UnsignedMessage::from_bytes(&data);
    }
}
