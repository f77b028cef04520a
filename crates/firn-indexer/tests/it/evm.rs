//! The EVM follower against the devnet's C-Chain RPC: every stored record checked against
//! what the node says (blocks, receipts, traces, token balances, owners, metadata).

use std::collections::HashMap;
use std::time::Duration;

use firn_indexer::{EvmIndexer, IndexerConfig};
use firn_rpc::EthClient;
use firn_store::rows::ChainKey;
use firn_store::rows::evm::TokenStandard;
use firn_store::types::{Address, B256, U256};
use firn_store::{CursorStore, EvmReader, PageRequest, Store};
use serde_json::{Value, json};

use crate::evm_devnet::{EvmDevnet, EvmScript, Tok, call};
use firn_store::testing::StoreUrl;

fn config() -> IndexerConfig {
    IndexerConfig {
        // Small batches and requests so batch edges fall everywhere.
        batch_blocks: 3,
        request_blocks: 2,
        concurrency: 3,
        max_attempts: Some(3),
        initial_backoff: Duration::from_millis(10),
        ..IndexerConfig::default()
    }
}

fn hex_u64(v: &Value) -> u64 {
    u64::from_str_radix(v.as_str().unwrap().trim_start_matches("0x"), 16).unwrap()
}

pub fn word(v: &Value) -> U256 {
    let s = v.as_str().unwrap().trim_start_matches("0x");
    U256::from_be_bytes::<32>(hex::decode(s).unwrap()[..32].try_into().unwrap())
}

pub async fn eth_call(client: &EthClient, to: Address, data: Vec<u8>) -> Value {
    client
        .call(
            "eth_call",
            (
                json!({"to": format!("{to:#x}"), "data": format!("0x{}", hex::encode(data))}),
                "latest",
            ),
        )
        .await
        .unwrap()
}

pub async fn evm_activity_matches_the_node(url: StoreUrl) {
    let devnet = EvmDevnet::start().await;
    let script = devnet.script();
    let store = url.open().await;
    let mut indexer = EvmIndexer::new(devnet.endpoint(), store.clone(), config()).unwrap();
    let height = indexer.backfill().await.unwrap();
    assert_eq!(height, Some(devnet.chain.height()));
    let chain_id = devnet.chain.chain_id();
    assert_eq!(indexer.chain_id(), Some(chain_id));
    let registered = store.list_evm_chains().await.unwrap();
    assert_eq!(registered.len(), 1);
    assert_eq!(
        (registered[0].chain_id, registered[0].blockchain_id),
        (chain_id, devnet.c_chain_id)
    );

    let client = devnet.client();
    let hashes = check_blocks_txs_and_traces(&client, &store, chain_id).await;
    check_token_balances(&client, &store, chain_id, &script, &hashes).await;
    check_collectibles(&client, &store, chain_id, &script).await;
    check_metadata_and_deployments(&client, &store, chain_id, &script).await;
    store.close().await;
}

