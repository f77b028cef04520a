//! Quorum edges, heaviest-first requests, offline, lying and slow validators, and the
//! signature cache, over a [`KeyedNetwork`].

use crate::keyed::{KeyedNetwork, Mode};
use firn_aggregator::{
    AggregateError, AggregationRequest, Aggregator, AggregatorConfig, ErrorKind, Quorum,
};
use firn_core::ids::Id;
use firn_core::warp::UnsignedMessage;
use firn_core::warp::validators::CanonicalValidatorSet;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

fn message() -> UnsignedMessage {
    UnsignedMessage::new(5, Id([9; 32]), b"hello warp".to_vec())
}

fn request(q: u64, buffer: u64) -> AggregationRequest {
    let mut req = AggregationRequest::new(message());
    req.quorum = Quorum::new(q, buffer).unwrap();
    req
}

fn canonical(net: &KeyedNetwork) -> CanonicalValidatorSet {
    CanonicalValidatorSet::new(
        net.members
            .iter()
            .map(|m| (m.node_id, m.key.as_ref().map(|k| k.public_key()), m.weight)),
    )
    .unwrap()
}

fn setup(weights: &[u64]) -> (Arc<KeyedNetwork>, Aggregator) {
    let net = Arc::new(KeyedNetwork::with_weights(weights));
    let config = AggregatorConfig {
        request_timeout: Duration::from_millis(300),
        ..AggregatorConfig::default()
    };
    (net.clone(), Aggregator::new(net, config))
}

#[tokio::test]
async fn quorum_exactly_at_the_threshold_passes_and_just_below_is_refused() {
    let (net, agg) = setup(&[67, 33]);
    net.set_mode(net.node(1), Mode::Offline);
    let out = agg.aggregate(request(67, 0)).await.unwrap();
    assert_eq!(
        (out.signed_weight, out.total_weight, out.signers),
        (67, 100, 1)
    );
    canonical(&net).verify(&out.message, 5, 67, 100).unwrap();

    agg.clear_cache();
    let err = agg.aggregate(request(68, 0)).await.unwrap_err();
    assert_eq!(
        err,
        AggregateError::InsufficientWeight {
            obtained: 67,
            required: 68,
            total: 100,
            signers: 1,
            asked: 2
        }
    );
    assert_eq!(err.kind(), ErrorKind::Unavailable);
    assert!(err.to_string().contains("signature weight is insufficient"));
}

#[tokio::test]
async fn heaviest_validators_are_asked_first_and_collection_stops_at_the_target() {
    let (net, agg) = setup(&[10, 50, 10, 30]);
    let out = agg.aggregate(request(67, 0)).await.unwrap();
    // 50 + 30 = 80 ≥ 67: the two heaviest, nobody else.
    assert_eq!((out.signed_weight, out.signers, out.asked), (80, 2, 2));
    assert_eq!(net.requests.load(Ordering::SeqCst), 2);
    canonical(&net).verify(&out.message, 5, 67, 100).unwrap();

    // A buffer of 20 aims for 87: one more validator.
    let (_, agg) = setup(&[10, 50, 10, 30]);
    let out = agg.aggregate(request(67, 20)).await.unwrap();
    assert_eq!((out.signed_weight, out.signers), (90, 3));
}

#[tokio::test]
async fn offline_lying_and_too_slow_validators_are_skipped() {
    let (net, agg) = setup(&[30, 25, 20, 15, 10]);
    net.set_mode(net.node(0), Mode::Lying);
    net.set_mode(net.node(1), Mode::Offline);
    net.set_mode(net.node(2), Mode::Slow(Duration::from_secs(30)));
    let err = agg.aggregate(request(67, 0)).await.unwrap_err();
    // Only 15 + 10 answered with valid signatures.
    assert!(
        matches!(
            err,
            AggregateError::InsufficientWeight {
                obtained: 25,
                required: 67,
                ..
            }
        ),
        "{err}"
    );

    let out = agg.aggregate(request(25, 0)).await.unwrap();
    let set = canonical(&net);
    set.verify(&out.message, 5, 25, 100).unwrap();
    let signers = set.signers(&out.message.signature.signers).unwrap();
    let mut nodes: Vec<_> = signers.iter().flat_map(|v| v.node_ids.clone()).collect();
    nodes.sort();
    assert_eq!(nodes, vec![net.node(3), net.node(4)]);
}

