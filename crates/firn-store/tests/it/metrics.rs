//! Metrics: the counters the store maintains equal a direct computation over the blocks.

use std::collections::{BTreeMap, BTreeSet};

use firn_core::ids::Id;
use firn_core::network::P_CHAIN_ID;
use firn_store::rows::evm::EvmBlockRows;
use firn_store::rows::metrics::{ChainMetrics, Granularity, StakingMetrics};
use firn_store::testing::StoreUrl;
use firn_store::types::{Address, U256};
use firn_store::{EvmWriter, MetricsReader, PChainWriter, PageRequest, SortOrder, Store};

use crate::fixtures::{EvmHistory, evm_chain, id, pblock, ptx};
use crate::pchain::T;
use crate::staking::staking_history;
use crate::upgraded::undo_and_reopen;

const CHAIN: u64 = 43113;

/// Metrics per period computed from the blocks alone.
fn direct(blocks: &[EvmBlockRows], g: Granularity) -> Vec<ChainMetrics> {
    let mut out: BTreeMap<u64, ChainMetrics> = BTreeMap::new();
    let mut period_sets: BTreeMap<(u64, u8), BTreeSet<Address>> = BTreeMap::new();
    let mut all_active = BTreeSet::new();
    let mut all_deployers = BTreeSet::new();
    let (mut cum_txs, mut cum_contracts) = (0u64, 0u64);
    let mut prev_ts: Option<u64> = None;
    for b in blocks {
        let ts = b.block.timestamp;
        let start = g.start_of(ts);
        let prev = prev_ts.unwrap_or(ts);
        let dt = ts.saturating_sub(prev).max(1) as f64;
        let m = out
            .entry(start)
            .or_insert_with(|| ChainMetrics::empty(b.chain_id, g, start, prev, ts));
        m.block_count += 1;
        m.tx_count += b.txs.len() as u64;
        m.gas_used += b.block.gas_used;
        m.max_tps = m.max_tps.max(b.txs.len() as f64 / dt);
        m.max_gps = m.max_gps.max(b.block.gas_used as f64 / dt);
        for t in &b.txs {
            m.fees_paid = m
                .fees_paid
                .checked_add(t.gas_price.checked_mul(U256::from(t.gas_used)).unwrap())
                .unwrap();
            m.sum_gas_price = m.sum_gas_price.checked_add(t.gas_price).unwrap();
            m.max_gas_price = m.max_gas_price.max(t.gas_price);
            for a in std::iter::once(t.from).chain(t.to) {
                period_sets.entry((start, 0)).or_default().insert(a);
                all_active.insert(a);
            }
            period_sets.entry((start, 1)).or_default().insert(t.from);
            let direct_deploys = usize::from(t.success && t.contract_address.is_some());
            let inner = b
                .internal_txs
                .iter()
                .filter(|i| {
                    i.tx_index == t.index
                        && t.success
                        && !i.reverted
                        && (i.call_type == "CREATE" || i.call_type == "CREATE2")
                })
                .count();
            let deployed = (direct_deploys + inner) as u64;
            if deployed > 0 {
                m.contracts += deployed;
                cum_contracts += deployed;
                period_sets.entry((start, 2)).or_default().insert(t.from);
                all_deployers.insert(t.from);
            }
        }
        cum_txs += b.txs.len() as u64;
        m.active_addresses = period_sets.get(&(start, 0)).map_or(0, |s| s.len() as u64);
        m.active_senders = period_sets.get(&(start, 1)).map_or(0, |s| s.len() as u64);
        m.deployers = period_sets.get(&(start, 2)).map_or(0, |s| s.len() as u64);
        m.last_block_ts = ts;
        m.cumulative_txs = cum_txs;
        m.cumulative_addresses = all_active.len() as u64;
        m.cumulative_contracts = cum_contracts;
        m.cumulative_deployers = all_deployers.len() as u64;
        prev_ts = Some(ts);
    }
    out.into_values().collect()
}

