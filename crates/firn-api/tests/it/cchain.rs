//! The C-Chain's atomic routes over a store the P-Chain and C-Chain indexers filled from a
//! devnet's node: ImportTx and ExportTx in the official shapes, their values the chain's
//! (`avax.getAtomicTx`, the EVM balances they moved, the UTXOs they took and made), the address
//! and type filters, and the C-Chain's atomic memory against `avax.getUTXOs`.

use std::time::Duration;

use firn_core::atomic::{Tx, UnsignedTx};
use firn_core::ids::ShortId;
use firn_core::network::P_CHAIN_ID;
use firn_devnet::Wallet;
use firn_devnet::c_wallet::CWallet;
use firn_indexer::{EvmEndpoint, EvmIndexer, IndexerConfig, PChainIndexer};
use firn_node::NodeConfig;
use firn_rpc::{AvalancheClient, ClientConfig};
use firn_store::Store;
use firn_store::types::Address;
use serde_json::{Value, json};

use crate::harness::Api;
use crate::schema::{assert_valid, official};

const AVAX: u64 = 1_000_000_000;
const C: &str = "/v1/networks/fuji/blockchains/c-chain";

fn str_of(v: &Value) -> &str {
    v.as_str().unwrap_or_default()
}

fn bech32(a: &ShortId) -> String {
    firn_core::address::bech32_encode("fuji", a).unwrap()
}

/// Calls `method` on the node's `path` and returns its result.
async fn rpc(url: &str, method: &str, params: Value) -> Value {
    let body = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params });
    let r: Value = reqwest::Client::new()
        .post(url)
        .json(&body)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(r.get("error").is_none(), "{method}: {r}");
    r["result"].clone()
}