/// Blocks, txs with receipts, and internal txs against `eth_getBlockByNumber`,
/// `eth_getTransactionReceipt` and `debug_traceTransaction`. Returns every tx hash.
async fn check_blocks_txs_and_traces(
    client: &EthClient,
    store: &Store,
    chain_id: u64,
) -> Vec<B256> {
    let tip = hex_u64(
        &client
            .call::<_, Value>("eth_blockNumber", ())
            .await
            .unwrap(),
    );
    let mut hashes = Vec::new();
    let mut internal_seen = 0;
    for n in 0..=tip {
        let block: Value = client
            .call("eth_getBlockByNumber", (format!("{n:#x}"), false))
            .await
            .unwrap();
        let stored = store.find_evm_block(chain_id, n).await.unwrap().unwrap();
        assert_eq!(
            stored.block.hash.to_string(),
            block["hash"].as_str().unwrap(),
            "block {n}"
        );
        assert_eq!(stored.block.gas_used, hex_u64(&block["gasUsed"]));
        let txs = block["transactions"].as_array().unwrap();
        assert_eq!(stored.tx_count, txs.len() as u64, "block {n}");
        for h in txs {
            let hash: B256 = h.as_str().unwrap().parse().unwrap();
            hashes.push(hash);
            let receipt: Value = client
                .call("eth_getTransactionReceipt", (h,))
                .await
                .unwrap();
            let tx = store.find_evm_tx(chain_id, hash).await.unwrap().unwrap();
            assert_eq!(tx.block_number, n);
            assert_eq!(tx.tx.success, hex_u64(&receipt["status"]) == 1, "{hash}");
            assert_eq!(tx.tx.gas_used, hex_u64(&receipt["gasUsed"]));
            assert_eq!(tx.tx.gas_price, word_q(&receipt["effectiveGasPrice"]));
            assert_eq!(
                format!("{:#x}", tx.tx.from),
                receipt["from"].as_str().unwrap()
            );
            assert_eq!(
                tx.tx.contract_address.map(|a| format!("{a:#x}")),
                receipt["contractAddress"].as_str().map(str::to_owned)
            );
            let logs = store.list_evm_tx_logs(chain_id, hash).await.unwrap();
            assert_eq!(
                logs.len(),
                receipt["logs"].as_array().unwrap().len(),
                "{hash}"
            );

            let trace: Value = client
                .call(
                    "debug_traceTransaction",
                    (h, json!({"tracer": "callTracer"})),
                )
                .await
                .unwrap();
            let mut want = Vec::new();
            flatten(&trace, false, &mut want);
            let got: Vec<(String, String, U256, bool)> = store
                .list_evm_internal_txs(chain_id, hash)
                .await
                .unwrap()
                .into_iter()
                .map(|i| (i.call_type, format!("{:#x}", i.to), i.value, i.reverted))
                .collect();
            assert_eq!(got, want, "internal txs of {hash}");
            internal_seen += got.len();
        }
    }
    assert!(
        internal_seen >= 4,
        "the router's calls and CREATE2 are internal txs"
    );
    hashes
}

fn word_q(v: &Value) -> U256 {
    v.as_str().unwrap().parse().unwrap()
}

/// The nested calls of a callTracer frame, depth-first: (type, to, value, reverted).
fn flatten(frame: &Value, parent_reverted: bool, out: &mut Vec<(String, String, U256, bool)>) {
    for c in frame["calls"].as_array().into_iter().flatten() {
        let reverted = parent_reverted || c.get("error").is_some();
        out.push((
            c["type"].as_str().unwrap().to_owned(),
            c["to"]
                .as_str()
                .unwrap_or("0x0000000000000000000000000000000000000000")
                .to_owned(),
            c.get("value").map_or(U256::ZERO, word_q),
            reverted,
        ));
        flatten(c, reverted, out);
    }
}

/// ERC-20 balances from the indexed transfers equal `balanceOf` on the node.
async fn check_token_balances(
    client: &EthClient,
    store: &Store,
    chain_id: u64,
    script: &EvmScript,
    hashes: &[B256],
) {
    let mut sums: HashMap<(Address, Address), (U256, U256)> = HashMap::new();
    let mut fungible = 0;
    for h in hashes {
        let transfers = store.list_evm_tx_transfers(chain_id, *h).await.unwrap();
        if *h == script.failed {
            assert!(transfers.is_empty(), "a failed tx moves nothing");
        }
        for t in transfers
            .iter()
            .filter(|t| t.transfer.standard == TokenStandard::Erc20)
        {
            fungible += 1;
            let t = &t.transfer;
            let e = sums.entry((t.token, t.to)).or_default();
            e.0 = e.0.checked_add(t.value).unwrap();
            let e = sums.entry((t.token, t.from)).or_default();
            e.1 = e.1.checked_add(t.value).unwrap();
        }
    }
    assert!(
        fungible >= 6,
        "deploy mints, transfers and the routed token"
    );
    let mut checked = 0;
    for ((token, holder), (inflow, outflow)) in &sums {
        if *holder == Address::ZERO {
            continue;
        }
        let on_node = word(
            &eth_call(
                client,
                *token,
                call("balanceOf(address)", &[Tok::Addr(*holder)]),
            )
            .await,
        );
        assert_eq!(
            inflow.checked_sub(*outflow),
            Some(on_node),
            "{token:#x} balance of {holder:#x}"
        );
        checked += 1;
    }
    assert!(checked >= 5, "{checked}");
    let _ = &script.holders;
}

