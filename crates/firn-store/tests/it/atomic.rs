//! Crossings and burns. Atomic memory: what ExportTxs on the P- and X-Chains put in another
//! chain's shared memory
//! stays there until that chain's ImportTx is stored, whichever chain is indexed first; as of
//! a time, by lock, and each UTXO once however many of the owners it names.

use firn_core::ids::{Id, ShortId};
use firn_core::network::P_CHAIN_ID;
use firn_store::rows::atomic::{
    AtomicBalance, AtomicUtxo, CAtomicParty, CAtomicTx, CAtomicTxFilter,
};
use firn_store::rows::xchain::XTx;
use firn_store::{
    AtomicMemoryReader, CAtomicReader, EvmReader, EvmWriter, PChainWriter, PageRequest, SortOrder,
    Store, XChainReader, XChainWriter, XUtxoFilter,
};

use crate::fixtures::{avax, evm_block, evm_chain, id, pblock, ptx, short, utxo, x_coins, x_tx};
use crate::xchain::{T, block};

fn x_chain() -> Id {
    id(0x0c, 1)
}

fn c_chain() -> Id {
    id(0x0c, 2)
}

/// An output of the X-Chain's ExportTx `tx_id`, at `index`, to `destination`.
fn x_export(tx_id: Id, index: u32, destination: Id, owners: &[ShortId], amount: u64) -> AtomicUtxo {
    AtomicUtxo {
        utxo_id: tx_id.prefix(u64::from(index)),
        tx_id,
        output_index: index,
        source_chain: x_chain(),
        destination_chain: destination,
        asset_id: avax(),
        amount,
        threshold: 1,
        locktime: 0,
        addresses: owners.to_vec(),
    }
}

fn held(source: Id, locked: bool, amount: u128, utxo_count: u64) -> AtomicBalance {
    AtomicBalance {
        source_chain: source,
        asset_id: avax(),
        locked,
        amount,
        utxo_count,
    }
}

