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