async fn all_metrics(
    store: &Store,
    g: Granularity,
    order: SortOrder,
    range: (Option<u64>, Option<u64>),
) -> Vec<ChainMetrics> {
    let mut out = Vec::new();
    let mut after = None;
    loop {
        let page = store
            .list_chain_metrics(
                CHAIN,
                g,
                range.0,
                range.1,
                order,
                &PageRequest { limit: 5, after },
            )
            .await
            .unwrap();
        out.extend(page.items);
        match page.next {
            Some(c) => after = Some(c),
            None => return out,
        }
    }
}

/// 400 blocks over about ten weeks: bursts of 50 blocks (hours and days vary inside them)
/// nine days apart, so the history spans several weeks and months too.
fn long_history() -> Vec<EvmBlockRows> {
    let mut h = EvmHistory::new(21, CHAIN, 12);
    (0..400)
        .map(|i| {
            if i % 50 == 49 {
                h.skip(9 * 86_400);
            }
            h.next_block()
        })
        .collect()
}

pub async fn chain_metrics_match_direct_computation(store: Store) {
    firn_store::testing::record_reads(&store);
    store.upsert_evm_chain(&evm_chain(CHAIN)).await.unwrap();
    let blocks = long_history();
    for chunk in blocks.chunks(50) {
        store.commit_evm_blocks(chunk).await.unwrap();
    }
    check_every_granularity(&store, &blocks).await;
    firn_store::testing::assert_reads_use_indexes(&store).await;
}

/// Every stored metrics row, at every granularity, equals the direct computation.
async fn check_every_granularity(store: &Store, blocks: &[EvmBlockRows]) {
    for g in Granularity::ALL {
        let want = direct(blocks, g);
        assert!(want.len() > 2, "history spans several {g:?}s");
        assert_eq!(
            all_metrics(store, g, SortOrder::Asc, (None, None)).await,
            want,
            "{g:?}"
        );
        let mut desc = want.clone();
        desc.reverse();
        assert_eq!(
            all_metrics(store, g, SortOrder::Desc, (None, None)).await,
            desc,
            "{g:?} desc"
        );
        let (lo, hi) = (want[1].start_ts, want[want.len() - 2].start_ts);
        let inner: Vec<_> = want
            .iter()
            .filter(|m| m.start_ts >= lo && m.start_ts <= hi)
            .cloned()
            .collect();
        assert_eq!(
            all_metrics(store, g, SortOrder::Asc, (Some(lo), Some(hi))).await,
            inner
        );
    }
    let days = direct(blocks, Granularity::Day);
    let total: u64 = days.iter().map(|m| m.tx_count).sum();
    assert_eq!(days.last().unwrap().cumulative_txs, total);
    let d = &days[1];
    assert!(
        (d.avg_tps() - d.tx_count as f64 / (d.last_block_ts - d.span_start_ts).max(1) as f64).abs()
            < 1e-12
    );
}

/// A store written before weeks and months were kept: its week and month rows are derived
/// from the day rows at open, equal to what the commit path writes, and the commits after
/// that keep them exact (their distinct-address sets were rebuilt too).
pub async fn older_store_gets_week_and_month_rows(url: StoreUrl) {
    let blocks = long_history();
    let (before, after) = blocks.split_at(300);
    let store = url.open().await;
    store.upsert_evm_chain(&evm_chain(CHAIN)).await.unwrap();
    for chunk in before.chunks(50) {
        store.commit_evm_blocks(chunk).await.unwrap();
    }
    let undo = [
        "DELETE FROM evm_metrics WHERE period IN (604800, 2629746)",
        "DELETE FROM evm_period_addresses WHERE period IN (604800, 2629746)",
        "INSERT INTO store_upgrades (name) VALUES ('evm_week_month_metrics')",
    ];
    let store = undo_and_reopen(&url, store, &undo).await;
    check_every_granularity(&store, before).await;
    for chunk in after.chunks(50) {
        store.commit_evm_blocks(chunk).await.unwrap();
    }
    check_every_granularity(&store, &blocks).await;
    store.close().await;
    // Opening again finds nothing left to do.
    let store = url.open().await;
    check_every_granularity(&store, &blocks).await;
    store.close().await;
}

