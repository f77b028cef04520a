//! The devnet's validators as Warp signers, driven through the aggregator: P-Chain rules,
//! each L1 tx's message, quorum edges, offline/lying/slow validators, past heights.

use crate::common::*;
use firn_aggregator::pchain::{TxMessageError, message_for_tx};
use firn_aggregator::{
    AggregateError, Aggregated, AggregationRequest, Aggregator, AggregatorConfig, AppError,
    ErrorKind, NetworkError, Quorum,
};
use firn_core::ids::{Id, NodeId};
use firn_core::keys::bls;
use firn_core::warp::UnsignedMessage;
use firn_core::warp::acp118::{
    L1ValidatorRegistrationJustification, Preimage, SignatureRequest, SubnetIdIndex,
};
use firn_core::warp::messages::{
    L1Message, L1ValidatorRegistration, L1ValidatorWeight, PChainOwner, RegisterL1Validator,
    SubnetToL1Conversion,
};
use firn_core::warp::payload::Payload;
use firn_devnet::genesis::{DevnetConfig, derive_bls, single_owner};
use firn_devnet::signers::{DevnetSigners, SignerBehaviour, WarpVerifier};
use firn_devnet::state::validators::canonical;
use firn_devnet::vm::PChain;
use firn_devnet::wallet::{L1ValidatorSpec, Wallet, manager_message, sign_warp};
use std::sync::Arc;
use std::time::Duration;

const MANAGER: &[u8] = &[0xAB; 20];

/// A subnet converted to an L1 with two validators of weight 100.
struct L1 {
    subnet: Id,
    manager_chain: Id,
    convert_tx: Id,
    keys: Vec<bls::SecretKey>,
    nodes: Vec<NodeId>,
    owner: PChainOwner,
}

fn convert_l1(chain: &PChain) -> L1 {
    let wallet = Wallet::new(chain);
    let me = wallet.change_address();
    let subnet = issue_and_build(chain, wallet.create_subnet(single_owner(me)).unwrap());
    let manager_chain = issue_and_build(
        chain,
        wallet
            .create_chain(subnet, "manager", Id([9; 32]), b"{}".to_vec())
            .unwrap(),
    );
    let keys: Vec<_> = (0..3)
        .map(|i| derive_bls("test", "agg", i).unwrap())
        .collect();
    let nodes: Vec<NodeId> = (0..3).map(|i| NodeId([0x20 + i; 20])).collect();
    let owner = PChainOwner {
        threshold: 1,
        addresses: vec![me],
    };
    let specs: Vec<_> = (0..2)
        .map(|i| L1ValidatorSpec {
            node_id: nodes[i],
            weight: 100,
            balance: 10 * AVAX,
            bls: &keys[i],
            owner: owner.clone(),
        })
        .collect();
    let convert_tx = issue_and_build(
        chain,
        wallet
            .convert_subnet_to_l1(subnet, manager_chain, MANAGER.to_vec(), &specs)
            .unwrap(),
    );
    L1 {
        subnet,
        manager_chain,
        convert_tx,
        keys,
        nodes,
        owner,
    }
}

fn setup(
    name: &str,
    config: DevnetConfig,
) -> (TempDir, Arc<PChain>, Arc<DevnetSigners>, Aggregator) {
    let dir = temp_dir(name);
    let chain = Arc::new(open_in(dir.path(), config));
    let signers = Arc::new(DevnetSigners::new(chain.clone()).unwrap());
    let agg = Aggregator::new(
        signers.clone(),
        AggregatorConfig {
            request_timeout: Duration::from_millis(500),
            ..AggregatorConfig::default()
        },
    );
    (dir, chain, signers, agg)
}

fn pchain_request(message: UnsignedMessage, justification: Vec<u8>, q: u64) -> AggregationRequest {
    AggregationRequest {
        message,
        justification,
        signing_subnet: None,
        quorum: Quorum::new(q, 0).unwrap(),
        pchain_height: None,
    }
}

