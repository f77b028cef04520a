//! P-Chain: round trips of every row type, atomicity, idempotence, filters and keyset paging.

use firn_core::ids::Id;
use firn_core::network::P_CHAIN_ID;
use firn_store::page::TxCursor;
use firn_store::rows::ChainKey;
use firn_store::rows::pchain::{
    AssetAmount, BlockchainRecord, L1Observation, L1Validator, L1ValidatorManager,
    L1ValidatorRecord, NewBlockchain, NewReward, NewStaker, Owner, PBlockRecord, PChainBlockRows,
    PTxRecord, PUtxo, RewardType, StakerStatus, SubnetChange, UtxoType,
};
use firn_store::{
    CursorStore, L1ValidatorFilter, PBlockFilter, PChainReader, PChainWriter, PTxFilter,
    PageRequest, RewardFilter, SortOrder, Store, StoreError,
};

use crate::fixtures::{PHistory, PTxFacts, all_pages, avax, id, node, pblock, ptx, short, utxo};

pub const T: u64 = 1_700_000_000;

fn x_chain() -> Id {
    id(0x0c, 1)
}

/// Three blocks exercising every P-Chain row type.
fn scenario() -> Vec<PChainBlockRows> {
    let (a, s, c, v, d) = (id(4, 1), id(4, 2), id(4, 3), id(4, 4), id(4, 5));
    let (r, i, e, l, o) = (id(4, 6), id(4, 7), id(4, 8), id(4, 9), id(4, 10));
    let owner = Owner {
        locktime: u64::MAX,
        threshold: 1,
        addresses: vec![short(1), short(2)],
    };

    let mut ta = ptx(a, "BaseTx");
    ta.core.memo = b"hello".to_vec();
    ta.core.value = vec![AssetAmount {
        asset_id: avax(),
        amount: u64::MAX,
    }];
    ta.core.amount_burned = vec![AssetAmount {
        asset_id: avax(),
        amount: 1_000_000,
    }];
    let mut a0 = utxo(a, 0, short(1), u64::MAX);
    a0.stakeable_locktime = Some(u64::MAX);
    a0.locktime = 17;
    a0.threshold = 1;
    let a1 = utxo(a, 1, short(2), 5);
    ta.emitted = vec![a0.clone(), a1.clone()];
    ta.addresses = vec![short(1), short(2)];

    let mut ts_ = ptx(s, "CreateSubnetTx");
    ts_.consumed = vec![a1.utxo_id];
    ts_.addresses = vec![short(2)];
    ts_.subnet = Some(SubnetChange::Created {
        subnet_id: s,
        owner: owner.clone(),
    });
    ts_.core.details.subnet_owner = Some(owner.clone());

    let mut tc = ptx(c, "CreateChainTx");
    tc.core.subnet_id = Some(s);
    tc.blockchain = Some(NewBlockchain {
        blockchain_id: c,
        subnet_id: s,
        name: "dexalot".to_owned(),
        vm_id: id(0x0d, 1),
        genesis: br#"{"config":{"chainId":99999}}"#.to_vec(),
        evm_chain_id: Some(99_999),
    });

    let mut tv = ptx(v, "AddPermissionlessValidatorTx");
    tv.core.node_id = Some(node(1));
    tv.core.subnet_id = Some(P_CHAIN_ID);
    tv.core.start_ts = Some(T + 10);
    tv.core.end_ts = Some(T + 1_000);
    tv.core.amount_staked = vec![AssetAmount {
        asset_id: avax(),
        amount: u64::MAX,
    }];
    tv.core.details.delegation_fee_percent = Some("2.0000".to_owned());
    tv.core.details.reward_addresses = vec![short(1)];
    tv.consumed = vec![a0.utxo_id];
    let mut staked = utxo(v, 0, short(1), u64::MAX);
    staked.staked = true;
    staked.utxo_type = UtxoType::Stake;
    staked.start_ts = Some(T + 10);
    staked.end_ts = Some(T + 1_000);
    tv.emitted = vec![staked];
    tv.addresses = vec![short(1)];
    tv.staker = Some(NewStaker {
        node_id: node(1),
        subnet_id: P_CHAIN_ID,
        start_ts: T + 10,
        end_ts: T + 1_000,
        weight: u64::MAX,
        is_delegator: false,
        delegation_fee: 20_000,
        reward_addresses: vec![short(1)],
        estimated_reward: Some(123),
    });

    let mut td = ptx(d, "AddPermissionlessDelegatorTx");
    td.addresses = vec![short(3)];
    td.staker = Some(NewStaker {
        node_id: node(1),
        subnet_id: P_CHAIN_ID,
        start_ts: T + 2_000,
        end_ts: T + 9_000,
        weight: 25,
        is_delegator: true,
        delegation_fee: 0,
        reward_addresses: vec![short(3)],
        estimated_reward: None,
    });

    let mut tr = ptx(r, "RewardValidatorTx");
    tr.core.ends_staker = Some(v);
    tr.addresses = vec![short(1)];
    let mut reward_utxo = utxo(v, 1, short(1), 100);
    reward_utxo.reward_type = Some(RewardType::Validator);
    tr.emitted = vec![reward_utxo.clone()];
    tr.rewards = vec![NewReward {
        utxo_id: reward_utxo.utxo_id,
        output_index: 1,
        reward_type: RewardType::Validator,
        staking_tx_hash: v,
        asset_id: avax(),
        amount: 100,
        addresses: vec![short(1)],
    }];

    let mut imported: PUtxo = utxo(id(0x0e, 1), 3, short(4), 77);
    imported.created_on_chain = x_chain();
    let mut ti = ptx(i, "ImportTx");
    ti.core.source_chain = Some(x_chain());
    ti.consumed = vec![imported.utxo_id];
    ti.imported = vec![imported];
    let i0 = utxo(i, 0, short(4), 70);
    ti.emitted = vec![i0.clone()];
    ti.addresses = vec![short(4)];

    let mut te = ptx(e, "ExportTx");
    te.core.destination_chain = Some(x_chain());
    te.consumed = vec![i0.utxo_id];
    let mut exported = utxo(e, 0, short(5), 60);
    exported.consumed_on_chain = x_chain();
    te.emitted = vec![exported];
    te.addresses = vec![short(4), short(5)];

    let mut tl = ptx(l, "ConvertSubnetToL1Tx");
    tl.core.subnet_id = Some(s);
    tl.core.details.l1_validator_manager = Some(L1ValidatorManager {
        blockchain_id: c,
        contract_address: "0x0feedc0de0000000000000000000000000000000".to_owned(),
    });
    tl.subnet = Some(SubnetChange::Converted {
        subnet_id: s,
        conversion_id: id(0x0f, 1),
        manager_chain: c,
        manager_address: vec![0x0f; 20],
    });
    tl.l1_validation_ids = vec![id(7, 1), id(7, 2)];
    let owner = |threshold: u32, addresses: Vec<_>| Owner {
        locktime: 0,
        threshold,
        addresses,
    };
    tl.l1_validators = vec![
        L1Validator {
            validation_id: id(7, 1),
            subnet_id: s,
            node_id: node(9),
            weight: u64::MAX,
            balance: u64::MAX,
            bls_public_key: vec![0xb1; 48],
            active: true,
            remaining_balance_owner: owner(1, vec![short(3)]),
            deactivation_owner: owner(2, vec![short(4), short(5)]),
        },
        // Converted without a balance: inactive from the start.
        L1Validator {
            validation_id: id(7, 2),
            subnet_id: s,
            node_id: node(8),
            weight: 5,
            balance: 0,
            bls_public_key: vec![0xb2; 48],
            active: false,
            remaining_balance_owner: owner(0, Vec::new()),
            deactivation_owner: owner(1, vec![short(6)]),
        },
    ];

    let mut to = ptx(o, "TransferSubnetOwnershipTx");
    to.subnet = Some(SubnetChange::OwnerChanged {
        subnet_id: s,
        owner: Owner {
            locktime: 0,
            threshold: 2,
            addresses: vec![short(6), short(7)],
        },
    });

    vec![
        pblock(1, T, vec![ta, ts_]),
        pblock(2, T + 10, vec![tc, tv, td]),
        pblock(3, T + 1_000, vec![tr, ti, te, tl, to]),
    ]
}

