//! Stakers, delegators and rewards: filters, statuses and keyset paging.

use firn_core::ids::Id;
use firn_core::network::P_CHAIN_ID;
use firn_store::page::EventCursor;
use firn_store::rows::pchain::{
    NewReward, NewStaker, PChainBlockRows, RewardType, StakerRecord, StakerStatus, StakingTotals,
    SupplyReading, ValidatorObservation,
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
    // Validators whose period overlaps a time frame, by start time, two per page.
    for (from, to) in [
        (T + 150, T + 400),
        (0, T),
        (T + 10_002, u64::MAX >> 1),
        (0, 5),
    ] {
        // Stakers are in acceptance order: ties in start time keep it.
        let mut want: Vec<(u64, usize, Id)> = stakers
            .iter()
            .enumerate()
            .filter(|(_, (_, s, _))| !s.is_delegator && s.start_ts <= to && s.end_ts >= from)
            .map(|(i, (h, s, _))| (s.start_ts, i, *h))
            .collect();
        want.sort();
        let mut got = Vec::new();
        let mut after = None;
        loop {
            let page = store
                .list_validators_overlapping(P_CHAIN_ID, from, to, &PageRequest { limit: 2, after })
                .await
                .unwrap();
            got.extend(page.items.iter().map(|s| (s.staker.start_ts, s.tx_hash)));
            match page.next {
                Some(c) => after = Some(c),
                None => break,
            }
        }
        let want: Vec<Id> = want.into_iter().map(|(_, _, h)| h).collect();
        let got: Vec<Id> = got.into_iter().map(|(_, h)| h).collect();
        assert_eq!(got, want, "validators overlapping {from}..={to}");
    }
    assert!(
        store
            .list_validators_overlapping(id(9, 9), 0, u64::MAX >> 1, &PageRequest::first(5))
            .await
            .unwrap()
            .items
            .is_empty(),
        "another subnet's"
    );

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

/// Validators of the primary network (with delegations inside and outside their periods)
/// and of a permissioned subnet (one removed, one expired, one current): statuses agree
/// between the filters and [`StakerRecord::status`], delegations are summed per validator,
/// and the node's observations and supply readings are kept, the newest replacing the older.
pub async fn validator_statuses_delegations_and_observations(store: Store) {
    firn_store::testing::record_reads(&store);
    let subnet = id(6, 1);
    let mut stakers: Vec<(Id, &str, NewStaker)> = Vec::new();
    let staker =
        |node_n: u64, subnet_id: Id, start: u64, end: u64, weight: u64, d: bool| NewStaker {
            node_id: node(node_n),
            subnet_id,
            start_ts: T + start,
            end_ts: T + end,
            weight,
            is_delegator: d,
            delegation_fee: 20_000,
            reward_addresses: vec![short(node_n)],
            estimated_reward: Some(weight / 10),
        };
    // Two validations of node 0 one after the other, one of node 1; delegations inside them.
    let v = "AddPermissionlessValidatorTx";
    let d = "AddPermissionlessDelegatorTx";
    let s = "AddSubnetValidatorTx";
    stakers.push((id(5, 0), v, staker(0, P_CHAIN_ID, 0, 1_000, 2_000, false)));
    stakers.push((id(5, 1), v, staker(1, P_CHAIN_ID, 0, 5_000, 3_000, false)));
    stakers.push((
        id(5, 2),
        d,
        staker(0, P_CHAIN_ID, 10, 900, u64::MAX / 4, true),
    ));
    stakers.push((
        id(5, 3),
        d,
        staker(0, P_CHAIN_ID, 20, 1_000, u64::MAX / 4, true),
    ));
    stakers.push((id(5, 4), d, staker(1, P_CHAIN_ID, 30, 4_000, 70, true)));
    stakers.push((
        id(5, 5),
        v,
        staker(0, P_CHAIN_ID, 1_000, 9_000, 4_000, false),
    ));
    stakers.push((id(5, 6), d, staker(0, P_CHAIN_ID, 1_100, 8_000, 80, true)));
    // Subnet validators of nodes 0, 1 and 2.
    stakers.push((id(5, 7), s, staker(0, subnet, 50, 9_000, 10, false)));
    stakers.push((id(5, 8), s, staker(1, subnet, 50, 1_500, 20, false)));
    stakers.push((id(5, 9), s, staker(2, subnet, 50, 9_000, u64::MAX, false)));
    let mut blocks = Vec::new();
    for (n, (hash, kind, s)) in stakers.iter().enumerate() {
        let mut t = ptx(*hash, kind);
        t.staker = Some(s.clone());
        blocks.push(pblock(n as u64 + 1, s.start_ts, vec![t]));
    }
    // The first validation of node 0 and both its delegations are rewarded; subnet
    // validator 7 is removed.
    let mut height = blocks.len() as u64;
    for (staking, tx_type, ts) in [
        (id(5, 2), "RewardValidatorTx", 900),
        (id(5, 3), "RewardValidatorTx", 1_000),
        (id(5, 0), "RewardValidatorTx", 1_000),
        (id(5, 7), "RemoveSubnetValidatorTx", 1_200),
    ] {
        height += 1;
        let mut t = ptx(id(6, 100 + height), tx_type);
        t.core.ends_staker = Some(staking);
        blocks.push(pblock(height, T + ts, vec![t]));
    }
    store.commit_pchain_blocks(&blocks).await.unwrap();

    let now = T + 2_000;
    let everyone = StakerFilter {
        now,
        ..Default::default()
    };
    let (s, f) = (&store, &everyone);
    let all: Vec<StakerRecord> = crate::fixtures::all_pages(|after| async move {
        s.list_stakers(f, SortOrder::Asc, &PageRequest { limit: 3, after })
            .await
            .unwrap()
    })
    .await;
    let status_of = |h: Id| all.iter().find(|r| r.tx_hash == h).unwrap().status(now);
    assert_eq!(status_of(id(5, 0)), StakerStatus::Completed);
    assert_eq!(status_of(id(5, 1)), StakerStatus::Active);
    assert_eq!(status_of(id(5, 5)), StakerStatus::Active);
    assert_eq!(status_of(id(5, 7)), StakerStatus::Removed);
    assert_eq!(status_of(id(5, 8)), StakerStatus::Completed, "expired");
    assert_eq!(status_of(id(5, 9)), StakerStatus::Active);
    // Every status filter, with and without the subnet, picks what `status` says.
    for status in [
        StakerStatus::Active,
        StakerStatus::Completed,
        StakerStatus::Pending,
        StakerStatus::Removed,
    ] {
        for subnet_id in [None, Some(subnet), Some(P_CHAIN_ID)] {
            let filter = StakerFilter {
                delegators: Some(false),
                subnet_id,
                status: Some(status),
                now,
                ..Default::default()
            };
            let page = store
                .list_stakers(&filter, SortOrder::Desc, &PageRequest::first(100))
                .await
                .unwrap();
            let got: Vec<Id> = page.items.iter().map(|r| r.tx_hash).collect();
            let want: Vec<Id> = all
                .iter()
                .rev()
                .filter(|r| {
                    !r.staker.is_delegator
                        && r.status(now) == status
                        && subnet_id.is_none_or(|s| r.staker.subnet_id == s)
                })
                .map(|r| r.tx_hash)
                .collect();
            assert_eq!(got, want, "{status:?} on {subnet_id:?}");
        }
    }

    // Delegations: node 0's first validation had two (both ended, their weights summed past
    // u64), its second one open one; node 1's one open; subnet validators none. The fees to
    // come are the validator's 2 % of each open delegator's potential reward, rounded up
    // (8 and 7 nAVAX leave 7 and 6 to the delegators).
    let validators = [id(5, 0), id(5, 5), id(5, 1), id(5, 9), id(5, 2)];
    let totals = store.list_delegation_totals(&validators).await.unwrap();
    let big = u128::from(u64::MAX / 4) * 2;
    let want = [
        (id(5, 0), 2, big, 0, 0, 0),
        (id(5, 5), 1, 80, 1, 80, 1),
        (id(5, 1), 1, 70, 1, 70, 1),
        (id(5, 9), 0, 0, 0, 0, 0),
        // A delegator is no validator: nothing delegates to it.
        (id(5, 2), 0, 0, 0, 0, 0),
    ];
    for (t, w) in totals.iter().zip(want) {
        let got = (
            t.validator,
            t.count,
            t.amount,
            t.open_count,
            t.open_amount,
            t.open_fees,
        );
        assert_eq!(got, w);
    }
    assert_eq!(totals.len(), want.len());
    assert!(store.list_delegation_totals(&[]).await.unwrap().is_empty());

    // Observations: kept, replaced by newer word, absent for validators never described.
    let seen = |n: u64, uptime: u32, connected: bool, observed_at: u64| ValidatorObservation {
        node_id: node(n),
        uptime,
        connected,
        observed_at,
    };
    store
        .record_validator_observations(&[seen(1, 995_000, true, now), seen(0, 0, false, now)])
        .await
        .unwrap();
    store
        .record_validator_observations(&[seen(0, 1_000_000, true, now + 60)])
        .await
        .unwrap();
    let mut got = store
        .list_validator_observations(&[node(0), node(1), node(2)])
        .await
        .unwrap();
    got.sort_by_key(|o| o.node_id);
    assert_eq!(
        got,
        vec![
            seen(0, 1_000_000, true, now + 60),
            seen(1, 995_000, true, now)
        ]
    );

    // The supply reading: none at first, then the newest of each subnet (the full u64 range).
    assert_eq!(store.find_supply(P_CHAIN_ID).await.unwrap(), None);
    let reading = |supply: u64, height: u64| SupplyReading {
        subnet_id: P_CHAIN_ID,
        supply,
        height,
        observed_at: now,
    };
    store.record_supply(&reading(u64::MAX, 10)).await.unwrap();
    assert_eq!(
        store.find_supply(P_CHAIN_ID).await.unwrap(),
        Some(reading(u64::MAX, 10))
    );
    store
        .record_supply(&reading(360_000_000_000_000_000, 12))
        .await
        .unwrap();
    assert_eq!(
        store.find_supply(P_CHAIN_ID).await.unwrap(),
        Some(reading(360_000_000_000_000_000, 12))
    );
    assert_eq!(store.find_supply(subnet).await.unwrap(), None);
    firn_store::testing::assert_reads_use_indexes(&store).await;
}
