//! X-Chain: round trips of blocks, txs, UTXOs and assets; lists by address and asset with
//! keyset paging; balances as `avm.getAllBalances` counts them; atomicity and idempotence; an
//! older store's owner rows given their balance columns at open.

use std::collections::BTreeSet;

use firn_core::ids::{Id, ShortId};
use firn_store::page::{HeightCursor, TxCursor};
use firn_store::rows::ChainKey;
use firn_store::rows::xchain::{AssetKind, XAsset, XBalance, XChainBlockRows, XOutputKind, XUtxo};
use firn_store::{
    CursorStore, PageRequest, SortOrder, Store, StoreError, XBlockFilter, XChainReader,
    XChainWriter, XTxFilter, XUtxoFilter,
};

use firn_store::testing::StoreUrl;

use crate::fixtures::{all_pages, avax, id, short};
pub(crate) use crate::fixtures::{x_coins as coins, x_tx as tx};
use crate::upgraded::undo_and_reopen;

pub(crate) use crate::fixtures::{X_T as T, x_block as block};

fn nft(
    tx_id: Id,
    index: u32,
    kind: XOutputKind,
    owner: ShortId,
    payload: Option<Vec<u8>>,
) -> XUtxo {
    XUtxo {
        kind,
        amount: None,
        group_id: Some(0),
        payload,
        ..coins(tx_id, index, tx_id, &[owner], 0)
    }
}

fn asset(asset_id: Id, name: &str, kind: AssetKind) -> XAsset {
    XAsset {
        asset_id,
        name: name.to_owned(),
        symbol: name[..3].to_uppercase(),
        denomination: 2,
        kind,
    }
}

struct Scenario {
    blocks: Vec<XChainBlockRows>,
    a: ShortId,
    b: ShortId,
    c: ShortId,
    /// Genesis UTXOs: 1000 to A, 500 to B, 300 to A and B, 200 to A locked.
    g: [Id; 4],
    /// BaseTx, gold CreateAssetTx, NFT family CreateAssetTx, NFT OperationTx, gold BaseTx.
    t: [Id; 5],
}

/// Five blocks: genesis AVAX with block 0, a send, a fixed-cap asset and an NFT family, an
/// NFT mint and a send of the asset, and an empty block.
fn scenario() -> Scenario {
    let (a, b, c) = (short(1), short(2), short(3));
    let g_id = avax();
    let mut locked = coins(g_id, 3, g_id, &[a], 200);
    locked.locktime = T + 1_000_000;
    let mut genesis = tx(
        g_id,
        "CreateAssetTx",
        vec![],
        vec![
            coins(g_id, 0, g_id, &[a], 1_000),
            coins(g_id, 1, g_id, &[b], 500),
            coins(g_id, 2, g_id, &[a, b], 300),
            locked,
        ],
    );
    genesis.genesis = true;
    genesis.asset = Some(asset(g_id, "Avalanche", AssetKind::FixedCap));
    let g: [Id; 4] = std::array::from_fn(|i| g_id.prefix(i as u64));
    let t: [Id; 5] = std::array::from_fn(|i| id(5, i as u64 + 1));
    let send = tx(
        t[0],
        "BaseTx",
        vec![g[0]],
        vec![
            coins(t[0], 0, g_id, &[b], 600),
            coins(t[0], 1, g_id, &[a], 399),
        ],
    );
    let mut gold = tx(
        t[1],
        "CreateAssetTx",
        vec![t[0].prefix(1)],
        vec![
            coins(t[1], 0, g_id, &[a], 398),
            coins(t[1], 1, t[1], &[c], 1_000_000),
        ],
    );
    gold.asset = Some(asset(t[1], "Gold", AssetKind::FixedCap));
    let mut family = tx(
        t[2],
        "CreateAssetTx",
        vec![],
        vec![nft(t[2], 0, XOutputKind::NftMint, a, None)],
    );
    family.asset = Some(asset(t[2], "Apes", AssetKind::NftFamily));
    let mut mint = tx(
        t[3],
        "OperationTx",
        vec![t[2].prefix(0)],
        vec![
            nft(t[3], 0, XOutputKind::NftMint, a, None),
            nft(t[3], 1, XOutputKind::NftTransfer, b, Some(vec![1, 2, 3])),
        ],
    );
    for u in &mut mint.produced {
        u.asset_id = t[2];
    }
    // Also consumes a UTXO the store never saw (a tx that could not be derived): passed over.
    let pay = tx(
        t[4],
        "BaseTx",
        vec![id(7, 7), t[1].prefix(1)],
        vec![coins(t[4], 0, t[1], &[b], 1_000_000)],
    );
    Scenario {
        blocks: vec![
            block(0, vec![genesis]),
            block(1, vec![send]),
            block(2, vec![gold, family]),
            block(3, vec![mint, pay]),
            block(4, vec![]),
        ],
        a,
        b,
        c,
        g,
        t,
    }
}

