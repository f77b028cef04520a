//! The dynamic base fee follows the chain's feeConfig.

use alloy_primitives::{Address, U256};
use firn_evm::EvmGenesis;

use crate::common::*;

fn genesis(target_gas: u64) -> EvmGenesis {
    let json = format!(
        r#"{{"config":{{"chainId":{CHAIN_ID},"feeConfig":{{"gasLimit":8000000,"minBaseFee":25000000000,"targetGas":{target_gas},
        "baseFeeChangeDenominator":36,"minBlockGasCost":0,"maxBlockGasCost":1000000,"targetBlockRate":2,"blockGasCostStep":200000}}}},
        "alloc":{{"{}":{{"balance":"0x{:x}"}}}},"timestamp":"0x{:x}","gasLimit":"0x7A1200","difficulty":"0x0"}}"#,
        key(0).address(),
        ether(1_000_000),
        GENESIS_TIME
    );
    EvmGenesis::from_json(json.as_bytes()).unwrap()
}

#[test]
fn base_fee_rises_while_blocks_use_more_than_the_target_then_falls() {
    let clock = TestClock::at(GENESIS_TIME + 1);
    // A tiny target: every transfer is over it.
    let chain = open(genesis(21_000), None, &clock);
    let k = key(0);
    let mut fees = Vec::new();
    for nonce in 0..4 {
        for j in 0..3 {
            let raw = transfer(&k, nonce * 3 + j, Address::repeat_byte(5), U256::from(1));
            chain.submit_raw_tx(&raw).unwrap();
        }
        let b = chain.build_block().unwrap().unwrap();
        fees.push(b.header.base_fee.unwrap());
        clock.advance(1);
    }
    // Block 1 (parent is genesis) is at the minimum; then each block's window is over target.
    assert_eq!(fees[0], 25_000_000_000);
    assert!(fees.windows(2).skip(1).all(|w| w[1] > w[0]), "{fees:?}");
    assert!(chain.next_base_fee() > fees[3]);
    // A quiet spell lowers it by one step per 10-second window elapsed (subnet-evm's rule):
    // 100 s is 10 steps of 1/36, not yet the floor; 1000 s reaches the floor.
    let before = chain.next_base_fee();
    clock.advance(100);
    let after = chain.next_base_fee();
    assert!(after < before && after > 25_000_000_000, "{before} {after}");
    clock.advance(900);
    assert_eq!(chain.next_base_fee(), 25_000_000_000);
    // Blocks record the 10-second window in their extra data.
    assert_eq!(chain.head().header.extra_data.len(), 80);
}

#[test]
fn fee_config_and_precompiles_come_from_the_genesis() {
    let g = genesis(15_000_000);
    assert_eq!(g.config.fee_config.target_gas, 15_000_000);
    let clock = TestClock::at(GENESIS_TIME);
    let chain = open(g, None, &clock);
    assert_eq!(chain.head().header.base_fee, Some(25_000_000_000));
    assert_eq!(chain.head().header.gas_limit, 8_000_000);
}

#[test]
fn tx_allow_list_refuses_senders_it_does_not_name() {
    let admin = key(0).address();
    let json = format!(
        r#"{{"config":{{"chainId":{CHAIN_ID},"txAllowListConfig":{{"blockTimestamp":0,"adminAddresses":["{admin}"]}}}},
        "alloc":{{"{admin}":{{"balance":"0x{:x}"}},"{}":{{"balance":"0x{:x}"}}}},"timestamp":"0x0","gasLimit":"0x7A1200"}}"#,
        ether(10),
        key(1).address(),
        ether(10),
    );
    let clock = TestClock::at(GENESIS_TIME);
    let chain = open(
        EvmGenesis::from_json(json.as_bytes()).unwrap(),
        None,
        &clock,
    );
    let allow_list: Address = "0x0200000000000000000000000000000000000002"
        .parse()
        .unwrap();
    assert_eq!(chain.code(&allow_list).as_ref(), &[1]);
    chain
        .submit_raw_tx(&transfer(&key(0), 0, admin, U256::ZERO))
        .unwrap();
    let err = chain
        .submit_raw_tx(&transfer(&key(1), 0, admin, U256::ZERO))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "cannot issue transaction from non-allow listed address: {}",
            key(1).address()
        )
    );
}
