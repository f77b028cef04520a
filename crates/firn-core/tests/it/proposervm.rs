//! proposervm wrappers against AvalancheGo's `vms/proposervm/block/parse_test.go` vectors, and
//! the proposer derivation against the local network's staking certificates and genesis.

use crate::vectors;
use firn_core::codec::CodecError;
use firn_core::ids::{Id, NodeId};
use firn_core::proposervm::{Block, Epoch, OptionBlock, PostForkBlock};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::BTreeSet;

fn entry(name: &str) -> Value {
    let index = vectors::json("proposervm/INDEX.json");
    let found = index.as_array().unwrap().iter().find(|e| e["name"] == name);
    found.unwrap().clone()
}

fn block_vector(name: &str) -> Vec<u8> {
    vectors::unhex(&vectors::text(&format!(
        "proposervm/{}",
        entry(name)["file"].as_str().unwrap()
    )))
}

/// The fixed inputs of the Go test that built these blocks (`TestParse`): parent `ids.ID{1}`,
/// `time.Unix(123, 0)`, P-Chain height 2, inner block `[]byte{3}`.
fn assert_go_test_fields(b: &PostForkBlock) {
    let mut parent = [0u8; 32];
    parent[0] = 1;
    assert_eq!(b.parent_id, Id(parent));
    assert_eq!(b.timestamp, 123);
    assert_eq!(b.p_chain_height, 2);
    assert_eq!(b.inner.0, [3]);
}

/// The ID hashes the bytes before the signature's length prefix; found here from the end of
/// the bytes, independently of the encoder.
fn expected_id(bytes: &[u8], signature: &[u8]) -> Id {
    let sig_start = bytes.len() - signature.len();
    assert_eq!(&bytes[sig_start..], signature);
    let len_prefix = u32::try_from(signature.len()).unwrap().to_be_bytes();
    assert_eq!(bytes[sig_start - 4..sig_start], len_prefix);
    Id(Sha256::digest(&bytes[..sig_start - 4]).into())
}

#[test]
fn signed_block_vector_round_trips_with_its_id_and_proposer() {
    let bytes = block_vector("duplicate extensions in certificate");
    let block = Block::parse(&bytes).unwrap();
    assert_eq!(block.bytes(), bytes);
    let Block::PostFork(b) = &block else {
        panic!("a type 0 block")
    };
    assert_go_test_fields(b);
    assert!(b.is_signed() && b.epoch.is_none());
    assert_eq!(b.certificate.0.len(), 1213);
    assert_eq!(block.id(), expected_id(&bytes, &b.signature.0));
    assert_eq!(block.inner(), [3]);
    let hash: [u8; 20] = ripemd::Ripemd160::digest(Sha256::digest(&b.certificate.0)).into();
    assert_eq!(block.proposer(), Some(NodeId(hash)));
}

#[test]
fn granite_block_vector_round_trips_with_its_zero_epoch() {
    // AvalancheGo parses this block and refuses it at verification (errZeroEpoch).
    let bytes = block_vector("granite block with zero epoch");
    let block = Block::parse(&bytes).unwrap();
    assert_eq!(block.bytes(), bytes);
    let Block::PostFork(b) = &block else {
        panic!("a type 2 block")
    };
    assert_go_test_fields(b);
    assert_eq!(b.epoch, Some(Epoch::default()));
    assert_eq!(block.id(), expected_id(&bytes, &b.signature.0));
    assert_eq!(b.signature.0.len(), 72, "a DER ECDSA signature");
}

#[test]
fn gibberish_vector_is_refused() {
    let e = entry("gibberish");
    assert_eq!(e["go_parse_error"], "codec.ErrUnknownVersion");
    let bytes = block_vector("gibberish");
    assert_eq!(Block::parse(&bytes), Err(CodecError::UnknownVersion(1)));
}

#[test]
fn proposers_of_the_local_stakers_are_the_local_genesis_node_ids() {
    let e = entry("local staking certificates");
    let proposers: BTreeSet<String> = e["certificates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let cert = vectors::unhex(&vectors::text(&format!(
                "proposervm/{}",
                c["file"].as_str().unwrap()
            )));
            let block = PostForkBlock {
                certificate: cert.into(),
                ..PostForkBlock::default()
            };
            block.proposer().to_string()
        })
        .collect();
    let genesis: BTreeSet<String> = e["genesis_node_ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["node_id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(proposers.len(), 5);
    assert_eq!(proposers, genesis);
}

#[test]
fn unsigned_and_option_blocks_round_trip_with_their_ids() {
    let unsigned = Block::PostFork(PostForkBlock {
        parent_id: Id([1; 32]),
        timestamp: 1_700_000_000,
        p_chain_height: 42,
        inner: vec![9, 9].into(),
        ..PostForkBlock::default()
    });
    let bytes = unsigned.bytes();
    assert_eq!(Block::parse(&bytes).unwrap(), unsigned);
    // An empty signature: the ID hashes all but the final zero length.
    assert_eq!(unsigned.id(), expected_id(&bytes, &[]));
    assert_eq!(unsigned.proposer(), Some(NodeId::EMPTY));

    let option = Block::Option(OptionBlock {
        parent_id: unsigned.id(),
        inner: vec![7].into(),
    });
    let bytes = option.bytes();
    assert_eq!(
        &bytes[..6],
        [0, 0, 0, 0, 0, 1],
        "codec version, then type 1"
    );
    assert_eq!(Block::parse(&bytes).unwrap(), option);
    assert_eq!(option.id(), Id(Sha256::digest(&bytes).into()));
    assert_eq!((option.proposer(), option.timestamp()), (None, None));
}

#[test]
fn oversized_certificates_and_unknown_types_are_refused() {
    let block = Block::PostFork(PostForkBlock {
        certificate: vec![0; 2049].into(),
        ..PostForkBlock::default()
    });
    assert!(matches!(
        Block::parse(&block.bytes()),
        Err(CodecError::Invalid(_))
    ));
    let mut bytes = block_vector("granite block with zero epoch");
    bytes[5] = 3;
    assert!(matches!(
        Block::parse(&bytes),
        Err(CodecError::UnknownTypeId { type_id: 3, .. })
    ));
}
