//! Native balances come from the chain's node (a real devnet here), now and at a past block;
//! a node that is down or cannot answer at a block gets a clear error, never a 500. And the
//! chains an address took part on come from the index.

use std::collections::BTreeMap;

use firn_node::NodeConfig;
use firn_rpc::{ClientConfig, EthClient};
use firn_store::rows::evm::TokenStandard;
use firn_store::types::{Address, ParseText, U256};
use firn_store::{EvmWriter, Store};
use serde_json::{Value, json};

use crate::fixtures::{CHAIN, evm_address, evm_chain, seed};
use crate::harness::Api;
use crate::schema::{assert_valid, official};

/// `eth_getBalance` of `address` at `block`, straight from the node, in decimal.
async fn node_balance(rpc: &str, address: Address, block: &str) -> String {
    let node = EthClient::new(rpc, ClientConfig::default()).unwrap();
    let hex: String = node
        .call("eth_getBalance", (format!("{address:#x}"), block))
        .await
        .unwrap();
    U256::parse_text(&hex).unwrap().to_string()
}

pub async fn native_balances_come_from_the_node(store: Store) {
    let node = firn_node::spawn(NodeConfig::test().with_evm())
        .await
        .unwrap();
    let rpc = node.url_of("/ext/bc/C/rpc");
    let funded = Address::from(node.pchain().funded_keys()[0].public_key().eth_address());
    let mut chain = evm_chain(CHAIN);
    chain.rpc_url = rpc.clone();
    store.upsert_evm_chain(&chain).await.unwrap();
    // A chain whose node is gone.
    let mut gone = evm_chain(CHAIN + 1);
    gone.rpc_url = "http://127.0.0.1:9/ext/bc/C/rpc".to_owned();
    store.upsert_evm_chain(&gone).await.unwrap();
    let api = Api::new(store);

    let path = format!("/v1/chains/{CHAIN}/addresses/{funded:#x}/balances:getNative");
    let now = api.ok(&path).await;
    let b = &now["nativeTokenBalance"];
    assert_eq!(b["balance"], node_balance(&rpc, funded, "latest").await);
    assert_ne!(
        b["balance"], "0",
        "the devnet funds its keys on the C-Chain"
    );
    assert_eq!(
        (
            b["symbol"].clone(),
            b["decimals"].clone(),
            b["chainId"].clone()
        ),
        (json!("AVAX"), json!(18), json!(CHAIN.to_string()))
    );
    match official() {
        Some(doc) => assert_valid(
            &doc,
            "get",
            "/v1/chains/{chainId}/addresses/{address}/balances:getNative",
            &now,
        ),
        None => eprintln!("SKIPPED schema check: shared/openapi/data-api.openapi.json not found"),
    }
    let at_genesis = api.ok(&format!("{path}?blockNumber=0")).await;
    assert_eq!(
        at_genesis["nativeTokenBalance"]["balance"],
        node_balance(&rpc, funded, "0x0").await
    );
    let empty = api
        .ok(&format!(
            "/v1/chains/{CHAIN}/addresses/{:#x}/balances:getNative",
            evm_address(5)
        ))
        .await;
    assert_eq!(empty["nativeTokenBalance"]["balance"], "0");

    api.get(&format!("{path}?blockNumber=99999999"))
        .await
        .assert_error(400, "blockNumber 99999999");
    api.get(&format!("{path}?blockNumber=latest"))
        .await
        .assert_error(400, "blockNumber");
    api.get(&format!(
        "/v1/chains/{}/addresses/{funded:#x}/balances:getNative",
        CHAIN + 1
    ))
    .await
    .assert_error(503, "did not answer eth_getBalance");
    node.shutdown().await;
}

