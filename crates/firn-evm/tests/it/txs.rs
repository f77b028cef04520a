//! The three tx types are pooled, mined, and leave receipts; blocks chain by hash.

use alloy_primitives::{Address, U256};
use firn_evm::{BLACKHOLE, EvmChain};

use crate::common::*;

fn mine(chain: &EvmChain) -> std::sync::Arc<firn_evm::Block> {
    chain.build_block().unwrap().expect("a block")
}

#[test]
fn legacy_2930_and_1559_transfers_are_mined_with_receipts() {
    let (chain, _clock) = chain();
    let to = Address::repeat_byte(0x42);
    let k = key(0);
    let h1 = chain
        .submit_raw_tx(&legacy(&k, 0, to, U256::from(1), CHAIN_ID))
        .unwrap();
    let h2 = chain
        .submit_raw_tx(&tx2930(&k, 1, to, U256::from(2)))
        .unwrap();
    let h3 = chain
        .submit_raw_tx(&transfer(&k, 2, to, U256::from(3)))
        .unwrap();
    assert_eq!(chain.pool_len(), 3);
    let block = mine(&chain);
    assert_eq!(block.header.number, 1);
    assert_eq!(
        block.txs.iter().map(|t| t.hash).collect::<Vec<_>>(),
        vec![h1, h2, h3]
    );
    assert_eq!(chain.balance(&to), U256::from(6));
    assert_eq!(chain.nonce(&k.address()), 3);
    assert_eq!(chain.pool_len(), 0);
    let types: Vec<u8> = block.receipts.iter().map(|r| r.tx_type).collect();
    assert_eq!(types, vec![0, 1, 2]);
    assert!(
        block
            .receipts
            .iter()
            .all(|r| r.success && r.gas_used == 21_000)
    );
    assert_eq!(block.receipts[2].cumulative_gas_used, 63_000);
    assert_eq!(block.header.gas_used, 63_000);
    let (found, i) = chain.mined(&h2).unwrap();
    assert_eq!((found.hash, i), (block.hash, 1));
    assert_eq!(
        block.header.parent_hash,
        chain.block_by_number(0).unwrap().hash
    );
    assert_eq!(chain.block_by_hash(&block.hash).unwrap().header.number, 1);

    // The block's RLP: as long as its size says, its header hashes to its hash, and its body
    // holds the three transactions as alloy decodes them.
    let rlp = block.rlp();
    assert_eq!(rlp.len() as u64, block.size);
    assert_eq!(firn_evm::Block::hash_of_rlp(&rlp).unwrap(), block.hash);
    let mut rest = &rlp[..];
    alloy_rlp::Header::decode(&mut rest).unwrap();
    let header = alloy_rlp::Header::decode(&mut rest).unwrap();
    rest = &rest[header.payload_length..];
    let txs: Vec<alloy_consensus::TxEnvelope> = alloy_rlp::Decodable::decode(&mut rest).unwrap();
    let envelopes: Vec<_> = block.txs.iter().map(|t| t.envelope.clone()).collect();
    assert_eq!(txs, envelopes);
    assert_eq!(rest, [alloy_rlp::EMPTY_LIST_CODE], "no uncles");
    for bad in [
        &rlp[..rlp.len() / 3],
        &[0xc1, 0x80][..],
        &[0xf9, 0xff, 0xff, 0xc0][..],
        &[],
    ] {
        assert!(
            firn_evm::Block::hash_of_rlp(bad).is_err(),
            "{}",
            hex::encode(bad)
        );
    }
}

#[test]
fn the_whole_fee_goes_to_the_blackhole_coinbase() {
    let (chain, _clock) = chain();
    let k = key(1);
    let before = chain.balance(&k.address());
    chain
        .submit_raw_tx(&transfer(&k, 0, Address::repeat_byte(9), U256::ZERO))
        .unwrap();
    let block = mine(&chain);
    let price = block.receipts[0].effective_gas_price;
    let fee = U256::from(price) * U256::from(21_000u64);
    assert_eq!(chain.balance(&k.address()), before - fee);
    assert_eq!(chain.balance(&BLACKHOLE), fee);
    assert_eq!(block.header.beneficiary, BLACKHOLE);
    // 1559: base fee plus the 1 gwei tip.
    assert_eq!(price, block.header.base_fee.unwrap() as u128 + GWEI);
}

#[test]
fn nonces_wait_for_their_gap_to_fill() {
    let (chain, _clock) = chain();
    let k = key(2);
    let to = Address::repeat_byte(7);
    chain
        .submit_raw_tx(&transfer(&k, 1, to, U256::from(1)))
        .unwrap();
    assert!(chain.build_block().unwrap().is_none());
    assert_eq!(chain.pending_nonce(&k.address()), 0);
    chain
        .submit_raw_tx(&transfer(&k, 0, to, U256::from(1)))
        .unwrap();
    assert_eq!(chain.pending_nonce(&k.address()), 2);
    let block = mine(&chain);
    assert_eq!(block.txs.len(), 2);
    assert_eq!(chain.nonce(&k.address()), 2);
}

#[test]
fn state_root_changes_with_state_and_blocks_hash_their_header() {
    let (chain, _clock) = chain();
    let genesis = chain.head();
    chain
        .submit_raw_tx(&transfer(
            &key(0),
            0,
            Address::repeat_byte(1),
            U256::from(5),
        ))
        .unwrap();
    let b = mine(&chain);
    assert_ne!(b.header.state_root, genesis.header.state_root);
    assert_eq!(b.hash, b.header.hash());
    assert_ne!(b.header.transactions_root, alloy_trie::EMPTY_ROOT_HASH);
    assert_ne!(b.header.receipts_root, alloy_trie::EMPTY_ROOT_HASH);
}
