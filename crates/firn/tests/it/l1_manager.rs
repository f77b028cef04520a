//! `firn up`'s L1 manages its validators the way real L1s do: through its ACP-99 validator
//! manager contract. The history initializes the set from the P-Chain's conversion message,
//! registers two validators, changes a weight and removes one, each through the contract's
//! `initiate…` (a Warp message the L1's validators sign, carried by a P-Chain tx) and
//! `complete…` (the P-Chain's answer). The contract's events and state agree with the P-Chain's,
//! and the Data API aggregates signatures for the manager's messages.
//!
//! The same `firn up` shows the Teleporter registries upgraded by their validators' off-chain
//! messages ([`registries_were_upgraded_off_chain`]).

use std::collections::BTreeSet;

use alloy_primitives::{Address, B256, Bytes, LogData, U256};
use alloy_sol_types::{SolCall, SolError, SolEvent, sol};
use firn_core::ids::{Id, NodeId};
use firn_core::keys::bls;
use firn_core::warp::payload::{AddressedCall, Payload};
use firn_core::warp::validators::CanonicalValidatorSet;
use firn_core::warp::{Message, UnsignedMessage};
use firn_devnet::teleporter::{TELEPORTER_MESSENGER, TELEPORTER_REGISTRY, registry_message};
use firn_devnet::validator_manager::VALIDATOR_MANAGER;
use firn_devnet::{NetworkIdentity, Profile};
use serde_json::{Value, json};

use crate::devnet::{Running, call, post_json, start_firn, stop, temp_dir};
use crate::up::banner_value;

sol! {
    event RegisteredInitialValidator(bytes32 indexed validationID, bytes20 indexed nodeID, uint64 weight);
    event InitiatedValidatorRegistration(
        bytes32 indexed validationID,
        bytes20 indexed nodeID,
        bytes32 registrationMessageID,
        uint64 registrationExpiry,
        uint64 weight
    );
    event CompletedValidatorRegistration(bytes32 indexed validationID, uint64 weight);
    event InitiatedValidatorRemoval(
        bytes32 indexed validationID, bytes32 validatorWeightMessageID, uint64 weight, uint64 endTime
    );
    event CompletedValidatorRemoval(bytes32 indexed validationID);
    event InitiatedValidatorWeightUpdate(
        bytes32 indexed validationID, uint64 nonce, bytes32 weightUpdateMessageID, uint64 weight
    );
    event CompletedValidatorWeightUpdate(bytes32 indexed validationID, uint64 nonce, uint64 weight);
    event SendWarpMessage(address indexed sourceAddress, bytes32 indexed unsignedMessageID, bytes message);
    event AddProtocolVersion(uint256 indexed version, address indexed protocolAddress);
    function latestVersion() returns (uint256);

    struct Validator {
        uint8 status;
        bytes nodeID;
        uint64 startingWeight;
        uint64 sentNonce;
        uint64 receivedNonce;
        uint64 weight;
        uint64 startTime;
        uint64 endTime;
    }
    function getValidator(bytes32 validationID) returns (Validator);
    function l1TotalWeight() returns (uint64);
    function initiateValidatorRemoval(bytes32 validationID);
    function initiateValidatorWeightUpdate(bytes32 validationID, uint64 newWeight) returns (uint64, bytes32);
    struct ValidatorChurnPeriod { uint256 startTime; uint64 initialWeight; uint64 totalWeight; uint64 churnAmount; }
    function getChurnTracker() returns (uint64, uint8, ValidatorChurnPeriod);
    function completeValidatorRegistration(uint32 messageIndex) returns (bytes32);

    error OwnableUnauthorizedAccount(address account);
    error InvalidValidatorStatus(uint8 status);
    error InvalidWarpMessage();
    error MaxChurnRateExceeded(uint64 churnAmount);
}

const ACTIVE: u8 = 2;
const COMPLETED: u8 = 4;

/// The logs of `address` on the chain at `path`, from genesis.
fn logs_of(url: &str, path: &str, address: Address) -> Vec<LogData> {
    let filter =
        json!([{ "fromBlock": "0x0", "toBlock": "latest", "address": address.to_string() }]);
    call(url, path, "eth_getLogs", filter)
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            let topics = l["topics"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t.as_str().unwrap().parse::<B256>().unwrap())
                .collect();
            let data: Bytes = l["data"].as_str().unwrap().parse().unwrap();
            LogData::new(topics, data).unwrap()
        })
        .collect()
}

/// The logs of `logs` that decode as `E`.
fn events<E: SolEvent>(logs: &[LogData]) -> Vec<E> {
    logs.iter()
        .filter(|l| l.topics().first() == Some(&E::SIGNATURE_HASH))
        .map(|l| E::decode_raw_log(l.topics().iter().copied(), &l.data).unwrap())
        .collect()
}

