//! The X-Chain routes over a store the X-Chain indexer filled from a devnet's node: every
//! answer has the official schema's shape, and its values are the chain's.

use std::collections::BTreeSet;
use std::time::Duration;

use firn_core::avm::UnsignedTx;
use firn_core::ids::{Id, ShortId};
use firn_core::network::P_CHAIN_ID;
use firn_devnet::Wallet;
use firn_devnet::xchain::wallet::{XWallet, owner};
use firn_indexer::{IndexerConfig, PChainIndexer, XChainIndexer};
use firn_node::NodeConfig;
use firn_rpc::{AvalancheClient, ClientConfig};
use firn_store::rows::xchain::{XChainVertexRows, XTx, XVertexRecord};
use firn_store::{Store, XChainReader, XChainWriter};
use serde_json::Value;

use crate::fixtures::{x_coins, x_tx};
use crate::harness::Api;
use crate::schema::{assert_valid, official};

const AVAX: u64 = 1_000_000_000;
const X: &str = "/v1/networks/fuji/blockchains/x-chain";

fn bech32(a: &ShortId) -> String {
    firn_core::address::bech32_encode("fuji", a).unwrap()
}

fn str_of(v: &Value) -> &str {
    v.as_str().unwrap_or_default()
}

pub async fn xchain_routes_match_the_node(store: Store) {
    let node = firn_node::spawn(NodeConfig::test()).await.unwrap();
    let x = node.xchain().clone();
    let p = node.pchain().clone();
    let wallet = XWallet::new(&x);
    let addrs = x.funded_addresses();
    let (me, stranger) = (addrs[0], ShortId([0x42; 20]));
    let avax = x.network().avax_asset_id;
    let issue = |tx: firn_core::avm::Tx| {
        let id = x.issue_tx(tx).unwrap();
        x.clock().advance(1);
        x.build_until_idle().unwrap();
        id
    };
    let sent = issue(wallet.send(avax, stranger, 2 * AVAX).unwrap());
    let gold = issue(
        wallet
            .create_fixed_cap_asset("Gold", "GLD", 2, &[(me, 1_000), (addrs[2], 500)])
            .unwrap(),
    );
    issue(wallet.send(gold, stranger, 100).unwrap());
    let coin = issue(
        wallet
            .create_variable_cap_asset("Coin", "COIN", 6, &[owner(me)])
            .unwrap(),
    );
    issue(wallet.mint(coin, addrs[3], 7_000).unwrap());
    let apes = issue(
        wallet
            .create_nft_family("Apes", "APE", 2, &owner(me))
            .unwrap(),
    );
    issue(wallet.mint_nft(apes, 1, b"ape #1", me).unwrap());
    let exported = issue(wallet.export(P_CHAIN_ID, me, 3 * AVAX).unwrap());
    // AVAX comes back from the P-Chain to an address that had none on the X-Chain.
    let pw = Wallet::new(&p);
    let p_export = p
        .issue_tx(pw.export(x.chain_id(), addrs[4], 2 * AVAX).unwrap())
        .unwrap();
    p.clock().advance(1);
    p.build_until_idle().unwrap();
    let imported = issue(XWallet::new(&x).import(P_CHAIN_ID, addrs[4]).unwrap());
    // AVAX the P-Chain exports to the stranger stays in the X-Chain's atomic memory.
    p.issue_tx(pw.export(x.chain_id(), stranger, AVAX).unwrap())
        .unwrap();
    p.clock().advance(1);
    p.build_until_idle().unwrap();

    let client = AvalancheClient::new(&node.url_of("/ext/bc/X"), ClientConfig::default()).unwrap();
    let config = IndexerConfig {
        initial_backoff: Duration::from_millis(10),
        ..IndexerConfig::default()
    };
    let tip = XChainIndexer::new(client, store.clone(), config.clone())
        .backfill()
        .await
        .unwrap();
    assert_eq!(tip, Some(x.height()));
    // The P-Chain too, for the other sides of the crossings.
    let client = AvalancheClient::new(&node.url_of("/ext/bc/P"), ClientConfig::default()).unwrap();
    PChainIndexer::new(client, store.clone(), config)
        .backfill()
        .await
        .unwrap();

    let api = Api::new(store.clone());
    let doc = official();
    let valid = |method: &str, path: &str, v: &Value| {
        if let Some(doc) = &doc {
            assert_valid(doc, method, path, v);
        }
    };
    if doc.is_none() {
        eprintln!("SKIPPED X-Chain schema checks: shared/openapi/data-api.openapi.json not found");
    }

    // Blocks: every one, newest first, as the chain has them, by height and by ID too.
    let blocks = api
        .all_pages(&format!("{X}/blocks?startTimestamp=0"), "blocks", 3)
        .await;
    assert_eq!(blocks.len() as u64, x.height() + 1);
    for b in &blocks {
        let height: u64 = str_of(&b["blockNumber"]).parse().unwrap();
        let want = x.block_by_height(height).unwrap().block;
        assert_eq!(str_of(&b["blockHash"]), want.id().to_string());
        assert_eq!(str_of(&b["parentHash"]), want.parent_id().to_string());
        assert_eq!(b["blockTimestamp"], want.time());
        let ids: Vec<String> = want.txs().iter().map(|t| t.id().to_string()).collect();
        assert_eq!(b["transactions"], serde_json::json!(ids), "block {height}");
    }
    let page = api.ok(&format!("{X}/blocks?pageSize=2")).await;
    valid(
        "get",
        "/v1/networks/{network}/blockchains/{blockchainId}/blocks",
        &page,
    );
    assert_eq!(page["chainInfo"]["chainName"], "x-chain");
    let newest = &blocks[0];
    for key in [str_of(&newest["blockNumber"]), str_of(&newest["blockHash"])] {
        let b = api.ok(&format!("{X}/blocks/{key}")).await;
        valid(
            "get",
            "/v1/networks/{network}/blockchains/{blockchainId}/blocks/{blockId}",
            &b,
        );
        assert_eq!(&b, newest);
    }

    // One tx of every kind by hash: the schema, and what each moved.
    let tx_path = "/v1/networks/{network}/blockchains/{blockchainId}/transactions/{txHash}";
    let by_hash = |id: Id| {
        let api = &api;
        async move { api.ok(&format!("{X}/transactions/{id}")).await }
    };
    let t = by_hash(gold).await;
    valid("get", tx_path, &t);
    assert_eq!(t["txType"], "CreateAssetTx");
    assert_eq!(t["chainFormat"], "linear");
    assert_eq!(t["assetCreated"]["name"], "Gold");
    assert_eq!(t["assetCreated"]["symbol"], "GLD");
    assert_eq!(t["assetCreated"]["denomination"], 2);
    assert_eq!(t["assetCreated"]["cap"], "fixed");
    let gold_made: BTreeSet<(String, String)> = t["emittedUtxos"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|u| u["asset"]["assetId"] == gold.to_string())
        .map(|u| {
            (
                str_of(&u["addresses"][0]).to_owned(),
                str_of(&u["asset"]["amount"]).to_owned(),
            )
        })
        .collect();
    let want: BTreeSet<(String, String)> = [
        (bech32(&me), "1000".to_owned()),
        (bech32(&addrs[2]), "500".to_owned()),
    ]
    .into();
    assert_eq!(gold_made, want, "initial states, in canonical order");
    let created: Vec<&Value> = t["amountCreated"].as_array().unwrap().iter().collect();
    assert!(
        created.iter().any(|a| a["assetId"] == gold.to_string()
            && a["amount"] == "1500"
            && a["symbol"] == "GLD"),
        "{created:?}"
    );
    let info = x.tx(&gold).unwrap();
    let height = info.height.unwrap();
    assert_eq!(t["blockHeight"], height);
    assert_eq!(
        str_of(&t["blockHash"]),
        x.block_by_height(height).unwrap().block.id().to_string()
    );

    let t = by_hash(coin).await;
    assert_eq!(t["assetCreated"]["cap"], "variable");
    let t = by_hash(apes).await;
    assert_eq!(t["assetCreated"]["type"], "nft");

    let t = by_hash(exported).await;
    valid("get", tx_path, &t);
    assert_eq!(t["txType"], "ExportTx");
    assert_eq!(str_of(&t["destinationChain"]), P_CHAIN_ID.to_string());
    let out: Vec<&Value> = t["emittedUtxos"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|u| u["consumedOnChainId"] == P_CHAIN_ID.to_string())
        .collect();
    assert_eq!(out.len(), 1, "{t}");
    assert_eq!(out[0]["asset"]["amount"], (3 * AVAX).to_string());
    assert_eq!(out[0]["asset"]["symbol"], "AVAX");
    assert_eq!(out[0]["addresses"], serde_json::json!([bech32(&me)]));
    assert_eq!(
        str_of(&out[0]["createdOnChainId"]),
        x.chain_id().to_string()
    );

    let t = by_hash(imported).await;
    valid("get", tx_path, &t);
    assert_eq!(t["txType"], "ImportTx");
    assert_eq!(str_of(&t["sourceChain"]), P_CHAIN_ID.to_string());
    let UnsignedTx::Import(import) = x.tx(&imported).unwrap().tx.unsigned().clone() else {
        panic!("an ImportTx");
    };
    let came: Vec<&Value> = t["consumedUtxos"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|u| u["createdOnChainId"] == P_CHAIN_ID.to_string())
        .collect();
    assert_eq!(came.len(), import.imported_inputs.len());
    assert_eq!(
        str_of(&came[0]["utxoId"]),
        import.imported_inputs[0].utxo_id().to_string()
    );
    assert_eq!(came[0]["asset"]["amount"], (2 * AVAX).to_string());
    // Its owner, and when it was created, are as the P-Chain's export made it.
    assert_eq!(came[0]["addresses"], serde_json::json!([bech32(&addrs[4])]));
    let export = api
        .ok(&format!(
            "/v1/networks/fuji/blockchains/p-chain/transactions/{p_export}"
        ))
        .await;
    assert_eq!(came[0]["timestamp"], export["blockTimestamp"]);
    // Every UTXO it spent, its own chain's and the imported one, carries the credential that
    // spent it: keys of its owners.
    for u in t["consumedUtxos"].as_array().unwrap() {
        let creds = u["credentials"].as_array().expect("credentials");
        assert!(!creds.is_empty(), "{u}");
        for c in creds {
            let key = hex::decode(str_of(&c["publicKey"]).trim_start_matches("0x")).unwrap();
            let signer = firn_core::keys::secp256k1::PublicKey::from_slice(&key)
                .unwrap()
                .short_id();
            assert!(
                u["addresses"]
                    .as_array()
                    .unwrap()
                    .contains(&serde_json::json!(bech32(&signer))),
                "{u}"
            );
        }
    }
    assert_ne!(
        came[0]["timestamp"], t["timestamp"],
        "not the import's time"
    );
    let unlocked: u128 = t["amountUnlocked"][0]["amount"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(unlocked, u128::from(2 * AVAX));

    // An address's txs are exactly those that moved its UTXOs; the genesis tx first of all.
    let mine = api
        .all_pages(
            &format!("{X}/transactions?addresses=X-{}", bech32(&stranger)),
            "transactions",
            1,
        )
        .await;
    let ids: BTreeSet<String> = mine
        .iter()
        .map(|t| str_of(&t["txHash"]).to_owned())
        .collect();
    let want: BTreeSet<String> = [sent, gold_send_of(&x, gold, stranger)]
        .iter()
        .map(Id::to_string)
        .collect();
    assert_eq!(ids, want);
    let page = api
        .ok(&format!(
            "{X}/transactions?addresses={}&pageSize=3",
            bech32(&me)
        ))
        .await;
    valid(
        "get",
        "/v1/networks/{network}/blockchains/{blockchainId}/transactions",
        &page,
    );
    assert_eq!(page["chainInfo"]["chainName"], "x-chain");
    let exports = api
        .ok(&format!(
            "{X}/transactions?addresses={}&txTypes=ExportTx",
            bech32(&me)
        ))
        .await;
    let types: Vec<&str> = exports["transactions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| str_of(&t["txType"]))
        .collect();
    assert_eq!(types, ["ExportTx"]);
    // A time window: from the second newest of my txs' time on, exactly the txs since.
    let all_mine = api
        .all_pages(
            &format!("{X}/transactions?addresses={}", bech32(&me)),
            "transactions",
            4,
        )
        .await;
    let since = all_mine[1]["timestamp"].as_u64().unwrap();
    let want: Vec<&str> = all_mine
        .iter()
        .filter(|t| t["timestamp"].as_u64().unwrap() >= since)
        .map(|t| str_of(&t["txHash"]))
        .collect();
    assert!(want.len() >= 2 && want.len() < all_mine.len(), "{want:?}");
    let late = api
        .ok(&format!(
            "{X}/transactions?addresses={}&startTimestamp={since}",
            bech32(&me)
        ))
        .await;
    let late: Vec<&str> = late["transactions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| str_of(&t["txHash"]))
        .collect();
    assert_eq!(late, want);
    let early = api
        .ok(&format!(
            "{X}/transactions?addresses={}&endTimestamp={}",
            bech32(&me),
            since - 1
        ))
        .await;
    let early = early["transactions"].as_array().unwrap().len();
    assert_eq!(
        early,
        (all_mine.len() - want.len()).min(10),
        "the default page of the rest"
    );

    // Last activity: the newest of my txs; the chains each address touched.
    let activity = api
        .ok(&format!(
            "{X}/lastActivityTimestampByAddresses?addresses={}",
            bech32(&me)
        ))
        .await;
    valid(
        "get",
        "/v1/networks/{network}/blockchains/{blockchainId}/lastActivityTimestampByAddresses",
        &activity,
    );
    assert_eq!(activity["txHash"], all_mine[0]["txHash"]);
    assert_eq!(activity["timestamp"], all_mine[0]["timestamp"]);
    assert_eq!(activity["chainName"], "x-chain");
    let chains = api
        .ok(&format!(
            "/v1/networks/fuji/addresses:listChainIds?addresses={},{}",
            bech32(&stranger),
            bech32(&ShortId([0x43; 20]))
        ))
        .await;
    valid(
        "get",
        "/v1/networks/{network}/addresses:listChainIds",
        &chains,
    );
    // The P-Chain's export to the stranger is its activity there.
    assert_eq!(
        chains["addresses"][0]["blockchainIds"],
        serde_json::json!([P_CHAIN_ID.to_string(), x.chain_id().to_string()])
    );
    assert_eq!(
        chains["addresses"][1]["blockchainIds"],
        serde_json::json!([])
    );

    // Assets and their txs.
    let a = api.ok(&format!("{X}/assets/{gold}")).await;
    valid(
        "get",
        "/v1/networks/{network}/blockchains/{blockchainId}/assets/{assetId}",
        &a,
    );
    assert_eq!(
        (str_of(&a["name"]), str_of(&a["symbol"]), &a["denomination"]),
        ("Gold", "GLD", &serde_json::json!(2))
    );
    assert_eq!(
        a["createdAtTimestamp"],
        x.block_by_height(height).unwrap().block.time()
    );
    let a = api.ok(&format!("{X}/assets/{avax}")).await;
    assert_eq!(a["symbol"], "AVAX");
    api.get(&format!("{X}/assets/{}", Id([9; 32])))
        .await
        .assert_error(404, "not found");
    api.get(&format!("{X}/assets/nonsense"))
        .await
        .assert_error(400, "assetId");
    let gold_txs = api
        .all_pages(
            &format!("{X}/assets/{gold}/transactions?startTimestamp=0"),
            "transactions",
            1,
        )
        .await;
    let ids: Vec<&str> = gold_txs.iter().map(|t| str_of(&t["txHash"])).collect();
    assert_eq!(
        ids,
        [
            gold_send_of(&x, gold, stranger).to_string(),
            gold.to_string()
        ]
    );
    let page = api
        .ok(&format!("{X}/assets/{gold}/transactions?pageSize=1"))
        .await;
    valid(
        "get",
        "/v1/networks/{network}/blockchains/{blockchainId}/assets/{assetId}/transactions",
        &page,
    );

    // UTXOs and balances: avm.getAllBalances' with includePartial (every output naming them).
    for owner in [me, addrs[2], addrs[4], stranger] {
        let utxos = api
            .all_pages(
                &format!("{X}/utxos?addresses={}", bech32(&owner)),
                "utxos",
                2,
            )
            .await;
        let page = api
            .ok(&format!("{X}/utxos?addresses={}", bech32(&owner)))
            .await;
        valid(
            "get",
            "/v1/networks/{network}/blockchains/{blockchainId}/utxos",
            &page,
        );
        let balances = x.balances(&[owner], true);
        let fungible: BTreeSet<String> = utxos
            .iter()
            .filter(|u| u["utxoType"] == "transfer" && u["asset"]["type"] == "secp256k1")
            .map(|u| {
                format!(
                    "{}:{}",
                    str_of(&u["creationTxHash"]),
                    str_of(&u["outputIndex"])
                )
            })
            .collect();
        let want: BTreeSet<String> = balances
            .values()
            .flat_map(|b| {
                b.utxos
                    .iter()
                    .map(|u| format!("{}:{}", u.tx_id, u.output_index))
            })
            .collect();
        assert_eq!(fungible, want, "UTXOs of {}", bech32(&owner));
        let r = api
            .ok(&format!("{X}/balances?addresses={}", bech32(&owner)))
            .await;
        valid(
            "get",
            "/v1/networks/{network}/blockchains/{blockchainId}/balances",
            &r,
        );
        let b = &r["balances"];
        let mut got = std::collections::BTreeMap::<String, u128>::new();
        for item in b["unlocked"]
            .as_array()
            .unwrap()
            .iter()
            .chain(b["locked"].as_array().unwrap())
        {
            *got.entry(str_of(&item["assetId"]).to_owned()).or_default() +=
                str_of(&item["amount"]).parse::<u128>().unwrap();
        }
        let want: std::collections::BTreeMap<String, u128> = balances
            .iter()
            .map(|(id, b)| (id.to_string(), u128::from(b.amount)))
            .collect();
        assert_eq!(got, want, "balances of {}", bech32(&owner));
    }
    atomic_memory_matches_the_node(&api, &x, [me, stranger, addrs[4]]).await;
    x_burns_are_the_fees(&api, &store, &x).await;
    api.get(&format!(
        "{X}/utxos?addresses={}&sortBy=amount",
        bech32(&me)
    ))
    .await
    .assert_error(400, "sortBy");
    api.get(&format!(
        "{X}/balances?addresses={}&blockTimestamp=5",
        bech32(&me)
    ))
    .await
    .assert_error(400, "blockTimestamp");
    api.get(&format!("{X}/transactions/{}", Id([7; 32])))
        .await
        .assert_error(404, "not found");
    api.get(&format!("{X}/blocks/999999"))
        .await
        .assert_error(404, "not found");

    node.shutdown().await;
}

/// What the X-Chain burned is each of its txs' fee, in the store and in `getAvaxSupply`.
async fn x_burns_are_the_fees(api: &Api, store: &Store, x: &firn_devnet::XChain) {
    let fees = x.fees();
    let want: u64 = (0..=x.height())
        .filter_map(|h| x.block_by_height(h))
        .flat_map(|b| b.block.txs().to_vec())
        .map(|t| match t.unsigned() {
            UnsignedTx::CreateAsset(_) => fees.create_asset_tx_fee,
            _ => fees.tx_fee,
        })
        .sum();
    let avax = x.network().avax_asset_id;
    assert_eq!(
        store.find_xchain_burned(avax).await.unwrap(),
        u128::from(want)
    );
    let supply = api.ok("/v1/avax/supply").await;
    if let Some(doc) = official() {
        assert_valid(&doc, "get", "/v1/avax/supply", &supply);
    }
    let decimal = format!("{}.{:09}", want / AVAX, want % AVAX);
    let decimal = decimal.trim_end_matches('0').trim_end_matches('.');
    assert!(want > 0 && want.is_multiple_of(1_000), "{want}");
    assert_eq!(supply["totalXBurned"], decimal);
}

/// What each owner's balances on the P- and X-Chains show in atomic memory: what the devnet's
/// shared memory holds for them, exported by the other chain.
async fn atomic_memory_matches_the_node(api: &Api, x: &firn_devnet::XChain, owners: [ShortId; 3]) {
    let doc = official();
    let mut seen = 0;
    for owner in owners {
        for (chain, here, other) in [
            ("p-chain", P_CHAIN_ID, x.chain_id()),
            ("x-chain", x.chain_id(), P_CHAIN_ID),
        ] {
            let (utxos, _) = x.shared_memory().list(&here, &other, &[owner], None, 1_000);
            let path = format!(
                "/v1/networks/fuji/blockchains/{chain}/balances?addresses={}",
                bech32(&owner)
            );
            let r = api.ok(&path).await;
            if let Some(doc) = &doc {
                let template = "/v1/networks/{network}/blockchains/{blockchainId}/balances";
                assert_valid(doc, "get", template, &r);
            }
            let b = &r["balances"];
            assert_eq!(b["atomicMemoryLocked"], serde_json::json!([]), "{path}");
            let held = b["atomicMemoryUnlocked"].as_array().unwrap();
            if utxos.is_empty() {
                assert!(held.is_empty(), "{path}: {held:?}");
                continue;
            }
            seen += 1;
            let amount: u64 = utxos.iter().map(|u| u.output.amount).sum();
            assert_eq!(held.len(), 1, "{path}: {held:?}");
            assert_eq!(held[0]["sharedWithChainId"], other.to_string(), "{path}");
            assert_eq!(held[0]["amount"], amount.to_string(), "{path}");
            assert_eq!(held[0]["utxoCount"], utxos.len(), "{path}");
            assert_eq!(held[0]["symbol"], "AVAX", "{path}");
        }
    }
    assert_eq!(seen, 2, "one export left in each chain's atomic memory");
}

/// The BaseTx that sent `asset` to `to`.
fn gold_send_of(x: &firn_devnet::XChain, asset: Id, to: ShortId) -> Id {
    (1..=x.height())
        .filter_map(|h| x.block_by_height(h))
        .flat_map(|b| b.block.txs().to_vec())
        .find(|t| {
            matches!(t.unsigned(), UnsignedTx::Base(_))
                && t.unsigned()
                    .base()
                    .outputs
                    .iter()
                    .any(|o| o.asset_id == asset && o.output.owners.addresses == [to])
        })
        .map(|t| t.id())
        .unwrap()
}

/// The DAG before Cortina: vertices listed, by ID and by height, and a DAG tx in the
/// non-linear shape with the vertices that carried it.
pub async fn xchain_vertices_are_served(store: Store) {
    let api = Api::new(store.clone());
    // A chain born linear has no vertices: an empty list, and a 404 by ID.
    let empty = api.ok(&format!("{X}/vertices")).await;
    assert_eq!(empty["vertices"], serde_json::json!([]));
    api.get(&format!("{X}/vertices/{}", Id([3; 32])))
        .await
        .assert_error(404, "not found");

    let (a, b) = (ShortId([1; 20]), ShortId([2; 20]));
    let avax = firn_api::ApiConfig::default().network.avax_asset_id;
    let t0 = 1_600_000_000;
    let mut genesis = x_tx(
        avax,
        "CreateAssetTx",
        vec![],
        vec![x_coins(avax, 0, avax, &[a], 1_000)],
    );
    genesis.genesis = true;
    store.commit_xchain_genesis(&[genesis], t0).await.unwrap();
    let (s0, s1) = (Id([0xe0; 32]), Id([0xe1; 32]));
    let vertex = |index: u64, height: u64, parents: Vec<Id>, txs: Vec<XTx>| XChainVertexRows {
        vertex: XVertexRecord {
            index,
            vertex_id: Id([0xd0 + index as u8; 32]),
            height,
            parent_ids: parents,
            timestamp: t0 + 10 * (index + 1),
            tx_count: txs.len() as u64,
            size_bytes: 100 + index,
            tx_ids: txs.iter().map(|t| t.tx_id).collect(),
        },
        txs,
    };
    let v0 = vertex(0, 0, vec![], vec![]);
    let v1 = vertex(
        1,
        1,
        vec![v0.vertex.vertex_id],
        vec![x_tx(
            s0,
            "BaseTx",
            vec![avax.prefix(0)],
            vec![x_coins(s0, 0, avax, &[b], 999)],
        )],
    );
    let v2 = vertex(
        2,
        1,
        vec![v0.vertex.vertex_id],
        vec![x_tx(
            s1,
            "BaseTx",
            vec![s0.prefix(0)],
            vec![x_coins(s1, 0, avax, &[a], 998)],
        )],
    );
    let dag = [v0, v1, v2];
    store.commit_xchain_vertices(&dag).await.unwrap();

    let doc = official();
    let valid = |path: &str, v: &Value| {
        if let Some(doc) = &doc {
            assert_valid(doc, "get", path, v);
        }
    };
    let all = api
        .all_pages(&format!("{X}/vertices?x=1"), "vertices", 2)
        .await;
    let ids: Vec<&str> = all.iter().map(|v| str_of(&v["vertexHash"])).collect();
    let want: Vec<String> = dag
        .iter()
        .rev()
        .map(|v| v.vertex.vertex_id.to_string())
        .collect();
    assert_eq!(ids, want, "latest accepted first");
    let page = api.ok(&format!("{X}/vertices?pageSize=1")).await;
    valid(
        "/v1/networks/{network}/blockchains/{blockchainId}/vertices",
        &page,
    );
    let one = api
        .ok(&format!("{X}/vertices/{}", dag[1].vertex.vertex_id))
        .await;
    valid(
        "/v1/networks/{network}/blockchains/{blockchainId}/vertices/{vertexHash}",
        &one,
    );
    assert_eq!(one["vertexHeight"], 1);
    assert_eq!(one["vertexIndex"], 1);
    assert_eq!(one["vertexTimestamp"], t0 + 20);
    assert_eq!(
        one["parentHashes"],
        serde_json::json!([dag[0].vertex.vertex_id.to_string()])
    );
    assert_eq!(one["transactions"], serde_json::json!([s0.to_string()]));
    let at_one = api
        .ok(&format!(
            "{X}/vertices:listByHeight?vertexHeight=1&sortOrder=asc"
        ))
        .await;
    valid(
        "/v1/networks/{network}/blockchains/{blockchainId}/vertices:listByHeight",
        &at_one,
    );
    let indexes: Vec<u64> = at_one["vertices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["vertexIndex"].as_u64().unwrap())
        .collect();
    assert_eq!(indexes, [1, 2]);
    api.get(&format!("{X}/vertices:listByHeight"))
        .await
        .assert_error(400, "vertexHeight");
    api.get(&format!("{X}/vertices/nonsense"))
        .await
        .assert_error(400, "vertexHash");

    // A DAG tx: non-linear, with its vertex; an address's list mixes both shapes' kinds.
    let t = api.ok(&format!("{X}/transactions/{s0}")).await;
    valid(
        "/v1/networks/{network}/blockchains/{blockchainId}/transactions/{txHash}",
        &t,
    );
    assert_eq!(t["chainFormat"], "non-linear");
    assert_eq!(
        t["vertices"],
        serde_json::json!([{"hash": dag[1].vertex.vertex_id.to_string(), "height": 1, "timestamp": t0 + 20}])
    );
    assert!(t.get("blockHeight").is_none(), "{t}");
    let mine = api
        .ok(&format!("{X}/transactions?addresses={}", bech32(&a)))
        .await;
    valid(
        "/v1/networks/{network}/blockchains/{blockchainId}/transactions",
        &mine,
    );
    let hashes: Vec<&str> = mine["transactions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| str_of(&t["txHash"]))
        .collect();
    assert_eq!(hashes, [s1.to_string(), s0.to_string(), avax.to_string()]);
}
