//! The `vectors/warp` signature vector reproduces: its five signers, aggregated by the
//! aggregator, give exactly the vector's signed message.

use crate::keyed::{KeyedNetwork, Member, Mode};
use firn_aggregator::{AggregateError, AggregationRequest, Aggregator, AggregatorConfig, Quorum};
use firn_core::ids::{Id, NodeId};
use firn_core::keys::bls;
use firn_core::warp::UnsignedMessage;
use serde_json::Value;
use std::sync::Arc;

fn vector() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../firn-core/tests/vectors/warp/generated-bitset-signature.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn bytes(v: &Value) -> Vec<u8> {
    hex::decode(v.as_str().unwrap()).unwrap()
}

/// The vector's validators, with the non-signers offline.
fn network(v: &Value) -> KeyedNetwork {
    let members = v["validators_canonical_order"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| Member {
            node_id: m["nodeID"].as_str().unwrap().parse::<NodeId>().unwrap(),
            key: Some(
                bls::SecretKey::from_bytes(&bytes(&m["sk_hex"]).try_into().unwrap()).unwrap(),
            ),
            weight: m["weight"].as_u64().unwrap(),
        })
        .collect::<Vec<_>>();
    let signers: Vec<u64> = v["signer_indices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i.as_u64().unwrap())
        .collect();
    let net = KeyedNetwork::new(5, Id([3; 32]), members);
    for (i, m) in v["validators_canonical_order"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
    {
        if !signers.contains(&m["index"].as_u64().unwrap()) {
            net.set_mode(net.node(i), Mode::Offline);
        }
    }
    net
}

#[tokio::test]
async fn the_warp_vector_reproduces_byte_for_byte() {
    let v = vector();
    let net = Arc::new(network(&v));
    let aggregator = Aggregator::new(net, AggregatorConfig::default());
    let unsigned = UnsignedMessage::from_bytes(&bytes(&v["unsigned_message_hex"])).unwrap();
    assert_eq!(unsigned.id().0.to_vec(), bytes(&v["message_id_hex"]));

    // 240 of 360 is 66.67 %: enough for 66 %, not for the default 67 %.
    let mut req = AggregationRequest::new(unsigned.clone());
    req.quorum = Quorum::new(66, 0).unwrap();
    let out = aggregator.aggregate(req).await.unwrap();
    assert_eq!(out.message.bytes(), bytes(&v["signed_message_hex"]));
    assert_eq!(
        out.message.signature.signers,
        bytes(&v["signers_bitset_hex"])
    );
    assert_eq!((out.signed_weight, out.total_weight), (240, 360));

    aggregator.clear_cache();
    let err = aggregator
        .aggregate(AggregationRequest::new(unsigned))
        .await
        .unwrap_err();
    assert_eq!(
        err,
        AggregateError::InsufficientWeight {
            obtained: 240,
            required: 242,
            total: 360,
            signers: 5,
            asked: 8,
        }
    );
    assert!(
        err.to_string()
            .starts_with("signature weight is insufficient: 240 obtained, 242 required")
    );
}
