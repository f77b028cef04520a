//! Stakers, delegators and rewards: filters, statuses and keyset paging.

use firn_core::ids::Id;
use firn_core::network::P_CHAIN_ID;
use firn_store::page::EventCursor;
use firn_store::rows::pchain::{
    NewReward, NewStaker, PChainBlockRows, RewardType, StakerStatus, StakingTotals,
};
use firn_store::{
    PChainReader, PChainWriter, PageRequest, RewardFilter, SortOrder, StakerFilter, Store,
    StoreError,
};

use crate::fixtures::{avax, id, node, pblock, ptx, short};
use crate::pchain::T;

/// Stakers for the delegator and reward tests: validators on nodes 0..4, delegators on them,
/// some rewarded.
/// Blocks, (staking tx, staker, rewarded) and (reward tx, reward, height, seq).
pub type StakingHistory = (
    Vec<PChainBlockRows>,
    Vec<(Id, NewStaker, bool)>,
    Vec<(Id, NewReward, u64, u32)>,
);

pub fn staking_history() -> StakingHistory {
    let mut blocks = Vec::new();
    let mut stakers: Vec<(Id, NewStaker, bool)> = Vec::new();
    let mut rewards = Vec::new();
    let mut height = 0u64;
    for n in 0..24u64 {
        height += 1;
        let hash = id(5, n);
        let delegator = n >= 4;
        let s = NewStaker {
            node_id: node(n % 4),
            subnet_id: P_CHAIN_ID,
            start_ts: T + n * 100,
            end_ts: T + 10_000 + n,
            weight: 1_000 + n,
            is_delegator: delegator,
            delegation_fee: if delegator { 0 } else { 20_000 },
            reward_addresses: vec![short(n % 3), short(10 + n % 2)],
            estimated_reward: Some(n),
        };
        let mut t = ptx(
            hash,
            if delegator {
                "AddPermissionlessDelegatorTx"
            } else {
                "AddPermissionlessValidatorTx"
            },
        );
        t.staker = Some(s.clone());
        t.addresses = s.reward_addresses.clone();
        blocks.push(pblock(height, T + n * 10, vec![t]));
        stakers.push((hash, s, false));
    }
    // Reward every third delegator: its reward and the validator's fee, in one tx each.
    for n in (4..24u64).step_by(3) {
        height += 1;
        let staking = id(5, n);
        let reward_tx = id(6, n);
        let mut t = ptx(reward_tx, "RewardValidatorTx");
        t.core.ends_staker = Some(staking);
        let s = &stakers[n as usize].1;
        for (seq, (kind, amount, owner)) in [
            (RewardType::Delegator, 90 + n, s.reward_addresses[0]),
            (RewardType::ValidatorFee, 10, short(20 + n % 4)),
        ]
        .into_iter()
        .enumerate()
        {
            let r = NewReward {
                utxo_id: id(0x77, n * 10 + seq as u64),
                output_index: seq as u32,
                reward_type: kind,
                staking_tx_hash: staking,
                asset_id: avax(),
                amount,
                addresses: vec![owner],
            };
            t.rewards.push(r.clone());
            rewards.push((reward_tx, r, height, seq as u32));
        }
        blocks.push(pblock(height, T + 20_000 + n, vec![t]));
        stakers[n as usize].2 = true;
    }
    (blocks, stakers, rewards)
}

