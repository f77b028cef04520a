//! Vectors and properties of `firn_core::keys`.

use crate::vectors;
use firn_core::address::format_address;
use firn_core::encoding::cb58_encode;
use firn_core::keys::bls::{self, BlsError};
use firn_core::keys::secp256k1::{self, KeyError, PrivateKey, RecoverableSignature};
use firn_core::network::{FUJI_ID, LOCAL_ID, MAINNET_ID};
use proptest::prelude::*;

// ---------------------------------------------------------------------------------------
// secp256k1

/// The secp256k1 group order n, big-endian.
const N: [u8; 32] = [
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe,
    0xba, 0xae, 0xdc, 0xe6, 0xaf, 0x48, 0xa0, 0x3b, 0xbf, 0xd2, 0x5e, 0x8c, 0xd0, 0x36, 0x41, 0x41,
];

/// `n − s` for a big-endian s ≤ n.
fn neg_mod_n(s: &[u8]) -> [u8; 32] {
    let mut out = [0u8; 32];
    let mut borrow = 0i16;
    for i in (0..32).rev() {
        let mut v = i16::from(N[i]) - i16::from(s[i]) - borrow;
        borrow = 0;
        if v < 0 {
            v += 256;
            borrow = 1;
        }
        out[i] = v as u8;
    }
    assert_eq!(borrow, 0);
    out
}

#[test]
fn secp256k1_vectors_give_the_exact_keys_ids_and_addresses() {
    let v = vectors::json("encoding/secp256k1-keys-addresses.json");
    let keys = v["keys"].as_array().unwrap();
    assert_eq!(keys.len(), 3);
    for k in keys {
        let s = |f: &str| k[f].as_str().unwrap().to_string();
        let secret: [u8; 32] = vectors::unhex(&s("private_key_hex")).try_into().unwrap();

        let parsed: PrivateKey = s("private_key_cb58").parse().unwrap();
        assert_eq!(parsed.to_bytes(), secret);
        let key = PrivateKey::from_bytes(&secret).unwrap();
        assert_eq!(key.to_cb58_string(), s("private_key_cb58"));

        let pk = key.public_key();
        assert_eq!(pk, parsed.public_key());
        assert_eq!(
            pk.compressed().to_vec(),
            vectors::unhex(&s("compressed_pubkey_hex"))
        );
        assert_eq!(
            secp256k1::PublicKey::from_slice(&pk.uncompressed()).unwrap(),
            pk
        );

        let id = pk.short_id();
        assert_eq!(id.0.to_vec(), vectors::unhex(&s("short_id_hex")));
        assert_eq!(id.to_string(), s("short_address_cb58"));
        assert_eq!(cb58_encode(&id.0), s("short_address_cb58"));

        assert_eq!(format_address("P", MAINNET_ID, &id), s("p_mainnet"));
        assert_eq!(format_address("P", 99999, &id), s("p_fallback_custom_hrp"));
        assert_eq!(format_address("P", FUJI_ID, &id), s("fuji"));
        assert_eq!(format_address("P", LOCAL_ID, &id), s("local"));

        assert_eq!(pk.eth_address_checksummed(), s("eth_address"));
        assert_eq!(
            pk.eth_address().to_vec(),
            vectors::unhex(&s("eth_address").to_lowercase())
        );
    }
}

#[test]
fn secp256k1_sign_and_recover_round_trip() {
    let key = PrivateKey::from_seed(b"firn keys", 7);
    let msg = b"avalanche";
    let sig = key.sign(msg);
    let hash: [u8; 32] = sha256(msg);
    assert_eq!(sig, key.sign_hash(&hash), "sign is sign_hash of sha256");
    assert_eq!(sig, key.sign(msg), "signatures are deterministic");
    assert!(sig.0[64] <= 1);
    assert_eq!(secp256k1::recover(&hash, &sig).unwrap(), key.public_key());
    assert!(key.public_key().verify_hash(&hash, &sig));

    let other = PrivateKey::from_seed(b"firn keys", 8).public_key();
    assert!(!other.verify_hash(&hash, &sig));
    let mut wrong_hash = hash;
    wrong_hash[0] ^= 1;
    assert!(!key.public_key().verify_hash(&wrong_hash, &sig));

    assert!(sig.to_string().starts_with("0x"));
    assert_eq!(sig.to_string().len(), 2 + 130);
    assert_eq!(RecoverableSignature::from_slice(&sig.0).unwrap(), sig);
    assert_eq!(
        RecoverableSignature::from_slice(&sig.0[..64]),
        Err(KeyError::SignatureLength(64))
    );
}

