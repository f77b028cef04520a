//! The C-Chain prices and sizes blocks with ACP-176; the pool keeps what cannot run yet.

use alloy_primitives::{Address, Bytes, U256};
use firn_evm::EvmGenesis;
use firn_evm::fee::{Acp176State, FeeConfig, FeeRules};

use crate::common::*;

/// Creation code that loops until its gas runs out, so a tx uses exactly its gas limit.
const BURN: [u8; 4] = [0x5b, 0x60, 0x00, 0x56];
const BURN_GAS: u64 = 4_000_000;

/// The C-Chain genesis at ACP-176's lowest target: 1M gas/s, 10M of capacity.
fn low_target_genesis() -> EvmGenesis {
    let mut g = c_genesis();
    g.config.fee_rules = FeeRules::acp176(1_000_000);
    g
}

fn burn(k: u8) -> Bytes {
    tx1559(
        &key(k),
        0,
        None,
        U256::ZERO,
        Bytes::from(BURN.to_vec()),
        BURN_GAS,
    )
}

fn state(chain: &firn_evm::EvmChain) -> Acp176State {
    Acp176State::parse(&chain.head().header.extra_data).unwrap()
}

#[test]
fn blocks_spend_the_capacity_and_wait_for_it_to_refill() {
    let clock = TestClock::at(GENESIS_TIME + 10);
    let chain = open(low_target_genesis(), None, &clock);
    let genesis = chain.head();
    assert_eq!(genesis.header.gas_limit, 10_000_000);
    assert_eq!(genesis.header.base_fee, Some(1));
    assert_eq!(
        state(&chain),
        Acp176State {
            capacity: 10_000_000,
            excess: 0,
            target_excess: 0
        }
    );
    for k in 0..3 {
        chain.submit_raw_tx(&burn(k)).unwrap();
    }
    // 10M of capacity holds two 4M txs; the third waits.
    let first = chain.build_block().unwrap().unwrap();
    assert_eq!(first.txs.len(), 2);
    assert_eq!(first.header.gas_used, 8_000_000);
    assert_eq!(first.header.gas_limit, 10_000_000);
    assert_eq!(
        (state(&chain).capacity, state(&chain).excess),
        (2_000_000, 8_000_000)
    );
    assert!(chain.build_block().unwrap().is_none());
    assert!(chain.has_ready_txs());
    assert_eq!(chain.pool_len(), 1);
    // A second refills 2M (twice the target) and drains 1M of excess.
    clock.advance(1);
    let second = chain.build_block().unwrap().unwrap();
    assert_eq!(second.txs.len(), 1);
    assert_eq!(
        (state(&chain).capacity, state(&chain).excess),
        (0, 11_000_000)
    );
    assert!(!chain.has_ready_txs());
    // The price is e^(excess / 87M): still 1 wei at 11M of excess; ten quiet seconds refill
    // the capacity to its maximum and drain the excess.
    assert_eq!(chain.next_base_fee(), 1);
    clock.advance(10);
    assert_eq!(chain.next_block_fees().capacity, 10_000_000);
    assert_eq!(chain.next_block_fees().gas_limit, 10_000_000);
}

#[test]
fn the_devnet_c_chain_starts_at_its_target() {
    let clock = TestClock::at(GENESIS_TIME + 10);
    let chain = open(c_genesis(), None, &clock);
    let s = state(&chain);
    assert_eq!(s.target(), firn_evm::C_CHAIN_GAS_TARGET);
    assert_eq!(
        chain.head().header.gas_limit,
        10 * firn_evm::C_CHAIN_GAS_TARGET
    );
    assert_eq!(
        chain.next_block_fees().capacity,
        10 * firn_evm::C_CHAIN_GAS_TARGET
    );
    // A block keeps the target where the validators want it.
    mine_transfer(&chain, 0);
    assert_eq!(state(&chain).target_excess, s.target_excess);
    assert_eq!(chain.head().header.block_gas_cost, Some(0));
}

/// A subnet-EVM genesis whose tiny gas target makes every transfer raise the base fee.
fn window_genesis() -> EvmGenesis {
    let json = format!(
        r#"{{"config":{{"chainId":{CHAIN_ID},"feeConfig":{{"gasLimit":8000000,"minBaseFee":25000000000,"targetGas":21000,
        "baseFeeChangeDenominator":36,"minBlockGasCost":0,"maxBlockGasCost":1000000,"targetBlockRate":2,"blockGasCostStep":200000}}}},
        "alloc":{{"{}":{{"balance":"0x{:x}"}},"{}":{{"balance":"0x{:x}"}}}},"timestamp":"0x{:x}","gasLimit":"0x7A1200"}}"#,
        key(0).address(),
        ether(1_000_000),
        key(1).address(),
        ether(1_000_000),
        GENESIS_TIME
    );
    EvmGenesis::from_json(json.as_bytes()).unwrap()
}

/// Pools a 1-wei transfer from key 0 at `nonce` and mines it.
fn mine_transfer(chain: &firn_evm::EvmChain, nonce: u64) {
    chain
        .submit_raw_tx(&transfer(&key(0), nonce, Address::ZERO, U256::from(1)))
        .unwrap();
    chain.build_block().unwrap().unwrap();
}

