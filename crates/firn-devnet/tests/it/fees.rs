//! Etna's dynamic fees through the VM: blocks hold at most the gas capacity (the rest of the
//! mempool waits for a later block), the price rises with the excess, and wallets pay it.

use crate::common::*;
use firn_core::ids::ShortId;
use firn_devnet::vm::TxStatus;
use firn_devnet::wallet::Wallet;

#[test]
fn blocks_hold_at_most_the_gas_capacity_and_the_rest_waits() {
    let dir = temp_dir("fees-capacity");
    let mut cfg = config();
    // Room for about three transfers per block.
    cfg.dynamic_fees.max_capacity = 20_000;
    let chain = open_in(dir.path(), cfg.clone());
    let sink = ShortId([0x31; 20]);
    let txs: Vec<_> = (0..10)
        .map(|i| {
            Wallet::with_keys(&chain, vec![cfg.funded_key(i)])
                .send(sink, AVAX)
                .unwrap()
        })
        .collect();
    let gas: Vec<u64> = txs
        .iter()
        .map(|t| chain.fee_of(t.unsigned()).unwrap())
        .collect();
    let ids: Vec<_> = txs
        .into_iter()
        .map(|t| chain.issue_tx(t).unwrap())
        .collect();

    chain.clock().advance(1);
    let first = chain.build_block().unwrap().expect("a block");
    let included = first.block.txs().count();
    assert!((1..10).contains(&included), "{included} txs");
    let used: u64 = gas[..included].iter().sum();
    assert!(used <= 20_000);
    assert!(used + gas[included] > 20_000, "the next tx would not fit");
    assert_eq!(chain.mempool_len(), 10 - included);
    assert_eq!(chain.fee_state().0.capacity, 20_000 - used);
    assert_eq!(chain.tx_status(&ids[included]), TxStatus::Processing);

    // Capacity refills with time; the waiting txs land in the next blocks, in order.
    for _ in 0..10 {
        chain.clock().advance(1);
        chain.build_block().unwrap();
    }
    assert_eq!(chain.mempool_len(), 0);
    for id in &ids {
        assert_eq!(chain.tx_status(id), TxStatus::Committed);
    }
    assert_eq!(chain.burned_fees(), gas.iter().sum::<u64>());
}

#[test]
fn the_price_rises_with_the_excess_and_wallets_pay_it() {
    let dir = temp_dir("fees-price");
    let mut cfg = config();
    // The price grows e-fold every 50 000 gas of excess.
    cfg.dynamic_fees.excess_conversion_constant = 50_000;
    let chain = open_in(dir.path(), cfg.clone());
    let sink = ShortId([0x32; 20]);
    assert_eq!(chain.fee_state().1, 1);
    for i in 0..20 {
        let tx = Wallet::with_keys(&chain, vec![cfg.funded_key(i)])
            .send(sink, AVAX)
            .unwrap();
        chain.issue_tx(tx).unwrap();
    }
    chain.clock().advance(1);
    chain.build_until_idle().unwrap();
    let (state, price) = chain.fee_state();
    assert!(state.excess > 50_000, "{state:?}");
    assert_eq!(price, cfg.dynamic_fees.price(state.excess));
    assert!(price > 1, "price {price}");

    // The wallet pays gas × the current price; the block a second later has a lower price
    // (the excess drains), and what was paid above it is burnt too, as on AvalancheGo.
    let wallet = Wallet::with_keys(&chain, vec![cfg.funded_key(0)]);
    let me = wallet.change_address();
    let tx = wallet.send(sink, AVAX).unwrap();
    let paid = chain.fee_of(tx.unsigned()).unwrap();
    let gas = paid / price;
    assert_eq!(paid, gas * price);
    let before = (chain.balance(&[me]).total, chain.burned_fees());
    issue_and_build(&chain, tx);
    let after = (chain.balance(&[me]).total, chain.burned_fees());
    assert_eq!(before.0 - after.0, AVAX + paid);
    assert_eq!(after.1 - before.1, paid);
}

#[test]
fn a_stored_block_over_the_gas_capacity_is_rejected_on_replay() {
    use firn_core::pchain::block::{Block, BlockKind};
    use firn_devnet::error::DevnetError;
    use firn_devnet::store::{AcceptedBlock, BlockStore};

    let dir = temp_dir("fees-replay");
    let mut cfg = config();
    cfg.dynamic_fees.max_capacity = 8_000;
    let (txs, gas, genesis_id, time) = {
        let chain = open_in(dir.path(), cfg.clone());
        let txs: Vec<_> = (0..2)
            .map(|i| {
                Wallet::with_keys(&chain, vec![cfg.funded_key(i)])
                    .send(ShortId([0x33; 20]), AVAX)
                    .unwrap()
            })
            .collect();
        let gas: u64 = txs
            .iter()
            .map(|t| chain.fee_of(t.unsigned()).unwrap())
            .sum();
        let tip = chain.last_accepted().unwrap().block.id();
        (txs, gas, tip, chain.timestamp())
    };
    assert!(gas > 8_000, "two transfers need more than the capacity");
    // Append, by hand, a block holding both: more gas than the chain has.
    {
        let (mut store, blocks) = BlockStore::open(dir.path()).unwrap();
        let block = Block::new(
            genesis_id,
            1,
            BlockKind::BanffStandard {
                time: time + 1,
                txs,
            },
        );
        store
            .append(&AcceptedBlock {
                block,
                proposer: blocks[0].proposer,
            })
            .unwrap();
    }
    let err = firn_devnet::PChain::open(cfg.clone(), dir.path(), firn_devnet::Clock::frozen(time))
        .unwrap_err();
    match err {
        DevnetError::InvalidBlock { height, source } => {
            assert_eq!(height, 1);
            assert_eq!(
                source.to_string(),
                format!("insufficient capacity: capacity (8000) < gas ({gas})")
            );
        }
        other => panic!("unexpected error {other}"),
    }
}
