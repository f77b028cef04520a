//! Opening, migrations, cursors and bad input.

use firn_core::ids::Id;
use firn_store::rows::ChainKey;
use firn_store::rows::evm::ChainRef;
use firn_store::testing::TestDb;
use firn_store::{
    CursorStore, EvmReader, EvmWriter, PChainReader, PChainWriter, PTxFilter, PageCursor,
    PageRequest, SortOrder, Store, StoreError, open,
};

use crate::fixtures::{evm_block, evm_chain, pblock};

pub async fn migrations_from_empty(store: Store) {
    assert_eq!(store.find_cursor(ChainKey::PChain).await.unwrap(), None);
    assert_eq!(store.find_cursor(ChainKey::Evm(43113)).await.unwrap(), None);
    let page = store
        .list_pchain_txs(
            &PTxFilter::default(),
            SortOrder::Desc,
            &PageRequest::first(10),
        )
        .await
        .unwrap();
    assert!(page.items.is_empty());
    assert_eq!(page.next, None);
    assert!(store.list_evm_chains().await.unwrap().is_empty());
    assert_eq!(store.find_pchain_tx(Id([1; 32])).await.unwrap(), None);
    let missing = store.get_pchain_tx(Id([1; 32])).await.unwrap_err();
    assert!(
        matches!(
            missing,
            StoreError::NotFound {
                what: "transaction",
                ..
            }
        ),
        "{missing}"
    );
    assert!(missing.to_string().starts_with("transaction "), "{missing}");
}

/// Every committed write moves the generation by one; a failed one does not.
pub async fn generation_moves_with_every_commit(store: Store) {
    let start = store.generation();
    assert_eq!(store.refresh_generation().await.unwrap(), start);
    store
        .commit_pchain_blocks(&[pblock(1, 100, vec![])])
        .await
        .unwrap();
    assert_eq!(store.generation(), start + 1);
    store.upsert_evm_chain(&evm_chain(43113)).await.unwrap();
    assert_eq!(store.generation(), start + 2);
    // A block that does not follow the cursor is refused, and moves nothing.
    assert!(
        store
            .commit_pchain_blocks(&[pblock(9, 200, vec![])])
            .await
            .is_err()
    );
    assert_eq!(store.generation(), start + 2);
    assert_eq!(store.refresh_generation().await.unwrap(), start + 2);
}

pub async fn bad_input_is_an_error(store: Store) {
    let zero = store
        .list_pchain_txs(
            &PTxFilter::default(),
            SortOrder::Desc,
            &PageRequest::first(0),
        )
        .await
        .unwrap_err();
    assert!(matches!(zero, StoreError::BadLimit(0)));
    let huge = store
        .list_pchain_txs(
            &PTxFilter::default(),
            SortOrder::Desc,
            &PageRequest::first(10_001),
        )
        .await
        .unwrap_err();
    assert!(matches!(huge, StoreError::BadLimit(10_001)));
    // Heights must fit a signed 64-bit column.
    let err = store
        .commit_pchain_blocks(&[pblock(u64::MAX, 1, vec![])])
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            StoreError::OutOfRange {
                field: "height",
                ..
            }
        ),
        "{err}"
    );
    // Blocks of an unregistered chain are refused.
    let err = store
        .commit_evm_blocks(&[evm_block(99, 1, 1)])
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::UnknownChain(99)), "{err}");
    assert!(firn_store::page::TxCursor::from_token("12").is_err());
    assert_eq!(store.find_cursor(ChainKey::PChain).await.unwrap(), None);
}

pub async fn evm_chain_registry(store: Store) {
    let mut c = evm_chain(43113);
    store.upsert_evm_chain(&c).await.unwrap();
    store.upsert_evm_chain(&evm_chain(1)).await.unwrap();
    c.name = "renamed".to_owned();
    store.upsert_evm_chain(&c).await.unwrap();
    let all = store.list_evm_chains().await.unwrap();
    assert_eq!(
        all.iter().map(|c| c.chain_id).collect::<Vec<_>>(),
        vec![1, 43113]
    );
    assert_eq!(
        store.find_evm_chain(ChainRef::Evm(43113)).await.unwrap(),
        Some(c.clone())
    );
    assert_eq!(
        store
            .find_evm_chain(ChainRef::Blockchain(c.blockchain_id))
            .await
            .unwrap(),
        Some(c)
    );
    assert_eq!(store.find_evm_chain(ChainRef::Evm(7)).await.unwrap(), None);
}