/// A transfer of nothing from key 1 at `nonce`, with fee cap `max_fee` and no tip.
fn tipless_transfer(nonce: u64, max_fee: u128) -> Bytes {
    let to = Some(Address::ZERO);
    priced_tx(
        &key(1),
        nonce,
        to,
        U256::ZERO,
        Bytes::new(),
        21_000,
        (max_fee, 0),
    )
}

#[test]
fn a_tx_under_the_base_fee_waits_until_the_fee_falls() {
    let clock = TestClock::at(GENESIS_TIME + 1);
    let chain = open(window_genesis(), None, &clock);
    for nonce in 0..6 {
        mine_transfer(&chain, nonce);
        clock.advance(1);
    }
    let base_fee = chain.next_base_fee();
    assert!(base_fee > 25 * GWEI as u64, "{base_fee}");
    // At the minimum base fee: taken, but not mined while the fee is higher.
    chain
        .submit_raw_tx(&tipless_transfer(0, 25 * GWEI))
        .unwrap();
    assert!(chain.build_block().unwrap().is_none());
    assert_eq!(chain.pool_len(), 1);
    assert!(chain.has_ready_txs());
    // Under the minimum: refused.
    let msg = chain
        .submit_raw_tx(&tipless_transfer(1, GWEI))
        .unwrap_err()
        .to_string();
    assert!(
        msg.ends_with("have gas fee cap (1000000000) < pool minimum fee cap (25000000000)"),
        "{msg}"
    );
    // A quiet spell brings the fee back to the minimum, and the tx runs.
    clock.advance(1000);
    let block = chain.build_block().unwrap().unwrap();
    assert_eq!(block.txs.len(), 1);
    assert_eq!(block.header.base_fee, Some(25 * GWEI as u64));
    assert_eq!(chain.pool_len(), 0);
}

#[test]
fn a_c_chain_made_before_acp176_keeps_its_fee_window() {
    let clock = TestClock::at(GENESIS_TIME + 10);
    let old_dir = temp_dir("window-c-chain");
    // What earlier firn versions wrote: the C-Chain under subnet-EVM's window.
    let mut old = c_genesis();
    old.config.fee_rules = FeeRules::Window(FeeConfig::c_chain());
    {
        let chain = open(old, Some(old_dir.clone()), &clock);
        mine_transfer(&chain, 0);
    }
    let reopened = open(c_genesis(), Some(old_dir.clone()), &clock);
    assert_eq!(reopened.height(), 1);
    assert_eq!(reopened.fee_rules(), FeeRules::Window(FeeConfig::c_chain()));
    assert_eq!(reopened.head().header.extra_data.len(), 80);

    // A new one is marked and replays under ACP-176.
    let new_dir = temp_dir("acp176-c-chain");
    {
        let chain = open(c_genesis(), Some(new_dir.clone()), &clock);
        mine_transfer(&chain, 0);
    }
    let reopened = open(c_genesis(), Some(new_dir.clone()), &clock);
    assert_eq!(reopened.height(), 1);
    assert!(matches!(reopened.fee_rules(), FeeRules::Acp176 { .. }));
    assert_eq!(reopened.head().header.extra_data.len(), 24);
    for dir in [old_dir, new_dir] {
        std::fs::remove_dir_all(dir).unwrap();
    }
}

/// Waits (up to 10 s) until `chain` reaches `height`.
async fn wait_for_height(chain: &firn_evm::EvmChain, height: u64) {
    let mut head = chain.watch_head();
    let reached = tokio::time::timeout(std::time::Duration::from_secs(10), async {
        while *head.borrow_and_update() < height {
            head.changed().await.unwrap();
        }
    })
    .await;
    assert!(reached.is_ok(), "height {} of {height}", chain.height());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_producer_mines_what_waited_for_capacity_without_a_new_tx() {
    let clock = TestClock::at(GENESIS_TIME + 10);
    let chain = std::sync::Arc::new(open(low_target_genesis(), None, &clock));
    let producer = firn_evm::Producer::spawn(chain.clone(), None);
    for k in 0..3 {
        chain.submit_raw_tx(&burn(k)).unwrap();
    }
    producer.waker().notify_one();
    wait_for_height(&chain, 1).await;
    assert_eq!(chain.head().txs.len(), 2);
    // No tx arrives and nothing wakes the producer: its retry finds the refilled capacity.
    clock.advance(1);
    wait_for_height(&chain, 2).await;
    assert_eq!(chain.head().txs.len(), 1);
    assert_eq!(chain.pool_len(), 0);
    producer.shutdown().await;
}

/// A tx pooled in process (the node's own relayer submits so), with no waker notified, is
/// mined: the producer watches the pool itself.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_producer_mines_a_tx_pooled_without_a_wake() {
    let clock = TestClock::at(GENESIS_TIME + 10);
    let chain = std::sync::Arc::new(open(low_target_genesis(), None, &clock));
    let producer = firn_evm::Producer::spawn(chain.clone(), None);
    chain.submit_raw_tx(&burn(0)).unwrap();
    wait_for_height(&chain, 1).await;
    assert_eq!(chain.head().txs.len(), 1);
    producer.shutdown().await;
}
