//! Vectors and properties of `firn_core::pchain`: every tx and block vector decodes,
//! re-encodes byte-exactly, has the expected ID and gives the expected JSON.

use crate::props::round_trip;
use crate::vectors;
use arbitrary::{Arbitrary, Unstructured};
use firn_core::codec::{self, CodecError};
use firn_core::encoding::Encoding;
use firn_core::ids::Id;
use firn_core::pchain::block::BlockKind;
use firn_core::pchain::json::{JsonContext, block_to_json, tx_to_json, unsigned_tx_to_json};
use firn_core::pchain::tx::{AdvanceTimeTx, BaseTx};
use firn_core::pchain::{Block, Tx, UnsignedTx};
use proptest::prelude::*;
use serde_json::Value;

fn tx_index() -> Vec<Value> {
    vectors::json("pchain/txs/INDEX.json")
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn every_unsigned_tx_vector_round_trips_byte_exactly() {
    let index = tx_index();
    assert_eq!(index.len(), 22, "the vector index lists 22 txs");
    for entry in index {
        let name = entry["name"].as_str().unwrap();
        let bytes = vectors::unhex(&vectors::text(&format!("pchain/txs/{name}.unsigned.hex")));
        assert_eq!(
            bytes.len() as u64,
            entry["len"].as_u64().unwrap(),
            "{name}: vector length"
        );
        let tx: UnsignedTx = codec::from_bytes(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            u64::from(tx.type_id()),
            entry["type_id"].as_u64().unwrap(),
            "{name}: type"
        );
        assert_eq!(tx.bytes(), bytes, "{name}: re-encoding differs");
    }
}

#[test]
fn every_tx_json_vector_matches_our_json() {
    let mut checked = 0;
    for entry in tx_index() {
        let name = entry["name"].as_str().unwrap();
        if entry.get("json").is_none() {
            continue;
        }
        let bytes = vectors::unhex(&vectors::text(&format!("pchain/txs/{name}.unsigned.hex")));
        let tx: UnsignedTx = codec::from_bytes(&bytes).unwrap();
        let network_id = tx.base().unwrap().network_id;
        let ours = unsigned_tx_to_json(&JsonContext::pchain(network_id), &tx);
        let expected = vectors::json(&format!("pchain/txs/{name}.json"));
        assert_eq!(ours, expected, "{name}: JSON differs\nours: {ours:#}");
        checked += 1;
    }
    assert_eq!(checked, 12, "every vector with JSON was compared");
}

#[test]
fn banff_block_vectors_round_trip_with_their_ids() {
    let file = vectors::json("pchain/blocks/banff-serialization.json");
    for v in file["vectors"].as_array().unwrap() {
        let bytes = vectors::unhex(v["hex"].as_str().unwrap());
        let block: Block = codec::from_bytes(&bytes).unwrap();
        assert_eq!(u64::from(block.type_id()), v["type_id"].as_u64().unwrap());
        assert_eq!(block.bytes(), bytes);
        assert_eq!(block.id().to_string(), v["block_id_cb58"].as_str().unwrap());
    }
}

/// AvalancheGo's JSON test builds this block by hand: the parent ID is the bytes `parentID`, the
/// block ID is set to the bytes `blockID` rather than computed, and the txs are not initialised,
/// so their IDs are the zero ID and their credentials `null`.
#[test]
fn banff_proposal_block_json_vectors_match() {
    for (file, memos) in [
        ("banff-json-0.json", vec![]),
        ("banff-json-1.json", vec!["KilroyWasHere", "KilroyWasHere2"]),
    ] {
        let decision = memos
            .iter()
            .map(|m| {
                let base = BaseTx {
                    network_id: 1,
                    memo: m.as_bytes().into(),
                    ..Default::default()
                };
                Tx::new(UnsignedTx::Base(base), vec![])
            })
            .collect();
        let block = Block::new(
            Id::from_padded_str("parentID"),
            1337,
            BlockKind::BanffProposal {
                time: 123456,
                txs: decision,
                tx: Tx::new(
                    UnsignedTx::AdvanceTime(AdvanceTimeTx { time: 123457 }),
                    vec![],
                ),
            },
        );
        let mut ours = block_to_json(&JsonContext::pchain(1), &block);
        let mut expected = vectors::json(&format!("pchain/blocks/{file}"));
        assert_eq!(ours["id"], block.id().to_string());
        assert_eq!(expected["id"], Id::from_padded_str("blockID").to_string());
        ours["id"] = expected["id"].clone();
        zero_tx_ids(&mut ours);
        null_to_empty(&mut expected);
        assert_eq!(ours, expected, "{file}");
        // Decoding the block's bytes gives back the same block.
        let decoded: Block = codec::from_bytes(&block.bytes()).unwrap();
        assert_eq!(decoded, block);
    }
}

fn zero_tx_ids(v: &mut Value) {
    match v {
        Value::Object(m) => {
            if m.contains_key("unsignedTx") {
                m.insert("id".into(), Value::String(Id::ZERO.to_string()));
            }
            m.values_mut().for_each(zero_tx_ids);
        }
        Value::Array(a) => a.iter_mut().for_each(zero_tx_ids),
        _ => {}
    }
}

fn null_to_empty(v: &mut Value) {
    match v {
        Value::Null => *v = Value::Array(vec![]),
        Value::Object(m) => m.values_mut().for_each(null_to_empty),
        Value::Array(a) => a.iter_mut().for_each(null_to_empty),
        _ => {}
    }
}

#[test]
fn mainnet_block_1000001_decodes_with_its_ids_and_hex_form() {
    let meta = vectors::json("pchain/blocks/mainnet-height-1000001.meta.json");
    let bytes = vectors::unhex(&vectors::text(
        "pchain/blocks/mainnet-height-1000001.block.hex",
    ));
    let block: Block = codec::from_bytes(&bytes).unwrap();
    assert_eq!(
        block.id().to_string(),
        meta["blockID_expected_in_docs"].as_str().unwrap()
    );
    assert_eq!(
        block.parent_id().to_string(),
        meta["parentID"].as_str().unwrap()
    );
    assert_eq!(block.height(), 1_000_001);
    assert_eq!(block.type_name(), "ApricotStandardBlock");
    assert_eq!(block.bytes(), bytes);

    let txs: Vec<&Tx> = block.txs().collect();
    assert_eq!(txs.len(), 1);
    assert_eq!(
        txs[0].id().to_string(),
        meta["txID_computed_sha256_of_signed_tx"].as_str().unwrap()
    );
    assert_eq!(
        txs[0].bytes(),
        vectors::unhex(meta["signed_tx_hex"].as_str().unwrap())
    );
    assert_eq!(txs[0].unsigned().type_name(), "ExportTx");

    // `platform.getBlock` with the default hex encoding: 0x + hex + checksum.
    let response = vectors::text("pchain/blocks/mainnet-height-1000001.getBlock-hex-response.txt");
    assert_eq!(Encoding::Hex.encode_bytes(&bytes).unwrap(), response.trim());
    assert_eq!(Encoding::Hex.decode_bytes(response.trim()).unwrap(), bytes);

    let json = block_to_json(&JsonContext::pchain(1), &block);
    let export = &json["txs"][0]["unsignedTx"];
    assert_eq!(json["height"], 1_000_001);
    assert_eq!(
        export["exportedOutputs"][0]["output"]["addresses"][0],
        "P-avax1jkjyvlwclyu42n4yuegpczpfgwrf8r9lyj0d3c"
    );
    assert_eq!(
        export["exportedOutputs"][0]["assetID"],
        "FvwEAhmxKfeiG8SnEvq42hc6whRyY3EFYAvebMqDNDGCgxN5Z"
    );
    assert_eq!(
        json["txs"][0]["credentials"][0]["signatures"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    assert_eq!(json["txs"][0], tx_to_json(&JsonContext::pchain(1), txs[0]));
}

#[test]
fn json_keys_follow_go_field_order() {
    let bytes = vectors::unhex(&vectors::text(
        "pchain/txs/add_permissionless_validator.primary.complex.unsigned.hex",
    ));
    let tx: UnsignedTx = codec::from_bytes(&bytes).unwrap();
    let json = unsigned_tx_to_json(&JsonContext::pchain(1), &tx);
    let keys: Vec<&str> = json
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "networkID",
            "blockchainID",
            "outputs",
            "inputs",
            "memo",
            "validator",
            "subnetID",
            "signer",
            "stake",
            "validationRewardsOwner",
            "delegationRewardsOwner",
            "shares"
        ]
    );
    let out_keys: Vec<&str> = json["outputs"][0]["output"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        out_keys,
        ["addresses", "amount", "locktime", "threshold"],
        "Go map keys are sorted"
    );
}

#[test]
fn truncated_and_extended_vectors_are_rejected() {
    let bytes = vectors::unhex(&vectors::text(
        "pchain/blocks/mainnet-height-1000001.block.hex",
    ));
    for cut in 0..bytes.len() {
        assert!(
            codec::from_bytes::<Block>(&bytes[..cut]).is_err(),
            "prefix of {cut} bytes decoded"
        );
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert_eq!(
        codec::from_bytes::<Block>(&longer),
        Err(CodecError::TrailingBytes(1))
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn encode_then_decode_is_the_identity_for_unsigned_txs(raw in proptest::collection::vec(any::<u8>(), 0..4096)) {
        round_trip::<UnsignedTx>(&raw)?;
    }

    #[test]
    fn encode_then_decode_is_the_identity_for_signed_txs(raw in proptest::collection::vec(any::<u8>(), 0..4096)) {
        round_trip::<Tx>(&raw)?;
    }

    #[test]
    fn encode_then_decode_is_the_identity_for_blocks(raw in proptest::collection::vec(any::<u8>(), 0..8192)) {
        round_trip::<Block>(&raw)?;
    }

    #[test]
    fn decoded_ids_equal_the_hash_of_the_bytes(raw in proptest::collection::vec(any::<u8>(), 0..4096)) {
        let Ok(block) = Block::arbitrary(&mut Unstructured::new(&raw)) else { return Ok(()) };
        let bytes = block.bytes();
        let decoded: Block = codec::from_bytes_with_max(&bytes, usize::MAX).unwrap();
        prop_assert_eq!(decoded.id(), Id::hash_of(&bytes));
        for tx in decoded.txs() {
            prop_assert_eq!(tx.id(), Id::hash_of(&tx.bytes()));
        }
    }
}

proptest! {
    #[test]
    fn text_forms_of_ids_and_addresses_round_trip(bytes in proptest::array::uniform32(any::<u8>()), network in any::<u32>()) {
        use firn_core::address::{ChainAddress, format_address};
        use firn_core::ids::{NodeId, ShortId};
        let id = Id(bytes);
        prop_assert_eq!(id.to_string().parse::<Id>().unwrap(), id);
        let mut short = [0u8; 20];
        short.copy_from_slice(&bytes[..20]);
        prop_assert_eq!(ShortId(short).to_string().parse::<ShortId>().unwrap(), ShortId(short));
        prop_assert_eq!(NodeId(short).to_string().parse::<NodeId>().unwrap(), NodeId(short));
        let addr = format_address("P", network, &ShortId(short));
        prop_assert_eq!(addr.parse::<ChainAddress>().unwrap(), ChainAddress::new("P", network, ShortId(short)));
    }
}

#[test]
fn conversion_tx_gives_validation_ids_and_conversion_data() {
    let bytes = vectors::unhex(&vectors::text(
        "pchain/txs/convert_subnet_to_l1.complex.unsigned.hex",
    ));
    let UnsignedTx::ConvertSubnetToL1(tx) = codec::from_bytes::<UnsignedTx>(&bytes).unwrap() else {
        panic!("not a ConvertSubnetToL1Tx")
    };
    let mut preimage = tx.subnet_id.as_bytes().to_vec();
    preimage.extend_from_slice(&0u32.to_be_bytes());
    assert_eq!(tx.validation_id(0), Id::hash_of(&preimage));
    let data = tx.conversion_data().unwrap();
    assert_eq!(data.subnet_id, tx.subnet_id);
    assert_eq!(data.manager_chain_id, tx.chain_id);
    assert_eq!(data.manager_address, tx.address.to_vec());
    assert_eq!(data.validators.len(), 1);
    assert_eq!(data.validators[0].weight, 72_623_859_790_382_856);
    assert_eq!(data.id(), Id::hash_of(&data.bytes()));
}