/// Checks `out` with firn-core against the primary network's set at its height.
fn verify_primary(chain: &PChain, out: &Aggregated, q: u64) {
    let set = canonical(&chain.validators_at(&Id::ZERO, out.height).unwrap()).unwrap();
    set.verify(&out.message, chain.network().network_id, q, 100)
        .unwrap();
}

fn l1_message(out: &Aggregated) -> L1Message {
    L1Message::from_unsigned_message(&out.message.unsigned).unwrap()
}

#[tokio::test]
async fn every_l1_tx_justifies_a_pchain_message_the_primary_network_signs() {
    let (_dir, chain, signers, agg) = setup("agg-l1-txs", config());
    let l1 = convert_l1(&chain);
    let network_id = chain.network().network_id;
    let wallet = Wallet::new(&chain);

    // ConvertSubnetToL1Tx → SubnetToL1Conversion{conversionID}, justified by the subnet ID.
    let j = message_for_tx(&*signers, network_id, l1.convert_tx)
        .await
        .unwrap();
    assert_eq!(j.justification, l1.subnet.0.to_vec());
    let out = agg
        .aggregate(pchain_request(j.message, j.justification, 67))
        .await
        .unwrap();
    verify_primary(&chain, &out, 67);
    let conversion_id = chain.subnets()[0].conversion.clone().unwrap().conversion_id;
    assert_eq!(
        l1_message(&out),
        L1Message::SubnetToL1Conversion(SubnetToL1Conversion { id: conversion_id })
    );
    // Five equal genesis validators: four of them (80 %) meet 67 %.
    assert_eq!((out.subnet_id, out.signers), (Id::ZERO, 4));

    // RegisterL1ValidatorTx → L1ValidatorRegistration{id, true} while it validates.
    let reg = RegisterL1Validator {
        subnet_id: l1.subnet,
        node_id: l1.nodes[2],
        bls_public_key: l1.keys[2].public_key().to_bytes(),
        expiry: chain.timestamp() + 3600,
        remaining_balance_owner: l1.owner.clone(),
        disable_owner: l1.owner.clone(),
        weight: 50,
    };
    let v2 = reg.validation_id();
    let unsigned = manager_message(
        network_id,
        l1.manager_chain,
        MANAGER,
        &L1Message::RegisterL1Validator(reg),
    );
    let signed = sign_warp(&chain, l1.subnet, unsigned, &[&l1.keys[0], &l1.keys[1]]).unwrap();
    let register_tx = issue_and_build(
        &chain,
        wallet
            .register_l1_validator(AVAX, &l1.keys[2], &signed)
            .unwrap(),
    );
    let j = message_for_tx(&*signers, network_id, register_tx)
        .await
        .unwrap();
    assert!(j.justification.is_empty());
    let out = agg
        .aggregate(pchain_request(j.message, j.justification, 67))
        .await
        .unwrap();
    verify_primary(&chain, &out, 67);
    assert_eq!(
        l1_message(&out),
        L1Message::L1ValidatorRegistration(L1ValidatorRegistration {
            validation_id: v2,
            registered: true
        })
    );

    // SetL1ValidatorWeightTx → L1ValidatorWeight with the accepted nonce and weight.
    let v0 = l1.subnet.append(0);
    let weight_msg = |validation_id, nonce, weight| {
        manager_message(
            network_id,
            l1.manager_chain,
            MANAGER,
            &L1Message::L1ValidatorWeight(L1ValidatorWeight {
                validation_id,
                nonce,
                weight,
            }),
        )
    };
    let keys01 = [&l1.keys[0], &l1.keys[1]];
    let signed = sign_warp(&chain, l1.subnet, weight_msg(v0, 0, 300), &keys01).unwrap();
    let weight_tx = issue_and_build(&chain, wallet.set_l1_validator_weight(&signed).unwrap());
    let j = message_for_tx(&*signers, network_id, weight_tx)
        .await
        .unwrap();
    let out = agg
        .aggregate(pchain_request(j.message, j.justification, 67))
        .await
        .unwrap();
    verify_primary(&chain, &out, 67);
    let acknowledged = L1ValidatorWeight {
        validation_id: v0,
        nonce: 0,
        weight: 300,
    };
    assert_eq!(l1_message(&out), L1Message::L1ValidatorWeight(acknowledged));

    // The P-Chain does not sign a weight its state does not hold: nobody signs.
    let forged = L1Message::L1ValidatorWeight(L1ValidatorWeight {
        weight: 301,
        ..acknowledged
    });
    let err = agg
        .aggregate(pchain_request(
            forged.to_unsigned_message(network_id),
            vec![],
            67,
        ))
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            AggregateError::InsufficientWeight {
                obtained: 0,
                signers: 0,
                ..
            }
        ),
        "{err}"
    );

    // Removing the registered validator: L1ValidatorRegistration{id, false}, justified by
    // its RegisterL1Validator message; its register tx now says the same.
    let signed = sign_warp(&chain, l1.subnet, weight_msg(v2, 0, 0), &keys01).unwrap();
    let remove_tx = issue_and_build(&chain, wallet.set_l1_validator_weight(&signed).unwrap());
    for tx in [remove_tx, register_tx] {
        let j = message_for_tx(&*signers, network_id, tx).await.unwrap();
        let parsed = L1ValidatorRegistrationJustification::from_bytes(&j.justification).unwrap();
        assert!(matches!(
            parsed.preimage,
            Some(Preimage::RegisterL1ValidatorMessage(_))
        ));
        let out = agg
            .aggregate(pchain_request(j.message, j.justification, 67))
            .await
            .unwrap();
        verify_primary(&chain, &out, 67);
        assert_eq!(
            l1_message(&out),
            L1Message::L1ValidatorRegistration(L1ValidatorRegistration {
                validation_id: v2,
                registered: false
            })
        );
    }

    // Removing an initial validator: justified by the conversion's (subnet, index).
    let v1 = l1.subnet.append(1);
    let signed = sign_warp(&chain, l1.subnet, weight_msg(v1, 0, 0), &keys01).unwrap();
    let remove_tx = issue_and_build(&chain, wallet.set_l1_validator_weight(&signed).unwrap());
    let j = message_for_tx(&*signers, network_id, remove_tx)
        .await
        .unwrap();
    assert_eq!(
        L1ValidatorRegistrationJustification::from_bytes(&j.justification)
            .unwrap()
            .preimage,
        Some(Preimage::ConvertSubnetToL1TxData(SubnetIdIndex::new(
            l1.subnet, 1
        )))
    );
    let out = agg
        .aggregate(pchain_request(j.message, j.justification, 67))
        .await
        .unwrap();
    verify_primary(&chain, &out, 67);

    // Unknown txs and txs of other types.
    assert_eq!(
        message_for_tx(&*signers, network_id, Id([1; 32])).await,
        Err(TxMessageError::NotFound(Id([1; 32])))
    );
    assert!(matches!(
        message_for_tx(&*signers, network_id, l1.manager_chain).await,
        Err(TxMessageError::NotAnL1Tx {
            type_name: "CreateChainTx",
            ..
        })
    ));
}

