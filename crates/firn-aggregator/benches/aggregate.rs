//! End-to-end aggregation over a 1,000-validator devnet set at 67 % quorum, against the
//! BLS work alone. Equal weights, so 670 signatures are needed.
//!
//! - `aggregator_only_1000_validators_67pct`: [`Aggregator::aggregate`] of a message none of
//!   its signatures are cached for, the devnet nodes answering from their signature memory
//!   (signatures precomputed, as AvalancheGo's handler caches them), the validator set at the
//!   height already read (as for every message after the first at a height): requests
//!   heaviest first as tokio tasks on 2 worker threads, parse each answer, one
//!   aggregate-then-verify pairing check, and the bitset;
//!   `aggregator_only_cold_1000_validators_67pct`: the same with the set read and the
//!   canonical order built too.
//! - `including_validator_signing_1000_validators_67pct`: the same with the nodes' memory
//!   cleared too, so each of the 670 nodes checks the message and signs it (one BLS
//!   signature each) inside the measurement, on the same 2 cores. On a real network that
//!   work is spread over the validators' own machines.
//! - `bls_only_670_signatures`: what no aggregator can skip for the same result, on one
//!   thread: decompress 670 signatures, sum them (one subgroup check) and their keys, one
//!   pairing check; `bls_only_670_signatures_2_threads`: the decompression split over 2
//!   threads, the parallelism the aggregator has.
//! - `validator_signing_only_670_signatures_2_threads`: the 670 BLS signatures alone.
//! - `cached`: the same request again, answered from the aggregator's cache.
//! - `aggregate_parts/*`: the steps above one at a time on one thread, to see where the time
//!   goes.

use criterion::{Criterion, criterion_group, criterion_main};
use firn_aggregator::ValidatorNetwork;
use firn_aggregator::{AggregationRequest, Aggregator, AggregatorConfig, AppError};
use firn_core::ids::Id;
use firn_core::keys::bls;
use firn_core::warp::UnsignedMessage;
use firn_core::warp::acp118::SignatureRequest;
use firn_core::warp::payload::Payload;
use firn_core::warp::validators::CanonicalValidatorSet;
use firn_devnet::genesis::DevnetConfig;
use firn_devnet::signers::WarpVerifier;
use firn_node::{NodeConfig, SignerKeys};
use std::sync::Arc;
use std::time::Duration;

const VALIDATORS: u32 = 1_000;

/// The C-Chain's verifier stand-in: signs accepted-block hashes.
#[derive(Debug)]
struct BlockHashes;

impl WarpVerifier for BlockHashes {
    fn verify(&self, message: &UnsignedMessage, _: &[u8]) -> Result<(), AppError> {
        match Payload::from_bytes(&message.payload) {
            Ok(Payload::Hash(_)) => Ok(()),
            _ => Err(AppError {
                code: 1,
                message: "not a block hash".into(),
            }),
        }
    }
}

