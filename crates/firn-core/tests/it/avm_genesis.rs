//! The X-Chain genesis: AVAX's asset ID on Fuji and the local network follows from their
//! genesis allocations, byte for byte as AvalancheGo builds it.

use crate::vectors;
use firn_core::address::ChainAddress;
use firn_core::avm::genesis::{Allocation, Genesis};
use firn_core::network::{FUJI, LOCAL, PrimaryNetwork};

/// The allocations of AvalancheGo's `genesis_<name>.json` (X-Chain fields only).
fn allocations(name: &str) -> (u32, Vec<Allocation>) {
    let config = vectors::json(&format!("avm/genesis/{name}-allocations.json"));
    let allocations = config["allocations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            let address: ChainAddress = a["avaxAddr"].as_str().unwrap().parse().unwrap();
            assert_eq!(address.chain, "X");
            let eth = vectors::unhex(a["ethAddr"].as_str().unwrap().trim_start_matches("0x"));
            Allocation {
                avax_address: address.id,
                eth_address: eth.try_into().unwrap(),
                initial_amount: a["initialAmount"].as_u64().unwrap(),
            }
        })
        .collect();
    (config["networkID"].as_u64().unwrap() as u32, allocations)
}

fn check(name: &str, network: &PrimaryNetwork) {
    let (network_id, allocations) = allocations(name);
    assert_eq!(network_id, network.network_id);
    let genesis = Genesis::avax(network_id, &allocations);
    assert_eq!(
        genesis.avax_asset_id(),
        Some(network.avax_asset_id),
        "{name}'s AVAX asset ID"
    );
    // The bytes read back to the same genesis, and so to the same ID.
    let read = Genesis::from_bytes(&genesis.bytes()).unwrap();
    assert_eq!(read, genesis);
    let holders = allocations.iter().filter(|a| a.initial_amount > 0).count();
    assert_eq!(read.assets[0].tx.initial_states[0].outputs.len(), holders);
    assert_eq!(read.assets[0].tx.base.memo.0.len(), 20 * holders);
}

#[test]
fn local_avax_asset_id_follows_from_its_genesis() {
    check("local", &LOCAL);
}

#[test]
fn fuji_avax_asset_id_follows_from_its_genesis() {
    check("fuji", &FUJI);
}

#[test]
fn the_allocations_order_does_not_change_the_genesis() {
    let (network_id, mut allocations) = allocations("fuji");
    let want = Genesis::avax(network_id, &allocations).bytes();
    allocations.reverse();
    assert_eq!(Genesis::avax(network_id, &allocations).bytes(), want);
}
