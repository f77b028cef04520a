//! A chain on disk comes back where it stopped, and a torn last record is dropped.

use std::io::Write;

use alloy_primitives::{Address, U256};

use crate::common::*;

#[test]
fn reopening_replays_the_block_file_and_continues() {
    let dir = temp_dir("restart");
    let clock = TestClock::at(GENESIS_TIME + 5);
    let to = Address::repeat_byte(0x77);
    let (head_hash, root) = {
        let chain = open(c_genesis(), Some(dir.clone()), &clock);
        for nonce in 0..3 {
            chain
                .submit_raw_tx(&transfer(&key(0), nonce, to, U256::from(10)))
                .unwrap();
            chain.build_block().unwrap().unwrap();
            clock.advance(3);
        }
        let init = token_init_code("T", "T", ether(1));
        chain
            .submit_raw_tx(&tx1559(&key(1), 0, None, U256::ZERO, init, 3_000_000))
            .unwrap();
        chain.build_block().unwrap().unwrap();
        let head = chain.head();
        (head.hash, head.header.state_root)
    };
    let chain = open(c_genesis(), Some(dir.clone()), &clock);
    assert_eq!(chain.height(), 4);
    assert_eq!(chain.head().hash, head_hash);
    assert_eq!(chain.head().header.state_root, root);
    assert_eq!(chain.balance(&to), U256::from(30));
    assert_eq!(chain.nonce(&key(0).address()), 3);
    chain
        .submit_raw_tx(&transfer(&key(0), 3, to, U256::from(10)))
        .unwrap();
    let b = chain.build_block().unwrap().unwrap();
    assert_eq!((b.header.number, b.header.parent_hash), (5, head_hash));
    drop(chain);

    // A crash mid-append leaves half a record: it is dropped on open.
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(dir.join("blocks.dat"))
        .unwrap();
    f.write_all(&[0, 0, 1, 0, 9, 9]).unwrap();
    drop(f);
    let chain = open(c_genesis(), Some(dir.clone()), &clock);
    assert_eq!(chain.height(), 5);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_different_genesis_does_not_replay() {
    let dir = temp_dir("genesis-mismatch");
    let clock = TestClock::at(GENESIS_TIME + 5);
    {
        let chain = open(c_genesis(), Some(dir.clone()), &clock);
        chain
            .submit_raw_tx(&transfer(&key(0), 0, Address::ZERO, U256::from(1)))
            .unwrap();
        chain.build_block().unwrap().unwrap();
    }
    let other =
        firn_evm::EvmGenesis::c_chain(CHAIN_ID, GENESIS_TIME + 1, &[(key(0).address(), ether(5))]);
    let err = firn_evm::EvmChain::open(firn_evm::EvmChainConfig {
        genesis: other,
        blockchain_id: Default::default(),
        network_id: 5,
        data_dir: Some(dir.clone()),
        now: clock.source(),
    })
    .unwrap_err();
    assert!(
        err.to_string().contains("block file corrupt at height 1"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(dir);
}
