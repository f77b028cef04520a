//! Owners' UTXOs: every list order and filter against a model of the generated history, the
//! balances of every kind at several moments, the last activity, and an older store's owners
//! and their balance columns derived at open.

use std::collections::BTreeMap;

use firn_core::ids::{Id, ShortId};
use firn_store::page::UtxoCursor;
use firn_store::rows::pchain::{PChainBlockRows, PUtxo};
use firn_store::rows::utxos::{BalanceKind, UtxoActivity};
use firn_store::{
    PChainReader, PChainWriter, PageRequest, SortOrder, Store, UtxoFilter, UtxoSort, XChainReader,
};

use firn_store::testing::StoreUrl;

use crate::fixtures::{PHistory, all_pages, avax, id, pblock, ptx, short, utxo};
use crate::upgraded::undo_and_reopen;

/// A UTXO as the model remembers it.
#[derive(Debug, Clone)]
struct Owned {
    utxo: PUtxo,
    height: u64,
    ts: u64,
    /// Spending (height, time, tx).
    spent: Option<(u64, u64, Id)>,
}

fn model(blocks: &[PChainBlockRows]) -> BTreeMap<Id, Owned> {
    let mut out: BTreeMap<Id, Owned> = BTreeMap::new();
    for b in blocks {
        let (height, ts) = (b.block.height, b.block.timestamp);
        for tx in &b.txs {
            for c in &tx.consumed {
                if let Some(o) = out.get_mut(c) {
                    o.spent = Some((height, ts, tx.core.tx_hash));
                }
            }
            for u in &tx.emitted {
                out.insert(
                    u.utxo_id,
                    Owned {
                        utxo: u.clone(),
                        height,
                        ts,
                        spent: None,
                    },
                );
            }
        }
    }
    out
}

fn owned_by<'a>(
    m: &'a BTreeMap<Id, Owned>,
    addresses: &'a [ShortId],
) -> impl Iterator<Item = &'a Owned> + 'a {
    m.values()
        .filter(|o| o.utxo.addresses.iter().any(|a| addresses.contains(a)))
}

/// The history, then a block of UTXOs of every kind for `short(100..=102)` at `ts`, and one
/// spending the first of them at `ts + 3_000`.
fn history() -> (Vec<PChainBlockRows>, u64) {
    let mut h = PHistory::new(71, 6);
    let mut blocks: Vec<_> = (0..400).map(|_| h.next_block()).collect();
    let ts = h.ts + 10;
    let (who, other, rich) = (short(100), short(101), short(102));
    let maker = id(0x5a, 1);
    let mut tx = ptx(maker, "BaseTx");
    let mut kinds = Vec::new();
    let mut add = |i: u32, amount: u64, f: &dyn Fn(&mut PUtxo)| {
        let mut u = utxo(maker, i, who, amount);
        f(&mut u);
        kinds.push(u);
    };
    add(0, 5, &|_| {});
    add(1, 7, &|u| u.locktime = ts + 1_000);
    add(2, 11, &|u| u.locktime = u64::MAX);
    add(3, 13, &|u| u.stakeable_locktime = Some(ts + 500));
    let stake = |start: u64, lock: Option<u64>| {
        move |u: &mut PUtxo| {
            u.staked = true;
            u.start_ts = Some(start);
            u.end_ts = Some(ts + 2_000);
            u.stakeable_locktime = lock;
        }
    };
    add(4, 17, &stake(ts, None));
    add(5, 19, &stake(ts + 100, None));
    add(6, 23, &stake(ts, Some(ts + 5_000)));
    add(7, 29, &|u| u.consumed_on_chain = id(3, 3));
    add(8, 31, &|u| u.addresses = vec![who, other]);
    add(9, 3 << 61, &|u| u.addresses = vec![rich]);
    add(10, 3 << 61, &|u| u.addresses = vec![rich]);
    tx.emitted = kinds;
    let first = tx.emitted[0].utxo_id;
    blocks.push(pblock(h.height + 1, ts, vec![tx]));
    let mut spend = ptx(id(0x5a, 2), "BaseTx");
    spend.consumed = vec![first];
    blocks.push(pblock(h.height + 2, ts + 3_000, vec![spend]));
    (blocks, ts)
}

pub async fn utxo_lists_balances_and_last_activity(store: Store) {
    let (blocks, ts) = history();
    // In batches: UTXOs are spent both in the batch that created them and in later ones.
    for batch in blocks.chunks(50) {
        store.commit_pchain_blocks(batch).await.unwrap();
    }
    let m = model(&blocks);
    check_lists(&store, &m).await;
    check_balances(&store, ts).await;
    check_last_activity(&store, &m).await;
}