#[tokio::test]
async fn a_slow_validator_within_the_timeout_still_counts() {
    let (net, agg) = setup(&[70, 30]);
    net.set_mode(net.node(0), Mode::Slow(Duration::from_millis(20)));
    let out = agg.aggregate(request(67, 0)).await.unwrap();
    assert_eq!(out.signed_weight, 70);
}

#[tokio::test]
async fn verified_signatures_are_cached_by_message_id() {
    let (net, agg) = setup(&[40, 40, 20]);
    let first = agg.aggregate(request(67, 0)).await.unwrap();
    for i in 0..3 {
        net.set_mode(net.node(i), Mode::Offline);
    }
    let asked_before = net.requests.load(Ordering::SeqCst);
    let second = agg.aggregate(request(67, 0)).await.unwrap();
    assert_eq!(second.message, first.message);
    assert_eq!(second.asked, 0);
    assert_eq!(net.requests.load(Ordering::SeqCst), asked_before);

    // Another message is not in the cache.
    let mut other = request(67, 0);
    other.message.payload = b"another".to_vec();
    assert!(agg.aggregate(other).await.is_err());
}

#[tokio::test]
async fn bad_requests_are_refused_before_anyone_is_asked() {
    let (net, agg) = setup(&[1, 1]);
    let mut req = request(67, 0);
    req.message.network_id = 1;
    let err = agg.aggregate(req).await.unwrap_err();
    assert_eq!(
        err,
        AggregateError::WrongNetwork {
            expected: 5,
            actual: 1
        }
    );
    assert_eq!(err.kind(), ErrorKind::BadRequest);
    assert_eq!(net.requests.load(Ordering::SeqCst), 0);
    assert!(matches!(
        Quorum::new(0, 0),
        Err(AggregateError::InvalidQuorum(_))
    ));
    assert!(matches!(
        Quorum::new(80, 21),
        Err(AggregateError::InvalidQuorum(_))
    ));
}

#[tokio::test]
async fn every_mix_of_cached_and_new_signatures_verifies() {
    let (net, agg) = setup(&[40, 30, 20, 10]);
    let set = canonical(&net);
    // 34 %: the heaviest alone; then 67 %: it from the cache plus the next one asked.
    let small = agg.aggregate(request(34, 0)).await.unwrap();
    set.verify(&small.message, 5, 34, 100).unwrap();
    assert_eq!((small.signers, small.asked), (1, 1));
    let large = agg.aggregate(request(67, 0)).await.unwrap();
    set.verify(&large.message, 5, 67, 100).unwrap();
    assert_eq!((large.signers, large.asked), (2, 1));
    // 34 % again: every cached signature counts (its sum is the 67 % one's).
    let again = agg.aggregate(request(34, 0)).await.unwrap();
    assert_eq!((again.signers, again.asked), (2, 0));
    assert_eq!(again.message, large.message);
    // 90 % and then 100 %: one more asked each time, summed with the cached ones.
    let most = agg.aggregate(request(90, 0)).await.unwrap();
    set.verify(&most.message, 5, 90, 100).unwrap();
    assert_eq!((most.signers, most.asked), (3, 1));
    let all = agg.aggregate(request(100, 0)).await.unwrap();
    set.verify(&all.message, 5, 100, 100).unwrap();
    assert_eq!((all.signers, all.asked), (4, 1));
}

#[tokio::test]
async fn validator_sets_are_read_once_per_height() {
    let (net, agg) = setup(&[50, 50]);
    agg.aggregate(request(67, 0)).await.unwrap();
    let mut other = request(67, 0);
    other.message.payload = b"another".to_vec();
    agg.aggregate(other.clone()).await.unwrap();
    assert_eq!(net.set_reads.load(Ordering::SeqCst), 1);
    net.height.store(2, Ordering::SeqCst);
    other.message.payload = b"a third".to_vec();
    let out = agg.aggregate(other).await.unwrap();
    assert_eq!(out.height, 2);
    assert_eq!(net.set_reads.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn a_network_that_cannot_ask_anyone_fails_at_once_saying_why() {
    let (net, agg) = setup(&[50, 30, 20]);
    for i in 0..3 {
        net.set_mode(net.node(i), Mode::NoSigningMethod);
    }
    let err = agg.aggregate(request(67, 0)).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "this node does not answer signature requests"
    );
    assert_eq!(err.kind(), ErrorKind::Internal);
}
