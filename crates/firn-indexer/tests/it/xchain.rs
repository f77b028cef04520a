//! The X-Chain follower against the devnet's node RPC: txs of every kind, indexed, then every
//! block, tx, asset, UTXO set and balance compared with what the node's `avm.*` says.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use firn_core::address::ChainAddress;
use firn_core::avax::secp256k1fx::{OutputOwners, TransferOutput};
use firn_core::avm::tx::InitialState;
use firn_core::avm::{FxOutput, Tx, Utxo};
use firn_core::codec;
use firn_core::encoding::hex_decode_checksummed;
use firn_core::ids::{Id, ShortId};
use firn_core::network::P_CHAIN_ID;
use firn_devnet::XChain;
use firn_devnet::xchain::XTxStatus;
use firn_devnet::xchain::wallet::{XWallet, owner};
use firn_indexer::{IndexerConfig, XChainIndexer};
use firn_node::{NodeConfig, NodeHandle};
use firn_rpc::methods::NoParams;
use firn_rpc::methods::api::Encoded;
use firn_rpc::methods::avm::{
    AssetIdParams, GetAllBalances, GetAllBalancesParams, GetAssetDescription, GetBlockByHeight,
    GetBlockByHeightParams, GetHeight, GetTx, GetUtxos, GetUtxosParams, TxParams,
};
use firn_rpc::{AvalancheClient, ClientConfig};
use firn_store::rows::ChainKey;
use firn_store::rows::xchain::AssetKind;
use firn_store::testing::StoreUrl;
use firn_store::{
    CursorStore, PageRequest, SortOrder, Store, XChainReader, XTxFilter, XUtxoFilter,
};

const AVAX: u64 = 1_000_000_000;

/// A devnet whose X-Chain the tests drive directly and index over HTTP.
struct XDevnet {
    x: Arc<XChain>,
    url: String,
    _node: NodeHandle,
}

/// What the script created, to compare.
struct Made {
    assets: Vec<Id>,
    /// Every address that holds or held something.
    addresses: Vec<ShortId>,
}

impl XDevnet {
    async fn start() -> Self {
        let node = firn_node::spawn(NodeConfig::test()).await.unwrap();
        Self {
            x: node.xchain().clone(),
            url: node.url().to_owned(),
            _node: node,
        }
    }

    fn client(&self) -> AvalancheClient {
        AvalancheClient::new(&format!("{}/ext/bc/X", self.url), ClientConfig::default()).unwrap()
    }

    fn issue(&self, tx: Tx) -> Id {
        let id = self.x.issue_tx(tx).unwrap();
        self.x.clock().advance(1);
        self.x.build_until_idle().unwrap();
        assert_eq!(self.x.tx_status(&id), XTxStatus::Accepted, "tx {id}");
        id
    }

    /// Txs of every kind the X-Chain has.
    fn script(&self) -> Made {
        let x = &self.x;
        let wallet = XWallet::new(x);
        let addrs = x.funded_addresses();
        let me = addrs[0];
        let stranger = ShortId([0x42; 20]);
        let avax = x.network().avax_asset_id;
        self.issue(wallet.send(avax, addrs[1], 5 * AVAX).unwrap());
        self.issue(wallet.send(avax, stranger, 2 * AVAX).unwrap());

        let gold = self.issue(
            wallet
                .create_fixed_cap_asset("Gold", "GLD", 2, &[(me, 1_000), (addrs[2], 500)])
                .unwrap(),
        );
        self.issue(wallet.send(gold, stranger, 100).unwrap());

        let coin = self.issue(
            wallet
                .create_variable_cap_asset("Coin", "COIN", 6, &[owner(me)])
                .unwrap(),
        );
        self.issue(wallet.mint(coin, addrs[3], 7_000).unwrap());

        let apes = self.issue(
            wallet
                .create_nft_family("Apes", "APE", 2, &owner(me))
                .unwrap(),
        );
        self.issue(wallet.mint_nft(apes, 1, b"ape #1", me).unwrap());
        self.issue(wallet.transfer_nft(apes, stranger).unwrap());

        let deed = self.issue(wallet.create_property("Deed", "DEED", &owner(me)).unwrap());
        self.issue(wallet.mint_property(deed, me).unwrap());
        self.issue(wallet.burn_property(deed).unwrap());

        // Outputs only `includePartial` counts: two owners, and a lock far in the future.
        let mut pair = vec![addrs[1], addrs[2]];
        pair.sort();
        let shared = self.issue(
            wallet
                .create_asset(
                    "Shared",
                    "SHR",
                    0,
                    vec![InitialState {
                        fx_index: 0,
                        outputs: vec![
                            FxOutput::Secp256k1Transfer(TransferOutput {
                                amount: 70,
                                owners: OutputOwners {
                                    locktime: 0,
                                    threshold: 1,
                                    addresses: pair,
                                },
                            }),
                            FxOutput::Secp256k1Transfer(TransferOutput {
                                amount: 30,
                                owners: OutputOwners {
                                    locktime: u64::MAX / 2,
                                    threshold: 1,
                                    addresses: vec![addrs[3]],
                                },
                            }),
                        ],
                    }],
                )
                .unwrap(),
        );

        self.issue(wallet.export(P_CHAIN_ID, me, 3 * AVAX).unwrap());

        let mut addresses: Vec<ShortId> = addrs.iter().take(5).copied().collect();
        addresses.push(stranger);
        Made {
            assets: vec![avax, gold, coin, apes, deed, shared],
            addresses,
        }
    }