async fn tx_ids(store: &Store, filter: XTxFilter, limit: u32) -> Vec<Id> {
    let txs = all_pages(|after| {
        let (store, filter) = (store.clone(), filter.clone());
        async move {
            let page = PageRequest { limit, after };
            store
                .list_xchain_txs(&filter, SortOrder::Desc, &page)
                .await
                .unwrap()
        }
    })
    .await;
    txs.into_iter().map(|t| t.tx_id).collect()
}

async fn utxo_ids(store: &Store, filter: XUtxoFilter, limit: u32) -> Vec<Id> {
    let utxos = all_pages(|after| {
        let (store, filter) = (store.clone(), filter.clone());
        async move {
            let page = PageRequest { limit, after };
            store
                .list_xchain_utxos(&filter, SortOrder::Desc, &page)
                .await
                .unwrap()
        }
    })
    .await;
    utxos.into_iter().map(|u| u.utxo.utxo_id).collect()
}

pub async fn xchain_round_trip(store: Store) {
    let s = scenario();
    let outcome = store.commit_xchain_blocks(&s.blocks).await.unwrap();
    assert_eq!(outcome.committed, 5);
    assert_eq!(store.find_cursor(ChainKey::XChain).await.unwrap(), Some(4));

    // Blocks by height and ID; missing ones are errors that name the key.
    for rows in &s.blocks {
        let h = rows.block.height;
        assert_eq!(
            store.get_xchain_block_by_height(h).await.unwrap(),
            rows.block
        );
        assert_eq!(
            store
                .get_xchain_block_by_id(rows.block.block_id)
                .await
                .unwrap(),
            rows.block
        );
    }
    let err = store.get_xchain_block_by_height(5).await.unwrap_err();
    assert!(matches!(err, StoreError::NotFound { .. }), "{err}");
    assert!(err.to_string().contains('5'), "{err}");
    let err = store
        .get_xchain_block_by_id(id(0x0b, 99))
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::NotFound { .. }), "{err}");

    // Blocks newest first, paged: full pages, a page ending exactly at the last block, and
    // oldest first.
    let first = store
        .list_xchain_blocks(
            &XBlockFilter::default(),
            SortOrder::Desc,
            &PageRequest::first(2),
        )
        .await
        .unwrap();
    let heights: Vec<u64> = first.items.iter().map(|b| b.height).collect();
    assert_eq!(heights, [4, 3]);
    assert_eq!(first.next, Some(HeightCursor { height: 3 }));
    let rest = store
        .list_xchain_blocks(
            &XBlockFilter::default(),
            SortOrder::Desc,
            &PageRequest::after(3, HeightCursor { height: 3 }),
        )
        .await
        .unwrap();
    let heights: Vec<u64> = rest.items.iter().map(|b| b.height).collect();
    assert_eq!((heights, rest.next), (vec![2, 1, 0], None));
    let all = store
        .list_xchain_blocks(
            &XBlockFilter::default(),
            SortOrder::Desc,
            &PageRequest::first(5),
        )
        .await
        .unwrap();
    assert_eq!((all.items.len(), all.next), (5, None));
    let four = store
        .list_xchain_blocks(
            &XBlockFilter::default(),
            SortOrder::Desc,
            &PageRequest::first(4),
        )
        .await
        .unwrap();
    assert_eq!(four.next, Some(HeightCursor { height: 1 }));
    let asc = store
        .list_xchain_blocks(
            &XBlockFilter::default(),
            SortOrder::Asc,
            &PageRequest::after(10, HeightCursor { height: 2 }),
        )
        .await
        .unwrap();
    let heights: Vec<u64> = asc.items.iter().map(|b| b.height).collect();
    assert_eq!(heights, [3, 4]);

    // A tx with what it consumed and produced.
    let send = store.get_xchain_tx(s.t[0]).await.unwrap();
    assert_eq!((send.height, send.index, send.timestamp), (1, 0, T + 10));
    assert_eq!((send.tx_type.as_str(), send.genesis), ("BaseTx", false));
    assert_eq!(send.bytes, s.t[0].0.to_vec());
    assert_eq!(send.memo, vec![1]);
    let consumed: Vec<Id> = send.consumed.iter().map(|u| u.utxo.utxo_id).collect();
    assert_eq!(consumed, [s.g[0]]);
    let spent = send.consumed[0].consumed.unwrap();
    assert_eq!(
        (spent.tx_id, spent.height, spent.timestamp),
        (s.t[0], 1, T + 10)
    );
    assert_eq!(send.produced.len(), 2);
    assert_eq!(send.produced[0].utxo, s.blocks[1].txs[0].produced[0]);
    // The UTXO consumed later says by whom.
    assert_eq!(send.produced[1].consumed.unwrap().tx_id, s.t[1]);
    assert_eq!(send.produced[0].consumed, None);

    // The genesis tx is found by its asset's ID, at height 0 first.
    let g = store.get_xchain_tx(avax()).await.unwrap();
    assert!(g.genesis);
    assert_eq!((g.height, g.index, g.produced.len()), (0, 0, 4));
    let nfts = store.get_xchain_tx(s.t[3]).await.unwrap();
    assert_eq!(nfts.produced[1].utxo.payload, Some(vec![1, 2, 3]));
    assert_eq!(nfts.produced[1].utxo.kind, XOutputKind::NftTransfer);
    assert_eq!(nfts.produced[1].utxo.group_id, Some(0));
    // A consumed UTXO the store never held is passed over.
    let pay = store.get_xchain_tx(s.t[4]).await.unwrap();
    assert_eq!(pay.consumed.len(), 1);
    let err = store.get_xchain_tx(id(5, 99)).await.unwrap_err();
    assert!(matches!(err, StoreError::NotFound { .. }), "{err}");

    // Assets.
    let gold = store.get_asset(s.t[1]).await.unwrap();
    assert_eq!(gold.asset, s.blocks[2].txs[0].asset.clone().unwrap());
    assert_eq!(
        (gold.tx_id, gold.height, gold.timestamp),
        (s.t[1], 2, T + 20)
    );
    let avax_asset = store.get_asset(avax()).await.unwrap();
    assert_eq!(
        (avax_asset.height, avax_asset.asset.kind),
        (0, AssetKind::FixedCap)
    );
    assert_eq!(
        store.get_asset(s.t[2]).await.unwrap().asset.kind,
        AssetKind::NftFamily
    );
    let err = store.get_asset(id(5, 99)).await.unwrap_err();
    assert!(matches!(err, StoreError::NotFound { .. }), "{err}");

    // Txs newest first, by address, by asset, by both, at every page size.
    let [t1, t2, t3, t4, t5] = s.t;
    let g = avax();
    let cases: Vec<(XTxFilter, Vec<Id>)> = vec![
        (XTxFilter::default(), vec![t5, t4, t3, t2, t1, g]),
        (by(&[s.a], None), vec![t4, t3, t2, t1, g]),
        (by(&[s.b], None), vec![t5, t4, t1, g]),
        (by(&[s.c], None), vec![t5, t2]),
        (by(&[s.b, s.c, s.b], None), vec![t5, t4, t2, t1, g]),
        (by(&[], Some(t2)), vec![t5, t2]),
        (by(&[s.a], Some(g)), vec![t2, t1, g]),
        (by(&[s.c], Some(g)), vec![]),
        (by(&[short(9)], None), vec![]),
    ];
    for (filter, want) in &cases {
        for limit in [1, 2, 5, 6, 100] {
            assert_eq!(
                &tx_ids(&store, filter.clone(), limit).await,
                want,
                "{filter:?} by {limit}"
            );
        }
    }
    // A page that ends exactly at the last tx has no next page; one short of it has.
    let page = store
        .list_xchain_txs(
            &XTxFilter::default(),
            SortOrder::Desc,
            &PageRequest::first(6),
        )
        .await
        .unwrap();
    assert_eq!(page.next, None);
    let page = store
        .list_xchain_txs(
            &XTxFilter::default(),
            SortOrder::Desc,
            &PageRequest::first(5),
        )
        .await
        .unwrap();
    assert_eq!(
        page.next,
        Some(TxCursor {
            height: 1,
            index: 0
        })
    );
    // Listed txs carry their UTXOs as the single read does.
    assert_eq!(page.items[3], store.get_xchain_tx(t2).await.unwrap());
    let asc = store
        .list_xchain_txs(&by(&[s.b], None), SortOrder::Asc, &PageRequest::first(10))
        .await
        .unwrap();
    let ids: Vec<Id> = asc.items.iter().map(|t| t.tx_id).collect();
    assert_eq!(ids, [g, t1, t4, t5]);

    // Unspent UTXOs newest first, one owner's and several's (kept once), by asset.
    // Ties in height go by UTXO ID.
    let mut a_utxos = vec![t4.prefix(0), t2.prefix(0), s.g[3], s.g[2]];
    a_utxos[2..].sort_by(|x, y| y.cmp(x));
    let mut ab_avax = vec![t2.prefix(0), t1.prefix(0), s.g[3], s.g[2], s.g[1]];
    ab_avax[2..].sort_by(|x, y| y.cmp(x));
    for limit in [1, 2, 4, 100] {
        let f = XUtxoFilter {
            addresses: vec![s.a],
            asset_id: None,
            ..XUtxoFilter::default()
        };
        assert_eq!(utxo_ids(&store, f, limit).await, a_utxos, "A by {limit}");
        let f = XUtxoFilter {
            addresses: vec![s.a, s.b],
            asset_id: Some(g),
            ..XUtxoFilter::default()
        };
        assert_eq!(utxo_ids(&store, f, limit).await, ab_avax, "A, B by {limit}");
    }
    let none = XUtxoFilter::default();
    assert!(utxo_ids(&store, none, 10).await.is_empty());

    // Balances: single-owner unlocked outputs are spendable, every output counts in total.
    let balances = store.list_xchain_balances(&[s.a], T + 50).await.unwrap();
    assert_eq!(
        balances,
        [XBalance {
            asset_id: g,
            spendable: 398,
            total: 898,
            utxo_count: 3,
            unlocked: 698,
            unlocked_count: 2,
        }]
    );
    let later = store
        .list_xchain_balances(&[s.a], T + 1_000_000)
        .await
        .unwrap();
    assert_eq!(later[0].spendable, 598, "the lock has passed");
    assert_eq!((later[0].unlocked, later[0].unlocked_count), (898, 3));
    let mut both = store
        .list_xchain_balances(&[s.a, s.b, s.a], T + 50)
        .await
        .unwrap();
    both.sort_by_key(|b| b.asset_id);
    let mut want = vec![
        XBalance {
            asset_id: g,
            spendable: 500 + 600 + 398,
            total: 500 + 300 + 200 + 600 + 398,
            utxo_count: 5,
            unlocked: 500 + 300 + 600 + 398,
            unlocked_count: 4,
        },
        XBalance {
            asset_id: t2,
            spendable: 1_000_000,
            total: 1_000_000,
            utxo_count: 1,
            unlocked: 1_000_000,
            unlocked_count: 1,
        },
    ];
    want.sort_by_key(|b| b.asset_id);
    assert_eq!(both, want);
    assert!(
        store
            .list_xchain_balances(&[s.c], T)
            .await
            .unwrap()
            .is_empty(),
        "C spent it all"
    );
    assert!(store.list_xchain_balances(&[], T).await.unwrap().is_empty());
}