async fn check_lists(store: &Store, m: &BTreeMap<Id, Owned>) {
    let all: Vec<ShortId> = (0..6).map(short).collect();
    let sets: [&[ShortId]; 4] = [
        &[short(0)],
        &[short(1), short(2), short(1)],
        &all,
        &[short(100), short(101)],
    ];
    let mut seen_spent = false;
    for addresses in sets {
        for sort in [UtxoSort::Created, UtxoSort::Amount] {
            for order in [SortOrder::Asc, SortOrder::Desc] {
                for include_spent in [false, true] {
                    for min_amount in [None, Some(500_000)] {
                        let filter = UtxoFilter {
                            addresses: addresses.to_vec(),
                            asset_id: None,
                            min_amount,
                            include_spent,
                            sort,
                        };
                        let key = |o: &Owned| match sort {
                            UtxoSort::Created => o.height,
                            UtxoSort::Amount => o.utxo.amount,
                        };
                        // Unspent means the P-Chain's to spend: not exported elsewhere.
                        let mut want: Vec<(u64, Id)> = owned_by(m, addresses)
                            .filter(|o| {
                                include_spent
                                    || (o.spent.is_none()
                                        && o.utxo.consumed_on_chain
                                            == firn_core::network::P_CHAIN_ID)
                            })
                            .filter(|o| min_amount.is_none_or(|min| o.utxo.amount >= min))
                            .map(|o| (key(o), o.utxo.utxo_id))
                            .collect();
                        want.sort();
                        if order == SortOrder::Desc {
                            want.reverse();
                        }
                        let got = all_pages(|after| {
                            let filter = filter.clone();
                            async move {
                                let page = PageRequest { limit: 7, after };
                                store.list_utxos(&filter, order, &page).await.unwrap()
                            }
                        })
                        .await;
                        for u in &got {
                            let o = &m[&u.utxo.utxo_id];
                            assert_eq!(u.utxo, o.utxo);
                            assert_eq!((u.height, u.timestamp), (o.height, o.ts));
                            let spent = u.consumed.map(|c| (c.height, c.timestamp, c.tx_hash));
                            assert_eq!(spent, o.spent);
                            seen_spent |= spent.is_some();
                        }
                        let got: Vec<(u64, Id)> = got
                            .iter()
                            .map(|u| (key(&m[&u.utxo.utxo_id]), u.utxo.utxo_id))
                            .collect();
                        let special = addresses.contains(&short(100));
                        assert!(
                            want.len() > 7 || special,
                            "{filter:?}: too few UTXOs to page"
                        );
                        assert_eq!(got, want, "{filter:?} {order:?}");
                    }
                }
            }
        }
    }
    assert!(seen_spent, "spent UTXOs listed with includeSpent");

    // The asset filter, and a minimum no UTXO reaches.
    let mut filter = UtxoFilter {
        addresses: vec![short(0)],
        include_spent: true,
        ..UtxoFilter::default()
    };
    let everything = store
        .list_utxos(&filter, SortOrder::Asc, &PageRequest::first(10_000))
        .await
        .unwrap();
    filter.asset_id = Some(avax());
    let avax_only = store
        .list_utxos(&filter, SortOrder::Asc, &PageRequest::first(10_000))
        .await
        .unwrap();
    assert_eq!(avax_only.items, everything.items);
    filter.asset_id = Some(id(9, 2));
    let none = store
        .list_utxos(&filter, SortOrder::Asc, &PageRequest::first(10))
        .await
        .unwrap();
    assert!(none.items.is_empty() && none.next.is_none());
    filter.asset_id = None;
    filter.min_amount = Some(u64::MAX);
    let none = store
        .list_utxos(&filter, SortOrder::Desc, &PageRequest::first(10))
        .await
        .unwrap();
    assert!(none.items.is_empty());
    // A cursor past the end.
    let past = PageRequest::after(
        10,
        UtxoCursor {
            key: u64::MAX >> 1,
            utxo_id: Id([0xff; 32]),
        },
    );
    filter.min_amount = None;
    let none = store
        .list_utxos(&filter, SortOrder::Asc, &past)
        .await
        .unwrap();
    assert!(none.items.is_empty());
}