#[test]
fn secp256k1_recover_rejects_bad_v_high_s_and_garbage_r() {
    let key = PrivateKey::from_seed(b"firn keys", 9);
    let hash = sha256(b"mutate me");
    let sig = key.sign_hash(&hash);

    for v in [2u8, 3, 27, 28, 0xff] {
        let mut bad = sig;
        bad.0[64] = v;
        assert_eq!(
            secp256k1::recover(&hash, &bad),
            Err(KeyError::InvalidRecoveryId(v))
        );
    }

    // The malleated twin (r, n − s, 1 − v) is a valid ECDSA signature of the same hash by
    // the same key; it must still be refused.
    let mut high = sig;
    high.0[32..64].copy_from_slice(&neg_mod_n(&sig.0[32..64]));
    high.0[64] ^= 1;
    let raw = ::secp256k1::ecdsa::RecoverableSignature::from_compact(
        &high.0[..64],
        ::secp256k1::ecdsa::RecoveryId::try_from(i32::from(high.0[64])).unwrap(),
    )
    .unwrap();
    let raw_pk = ::secp256k1::SECP256K1
        .recover_ecdsa(&::secp256k1::Message::from_digest(hash), &raw)
        .unwrap();
    assert_eq!(
        raw_pk.serialize(),
        key.public_key().compressed(),
        "the twin is valid ECDSA"
    );
    assert_eq!(
        secp256k1::recover(&hash, &high),
        Err(KeyError::MutatedSignature)
    );
    assert!(!key.public_key().verify_hash(&hash, &high));

    // r = 0, r = n (out of range) and s = 0.
    for (range, value) in [(0..32, [0u8; 32]), (0..32, N), (32..64, [0u8; 32])] {
        let mut bad = sig;
        bad.0[range].copy_from_slice(&value);
        assert_eq!(
            secp256k1::recover(&hash, &bad),
            Err(KeyError::InvalidSignature)
        );
    }
    // r = 5 in range, but x = 5 is not on the curve (5³ + 7 = 132 is not a square mod p),
    // so no point R and no public key exist.
    let mut bad = sig;
    bad.0[..32].copy_from_slice(&[0u8; 32]);
    bad.0[31] = 5;
    assert_eq!(
        secp256k1::recover(&hash, &bad),
        Err(KeyError::InvalidSignature)
    );
}

fn sha256(bytes: &[u8]) -> [u8; 32] {
    use sha2::Digest;
    sha2::Sha256::digest(bytes).into()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn secp256k1_recover_returns_the_signer(seed in prop::collection::vec(any::<u8>(), 0..64),
                                            index in any::<u32>(),
                                            hash in any::<[u8; 32]>()) {
        let key = PrivateKey::from_seed(&seed, index);
        let sig = key.sign_hash(&hash);
        prop_assert!(sig.0[64] <= 1);
        prop_assert!(sig.0[32..64] <= neg_mod_n(&sig.0[32..64])[..], "low S");
        prop_assert_eq!(secp256k1::recover(&hash, &sig).unwrap(), key.public_key());
        prop_assert!(key.public_key().verify_hash(&hash, &sig));
    }
}

// ---------------------------------------------------------------------------------------
// BLS

