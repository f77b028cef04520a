//! The repo's ERC-20 deployed and used: receipts, logs, blooms, log filters, calls, estimates.

use alloy_primitives::{Address, B256, Bloom, U256, keccak256};
use firn_evm::LogFilter;

use crate::common::*;

#[test]
fn erc20_deploy_transfer_logs_and_balances() {
    let (chain, _clock) = chain();
    let owner = key(0);
    let alice = Address::repeat_byte(0xa1);
    let init = token_init_code("Firn Token", "FIRN", ether(1_000));
    let deploy = firn_evm::CallRequest {
        from: Some(owner.address()),
        input: Some(init.clone()),
        ..Default::default()
    };
    let estimate = chain.estimate_gas(&deploy).unwrap();
    chain
        .submit_raw_tx(&tx1559(&owner, 0, None, U256::ZERO, init, estimate))
        .unwrap();
    let b1 = chain.build_block().unwrap().unwrap();
    let r = &b1.receipts[0];
    assert!(r.success, "deployment with the estimated gas must succeed");
    let token = r.contract_address.unwrap();
    assert!(!chain.code(&token).is_empty());

    let data = call_addr_u256(TRANSFER, alice, ether(5));
    let req = firn_evm::CallRequest {
        from: Some(owner.address()),
        to: Some(token),
        input: Some(data.clone()),
        ..Default::default()
    };
    let gas = chain.estimate_gas(&req).unwrap();
    assert!(gas > 21_000 && gas < 100_000, "{gas}");
    chain
        .submit_raw_tx(&tx1559(&owner, 1, Some(token), U256::ZERO, data, gas))
        .unwrap();
    let b2 = chain.build_block().unwrap().unwrap();
    let r = &b2.receipts[0];
    assert!(r.success);
    assert_eq!(r.logs.len(), 1);
    let transfer_topic = keccak256("Transfer(address,address,uint256)");
    let log = &r.logs[0];
    assert_eq!(log.address, token);
    assert_eq!(log.data.topics()[0], transfer_topic);
    assert_eq!(log.data.topics()[2], B256::from(word_addr(alice)));
    assert_eq!(U256::from_be_slice(&log.data.data), ether(5));
    assert!(
        r.bloom
            .contains_input(alloy_primitives::BloomInput::Raw(token.as_slice()))
    );
    assert_ne!(b2.header.logs_bloom, Bloom::ZERO);

    let out = chain.call(&balance_of_call(token, alice)).unwrap();
    assert_eq!(U256::from_be_slice(&out), ether(5));
    let out = chain
        .call(&balance_of_call(token, owner.address()))
        .unwrap();
    assert_eq!(U256::from_be_slice(&out), ether(995));

    // Filters: by address and topic, by a topic that does not match, by range.
    let all = LogFilter {
        from: 0,
        to: 10,
        ..Default::default()
    };
    // The mint in the constructor logs a Transfer too.
    assert_eq!(chain.logs(&all).len(), 2);
    let to_alice = LogFilter {
        from: 0,
        to: 10,
        addresses: vec![token],
        topics: vec![
            Some(vec![transfer_topic]),
            None,
            Some(vec![B256::from(word_addr(alice))]),
        ],
    };
    let found = chain.logs(&to_alice);
    assert_eq!(found.len(), 1);
    assert_eq!(
        (found[0].block_number, found[0].tx_index, found[0].log_index),
        (2, 0, 0)
    );
    let other = LogFilter {
        addresses: vec![Address::repeat_byte(1)],
        ..to_alice.clone()
    };
    assert!(chain.logs(&other).is_empty());
    let early = LogFilter {
        from: 0,
        to: 1,
        ..to_alice
    };
    assert!(chain.logs(&early).is_empty());
}
