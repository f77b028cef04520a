//! A hostile chain: what anyone can deploy or send on a public chain, staged on the devnet
//! with `FirnHostile`, then an ordinary transaction. Indexing must get past every attack and
//! store the ordinary one; nothing may make firn request a loopback URL; a node that answers
//! from another history makes the store roll back to the common ancestor.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use firn_indexer::evm::MetadataLimits;
use firn_indexer::{EvmIndexer, IndexerConfig};
use firn_store::rows::ChainKey;
use firn_store::testing::StoreUrl;
use firn_store::types::{Address, B256, U256};
use firn_store::{CursorStore, EvmReader, Store};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::evm_devnet::{EvmDevnet, Tok, call, deploy, ether, key};

fn config(metadata: MetadataLimits) -> IndexerConfig {
    IndexerConfig {
        batch_blocks: 4,
        request_blocks: 2,
        max_attempts: Some(3),
        initial_backoff: Duration::from_millis(10),
        metadata,
        ..IndexerConfig::default()
    }
}

/// An HTTP server on loopback that counts the requests it gets and answers each with `body`.
struct Planted {
    url: String,
    requests: Arc<AtomicUsize>,
    task: tokio::task::JoinHandle<()>,
}

impl Planted {
    async fn start(body: &'static str) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/token.json", listener.local_addr().unwrap());
        let requests = Arc::new(AtomicUsize::new(0));
        let counted = Arc::clone(&requests);
        let task = tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                counted.fetch_add(1, Ordering::SeqCst);
                let mut buf = [0u8; 4096];
                let _ = socket.read(&mut buf).await;
                let reply = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\
                     connection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = socket.write_all(reply.as_bytes()).await;
            }
        });
        Self {
            url,
            requests,
            task,
        }
    }

    fn requests(&self) -> usize {
        self.requests.load(Ordering::SeqCst)
    }
}