    fn x_address(&self, a: &ShortId) -> String {
        ChainAddress::new("X", self.x.network().network_id, *a).to_string()
    }
}

fn config() -> IndexerConfig {
    IndexerConfig {
        // Small batches so that batch edges fall everywhere.
        batch_blocks: 3,
        concurrency: 4,
        max_attempts: Some(3),
        initial_backoff: Duration::from_millis(10),
        ..IndexerConfig::default()
    }
}

fn hex(e: &Encoded) -> Vec<u8> {
    match e {
        Encoded::Text(s) => hex_decode_checksummed(s).unwrap(),
        Encoded::Json(_) => panic!("json where hex was asked for"),
    }
}

/// Every block and tx the node serves is stored as the node has it, and nothing else.
async fn check_blocks(devnet: &XDevnet, store: &Store) -> usize {
    let client = devnet.client();
    let tip = client
        .request::<GetHeight>(&NoParams {})
        .await
        .unwrap()
        .height;
    let mut txs = 0;
    for height in 0..=tip {
        let reply = client
            .request::<GetBlockByHeight>(&GetBlockByHeightParams {
                height,
                encoding: Some("hex".to_owned()),
            })
            .await
            .unwrap();
        let bytes = hex(&reply.block);
        let block: firn_core::avm::Block = codec::from_bytes(&bytes).unwrap();
        let stored = store.get_xchain_block_by_height(height).await.unwrap();
        assert_eq!(stored.block_id, block.id(), "block {height}");
        assert_eq!(stored.parent_id, block.parent_id());
        assert_eq!(stored.timestamp, block.time());
        assert_eq!(stored.tx_count, block.txs().len() as u64);
        assert_eq!(stored.size_bytes, bytes.len() as u64);
        assert_eq!(
            store.get_xchain_block_by_id(block.id()).await.unwrap(),
            stored
        );
        let first = usize::from(height == 0);
        for (i, tx) in block.txs().iter().enumerate() {
            let got = store.get_xchain_tx(tx.id()).await.unwrap();
            let served = client
                .request::<GetTx>(&TxParams {
                    tx_id: tx.id(),
                    encoding: Some("hex".to_owned()),
                })
                .await
                .unwrap();
            assert_eq!(got.bytes, hex(&served.tx), "tx {}", tx.id());
            assert_eq!((got.height, got.index as usize), (height, first + i));
            assert_eq!(got.tx_type, tx.unsigned().type_name());
            assert!(!got.genesis);
            txs += 1;
        }
    }
    // Genesis: AVAX's CreateAssetTx, under the asset's ID, at height 0.
    let avax = devnet.x.network().avax_asset_id;
    let genesis = store.get_xchain_tx(avax).await.unwrap();
    assert!(genesis.genesis);
    assert_eq!((genesis.height, genesis.index), (0, 0));
    assert_eq!(genesis.produced.len(), devnet.x.funded_addresses().len());
    assert!(genesis.produced.iter().all(|u| u.utxo.tx_id == avax));
    let all = store
        .list_xchain_txs(
            &XTxFilter::default(),
            SortOrder::Desc,
            &PageRequest::first(10_000),
        )
        .await
        .unwrap();
    assert_eq!(all.items.len(), txs + 1, "every tx once, and genesis");
    txs
}