pub async fn address_chains_come_from_the_index(store: Store) {
    let world = seed(&store, 2, 40).await;
    let api = Api::new(store);
    let active = world.evm.blocks[5]
        .txs
        .first()
        .map(|t| t.from)
        .unwrap_or(evm_address(1));
    let got = api.ok(&format!("/v1/address/{active:#x}/chains")).await;
    let ids: Vec<&str> = got["indexedChains"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["chainId"].as_str().unwrap())
        .collect();
    assert_eq!(ids, vec![CHAIN.to_string().as_str()]);
    assert_eq!(got["unindexedChains"], json!([]));
    if let Some(doc) = official() {
        assert_valid(&doc, "get", "/v1/address/{address}/chains", &got);
    }
    let none = api
        .ok(&format!("/v1/address/{:#x}/chains", evm_address(424242)))
        .await;
    assert_eq!(none["indexedChains"], json!([]));
    api.get("/v1/address/0x12/chains")
        .await
        .assert_error(400, "address must be an EVM address");
}

/// Token balances come from the index, page by page, each list with the holder's native
/// balance from the node; an earlier `blockNumber` replays them back, a later one is refused.
pub async fn token_balances_come_from_the_index(store: Store) {
    let node = firn_node::spawn(NodeConfig::test().with_evm())
        .await
        .unwrap();
    let rpc = node.url_of("/ext/bc/C/rpc");
    let world = seed(&store, 2, 150).await;
    let mut chain = evm_chain(CHAIN);
    chain.rpc_url = rpc.clone();
    store.upsert_evm_chain(&chain).await.unwrap();
    let api = Api::new(store);
    let doc = official();
    let validate = |path: &str, body: &serde_json::Value| match &doc {
        Some(doc) => assert_valid(doc, "get", path, body),
        None => eprintln!("SKIPPED schema check: shared/openapi/data-api.openapi.json not found"),
    };

    let model = crate::fixtures::erc20_balances(&world.evm.blocks);
    let (holder, held) = model
        .iter()
        .max_by_key(|(_, h)| h.len())
        .expect("ERC-20 holders");
    assert!(held.len() > 1, "a holder of several tokens");
    let base = format!("/v1/chains/{CHAIN}/addresses/{holder:#x}/balances:listErc20?currency=usd");
    let got = api.all_pages(&base, "erc20TokenBalances", 1).await;
    let got: Vec<(String, String)> = got
        .iter()
        .map(|b| {
            assert_eq!(b["ercType"], "ERC-20");
            assert_eq!(b["chainId"], CHAIN.to_string());
            assert_eq!(b["tokenReputation"], serde_json::Value::Null);
            (
                b["address"].as_str().unwrap().to_owned(),
                b["balance"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let want: Vec<(String, String)> = held
        .iter()
        .map(|(t, b)| (t.to_checksum(None), b.to_string()))
        .collect();
    assert_eq!(got, want);
    let first = api.ok(&format!("{base}&pageSize=1")).await;
    validate(
        "/v1/chains/{chainId}/addresses/{address}/balances:listErc20",
        &first,
    );
    assert_eq!(first["erc20TokenBalances"][0]["symbol"], "TWE");
    assert_eq!(first["erc20TokenBalances"][0]["decimals"], 18);
    assert_eq!(
        first["nativeTokenBalance"]["balance"],
        node_balance(&rpc, *holder, "latest").await
    );

    let twenty = evm_address(crate::fixtures::ERC20);
    let narrowed = api
        .ok(&format!(
            "{base}&contractAddresses={twenty:#x},{:#x}",
            evm_address(404)
        ))
        .await;
    let narrowed = narrowed["erc20TokenBalances"].as_array().unwrap();
    assert_eq!(narrowed.len(), usize::from(held.contains_key(&twenty)));
    let head = world.evm.number;
    // The index takes its head; the holder's native balance is then read at that block from
    // the node, a fresh devnet that has no block 150 (the e2e node check reads one that has).
    api.get(&format!("{base}&blockNumber={head}"))
        .await
        .assert_error(
            400,
            &format!("blockNumber {head}: the node of chain {CHAIN} cannot answer"),
        );
    api.get(&format!("{base}&blockNumber={}", head + 1))
        .await
        .assert_error(400, &format!("past the newest indexed block, {head}"));
    // An earlier block: the index's balances with every transfer since undone, the native
    // balance from the node at that block (genesis, which the fresh node has); the store's
    // suite checks the replay at many blocks against a fold of the history. Nothing was held
    // before the first block, but what the generator let a holder overdraw (the store ends
    // those at zero, so no replay can be exact for them): a holder of a token it never
    // overdrew held none of it at genesis.
    assert!(world.evm.blocks[0].block.number > 0);
    let overdrawn = crate::fixtures::erc20_overdrawn(&world.evm.blocks);
    let (steady, _) = model
        .iter()
        .find(|(o, h)| h.keys().any(|t| !overdrawn.contains(&(**o, *t))))
        .expect("a holder that never overdrew a token it holds");
    let at_genesis = api
        .ok(&format!(
            "/v1/chains/{CHAIN}/addresses/{steady:#x}/balances:listErc20?blockNumber=0"
        ))
        .await;
    validate(
        "/v1/chains/{chainId}/addresses/{address}/balances:listErc20",
        &at_genesis,
    );
    let exact: Vec<&Value> = at_genesis["erc20TokenBalances"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| {
            let token = Address::parse_text(b["address"].as_str().unwrap()).unwrap();
            !overdrawn.contains(&(*steady, token))
        })
        .collect();
    assert!(exact.is_empty(), "{exact:?}");
    assert_eq!(
        at_genesis["nativeTokenBalance"]["balance"],
        node_balance(&rpc, *steady, "0x0").await
    );
    let many: Vec<String> = (0..65).map(|n| format!("{:#x}", evm_address(n))).collect();
    api.get(&format!("{base}&contractAddresses={}", many.join(",")))
        .await
        .assert_error(400, "contractAddresses must contain no more than 64");
    api.get(&format!("{base}&contractAddresses=0x12"))
        .await
        .assert_error(400, "contractAddresses must hold EVM addresses");
    let nobody = api
        .ok(&format!(
            "/v1/chains/{CHAIN}/addresses/{:#x}/balances:listErc20",
            evm_address(424242)
        ))
        .await;
    assert_eq!(nobody["erc20TokenBalances"], json!([]));

    for (standard, op, field) in [
        (TokenStandard::Erc721, "listErc721", "erc721TokenBalances"),
        (
            TokenStandard::Erc1155,
            "listErc1155",
            "erc1155TokenBalances",
        ),
    ] {
        let token = evm_address(match standard {
            TokenStandard::Erc721 => crate::fixtures::ERC721,
            _ => crate::fixtures::ERC1155,
        });
        let mut by_owner: BTreeMap<Address, Vec<(U256, U256)>> = BTreeMap::new();
        for ((owner, t, id), balance) in &world.evm.holdings {
            if *t == token {
                by_owner.entry(*owner).or_default().push((*id, *balance));
            }
        }
        let (owner, want) = by_owner.iter().max_by_key(|(_, h)| h.len()).unwrap();
        assert!(want.len() > 1, "{op}: a holder of several");
        let path = format!("/v1/chains/{CHAIN}/addresses/{owner:#x}/balances:{op}?");
        let got = api.all_pages(&path, field, 1).await;
        let got: Vec<(U256, U256)> = got
            .iter()
            .map(|c| {
                assert_eq!(c["ercType"], standard.as_str());
                let balance = c.get("balance").map_or("1", |b| b.as_str().unwrap());
                (
                    U256::parse_text(c["tokenId"].as_str().unwrap()).unwrap(),
                    U256::parse_text(balance).unwrap(),
                )
            })
            .collect();
        assert_eq!(&got, want, "{op}");
        let page = api.ok(&format!("{path}pageSize=2")).await;
        validate(
            &format!("/v1/chains/{{chainId}}/addresses/{{address}}/balances:{op}"),
            &page,
        );
        assert_eq!(page["nativeTokenBalance"]["balance"], "0");
    }
    let at_genesis = api
        .ok(&format!(
            "/v1/chains/{CHAIN}/addresses/{holder:#x}/balances:listErc1155?blockNumber=0"
        ))
        .await;
    assert_eq!(at_genesis["erc1155TokenBalances"], json!([]));
    api.get(&format!(
        "/v1/chains/{CHAIN}/addresses/{holder:#x}/balances:listErc1155?blockNumber={}",
        head + 1
    ))
    .await
    .assert_error(400, "past the newest indexed block");
    node.shutdown().await;
}
