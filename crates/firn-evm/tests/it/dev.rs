//! The dev loop on the chain: blocks mined on demand (empty, or carrying balance, nonce, code
//! and storage changes), impersonated senders, the dev clock; all of it replayed on reopen and
//! seen by re-runs.

use alloy_consensus::{TxEip1559, TypedTransaction};
use alloy_primitives::{Address, Bytes, TxKind, U256, hex};
use firn_evm::{CallRequest, DevChange, impersonated};

use crate::common::*;

/// Runtime code that returns 42.
const RETURNS_42: [u8; 10] = hex!("602a60005260206000f3");

fn from_whale(nonce: u64, to: Address, value: U256) -> firn_evm::SignedTx {
    let tx = TxEip1559 {
        chain_id: CHAIN_ID,
        nonce,
        gas_limit: 21_000,
        max_fee_per_gas: 1_000_000_000_000,
        max_priority_fee_per_gas: 1,
        to: TxKind::Call(to),
        value,
        access_list: Default::default(),
        input: Bytes::new(),
    };
    impersonated(TypedTransaction::Eip1559(tx), WHALE).unwrap()
}

const WHALE: Address = Address::repeat_byte(0xaa);

#[test]
fn mined_changes_and_impersonated_txs_replay_after_a_restart() {
    let dir = temp_dir("dev-loop");
    let clock = TestClock::at(GENESIS_TIME + 5);
    let contract = Address::repeat_byte(0xcc);
    let to = Address::repeat_byte(0x77);
    let (head, impersonated_hash) = {
        let chain = open(c_genesis(), Some(dir.clone()), &clock);
        let b1 = chain
            .mine(
                vec![
                    DevChange::Balance(WHALE, ether(5)),
                    DevChange::Nonce(WHALE, 7),
                    DevChange::Code(contract, Bytes::from_static(&RETURNS_42)),
                    DevChange::Storage(contract, U256::from(1), U256::from(99)),
                ],
                None,
            )
            .unwrap();
        assert_eq!(b1.header.number, 1);
        assert!(b1.txs.is_empty(), "an empty block carries the changes");
        assert_eq!(chain.balance(&WHALE), ether(5));
        assert_eq!(chain.nonce(&WHALE), 7);
        assert_eq!(chain.storage(&contract, U256::from(1)), U256::from(99));
        assert_eq!(chain.balance_at(&WHALE, 0), Some(U256::ZERO));
        let out = chain
            .call(&CallRequest {
                to: Some(contract),
                ..Default::default()
            })
            .unwrap();
        assert_eq!(U256::from_be_slice(&out), U256::from(42));

        // A tx WHALE never signed, from its set nonce.
        let tx = from_whale(7, to, ether(1));
        let hash = chain.submit(tx).unwrap();
        let b2 = chain.build_block().unwrap().unwrap();
        assert_eq!(b2.txs[0].sender, WHALE);
        assert!(b2.receipts[0].success);
        assert_eq!(chain.balance(&to), ether(1));

        // A block with both: a re-run applies the changes before the txs.
        chain.submit(from_whale(8, to, ether(1))).unwrap();
        let b3 = chain
            .mine(
                vec![DevChange::Balance(
                    Address::repeat_byte(0x55),
                    U256::from(3),
                )],
                None,
            )
            .unwrap();
        assert_eq!(b3.txs.len(), 1);
        let roots = chain.intermediate_roots(3).unwrap();
        assert_eq!(roots.last(), Some(&b3.header.state_root));
        (b3, hash)
    };

    let chain = open(c_genesis(), Some(dir.clone()), &clock);
    assert_eq!(chain.height(), 3);
    assert_eq!(chain.head().hash, head.hash);
    assert_eq!(chain.head().header.state_root, head.header.state_root);
    assert_eq!(chain.code(&contract), Bytes::from_static(&RETURNS_42));
    assert_eq!(chain.balance(&Address::repeat_byte(0x55)), U256::from(3));
    assert_eq!(chain.nonce(&WHALE), 9);
    let b2 = chain.block_by_number(2).unwrap();
    assert_eq!(b2.txs[0].hash, impersonated_hash);
    assert_eq!(b2.txs[0].sender, WHALE);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn the_dev_clock_moves_blocks_forward_never_back() {
    let clock = TestClock::at(GENESIS_TIME + 5);
    let chain = open(c_genesis(), None, &clock);
    let b1 = chain.mine(Vec::new(), None).unwrap();
    assert_eq!(b1.header.timestamp, GENESIS_TIME + 5);

    assert_eq!(chain.increase_time(100), 100);
    assert_eq!(chain.increase_time(20), 120);
    let b2 = chain.mine(Vec::new(), None).unwrap();
    assert_eq!(b2.header.timestamp, GENESIS_TIME + 125);

    let pinned = GENESIS_TIME + 1_000;
    chain.set_next_timestamp(pinned).unwrap();
    chain
        .submit_raw_tx(&transfer(&key(0), 0, Address::ZERO, U256::from(1)))
        .unwrap();
    let b3 = chain.build_block().unwrap().unwrap();
    assert_eq!(b3.header.timestamp, pinned, "the pinned time is used once");
    let b4 = chain.mine(Vec::new(), None).unwrap();
    assert_eq!(
        b4.header.timestamp, pinned,
        "then the clock's, never before the head's"
    );

    let early = GENESIS_TIME + 10;
    let text = format!("Timestamp error: {early} is lower than previous block's timestamp");
    assert_eq!(
        chain.set_next_timestamp(early).unwrap_err().to_string(),
        text
    );
    assert_eq!(
        chain.mine(Vec::new(), Some(early)).unwrap_err().to_string(),
        text
    );
    let b5 = chain.mine(Vec::new(), Some(pinned + 7)).unwrap();
    assert_eq!(b5.header.timestamp, pinned + 7);

    let too_big = Bytes::from(vec![0u8; firn_evm::dev::MAX_CODE + 1]);
    assert!(
        chain
            .mine(vec![DevChange::Code(Address::ZERO, too_big)], None)
            .is_err()
    );
    assert_eq!(chain.height(), 5);
}