#[tokio::test]
async fn offline_and_lying_validators_are_skipped_and_the_threshold_is_exact() {
    let mut cfg = config();
    // One validator from the config, two more at run time.
    cfg.warp_signers.insert(
        cfg.validator_node_id(4),
        SignerBehaviour::Slow { delay_ms: 5 },
    );
    let (_dir, chain, signers, agg) = setup("agg-behaviour", cfg.clone());
    let l1 = convert_l1(&chain);
    let network_id = chain.network().network_id;
    let j = message_for_tx(&*signers, network_id, l1.convert_tx)
        .await
        .unwrap();
    signers.set_behaviour(cfg.validator_node_id(0), SignerBehaviour::Offline);
    signers.set_behaviour(cfg.validator_node_id(1), SignerBehaviour::BadSignature);

    // Three honest validators of five equal ones hold exactly 60 %.
    let err = agg
        .aggregate(pchain_request(
            j.message.clone(),
            j.justification.clone(),
            67,
        ))
        .await
        .unwrap_err();
    let weight = cfg.validator_stake;
    assert_eq!(
        err,
        AggregateError::InsufficientWeight {
            obtained: 3 * weight,
            required: Quorum::default().required(5 * weight),
            total: 5 * weight,
            signers: 3,
            asked: 5,
        }
    );
    assert!(err.to_string().contains("signature weight is insufficient"));
    assert_eq!(err.kind(), ErrorKind::Unavailable);

    agg.clear_cache();
    let out = agg
        .aggregate(pchain_request(
            j.message.clone(),
            j.justification.clone(),
            60,
        ))
        .await
        .unwrap();
    verify_primary(&chain, &out, 60);
    let set = canonical(&chain.validators_at(&Id::ZERO, out.height).unwrap()).unwrap();
    let signed: Vec<NodeId> = set
        .signers(&out.message.signature.signers)
        .unwrap()
        .iter()
        .flat_map(|v| v.node_ids.clone())
        .collect();
    assert_eq!(signed.len(), 3);
    assert!(!signed.contains(&cfg.validator_node_id(0)));
    assert!(!signed.contains(&cfg.validator_node_id(1)));

    agg.clear_cache();
    let err = agg
        .aggregate(pchain_request(j.message, j.justification, 61))
        .await
        .unwrap_err();
    assert!(
        matches!(err, AggregateError::InsufficientWeight { .. }),
        "{err}"
    );
}