pub async fn pchain_round_trip(store: Store) {
    firn_store::testing::record_reads(&store);
    let blocks = scenario();
    let outcome = store.commit_pchain_blocks(&blocks).await.unwrap();
    assert_eq!((outcome.committed, outcome.skipped), (3, 0));
    assert_eq!(store.find_cursor(ChainKey::PChain).await.unwrap(), Some(3));

    for b in &blocks {
        let want = PBlockRecord {
            block: b.block.clone(),
            tx_hashes: b.txs.iter().map(|t| t.core.tx_hash).collect(),
        };
        assert_eq!(
            store
                .find_pchain_block(b.block.height)
                .await
                .unwrap()
                .as_ref(),
            Some(&want)
        );
        assert_eq!(
            store.find_pchain_block_by_hash(b.block.hash).await.unwrap(),
            Some(want)
        );
    }
    // Every transaction's stored fields come back as written, with its position.
    for b in &blocks {
        for (index, t) in b.txs.iter().enumerate() {
            let got: PTxRecord = store.get_pchain_tx(t.core.tx_hash).await.unwrap();
            assert_eq!(got.core, t.core);
            assert_eq!(
                (got.height, got.tx_index, got.timestamp),
                (b.block.height, index as u32, b.block.timestamp)
            );
            assert_eq!(got.block_hash, b.block.hash);
            let emitted: Vec<PUtxo> = got.emitted.iter().map(|u| u.utxo.clone()).collect();
            assert_eq!(emitted, t.emitted, "emitted of {}", t.core.tx_type);
            let consumed: Vec<Id> = got.consumed.iter().map(|u| u.utxo.utxo_id).collect();
            assert_eq!(consumed, t.consumed, "consumed of {}", t.core.tx_type);
            for u in &got.consumed {
                let c = u.consumed.expect("consumption recorded");
                assert_eq!(
                    (c.tx_hash, c.height, c.timestamp),
                    (t.core.tx_hash, b.block.height, b.block.timestamp)
                );
            }
        }
    }
    // A UTXO created in block 1 and spent in block 2 shows both sides; u64::MAX survives.
    let a = store.get_pchain_tx(id(4, 1)).await.unwrap();
    assert_eq!(a.emitted[0].utxo.amount, u64::MAX);
    assert_eq!(a.emitted[0].utxo.stakeable_locktime, Some(u64::MAX));
    assert_eq!(
        (a.emitted[0].height, a.emitted[0].consumed.unwrap().height),
        (1, 2)
    );
    assert_eq!(a.core.value[0].amount, u64::MAX);
    // The imported UTXO is recorded at the importing block.
    let imp = store.get_pchain_tx(id(4, 7)).await.unwrap();
    assert_eq!(imp.consumed[0].utxo.created_on_chain, x_chain());
    assert_eq!(imp.consumed[0].height, 3);

    // Stakers, their end, rewards and status.
    let v = store.find_staker(id(4, 4)).await.unwrap().unwrap();
    assert_eq!(v.staker.weight, u64::MAX);
    assert_eq!(v.ended_by.unwrap().tx_hash, id(4, 6));
    assert_eq!((v.gross_reward, v.net_reward), (100, 100));
    assert_eq!(v.status(T + 5), StakerStatus::Completed);
    let d = store.find_staker(id(4, 5)).await.unwrap().unwrap();
    assert_eq!(d.status(T + 20), StakerStatus::Pending);
    assert_eq!(d.status(T + 2_000), StakerStatus::Active);
    let rewards = store
        .list_rewards(
            &RewardFilter {
                addresses: vec![short(1)],
                node_ids: vec![],
            },
            SortOrder::Desc,
            &PageRequest::first(10),
        )
        .await
        .unwrap();
    assert_eq!(rewards.items.len(), 1);
    let rw = &rewards.items[0];
    assert_eq!(
        (rw.reward_tx_hash, rw.node_id, rw.amount_staked),
        (id(4, 6), node(1), u64::MAX)
    );
    assert_eq!(
        (rw.start_ts, rw.end_ts, rw.reward.amount),
        (T + 10, T + 1_000, 100)
    );

    // Active staking at T + 20: the delegator (validator already rewarded).
    let active = store
        .list_active_staking_txs(
            &PTxFilter::default(),
            T + 20,
            SortOrder::Desc,
            &PageRequest::first(10),
        )
        .await
        .unwrap();
    assert_eq!(
        active
            .items
            .iter()
            .map(|t| t.core.tx_hash)
            .collect::<Vec<_>>(),
        vec![id(4, 5)]
    );
    let none = store
        .list_active_staking_txs(
            &PTxFilter::default(),
            T + 9_000,
            SortOrder::Desc,
            &PageRequest::first(10),
        )
        .await
        .unwrap();
    assert!(none.items.is_empty());

    // Subnet: created, then converted and re-owned.
    let subnet = store.find_subnet(id(4, 2)).await.unwrap().unwrap();
    assert_eq!((subnet.height, subnet.tx_hash), (1, id(4, 2)));
    assert_eq!(subnet.owner.addresses, vec![short(6), short(7)]);
    let conv = subnet.conversion.unwrap();
    assert_eq!(
        (conv.conversion_id, conv.manager_chain, conv.height),
        (id(0x0f, 1), id(4, 3), 3)
    );
    let subnets = store
        .list_subnets(SortOrder::Asc, &PageRequest::first(10))
        .await
        .unwrap();
    assert_eq!(subnets.items.len(), 1);

    let chain: BlockchainRecord = store.find_blockchain(id(4, 3)).await.unwrap().unwrap();
    assert_eq!(chain.chain, blocks[1].txs[0].blockchain.clone().unwrap());
    assert_eq!((chain.height, chain.timestamp), (2, T + 10));
    let chains = store
        .list_blockchains(Some(id(4, 2)), SortOrder::Desc, &PageRequest::first(10))
        .await
        .unwrap();
    assert_eq!(chains.items, vec![chain]);
    assert!(
        store
            .list_blockchains(Some(id(9, 9)), SortOrder::Desc, &PageRequest::first(10))
            .await
            .unwrap()
            .items
            .is_empty()
    );

    let l1 = store.find_l1_validator(id(7, 1)).await.unwrap().unwrap();
    assert_eq!(l1.validator, blocks[2].txs[3].l1_validators[0]);
    assert_eq!((l1.created_height, l1.created_tx_hash), (3, id(4, 9)));
    assert_eq!(l1.created_timestamp, blocks[2].block.timestamp);
    let off = store.find_l1_validator(id(7, 2)).await.unwrap().unwrap();
    assert_eq!(off.validator, blocks[2].txs[3].l1_validators[1]);
    check_l1_lists(&store, &l1, &off).await;
    let by_validation = store
        .list_pchain_txs(
            &PTxFilter {
                l1_validation_id: Some(id(7, 1)),
                ..Default::default()
            },
            SortOrder::Asc,
            &PageRequest::first(10),
        )
        .await
        .unwrap();
    assert_eq!(
        by_validation
            .items
            .iter()
            .map(|t| t.core.tx_hash)
            .collect::<Vec<_>>(),
        vec![id(4, 9)]
    );

    // Chains each address touched.
    let chains = store
        .list_address_chains(&[short(4), short(1), short(5), short(42), short(4)])
        .await
        .unwrap();
    let mut p_and_x = vec![P_CHAIN_ID, x_chain()];
    p_and_x.sort();
    assert_eq!(
        chains,
        vec![
            (short(4), p_and_x.clone()),
            (short(1), vec![P_CHAIN_ID]),
            (short(5), p_and_x),
            (short(42), vec![]),
        ]
    );

    // Blocks by proposer, newest first.
    let by_node = store
        .list_pchain_blocks(
            &PBlockFilter {
                proposer: Some(node(1)),
                ..Default::default()
            },
            SortOrder::Desc,
            &PageRequest::first(10),
        )
        .await
        .unwrap();
    assert_eq!(
        by_node
            .items
            .iter()
            .map(|b| b.block.height)
            .collect::<Vec<_>>(),
        vec![1]
    );
    let timed = store
        .list_pchain_blocks(
            &PBlockFilter {
                start_ts: Some(T + 5),
                end_ts: Some(T + 1_000),
                proposer: None,
            },
            SortOrder::Asc,
            &PageRequest::first(1),
        )
        .await
        .unwrap();
    assert_eq!(timed.items[0].block.height, 2);
    assert_eq!(timed.next.map(|c| c.height), Some(2));
    firn_store::testing::assert_reads_use_indexes(&store).await;
}

