//! Rolling an EVM chain back: the store ends up holding exactly what it would had it never
//! seen the blocks it took back, and it refuses (changing nothing) past its undo window.

use firn_store::rows::ChainKey;
use firn_store::testing::{StoreUrl, TestDb, table_rows};
use firn_store::{CursorStore, EvmWriter, Store, StoreError, UNDO_BLOCKS};

use crate::fixtures::{EvmHistory, evm_block, evm_chain};

const CHAIN: u64 = 4_321;

/// Every table a rollback must leave as it found it (NFT metadata queued by the blocks taken
/// back stays: it is keyed by token, not block, and harmless; the undo records depend on how
/// blocks were batched).
const TABLES: [&str; 17] = [
    "cursors",
    "evm_blocks",
    "evm_txs",
    "evm_tx_addresses",
    "evm_address_activity",
    "evm_logs",
    "evm_internal_txs",
    "evm_transfers",
    "evm_transfer_addresses",
    "evm_tokens",
    "evm_collectibles",
    "evm_erc20_balances",
    "evm_contracts",
    "evm_metrics",
    "evm_period_addresses",
    "evm_chain_addresses",
    "evm_chain_totals",
];

async fn dump(store: &Store) -> Vec<(&'static str, Vec<String>)> {
    let mut out = Vec::new();
    for t in TABLES {
        out.push((t, table_rows(store, t).await));
    }
    out
}

async fn twin_of(url: &StoreUrl) -> TestDb {
    if url.0.starts_with("postgres") {
        TestDb::postgres()
            .await
            .expect("the server that runs this test")
    } else {
        TestDb::sqlite()
    }
}

/// Store `x` indexes history A, then rolls back below where history B departs from it and
/// indexes B; store `y` indexes B alone. Both must hold the same rows, derived state included.
pub async fn evm_rollback_restores_what_was_there(url: StoreUrl) {
    let x = url.open().await;
    let twin = twin_of(&url).await;
    let y = twin.open().await;
    let mut a = EvmHistory::new(5, CHAIN, 40);
    let blocks_a: Vec<_> = (0..150).map(|_| a.next_block()).collect();
    let mut b = EvmHistory::new(5, CHAIN, 40);
    let mut blocks_b: Vec<_> = (0..70).map(|_| b.next_block()).collect();
    assert_eq!(
        blocks_a[..70],
        blocks_b[..],
        "the histories agree up to block 70"
    );
    // Above block 70, B draws other transactions, a day later.
    b.reseed(99);
    b.skip(86_400);
    blocks_b.extend((0..80).map(|_| b.next_block()));
    assert_ne!(blocks_a[70], blocks_b[70]);
    for s in [&x, &y] {
        s.upsert_evm_chain(&evm_chain(CHAIN)).await.unwrap();
    }

    for part in blocks_a.chunks(9) {
        x.commit_evm_blocks(part).await.unwrap();
    }
    let before = dump(&x).await;
    // Back to block 70, where A and B agree: the commit of blocks 64..=72 goes whole.
    let cursor = x.rollback_evm_chain(CHAIN, 70).await.unwrap();
    assert_eq!(cursor, Some(63));
    assert_eq!(x.find_cursor(ChainKey::Evm(CHAIN)).await.unwrap(), Some(63));
    for part in blocks_b[63..].chunks(9) {
        x.commit_evm_blocks(part).await.unwrap();
    }

    for part in blocks_a[..63].chunks(9) {
        y.commit_evm_blocks(part).await.unwrap();
    }
    for part in blocks_b[63..].chunks(9) {
        y.commit_evm_blocks(part).await.unwrap();
    }
    let (after, want) = (dump(&x).await, dump(&y).await);
    for ((table, got), (_, want)) in after.iter().zip(&want) {
        assert!(!want.is_empty(), "{table} holds rows");
        assert_eq!(got, want, "{table} after the rollback");
    }
    let changed = before.iter().zip(&after).filter(|(b, a)| b != a).count();
    assert!(
        changed >= 10,
        "history B differs from A in most tables ({changed})"
    );

    // Back to block 0 (this history starts at 1): only the cursor and token contracts stay.
    assert_eq!(x.rollback_evm_chain(CHAIN, 0).await.unwrap(), Some(0));
    for (table, rows) in dump(&x).await {
        if !["cursors", "evm_tokens"].contains(&table) {
            assert!(rows.is_empty(), "{table} is empty: {rows:?}");
        }
    }
    y.close().await;
    x.close().await;
}

/// Only the last [`UNDO_BLOCKS`] blocks can be taken back; asking for more changes nothing.
pub async fn evm_rollback_is_bounded(store: Store) {
    store.upsert_evm_chain(&evm_chain(CHAIN)).await.unwrap();
    let last = UNDO_BLOCKS + 600;
    let blocks: Vec<_> = (0..=last)
        .map(|n| evm_block(CHAIN, n, 1_700_000_000 + n * 2))
        .collect();
    for part in blocks.chunks(250) {
        store.commit_evm_blocks(part).await.unwrap();
    }
    let err = store.rollback_evm_chain(CHAIN, 100).await.unwrap_err();
    assert!(
        matches!(
            err,
            StoreError::RollbackTooDeep {
                chain_id: CHAIN,
                to: 100,
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("new store"), "{err}");
    assert_eq!(
        store.find_cursor(ChainKey::Evm(CHAIN)).await.unwrap(),
        Some(last)
    );
    // Within the window: back to the start of the commit holding the block.
    let to = last - 300;
    let cursor = store.rollback_evm_chain(CHAIN, to).await.unwrap().unwrap();
    assert!(cursor <= to && cursor + 250 > to, "{cursor}");
    assert_eq!(cursor % 250, 249, "whole commits are undone");
    // Nothing to do at or above the cursor.
    assert_eq!(
        store.rollback_evm_chain(CHAIN, last).await.unwrap(),
        Some(cursor)
    );
}