#[test]
fn bls_avalanchejs_vector_matches_byte_for_byte() {
    let v = vectors::json("bls/avalanchejs-bls-vector.json");
    let s = |f: &str| v[f].as_str().unwrap().to_string();
    let sk_bytes: [u8; 32] = vectors::unhex(&s("secret_key_hex_be")).try_into().unwrap();
    let sk = bls::SecretKey::from_bytes(&sk_bytes).unwrap();
    assert_eq!(sk.to_bytes(), sk_bytes);

    let pk = sk.public_key();
    let pk_bytes = vectors::unhex(&s("public_key_compressed_48"));
    assert_eq!(pk.to_bytes().to_vec(), pk_bytes);
    assert_eq!(bls::PublicKey::from_bytes(&pk_bytes).unwrap(), pk);

    let msg = s("message_utf8");
    assert_eq!(msg, "test");
    let sig = sk.sign(msg.as_bytes());
    let sig_bytes = vectors::unhex(&s(
        "signature_96_dst_BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_",
    ));
    assert_eq!(sig.to_bytes().to_vec(), sig_bytes);
    let sig = bls::Signature::from_bytes(&sig_bytes).unwrap();

    let pop = sk.sign_proof_of_possession();
    let pop_bytes = vectors::unhex(&s(
        "proof_of_possession_96_dst_BLS_POP_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_over_compressed_pk",
    ));
    assert_eq!(pop.to_bytes().to_vec(), pop_bytes);
    let pop = bls::Signature::from_bytes(&pop_bytes).unwrap();

    assert!(bls::verify(&pk, b"test", &sig));
    assert!(bls::verify_proof_of_possession(&pk, &pop));
    assert!(!bls::verify(&pk, b"tesT", &sig), "different message");
    assert!(
        !bls::verify(&pk, &pk.to_bytes(), &pop),
        "PoP is not a message signature"
    );
    assert!(!bls::verify_proof_of_possession(&pk, &sig));
    // The same bytes signed under the message DST are not a PoP either.
    assert!(!bls::verify_proof_of_possession(
        &pk,
        &sk.sign(&pk.to_bytes())
    ));

    assert_eq!(bls::PUBLIC_KEY_LEN, 48);
    assert_eq!(bls::SIGNATURE_LEN, 96);
    assert_eq!(bls::SECRET_KEY_LEN, 32);
    assert_eq!(
        bls::SIGNATURE_DST,
        b"BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_"
    );
    assert_eq!(bls::POP_DST, b"BLS_POP_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_");
}

fn bls_keys(n: usize) -> Vec<bls::SecretKey> {
    (0..n)
        .map(|i| {
            let mut ikm = [0u8; 32];
            ikm[..8].copy_from_slice(&(i as u64).to_be_bytes());
            bls::SecretKey::from_seed(&ikm).unwrap()
        })
        .collect()
}

#[test]
fn bls_aggregate_signature_verifies_only_with_every_signer() {
    let sks = bls_keys(8);
    let pks: Vec<bls::PublicKey> = sks.iter().map(|sk| sk.public_key()).collect();
    let msg = b"warp message";
    let sigs: Vec<bls::Signature> = sks.iter().map(|sk| sk.sign(msg)).collect();
    let pk_refs: Vec<&bls::PublicKey> = pks.iter().collect();
    let sig_refs: Vec<&bls::Signature> = sigs.iter().collect();
    let agg = bls::aggregate_signatures(&sig_refs).unwrap();

    assert!(bls::fast_aggregate_verify(&pk_refs, msg, &agg));
    assert!(
        !bls::fast_aggregate_verify(&pk_refs[1..], msg, &agg),
        "signer missing"
    );
    assert!(!bls::fast_aggregate_verify(&pk_refs, b"other", &agg));
    assert!(!bls::fast_aggregate_verify(&[], msg, &agg));

    // Same as verifying against the aggregate key; order does not matter.
    let agg_pk = bls::aggregate_public_keys(&pk_refs).unwrap();
    assert!(bls::verify(&agg_pk, msg, &agg));
    let mut reversed = pk_refs.clone();
    reversed.reverse();
    assert_eq!(bls::aggregate_public_keys(&reversed).unwrap(), agg_pk);
    // Aggregates round-trip through bytes like any key or signature.
    assert_eq!(
        bls::PublicKey::from_bytes(&agg_pk.to_bytes()).unwrap(),
        agg_pk
    );
    assert_eq!(bls::Signature::from_bytes(&agg.to_bytes()).unwrap(), agg);

    // Missing a signature instead of a key fails too.
    let partial = bls::aggregate_signatures(&sig_refs[1..]).unwrap();
    assert!(!bls::fast_aggregate_verify(&pk_refs, msg, &partial));
    assert!(bls::fast_aggregate_verify(&pk_refs[1..], msg, &partial));

    assert_eq!(
        bls::aggregate_public_keys(&[]),
        Err(BlsError::EmptyAggregate("public keys"))
    );
    assert_eq!(
        bls::aggregate_signatures(&[]),
        Err(BlsError::EmptyAggregate("signatures"))
    );
}

