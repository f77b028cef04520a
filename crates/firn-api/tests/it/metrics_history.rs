//! A month and more of EVM history for the Metrics API tests, written through the store's
//! `commit_evm_blocks`, with the direct computations every served value is checked against.
#![allow(dead_code)]

use std::collections::BTreeSet;
use std::sync::Arc;

use firn_api::metrics_api::{MetricsState, VirtualClock};
use firn_api::{ApiConfig, AppState, metrics_router};
use firn_store::rows::evm::EvmBlockRows;
use firn_store::types::U256;
use firn_store::{EvmWriter, Store};

use crate::fixtures::{CHAIN, Rng, evm_address, evm_block, evm_chain, evm_tx};
use crate::harness::Api;

pub const DAY: u64 = 86_400;
/// 2023-11-14 22:13:20 UTC: the first block, mid-day.
pub const GENESIS_TS: u64 = 1_700_000_000;
/// Days of history.
pub const DAYS: u64 = 34;

/// One written block as the tests model it.
#[derive(Debug, Clone)]
pub struct Block {
    pub ts: u64,
    /// (from, to, gas used, gas price).
    pub txs: Vec<(u64, u64, u64, u64)>,
}

/// The blocks written, oldest first.
#[derive(Debug, Clone)]
pub struct History {
    pub blocks: Vec<Block>,
}

impl History {
    /// Blocks every few minutes to four hours, with days 10 and 11 of the history empty.
    pub fn generate(seed: u64) -> Self {
        let mut rng = Rng::new(seed);
        let mut ts = GENESIS_TS;
        let end = GENESIS_TS + DAYS * DAY;
        let mut blocks = Vec::new();
        while ts < end {
            let txs = (0..rng.below(6))
                .map(|i| {
                    (
                        rng.below(40),
                        rng.below(40),
                        50_000 + i,
                        25_000_000_000 + rng.below(1_000_000),
                    )
                })
                .collect();
            blocks.push(Block { ts, txs });
            ts += 60 + rng.below(4 * 3_600);
            if blocks.len() == 60 {
                // Skip ahead so that whole days have no block at all.
                ts = day_of(ts) + 3 * DAY + 100;
            }
        }
        Self { blocks }
    }

    /// The store's rows for the blocks.
    pub fn rows(&self) -> Vec<EvmBlockRows> {
        self.blocks
            .iter()
            .enumerate()
            .map(|(n, b)| {
                let number = n as u64 + 1;
                let mut rows = evm_block(CHAIN, number, b.ts);
                for (i, &(from, to, gas, price)) in b.txs.iter().enumerate() {
                    let mut tx = evm_tx(
                        CHAIN,
                        number,
                        i as u32,
                        evm_address(from),
                        Some(evm_address(to)),
                    );
                    tx.gas_used = gas;
                    tx.gas_price = U256::from(price);
                    rows.block.gas_used += gas;
                    rows.txs.push(tx);
                }
                rows
            })
            .collect()
    }

    pub fn first_day(&self) -> u64 {
        day_of(self.blocks[0].ts)
    }

    pub fn last_day(&self) -> u64 {
        day_of(self.blocks.last().unwrap().ts)
    }

    pub fn last_ts(&self) -> u64 {
        self.blocks.last().unwrap().ts
    }

    /// Every day from the first block's to the last block's, newest first.
    pub fn days_desc(&self) -> Vec<u64> {
        let mut d = self.last_day();
        let mut out = Vec::new();
        while d >= self.first_day() {
            out.push(d);
            d -= DAY;
        }
        out
    }

    /// Blocks in `from..to`.
    pub fn in_range(&self, from: u64, to: u64) -> Vec<&Block> {
        self.blocks
            .iter()
            .filter(|b| b.ts >= from && b.ts < to)
            .collect()
    }

    /// The last block time before `t` (or the first block's time, at genesis).
    pub fn last_before(&self, t: u64) -> u64 {
        self.blocks
            .iter()
            .rev()
            .find(|b| b.ts < t)
            .map_or(self.blocks[0].ts, |b| b.ts)
    }

    pub fn tx_count(&self, from: u64, to: u64) -> f64 {
        self.in_range(from, to)
            .iter()
            .map(|b| b.txs.len())
            .sum::<usize>() as f64
    }

    pub fn gas_used(&self, from: u64, to: u64) -> f64 {
        self.in_range(from, to)
            .iter()
            .flat_map(|b| &b.txs)
            .map(|t| t.2)
            .sum::<u64>() as f64
    }

    pub fn fees(&self, from: u64, to: u64) -> f64 {
        self.in_range(from, to)
            .iter()
            .flat_map(|b| &b.txs)
            .map(|t| t.2 as f64 * t.3 as f64)
            .sum()
    }

    pub fn active_addresses(&self, from: u64, to: u64) -> f64 {
        let set: BTreeSet<u64> = self
            .in_range(from, to)
            .iter()
            .flat_map(|b| &b.txs)
            .flat_map(|t| [t.0, t.1])
            .collect();
        set.len() as f64
    }

    pub fn active_senders(&self, from: u64, to: u64) -> f64 {
        let set: BTreeSet<u64> = self
            .in_range(from, to)
            .iter()
            .flat_map(|b| &b.txs)
            .map(|t| t.0)
            .collect();
        set.len() as f64
    }

    /// Transactions ÷ seconds from the last block before `from` to the last block in range.
    pub fn avg_tps(&self, from: u64, to: u64) -> f64 {
        let blocks = self.in_range(from, to);
        let Some(last) = blocks.last() else {
            return 0.0;
        };
        let span = last.ts.saturating_sub(self.last_before(from)).max(1);
        self.tx_count(from, to) / span as f64
    }

    /// The highest per-block transactions ÷ seconds since the previous block.
    pub fn max_tps(&self, from: u64, to: u64) -> f64 {
        self.in_range(from, to)
            .iter()
            .map(|b| {
                let dt = b.ts.saturating_sub(self.last_before(b.ts)).max(1);
                b.txs.len() as f64 / dt as f64
            })
            .fold(0.0, f64::max)
    }

    /// Transactions up to `to`.
    pub fn cumulative_txs(&self, to: u64) -> f64 {
        self.tx_count(0, to)
    }
}

pub fn day_of(ts: u64) -> u64 {
    ts - ts % DAY
}

/// Asserts two values agree to float rounding.
#[track_caller]
pub fn assert_close(got: f64, want: f64, what: &str) {
    let tolerance = 1e-9 * want.abs().max(1.0);
    assert!(
        (got - want).abs() <= tolerance,
        "{what}: got {got}, want {want}"
    );
}

/// A store filled with the history, the Metrics API over it and its virtual clock.
pub async fn metrics_api(store: &Store) -> (Api, History, VirtualClock) {
    let history = History::generate(7);
    store.upsert_evm_chain(&evm_chain(CHAIN)).await.unwrap();
    // In a few commits, as the indexer would.
    for chunk in history.rows().chunks(50) {
        store.commit_evm_blocks(chunk).await.unwrap();
    }
    let clock = VirtualClock::at(history.last_ts() + 600);
    let state = MetricsState::with_clock(
        AppState::new(store.clone(), ApiConfig::default()),
        Arc::new(clock.clone()),
    );
    (
        Api {
            app: metrics_router(state),
        },
        history,
        clock,
    )
}