impl Drop for Planted {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Deploys `FirnHostile` and returns its address.
fn deploy_hostile(devnet: &EvmDevnet) -> Address {
    let tx = devnet.send(
        &key(3),
        None,
        U256::ZERO,
        deploy("FirnHostile", &[Tok::Str("Hostile")]),
        3_000_000,
    );
    devnet.build();
    assert!(devnet.succeeded(tx));
    devnet.created(tx)
}

/// Sends `data` to `to` from key 3 in a block of its own; the tx must succeed.
fn hostile_tx(devnet: &EvmDevnet, to: Address, data: Vec<u8>, gas: u64) -> B256 {
    let tx = devnet.send(&key(3), Some(to), U256::ZERO, data, gas);
    devnet.build();
    assert!(devnet.succeeded(tx), "the staged attack itself ran");
    tx
}

fn mint(to: Address, id: u64, uri: &str, burn_gas: bool) -> Vec<u8> {
    call(
        "mint(address,uint256,string,bool)",
        &[
            Tok::Addr(to),
            Tok::Uint(U256::from(id)),
            Tok::Str(uri),
            Tok::Uint(U256::from(u8::from(burn_gas))),
        ],
    )
}

async fn status(store: &Store, chain_id: u64, token: Address, id: u64) -> String {
    store
        .find_nft_metadata(chain_id, token, U256::from(id))
        .await
        .unwrap()
        .expect("the mint queued a metadata row")
        .index_status
}

pub async fn hostile_contracts_never_stop_indexing(url: StoreUrl) {
    let devnet = EvmDevnet::start().await;
    let planted = Planted::start(r#"{"name":"planted"}"#).await;
    let hostile = deploy_hostile(&devnet);
    let alice = Address::repeat_byte(0xa1);
    // Metadata that points at this machine, that burns every unit of gas it is given, and a
    // URI of 100 kB (far longer than what is stored).
    hostile_tx(
        &devnet,
        hostile,
        mint(alice, 1, &planted.url, false),
        200_000,
    );
    hostile_tx(&devnet, hostile, mint(alice, 2, "", true), 200_000);
    hostile_tx(
        &devnet,
        hostile,
        call(
            "mintHugeUri(address,uint256,uint256)",
            &[
                Tok::Addr(alice),
                Tok::Uint(U256::from(3u64)),
                Tok::Uint(U256::from(100_000u64)),
            ],
        ),
        200_000,
    );
    // A name of 5,000 characters, and 200 transfers of tokens nobody holds.
    let long_name = "N".repeat(5_000);
    hostile_tx(
        &devnet,
        hostile,
        call("setName(string)", &[Tok::Str(&long_name)]),
        5_000_000,
    );
    hostile_tx(
        &devnet,
        hostile,
        call(
            "forge(address,address,uint256,uint256)",
            &[
                Tok::Addr(Address::repeat_byte(0xb0)),
                Tok::Addr(Address::repeat_byte(0xc0)),
                Tok::Uint(U256::from(100u64)),
                Tok::Uint(U256::from(200u64)),
            ],
        ),
        5_000_000,
    );
    // A call tree 300 frames deep: far past a JSON decoder's default nesting limit.
    let deep = hostile_tx(
        &devnet,
        hostile,
        call("deep(uint256)", &[Tok::Uint(U256::from(300u64))]),
        15_000_000,
    );
    // Then an ordinary transfer.
    let ordinary = devnet.send(
        &key(0),
        Some(Address::repeat_byte(0xd0)),
        ether(1),
        Vec::new(),
        21_000,
    );
    devnet.build();

    let store = url.open().await;
    let mut indexer = EvmIndexer::new(
        devnet.endpoint(),
        store.clone(),
        config(MetadataLimits::default()),
    )
    .unwrap();
    let height = tokio::time::timeout(Duration::from_secs(60), indexer.backfill())
        .await
        .expect("indexing finished")
        .unwrap();
    assert_eq!(height, Some(devnet.chain.height()));
    let chain_id = devnet.chain.chain_id();
    let stored = store.find_evm_tx(chain_id, ordinary).await.unwrap();
    assert!(stored.is_some(), "the ordinary transfer is indexed");

    let frames = store.list_evm_internal_txs(chain_id, deep).await.unwrap();
    assert_eq!(
        frames.len(),
        300,
        "every frame of the deep call tree is stored"
    );
    let token = store.find_token(chain_id, hostile).await.unwrap().unwrap();
    assert!(
        (1..=256).contains(&token.name.chars().count()),
        "{}",
        token.name.len()
    );
    assert_eq!(planted.requests(), 0, "nothing asked the loopback server");
    assert_eq!(
        status(&store, chain_id, hostile, 1).await,
        "UNREACHABLE_TOKEN_URI"
    );
    assert_eq!(status(&store, chain_id, hostile, 2).await, "MISSING_TOKEN");
    // 100 kB of `A`: no scheme, and not stored.
    let huge = store
        .find_nft_metadata(chain_id, hostile, U256::from(3u64))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (huge.index_status.as_str(), huge.token_uri.as_str()),
        ("INVALID_TOKEN_URI_SCHEME", "")
    );

    // Following the tip: more attacks, then an ordinary transfer, which the Data API lists
    // within seconds.
    let follower = tokio::spawn(async move { indexer.follow().await });
    hostile_tx(
        &devnet,
        hostile,
        call("deep(uint256)", &[Tok::Uint(U256::from(300u64))]),
        15_000_000,
    );
    hostile_tx(
        &devnet,
        hostile,
        mint(alice, 4, &planted.url, false),
        200_000,
    );
    devnet.send(
        &key(0),
        Some(Address::repeat_byte(0xd1)),
        ether(1),
        Vec::new(),
        21_000,
    );
    devnet.build();
    let block = devnet.chain.height();
    let want = format!("{:#x}", devnet.chain.block_by_number(block).unwrap().hash);
    let api = firn_api::app(firn_api::AppState::new(
        store.clone(),
        firn_api::ApiConfig::default(),
    ));
    let sent = std::time::Instant::now();
    loop {
        let request = axum::http::Request::get(format!("/v1/chains/{chain_id}/blocks/{block}"))
            .body(axum::body::Body::empty())
            .unwrap();
        let response = tower::ServiceExt::oneshot(api.clone(), request)
            .await
            .unwrap();
        if response.status() == 200 {
            let body = axum::body::to_bytes(response.into_body(), 1 << 20)
                .await
                .unwrap();
            let listed: serde_json::Value = serde_json::from_slice(&body).unwrap();
            assert_eq!(
                (listed["blockHash"].as_str(), listed["txCount"].as_u64()),
                (Some(want.as_str()), Some(1))
            );
            break;
        }
        assert!(
            sent.elapsed() < Duration::from_secs(10),
            "the Data API lists the ordinary transfer's block within seconds"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    eprintln!(
        "ordinary transfer listed by the Data API {:?} after it was mined",
        sent.elapsed()
    );
    follower.abort();
    assert_eq!(
        planted.requests(),
        0,
        "still nothing asked the loopback server"
    );
    store.close().await;
}

/// With `--metadata-private-urls` (the devnet's own servers), the same URI is fetched.
pub async fn private_metadata_urls_are_fetched_only_when_allowed(url: StoreUrl) {
    let devnet = EvmDevnet::start().await;
    let planted = Planted::start(r#"{"name":"planted","description":"served here"}"#).await;
    let hostile = deploy_hostile(&devnet);
    hostile_tx(
        &devnet,
        hostile,
        mint(Address::repeat_byte(0xa1), 1, &planted.url, false),
        200_000,
    );
    let store = url.open().await;
    let limits = MetadataLimits {
        allow_private: true,
        ..MetadataLimits::default()
    };
    let mut indexer = EvmIndexer::new(devnet.endpoint(), store.clone(), config(limits)).unwrap();
    indexer.backfill().await.unwrap();
    let chain_id = devnet.chain.chain_id();
    let m = store
        .find_nft_metadata(chain_id, hostile, U256::from(1u64))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(m.index_status, "INDEXED");
    assert_eq!(m.name.as_deref(), Some("planted"));
    assert_eq!(planted.requests(), 1);
    store.close().await;
}

/// Two nodes that share their first blocks, then part. The store follows node A, then the
/// indexer is pointed at node B (a replica behind a load balancer that holds another
/// history): it rolls back to the common ancestor and ends up holding B's chain exactly.
pub async fn a_diverged_node_is_followed_from_the_common_ancestor(url: StoreUrl) {
    let (a, b) = tokio::join!(EvmDevnet::start(), EvmDevnet::start());
    // The same txs on the same frozen clock make the same blocks.
    for d in [&a, &b] {
        d.token_blocks(3, 2);
    }
    let shared = a.chain.height();
    assert_eq!(
        a.chain.block_by_number(shared).unwrap().hash,
        b.chain.block_by_number(shared).unwrap().hash,
        "the two nodes share their first blocks"
    );
    let only_a = a.send(
        &key(0),
        Some(Address::repeat_byte(0xaa)),
        ether(1),
        Vec::new(),
        21_000,
    );
    a.build();
    a.send(
        &key(0),
        Some(Address::repeat_byte(0xab)),
        ether(1),
        Vec::new(),
        21_000,
    );
    a.build();
    let mut only_b = Vec::new();
    for i in 0..4u8 {
        only_b.push(b.send(
            &key(1),
            Some(Address::repeat_byte(0xb0 + i)),
            ether(2),
            Vec::new(),
            21_000,
        ));
        b.build();
    }
    let store = url.open().await;
    let mut on_a = EvmIndexer::new(
        a.endpoint(),
        store.clone(),
        config(MetadataLimits::default()),
    )
    .unwrap();
    on_a.backfill().await.unwrap();
    let chain_id = a.chain.chain_id();
    assert!(store.find_evm_tx(chain_id, only_a).await.unwrap().is_some());

    let mut on_b = EvmIndexer::new(
        b.endpoint(),
        store.clone(),
        config(MetadataLimits::default()),
    )
    .unwrap();
    let height = on_b.backfill().await.unwrap();
    assert_eq!(height, Some(b.chain.height()));
    assert!(
        store.find_evm_tx(chain_id, only_a).await.unwrap().is_none(),
        "A's own block is gone"
    );
    for tx in &only_b {
        assert!(store.find_evm_tx(chain_id, *tx).await.unwrap().is_some());
    }
    for n in 0..=b.chain.height() {
        let stored = store.find_evm_block(chain_id, n).await.unwrap().unwrap();
        assert_eq!(
            stored.block.hash,
            b.chain.block_by_number(n).unwrap().hash,
            "block {n}"
        );
    }
    assert_eq!(
        store.find_cursor(ChainKey::Evm(chain_id)).await.unwrap(),
        Some(b.chain.height())
    );
    store.close().await;
}

/// CreateChain txs whose genesis is anyone's bytes: a chain ID past what the store holds,
/// text that is not JSON, JSON nested far past any decoder's limit. The chains are stored
/// without an EVM chain ID, and an ordinary transfer after them is indexed.
pub async fn hostile_chain_geneses_never_stop_pchain_indexing(url: StoreUrl) {
    use firn_devnet::genesis::single_owner;
    use firn_devnet::wallet::Wallet;
    use firn_indexer::PChainIndexer;
    use firn_store::PChainReader;

    let devnet = crate::devnet::Devnet::start().await;
    let wallet = Wallet::new(&devnet.chain);
    let subnet = devnet.issue(
        wallet
            .create_subnet(single_owner(wallet.change_address()))
            .unwrap(),
    );
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let geneses: [Vec<u8>; 4] = [
        br#"{"config":{"chainId":18446744073709551615}}"#.to_vec(),
        br#"{"config":{"chainId":1e300}}"#.to_vec(),
        b"\xff\xfe not JSON".to_vec(),
        deep.into_bytes(),
    ];
    let mut chains = Vec::new();
    for (i, genesis) in geneses.into_iter().enumerate() {
        chains.push(
            devnet.issue(
                wallet
                    .create_chain(
                        subnet,
                        &format!("hostile{i}"),
                        firn_core::network::SUBNET_EVM_VM_ID,
                        genesis,
                    )
                    .unwrap(),
            ),
        );
    }
    devnet.transfers(1);
    let ordinary = devnet.chain.block_by_height(devnet.chain.height()).unwrap();

    let store = url.open().await;
    let mut indexer = PChainIndexer::new(
        devnet.client(),
        store.clone(),
        config(MetadataLimits::default()),
    );
    let height = tokio::time::timeout(Duration::from_secs(60), indexer.backfill())
        .await
        .expect("indexing finished")
        .unwrap();
    assert_eq!(height, Some(devnet.chain.height()));
    for id in ordinary.block.txs().map(|t| t.id()) {
        assert!(store.find_pchain_tx(id).await.unwrap().is_some(), "{id}");
    }
    for chain in chains {
        let stored = store
            .find_blockchain(chain)
            .await
            .unwrap()
            .expect("the chain is stored");
        assert_eq!(stored.chain.evm_chain_id, None, "{}", stored.chain.name);
    }
    store.close().await;
}

/// `eth_call` batches past the node's limits: 1,500 calls (the node takes 1,000 per batch)
/// and a hundred 200 kB answers (the node sends 25 MB per batch) come back whole, in order,
/// with a reverting call as `None` in its place.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eth_call_batches_fit_the_nodes_limits() {
    let devnet = EvmDevnet::start().await;
    let hostile = deploy_hostile(&devnet);
    hostile_tx(
        &devnet,
        hostile,
        call(
            "mintHugeUri(address,uint256,uint256)",
            &[
                Tok::Addr(Address::repeat_byte(0xa1)),
                Tok::Uint(U256::from(7u64)),
                Tok::Uint(U256::from(200_000u64)),
            ],
        ),
        200_000,
    );
    let source = firn_indexer::evm::EvmSource::new(devnet.client(), 2, 1);
    let name = call("name()", &[]);
    let mut calls: Vec<(Address, Vec<u8>)> = vec![(hostile, name); 1_500];
    // One call that runs out of gas (forging 2^64 events).
    calls[700] = (
        hostile,
        call(
            "forge(address,address,uint256,uint256)",
            &[
                Tok::Addr(Address::ZERO),
                Tok::Addr(Address::ZERO),
                Tok::Uint(U256::ZERO),
                Tok::Uint(U256::from(u64::MAX)),
            ],
        ),
    );
    let out = source.calls(&calls, Some(1_000_000)).await.unwrap();
    assert_eq!(out.len(), 1_500);
    assert!(out[700].is_none(), "the call that runs out of gas is None");
    let answered = out.iter().filter(|o| o.is_some()).count();
    assert_eq!(answered, 1_499);

    let token_uri = call("tokenURI(uint256)", &[Tok::Uint(U256::from(7u64))]);
    let big = vec![(hostile, token_uri); 100];
    let out = source.calls(&big, None).await.unwrap();
    assert_eq!(out.len(), 100);
    for o in &out {
        let bytes = o.as_ref().expect("every 200 kB answer arrived");
        assert!(bytes.len() > 200_000, "{}", bytes.len());
    }
}
