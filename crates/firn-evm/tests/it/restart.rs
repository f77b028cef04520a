//! A chain on disk comes back where it stopped (its recent state history too), and a torn last
//! record is dropped.

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
    // The replay rebuilt the recent state history.
    assert_eq!(chain.balance_at(&to, 1), Some(U256::from(10)));
    assert_eq!(chain.balance_at(&to, 0), Some(U256::ZERO));
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
        atomic: None,
        warp: None,
    })
    .unwrap_err();
    assert!(
        err.to_string().contains("block file corrupt at height 1"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// A subnet-EVM chain with Warp and the native minter: after a restart, blocks, receipts (with
/// their logs), balances, allow-list roles and the Warp messages kept for signing are back.
#[test]
fn reopening_restores_receipts_precompile_state_and_warp_messages() {
    let dir = temp_dir("restart-subnet");
    let clock = TestClock::at(GENESIS_TIME + 5);
    let genesis = || subnet_genesis(&["contractNativeMinterConfig"]);
    let minter = {
        let mut a = [0u8; 20];
        a[0] = 2;
        a[19] = 1;
        Address::from(a)
    };
    let warp = {
        let mut a = [0u8; 20];
        a[0] = 2;
        a[19] = 5;
        Address::from(a)
    };
    let to = Address::repeat_byte(0x66);
    let mut mint = alloy_primitives::keccak256("mintNativeCoin(address,uint256)")[..4].to_vec();
    mint.extend(word_addr(to));
    mint.extend(word_u(ether(3)));
    // sendWarpMessage(bytes) with a 5-byte payload.
    let mut send = alloy_primitives::keccak256("sendWarpMessage(bytes)")[..4].to_vec();
    send.extend(word_u(U256::from(32)));
    send.extend(word_u(U256::from(5)));
    let mut payload = b"hello".to_vec();
    payload.resize(32, 0);
    send.extend(payload);

    let (blocks, message_id, message) = {
        let chain = open(genesis(), Some(dir.clone()), &clock);
        let k = key(0);
        chain
            .submit_raw_tx(&tx1559(
                &k,
                0,
                Some(minter),
                U256::ZERO,
                mint.into(),
                200_000,
            ))
            .unwrap();
        chain.build_block().unwrap().unwrap();
        clock.advance(2);
        chain
            .submit_raw_tx(&tx1559(&k, 1, Some(warp), U256::ZERO, send.into(), 200_000))
            .unwrap();
        chain
            .submit_raw_tx(&transfer(&key(1), 0, to, U256::from(7)))
            .unwrap();
        let b = chain.build_block().unwrap().unwrap();
        assert_eq!(b.txs.len(), 2);
        let log = &b.receipts[0].logs[0];
        let id = log.data.topics()[2];
        let message = chain.warp_message(&id).unwrap();
        let blocks: Vec<_> = (0..=chain.height())
            .map(|n| chain.block_by_number(n).unwrap())
            .collect();
        (blocks, id, message)
    };
    let chain = open(genesis(), Some(dir.clone()), &clock);
    assert_eq!(chain.height(), 2);
    for old in &blocks {
        let new = chain.block_by_number(old.header.number).unwrap();
        assert_eq!(new.hash, old.hash);
        assert_eq!(new.header, old.header);
        assert_eq!(new.receipts, old.receipts);
        assert_eq!(new.traces, old.traces);
        for tx in &old.txs {
            let (b, i) = chain.mined(&tx.hash).unwrap();
            assert_eq!(
                (b.header.number, &b.txs[i].raw),
                (old.header.number, &tx.raw)
            );
        }
    }
    assert_eq!(chain.balance(&to), ether(3) + U256::from(7));
    assert_eq!(chain.warp_message(&message_id), Some(message));
    let _ = std::fs::remove_dir_all(dir);
}