async fn check_assets(devnet: &XDevnet, store: &Store, made: &Made) {
    let client = devnet.client();
    for asset in &made.assets {
        let node = client
            .request::<GetAssetDescription>(&AssetIdParams {
                asset_id: asset.to_string(),
            })
            .await
            .unwrap();
        let stored = store.get_asset(*asset).await.unwrap();
        assert_eq!(
            (stored.asset.name.as_str(), stored.asset.symbol.as_str()),
            (node.name.as_str(), node.symbol.as_str())
        );
        assert_eq!(stored.asset.denomination, node.denomination);
    }
    let kinds: Vec<AssetKind> = {
        let mut out = Vec::new();
        for a in &made.assets {
            out.push(store.get_asset(*a).await.unwrap().asset.kind);
        }
        out
    };
    assert_eq!(
        kinds,
        [
            AssetKind::FixedCap,
            AssetKind::FixedCap,
            AssetKind::VariableCap,
            AssetKind::NftFamily,
            AssetKind::Property,
            AssetKind::FixedCap,
        ]
    );
}

async fn check_utxos_and_balances(devnet: &XDevnet, store: &Store, made: &Made) {
    let client = devnet.client();
    let now = devnet.x.clock().now();
    for a in &made.addresses {
        let reply = client
            .request::<GetUtxos>(&GetUtxosParams {
                addresses: vec![devnet.x_address(a)],
                limit: 1024,
                encoding: Some("hex".to_owned()),
                ..GetUtxosParams::default()
            })
            .await
            .unwrap();
        let node: BTreeSet<Id> = reply
            .utxos
            .iter()
            .map(|u| {
                codec::from_bytes::<Utxo>(&hex_decode_checksummed(u).unwrap())
                    .unwrap()
                    .id()
            })
            .collect();
        let mut stored = BTreeSet::new();
        let filter = XUtxoFilter {
            addresses: vec![*a],
            asset_id: None,
            ..XUtxoFilter::default()
        };
        let mut page = PageRequest::first(2);
        loop {
            let got = store
                .list_xchain_utxos(&filter, SortOrder::Desc, &page)
                .await
                .unwrap();
            for u in got.items {
                assert!(stored.insert(u.utxo.utxo_id), "listed twice");
            }
            match got.next {
                Some(c) => page = PageRequest::after(2, c),
                None => break,
            }
        }
        assert_eq!(stored, node, "utxos of {a}");
        assert!(!stored.is_empty());

        let balances = store.list_xchain_balances(&[*a], now).await.unwrap();
        for include_partial in [false, true] {
            let reply = client
                .request::<GetAllBalances>(&GetAllBalancesParams {
                    address: devnet.x_address(a),
                    include_partial,
                })
                .await
                .unwrap();
            let node: BTreeSet<(String, u64)> = reply
                .balances
                .into_iter()
                .map(|b| (b.asset, b.balance))
                .collect();
            let ours: BTreeSet<(String, u64)> = balances
                .iter()
                .map(|b| {
                    (
                        b.asset_id,
                        if include_partial {
                            b.total
                        } else {
                            b.spendable
                        },
                    )
                })
                .filter(|(_, amount)| *amount > 0)
                .map(|(asset, amount)| {
                    let name = if asset == made.assets[0] {
                        "AVAX".to_owned()
                    } else {
                        asset.to_string()
                    };
                    (name, u64::try_from(amount).unwrap())
                })
                .collect();
            assert_eq!(
                ours, node,
                "balances of {a}, includePartial {include_partial}"
            );
        }
    }
    // The partial outputs are there, and only counted in total.
    let shared = *made.assets.last().unwrap();
    let addrs = devnet.x.funded_addresses();
    let b = store.list_xchain_balances(&addrs[1..4], now).await.unwrap();
    let s = b.iter().find(|b| b.asset_id == shared).unwrap();
    assert_eq!((s.spendable, s.total, s.utxo_count), (0, 100, 2));
    // Txs by address and asset: the stranger received AVAX, gold and an NFT.
    let stranger = made.addresses.last().unwrap();
    let theirs = store
        .list_xchain_txs(
            &XTxFilter {
                addresses: vec![*stranger],
                asset_id: None,
                ..XTxFilter::default()
            },
            SortOrder::Desc,
            &PageRequest::first(100),
        )
        .await
        .unwrap();
    assert_eq!(theirs.items.len(), 3);
    let gold = store
        .list_xchain_txs(
            &XTxFilter {
                addresses: vec![*stranger],
                asset_id: Some(made.assets[1]),
                ..XTxFilter::default()
            },
            SortOrder::Desc,
            &PageRequest::first(100),
        )
        .await
        .unwrap();
    assert_eq!(gold.items.len(), 1);
    assert!(
        gold.items[0]
            .produced
            .iter()
            .any(|u| u.utxo.addresses == [*stranger])
    );
}