fn by(addresses: &[ShortId], asset_id: Option<Id>) -> XTxFilter {
    XTxFilter {
        addresses: addresses.to_vec(),
        asset_id,
        ..XTxFilter::default()
    }
}

pub async fn xchain_failed_batch_leaves_nothing(store: Store) {
    let s = scenario();
    store.commit_xchain_blocks(&s.blocks[..2]).await.unwrap();
    // Block 3 repeats a tx ID: the batch [2, 3] fails as a whole.
    let mut bad = s.blocks[3].clone();
    bad.txs[1].tx_id = s.t[0];
    let err = store
        .commit_xchain_blocks(&[s.blocks[2].clone(), bad])
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Database(_)), "{err}");
    assert_eq!(store.find_cursor(ChainKey::XChain).await.unwrap(), Some(1));
    assert!(store.get_xchain_block_by_height(2).await.is_err());
    assert!(store.get_xchain_tx(s.t[1]).await.is_err());
    assert!(store.get_asset(s.t[1]).await.is_err());
    // What block 2 consumed is still unspent.
    let send = store.get_xchain_tx(s.t[0]).await.unwrap();
    assert_eq!(send.produced[1].consumed, None);
    let a = XUtxoFilter {
        addresses: vec![s.a],
        asset_id: None,
        ..XUtxoFilter::default()
    };
    assert_eq!(utxo_ids(&store, a.clone(), 10).await.len(), 3);
    // The good blocks then commit.
    let outcome = store.commit_xchain_blocks(&s.blocks[2..]).await.unwrap();
    assert_eq!(outcome.committed, 3);
    assert_eq!(utxo_ids(&store, a, 10).await.len(), 4);
}