pub async fn pchain_failed_block_leaves_nothing(store: Store) {
    let blocks = scenario();
    store.commit_pchain_blocks(&blocks[..1]).await.unwrap();
    // Block 3 spends a UTXO that does not exist: the batch [2, 3] fails as a whole.
    let mut bad = blocks[2].clone();
    bad.txs[1].imported.clear();
    let err = store
        .commit_pchain_blocks(&[blocks[1].clone(), bad])
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::UtxoUnavailable(_)), "{err}");
    assert!(err.to_string().contains("utxo"), "{err}");
    assert_eq!(store.find_cursor(ChainKey::PChain).await.unwrap(), Some(1));
    assert_eq!(store.find_pchain_block(2).await.unwrap(), None);
    assert_eq!(store.find_pchain_tx(id(4, 3)).await.unwrap(), None);
    assert_eq!(store.find_staker(id(4, 4)).await.unwrap(), None);
    // The UTXO block 2 would have spent is still unspent.
    let a = store.get_pchain_tx(id(4, 1)).await.unwrap();
    assert_eq!(a.emitted[0].consumed, None);
    // Spending a UTXO twice fails too.
    let mut double = blocks[1].clone();
    double.txs[2].consumed = vec![a.emitted[1].utxo.utxo_id];
    let err = store.commit_pchain_blocks(&[double]).await.unwrap_err();
    assert!(matches!(err, StoreError::UtxoUnavailable(_)), "{err}");
    // The good blocks then commit.
    let outcome = store.commit_pchain_blocks(&blocks[1..]).await.unwrap();
    assert_eq!(outcome.committed, 2);
    assert_eq!(store.find_cursor(ChainKey::PChain).await.unwrap(), Some(3));
}

