//! The P-Chain follower against the devnet's node RPC.

use std::time::Duration;

use firn_indexer::{IndexerConfig, IndexerError, PChainIndexer};
use firn_rpc::{AvalancheClient, ClientConfig};
use firn_store::rows::ChainKey;
use firn_store::{CursorStore, PChainReader};

use crate::check;
use crate::devnet::Devnet;
use firn_store::testing::StoreUrl;

fn config() -> IndexerConfig {
    IndexerConfig {
        // Small batches so that proposal blocks fall on batch edges too.
        batch_blocks: 7,
        concurrency: 4,
        max_attempts: Some(3),
        initial_backoff: Duration::from_millis(10),
        ..IndexerConfig::default()
    }
}

pub async fn scripted_activity_matches_the_node(url: StoreUrl) {
    let devnet = Devnet::start().await;
    let script = devnet.script();
    let store = url.open().await;
    let mut indexer = PChainIndexer::new(devnet.client(), store.clone(), config());
    let height = indexer.backfill().await.unwrap();
    assert_eq!(height, Some(devnet.chain.height()));

    check::blocks(&devnet, &store).await;
    check::balances(&devnet, &store, &script).await;
    check::staking(&devnet, &store, &script).await;
    check::subnets_and_l1(&devnet, &store, &script).await;
    store.close().await;
}

pub async fn restart_continues_without_gaps_or_duplicates(url: StoreUrl) {
    let devnet = Devnet::start().await;
    devnet.transfers(5);
    let store = url.open().await;
    PChainIndexer::new(devnet.client(), store.clone(), config())
        .backfill()
        .await
        .unwrap();
    store.close().await;

    // More activity, including reward proposals, then a new process on the same store.
    let script = devnet.script();
    let store = url.open().await;
    let committed = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let seen = committed.clone();
    let mut indexer = PChainIndexer::new(devnet.client(), store.clone(), config())
        .on_progress(move |p| seen.store(p.committed, std::sync::atomic::Ordering::SeqCst));
    indexer.backfill().await.unwrap();
    assert_eq!(
        store.find_cursor(ChainKey::PChain).await.unwrap(),
        Some(devnet.chain.height())
    );
    assert!(committed.load(std::sync::atomic::Ordering::SeqCst) > 0);
    check::blocks(&devnet, &store).await;
    check::balances(&devnet, &store, &script).await;
    check::staking(&devnet, &store, &script).await;
    store.close().await;
}

pub async fn follow_picks_up_new_blocks(url: StoreUrl) {
    let devnet = Devnet::start().await;
    devnet.transfers(2);
    let store = url.open().await;
    let client = devnet.client();
    let follower_store = store.clone();
    let follower = tokio::spawn(async move {
        let mut config = config();
        config.poll_interval = Duration::from_millis(20);
        PChainIndexer::new(client, follower_store, config)
            .follow()
            .await
    });
    devnet.transfers(3);
    devnet.pass(1);
    let tip = devnet.chain.height();
    // Wait for the follower to reach the tip (no timing assertion: it is bounded by the
    // test harness only).
    loop {
        if store.find_cursor(ChainKey::PChain).await.unwrap() == Some(tip) {
            break;
        }
        if follower.is_finished() {
            panic!("the follower stopped: {:?}", follower.await);
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    follower.abort();
    check::blocks(&devnet, &store).await;
    assert!(store.find_pchain_block(tip).await.unwrap().is_some());
    store.close().await;
}

pub async fn unreachable_node_is_retried_then_reported(url: StoreUrl) {
    // A port nothing listens on: the client retries, the indexer backs off and, with a
    // bounded number of attempts, reports the transport error.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let client = AvalancheClient::new(
        &format!("http://127.0.0.1:{port}/ext/bc/P"),
        ClientConfig {
            max_retries: 1,
            initial_backoff: Duration::from_millis(5),
            ..ClientConfig::default()
        },
    )
    .unwrap();
    let store = url.open().await;
    let err = PChainIndexer::new(client, store.clone(), config())
        .backfill()
        .await
        .unwrap_err();
    assert!(matches!(err, IndexerError::Rpc(_)), "{err}");
    assert_eq!(store.find_cursor(ChainKey::PChain).await.unwrap(), None);
    store.close().await;
}
