//! The X-Chain's DAG: vertices with their txs, idempotent by acceptance index, their txs
//! between genesis and linear block 0's in every tx list, with UTXOs and balances, and the
//! vertices each tx was in.

use firn_core::ids::Id;
use firn_store::page::HeightCursor;
use firn_store::rows::ChainKey;
use firn_store::rows::xchain::{XChainVertexRows, XTx, XTxVertex, XVertexRecord};
use firn_store::{
    CursorStore, PageRequest, SortOrder, Store, StoreError, XChainReader, XChainWriter, XTxFilter,
    XVertexReader,
};

use crate::fixtures::{avax, id, short};
use crate::xchain::{T, block, coins, tx};

/// The vertex accepted `index`-th, at DAG `height`, carrying `txs` (plus `underived`, txs
/// whose IDs it lists but whose rows did not derive).
fn vertex(
    index: u64,
    height: u64,
    parents: &[u64],
    txs: Vec<XTx>,
    underived: &[Id],
) -> XChainVertexRows {
    let mut tx_ids: Vec<Id> = txs.iter().map(|t| t.tx_id).collect();
    tx_ids.extend_from_slice(underived);
    XChainVertexRows {
        vertex: XVertexRecord {
            index,
            vertex_id: id(0x0d, index),
            height,
            parent_ids: parents.iter().map(|p| id(0x0d, *p)).collect(),
            timestamp: T - 1_000 + index,
            tx_count: tx_ids.len() as u64,
            size_bytes: 200 + index,
            tx_ids,
        },
        txs,
    }
}

fn ids_of(page: &[XVertexRecord]) -> Vec<u64> {
    page.iter().map(|v| v.index).collect()
}