#[test]
fn bls_batch_verify_passes_valid_batches_and_catches_any_swap() {
    let n = 6;
    let sks = bls_keys(n);
    let pks: Vec<bls::PublicKey> = sks.iter().map(|sk| sk.public_key()).collect();
    let msgs: Vec<Vec<u8>> = (0..n)
        .map(|i| format!("message {i}").into_bytes())
        .collect();
    let sigs: Vec<bls::Signature> = sks.iter().zip(&msgs).map(|(sk, m)| sk.sign(m)).collect();
    let items: Vec<(&bls::PublicKey, &[u8], &bls::Signature)> = (0..n)
        .map(|i| (&pks[i], msgs[i].as_slice(), &sigs[i]))
        .collect();
    assert!(bls::batch_verify(&items));
    assert!(bls::batch_verify(&items[..1]));
    assert!(!bls::batch_verify(&[]));

    // Swap two signatures: each is valid, just not for its item.
    for i in 0..n {
        let j = (i + 1) % n;
        let mut swapped = items.clone();
        swapped[i].2 = &sigs[j];
        swapped[j].2 = &sigs[i];
        assert!(!bls::batch_verify(&swapped), "swap {i}<->{j}");
    }
    // Replace one signature with another key's signature of the right message.
    let stranger = bls_keys(n + 1).pop().unwrap();
    for i in 0..n {
        let forged = stranger.sign(&msgs[i]);
        let mut bad = items.clone();
        bad[i].2 = &forged;
        assert!(!bls::batch_verify(&bad), "foreign signature at {i}");
    }
    // Errors that cancel in an unweighted sum: one key's signatures of two messages,
    // swapped. Each item is invalid, but the plain sums of both sides still match.
    let same_key_msgs = [b"x".as_slice(), b"y".as_slice()];
    let sx = sks[0].sign(same_key_msgs[0]);
    let sy = sks[0].sign(same_key_msgs[1]);
    let cancelling = [
        (&pks[0], same_key_msgs[0], &sy),
        (&pks[0], same_key_msgs[1], &sx),
    ];
    let plain_sum = bls::aggregate_signatures(&[&sx, &sy]).unwrap();
    let sum_of_swapped = bls::aggregate_signatures(&[&sy, &sx]).unwrap();
    assert_eq!(plain_sum, sum_of_swapped, "an unweighted check would pass");
    assert!(!bls::batch_verify(&cancelling));
}