#[tokio::test]
async fn validator_sets_at_past_heights_sign_with_their_own_bitset() {
    let (_dir, chain, signers, agg) = setup("agg-heights", config());
    let l1 = convert_l1(&chain);
    let network_id = chain.network().network_id;
    let before = chain.height();

    // A sixth primary validator, heavier than the rest, joins.
    let wallet = Wallet::new(&chain);
    let node = NodeId([0x66; 20]);
    let sk = derive_bls("test", "sixth", 0).unwrap();
    let me = wallet.change_address();
    issue_and_build(
        &chain,
        wallet
            .add_validator(
                node,
                &sk,
                400_000 * AVAX,
                chain.timestamp() + 30 * DAY,
                me,
                20_000,
            )
            .unwrap(),
    );
    signers.add_key(node, sk);
    let j = message_for_tx(&*signers, network_id, l1.convert_tx)
        .await
        .unwrap();

    let mut past = pchain_request(j.message.clone(), j.justification.clone(), 67);
    past.pchain_height = Some(before);
    let old = agg.aggregate(past).await.unwrap();
    assert_eq!(old.height, before);
    verify_primary(&chain, &old, 67);
    assert_eq!(old.total_weight, 5 * config().validator_stake);

    let now = agg
        .aggregate(pchain_request(
            j.message.clone(),
            j.justification.clone(),
            67,
        ))
        .await
        .unwrap();
    assert_eq!(now.height, chain.height());
    verify_primary(&chain, &now, 67);
    assert_eq!(
        now.total_weight,
        5 * config().validator_stake + 400_000 * AVAX
    );
    // The newcomer signed first: it is the heaviest.
    let set = canonical(&chain.validators_at(&Id::ZERO, now.height).unwrap()).unwrap();
    let index = set.index_of(&node).unwrap();
    assert!(firn_core::warp::bitset::contains(
        &now.message.signature.signers,
        index
    ));
    // The old set cannot check the new signature, nor the reverse.
    let old_set = canonical(&chain.validators_at(&Id::ZERO, before).unwrap()).unwrap();
    assert!(old_set.verify(&now.message, network_id, 67, 100).is_err());

    let mut future = pchain_request(j.message, j.justification, 67);
    future.pchain_height = Some(chain.height() + 10);
    let err = agg.aggregate(future).await.unwrap_err();
    assert!(matches!(
        err,
        AggregateError::Network(NetworkError::HeightNotAccepted { .. })
    ));
    assert_eq!(err.kind(), ErrorKind::BadRequest);
}

/// Accepts Hash payloads only: what an EVM chain's verifier plugs in.
#[derive(Debug)]
struct HashesOnly;

