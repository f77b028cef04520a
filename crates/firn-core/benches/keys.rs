//! Key benchmarks: secp256k1 recovery, and BLS single, aggregate and batch verification.
//! Filter with `cargo bench -p firn-core --bench core -- keys`.

use criterion::Criterion;
use firn_core::keys::{bls, secp256k1};
use std::hint::black_box;

/// Signers / items in the aggregate and batch benchmarks.
const N: usize = 1_000;

pub fn benches(c: &mut Criterion) {
    secp256k1_benches(c);
    bls_benches(c);
}

fn secp256k1_benches(c: &mut Criterion) {
    let key = secp256k1::PrivateKey::from_seed(b"firn bench", 0);
    let hash = [0x5au8; 32];
    let sig = key.sign_hash(&hash);
    let mut g = c.benchmark_group("keys/secp256k1");
    g.bench_function("recover", |b| {
        b.iter(|| secp256k1::recover(black_box(&hash), black_box(&sig)))
    });
    g.bench_function("sign_hash", |b| b.iter(|| key.sign_hash(black_box(&hash))));
    g.finish();
}

fn bls_keys(n: usize) -> Vec<bls::SecretKey> {
    (0..n)
        .map(|i| {
            let mut ikm = [0u8; 32];
            ikm[..8].copy_from_slice(&(i as u64).to_be_bytes());
            bls::SecretKey::from_seed(&ikm).expect("32-byte ikm")
        })
        .collect()
}

fn bls_benches(c: &mut Criterion) {
    let sks = bls_keys(N);
    let pks: Vec<bls::PublicKey> = sks.iter().map(|sk| sk.public_key()).collect();

    let mut g = c.benchmark_group("keys/bls");

    let msg = b"a warp message: one payload, many signers".as_slice();
    let sig = sks[0].sign(msg);
    g.bench_function("sign", |b| b.iter(|| sks[0].sign(black_box(msg))));
    g.bench_function("verify", |b| {
        b.iter(|| bls::verify(black_box(&pks[0]), black_box(msg), black_box(&sig)))
    });
    let pk_bytes = pks[0].to_bytes();
    g.bench_function("public_key_from_bytes", |b| {
        b.iter(|| bls::PublicKey::from_bytes(black_box(&pk_bytes)))
    });

    // Many signers, one message: aggregate the keys, then one pairing check.
    let sigs: Vec<bls::Signature> = sks.iter().map(|sk| sk.sign(msg)).collect();
    let agg = bls::aggregate_signatures(&sigs.iter().collect::<Vec<_>>()).expect("non-empty");
    let pk_refs: Vec<&bls::PublicKey> = pks.iter().collect();
    assert!(bls::fast_aggregate_verify(&pk_refs, msg, &agg));

    // Distinct messages: one randomized multi-pairing.
    let msgs: Vec<Vec<u8>> = (0..N)
        .map(|i| format!("message {i}").into_bytes())
        .collect();
    let distinct_sigs: Vec<bls::Signature> =
        sks.iter().zip(&msgs).map(|(sk, m)| sk.sign(m)).collect();
    let items: Vec<(&bls::PublicKey, &[u8], &bls::Signature)> = (0..N)
        .map(|i| (&pks[i], msgs[i].as_slice(), &distinct_sigs[i]))
        .collect();
    assert!(bls::batch_verify(&items));

    g.sample_size(10);
    g.bench_function("fast_aggregate_verify_1000", |b| {
        b.iter(|| bls::fast_aggregate_verify(black_box(&pk_refs), black_box(msg), black_box(&agg)))
    });
    g.bench_function("aggregate_public_keys_1000", |b| {
        b.iter(|| bls::aggregate_public_keys(black_box(&pk_refs)))
    });
    g.bench_function("batch_verify_1000", |b| {
        b.iter(|| bls::batch_verify(black_box(&items)))
    });
    g.finish();
}