fn eth_call<C: SolCall>(url: &str, path: &str, to: Address, c: &C) -> C::Return {
    let out = call(
        url,
        path,
        "eth_call",
        json!([{ "to": to.to_string(), "data": format!("0x{}", hex::encode(c.abi_encode())) }, "latest"]),
    );
    let bytes = hex::decode(out.as_str().unwrap().trim_start_matches("0x")).unwrap();
    C::abi_decode_returns(&bytes).unwrap()
}

/// The revert data of `eth_call`ing `c` on `to` from `from`.
fn revert_of<C: SolCall>(url: &str, path: &str, from: Address, to: Address, c: &C) -> Bytes {
    let body = json!({
        "jsonrpc": "2.0",
        "id": 1,
        "method": "eth_call",
        "params": [{
            "from": from.to_string(),
            "to": to.to_string(),
            "data": format!("0x{}", hex::encode(c.abi_encode())),
        }, "latest"],
    });
    let (status, reply) = post_json(url, path, &body);
    assert_eq!(status, 200, "{reply}");
    reply["error"]["data"]
        .as_str()
        .unwrap_or_else(|| panic!("the call did not revert: {reply}"))
        .parse()
        .unwrap()
}

/// `platform.getL1Validator`'s answer, or its error.
fn p_chain_validator(url: &str, validation_id: B256) -> Result<Value, Value> {
    let body = json!({
        "jsonrpc": "2.0",
        "id": 1,
        "method": "platform.getL1Validator",
        "params": { "validationID": Id(validation_id.0).to_string() },
    });
    let (status, reply) = post_json(url, "/ext/bc/P", &body);
    assert_eq!(status, 200, "{reply}");
    match reply.get("error") {
        Some(e) => Err(e.clone()),
        None => Ok(reply["result"].clone()),
    }
}

/// An off-chain message the test lists with `--warp-off-chain-message`: version 7 of the
/// C-Chain's registry.
fn listed_message() -> UnsignedMessage {
    let fuji = NetworkIdentity::of(Profile::Fuji);
    registry_message(fuji.network_id, fuji.c_chain_id, 7, [0x77; 20])
}