async fn check_balances(store: &Store, ts: u64) {
    use BalanceKind::*;
    let who = [short(100), short(101)];
    let at = async |t: u64| -> BTreeMap<&'static str, (u128, u64)> {
        store
            .list_balances(&who, t)
            .await
            .unwrap()
            .into_iter()
            .map(|s| {
                assert_eq!(s.asset_id, avax());
                (s.kind.as_str(), (s.amount, s.utxo_count))
            })
            .collect()
    };
    let want = |items: &[(BalanceKind, u128, u64)]| -> BTreeMap<&'static str, (u128, u64)> {
        items
            .iter()
            .map(|(k, a, n)| (k.as_str(), (*a, *n)))
            .collect()
    };
    assert!(
        at(ts - 1).await.is_empty(),
        "nothing before the UTXOs exist"
    );
    assert_eq!(
        at(ts).await,
        want(&[
            (UnlockedUnstaked, 5 + 31, 2),
            (LockedPlatform, 7 + 11, 2),
            (LockedStakeable, 13, 1),
            (UnlockedStaked, 17, 1),
            (PendingStaked, 19, 1),
            (LockedStaked, 23, 1),
        ])
    );
    assert_eq!(
        at(ts + 1_500).await,
        want(&[
            (UnlockedUnstaked, 5 + 31 + 7 + 13, 4),
            (LockedPlatform, 11, 1),
            (UnlockedStaked, 17 + 19, 2),
            (LockedStaked, 23, 1),
        ])
    );
    // The staking period is over: the stake is the owner's again, still stakeable-locked.
    assert_eq!(
        at(ts + 2_500).await,
        want(&[
            (UnlockedUnstaked, 5 + 31 + 7 + 13 + 17 + 19, 6),
            (LockedPlatform, 11, 1),
            (LockedStakeable, 23, 1),
        ])
    );
    // The first UTXO is spent at ts + 3,000.
    assert_eq!(
        at(ts + 3_000).await,
        want(&[
            (UnlockedUnstaked, 31 + 7 + 13 + 17 + 19, 5),
            (LockedPlatform, 11, 1),
            (LockedStakeable, 23, 1),
        ])
    );
    // Sums past what a signed 64-bit column holds.
    let rich = store.list_balances(&[short(102)], ts).await.unwrap();
    assert_eq!(rich.len(), 1);
    assert_eq!(rich[0].kind, UnlockedUnstaked);
    assert_eq!(rich[0].amount, 2 * (3u128 << 61));
    assert!(
        store
            .list_balances(&[short(99)], ts)
            .await
            .unwrap()
            .is_empty()
    );
}

async fn check_last_activity(store: &Store, m: &BTreeMap<Id, Owned>) {
    let sets: [&[ShortId]; 5] = [
        &[short(0)],
        &[short(3), short(4)],
        &[short(100)],
        &[short(101)],
        &[short(102), short(5)],
    ];
    for addresses in sets {
        // Newest block first; in one block the outputs come after the spending.
        let want = owned_by(m, addresses)
            .flat_map(|o| {
                let created = UtxoActivity {
                    utxo_id: o.utxo.utxo_id,
                    tx_hash: o.utxo.tx_hash,
                    height: o.height,
                    timestamp: o.ts,
                    consumed: false,
                };
                let spent = o.spent.map(|(height, timestamp, tx_hash)| UtxoActivity {
                    utxo_id: o.utxo.utxo_id,
                    tx_hash,
                    height,
                    timestamp,
                    consumed: true,
                });
                [Some(created), spent]
            })
            .flatten()
            .max_by_key(|a| (a.height, !a.consumed, a.utxo_id));
        let got = store.find_last_activity(addresses).await.unwrap();
        assert!(want.is_some());
        assert_eq!(got, want, "{addresses:?}");
    }
    let spent = store
        .find_last_activity(&[short(100)])
        .await
        .unwrap()
        .unwrap();
    assert!(spent.consumed, "the last thing short(100) did was spend");
    assert_eq!(store.find_last_activity(&[short(99)]).await.unwrap(), None);
}

/// The questions an upgraded store must answer as before: each owner's UTXO lists (all, unspent,
/// unspent of an asset), balances at several moments and last activity.
async fn answers(store: &Store, ts: u64) -> Vec<String> {
    let mut out = Vec::new();
    let owners = (0..6).map(|i| vec![short(i)]);
    let ours = [
        vec![short(100)],
        vec![short(101)],
        vec![short(100), short(101)],
    ];
    for a in owners.chain(ours) {
        for (include_spent, asset_id) in [(true, None), (false, None), (false, Some(avax()))] {
            let filter = UtxoFilter {
                addresses: a.clone(),
                include_spent,
                asset_id,
                ..UtxoFilter::default()
            };
            let page = store
                .list_utxos(&filter, SortOrder::Desc, &PageRequest::first(10_000))
                .await
                .unwrap();
            out.push(format!("{:?}", page.items));
        }
        for t in [ts, ts + 1_500, ts + 3_000] {
            let sums = store.list_balances(&a, t).await.unwrap();
            out.push(format!("{sums:?}"));
        }
        out.push(format!("{:?}", store.find_last_activity(&a).await.unwrap()));
    }
    assert!(
        out.iter().any(|a| a.contains("LockedStaked")),
        "the answers cover the kinds of balance"
    );
    out
}

