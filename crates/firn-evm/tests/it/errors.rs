//! Refused transactions get go-ethereum's messages.

use alloy_primitives::{Address, Bytes, U256};
use firn_evm::TxError;

use crate::common::*;

fn refused(chain: &firn_evm::EvmChain, raw: &[u8]) -> String {
    chain.submit_raw_tx(raw).unwrap_err().to_string()
}

#[test]
fn pool_errors_read_like_geth() {
    let (chain, _clock) = chain();
    let k = key(0);
    let to = Address::repeat_byte(3);
    let raw = transfer(&k, 0, to, U256::from(1));
    chain.submit_raw_tx(&raw).unwrap();
    assert_eq!(refused(&chain, &raw), "already known");
    chain.build_block().unwrap().unwrap();
    assert_eq!(refused(&chain, &raw), "already known");
    assert_eq!(
        refused(&chain, &transfer(&k, 0, to, U256::from(2))),
        "nonce too low: next nonce 1, tx nonce 0"
    );
    let msg = refused(&chain, &transfer(&k, 1, to, ether(10_000_000)));
    assert!(
        msg.starts_with("insufficient funds for gas * price + value: balance "),
        "{msg}"
    );
    let msg = refused(
        &chain,
        &tx1559(&k, 1, Some(to), U256::ZERO, Bytes::new(), 20_000),
    );
    assert_eq!(
        msg,
        "intrinsic gas too low: gas 20000, minimum needed 21000"
    );
    let msg = refused(&chain, &legacy(&k, 1, to, U256::ZERO, 1));
    assert_eq!(
        msg,
        "invalid sender: invalid chain id for signer: have 1 want 43113"
    );
    let broke = key(9);
    let msg = refused(&chain, &transfer(&broke, 0, to, U256::ZERO));
    assert!(
        msg.starts_with("insufficient funds for gas * price + value"),
        "{msg}"
    );
}

#[test]
fn fee_cap_below_the_pool_minimum_is_refused() {
    let (chain, _clock) = chain();
    let k = key(0);
    let free = priced_tx(
        &k,
        0,
        Some(Address::ZERO),
        U256::ZERO,
        Bytes::new(),
        21_000,
        (0, 0),
    );
    assert_eq!(
        refused(&chain, &free),
        format!(
            "transaction underpriced: address {} have gas fee cap (0) < pool minimum fee cap (1)",
            k.address()
        )
    );
}

#[test]
fn garbage_and_unsupported_types_are_refused() {
    let (chain, _clock) = chain();
    assert!(matches!(
        chain.submit_raw_tx(&[0x01]),
        Err(TxError::Decode(_))
    ));
    assert_eq!(
        chain.submit_raw_tx(&[0x03, 0xc0]).unwrap_err().to_string(),
        "transaction type not supported"
    );
    assert!(chain.submit_raw_tx(&[0xff; 40]).is_err());
}

#[test]
fn a_reverting_call_reports_its_reason() {
    let (chain, _clock) = chain();
    let k = key(0);
    let init = token_init_code("Firn", "FIRN", ether(1000));
    chain
        .submit_raw_tx(&tx1559(&k, 0, None, U256::ZERO, init, 3_000_000))
        .unwrap();
    let block = chain.build_block().unwrap().unwrap();
    let token = block.receipts[0].contract_address.unwrap();
    // Transfer more than the caller has: the token reverts.
    let req = firn_evm::CallRequest {
        from: Some(key(3).address()),
        to: Some(token),
        input: Some(call_addr_u256(TRANSFER, k.address(), U256::from(1))),
        ..Default::default()
    };
    match chain.call(&req).unwrap_err() {
        TxError::Reverted { message, .. } => {
            assert!(message.starts_with("execution reverted"), "{message}")
        }
        other => panic!("expected a revert, got {other:?}"),
    }
    assert!(matches!(
        chain.estimate_gas(&req),
        Err(TxError::Reverted { .. })
    ));
}

/// Init code that loops forever: `JUMPDEST PUSH1 0 JUMP`.
const LOOP_FOREVER: [u8; 4] = [0x5b, 0x60, 0x00, 0x56];

#[test]
fn a_call_that_runs_past_its_timeout_is_aborted_and_frees_the_chain() {
    let (chain, _clock) = chain();
    chain.set_call_limits(firn_evm::CallLimits {
        gas_cap: u64::MAX,
        timeout: std::time::Duration::from_millis(100),
    });
    let req = firn_evm::CallRequest {
        from: Some(key(0).address()),
        input: Some(Bytes::from(LOOP_FOREVER.to_vec())),
        gas: Some(u64::MAX / 2),
        ..Default::default()
    };
    let started = std::time::Instant::now();
    let err = chain.call(&req).unwrap_err();
    assert_eq!(err.to_string(), "execution aborted (timeout = 100ms)");
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    // The chain still builds once the call gave up its lock.
    chain
        .submit_raw_tx(&transfer(&key(1), 0, key(2).address(), ether(1)))
        .unwrap();
    assert!(chain.build_block().unwrap().is_some());
}

#[test]
fn a_call_gets_no_more_gas_than_the_cap() {
    let (chain, _clock) = chain();
    chain.set_call_limits(firn_evm::CallLimits {
        gas_cap: 100_000,
        timeout: std::time::Duration::from_secs(5),
    });
    let req = firn_evm::CallRequest {
        from: Some(key(0).address()),
        input: Some(Bytes::from(LOOP_FOREVER.to_vec())),
        gas: Some(u64::MAX),
        ..Default::default()
    };
    // The loop runs out of the capped gas rather than running for ever.
    assert!(matches!(chain.call(&req), Err(TxError::Halted(m)) if m == "out of gas"));
    assert!(matches!(
        chain.estimate_gas(&req),
        Err(TxError::GasExceedsAllowance(100_000))
    ));
}