pub async fn xchain_recommit_is_a_noop(store: Store) {
    let s = scenario();
    store.commit_xchain_blocks(&s.blocks[..3]).await.unwrap();
    let again = store.commit_xchain_blocks(&s.blocks[..3]).await.unwrap();
    assert_eq!((again.committed, again.skipped), (0, 3));
    let mixed = store.commit_xchain_blocks(&s.blocks[2..]).await.unwrap();
    assert_eq!((mixed.committed, mixed.skipped), (2, 1));
    assert_eq!(
        tx_ids(&store, XTxFilter::default(), 100).await.len(),
        6,
        "no duplicates"
    );
    let b = store.list_xchain_balances(&[s.a], T + 50).await.unwrap();
    assert_eq!(b[0].total, 898, "counted once");
    // Same height, another block: refused.
    let mut other = s.blocks[1].clone();
    other.block.block_id = id(0x0b, 999);
    let err = store.commit_xchain_blocks(&[other]).await.unwrap_err();
    assert!(
        matches!(err, StoreError::ConflictingBlock { height: 1, .. }),
        "{err}"
    );
    // A gap: refused, saying where the cursor is.
    let err = store
        .commit_xchain_blocks(&[block(6, vec![])])
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            StoreError::OutOfOrder {
                cursor: 4,
                height: 6,
                ..
            }
        ),
        "{err}"
    );
}