impl WarpVerifier for HashesOnly {
    fn verify(&self, message: &UnsignedMessage, _: &[u8]) -> Result<(), AppError> {
        match Payload::from_bytes(&message.payload) {
            Ok(Payload::Hash(_)) => Ok(()),
            _ => Err(AppError {
                code: 1,
                message: "only block hashes".into(),
            }),
        }
    }
}

#[tokio::test]
async fn pchain_rules_refuse_what_the_state_does_not_justify() {
    let (_dir, chain, signers, agg) = setup("agg-rules", config());
    let network_id = chain.network().network_id;
    let node = chain.config().validator_node_id(2);
    let code = |message: UnsignedMessage, justification: Vec<u8>| match signers.answer(
        node,
        &SignatureRequest {
            message: message.bytes(),
            justification,
        },
    ) {
        Err(NetworkError::Refused { error, .. }) => error.code,
        other => panic!("expected a refusal, got {other:?}"),
    };
    let conversion = |id| {
        L1Message::SubnetToL1Conversion(SubnetToL1Conversion { id }).to_unsigned_message(network_id)
    };
    // Not converted yet.
    assert_eq!(code(conversion(Id([1; 32])), Id([2; 32]).0.to_vec()), 6);
    let l1 = convert_l1(&chain);
    // Converted, but not with this ID.
    assert_eq!(code(conversion(Id([1; 32])), l1.subnet.0.to_vec()), 7);
    // A justification that is not a subnet ID.
    assert_eq!(code(conversion(Id([1; 32])), vec![1, 2, 3]), 5);
    // A weight at the wrong nonce.
    let weight = L1Message::L1ValidatorWeight(L1ValidatorWeight {
        validation_id: l1.subnet.append(0),
        nonce: 3,
        weight: 100,
    });
    assert_eq!(code(weight.to_unsigned_message(network_id), vec![]), 16);
    // A registration that could still be issued.
    let reg = RegisterL1Validator {
        subnet_id: l1.subnet,
        node_id: l1.nodes[2],
        bls_public_key: l1.keys[2].public_key().to_bytes(),
        expiry: chain.timestamp() + 3600,
        remaining_balance_owner: l1.owner.clone(),
        disable_owner: l1.owner.clone(),
        weight: 50,
    };
    let not_registered = L1Message::L1ValidatorRegistration(L1ValidatorRegistration {
        validation_id: reg.validation_id(),
        registered: false,
    });
    let justification = L1ValidatorRegistrationJustification::from(
        Preimage::RegisterL1ValidatorMessage(reg.bytes()),
    )
    .bytes();
    assert_eq!(
        code(
            not_registered.to_unsigned_message(network_id),
            justification.clone()
        ),
        14
    );
    // Once its expiry passes, the P-Chain attests it can never register.
    // (The chain time moves with the next block.)
    chain.clock().advance(3600);
    let wallet = Wallet::new(&chain);
    issue_and_build(&chain, wallet.send(wallet.change_address(), AVAX).unwrap());
    let out = agg
        .aggregate(pchain_request(
            not_registered.to_unsigned_message(network_id),
            justification,
            67,
        ))
        .await
        .unwrap();
    verify_primary(&chain, &out, 67);

    // Other chains sign only through a registered verifier.
    let source = l1.manager_chain;
    let hash = UnsignedMessage::new(network_id, source, Payload::Hash(Id([7; 32])).bytes());
    assert_eq!(code(hash.clone(), vec![]), -1);
    signers.register_chain(source, Arc::new(HashesOnly));
    for i in 0..2 {
        signers.add_key(l1.nodes[i], derive_bls("test", "agg", i as u32).unwrap());
    }
    // The L1 validating the chain signs its block hash (source subnet picked from the chain).
    let out = agg
        .aggregate(pchain_request(hash, vec![], 67))
        .await
        .unwrap();
    assert_eq!(out.subnet_id, l1.subnet);
    let set = canonical(&chain.validators_at(&l1.subnet, out.height).unwrap()).unwrap();
    set.verify(&out.message, network_id, 67, 100).unwrap();
}