fn aggregation(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    let config = DevnetConfig {
        initial_validators: VALIDATORS,
        ..DevnetConfig::default()
    };
    let node = rt
        .block_on(firn_node::spawn(
            NodeConfig::test()
                .with_devnet(config)
                .with_signers(SignerKeys::Genesis),
        ))
        .unwrap_or_else(|e| panic!("{e}"));
    let chain = node.pchain().clone();
    let identity = chain.network();
    let signers = node.signers().cloned().unwrap_or_else(|| panic!("signers"));
    signers.register_chain(identity.c_chain_id, Arc::new(BlockHashes));
    let aggregator = Aggregator::new(
        signers.clone(),
        AggregatorConfig {
            request_timeout: Duration::from_secs(5),
            ..AggregatorConfig::default()
        },
    );
    let message = UnsignedMessage::new(
        identity.network_id,
        identity.c_chain_id,
        Payload::Hash(Id([0x42; 32])).bytes(),
    );
    let request = AggregationRequest::new(message.clone());

    // Warm the nodes' signature memory on this thread (so that the runtime's threads only
    // ever do what is measured: instruction counts per thread stay readable under
    // callgrind); check the shape once.
    let warm = SignatureRequest {
        message: message.bytes(),
        justification: Vec::new(),
    };
    let devnet_config = chain.config();
    for i in 0..VALIDATORS {
        signers
            .answer(devnet_config.validator_node_id(i), &warm)
            .unwrap_or_else(|e| panic!("{e}"));
    }
    let first = rt
        .block_on(aggregator.aggregate(request.clone()))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(first.signers, 670, "equal weights: 670 of 1,000 meet 67 %");

    let mut group = c.benchmark_group("aggregate");
    group.sample_size(20);
    group.bench_function("aggregator_only_1000_validators_67pct", |b| {
        b.iter(|| {
            aggregator.clear_signature_cache();
            rt.block_on(aggregator.aggregate(request.clone()))
                .unwrap_or_else(|e| panic!("{e}"))
        })
    });
    group.bench_function("aggregator_only_cold_1000_validators_67pct", |b| {
        b.iter(|| {
            aggregator.clear_cache();
            rt.block_on(aggregator.aggregate(request.clone()))
                .unwrap_or_else(|e| panic!("{e}"))
        })
    });
    group.bench_function("including_validator_signing_1000_validators_67pct", |b| {
        b.iter(|| {
            aggregator.clear_cache();
            signers.forget_signed();
            rt.block_on(aggregator.aggregate(request.clone()))
                .unwrap_or_else(|e| panic!("{e}"))
        })
    });

    // The signatures the aggregator gathered, as bytes from the wire.
    let bytes = message.bytes();
    let keys: Vec<bls::SecretKey> = (0..670)
        .map(|i| {
            chain
                .config()
                .validator_bls_key(i)
                .unwrap_or_else(|e| panic!("{e}"))
        })
        .collect();
    let publics: Vec<bls::PublicKey> = keys.iter().map(bls::SecretKey::public_key).collect();
    let wire: Vec<[u8; 96]> = keys.iter().map(|k| k.sign(&bytes).to_bytes()).collect();
    let pks: Vec<&bls::PublicKey> = publics.iter().collect();
    group.bench_function("bls_only_670_signatures", |b| {
        b.iter(|| {
            let sigs: Vec<bls::UncheckedSignature> = wire.iter().map(decompress).collect();
            assert!(sum_and_verify(&sigs, &pks, &bytes));
        })
    });
    group.bench_function("bls_only_670_signatures_2_threads", |b| {
        b.iter(|| {
            let (left, right) = wire.split_at(wire.len() / 2);
            let sigs: Vec<bls::UncheckedSignature> = std::thread::scope(|s| {
                let other = s.spawn(|| right.iter().map(decompress).collect::<Vec<_>>());
                let mut sigs: Vec<_> = left.iter().map(decompress).collect();
                sigs.extend(other.join().unwrap_or_else(|_| panic!("decompress thread")));
                sigs
            });
            assert!(sum_and_verify(&sigs, &pks, &bytes));
        })
    });
    group.bench_function("validator_signing_only_670_signatures_2_threads", |b| {
        b.iter(|| {
            let (left, right) = keys.split_at(keys.len() / 2);
            let sign = |keys: &[bls::SecretKey]| -> Vec<[u8; 96]> {
                keys.iter().map(|k| k.sign(&bytes).to_bytes()).collect()
            };
            std::thread::scope(|s| {
                let other = s.spawn(|| sign(right));
                let mut sigs = sign(left);
                sigs.extend(other.join().unwrap_or_else(|_| panic!("signing thread")));
                sigs
            })
        })
    });

    group.bench_function("cached", |b| {
        b.iter(|| {
            rt.block_on(aggregator.aggregate(request.clone()))
                .unwrap_or_else(|e| panic!("{e}"))
        })
    });
    group.finish();

    // Where the time goes: each serial step of an aggregation on its own, one thread.
    let mut parts = c.benchmark_group("aggregate_parts");
    parts.sample_size(20);
    parts.bench_function("decompress_1_signature", |b| {
        b.iter(|| decompress(&wire[0]))
    });
    parts.bench_function("decompress_and_subgroup_check_1_signature", |b| {
        b.iter(|| bls::Signature::from_bytes(&wire[0]).unwrap_or_else(|e| panic!("{e}")))
    });
    let sigs: Vec<bls::UncheckedSignature> = wire.iter().map(decompress).collect();
    let sig_refs: Vec<&bls::UncheckedSignature> = sigs.iter().collect();
    parts.bench_function("sum_670_signatures_with_subgroup_check", |b| {
        b.iter(|| bls::aggregate_unchecked(&sig_refs).unwrap_or_else(|e| panic!("{e}")))
    });
    parts.bench_function("sum_670_public_keys", |b| {
        b.iter(|| bls::aggregate_public_keys(&pks).unwrap_or_else(|e| panic!("{e}")))
    });
    let sum = bls::aggregate_unchecked(&sig_refs).unwrap_or_else(|e| panic!("{e}"));
    let key_sum = bls::aggregate_public_keys(&pks).unwrap_or_else(|e| panic!("{e}"));
    parts.bench_function("verify_1_pairing_check", |b| {
        b.iter(|| assert!(bls::verify(&key_sum, &bytes, &sum)))
    });
    let set = rt
        .block_on(signers.validators_at(Id::ZERO, chain.height()))
        .unwrap_or_else(|e| panic!("{e}"));
    parts.bench_function("devnet_validators_at_1000", |b| {
        b.iter(|| rt.block_on(signers.validators_at(Id::ZERO, chain.height())))
    });
    parts.bench_function("canonical_set_1000", |b| {
        b.iter(|| {
            CanonicalValidatorSet::new(
                set.iter()
                    .map(|v| (v.node_id, v.public_key.clone(), v.weight)),
            )
            .unwrap_or_else(|e| panic!("{e}"))
        })
    });
    parts.finish();
    drop(node);
}

fn decompress(wire: &[u8; 96]) -> bls::UncheckedSignature {
    bls::UncheckedSignature::from_bytes(wire).unwrap_or_else(|e| panic!("{e}"))
}

fn sum_and_verify(sigs: &[bls::UncheckedSignature], pks: &[&bls::PublicKey], msg: &[u8]) -> bool {
    let refs: Vec<&bls::UncheckedSignature> = sigs.iter().collect();
    let sum = bls::aggregate_unchecked(&refs).unwrap_or_else(|e| panic!("{e}"));
    bls::fast_aggregate_verify(pks, msg, &sum)
}

criterion_group!(benches, aggregation);
criterion_main!(benches);
