//! `encoding/ids-addresses.json` and `teleporter/event-topics.json`.

use crate::vectors;
use firn_core::address::{ChainAddress, format_address};
use firn_core::encoding::{cb58_decode, cb58_encode};
use firn_core::evm::{create_address, event_topic};
use firn_core::ids::{Id, NodeId, ShortId};

#[test]
fn ids_and_addresses_vector() {
    let v = vectors::json("encoding/ids-addresses.json");
    for case in v["cb58"].as_array().unwrap() {
        let bytes = vectors::unhex(case["bytes_hex"].as_str().unwrap());
        let text = case["cb58"].as_str().unwrap();
        assert_eq!(cb58_encode(&bytes), text);
        assert_eq!(cb58_decode(text).unwrap(), bytes);
        assert_eq!(
            text.parse::<Id>().unwrap().as_bytes().as_slice(),
            bytes.as_slice()
        );
    }
    let mainnet = &v["address"][0];
    let id = ShortId::from_slice(&vectors::unhex(
        mainnet["ripemd160_sha256_pubkey_hex"].as_str().unwrap(),
    ))
    .unwrap();
    assert_eq!(
        format_address("P", 1, &id),
        mainnet["bech32_mainnet"].as_str().unwrap()
    );
    let unit = &v["address"][1];
    let id = ShortId::from_slice(&vectors::unhex(unit["short_id_hex"].as_str().unwrap())).unwrap();
    let text = unit["bech32_unittest"].as_str().unwrap();
    assert_eq!(format_address("P", 10, &id), text);
    assert_eq!(text.parse::<ChainAddress>().unwrap().id, id);
    let node = &v["node_id"][0];
    let id = NodeId::from_slice(&vectors::unhex(node["bytes_hex"].as_str().unwrap())).unwrap();
    assert_eq!(id.to_string(), node["node_id"].as_str().unwrap());
    assert_eq!(id, NodeId::EMPTY);
}

#[test]
fn teleporter_event_topics_and_messenger_address() {
    let v = vectors::json("teleporter/event-topics.json");
    let events = v["events"].as_object().unwrap();
    assert_eq!(events.len(), 9);
    for (name, event) in events {
        let topic = event_topic(event["signature"].as_str().unwrap());
        assert_eq!(
            format!("0x{}", hex::encode(topic)),
            event["topic0"].as_str().unwrap(),
            "{name}"
        );
    }
    let deployer_field = v["deployer"].as_str().unwrap();
    let deployer: [u8; 20] = vectors::unhex(&deployer_field[..42]).try_into().unwrap();
    let messenger = create_address(&deployer, 0);
    let expected = v["teleporter_messenger_v1_address"]
        .as_str()
        .unwrap()
        .to_lowercase();
    assert_eq!(format!("0x{}", hex::encode(messenger)), expected);
}