pub async fn atomic_memory_holds_exports_until_imported(store: Store) {
    let (a, b) = (short(1), short(2));
    let balances = |chain: Id, owners: Vec<ShortId>, at: u64| {
        let store = store.clone();
        async move {
            store
                .list_atomic_balances(chain, &owners, Some(at), at)
                .await
                .unwrap()
        }
    };

    // P exports 60 to A on the X-Chain at T + 5.
    let e = id(0x0e, 1);
    let mut export = ptx(e, "ExportTx");
    export.core.destination_chain = Some(x_chain());
    let mut out = utxo(e, 0, a, 60);
    out.consumed_on_chain = x_chain();
    export.emitted = vec![out.clone()];
    export.addresses = vec![a];
    store
        .commit_pchain_blocks(&[pblock(1, T + 5, vec![export])])
        .await
        .unwrap();
    assert_eq!(
        balances(x_chain(), vec![a], T + 5).await,
        [held(P_CHAIN_ID, false, 60, 1)]
    );
    assert!(
        balances(x_chain(), vec![a], T + 4).await.is_empty(),
        "not exported yet"
    );
    assert!(
        balances(P_CHAIN_ID, vec![a], T + 5).await.is_empty(),
        "another chain's"
    );
    assert!(
        balances(x_chain(), vec![b], T + 5).await.is_empty(),
        "another owner's"
    );

    // The X-Chain imports it at T + 10 (block 1), and exports to P (40 to A and B) and to the
    // C-Chain (5 to B, locked) at T + 20 (block 2).
    let i = id(0x0e, 2);
    let mut import = x_tx(i, "ImportTx", vec![], vec![x_coins(i, 0, avax(), &[a], 59)]);
    import.source_chain = Some(P_CHAIN_ID);
    import.imported = vec![out.utxo_id];
    let x = id(0x0e, 3);
    let mut x_out = x_tx(x, "ExportTx", vec![], vec![]);
    x_out.destination_chain = Some(P_CHAIN_ID);
    let mut locked = x_export(x, 1, c_chain(), &[b], 5);
    locked.locktime = T + 1_000;
    x_out.exported = vec![x_export(x, 0, P_CHAIN_ID, &[a, b], 40), locked];
    let x_blocks = [
        block(0, vec![]),
        block(1, vec![import]),
        block(2, vec![x_out]),
    ];
    store.commit_xchain_blocks(&x_blocks).await.unwrap();
    assert!(
        balances(x_chain(), vec![a], T + 10).await.is_empty(),
        "imported"
    );
    assert_eq!(
        balances(x_chain(), vec![a], T + 9).await,
        [held(P_CHAIN_ID, false, 60, 1)],
        "before its import"
    );
    assert_eq!(
        balances(P_CHAIN_ID, vec![a, b], T + 20).await,
        [held(x_chain(), false, 40, 1)],
        "one UTXO of two owners counts once"
    );
    assert_eq!(
        balances(c_chain(), vec![b], T + 20).await,
        [held(x_chain(), true, 5, 1)]
    );
    assert_eq!(
        balances(c_chain(), vec![b], T + 1_000).await,
        [held(x_chain(), false, 5, 1)],
        "unlocked at its locktime"
    );
    // Committing the same blocks again changes nothing.
    store.commit_xchain_blocks(&x_blocks).await.unwrap();
    assert_eq!(
        balances(P_CHAIN_ID, vec![a], T + 20).await,
        [held(x_chain(), false, 40, 1)]
    );

    // An import stored before its export (the P-Chain indexed ahead of the X-Chain): once the
    // export is stored too, it is not in atomic memory.
    let pi = id(0x0e, 4);
    let early = x_export(id(0x0e, 5), 0, P_CHAIN_ID, &[b], 7);
    let early_id = early.utxo_id;
    let mut imported = utxo(early.tx_id, 0, b, 7);
    imported.utxo_id = early.utxo_id;
    imported.created_on_chain = x_chain();
    let mut p_import = ptx(pi, "ImportTx");
    p_import.core.source_chain = Some(x_chain());
    p_import.consumed = vec![imported.utxo_id];
    p_import.imported = vec![imported];
    p_import.emitted = vec![utxo(pi, 0, b, 6)];
    p_import.addresses = vec![b];
    store
        .commit_pchain_blocks(&[pblock(2, T + 30, vec![p_import])])
        .await
        .unwrap();
    let mut late = x_tx(early.tx_id, "ExportTx", vec![], vec![]);
    late.destination_chain = Some(P_CHAIN_ID);
    late.exported = vec![early];
    store
        .commit_xchain_blocks(&[block(3, vec![late])])
        .await
        .unwrap();
    assert_eq!(
        balances(P_CHAIN_ID, vec![b], T + 40).await,
        [held(x_chain(), false, 40, 1)],
        "the early import's UTXO is not held"
    );
    assert!(balances(P_CHAIN_ID, vec![], T + 40).await.is_empty());
    // Stored exports by UTXO ID, whichever chain exported them; unknown IDs are left out.
    let mut found = store
        .list_atomic_exports(&[out.utxo_id, early_id, id(0x0e, 9)])
        .await
        .unwrap();
    found.sort_by_key(|e| e.timestamp);
    let got: Vec<(Id, Id, Id, u64, u64)> = found
        .iter()
        .map(|e| {
            let u = &e.utxo;
            (
                u.utxo_id,
                u.source_chain,
                u.destination_chain,
                u.amount,
                e.timestamp,
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (out.utxo_id, P_CHAIN_ID, x_chain(), 60, T + 5),
            (early_id, x_chain(), P_CHAIN_ID, 7, T + 30),
        ]
    );
    assert_eq!(found[0].utxo.addresses, [a]);
    // As far as the store knows, locks judged at a given time.
    let now = store
        .list_atomic_balances(c_chain(), &[b], None, T + 1_000)
        .await
        .unwrap();
    assert_eq!(now, [held(x_chain(), false, 5, 1)]);
}

/// What the X-Chain's txs burned adds up per asset, over txs and batches, and a recommit
/// adds nothing.
pub async fn xchain_burns_add_up(store: Store) {
    let gold = id(0x0a, 7);
    let burning = |n: u8, burned: Vec<(Id, u64)>| XTx {
        burned,
        ..x_tx(id(0x0e, u64::from(n)), "BaseTx", vec![], vec![])
    };
    assert_eq!(store.find_xchain_burned(avax()).await.unwrap(), 0);
    let first = [
        block(0, vec![]),
        block(
            1,
            vec![
                burning(1, vec![(avax(), 1_000)]),
                burning(2, vec![(avax(), 10), (gold, 3)]),
            ],
        ),
    ];
    store.commit_xchain_blocks(&first).await.unwrap();
    store
        .commit_xchain_blocks(&[block(2, vec![burning(3, vec![(avax(), u64::MAX)])])])
        .await
        .unwrap();
    store.commit_xchain_blocks(&first).await.unwrap();
    assert_eq!(
        store.find_xchain_burned(avax()).await.unwrap(),
        1_010 + u128::from(u64::MAX)
    );
    assert_eq!(store.find_xchain_burned(gold).await.unwrap(), 3);
    assert_eq!(store.find_xchain_burned(id(0x0a, 8)).await.unwrap(), 0);
}

fn c_tx(index: u32, tx_id: Id, tx_type: &str, peer: Id, parties: Vec<CAtomicParty>) -> CAtomicTx {
    CAtomicTx {
        index,
        tx_id,
        tx_type: tx_type.to_owned(),
        peer_chain: peer,
        bytes: vec![index as u8; 5],
        parties,
        exported: Vec::new(),
        imported: Vec::new(),
        burned: 0,
    }
}

/// The C-Chain's atomic txs: stored with their blocks, listed by party, type and time, found
/// by ID; their imports drain the C-Chain's atomic memory and their exports fill the X-Chain's;
/// a rollback takes all of it back.
pub async fn c_chain_atomic_txs_round_trip(store: Store) {
    const CHAIN: u64 = 43_112;
    store.upsert_evm_chain(&evm_chain(CHAIN)).await.unwrap();
    let (a, account) = (short(1), [0xacu8; 20]);
    // The P-Chain exports 50 to A on the C-Chain.
    let e = id(0x0e, 7);
    let mut export = ptx(e, "ExportTx");
    export.core.destination_chain = Some(c_chain());
    let mut out = utxo(e, 0, a, 50);
    out.consumed_on_chain = c_chain();
    let exported_utxo = out.utxo_id;
    export.emitted = vec![out];
    export.addresses = vec![a];
    store
        .commit_pchain_blocks(&[pblock(1, T + 1, vec![export])])
        .await
        .unwrap();
    let owners = [a];
    let c_memory = || store.list_atomic_balances(c_chain(), &owners, None, T + 10);
    assert_eq!(c_memory().await.unwrap(), [held(P_CHAIN_ID, false, 50, 1)]);
    let utxos = |include_spent: bool, min_amount: Option<u64>| {
        let store = store.clone();
        async move {
            let filter = XUtxoFilter {
                addresses: vec![a],
                asset_id: None,
                min_amount,
                include_spent,
            };
            let page = store
                .list_atomic_utxos(c_chain(), &filter, SortOrder::Asc, &PageRequest::first(10))
                .await
                .unwrap();
            page.items
                .iter()
                .map(|u| (u.export.utxo.utxo_id, u.export.timestamp, u.imported))
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(utxos(false, None).await, [(exported_utxo, T + 1, None)]);
    assert_eq!(utxos(false, Some(50)).await.len(), 1);
    assert!(utxos(false, Some(51)).await.is_empty());
    assert!(utxos(false, Some(u64::MAX)).await.is_empty());

    // Block 1 imports it to the account; block 2 exports 20 from the account to A on the X-Chain.
    let (import_id, export_id) = (id(0x0c, 11), id(0x0c, 12));
    let mut import = c_tx(
        0,
        import_id,
        "ImportTx",
        P_CHAIN_ID,
        vec![CAtomicParty::Owner(a), CAtomicParty::Account(account)],
    );
    import.imported = vec![exported_utxo];
    import.burned = 3;
    let mut c_export = c_tx(
        0,
        export_id,
        "ExportTx",
        x_chain(),
        vec![CAtomicParty::Account(account), CAtomicParty::Owner(a)],
    );
    let mut exported = x_export(export_id, 0, x_chain(), &[a], 20);
    exported.source_chain = c_chain();
    c_export.exported = vec![exported];
    c_export.burned = 2;
    let mut b1 = evm_block(CHAIN, 1, T + 2);
    b1.atomic_txs = vec![import];
    let mut b2 = evm_block(CHAIN, 2, T + 3);
    b2.atomic_txs = vec![c_export];
    store.commit_evm_blocks(&[b1.clone()]).await.unwrap();
    store.commit_evm_blocks(&[b2]).await.unwrap();
    // Committing a stored block again changes nothing.
    store.commit_evm_blocks(&[b1]).await.unwrap();
    assert!(c_memory().await.unwrap().is_empty(), "imported");
    assert!(utxos(false, None).await.is_empty());
    let burned = || store.find_c_atomic_burned(CHAIN);
    assert_eq!(burned().await.unwrap(), 5, "each block's burns once");
    assert_eq!(store.find_c_atomic_burned(CHAIN + 1).await.unwrap(), 0);
    assert_eq!(
        utxos(true, None).await,
        [(exported_utxo, T + 1, Some((import_id, T + 2)))]
    );
    let x_memory = store
        .list_atomic_balances(x_chain(), &[a], None, T + 10)
        .await
        .unwrap();
    assert_eq!(x_memory, [held(c_chain(), false, 20, 1)]);

    let list = |filter: CAtomicTxFilter, order: SortOrder| {
        let store = store.clone();
        async move {
            let page = store
                .list_c_atomic_txs(&filter, order, &PageRequest::first(10))
                .await
                .unwrap();
            page.items.iter().map(|t| t.tx_id).collect::<Vec<_>>()
        }
    };
    let all = CAtomicTxFilter::default();
    assert_eq!(
        list(all.clone(), SortOrder::Desc).await,
        [export_id, import_id]
    );
    assert_eq!(
        list(all.clone(), SortOrder::Asc).await,
        [import_id, export_id]
    );
    let by = |parties: Vec<CAtomicParty>| CAtomicTxFilter {
        parties,
        ..Default::default()
    };
    assert_eq!(
        list(by(vec![CAtomicParty::Account(account)]), SortOrder::Asc).await,
        [import_id, export_id]
    );
    // Several parties naming the same txs: each tx once, in either order, page by page.
    let both = by(vec![
        CAtomicParty::Owner(a),
        CAtomicParty::Account(account),
        CAtomicParty::Owner(a),
    ]);
    assert_eq!(
        list(both.clone(), SortOrder::Desc).await,
        [export_id, import_id]
    );
    let first = store
        .list_c_atomic_txs(&both, SortOrder::Desc, &PageRequest::first(1))
        .await
        .unwrap();
    let rest = store
        .list_c_atomic_txs(
            &both,
            SortOrder::Desc,
            &PageRequest::after(1, first.next.unwrap()),
        )
        .await
        .unwrap();
    assert_eq!(
        (first.items[0].tx_id, rest.items[0].tx_id, rest.next),
        (export_id, import_id, None)
    );
    let late_of_party = CAtomicTxFilter {
        start_ts: Some(T + 3),
        ..both
    };
    assert_eq!(list(late_of_party, SortOrder::Asc).await, [export_id]);
    // An owner's bytes as an account are another party.
    assert!(
        list(by(vec![CAtomicParty::Account(a.0)]), SortOrder::Asc)
            .await
            .is_empty()
    );
    let exports = CAtomicTxFilter {
        tx_types: vec!["ExportTx".into()],
        ..by(vec![CAtomicParty::Owner(a)])
    };
    assert_eq!(list(exports, SortOrder::Asc).await, [export_id]);
    let late = CAtomicTxFilter {
        start_ts: Some(T + 3),
        ..Default::default()
    };
    assert_eq!(list(late, SortOrder::Asc).await, [export_id]);
    let early = CAtomicTxFilter {
        end_ts: Some(T + 2),
        ..Default::default()
    };
    assert_eq!(list(early, SortOrder::Asc).await, [import_id]);
    // Paging: one per page, the cursor continues.
    let first = store
        .list_c_atomic_txs(&all, SortOrder::Asc, &PageRequest::first(1))
        .await
        .unwrap();
    assert_eq!(first.items[0].tx_id, import_id);
    let next = store
        .list_c_atomic_txs(
            &all,
            SortOrder::Asc,
            &PageRequest::after(1, first.next.unwrap()),
        )
        .await
        .unwrap();
    assert_eq!(next.items[0].tx_id, export_id);
    assert!(next.next.is_none());

    let found = store.find_c_atomic_tx(import_id).await.unwrap().unwrap();
    assert_eq!(
        (found.height, found.index, found.timestamp, found.peer_chain),
        (1, 0, T + 2, P_CHAIN_ID)
    );
    assert_eq!(found.tx_type, "ImportTx");
    assert_eq!(found.bytes, vec![0u8; 5]);
    assert!(
        store
            .find_c_atomic_tx(id(0x0c, 99))
            .await
            .unwrap()
            .is_none()
    );

    assert_eq!(
        store.list_c_atomic_block_txs(&[2, 1, 7]).await.unwrap(),
        [(1, import_id), (2, export_id)]
    );
    let window = |start, end| {
        let store = store.clone();
        async move {
            let page = store
                .list_evm_blocks_between(CHAIN, start, end, &PageRequest::first(10))
                .await
                .unwrap();
            page.items
                .iter()
                .map(|b| b.block.number)
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(window(None, None).await, [2, 1]);
    assert_eq!(window(Some(T + 3), None).await, [2]);
    assert_eq!(window(None, Some(T + 2)).await, [1]);

    assert_eq!(
        store.list_c_atomic_owners(&[short(9), a]).await.unwrap(),
        [a]
    );

    // Rolling back to block 1 takes block 2's burn back; to block 0, both txs and their
    // crossings.
    store.rollback_evm_chain(CHAIN, 1).await.unwrap();
    assert_eq!(burned().await.unwrap(), 3);
    store.rollback_evm_chain(CHAIN, 0).await.unwrap();
    assert_eq!(burned().await.unwrap(), 0);
    assert!(list(all, SortOrder::Asc).await.is_empty());
    assert!(store.list_c_atomic_owners(&[a]).await.unwrap().is_empty());
    assert_eq!(c_memory().await.unwrap(), [held(P_CHAIN_ID, false, 50, 1)]);
    assert!(
        store
            .list_atomic_balances(x_chain(), &[a], None, T + 10)
            .await
            .unwrap()
            .is_empty()
    );
}