#[test]
fn bls_decode_rejects_infinity_off_curve_off_subgroup_and_wrong_lengths() {
    // Compressed point at infinity: flags 0b110, all else zero.
    let mut inf_pk = [0u8; 48];
    inf_pk[0] = 0xc0;
    assert_eq!(
        bls::PublicKey::from_bytes(&inf_pk),
        Err(BlsError::PointAtInfinity("public key"))
    );

    // x = 0 gives y² = 4, so (0, ±2) is on E1 but not in the prime-order subgroup
    // (its order is 3).
    let mut off_group = [0u8; 48];
    off_group[0] = 0x80;
    assert_eq!(
        bls::PublicKey::from_bytes(&off_group),
        Err(BlsError::NotInSubgroup("public key"))
    );

    // x = 1: 1 + 4 = 5 is not a square mod p.
    let mut off_curve = [0u8; 48];
    off_curve[0] = 0x80;
    off_curve[47] = 1;
    assert!(matches!(
        bls::PublicKey::from_bytes(&off_curve),
        Err(BlsError::InvalidPoint {
            what: "public key",
            reason: "not on the curve"
        })
    ));

    // Garbage: x ≥ p, or the compression flag missing.
    let garbage = [0xffu8; 48];
    assert!(matches!(
        bls::PublicKey::from_bytes(&garbage),
        Err(BlsError::InvalidPoint {
            what: "public key",
            ..
        })
    ));
    let good = bls_keys(1)[0].public_key().to_bytes();
    let mut no_flag = good;
    no_flag[0] &= 0x7f;
    assert!(matches!(
        bls::PublicKey::from_bytes(&no_flag),
        Err(BlsError::InvalidPoint { .. })
    ));

    for len in [0usize, 47, 49, 96] {
        assert_eq!(
            bls::PublicKey::from_bytes(&vec![0x80; len]),
            Err(BlsError::WrongLength {
                what: "public key",
                expected: 48,
                actual: len
            })
        );
    }
    // The uncompressed form is not accepted where a compressed key is expected.
    let uncompressed = bls_keys(1)[0].public_key().to_uncompressed();
    assert!(matches!(
        bls::PublicKey::from_bytes(&uncompressed),
        Err(BlsError::WrongLength { actual: 96, .. })
    ));

    // Signatures (compressed x = c1 ‖ c0): x = 0 is not on E2 (y² = 4(1 + u) has no root
    // in Fp2); x = 2 is, and (2, y) is not in G2.
    let mut sig = [0u8; 96];
    sig[0] = 0x80;
    assert!(matches!(
        bls::Signature::from_bytes(&sig),
        Err(BlsError::InvalidPoint {
            what: "signature",
            reason: "not on the curve"
        })
    ));
    sig[95] = 2;
    assert_eq!(
        bls::Signature::from_bytes(&sig),
        Err(BlsError::NotInSubgroup("signature"))
    );
    assert!(matches!(
        bls::Signature::from_bytes(&[0xffu8; 96]),
        Err(BlsError::InvalidPoint {
            what: "signature",
            ..
        })
    ));
    for len in [0usize, 95, 97, 192] {
        assert_eq!(
            bls::Signature::from_bytes(&vec![0x80; len]),
            Err(BlsError::WrongLength {
                what: "signature",
                expected: 96,
                actual: len
            })
        );
    }
    // The infinity signature decodes (as in AvalancheGo) but verifies nothing.
    let mut inf_sig = [0u8; 96];
    inf_sig[0] = 0xc0;
    let inf_sig = bls::Signature::from_bytes(&inf_sig).unwrap();
    let pk = bls_keys(1)[0].public_key();
    assert!(!bls::verify(&pk, b"", &inf_sig));
    assert!(!bls::verify_proof_of_possession(&pk, &inf_sig));
}

#[test]
fn bls_keys_that_cancel_do_not_aggregate_to_a_key() {
    // -pk: flip the sign flag of the compressed encoding.
    let pk = bls_keys(1)[0].public_key();
    let mut neg = pk.to_bytes();
    neg[0] ^= 0x20;
    let neg = bls::PublicKey::from_bytes(&neg).unwrap();
    assert_ne!(neg, pk);
    assert_eq!(
        bls::aggregate_public_keys(&[&pk, &neg]),
        Err(BlsError::PointAtInfinity("aggregate public key"))
    );
}

#[test]
fn bls_uncompressed_key_is_x_then_y_without_flags() {
    let pks: Vec<bls::PublicKey> = bls_keys(16).iter().map(|sk| sk.public_key()).collect();
    for pk in &pks {
        let u = pk.to_uncompressed();
        // Uncompressed: flags clear, x then y; x is the compressed bytes minus flags.
        assert_eq!(u[0] & 0xe0, 0);
        let mut x = pk.to_bytes();
        x[0] &= 0x1f;
        assert_eq!(&u[..48], &x[..]);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn bls_sign_then_verify(ikm in any::<[u8; 32]>(), msg in prop::collection::vec(any::<u8>(), 0..256)) {
        let sk = bls::SecretKey::from_seed(&ikm).unwrap();
        let pk = sk.public_key();
        let sig = sk.sign(&msg);
        prop_assert!(bls::verify(&pk, &msg, &sig));
        let sig2 = bls::Signature::from_bytes(&sig.to_bytes()).unwrap();
        prop_assert_eq!(&sig2, &sig);
        let mut other = msg.clone();
        other.push(0);
        prop_assert!(!bls::verify(&pk, &other, &sig));
    }
}
