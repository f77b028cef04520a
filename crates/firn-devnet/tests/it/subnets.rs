use crate::common::*;
use firn_core::ids::{Id, NodeId};
use firn_core::pchain::fx::Credential;
use firn_core::pchain::tx::{Tx, UnsignedTx};
use firn_core::warp::messages::{L1Message, L1ValidatorWeight, PChainOwner};
use firn_devnet::genesis::{derive_bls, single_owner};
use firn_devnet::wallet::{L1ValidatorSpec, Wallet, WalletError, manager_message, sign_warp};

#[test]
fn permissioned_subnet_validators_follow_the_owner_and_expire() {
    let dir = temp_dir("subnets");
    let chain = open_in(dir.path(), config());
    let cfg = chain.config();
    let owner0 = Wallet::with_keys(&chain, vec![cfg.funded_key(0)]);
    let owner1 = Wallet::with_keys(&chain, vec![cfg.funded_key(1)]);
    let addr1 = owner1.change_address();
    let subnet = issue_and_build(
        &chain,
        owner0
            .create_subnet(single_owner(owner0.change_address()))
            .unwrap(),
    );
    let primary_node = cfg.validator_node_id(0);
    let primary_key = cfg.validator_bls_key(0).unwrap().public_key().to_bytes();

    // Only primary network validators may join, within their own period.
    let stranger = NodeId([0x77; 20]);
    let end = chain.timestamp() + 10 * DAY;
    let err = chain
        .issue_tx(
            owner0
                .add_subnet_validator(subnet, stranger, 10, end)
                .unwrap(),
        )
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("isn't a current or pending validator"),
        "{err}"
    );
    let err = chain
        .issue_tx(
            owner0
                .add_subnet_validator(subnet, primary_node, 10, chain.timestamp() + 400 * DAY)
                .unwrap(),
        )
        .unwrap_err();
    assert_eq!(err.to_string(), "staking period is too long");

    // A subnet auth signed by the wrong key is unauthorized.
    let good = owner0
        .add_subnet_validator(subnet, primary_node, 10, end)
        .unwrap();
    let (unsigned, mut creds): (UnsignedTx, Vec<Credential>) = good.clone().into_parts();
    let wrong = cfg.funded_key(1).sign_hash(&unsigned.signing_hash());
    if let Some(last) = creds.last_mut() {
        last.signatures = vec![wrong.0];
    }
    let err = chain.issue_tx(Tx::new(unsigned, creds)).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("unauthorized modification: wrong signature: expected signature from"),
        "{err}"
    );

    let added = issue_and_build(&chain, good);
    let h_added = chain.height();
    let set = chain.validators_at(&subnet, h_added).unwrap();
    assert_eq!(set[&primary_node].weight, 10);
    assert_eq!(set[&primary_node].public_key, Some(primary_key));
    assert_eq!(
        chain.current_validators(subnet, &[])[0].validator.tx_id,
        added
    );

    // Ownership moves: the old owner can no longer act, the new one can.
    issue_and_build(
        &chain,
        owner0
            .transfer_subnet_ownership(subnet, single_owner(addr1))
            .unwrap(),
    );
    assert!(matches!(
        owner0.remove_subnet_validator(subnet, primary_node),
        Err(WalletError::MissingKey { .. })
    ));
    issue_and_build(
        &chain,
        owner1
            .remove_subnet_validator(subnet, primary_node)
            .unwrap(),
    );
    assert!(chain.current_validators(subnet, &[]).is_empty());

    // A subnet validator leaves by itself at its end time.
    let node1 = cfg.validator_node_id(1);
    let end = chain.timestamp() + 2 * DAY;
    issue_and_build(
        &chain,
        owner1.add_subnet_validator(subnet, node1, 5, end).unwrap(),
    );
    let h_second = chain.height();
    chain.clock().advance(3 * DAY);
    let blocks = chain.build_until_idle().unwrap();
    assert_eq!(blocks.len(), 1);
    assert_eq!(blocks[0].block.time(), Some(end));
    assert!(chain.current_validators(subnet, &[]).is_empty());
    assert!(
        chain
            .validators_at(&subnet, h_second)
            .unwrap()
            .contains_key(&node1)
    );
    assert!(
        chain
            .validators_at(&subnet, chain.height())
            .unwrap()
            .is_empty()
    );

    // Chain names follow AvalancheGo's rules.
    let err = chain
        .issue_tx(
            owner1
                .create_chain(subnet, "bad-name", Id([3; 32]), vec![])
                .unwrap(),
        )
        .unwrap_err();
    assert_eq!(err.to_string(), "illegal name character");
}

