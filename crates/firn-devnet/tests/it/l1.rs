use crate::common::*;
use firn_core::ids::{Id, NodeId};
use firn_core::pchain::tx::UnsignedTx;
use firn_core::warp::messages::{
    ConversionValidatorData, L1Message, L1ValidatorWeight, PChainOwner, RegisterL1Validator,
    SubnetToL1ConversionData,
};
use firn_devnet::genesis::{derive_bls, single_owner};
use firn_devnet::wallet::{L1ValidatorSpec, Wallet, manager_message, sign_warp};

const MANAGER: &[u8] = &[0xAB; 20];

#[test]
fn subnet_converts_to_an_l1_whose_validators_change_weight_pay_fees_and_leave() {
    let dir = temp_dir("l1");
    let chain = open_in(dir.path(), config());
    let network_id = chain.network().network_id;
    let wallet = Wallet::new(&chain);
    let me = wallet.change_address();
    let price = chain.config().l1_fees.min_price;

    let subnet = issue_and_build(&chain, wallet.create_subnet(single_owner(me)).unwrap());
    let manager_chain = issue_and_build(
        &chain,
        wallet
            .create_chain(subnet, "manager", Id([9; 32]), b"{}".to_vec())
            .unwrap(),
    );
    assert_eq!(chain.validated_by(&manager_chain), Some(subnet));
    assert_eq!(chain.blockchains()[0].name, "manager");

    let sk: Vec<_> = (0..3)
        .map(|i| derive_bls("test", "l1", i).unwrap())
        .collect();
    let nodes: Vec<NodeId> = (0..3).map(|i| NodeId([0x10 + i; 20])).collect();
    let owner = PChainOwner {
        threshold: 1,
        addresses: vec![me],
    };
    let specs = [
        L1ValidatorSpec {
            node_id: nodes[0],
            weight: 100,
            balance: 10 * AVAX,
            bls: &sk[0],
            owner: owner.clone(),
        },
        L1ValidatorSpec {
            node_id: nodes[1],
            weight: 100,
            balance: 100 * price,
            bls: &sk[1],
            owner: owner.clone(),
        },
    ];
    let convert = wallet
        .convert_subnet_to_l1(subnet, manager_chain, MANAGER.to_vec(), &specs)
        .unwrap();
    let conversion_height = chain.height() + 1;
    issue_and_build(&chain, convert);

    // The conversion ID is the one the L1's manager will be told about.
    let expected = SubnetToL1ConversionData {
        subnet_id: subnet,
        manager_chain_id: manager_chain,
        manager_address: MANAGER.to_vec(),
        validators: (0..2)
            .map(|i| ConversionValidatorData {
                node_id: nodes[i],
                bls_public_key: sk[i].public_key().to_bytes(),
                weight: 100,
            })
            .collect(),
    }
    .id();
    let stored = chain.subnets()[0].conversion.clone().unwrap();
    assert_eq!(stored.conversion_id, expected);
    let v0 = subnet.append(0);
    let v1 = subnet.append(1);
    assert_eq!(chain.l1_validator(&v0).unwrap().validator.node_id, nodes[0]);
    let set = chain.validators_at(&subnet, conversion_height).unwrap();
    assert_eq!(set.len(), 2);
    assert_eq!(set[&nodes[1]].weight, 100);

    // A weight change signed by both L1 validators.
    let weight_msg = |nonce, weight| {
        manager_message(
            network_id,
            manager_chain,
            MANAGER,
            &L1Message::L1ValidatorWeight(L1ValidatorWeight {
                validation_id: v0,
                nonce,
                weight,
            }),
        )
    };
    let signed = sign_warp(&chain, subnet, weight_msg(0, 300), &[&sk[0], &sk[1]]).unwrap();
    issue_and_build(&chain, wallet.set_l1_validator_weight(&signed).unwrap());
    let v = chain.l1_validator(&v0).unwrap().validator;
    assert_eq!((v.weight, v.min_nonce), (300, 1));
    assert_eq!(
        chain.validators_at(&subnet, chain.height()).unwrap()[&nodes[0]].weight,
        300
    );
    // Earlier heights still answer with the old weight.
    assert_eq!(
        chain.validators_at(&subnet, conversion_height).unwrap()[&nodes[0]].weight,
        100
    );

    // A stale nonce, a wrong source address and too little signed weight are refused.
    let stale = sign_warp(&chain, subnet, weight_msg(0, 400), &[&sk[0], &sk[1]]).unwrap();
    let err = chain
        .issue_tx(wallet.set_l1_validator_weight(&stale).unwrap())
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "warp message contains stale nonce 0 must be at least 1"
    );
    let wrong_source = manager_message(
        network_id,
        manager_chain,
        &[0xCD; 20],
        &L1Message::L1ValidatorWeight(L1ValidatorWeight {
            validation_id: v0,
            nonce: 5,
            weight: 400,
        }),
    );
    let wrong_source = sign_warp(&chain, subnet, wrong_source, &[&sk[0], &sk[1]]).unwrap();
    let err = chain
        .issue_tx(wallet.set_l1_validator_weight(&wrong_source).unwrap())
        .unwrap_err();
    assert_eq!(err.to_string(), "wrong warp message source address");
    let weak = sign_warp(&chain, subnet, weight_msg(1, 400), &[&sk[1]]).unwrap();
    let err = chain
        .issue_tx(wallet.set_l1_validator_weight(&weak).unwrap())
        .unwrap_err();
    assert!(
        err.to_string().contains("signature weight is insufficient"),
        "{err}"
    );

    // Register a third validator through a RegisterL1Validator message.
    let reg = RegisterL1Validator {
        subnet_id: subnet,
        node_id: nodes[2],
        bls_public_key: sk[2].public_key().to_bytes(),
        expiry: chain.timestamp() + 3600,
        remaining_balance_owner: owner.clone(),
        disable_owner: owner.clone(),
        weight: 50,
    };
    let v2 = reg.validation_id();
    let unsigned = manager_message(
        network_id,
        manager_chain,
        MANAGER,
        &L1Message::RegisterL1Validator(reg),
    );
    let signed_reg = sign_warp(&chain, subnet, unsigned, &[&sk[0], &sk[1]]).unwrap();
    issue_and_build(
        &chain,
        wallet
            .register_l1_validator(AVAX, &sk[2], &signed_reg)
            .unwrap(),
    );
    assert_eq!(chain.l1_validator(&v2).unwrap().validator.weight, 50);
    let err = chain
        .issue_tx(
            wallet
                .register_l1_validator(AVAX, &sk[2], &signed_reg)
                .unwrap(),
        )
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("warp message already issued for validationID {v2}")
    );

    // Increasing a balance moves its end by exactly the amount.
    let end_before = chain
        .l1_validator(&v0)
        .unwrap()
        .validator
        .end_accumulated_fee;
    issue_and_build(
        &chain,
        wallet.increase_l1_validator_balance(v0, 3 * AVAX).unwrap(),
    );
    let end_after = chain
        .l1_validator(&v0)
        .unwrap()
        .validator
        .end_accumulated_fee;
    assert_eq!(end_after - end_before, 3 * AVAX);

    // Disabling refunds the remaining balance to its owner.
    let balance_v2 = chain.l1_validator(&v2).unwrap().balance;
    let disable = wallet.disable_l1_validator(v2).unwrap();
    let outs = match disable.unsigned() {
        UnsignedTx::DisableL1Validator(t) => t.base.outputs.len() as u64,
        _ => unreachable!(),
    };
    let disable_id = issue_and_build(&chain, disable);
    let refund = chain
        .with_state(|s| s.utxo(&disable_id.prefix(outs)).cloned())
        .expect("refund UTXO");
    assert!(refund.output.amount() > 0 && refund.output.amount() <= balance_v2);
    assert_eq!(refund.owners().addresses, vec![me]);
    let disabled = chain.l1_validator(&v2).unwrap();
    assert_eq!(
        (disabled.validator.end_accumulated_fee, disabled.balance),
        (0, 0)
    );
    let set = chain.validators_at(&subnet, chain.height()).unwrap();
    assert_eq!(set[&NodeId::EMPTY].weight, 50, "inactive weight is pooled");
    assert!(!set.contains_key(&nodes[2]));

    // The continuous fee drains v1's small balance; a block lands when it runs out.
    assert!(chain.l1_validator(&v1).unwrap().validator.is_active());
    chain.clock().advance(1_000);
    let blocks = chain.build_until_idle().unwrap();
    assert_eq!(blocks.len(), 1);
    let info = chain.l1_validator(&v1).unwrap();
    assert!(!info.validator.is_active());
    assert_eq!(info.balance, 0);
    let depleted_at = blocks[0].block.time().unwrap();
    assert!(depleted_at < chain.clock().now());
    assert_eq!(
        depleted_at,
        info.validator.start_time + 100,
        "100 seconds at the minimum price"
    );
    let set = chain.validators_at(&subnet, chain.height()).unwrap();
    assert_eq!(set[&NodeId::EMPTY].weight, 150);
    assert!(chain.l1_validator(&v0).unwrap().validator.is_active());

    // Inactive validators keep their weight in the total but cannot sign: v0 alone holds
    // 300 of 450, under the 67% quorum.
    let alone = sign_warp(&chain, subnet, weight_msg(1, 0), &[&sk[0]]).unwrap();
    let err = chain
        .issue_tx(wallet.set_l1_validator_weight(&alone).unwrap())
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("signature weight is insufficient: 300 signed"),
        "{err}"
    );
}