/// Stored collectibles equal `ownerOf` / `balanceOf(owner, id)` on the node, and every
/// token the node knows is stored.
async fn check_collectibles(client: &EthClient, store: &Store, chain_id: u64, script: &EvmScript) {
    let mut held: HashMap<(Address, U256), Vec<(Address, U256)>> = HashMap::new();
    for owner in &script.holders {
        let page = store
            .list_collectibles(chain_id, *owner, None, None, &PageRequest::first(100))
            .await
            .unwrap();
        assert!(page.next.is_none());
        for c in page.items {
            held.entry((c.token, c.token_id))
                .or_default()
                .push((c.owner, c.balance));
        }
    }
    let nft = script.nft;
    for id in 1..=3u64 {
        let id = U256::from(id);
        let owner = eth_call(client, nft, call("ownerOf(uint256)", &[Tok::Uint(id)])).await;
        let owner = Address::from_slice(
            &hex::decode(owner.as_str().unwrap().trim_start_matches("0x")).unwrap()[12..32],
        );
        assert_eq!(
            held.get(&(nft, id)),
            Some(&vec![(owner, U256::ONE)]),
            "ERC-721 #{id}"
        );
    }
    let multi = script.multi;
    let mut multi_rows = 0;
    for ((token, id), holders) in &held {
        if *token != multi {
            continue;
        }
        for (owner, balance) in holders {
            let args = [Tok::Addr(*owner), Tok::Uint(*id)];
            let on_node =
                word(&eth_call(client, multi, call("balanceOf(address,uint256)", &args)).await);
            assert_eq!(*balance, on_node, "ERC-1155 {id} of {owner:#x}");
            multi_rows += 1;
        }
    }
    // k2 keeps 60 of #1 and 15 of #2; alice 40 of #1; bob 5 of #2 and 30 of #3.
    assert_eq!(multi_rows, 5, "{held:?}");
}

async fn check_metadata_and_deployments(
    client: &EthClient,
    store: &Store,
    chain_id: u64,
    script: &EvmScript,
) {
    for (contract, standard, name) in [
        (script.token, TokenStandard::Erc20, "Firn Token"),
        (script.nft, TokenStandard::Erc721, "Firn Cats"),
    ] {
        let t = store.find_token(chain_id, contract).await.unwrap().unwrap();
        assert_eq!((t.standard, t.name.as_str()), (standard, name));
        let sym = eth_call(client, contract, call("symbol()", &[])).await;
        let sym = hex::decode(sym.as_str().unwrap().trim_start_matches("0x")).unwrap();
        assert!(
            String::from_utf8_lossy(&sym).contains(&t.symbol),
            "{}",
            t.symbol
        );
    }
    let t = store
        .find_token(chain_id, script.token)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(t.decimals, Some(18));
    let m = store
        .find_nft_metadata(chain_id, script.nft, U256::from(2u64))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(m.index_status, "INDEXED");
    assert_eq!(m.name.as_deref(), Some("Firn Cats #2"));
    assert!(m.token_uri.starts_with("data:application/json"));
    assert!(m.attributes.unwrap().contains("serial"));
    let m = store
        .find_nft_metadata(chain_id, script.multi, U256::from(3u64))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (m.index_status.as_str(), m.name.as_deref(), m.decimals),
        ("INDEXED", Some("Firn Items #3"), Some(0))
    );

    for c in [script.token, script.nft, script.multi, script.router] {
        let d = store
            .find_contract_deployment(chain_id, c)
            .await
            .unwrap()
            .unwrap();
        assert_eq!((d.kind.as_str(), d.trace_index), ("CREATE", None));
    }
    let receipt: Value = client
        .call("eth_getTransactionReceipt", (script.create2.to_string(),))
        .await
        .unwrap();
    let deployed = receipt["logs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["topics"].as_array().unwrap().len() == 2)
        .unwrap();
    let routed: Address = format!("0x{}", &deployed["topics"][1].as_str().unwrap()[26..])
        .parse()
        .unwrap();
    let d = store
        .find_contract_deployment(chain_id, routed)
        .await
        .unwrap()
        .unwrap();
    assert_eq!((d.kind.as_str(), d.deployer), ("CREATE2", script.router));
    let routed_token = store.find_token(chain_id, routed).await.unwrap().unwrap();
    assert_eq!(routed_token.symbol, "RTD");
}

pub async fn evm_restart_continues_without_gaps_or_duplicates(url: StoreUrl) {
    let devnet = EvmDevnet::start().await;
    devnet.token_blocks(6, 3);
    let store = url.open().await;
    let mut first = EvmIndexer::new(devnet.endpoint(), store.clone(), config()).unwrap();
    first.backfill().await.unwrap();
    devnet.script();
    devnet.token_blocks(4, 2);
    // A new follower (as after a restart) continues from the cursor.
    let mut second = EvmIndexer::new(devnet.endpoint(), store.clone(), config()).unwrap();
    let height = second.backfill().await.unwrap();
    assert_eq!(height, Some(devnet.chain.height()));
    let chain_id = devnet.chain.chain_id();
    assert_eq!(
        store.find_cursor(ChainKey::Evm(chain_id)).await.unwrap(),
        height
    );
    let client = devnet.client();
    check_blocks_txs_and_traces(&client, &store, chain_id).await;
    store.close().await;
}