#[tokio::test]
async fn open_rejects_bad_locations_and_reopens() {
    for bad in ["", "sqlite://", "mysql://localhost/x", ":memory:"] {
        let err = open(bad).await.unwrap_err();
        assert!(matches!(err, StoreError::BadLocation(_)), "{bad}: {err}");
    }
    let dir = std::env::temp_dir().join(format!(
        "firn-store-reopen-{}",
        uuid::Uuid::new_v4().simple()
    ));
    let path = dir.join("nested").join("firn.db");
    let location = format!("sqlite://{}", path.display());
    let store = open(&location).await.unwrap();
    store
        .commit_pchain_blocks(&[pblock(5, 100, vec![])])
        .await
        .unwrap();
    let written = store.generation();
    store.close().await;
    // Re-opening applies no migration twice and keeps the data.
    let store = open(path.to_str().unwrap()).await.unwrap();
    assert_eq!(store.find_cursor(ChainKey::PChain).await.unwrap(), Some(5));
    assert_eq!(store.backend(), firn_store::Backend::Sqlite);
    assert_eq!(store.generation(), written, "read back at open");
    // A second handle (another process, say) sees the first's commits once it refreshes.
    let other = open(path.to_str().unwrap()).await.unwrap();
    store
        .commit_pchain_blocks(&[pblock(6, 101, vec![])])
        .await
        .unwrap();
    assert_eq!(other.generation(), written);
    assert_eq!(other.refresh_generation().await.unwrap(), written + 1);
    assert_eq!(other.generation(), written + 1);
    other.close().await;
    store.close().await;
    std::fs::remove_dir_all(dir).unwrap();
}

/// Processes started together on a new SQLite file (`firn index` and `firn serve`, say)
/// migrate it once between them: every open succeeds.
#[tokio::test]
async fn handles_opened_at_once_on_a_new_file_all_open() {
    let db = TestDb::sqlite();
    let location = db.url();
    let (a, b, c, d) = tokio::join!(
        open(location),
        open(location),
        open(location),
        open(location)
    );
    for store in [a, b, c, d] {
        let store = store.expect("every handle opens the new store");
        assert_eq!(store.find_cursor(ChainKey::PChain).await.unwrap(), None);
        store.close().await;
    }
}

/// Two handles on one SQLite file (two processes, say) writing at once: every commit lands,
/// whether its transaction reads before it writes (a P-Chain commit reads the cursor) or not.
#[tokio::test]
async fn two_sqlite_handles_write_at_once() {
    let db = TestDb::sqlite();
    let first = db.open().await;
    let second = db.open().await;
    let indexing = async {
        for height in 1..=40 {
            first
                .commit_pchain_blocks(&[pblock(height, 100 + height, vec![])])
                .await
                .unwrap_or_else(|e| panic!("P-Chain block {height}: {e}"));
        }
    };
    let registering = async {
        for n in 0..40 {
            second
                .upsert_evm_chain(&evm_chain(1_000 + n))
                .await
                .unwrap_or_else(|e| panic!("EVM chain {n}: {e}"));
        }
    };
    tokio::join!(indexing, registering);
    assert_eq!(
        second.find_cursor(ChainKey::PChain).await.unwrap(),
        Some(40)
    );
    assert_eq!(first.list_evm_chains().await.unwrap().len(), 40);
    first.close().await;
    second.close().await;
}

/// A commit's pages reach the SQLite database file soon after it, copied from the WAL by the
/// store's checkpoint thread rather than by the writer (whose own checkpoint waits for a WAL
/// of 64 MiB); closing the store closes that thread's connection too, the last one, and with
/// it goes the WAL.
#[tokio::test]
async fn sqlite_commits_are_checkpointed_off_the_writer() {
    let db = TestDb::sqlite();
    let wal = format!("{}-wal", db.url());
    let wal = std::path::Path::new(&wal);
    let store = db.open().await;
    let file_len = || std::fs::metadata(db.url()).map_or(0, |m| m.len());
    let before = file_len();
    let mut chain = evm_chain(7);
    chain.description = "x".repeat(2 << 20);
    store.upsert_evm_chain(&chain).await.unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    // Most of it, at least: the file had free pages to reuse.
    while file_len() < before + (1 << 20) {
        assert!(
            std::time::Instant::now() < deadline,
            "the committed 2 MiB never reached the database file: {} -> {} bytes",
            before,
            file_len()
        );
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    let found = store.list_evm_chains().await.unwrap();
    assert_eq!(found[0].description.len(), 2 << 20);
    assert!(wal.exists(), "the store is open in WAL mode");
    store.close().await;
    assert!(
        !wal.exists(),
        "every connection closed, the last removing the WAL"
    );
}