pub async fn pchain_recommit_is_a_noop(store: Store) {
    let blocks = scenario();
    store.commit_pchain_blocks(&blocks[..2]).await.unwrap();
    let again = store.commit_pchain_blocks(&blocks[..2]).await.unwrap();
    assert_eq!((again.committed, again.skipped), (0, 2));
    let mixed = store.commit_pchain_blocks(&blocks[1..]).await.unwrap();
    assert_eq!((mixed.committed, mixed.skipped), (1, 1));
    let all = store
        .list_pchain_txs(
            &PTxFilter::default(),
            SortOrder::Asc,
            &PageRequest::first(100),
        )
        .await
        .unwrap();
    assert_eq!(all.items.len(), 10, "no duplicates");
    let v = store.find_staker(id(4, 4)).await.unwrap().unwrap();
    assert_eq!(v.gross_reward, 100, "rewards counted once");
    // Same height, different block: refused.
    let mut other = blocks[1].clone();
    other.block.hash = id(1, 999);
    let err = store.commit_pchain_blocks(&[other]).await.unwrap_err();
    assert!(
        matches!(err, StoreError::ConflictingBlock { height: 2, .. }),
        "{err}"
    );
    // A gap: refused, and says where the cursor is.
    let err = store
        .commit_pchain_blocks(&[pblock(5, T + 5_000, vec![])])
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            StoreError::OutOfOrder {
                cursor: 3,
                height: 5,
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(store.find_cursor(ChainKey::PChain).await.unwrap(), Some(3));
}

fn matches(f: &PTxFacts, filter: &PTxFilter) -> bool {
    (filter.addresses.is_empty() || f.addresses.iter().any(|a| filter.addresses.contains(a)))
        && filter
            .l1_validation_id
            .is_none_or(|v| f.validation == Some(v))
        && (filter.tx_types.is_empty() || filter.tx_types.contains(&f.tx_type))
        && filter.start_ts.is_none_or(|t| f.timestamp >= t)
        && filter.end_ts.is_none_or(|t| f.timestamp <= t)
}

fn expected(facts: &[PTxFacts], filter: &PTxFilter, order: SortOrder) -> Vec<(u64, u32)> {
    let mut keys: Vec<(u64, u32)> = facts
        .iter()
        .filter(|f| matches(f, filter))
        .map(|f| (f.height, f.index))
        .collect();
    if order == SortOrder::Desc {
        keys.reverse();
    }
    keys
}

async fn walk(store: &Store, filter: &PTxFilter, order: SortOrder, limit: u32) -> Vec<(u64, u32)> {
    let mut out = Vec::new();
    let mut after: Option<TxCursor> = None;
    loop {
        let page = store
            .list_pchain_txs(filter, order, &PageRequest { limit, after })
            .await
            .unwrap();
        assert!(page.items.len() <= limit as usize);
        out.extend(page.items.iter().map(|t| (t.height, t.tx_index)));
        match page.next {
            Some(c) => {
                assert_eq!(
                    page.items.len(),
                    limit as usize,
                    "a short page must be the last"
                );
                after = Some(c);
            }
            None => return out,
        }
    }
}

fn filters(history: &PHistory) -> Vec<PTxFilter> {
    let mid = history.facts[history.facts.len() / 2].timestamp;
    vec![
        PTxFilter::default(),
        PTxFilter {
            addresses: vec![short(1)],
            ..Default::default()
        },
        PTxFilter {
            addresses: vec![short(1), short(2), short(5)],
            ..Default::default()
        },
        PTxFilter {
            addresses: vec![short(3)],
            tx_types: vec!["BaseTx".into(), "ExportTx".into()],
            ..Default::default()
        },
        PTxFilter {
            addresses: vec![short(0), short(4)],
            start_ts: Some(mid - 2_000),
            end_ts: Some(mid + 2_000),
            ..Default::default()
        },
        PTxFilter {
            tx_types: vec!["ImportTx".into()],
            start_ts: Some(mid),
            ..Default::default()
        },
        PTxFilter {
            l1_validation_id: Some(id(7, 1)),
            ..Default::default()
        },
        PTxFilter {
            l1_validation_id: Some(id(7, 2)),
            addresses: vec![short(2), short(6)],
            ..Default::default()
        },
        PTxFilter {
            addresses: vec![short(99)],
            ..Default::default()
        },
    ]
}

pub async fn pchain_tx_filters_and_paging(store: Store) {
    firn_store::testing::record_reads(&store);
    let mut history = PHistory::new(7, 8);
    let blocks: Vec<_> = (0..150).map(|_| history.next_block()).collect();
    for chunk in blocks.chunks(25) {
        store.commit_pchain_blocks(chunk).await.unwrap();
    }
    for filter in filters(&history) {
        for order in [SortOrder::Asc, SortOrder::Desc] {
            let want = expected(&history.facts, &filter, order);
            for limit in [7, 1_000] {
                let got = walk(&store, &filter, order, limit).await;
                assert_eq!(got, want, "filter {filter:?} order {order:?} limit {limit}");
            }
        }
    }
    // Pages carry the UTXOs.
    let page = store
        .list_pchain_txs(
            &PTxFilter::default(),
            SortOrder::Asc,
            &PageRequest::first(3),
        )
        .await
        .unwrap();
    assert!(page.items.iter().all(|t| t.emitted.len() == 2));
    firn_store::testing::assert_reads_use_indexes(&store).await;
}

pub async fn pchain_paging_is_stable_under_inserts(store: Store) {
    let mut history = PHistory::new(11, 5);
    let blocks: Vec<_> = (0..60).map(|_| history.next_block()).collect();
    store.commit_pchain_blocks(&blocks).await.unwrap();
    let filter = PTxFilter {
        addresses: vec![short(1), short(2)],
        ..Default::default()
    };
    // Newest first: blocks landing between pages are above the cursor and never show up.
    let snapshot = expected(&history.facts, &filter, SortOrder::Desc);
    let mut got = Vec::new();
    let mut after = None;
    loop {
        let page = store
            .list_pchain_txs(&filter, SortOrder::Desc, &PageRequest { limit: 4, after })
            .await
            .unwrap();
        got.extend(page.items.iter().map(|t| (t.height, t.tx_index)));
        let more: Vec<_> = (0..3).map(|_| history.next_block()).collect();
        store.commit_pchain_blocks(&more).await.unwrap();
        match page.next {
            Some(c) => after = Some(c),
            None => break,
        }
    }
    assert_eq!(got, snapshot);
    // Oldest first: new blocks land after the cursor and are reached, once each.
    let mut got = Vec::new();
    let mut after = None;
    let mut pages = 0;
    loop {
        let page = store
            .list_pchain_txs(&filter, SortOrder::Asc, &PageRequest { limit: 5, after })
            .await
            .unwrap();
        got.extend(page.items.iter().map(|t| (t.height, t.tx_index)));
        pages += 1;
        if pages < 6 {
            let more: Vec<_> = (0..2).map(|_| history.next_block()).collect();
            store.commit_pchain_blocks(&more).await.unwrap();
        }
        match page.next {
            Some(c) => after = Some(c),
            None => break,
        }
    }
    assert_eq!(got, expected(&history.facts, &filter, SortOrder::Asc));
}

/// Every filter of the L1 validator list, and the node's word on their balances.
async fn check_l1_lists(store: &Store, on: &L1ValidatorRecord, off: &L1ValidatorRecord) {
    let list = async |filter: L1ValidatorFilter| {
        all_pages(|after| async move {
            let page = PageRequest { limit: 1, after };
            store
                .list_l1_validators(&filter, SortOrder::Asc, &page)
                .await
                .unwrap()
        })
        .await
    };
    let subnet = Some(id(4, 2));
    let both = L1ValidatorFilter {
        subnet_id: subnet,
        include_inactive: true,
        ..L1ValidatorFilter::default()
    };
    assert_eq!(
        list(L1ValidatorFilter {
            subnet_id: subnet,
            ..L1ValidatorFilter::default()
        })
        .await,
        vec![on.clone()]
    );
    let mut want = vec![on.clone(), off.clone()];
    want.sort_by_key(|v| v.validator.validation_id);
    assert_eq!(list(both).await, want);
    let by_node = L1ValidatorFilter {
        node_id: Some(node(8)),
        include_inactive: true,
        ..L1ValidatorFilter::default()
    };
    assert_eq!(list(by_node).await, vec![off.clone()]);
    let by_validation = L1ValidatorFilter {
        validation_id: Some(id(7, 1)),
        ..L1ValidatorFilter::default()
    };
    assert_eq!(list(by_validation).await, vec![on.clone()]);
    let elsewhere = L1ValidatorFilter {
        subnet_id: Some(id(9, 9)),
        include_inactive: true,
        ..L1ValidatorFilter::default()
    };
    assert!(list(elsewhere).await.is_empty());

    let seen = |balance: u64, height: u64| L1Observation {
        validation_id: id(7, 1),
        balance,
        height,
        observed_at: T + height,
    };
    let ids = [id(7, 1), id(7, 2)];
    assert!(store.list_l1_observations(&ids).await.unwrap().is_empty());
    store
        .record_l1_observations(&[seen(u64::MAX - 1, 3)])
        .await
        .unwrap();
    store.record_l1_observations(&[seen(7, 4)]).await.unwrap();
    assert_eq!(
        store.list_l1_observations(&ids).await.unwrap(),
        vec![seen(7, 4)]
    );
}