pub async fn c_chain_atomic_routes_match_the_node(store: Store) {
    let node = firn_node::spawn(NodeConfig::test().with_evm())
        .await
        .unwrap();
    let p = node.pchain().clone();
    let c = node.c_chain().unwrap();
    let n = p.network();
    let keys = p.funded_keys();
    let (me, other) = (p.funded_addresses()[1], p.funded_addresses()[2]);
    let account = Address::from(keys[1].public_key().eth_address());
    let wallet = CWallet::new(n.clone(), p.shared_memory().clone(), p.funded_keys());
    let pw = Wallet::new(&p);
    let p_build = |tx| {
        p.issue_tx(tx).unwrap();
        p.clock().advance(1);
        p.build_until_idle().unwrap();
    };
    let c_build = |tx: &Tx| {
        c.submit_atomic(tx.clone()).unwrap();
        c.build_block().unwrap().unwrap();
    };
    // P → C, imported by the account; C → X, left in the X-Chain's memory; P → C to `other`,
    // left in the C-Chain's memory.
    p_build(pw.export(n.c_chain_id, me, 9 * AVAX).unwrap());
    let import = wallet
        .import(P_CHAIN_ID, account, c.next_base_fee())
        .unwrap();
    c_build(&import);
    let nonce = c.nonce(&account);
    let export = wallet
        .export(1, nonce, n.x_chain_id, other, 4 * AVAX, c.next_base_fee())
        .unwrap();
    c_build(&export);
    p_build(pw.export(n.c_chain_id, other, 3 * AVAX).unwrap());

    let config = IndexerConfig {
        initial_backoff: Duration::from_millis(10),
        ..IndexerConfig::default()
    };
    let client = AvalancheClient::new(&node.url_of("/ext/bc/P"), ClientConfig::default()).unwrap();
    PChainIndexer::new(client, store.clone(), config.clone())
        .backfill()
        .await
        .unwrap();
    let endpoint = EvmEndpoint::c_chain(node.url(), n.c_chain_id, true);
    let tip = EvmIndexer::new(endpoint, store.clone(), config)
        .unwrap()
        .backfill()
        .await
        .unwrap();
    assert_eq!(tip, Some(c.height()));

    let api = Api::new(store.clone());
    let doc = official();
    if doc.is_none() {
        eprintln!("SKIPPED C-Chain schema checks: shared/openapi/data-api.openapi.json not found");
    }
    let valid = |path: &str, v: &Value| {
        if let Some(doc) = &doc {
            assert_valid(doc, "get", path, v);
        }
    };
    let list_path = "/v1/networks/{network}/blockchains/{blockchainId}/transactions";
    let tx_path = "/v1/networks/{network}/blockchains/{blockchainId}/transactions/{txHash}";

    // Both txs, newest first, as the node has them.
    let page = api.ok(&format!("{C}/transactions")).await;
    valid(list_path, &page);
    assert_eq!(page["chainInfo"]["chainName"], "c-chain");
    let txs = page["transactions"].as_array().unwrap();
    let ids: Vec<&str> = txs.iter().map(|t| t["txHash"].as_str().unwrap()).collect();
    assert_eq!(ids, [export.id().to_string(), import.id().to_string()]);
    let c_url = node.url_of("/ext/bc/C/avax");
    for (t, tx) in txs.iter().zip([&export, &import]) {
        let got = rpc(
            &c_url,
            "avax.getAtomicTx",
            json!({ "txID": tx.id(), "encoding": "hex" }),
        )
        .await;
        let height: u64 = got["blockHeight"].as_str().unwrap().parse().unwrap();
        assert_eq!(t["blockHeight"], height);
        let block = c.block_by_number(height).unwrap();
        assert_eq!(t["blockHash"], block.hash.to_string());
        assert_eq!(t["timestamp"], block.header.timestamp);
        assert_eq!(
            got["tx"].as_str().unwrap(),
            firn_core::encoding::hex_encode_checksummed(&tx.bytes())
        );
    }

    // The import: the P-Chain's export consumed (its owner and time), the account credited.
    let i = &txs[1];
    let UnsignedTx::Import(unsigned) = import.unsigned() else {
        unreachable!()
    };
    assert_eq!(i["txType"], "ImportTx");
    assert_eq!(i["sourceChain"], P_CHAIN_ID.to_string());
    assert_eq!(i["destinationChain"], n.c_chain_id.to_string());
    let consumed = &i["consumedUtxos"][0];
    assert_eq!(consumed["addresses"], json!([bech32(&me)]));
    assert_eq!(consumed["asset"]["amount"], (9 * AVAX).to_string());
    assert_eq!(consumed["consumingTxHash"], import.id().to_string());
    let p_block = p.block_by_height(p.height() - 1).unwrap();
    let p_time = p_block.block.time().unwrap();
    assert_eq!(consumed["timestamp"], p_time, "the P-Chain export's time");
    let me_key = keys[1].public_key().compressed();
    assert_eq!(
        consumed["credentials"][0]["publicKey"],
        format!("0x{}", hex::encode(me_key)),
        "the key that spent it"
    );
    let out = &i["evmOutputs"][0];
    assert_eq!(out["toAddress"], account.to_checksum(None));
    assert_eq!(
        out["asset"]["amount"],
        unsigned.outputs[0].amount.to_string()
    );
    assert_eq!(i["amountUnlocked"][0]["amount"], (9 * AVAX).to_string());

    // The export: the account debited (amount and fee), the UTXO the X-Chain can import.
    let e = &txs[0];
    let UnsignedTx::Export(unsigned) = export.unsigned() else {
        unreachable!()
    };
    assert_eq!(e["txType"], "ExportTx");
    assert_eq!(e["destinationChain"], n.x_chain_id.to_string());
    let input = &e["evmInputs"][0];
    assert_eq!(input["fromAddress"], account.to_checksum(None));
    assert_eq!(
        input["asset"]["amount"],
        unsigned.inputs[0].amount.to_string()
    );
    let key = keys[1].public_key().compressed();
    assert_eq!(
        input["credentials"][0]["publicKey"],
        format!("0x{}", hex::encode(key))
    );
    let x_listed = rpc(
        &node.url_of("/ext/bc/X"),
        "avm.getUTXOs",
        json!({ "addresses": [format!("X-{}", bech32(&other))], "sourceChain": "C" }),
    )
    .await;
    assert_eq!(x_listed["numFetched"], "1");
    let emitted = &e["emittedUtxos"][0];
    assert_eq!(emitted["utxoId"], export.utxo_id(0).to_string());
    assert_eq!(emitted["addresses"], json!([bech32(&other)]));
    assert_eq!(emitted["asset"]["amount"], (4 * AVAX).to_string());
    assert_eq!(emitted["consumedOnChainId"], n.x_chain_id.to_string());

    // By hash, the same.
    let by_hash = api.ok(&format!("{C}/transactions/{}", export.id())).await;
    valid(tx_path, &by_hash);
    assert_eq!(&by_hash, e);

    // Filters: an EVM account, an owner, a type.
    let ids_of = |v: &Value| -> Vec<String> {
        v["transactions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["txHash"].as_str().unwrap().to_owned())
            .collect()
    };
    let by_account = api
        .ok(&format!("{C}/transactions?addresses={account}"))
        .await;
    assert_eq!(ids_of(&by_account).len(), 2);
    let by_owner = api
        .ok(&format!("{C}/transactions?addresses=C-{}", bech32(&other)))
        .await;
    assert_eq!(ids_of(&by_owner), [export.id().to_string()]);
    let imports = api
        .ok(&format!(
            "{C}/transactions?addresses={account}&txTypes=ImportTx"
        ))
        .await;
    assert_eq!(ids_of(&imports), [import.id().to_string()]);
    let paged = api
        .all_pages(&format!("{C}/transactions?pageSize=1"), "transactions", 3)
        .await;
    assert_eq!(paged.len(), 2);

    // The C-Chain's atomic memory: what avax.getUTXOs lists for `other`.
    let balances = api
        .ok(&format!("{C}/balances?addresses={}", bech32(&other)))
        .await;
    valid(
        "/v1/networks/{network}/blockchains/{blockchainId}/balances",
        &balances,
    );
    let held = rpc(
        &c_url,
        "avax.getUTXOs",
        json!({ "addresses": [format!("C-{}", bech32(&other))], "sourceChain": "P" }),
    )
    .await;
    assert_eq!(held["numFetched"], "1");
    let unlocked = &balances["balances"]["atomicMemoryUnlocked"];
    assert_eq!(unlocked[0]["amount"], (3 * AVAX).to_string());
    assert_eq!(unlocked[0]["utxoCount"], 1);
    assert_eq!(unlocked[0]["sharedWithChainId"], P_CHAIN_ID.to_string());
    let drained = api
        .ok(&format!("{C}/balances?addresses={}", bech32(&me)))
        .await;
    assert_eq!(
        drained["balances"]["atomicMemoryUnlocked"],
        json!([]),
        "imported"
    );
    // Its UTXOs: the one waiting, and with includeSpent the one the account imported.
    let waiting = api
        .ok(&format!("{C}/utxos?addresses={}", bech32(&other)))
        .await;
    valid(
        "/v1/networks/{network}/blockchains/{blockchainId}/utxos",
        &waiting,
    );
    let held_bytes =
        firn_core::encoding::hex_decode_checksummed(held["utxos"][0].as_str().unwrap()).unwrap();
    let held_utxo: firn_core::atomic::Utxo = firn_core::codec::from_bytes(&held_bytes).unwrap();
    assert_eq!(waiting["utxos"][0]["utxoId"], held_utxo.id().to_string());
    assert_eq!(
        waiting["utxos"][0]["createdOnChainId"],
        P_CHAIN_ID.to_string()
    );
    assert!(waiting["utxos"][0].get("consumingTxHash").is_none());
    let spent = api
        .ok(&format!(
            "{C}/utxos?addresses={}&includeSpent=true",
            bech32(&me)
        ))
        .await;
    assert_eq!(
        spent["utxos"][0]["consumingTxHash"],
        import.id().to_string()
    );
    assert_eq!(
        api.ok(&format!("{C}/utxos?addresses={}", bech32(&me)))
            .await["utxos"],
        json!([])
    );
    // Blocks in the primary-network shape: the chain's, each listing its atomic txs.
    let blocks = api
        .all_pages(&format!("{C}/blocks?startTimestamp=0"), "blocks", 3)
        .await;
    assert_eq!(blocks[0]["blockNumber"], c.height().to_string());
    let mut carried = Vec::new();
    for b in &blocks {
        let n: u64 = b["blockNumber"].as_str().unwrap().parse().unwrap();
        let node_block = c.block_by_number(n).unwrap();
        assert_eq!(b["blockHash"], node_block.hash.to_string());
        let ids: Vec<String> = node_block
            .atomic_txs
            .iter()
            .map(|t| t.id().to_string())
            .collect();
        assert_eq!(b["transactions"], json!(ids));
        carried.extend(ids);
    }
    assert_eq!(carried, [export.id().to_string(), import.id().to_string()]);
    let listed = blocks.iter().find(|b| b["txCount"] == 1).unwrap();
    let block_path = "/v1/networks/{network}/blockchains/{blockchainId}/blocks/{blockId}";
    let by_height = api
        .ok(&format!("{C}/blocks/{}", str_of(&listed["blockNumber"])))
        .await;
    valid(block_path, &by_height);
    assert_eq!(&by_height, listed);
    let by_hash = api
        .ok(&format!("{C}/blocks/{}", str_of(&listed["blockHash"])))
        .await;
    assert_eq!(&by_hash, listed);
    let time = listed["blockTimestamp"].as_u64().unwrap();
    let window = api
        .ok(&format!(
            "{C}/blocks?startTimestamp={time}&endTimestamp={time}"
        ))
        .await;
    valid(
        "/v1/networks/{network}/blockchains/{blockchainId}/blocks",
        &window,
    );
    assert!(
        window["blocks"]
            .as_array()
            .unwrap()
            .iter()
            .all(|b| b["blockTimestamp"] == time)
    );
    // Chains: the owners the C-Chain's atomic txs name are on it.
    let chains = api
        .ok(&format!(
            "/v1/networks/fuji/addresses:listChainIds?addresses={},{}",
            bech32(&other),
            bech32(&ShortId([0x42; 20]))
        ))
        .await;
    valid("/v1/networks/{network}/addresses:listChainIds", &chains);
    let c_id = n.c_chain_id.to_string();
    let on = |i: usize| {
        chains["addresses"][i]["blockchainIds"]
            .as_array()
            .unwrap()
            .clone()
    };
    assert!(on(0).contains(&json!(c_id)), "{chains}");
    assert!(on(1).is_empty(), "{chains}");
    let missing = api
        .get(&format!("{C}/transactions/{}", firn_core::ids::Id([9; 32])))
        .await;
    assert_eq!(missing.status, 404);
    node.shutdown().await;
}