#[test]
fn the_l1s_validators_change_through_its_validator_manager() {
    let dir = temp_dir("l1-manager");
    let listed = hex::encode(listed_message().bytes());
    let up = start_firn(
        "up",
        dir.path(),
        &[
            "--warp-off-chain-message",
            &listed,
            "--days",
            "6",
            "--transfers-per-day",
            "4",
            "--quiet-chain",
            "--api-addr",
            "127.0.0.1:0",
            "--metrics-addr",
            "127.0.0.1:0",
        ],
    );
    let chains = call(&up.url, "/ext/bc/P", "platform.getBlockchains", json!({}));
    let l1 = chains["blockchains"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "FirnL1")
        .unwrap()
        .clone();
    let subnet: Id = l1["subnetID"].as_str().unwrap().parse().unwrap();
    let path = format!("/ext/bc/{}/rpc", l1["id"].as_str().unwrap());
    let manager = Address::from(VALIDATOR_MANAGER);
    let logs = logs_of(&up.url, &path, manager);

    // The conversion's two validators, with the P-Chain's validation IDs.
    let initial: Vec<RegisteredInitialValidator> = events(&logs);
    let initial_ids: Vec<B256> = initial.iter().map(|e| e.validationID).collect();
    assert_eq!(
        initial_ids,
        vec![
            B256::from(subnet.append(0).0),
            B256::from(subnet.append(1).0)
        ]
    );

    // Two registrations (days 1 and 3), each completed; the first removed on day 5.
    let initiated: Vec<InitiatedValidatorRegistration> = events(&logs);
    let completed: Vec<CompletedValidatorRegistration> = events(&logs);
    assert_eq!(initiated.len(), 2, "{logs:?}");
    assert_eq!(
        initiated.iter().map(|e| e.validationID).collect::<Vec<_>>(),
        completed.iter().map(|e| e.validationID).collect::<Vec<_>>()
    );
    assert_eq!(
        initiated.iter().map(|e| e.weight).collect::<Vec<_>>(),
        [50, 40]
    );
    let removals: Vec<InitiatedValidatorRemoval> = events(&logs);
    let removed: Vec<CompletedValidatorRemoval> = events(&logs);
    assert_eq!(removals.len(), 1);
    assert_eq!(removals[0].validationID, initiated[0].validationID);
    assert_eq!(removals[0].weight, 50);
    assert_eq!(removed.len(), 1);
    assert_eq!(removed[0].validationID, initiated[0].validationID);

    // Day 2's weight change of the first initial validator, acknowledged at its nonce.
    let updates: Vec<InitiatedValidatorWeightUpdate> = events(&logs);
    let updated: Vec<CompletedValidatorWeightUpdate> = events(&logs);
    assert_eq!(updates.len(), 1);
    assert_eq!(
        (updates[0].validationID, updates[0].nonce, updates[0].weight),
        (initial_ids[0], 1, 1_010)
    );
    assert_eq!(
        (updated[0].validationID, updated[0].nonce, updated[0].weight),
        (initial_ids[0], 1, 1_010)
    );

    // Each message ID the manager announced is one the Warp precompile logged as sent from it.
    let warp = logs_of(&up.url, &path, firn_evm::WARP_ADDRESS);
    let sent: Vec<SendWarpMessage> = events::<SendWarpMessage>(&warp)
        .into_iter()
        .filter(|e| e.sourceAddress == manager)
        .collect();
    let sent_ids: BTreeSet<B256> = sent.iter().map(|e| e.unsignedMessageID).collect();
    let announced: BTreeSet<B256> = initiated
        .iter()
        .map(|e| e.registrationMessageID)
        .chain(updates.iter().map(|e| e.weightUpdateMessageID))
        .chain(removals.iter().map(|e| e.validatorWeightMessageID))
        .collect();
    assert_eq!(announced, sent_ids);

    // The manager and the P-Chain agree on every validation's weight; the removed one is gone
    // from the P-Chain and completed in the manager.
    let mut total = 0;
    for id in [initial_ids[0], initial_ids[1], initiated[1].validationID] {
        let state = eth_call(
            &up.url,
            &path,
            manager,
            &getValidatorCall { validationID: id },
        );
        let p = p_chain_validator(&up.url, id).unwrap_or_else(|e| panic!("{id}: {e}"));
        assert_eq!(state.status, ACTIVE);
        assert_eq!(
            p["weight"].as_str().unwrap(),
            state.weight.to_string(),
            "{id}: {p}"
        );
        total += state.weight;
    }
    let gone = initiated[0].validationID;
    assert!(p_chain_validator(&up.url, gone).is_err());
    let state = eth_call(
        &up.url,
        &path,
        manager,
        &getValidatorCall { validationID: gone },
    );
    assert_eq!((state.status, state.weight), (COMPLETED, 0));
    let weight = eth_call(&up.url, &path, manager, &l1TotalWeightCall {});
    assert_eq!(weight, total);
    assert_eq!(total, 1_010 + 100 + 40);

    // The manager refuses what its rules forbid: a stranger's change, a removal of a finished
    // validation, a completion without the P-Chain's message.
    let owner: Address = up
        .banner
        .iter()
        .find_map(|l| l.strip_prefix("( 0) "))
        .and_then(|l| l.split_whitespace().nth(2))
        .unwrap()
        .parse()
        .unwrap();
    let stranger = Address::repeat_byte(0x42);
    let strangers = initiateValidatorRemovalCall {
        validationID: initial_ids[1],
    };
    assert_eq!(
        revert_of(&up.url, &path, stranger, manager, &strangers),
        Bytes::from(OwnableUnauthorizedAccount { account: stranger }.abi_encode())
    );
    let finished = initiateValidatorRemovalCall { validationID: gone };
    assert_eq!(
        revert_of(&up.url, &path, owner, manager, &finished),
        Bytes::from(InvalidValidatorStatus { status: COMPLETED }.abi_encode())
    );
    let unproven = completeValidatorRegistrationCall { messageIndex: 0 };
    assert_eq!(
        revert_of(&up.url, &path, owner, manager, &unproven),
        Bytes::from(InvalidWarpMessage {}.abi_encode())
    );

    // Churn is bounded as ICM's manager bounds it: 20 % of the weight an hour, so adding 1,000
    // to a total of 1,150 is refused.
    let churn = eth_call(&up.url, &path, manager, &getChurnTrackerCall {});
    assert_eq!((churn._0, churn._1), (3_600, 20));
    assert_eq!(churn._2.totalWeight, total);
    let too_much = initiateValidatorWeightUpdateCall {
        validationID: initial_ids[1],
        newWeight: 1_100,
    };
    let refused = revert_of(&up.url, &path, owner, manager, &too_much);
    let exceeded =
        MaxChurnRateExceeded::abi_decode(&refused).unwrap_or_else(|e| panic!("{refused}: {e}"));
    assert!(
        (1_000..=1_000 + churn._2.churnAmount).contains(&exceeded.churnAmount),
        "{}",
        exceeded.churnAmount
    );

    // The Data API aggregates the L1's signatures for what the manager sent: here the
    // removal's weight message, verified against the L1's set as the P-Chain reports it.
    let api = banner_value(&up.banner, "Data API     ");
    let removal = sent
        .iter()
        .find(|e| e.unsignedMessageID == removals[0].validatorWeightMessageID)
        .unwrap();
    let unsigned = UnsignedMessage::from_bytes(&removal.message).unwrap();
    let Ok(Payload::AddressedCall(AddressedCall { source_address, .. })) =
        Payload::from_bytes(&unsigned.payload)
    else {
        panic!("not an AddressedCall: {unsigned:?}");
    };
    assert_eq!(source_address, VALIDATOR_MANAGER);
    let (status, reply) = post_json(
        &api,
        "/v1/signatureAggregator/fuji/aggregateSignatures",
        &json!({ "message": hex::encode(&removal.message) }),
    );
    assert_eq!(status, 201, "{reply}");
    let signed = Message::from_bytes(
        &hex::decode(
            reply["signedMessage"]
                .as_str()
                .unwrap()
                .trim_start_matches("0x"),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(signed.unsigned, unsigned);
    let height = call(&up.url, "/ext/bc/P", "platform.getHeight", json!({}))["height"].clone();
    // The bare map `{"NodeID-…": {publicKey, weight}}`.
    let set = call(
        &up.url,
        "/ext/bc/P",
        "platform.getValidatorsAt",
        json!({ "height": height, "subnetID": subnet.to_string() }),
    );
    let validators = set.as_object().unwrap().iter().map(|(node, v)| {
        let key = v["publicKey"].as_str().map(|k| {
            bls::PublicKey::from_bytes(&hex::decode(k.trim_start_matches("0x")).unwrap()).unwrap()
        });
        let weight: u64 = v["weight"].as_str().unwrap().parse().unwrap();
        (node.parse::<NodeId>().unwrap(), key, weight)
    });
    let canonical = CanonicalValidatorSet::new(validators).unwrap();
    canonical
        .verify(&signed, unsigned.network_id, 67, 100)
        .unwrap();
    let l1_id: Id = l1["id"].as_str().unwrap().parse().unwrap();
    registries_were_upgraded_off_chain(&up, &api, (&path, l1_id));
    stop(up);
}

/// `signedMessage` of the Data API's `aggregateSignatures` for `unsigned`, or the status and
/// answer of its refusal.
fn aggregate(api: &str, unsigned: &UnsignedMessage) -> Result<Message, (u16, Value)> {
    let (status, reply) = post_json(
        api,
        "/v1/signatureAggregator/fuji/aggregateSignatures",
        &json!({ "message": hex::encode(unsigned.bytes()) }),
    );
    if status != 201 {
        return Err((status, reply));
    }
    let signed = reply["signedMessage"].as_str().unwrap();
    Ok(Message::from_bytes(&hex::decode(signed.trim_start_matches("0x")).unwrap()).unwrap())
}

/// History upgraded the registry of the C-Chain and of the L1 (at `l1_path`) to version 2 with
/// an off-chain message of each chain's validators, which sign it on request, as they sign
/// the message `--warp-off-chain-message` listed, and no other.
fn registries_were_upgraded_off_chain(up: &Running, api: &str, l1: (&str, Id)) {
    let registry = Address::from(TELEPORTER_REGISTRY);
    let messenger = Address::from(TELEPORTER_MESSENGER);
    let fuji = NetworkIdentity::of(Profile::Fuji);
    for (path, chain_id) in [("/ext/bc/C/rpc", fuji.c_chain_id), l1] {
        let added: Vec<AddProtocolVersion> = events(&logs_of(&up.url, path, registry));
        let added: Vec<_> = added
            .iter()
            .map(|e| (e.version, e.protocolAddress))
            .collect();
        assert_eq!(added, [(U256::from(2), messenger)], "{path}");
        assert_eq!(
            eth_call(&up.url, path, registry, &latestVersionCall {}),
            U256::from(2)
        );
        let upgrade = registry_message(fuji.network_id, chain_id, 2, TELEPORTER_MESSENGER);
        let signed = aggregate(api, &upgrade).unwrap_or_else(|e| panic!("{path}: {e:?}"));
        assert_eq!(signed.unsigned, upgrade);
    }
    let listed = aggregate(api, &listed_message()).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(listed.unsigned, listed_message());
    let unlisted = registry_message(fuji.network_id, fuji.c_chain_id, 8, [0x77; 20]);
    let (status, reply) = aggregate(api, &unlisted).unwrap_err();
    assert_eq!(status, 503, "{reply}");
    let refusal = reply["message"].as_str().unwrap();
    assert!(
        refusal.starts_with("signature weight is insufficient: 0 obtained"),
        "{refusal}"
    );
}