pub async fn xchain_activity_matches_the_node(url: StoreUrl) {
    let devnet = XDevnet::start().await;
    let made = devnet.script();
    let store = url.open().await;
    let mut indexer = XChainIndexer::new(devnet.client(), store.clone(), config());
    let height = indexer.backfill().await.unwrap();
    assert_eq!(height, Some(devnet.x.height()));

    check_blocks(&devnet, &store).await;
    check_assets(&devnet, &store, &made).await;
    check_utxos_and_balances(&devnet, &store, &made).await;
    store.close().await;
}

pub async fn xchain_restart_continues_without_gaps_or_duplicates(url: StoreUrl) {
    let devnet = XDevnet::start().await;
    let wallet = XWallet::new(&devnet.x);
    let addrs = devnet.x.funded_addresses();
    let avax = devnet.x.network().avax_asset_id;
    devnet.issue(wallet.send(avax, addrs[1], AVAX).unwrap());
    let store = url.open().await;
    XChainIndexer::new(devnet.client(), store.clone(), config())
        .backfill()
        .await
        .unwrap();
    let first = store.find_cursor(ChainKey::XChain).await.unwrap().unwrap();
    store.close().await;

    // More blocks, then a new process on the same store.
    let made = devnet.script();
    let store = url.open().await;
    let progress = Arc::new(std::sync::Mutex::new(None));
    let seen = progress.clone();
    let mut indexer = XChainIndexer::new(devnet.client(), store.clone(), config())
        .on_progress(move |p| *seen.lock().unwrap() = Some(*p));
    indexer.backfill().await.unwrap();
    let last = devnet.x.height();
    assert_eq!(
        store.find_cursor(ChainKey::XChain).await.unwrap(),
        Some(last)
    );
    let p = progress.lock().unwrap().unwrap();
    assert_eq!(p.started_at, Some(first));
    assert_eq!(p.committed, last - first, "only the new blocks");
    check_blocks(&devnet, &store).await;
    check_utxos_and_balances(&devnet, &store, &made).await;
    // A third run has nothing to do.
    let again = XChainIndexer::new(devnet.client(), store.clone(), config())
        .backfill()
        .await
        .unwrap();
    assert_eq!(again, Some(last));
    store.close().await;
}

pub async fn xchain_follow_picks_up_new_blocks(url: StoreUrl) {
    let devnet = XDevnet::start().await;
    let store = url.open().await;
    let client = devnet.client();
    let follower_store = store.clone();
    let follower = tokio::spawn(async move {
        let mut config = config();
        config.poll_interval = Duration::from_millis(20);
        XChainIndexer::new(client, follower_store, config)
            .follow()
            .await
    });
    let made = devnet.script();
    let tip = devnet.x.height();
    // Wait for the follower to reach the tip (bounded by the test harness only).
    loop {
        if store.find_cursor(ChainKey::XChain).await.unwrap() == Some(tip) {
            break;
        }
        if follower.is_finished() {
            panic!("the follower stopped: {:?}", follower.await);
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    follower.abort();
    check_blocks(&devnet, &store).await;
    check_utxos_and_balances(&devnet, &store, &made).await;
    store.close().await;
}