#[test]
fn converted_subnets_are_immutable_and_keep_their_last_validator() {
    let dir = temp_dir("immutable");
    let chain = open_in(dir.path(), config());
    let network_id = chain.network().network_id;
    let wallet = Wallet::with_keys(&chain, vec![chain.config().funded_key(0)]);
    let me = wallet.change_address();
    let subnet = issue_and_build(&chain, wallet.create_subnet(single_owner(me)).unwrap());
    let manager = Id([0xCC; 32]); // a chain the P-Chain does not know: the primary network signs
    let sk: Vec<_> = (0..2)
        .map(|i| derive_bls("test", "imm", i).unwrap())
        .collect();
    let owner = PChainOwner {
        threshold: 1,
        addresses: vec![me],
    };
    let specs: Vec<_> = (0..2)
        .map(|i| L1ValidatorSpec {
            node_id: NodeId([0x30 + i as u8; 20]),
            weight: 10,
            balance: AVAX,
            bls: &sk[i],
            owner: owner.clone(),
        })
        .collect();
    issue_and_build(
        &chain,
        wallet
            .convert_subnet_to_l1(subnet, manager, vec![1], &specs)
            .unwrap(),
    );
    let err = chain
        .issue_tx(
            wallet
                .add_subnet_validator(
                    subnet,
                    chain.config().validator_node_id(0),
                    1,
                    chain.timestamp() + 2 * DAY,
                )
                .unwrap(),
        )
        .unwrap_err();
    assert_eq!(err.to_string(), format!("\"{subnet}\" is immutable"));

    // The manager lives on the C-Chain-like unknown chain: primary network validators sign.
    let cfg = chain.config();
    let primary_keys: Vec<_> = (0..cfg.initial_validators)
        .map(|i| cfg.validator_bls_key(i).unwrap())
        .collect();
    let primary_refs: Vec<_> = primary_keys.iter().collect();
    let remove = |validation_id: Id, nonce| {
        let msg = manager_message(
            network_id,
            manager,
            &[1],
            &L1Message::L1ValidatorWeight(L1ValidatorWeight {
                validation_id,
                nonce,
                weight: 0,
            }),
        );
        sign_warp(&chain, Id::ZERO, msg, &primary_refs).unwrap()
    };
    let v1 = subnet.append(1);
    let balance = chain.l1_validator(&v1).unwrap().balance;
    let tx = wallet.set_l1_validator_weight(&remove(v1, 0)).unwrap();
    let outs = match tx.unsigned() {
        UnsignedTx::SetL1ValidatorWeight(t) => t.base.outputs.len() as u64,
        _ => unreachable!(),
    };
    let id = issue_and_build(&chain, tx);
    assert!(chain.l1_validator(&v1).is_none());
    let refund = chain
        .with_state(|s| s.utxo(&id.prefix(outs)).cloned())
        .unwrap();
    assert!(refund.output.amount() <= balance && refund.output.amount() > balance - 10_000);

    let err = chain
        .issue_tx(
            wallet
                .set_l1_validator_weight(&remove(subnet.append(0), 0))
                .unwrap(),
        )
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "attempting to remove the last L1 validator from a converted subnet"
    );
}