pub async fn xchain_filters(store: Store) {
    let s = scenario();
    store.commit_xchain_blocks(&s.blocks).await.unwrap();
    let [t1, t2, t3, t4, t5] = s.t;
    let g = avax();
    let of = |addresses: &[ShortId], types: &[&str], start_ts, end_ts| XTxFilter {
        addresses: addresses.to_vec(),
        tx_types: types.iter().map(|t| (*t).to_owned()).collect(),
        start_ts,
        end_ts,
        ..XTxFilter::default()
    };

    // By type, one or several.
    for limit in [1, 2, 10] {
        let f = of(&[s.a], &["CreateAssetTx"], None, None);
        assert_eq!(tx_ids(&store, f, limit).await, [t3, t2, g], "by {limit}");
        let f = of(&[s.a], &["BaseTx", "OperationTx"], None, None);
        assert_eq!(tx_ids(&store, f, limit).await, [t4, t1], "by {limit}");
        let f = of(&[], &["BaseTx"], None, None);
        assert_eq!(tx_ids(&store, f, limit).await, [t5, t1], "by {limit}");
    }
    // By time (blocks are 10 s apart): windows are inclusive, and one between blocks is empty.
    let f = of(&[s.a], &[], Some(T + 20), None);
    assert_eq!(tx_ids(&store, f, 1).await, [t4, t3, t2]);
    let f = of(&[s.a], &[], None, Some(T + 15));
    assert_eq!(tx_ids(&store, f, 1).await, [t1, g]);
    let f = of(&[s.a], &[], Some(T + 11), Some(T + 19));
    assert!(tx_ids(&store, f, 10).await.is_empty());
    let f = of(&[], &[], Some(T + 30), None);
    assert_eq!(tx_ids(&store, f, 1).await, [t5, t4]);
    let f = of(&[], &[], Some(T + 1_000), None);
    assert!(
        tx_ids(&store, f, 10).await.is_empty(),
        "after the last block"
    );
    let f = XTxFilter {
        asset_id: Some(t2),
        end_ts: Some(T + 25),
        ..XTxFilter::default()
    };
    assert_eq!(tx_ids(&store, f, 10).await, [t2]);

    // Spent UTXOs too, and a least amount (which outputs without one never reach).
    let spent_too = XUtxoFilter {
        addresses: vec![s.a],
        include_spent: true,
        ..XUtxoFilter::default()
    };
    let all: BTreeSet<Id> = utxo_ids(&store, spent_too.clone(), 2)
        .await
        .into_iter()
        .collect();
    let want: BTreeSet<Id> = [
        s.g[0],
        s.g[2],
        s.g[3],
        t1.prefix(1),
        t2.prefix(0),
        t3.prefix(0),
        t4.prefix(0),
    ]
    .into();
    assert_eq!(all, want);
    assert_eq!(
        utxo_ids(&store, spent_too, 3).await.len(),
        7,
        "listed once each"
    );
    let at_least = |min| XUtxoFilter {
        addresses: vec![s.a],
        min_amount: Some(min),
        ..XUtxoFilter::default()
    };
    assert_eq!(
        utxo_ids(&store, at_least(300), 1).await,
        [t2.prefix(0), s.g[2]]
    );
    assert!(utxo_ids(&store, at_least(399), 10).await.is_empty());
    assert!(utxo_ids(&store, at_least(u64::MAX), 10).await.is_empty());

    // Assets by ID (unknown ones left out), the txs of blocks, and a tx's block.
    let found = store.list_assets_by_id(&[t2, id(9, 9), t2]).await.unwrap();
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].asset.name, "Gold");
    assert_eq!(
        store.list_xchain_block_txs(&[3, 0, 2, 9]).await.unwrap(),
        [(2, t2), (2, t3), (3, t4), (3, t5)],
        "genesis txs are in no block"
    );
    assert_eq!(
        store.get_xchain_tx(t2).await.unwrap().block_id,
        Some(id(0x0b, 2))
    );
    assert_eq!(
        store.get_xchain_tx(g).await.unwrap().block_id,
        Some(id(0x0b, 0))
    );

    // Last activity: at height 3 the mint spent one of A's UTXOs and then made one.
    let last = store
        .find_xchain_last_activity(&[s.a])
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (last.utxo_id, last.tx_hash, last.height, last.consumed),
        (t4.prefix(0), t4, 3, false)
    );
    assert_eq!(last.timestamp, T + 30);
    let last = store
        .find_xchain_last_activity(&[s.c])
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (last.utxo_id, last.tx_hash, last.consumed),
        (t2.prefix(1), t5, true)
    );
    assert!(
        store
            .find_xchain_last_activity(&[short(99)])
            .await
            .unwrap()
            .is_none()
    );
    let mut holders = store
        .list_xchain_holders(&[s.c, short(99), s.a, s.c])
        .await
        .unwrap();
    holders.sort();
    let mut want = vec![s.a, s.c];
    want.sort();
    assert_eq!(holders, want);

    // Blocks within a time window.
    let window = XBlockFilter {
        start_ts: Some(T + 15),
        end_ts: Some(T + 35),
    };
    let page = store
        .list_xchain_blocks(&window, SortOrder::Desc, &PageRequest::first(1))
        .await
        .unwrap();
    assert_eq!(page.items[0].height, 3);
    let rest = store
        .list_xchain_blocks(
            &window,
            SortOrder::Desc,
            &PageRequest {
                limit: 5,
                after: page.next,
            },
        )
        .await
        .unwrap();
    let heights: Vec<u64> = rest.items.iter().map(|b| b.height).collect();
    assert_eq!(heights, [2]);
    assert_eq!(rest.next, None);
}

