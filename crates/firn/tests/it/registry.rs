//! The Teleporter registry (`contracts/src/FirnTeleporterRegistry.sol`, ICM's
//! `TeleporterRegistry` ABI) in an L1's genesis: it starts at version 1, the messenger, and
//! takes a new version only from an off-chain Warp message of the L1's own validators
//! addressed to it. A message anyone can send on chain (a source address), another chain's
//! message, one for another registry, a replay or a version jump are refused with ICM's
//! revert strings.

use alloy_primitives::{Address, B256, U256};
use alloy_sol_types::{SolCall, SolEvent, sol};
use firn_core::ids::Id;
use firn_core::warp::UnsignedMessage;
use firn_core::warp::payload::AddressedCall;
use firn_devnet::teleporter::{TELEPORTER_MESSENGER, TELEPORTER_REGISTRY, registry_message};
use firn_evm::Block;

use crate::aggregator_evm::{L1, l1, send_warp_message};
use crate::teleporter::{read, run};
use crate::warp_receive::{signed_by_l1, signed_by_primary};

const REGISTRY: Address = Address::new(TELEPORTER_REGISTRY);
const MESSENGER: Address = Address::new(TELEPORTER_MESSENGER);

sol! {
    function latestVersion() returns (uint256);
    function blockchainID() returns (bytes32);
    function getLatestTeleporter() returns (address);
    function getAddressFromVersion(uint256 version) returns (address);
    function getVersionFromAddress(address protocolAddress) returns (uint256);
    function addProtocolVersion(uint32 messageIndex);
    event AddProtocolVersion(uint256 indexed version, address indexed protocolAddress);
    event LatestVersionUpdated(uint256 indexed oldVersion, uint256 indexed newVersion);
}

/// `addProtocolVersion(0)` from funded key 3 with `predicates`; the block.
fn add(l1: &L1, predicates: &[Vec<u8>]) -> std::sync::Arc<Block> {
    let input = addProtocolVersionCall { messageIndex: 0 }.abi_encode();
    run(l1, 3, REGISTRY, input, predicates)
}

/// `add`'s revert reason (the tx must fail).
fn refused(l1: &L1, predicates: &[Vec<u8>]) -> String {
    let block = add(l1, predicates);
    assert!(!block.receipts[0].success, "the registry took it");
    block.traces[0].revert_reason.clone().unwrap_or_default()
}

fn version_of(l1: &L1, protocol: Address) -> U256 {
    let call = getVersionFromAddressCall {
        protocolAddress: protocol,
    };
    read(l1, REGISTRY, call)
}

fn registry_events<E: SolEvent>(block: &Block) -> Vec<E> {
    block
        .receipts
        .iter()
        .flat_map(|r| r.logs.iter())
        .filter(|l| l.address == REGISTRY && l.data.topics().first() == Some(&E::SIGNATURE_HASH))
        .map(|l| E::decode_log_data(&l.data).unwrap())
        .collect()
}

/// The payload of an off-chain registry message: `(version, protocol)` for `registry`.
fn entry_payload(version: u64, protocol: Address, registry: Address) -> Vec<u8> {
    let mut payload = U256::from(version).to_be_bytes::<32>().to_vec();
    payload.extend(B256::left_padding_from(protocol.as_slice()));
    payload.extend(B256::left_padding_from(registry.as_slice()));
    payload
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_registry_takes_versions_only_from_its_validators_off_chain_messages() {
    let l1 = l1().await;
    let network = l1.pchain.network().network_id;
    let here = Id(l1.evm.blockchain_id().0);

    // Genesis: version 1 is the messenger.
    assert_eq!(read(&l1, REGISTRY, latestVersionCall {}), U256::from(1));
    assert_eq!(read(&l1, REGISTRY, getLatestTeleporterCall {}), MESSENGER);
    assert_eq!(version_of(&l1, MESSENGER), U256::from(1));
    assert_eq!(
        read(&l1, REGISTRY, blockchainIDCall {}),
        l1.evm.blockchain_id()
    );

    // No message, or one from a source address (anyone can send that on chain).
    assert_eq!(
        refused(&l1, &[]),
        "TeleporterRegistry: invalid warp message"
    );
    let next = Address::repeat_byte(0x77);
    let forged = send_warp_message(&l1, &entry_payload(2, next, REGISTRY));
    assert_eq!(
        refused(&l1, &[signed_by_l1(&l1, &forged, &[0, 1]).bytes()]),
        "TeleporterRegistry: invalid origin sender address"
    );
    // The C-Chain's validators' off-chain message is the C-Chain's registry's business.
    let c_chain = l1.pchain.network().c_chain_id;
    let foreign = registry_message(network, c_chain, 2, next.0.0);
    assert_eq!(
        refused(&l1, &[signed_by_primary(&l1, &foreign).bytes()]),
        "TeleporterRegistry: invalid source chain ID"
    );
    // Addressed to another registry.
    let elsewhere = AddressedCall {
        source_address: Vec::new(),
        payload: entry_payload(2, next, Address::repeat_byte(0x99)),
    };
    let elsewhere = UnsignedMessage::new(network, here, elsewhere.bytes());
    assert_eq!(
        refused(&l1, &[signed_by_l1(&l1, &elsewhere, &[0, 1]).bytes()]),
        "TeleporterRegistry: invalid destination address"
    );
    assert_eq!(read(&l1, REGISTRY, latestVersionCall {}), U256::from(1));

    // The L1's validators' message adds version 2.
    let upgrade = signed_by_l1(&l1, &registry_message(network, here, 2, next.0.0), &[0, 1]);
    let block = add(&l1, &[upgrade.bytes()]);
    assert!(block.receipts[0].success, "{:?}", block.traces[0].error);
    let added = registry_events::<AddProtocolVersion>(&block);
    assert_eq!(added.len(), 1);
    assert_eq!(
        (added[0].version, added[0].protocolAddress),
        (U256::from(2), next)
    );
    let latest = registry_events::<LatestVersionUpdated>(&block);
    assert_eq!(
        (latest[0].oldVersion, latest[0].newVersion),
        (U256::from(1), U256::from(2))
    );
    assert_eq!(read(&l1, REGISTRY, getLatestTeleporterCall {}), next);
    assert_eq!(
        read(
            &l1,
            REGISTRY,
            getAddressFromVersionCall {
                version: U256::from(1)
            }
        ),
        MESSENGER
    );

    // Replayed, or jumping more than 500 versions: refused.
    assert_eq!(
        refused(&l1, &[upgrade.bytes()]),
        "TeleporterRegistry: version already exists"
    );
    let jump = signed_by_l1(
        &l1,
        &registry_message(network, here, 503, next.0.0),
        &[0, 1],
    );
    assert_eq!(
        refused(&l1, &[jump.bytes()]),
        "TeleporterRegistry: version increment too high"
    );

    // The messenger re-registered above the latest version (a rollback) answers it.
    let rollback = signed_by_l1(
        &l1,
        &registry_message(network, here, 3, TELEPORTER_MESSENGER),
        &[0, 1],
    );
    assert!(add(&l1, &[rollback.bytes()]).receipts[0].success);
    assert_eq!(read(&l1, REGISTRY, getLatestTeleporterCall {}), MESSENGER);
    assert_eq!(version_of(&l1, MESSENGER), U256::from(3));
}