pub async fn xchain_vertices_round_trip(store: Store) {
    let (a, b, c) = (short(1), short(2), short(3));
    let g = avax();
    let genesis = XTx {
        genesis: true,
        ..tx(
            g,
            "CreateAssetTx",
            vec![],
            vec![coins(g, 0, g, &[a], 1_000), coins(g, 1, g, &[b], 500)],
        )
    };
    // Genesis first, so that the DAG's txs find its UTXOs; again is a no-op.
    assert_eq!(
        store
            .commit_xchain_genesis(std::slice::from_ref(&genesis), T - 2_000)
            .await
            .unwrap(),
        1
    );
    assert_eq!(
        store
            .commit_xchain_genesis(std::slice::from_ref(&genesis), T - 2_000)
            .await
            .unwrap(),
        0
    );

    let (t0, t1, bad) = (id(0x0e, 0), id(0x0e, 1), id(0x0e, 99));
    let d0 = tx(
        t0,
        "BaseTx",
        vec![g.prefix(0)],
        vec![coins(t0, 0, g, &[b], 600), coins(t0, 1, g, &[a], 400)],
    );
    let d1 = tx(
        t1,
        "BaseTx",
        vec![t0.prefix(0)],
        vec![coins(t1, 0, g, &[c], 600)],
    );
    let dag = vec![
        vertex(0, 0, &[], vec![d0.clone()], &[]),
        // d0 again in a later vertex: it keeps its first position.
        vertex(1, 1, &[0], vec![d1.clone(), d0.clone()], &[]),
        vertex(2, 1, &[0], vec![], &[bad]),
    ];
    let outcome = store.commit_xchain_vertices(&dag).await.unwrap();
    assert_eq!((outcome.committed, outcome.skipped), (3, 0));
    assert_eq!(
        store.find_cursor(ChainKey::XChainVertices).await.unwrap(),
        Some(2)
    );
    assert_eq!(store.find_cursor(ChainKey::XChain).await.unwrap(), None);

    // The same vertices again: skipped. Another vertex at a stored index: refused, naming it.
    let again = store.commit_xchain_vertices(&dag).await.unwrap();
    assert_eq!((again.committed, again.skipped), (0, 3));
    let mut other = vertex(1, 1, &[0], vec![], &[]);
    other.vertex.vertex_id = id(0x0f, 1);
    let err = store.commit_xchain_vertices(&[other]).await.unwrap_err();
    assert!(
        matches!(err, StoreError::ConflictingVertex { index: 1, .. }),
        "{err}"
    );
    assert!(err.to_string().contains(&id(0x0f, 1).to_string()), "{err}");
    // A node serving a stored vertex again at a new index: passed over, the cursor moves on.
    let mut repeat = vertex(3, 0, &[], vec![], &[]);
    repeat.vertex.vertex_id = id(0x0d, 0);
    let outcome = store.commit_xchain_vertices(&[repeat]).await.unwrap();
    assert_eq!((outcome.committed, outcome.skipped), (0, 1));
    assert_eq!(
        store.find_cursor(ChainKey::XChainVertices).await.unwrap(),
        Some(3)
    );

    // Vertices by ID, newest first in pages, oldest first, and by height.
    for rows in &dag {
        let got = store
            .get_xchain_vertex_by_id(rows.vertex.vertex_id)
            .await
            .unwrap();
        assert_eq!(got, rows.vertex);
    }
    assert_eq!(
        store
            .get_xchain_vertex_by_id(id(0x0d, 1))
            .await
            .unwrap()
            .tx_ids,
        [t1, t0]
    );
    let err = store
        .get_xchain_vertex_by_id(id(0x0d, 9))
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::NotFound { .. }), "{err}");
    let first = store
        .list_xchain_vertices(SortOrder::Desc, &PageRequest::first(2))
        .await
        .unwrap();
    assert_eq!(ids_of(&first.items), [2, 1]);
    assert_eq!(first.next, Some(HeightCursor { height: 1 }));
    let rest = store
        .list_xchain_vertices(
            SortOrder::Desc,
            &PageRequest {
                limit: 2,
                after: first.next,
            },
        )
        .await
        .unwrap();
    assert_eq!((ids_of(&rest.items), rest.next), (vec![0], None));
    let asc = store
        .list_xchain_vertices(SortOrder::Asc, &PageRequest::first(10))
        .await
        .unwrap();
    assert_eq!(ids_of(&asc.items), [0, 1, 2]);
    let at1 = store
        .list_xchain_vertices_by_height(1, SortOrder::Desc, &PageRequest::first(1))
        .await
        .unwrap();
    assert_eq!(ids_of(&at1.items), [2]);
    let at1 = store
        .list_xchain_vertices_by_height(
            1,
            SortOrder::Desc,
            &PageRequest {
                limit: 1,
                after: at1.next,
            },
        )
        .await
        .unwrap();
    assert_eq!(ids_of(&at1.items), [1]);
    let none = store
        .list_xchain_vertices_by_height(7, SortOrder::Desc, &PageRequest::first(5))
        .await
        .unwrap();
    assert!(none.items.is_empty());

    // A DAG tx: at height 0 after genesis, with the vertices it was in, first accepted first.
    let got = store.get_xchain_tx(t0).await.unwrap();
    assert_eq!((got.height, got.index, got.timestamp), (0, 1, T - 1_000));
    assert!(!got.is_linear());
    let seen = |i: u64, h: u64| XTxVertex {
        vertex_id: id(0x0d, i),
        height: h,
        timestamp: T - 1_000 + i,
    };
    assert_eq!(got.vertices, [seen(0, 0), seen(1, 1)]);
    assert_eq!(got.produced.len(), 2);
    assert_eq!(got.consumed[0].utxo.utxo_id, g.prefix(0));
    let spent = &got.produced[0];
    assert_eq!(spent.consumed.map(|c| c.tx_id), Some(t1));
    assert!(store.get_xchain_tx(g).await.unwrap().is_linear());

    // Linear block 0 after the DAG: genesis is not stored twice, its own tx follows the DAG's.
    let l0 = id(0x0c, 0);
    let l1 = id(0x0c, 1);
    let mut blocks = vec![
        block(
            0,
            vec![
                genesis.clone(),
                tx(
                    l0,
                    "BaseTx",
                    vec![t0.prefix(1)],
                    vec![coins(l0, 0, g, &[b], 400)],
                ),
            ],
        ),
        block(
            1,
            vec![tx(
                l1,
                "BaseTx",
                vec![g.prefix(1)],
                vec![coins(l1, 0, g, &[a], 500)],
            )],
        ),
    ];
    blocks[0].block.tx_count = 1;
    store.commit_xchain_blocks(&blocks).await.unwrap();
    let all = store
        .list_xchain_txs(
            &XTxFilter::default(),
            SortOrder::Asc,
            &PageRequest::first(2),
        )
        .await
        .unwrap();
    let rest = store
        .list_xchain_txs(
            &XTxFilter::default(),
            SortOrder::Asc,
            &PageRequest {
                limit: 10,
                after: all.next,
            },
        )
        .await
        .unwrap();
    let order: Vec<(Id, u64, u32)> = all
        .items
        .iter()
        .chain(&rest.items)
        .map(|t| (t.tx_id, t.height, t.index))
        .collect();
    assert_eq!(
        order,
        [(g, 0, 0), (t0, 0, 1), (t1, 0, 2), (l0, 0, 3), (l1, 1, 0)]
    );
    assert!(store.get_xchain_tx(l0).await.unwrap().is_linear());

    // Balances through the DAG and the linear chain: A 400 → spent, +500; B 500 → spent, +400;
    // C 600.
    let balances = store
        .list_xchain_balances(&[a, b, c], T + 100)
        .await
        .unwrap();
    assert_eq!(balances.len(), 1);
    assert_eq!(balances[0].total, 500 + 400 + 600);
    let by_c = store
        .list_xchain_txs(
            &XTxFilter {
                addresses: vec![c],
                asset_id: None,
                ..XTxFilter::default()
            },
            SortOrder::Desc,
            &PageRequest::first(10),
        )
        .await
        .unwrap();
    assert_eq!(by_c.items.iter().map(|t| t.tx_id).collect::<Vec<_>>(), [t1]);

    // A new vertex once the linear chain moved on (after a gap, which alone is allowed: the
    // indexer skips vertices that do not decode): refused, nothing stored.
    let err = store
        .commit_xchain_vertices(&[vertex(5, 2, &[1, 2], vec![], &[])])
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            StoreError::VertexAfterBlocks {
                index: 5,
                height: 1
            }
        ),
        "{err}"
    );
    assert_eq!(
        store.find_cursor(ChainKey::XChainVertices).await.unwrap(),
        Some(3)
    );
}

/// A failing vertex batch leaves nothing: not its vertices, txs or cursor.
pub async fn xchain_vertex_failed_batch_leaves_nothing(store: Store) {
    let t0 = id(0x0e, 0);
    let d0 = tx(
        t0,
        "BaseTx",
        vec![],
        vec![coins(t0, 0, avax(), &[short(1)], 5)],
    );
    // The second vertex's height does not fit the column: the batch fails after the first.
    let too_high = vertex(1, u64::MAX, &[0], vec![], &[]);
    let err = store
        .commit_xchain_vertices(&[vertex(0, 0, &[], vec![d0], &[]), too_high])
        .await
        .unwrap_err();
    assert!(err.to_string().contains("height"), "{err}");
    assert_eq!(
        store.find_cursor(ChainKey::XChainVertices).await.unwrap(),
        None
    );
    assert!(store.get_xchain_tx(t0).await.is_err());
    assert!(store.get_xchain_vertex_by_id(id(0x0d, 0)).await.is_err());
}
