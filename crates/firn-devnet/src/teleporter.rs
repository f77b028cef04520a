//! ICM's Teleporter on the devnet's EVM chains: firn's own messenger
//! (`contracts/src/FirnTeleporterMessenger.sol`, with Teleporter v1's ABI, events, message IDs,
//! receipts, fees and retries) placed at Teleporter's address in each L1's genesis, as Nick's
//! method places ICM's on public chains; and firn's Teleporter registry
//! (`contracts/src/FirnTeleporterRegistry.sol`, with ICM's `TeleporterRegistry` ABI) beside it,
//! holding version 1, to which an off-chain Warp message of the chain's own validators adds
//! versions ([`registry_message`]).

use firn_core::evm::keccak256;
use firn_core::ids::Id;
use firn_core::warp::UnsignedMessage;
use firn_core::warp::payload::AddressedCall;

/// TeleporterMessenger v1's address on every chain of every network, as bytes.
pub const TELEPORTER_MESSENGER: [u8; 20] = firn_core::teleporter::MESSENGER_V1.0.0;

const ARTIFACT: &str = include_str!("../../../contracts/artifacts/FirnTeleporterMessenger.json");

/// The messenger's runtime code, as `0x` hex.
pub fn messenger_code() -> String {
    crate::genesis::runtime_code(ARTIFACT)
}

/// Where the devnet's genesis places the Teleporter registry on each of its EVM chains.
/// ICM's registry has no canonical address; apps are given this one.
pub const TELEPORTER_REGISTRY: [u8; 20] = [
    0x7e, 0x1e, 0x90, 0x7e, 0x91, 0x57, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01,
];

/// The protocol versions the genesis registry holds: version 1, the messenger.
pub const GENESIS_VERSIONS: &[(u64, [u8; 20])] = &[(1, TELEPORTER_MESSENGER)];

const REGISTRY_ARTIFACT: &str =
    include_str!("../../../contracts/artifacts/FirnTeleporterRegistry.json");

/// The registry's runtime code, as `0x` hex.
pub fn registry_code() -> String {
    crate::genesis::runtime_code(REGISTRY_ARTIFACT)
}

/// The registry's storage once `versions` (version, messenger) were added in order, as its
/// constructor would leave it: `latestVersion` (slot 0), `version => address` (slot 1) and
/// `address => highest version` (slot 2). `(slot, value)` pairs, big-endian words.
pub fn registry_storage(versions: &[(u64, [u8; 20])]) -> Vec<([u8; 32], [u8; 32])> {
    let mut slots = std::collections::BTreeMap::new();
    let mut latest = 0;
    for &(version, address) in versions {
        latest = latest.max(version);
        slots.insert(mapping_slot(word(version), 1), address_word(address));
        let highest = slots
            .entry(mapping_slot(address_word(address), 2))
            .or_insert([0; 32]);
        *highest = (*highest).max(word(version));
    }
    slots.insert([0; 32], word(latest));
    slots.into_iter().collect()
}

/// The off-chain Warp message that adds `version` (the messenger at `protocol`) to the
/// registry at [`TELEPORTER_REGISTRY`] on chain `chain_id` of network `network_id`: an
/// `AddressedCall` with no source address whose payload is
/// `abi.encode(ProtocolRegistryEntry(version, protocol), registry)`. The chain's validators
/// sign it once their chain config lists it (subnet-EVM's `warp-off-chain-messages`).
pub fn registry_message(
    network_id: u32,
    chain_id: Id,
    version: u64,
    protocol: [u8; 20],
) -> UnsignedMessage {
    let mut payload = Vec::with_capacity(96);
    payload.extend(word(version));
    payload.extend(address_word(protocol));
    payload.extend(address_word(TELEPORTER_REGISTRY));
    let call = AddressedCall {
        source_address: Vec::new(),
        payload,
    };
    UnsignedMessage::new(network_id, chain_id, call.bytes())
}

/// Solidity's slot of `mapping[key]` for a mapping at `slot`.
fn mapping_slot(key: [u8; 32], slot: u64) -> [u8; 32] {
    let mut preimage = [0u8; 64];
    preimage[..32].copy_from_slice(&key);
    preimage[32..].copy_from_slice(&word(slot));
    keccak256(&preimage)
}

fn word(n: u64) -> [u8; 32] {
    let mut w = [0u8; 32];
    w[24..].copy_from_slice(&n.to_be_bytes());
    w
}

fn address_word(address: [u8; 20]) -> [u8; 32] {
    let mut w = [0u8; 32];
    w[12..].copy_from_slice(&address);
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_artifact_holds_runtime_code() {
        let code = messenger_code();
        assert!(
            code.starts_with("0x6080"),
            "{}",
            &code[..code.len().min(10)]
        );
        assert!(code.len() > 2_000);
        assert!(registry_code().starts_with("0x6080"));
    }

    #[test]
    fn registry_storage_is_what_solidity_lays_out() {
        let messenger = TELEPORTER_MESSENGER;
        let storage = registry_storage(&[(1, messenger), (3, messenger)]);
        let value = |slot: [u8; 32]| storage.iter().find(|(s, _)| *s == slot).map(|(_, v)| *v);
        assert_eq!(value([0; 32]), Some(word(3)));
        // keccak256(abi.encode(uint256(1), uint256(1))), as `cast index uint256 1 1` gives.
        let v1 = hex::decode("cc69885fda6bcc1a4ace058b4a62bf5e179ea78fd58a1ccd71c22cc9b688792f")
            .unwrap();
        assert_eq!(v1, mapping_slot(word(1), 1));
        assert_eq!(
            value(mapping_slot(word(1), 1)),
            Some(address_word(messenger))
        );
        assert_eq!(
            value(mapping_slot(word(3), 1)),
            Some(address_word(messenger))
        );
        assert_eq!(
            value(mapping_slot(address_word(messenger), 2)),
            Some(word(3))
        );
        assert_eq!(storage.len(), 4);
    }

    #[test]
    fn a_registry_message_is_an_addressed_call_from_no_one_to_the_registry() {
        let chain = Id([9; 32]);
        let message = registry_message(5, chain, 2, [0xab; 20]);
        assert_eq!((message.network_id, message.source_chain_id), (5, chain));
        let call = AddressedCall::from_bytes(&message.payload).unwrap();
        assert!(call.source_address.is_empty());
        assert_eq!(call.payload.len(), 96);
        assert_eq!(call.payload[..32], word(2));
        assert_eq!(call.payload[44..64], [0xab; 20]);
        assert_eq!(call.payload[76..], TELEPORTER_REGISTRY);
    }
}