pub async fn pchain_stakers_and_rewards(store: Store) {
    firn_store::testing::record_reads(&store);
    let (blocks, stakers, rewards) = staking_history();
    store.commit_pchain_blocks(&blocks).await.unwrap();
    let now = T + 1_000;
    let filters = vec![
        StakerFilter {
            delegators: Some(true),
            now,
            ..Default::default()
        },
        StakerFilter {
            delegators: Some(false),
            now,
            ..Default::default()
        },
        StakerFilter {
            delegators: Some(true),
            status: Some(StakerStatus::Completed),
            now,
            ..Default::default()
        },
        StakerFilter {
            delegators: Some(true),
            status: Some(StakerStatus::Active),
            now,
            ..Default::default()
        },
        StakerFilter {
            delegators: Some(true),
            status: Some(StakerStatus::Pending),
            now,
            ..Default::default()
        },
        StakerFilter {
            node_ids: vec![node(1), node(3)],
            now,
            ..Default::default()
        },
        StakerFilter {
            reward_addresses: vec![short(2)],
            delegators: Some(true),
            now,
            ..Default::default()
        },
        StakerFilter {
            reward_addresses: vec![short(0), short(11)],
            status: Some(StakerStatus::Active),
            now,
            ..Default::default()
        },
    ];
    for f in &filters {
        for order in [SortOrder::Asc, SortOrder::Desc] {
            let mut want: Vec<Id> = stakers
                .iter()
                .filter(|(_, s, ended)| {
                    let status = if *ended {
                        StakerStatus::Completed
                    } else if s.start_ts > f.now {
                        StakerStatus::Pending
                    } else {
                        StakerStatus::Active
                    };
                    f.delegators.is_none_or(|d| s.is_delegator == d)
                        && (f.node_ids.is_empty() || f.node_ids.contains(&s.node_id))
                        && (f.reward_addresses.is_empty()
                            || s.reward_addresses
                                .iter()
                                .any(|a| f.reward_addresses.contains(a)))
                        && f.status.is_none_or(|st| st == status)
                })
                .map(|(h, _, _)| *h)
                .collect();
            if order == SortOrder::Desc {
                want.reverse();
            }
            let mut got = Vec::new();
            let mut after = None;
            loop {
                let page = store
                    .list_stakers(f, order, &PageRequest { limit: 3, after })
                    .await
                    .unwrap();
                for s in &page.items {
                    assert_eq!(
                        s.status(f.now) == StakerStatus::Completed,
                        s.ended_by.is_some()
                    );
                }
                got.extend(page.items.iter().map(|s| s.tx_hash));
                match page.next {
                    Some(c) => after = Some(c),
                    None => break,
                }
            }
            assert_eq!(got, want, "{f:?} {order:?}");
        }
    }
    // Gross = delegator reward + validator fee; net = the delegator's own.
    let d = store.find_staker(id(5, 7)).await.unwrap().unwrap();
    assert_eq!((d.gross_reward, d.net_reward), (90 + 7 + 10, 90 + 7));

    let reward_filters = vec![
        RewardFilter {
            addresses: vec![short(1)],
            node_ids: vec![],
        },
        RewardFilter {
            addresses: vec![short(0), short(21), short(22)],
            node_ids: vec![],
        },
        RewardFilter {
            addresses: vec![],
            node_ids: vec![node(2)],
        },
        RewardFilter {
            addresses: vec![short(21), short(2)],
            node_ids: vec![node(1), node(0)],
        },
    ];
    for f in &reward_filters {
        for order in [SortOrder::Asc, SortOrder::Desc] {
            let mut want: Vec<(u64, u32)> = rewards
                .iter()
                .filter(|(_, r, _, _)| {
                    let node_id = stakers
                        .iter()
                        .find(|(h, _, _)| *h == r.staking_tx_hash)
                        .unwrap()
                        .1
                        .node_id;
                    (f.addresses.is_empty() || r.addresses.iter().any(|a| f.addresses.contains(a)))
                        && (f.node_ids.is_empty() || f.node_ids.contains(&node_id))
                })
                .map(|(_, _, h, seq)| (*h, *seq))
                .collect();
            if order == SortOrder::Desc {
                want.reverse();
            }
            let mut got = Vec::new();
            let mut after: Option<EventCursor> = None;
            loop {
                let page = store
                    .list_rewards(f, order, &PageRequest { limit: 2, after })
                    .await
                    .unwrap();
                got.extend(page.items.iter().map(|r| (r.height, r.seq)));
                match page.next {
                    Some(c) => after = Some(c),
                    None => break,
                }
            }
            assert_eq!(got, want, "{f:?} {order:?}");
        }
    }
    // Ending a stake twice is refused.
    let mut again = ptx(id(6, 999), "RewardValidatorTx");
    again.core.ends_staker = Some(id(5, 4));
    let err = store
        .commit_pchain_blocks(&[pblock(blocks.len() as u64 + 1, T + 50_000, vec![again])])
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::StakerUnavailable(_)), "{err}");
    firn_store::testing::assert_reads_use_indexes(&store).await;

    // What is staked at a few moments (read after the index check: the totals walk every
    // open staker by design), against the history.
    for now in [T, T + 1_000, T + 5_000, T + 10_010, T + 30_000] {
        let active: Vec<&NewStaker> = stakers
            .iter()
            .filter(|(_, s, ended)| !ended && s.start_ts <= now && s.end_ts > now)
            .map(|(_, s, _)| s)
            .collect();
        let of = |delegators: bool| active.iter().filter(move |s| s.is_delegator == delegators);
        let want = StakingTotals {
            validators: of(false).count() as u64,
            validator_weight: of(false).map(|s| u128::from(s.weight)).sum(),
            delegators: of(true).count() as u64,
            delegator_weight: of(true).map(|s| u128::from(s.weight)).sum(),
            potential_reward: active
                .iter()
                .map(|s| u128::from(s.estimated_reward.unwrap_or(0)))
                .sum(),
        };
        let got = store.find_staking_totals(P_CHAIN_ID, now).await.unwrap();
        assert_eq!(got, want, "at {now}");
    }
    let busy = store
        .find_staking_totals(P_CHAIN_ID, T + 5_000)
        .await
        .unwrap();
    assert!(busy.validators > 0 && busy.delegators > 0, "{busy:?}");
    let elsewhere = store
        .find_staking_totals(id(6, 1), T + 5_000)
        .await
        .unwrap();
    assert_eq!(elsewhere, StakingTotals::default());
}