pub async fn staking_metrics_match_direct_computation(store: Store) {
    firn_store::testing::record_reads(&store);
    let (mut blocks, stakers, _) = staking_history();
    // A validator ends five days later: the days between carry the totals.
    let mut end = ptx(id(6, 1_000), "RewardValidatorTx");
    end.core.ends_staker = Some(id(5, 0));
    blocks.push(pblock(blocks.len() as u64 + 1, T + 5 * 86_400, vec![end]));
    store.commit_pchain_blocks(&blocks).await.unwrap();

    // Direct: replay adds and ends per block, record totals at each day's end.
    let mut per_day: BTreeMap<u64, (u64, u128, u64, u128)> = BTreeMap::new();
    let mut totals = (0u64, 0u128, 0u64, 0u128);
    let weight_of = |h: Id| {
        stakers
            .iter()
            .find(|(x, _, _)| *x == h)
            .map(|(_, s, _)| s.clone())
            .unwrap()
    };
    for b in &blocks {
        for t in &b.txs {
            if let Some(s) = &t.staker {
                if s.is_delegator {
                    totals.2 += 1;
                    totals.3 += u128::from(s.weight);
                } else {
                    totals.0 += 1;
                    totals.1 += u128::from(s.weight);
                }
            }
            if let Some(h) = t.core.ends_staker {
                let s = weight_of(h);
                if s.is_delegator {
                    totals.2 -= 1;
                    totals.3 -= u128::from(s.weight);
                } else {
                    totals.0 -= 1;
                    totals.1 -= u128::from(s.weight);
                }
            }
        }
        per_day.insert(Granularity::Day.start_of(b.block.timestamp), totals);
    }
    let first = *per_day.keys().next().unwrap();
    let last = *per_day.keys().last().unwrap();
    let mut want = Vec::new();
    let mut current = per_day[&first];
    let mut day = first;
    while day <= last {
        if let Some(t) = per_day.get(&day) {
            current = *t;
        }
        want.push(StakingMetrics {
            subnet_id: P_CHAIN_ID,
            day,
            validator_count: current.0,
            validator_weight: current.1,
            delegator_count: current.2,
            delegator_weight: current.3,
        });
        day += 86_400;
    }
    assert_eq!(want.len(), 6);
    for order in [SortOrder::Asc, SortOrder::Desc] {
        let mut got = Vec::new();
        let mut after = None;
        loop {
            let page = store
                .list_staking_metrics(
                    P_CHAIN_ID,
                    None,
                    None,
                    order,
                    &PageRequest { limit: 4, after },
                )
                .await
                .unwrap();
            got.extend(page.items);
            match page.next {
                Some(c) => after = Some(c),
                None => break,
            }
        }
        let mut w = want.clone();
        if order == SortOrder::Desc {
            w.reverse();
        }
        assert_eq!(got, w, "{order:?}");
    }
    let window = store
        .list_staking_metrics(
            P_CHAIN_ID,
            Some(want[2].day),
            Some(want[3].day + 5),
            SortOrder::Asc,
            &PageRequest::first(10),
        )
        .await
        .unwrap();
    assert_eq!(window.items, want[2..4].to_vec());
    // Extreme bounds are answered, not panicked on.
    for (start, end) in [
        (Some(u64::MAX), None),
        (Some(u64::MAX), Some(u64::MAX)),
        (None, Some(u64::MAX)),
    ] {
        let page = store
            .list_staking_metrics(
                P_CHAIN_ID,
                start,
                end,
                SortOrder::Asc,
                &PageRequest::first(3),
            )
            .await
            .unwrap();
        assert!(page.items.len() <= 3);
    }
    let other = store
        .list_staking_metrics(
            id(6, 6),
            None,
            None,
            SortOrder::Asc,
            &PageRequest::first(10),
        )
        .await
        .unwrap();
    assert!(other.items.is_empty());
    firn_store::testing::assert_reads_use_indexes(&store).await;
}