async fn same_answers_after(url: StoreUrl, undo: &[&str]) {
    let (blocks, ts) = history();
    let store = url.open().await;
    store.commit_pchain_blocks(&blocks).await.unwrap();
    let fresh = answers(&store, ts).await;
    let store = undo_and_reopen(&url, store, undo).await;
    assert_eq!(answers(&store, ts).await, fresh);
    store.close().await;
}

/// A store made before version 14 gets its owners filed from the UTXOs it holds (versions 33
/// and 35, which add to their table, are undone with it).
pub async fn older_store_gets_utxo_owners(url: StoreUrl) {
    let undo = [
        "DROP TABLE p_utxo_owners",
        "DELETE FROM store_upgrades",
        "DELETE FROM _sqlx_migrations WHERE version IN (14, 33, 35)",
    ];
    same_answers_after(url, &undo).await;
}

/// A store made before version 33 gets what balances need on its owners' rows (and version
/// 35's index of them).
pub async fn older_store_gets_owner_balances(url: StoreUrl) {
    let undo = [
        "DROP INDEX p_utxo_owners_unspent_by_height",
        "ALTER TABLE p_utxo_owners DROP COLUMN asset_id",
        "ALTER TABLE p_utxo_owners DROP COLUMN locktime",
        "ALTER TABLE p_utxo_owners DROP COLUMN stakeable_locktime",
        "ALTER TABLE p_utxo_owners DROP COLUMN staked",
        "ALTER TABLE p_utxo_owners DROP COLUMN start_ts",
        "ALTER TABLE p_utxo_owners DROP COLUMN end_ts",
        "ALTER TABLE p_utxo_owners DROP COLUMN exported",
        "CREATE INDEX p_utxo_owners_unspent_by_height ON p_utxo_owners (address, height, utxo_id) \
         WHERE spent_height IS NULL",
        "DELETE FROM _sqlx_migrations WHERE version IN (33, 35)",
    ];
    same_answers_after(url, &undo).await;
}

/// An address's balances at the head read one index and never the table, on both chains:
/// SQLite checks a partial index's condition from the index's own columns, so the index must
/// hold `spent_height` as well as what is summed. Every order of a UTXO list walks an index
/// instead of sorting the owner's UTXOs.
#[tokio::test]
async fn sqlite_balances_and_lists_walk_indexes() {
    let db = firn_store::testing::TestDb::sqlite();
    let store = db.open().await;
    let (blocks, ts) = history();
    store.commit_pchain_blocks(&blocks).await.unwrap();
    firn_store::testing::record_reads(&store);
    store
        .list_balances(&[short(100)], ts + 10_000)
        .await
        .unwrap();
    store.list_xchain_balances(&[short(100)], ts).await.unwrap();
    for include_spent in [false, true] {
        for sort in [UtxoSort::Created, UtxoSort::Amount] {
            let filter = UtxoFilter {
                addresses: vec![short(100), short(101)],
                include_spent,
                sort,
                ..UtxoFilter::default()
            };
            let page = PageRequest::first(2);
            store
                .list_utxos(&filter, SortOrder::Asc, &page)
                .await
                .unwrap();
        }
    }
    let plans = firn_store::testing::recorded_plans(&store).await;
    let sorted: Vec<_> = plans
        .iter()
        .filter(|(_, plan)| plan.iter().any(|s| s.contains("TEMP B-TREE FOR ORDER BY")))
        .collect();
    assert!(sorted.is_empty(), "{sorted:#?}");
    for owners in ["p_utxo_owners", "x_utxo_owners"] {
        let (text, plan) = plans
            .iter()
            .find(|(text, _)| text.contains(owners))
            .unwrap_or_else(|| panic!("a read of {owners}: {plans:#?}"));
        assert!(
            plan.iter()
                .any(|step| step.contains("USING COVERING INDEX")),
            "{text}\n{plan:#?}"
        );
    }
    store.close().await;
}