/// What an upgraded store must answer as before: UTXO lists by asset, amount and spending,
/// and balances before and after a lock passes.
async fn owner_answers(store: &Store, s: &Scenario) -> Vec<String> {
    let mut out = Vec::new();
    let sets = [vec![s.a], vec![s.b], vec![s.c], vec![s.a, s.b]];
    for owners in sets {
        let filters = [
            (None, None, true),
            (None, None, false),
            (Some(avax()), None, false),
            (Some(s.t[1]), None, true),
            (None, Some(399), false),
            (None, Some(u64::MAX), false),
        ];
        for (asset_id, min_amount, include_spent) in filters {
            let filter = XUtxoFilter {
                addresses: owners.clone(),
                asset_id,
                min_amount,
                include_spent,
            };
            out.push(format!("{:?}", utxo_ids(store, filter, 2).await));
        }
        for at in [T + 50, T + 1_000_000] {
            let sums = store.list_xchain_balances(&owners, at).await.unwrap();
            out.push(format!("{sums:?}"));
        }
    }
    assert!(
        out.iter().any(|a| a.contains("spendable: 1498")),
        "the answers hold balances"
    );
    out
}

/// A store made before version 34 gets what X-Chain balances and filtered lists need on its
/// owners' rows (and version 35's index of them): the same answers as a store that had them
/// from the start.
pub async fn xchain_older_store_gets_owner_balances(url: StoreUrl) {
    let s = scenario();
    let store = url.open().await;
    store.commit_xchain_blocks(&s.blocks).await.unwrap();
    let fresh = owner_answers(&store, &s).await;
    let undo = [
        "DROP INDEX x_utxo_owners_unspent",
        "ALTER TABLE x_utxo_owners DROP COLUMN asset_id",
        "ALTER TABLE x_utxo_owners DROP COLUMN output_kind",
        "ALTER TABLE x_utxo_owners DROP COLUMN amount",
        "ALTER TABLE x_utxo_owners DROP COLUMN locktime",
        "ALTER TABLE x_utxo_owners DROP COLUMN owner_count",
        "CREATE INDEX x_utxo_owners_unspent ON x_utxo_owners (address, height, utxo_id) \
         WHERE spent_height IS NULL",
        "DELETE FROM _sqlx_migrations WHERE version IN (34, 35)",
    ];
    let store = undo_and_reopen(&url, store, &undo).await;
    assert_eq!(owner_answers(&store, &s).await, fresh);
    store.close().await;
}
