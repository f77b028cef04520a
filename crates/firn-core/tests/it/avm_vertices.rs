//! The real vertex vectors (`vectors/avm/vertices/`): each decodes and re-encodes byte for
//! byte, has the ID, height, parents and txs its index entry gives, and each tx decodes.

use crate::vectors;
use firn_core::avm::vertex::{MAX_VERTEX_SIZE, VertexKind};
use firn_core::avm::{Tx, Vertex};
use firn_core::codec;
use firn_core::ids::Id;
use serde_json::Value;

fn index() -> Vec<Value> {
    vectors::json("avm/vertices/INDEX.json")
        .as_array()
        .unwrap()
        .clone()
}

fn ids(v: &Value) -> Vec<Id> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().parse().unwrap())
        .collect()
}

#[test]
fn every_vertex_vector_round_trips_with_its_id_and_txs() {
    let entries = index();
    assert!(!entries.is_empty());
    for e in &entries {
        let name = e["name"].as_str().unwrap();
        let bytes = vectors::unhex(&vectors::text(&format!(
            "avm/{}",
            e["file"].as_str().unwrap()
        )));
        assert_eq!(bytes.len() as u64, e["len"].as_u64().unwrap(), "{name}");
        assert!(bytes.len() <= MAX_VERTEX_SIZE);
        let v = Vertex::from_bytes(&bytes).unwrap();
        assert_eq!(v.bytes(), bytes, "{name}: re-encoding is byte for byte");
        assert_eq!(v.id(), Id::hash_of(&bytes));
        assert_eq!(
            v.id().to_string(),
            e["vertex_id"].as_str().unwrap(),
            "{name}"
        );
        assert_eq!(
            v.chain_id().to_string(),
            e["chain_id"].as_str().unwrap(),
            "{name}"
        );
        assert_eq!(v.height(), e["height"].as_u64().unwrap(), "{name}");
        assert_eq!(v.parent_ids(), ids(&e["parents"]).as_slice(), "{name}");
        assert!(matches!(v.kind(), VertexKind::Standard { epoch: 0, .. }));

        let want = ids(&e["tx_ids"]);
        assert_eq!(v.tx_bytes().len(), want.len(), "{name}: tx count");
        let txs = v.txs().unwrap();
        for ((tx, raw), (want_id, want_type)) in txs
            .iter()
            .zip(v.tx_bytes())
            .zip(want.iter().zip(e["tx_types"].as_array().unwrap()))
        {
            assert_eq!(
                tx.bytes(),
                raw.0,
                "{name}: each tx re-encodes byte for byte"
            );
            assert_eq!(tx.id(), *want_id, "{name}");
            assert_eq!(tx.unsigned().type_name(), want_type.as_str().unwrap());
            // The tx alone decodes the same as inside the vertex.
            let alone: Tx = codec::from_bytes(&raw.0).unwrap();
            assert_eq!(alone.id(), *want_id);
            assert_eq!(alone.unsigned().base().blockchain_id, v.chain_id());
        }
    }
}

#[test]
fn a_cut_or_padded_vertex_vector_is_refused() {
    let e = &index()[0];
    let bytes = vectors::unhex(&vectors::text(&format!(
        "avm/{}",
        e["file"].as_str().unwrap()
    )));
    assert!(Vertex::from_bytes(&bytes[..bytes.len() - 1]).is_err());
    let mut padded = bytes.clone();
    padded.extend_from_slice(&[0; 4]);
    assert!(
        Vertex::from_bytes(&padded).is_err(),
        "the index API's checksum must be stripped"
    );
}