pub async fn evm_unreachable_chain_is_retried_then_reported(url: StoreUrl) {
    let store = url.open().await;
    let mut endpoint =
        firn_indexer::EvmEndpoint::c_chain("http://127.0.0.1:9", firn_core::ids::Id::ZERO, true);
    endpoint.name = "nowhere".into();
    let config = IndexerConfig {
        max_attempts: Some(2),
        ..config()
    };
    let mut indexer = EvmIndexer::new(endpoint, store.clone(), config).unwrap();
    let started = std::time::Instant::now();
    let err = indexer.backfill().await.unwrap_err();
    assert!(matches!(err, firn_indexer::IndexerError::Rpc(_)), "{err}");
    assert!(
        started.elapsed() >= Duration::from_millis(10),
        "waited before retrying"
    );
    assert!(store.list_evm_chains().await.unwrap().is_empty());
    store.close().await;
}

pub async fn evm_discovery_lists_the_c_chain_and_l1s(url: StoreUrl) {
    let _ = url;
    let devnet = crate::devnet::Devnet::start().await;
    let script = devnet.script();
    let found = firn_indexer::evm::discover(&devnet.url).await.unwrap();
    assert_eq!(found[0].name, "C-Chain");
    assert_eq!(found[0].url, format!("{}/ext/bc/C/rpc", devnet.url));
    let l1 = found
        .iter()
        .find(|e| e.blockchain_id == script.evm_chain)
        .expect("the subnet-EVM chain");
    assert_eq!(
        l1.url,
        format!("{}/ext/bc/{}/rpc", devnet.url, script.evm_chain)
    );
    assert_eq!(l1.subnet_id, script.subnet);
    assert_eq!(found.len(), 2);
}

/// A node lists every chain of its network but serves few: discovery follows the ones it
/// serves and reports the rest as skipped, without a follower retrying each for ever.
pub async fn evm_discovery_follows_only_what_the_node_serves(url: StoreUrl) {
    use firn_indexer::evm::{ChainSelection, DiscoveryStatus, follow_all};
    use firn_node::NodeConfig;
    use std::sync::{Arc, Mutex};

    let store = url.open().await;
    let node = firn_node::spawn(NodeConfig::test().with_evm())
        .await
        .unwrap();
    // A subnet-EVM chain whose genesis is not JSON: the P-Chain lists it, the node cannot
    // boot it, so it serves no RPC for it.
    let chain = node.pchain();
    let wallet = firn_devnet::Wallet::new(chain);
    let me = wallet.change_address();
    let subnet = firn_node::testing::issue_and_build(
        chain,
        wallet
            .create_subnet(firn_devnet::genesis::single_owner(me))
            .unwrap(),
    );
    firn_node::testing::issue_and_build(
        chain,
        wallet
            .create_chain(
                subnet,
                "unserved",
                firn_core::network::SUBNET_EVM_VM_ID,
                b"not a genesis".to_vec(),
            )
            .unwrap(),
    );
    let status = Arc::new(Mutex::new(DiscoveryStatus::default()));
    let follow = follow_all(
        node.url().to_owned(),
        store.clone(),
        config(),
        Duration::from_millis(50),
        Arc::new(|_: &str, _: &firn_indexer::Progress| {}),
        ChainSelection::Served,
        status.clone(),
    );
    let c_chain_id = node.network().evm_chain_id;
    let watched = async {
        loop {
            let indexed = store
                .find_cursor(ChainKey::Evm(c_chain_id))
                .await
                .unwrap()
                .is_some();
            let seen = status.lock().unwrap().clone();
            if indexed && !seen.skipped.is_empty() {
                return seen;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    let seen = tokio::select! {
        () = follow => unreachable!("follow_all runs until dropped"),
        seen = tokio::time::timeout(Duration::from_secs(30), watched) => seen.unwrap(),
    };
    assert_eq!(seen.followed, ["C-Chain"]);
    assert_eq!(seen.skipped, ["unserved"]);
    assert_eq!(store.list_evm_chains().await.unwrap().len(), 1);
    store.close().await;
}
