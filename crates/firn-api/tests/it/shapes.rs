//! Each endpoint's shape, checked against the official OpenAPI file's response schema, and
//! its values against what the fixtures wrote.

use firn_store::Store;
use serde_json::Value;

use crate::fixtures::{CHAIN, ERC20, ERC721, ERC1155, evm_address, fuji, node, seed};
use crate::harness::Api;
use crate::schema::{assert_valid, official};

const P: &str = "/v1/networks/fuji/blockchains/p-chain";

pub async fn every_endpoint_matches_the_official_schema(store: Store) {
    let world = seed(&store, 30, 80).await;
    let api = Api::new(store);
    let Some(doc) = official() else {
        eprintln!(
            "SKIPPED schema checks: shared/openapi/data-api.openapi.json not found beside the repository"
        );
        return;
    };
    let holder = world
        .evm
        .holdings
        .keys()
        .next()
        .map(|(owner, _, _)| *owner)
        .expect("some collectible holder");
    let (deployment_tx, deployed) = world
        .evm
        .blocks
        .iter()
        .flat_map(|b| b.txs.iter())
        .find_map(|t| Some((t.hash, t.contract_address?)))
        .expect("a deployment");
    let erc1155_tx = world
        .evm
        .blocks
        .iter()
        .flat_map(|b| b.txs.iter())
        .find(|t| t.to == Some(evm_address(ERC1155)))
        .map(|t| t.hash)
        .expect("an ERC-1155 transfer");
    let deployer = world
        .evm
        .blocks
        .iter()
        .flat_map(|b| b.txs.iter())
        .find(|t| t.contract_address.is_some())
        .map(|t| t.from)
        .expect("a deployer");
    let factory = evm_address(crate::fixtures::FACTORY);
    let factory_made = world
        .evm
        .blocks
        .iter()
        .flat_map(|b| b.internal_txs.iter())
        .find(|i| i.from == factory && !i.reverted)
        .map(|i| i.to)
        .expect("a contract made by the factory");
    let n = world.stakers[0].1.node_id;
    let calls: Vec<(&str, String)> = vec![
        ("/v1/health-check", "/v1/health-check".into()),
        ("/v1/live-check", "/v1/live-check".into()),
        (
            "/v1/networks/{network}/blockchains/{blockchainId}/transactions",
            format!("{P}/transactions?pageSize=50"),
        ),
        (
            "/v1/networks/{network}/blockchains/{blockchainId}/transactions",
            format!(
                "{P}/transactions?addresses={},{}&txTypes=BaseTx,ImportTx&sortOrder=asc",
                fuji(1),
                fuji(2)
            ),
        ),
        (
            "/v1/networks/{network}/blockchains/{blockchainId}/transactions",
            format!(
                "/v1/networks/testnet/blockchains/c-chain/transactions?addresses={:#x},C-{}",
                evm_address(1),
                fuji(1)
            ),
        ),
        (
            "/v1/networks/{network}/blockchains/{blockchainId}/transactions:listStaking",
            format!("{P}/transactions:listStaking?addresses={}", fuji(100)),
        ),
        (
            "/v1/networks/{network}/blockchains/{blockchainId}/blocks",
            format!("{P}/blocks?pageSize=20"),
        ),
        (
            "/v1/networks/{network}/blockchains/{blockchainId}/nodes/{nodeId}/blocks",
            format!("{P}/nodes/{}/blocks", node(1)),
        ),
        (
            "/v1/networks/{network}/addresses:listChainIds",
            format!(
                "/v1/networks/fuji/addresses:listChainIds?addresses={},P-{}",
                fuji(1),
                fuji(19)
            ),
        ),
        (
            "/v1/networks/{network}/blockchains/{blockchainId}",
            format!("/v1/networks/fuji/blockchains/{}", world.blockchain),
        ),
        (
            "/v1/networks/{network}/rewards",
            format!(
                "/v1/networks/fuji/rewards?addresses={},{}",
                fuji(100),
                fuji(101)
            ),
        ),
        (
            "/v1/networks/{network}/rewards",
            format!("/v1/networks/fuji/rewards?nodeIds={n}&currency=eur"),
        ),
        (
            "/v1/networks/{network}/delegators",
            "/v1/networks/fuji/delegators?pageSize=100".into(),
        ),
        ("/v1/chains", "/v1/chains".into()),
        ("/v1/chains/{chainId}", format!("/v1/chains/{CHAIN}")),
        (
            "/v1/chains/{chainId}/blocks",
            format!("/v1/chains/{CHAIN}/blocks"),
        ),
        (
            "/v1/chains/{chainId}/blocks/{blockId}",
            format!("/v1/chains/{CHAIN}/blocks/5"),
        ),
        (
            "/v1/chains/{chainId}/contracts/{address}/transactions:getDeployment",
            format!("/v1/chains/{CHAIN}/contracts/{deployed:#x}/transactions:getDeployment"),
        ),
        (
            "/v1/chains/{chainId}/addresses/{address}/transactions:listErc20",
            format!(
                "/v1/chains/{CHAIN}/addresses/{:#x}/transactions:listErc20",
                evm_address(1)
            ),
        ),
        (
            "/v1/chains/{chainId}/addresses/{address}/transactions:listErc721",
            format!(
                "/v1/chains/{CHAIN}/addresses/{:#x}/transactions:listErc721",
                evm_address(2)
            ),
        ),
        (
            "/v1/chains/{chainId}/addresses/{address}/transactions:listErc1155",
            format!("/v1/chains/{CHAIN}/addresses/{holder:#x}/transactions:listErc1155"),
        ),
        (
            "/v1/chains/{chainId}/addresses/{address}/transactions:listNative",
            format!(
                "/v1/chains/{CHAIN}/addresses/{:#x}/transactions:listNative",
                evm_address(1)
            ),
        ),
        (
            "/v1/chains/{chainId}/transactions",
            format!("/v1/chains/{CHAIN}/transactions?pageSize=100"),
        ),
        (
            "/v1/chains/{chainId}/transactions",
            format!("/v1/chains/{CHAIN}/transactions?status=failed"),
        ),
        (
            "/v1/chains/{chainId}/blocks/{blockId}/transactions",
            format!("/v1/chains/{CHAIN}/blocks/7/transactions"),
        ),
        (
            "/v1/chains/{chainId}/transactions/{txHash}",
            format!("/v1/chains/{CHAIN}/transactions/{deployment_tx:#x}"),
        ),
        (
            "/v1/chains/{chainId}/transactions/{txHash}",
            format!("/v1/chains/{CHAIN}/transactions/{erc1155_tx:#x}"),
        ),
        (
            "/v1/chains/{chainId}/addresses/{address}/balances:listCollectibles",
            format!(
                "/v1/chains/{CHAIN}/addresses/{holder:#x}/balances:listCollectibles?pageSize=500"
            ),
        ),
        (
            "/v1/chains/{chainId}/addresses/{address}/transactions",
            format!(
                "/v1/chains/{CHAIN}/addresses/{:#x}/transactions?pageSize=100",
                evm_address(1)
            ),
        ),
        (
            "/v2/chains/{chainId}/addresses/{address}/transactions",
            format!("/v2/chains/{CHAIN}/addresses/{holder:#x}/transactions?sortOrder=asc"),
        ),
        (
            "/v1/chains/{chainId}/addresses/{address}/transactions:listInternals",
            format!(
                "/v1/chains/{CHAIN}/addresses/{:#x}/transactions:listInternals?pageSize=100",
                evm_address(2)
            ),
        ),
        (
            "/v1/chains/{chainId}/contracts/{address}/deployments",
            format!("/v1/chains/{CHAIN}/contracts/{factory:#x}/deployments"),
        ),
        (
            "/v1/chains/{chainId}/contracts/{address}/deployments",
            format!("/v1/chains/{CHAIN}/contracts/{deployer:#x}/deployments"),
        ),
        (
            "/v1/chains/{chainId}/addresses/{address}",
            format!("/v1/chains/{CHAIN}/addresses/{factory_made:#x}"),
        ),
        ("/v1/transactions", "/v1/transactions?pageSize=30".into()),
        ("/v1/blocks", "/v1/blocks?network=fuji".into()),
    ];
    let mut calls = calls;
    for token in [ERC20, ERC721, ERC1155] {
        let token = evm_address(token);
        calls.push((
            "/v1/chains/{chainId}/addresses/{address}",
            format!("/v1/chains/{CHAIN}/addresses/{token:#x}"),
        ));
        calls.push((
            "/v1/chains/{chainId}/tokens/{address}/transfers",
            format!("/v1/chains/{CHAIN}/tokens/{token:#x}/transfers?pageSize=100"),
        ));
    }
    for (path, uri) in calls {
        let body = api.ok(&uri).await;
        assert_valid(&doc, "get", path, &body);
    }
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap().to_owned())
        .collect()
}

pub async fn values_match_the_store(store: Store) {
    let world = seed(&store, 30, 40).await;
    let api = Api::new(store);

    // Latest P-Chain transactions: the newest first, with the fixture's hashes.
    let body = api
        .ok(&format!(
            "{P}/transactions?pageSize=100&addresses={}",
            fuji(1)
        ))
        .await;
    assert_eq!(body["chainInfo"]["chainName"], "p-chain");
    assert_eq!(body["chainInfo"]["network"], "fuji");
    let got: Vec<String> = body["transactions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["txHash"].as_str().unwrap().to_owned())
        .collect();
    let mut want: Vec<_> = world
        .p
        .facts
        .iter()
        .filter(|f| f.addresses.contains(&crate::fixtures::short(1)))
        .collect();
    want.sort_by_key(|f| std::cmp::Reverse((f.height, f.index)));
    assert_eq!(
        got,
        want.iter().map(|f| f.hash.to_string()).collect::<Vec<_>>()
    );
    let t0 = &body["transactions"][0];
    assert_eq!(t0["blockNumber"], want[0].height.to_string());
    assert_eq!(t0["blockTimestamp"], want[0].timestamp);

    // Blocks: newest first, with proposers; by node only that node's blocks.
    let blocks = api.ok(&format!("{P}/blocks?pageSize=5")).await;
    assert_eq!(
        blocks["blocks"][0]["blockNumber"],
        world.p.height.to_string()
    );
    let by_node = api
        .ok(&format!("{P}/nodes/{}/blocks?pageSize=100", node(2)))
        .await;
    for b in by_node["blocks"].as_array().unwrap() {
        assert_eq!(b["proposerDetails"]["proposerNodeId"], node(2).to_string());
    }

    // Staking: delegators by status; completed ones carry gross/net rewards.
    let completed = api
        .ok("/v1/networks/fuji/delegators?delegationStatus=completed")
        .await;
    let done: Vec<_> = completed["delegators"].as_array().unwrap().clone();
    assert_eq!(done.len(), 3);
    for d in &done {
        assert_eq!(d["delegationStatus"], "completed");
        assert!(d.get("grossReward").is_some() && d.get("estimatedGrossReward").is_none());
    }
    assert_eq!(
        done[0]["txHash"],
        world.stakers[7].0.to_string(),
        "newest first"
    );
    assert_eq!(done[0]["grossReward"], "107");
    assert_eq!(done[0]["netReward"], "97");
    let rewards = api
        .ok(&format!(
            "/v1/networks/fuji/rewards?addresses={}",
            fuji(101)
        ))
        .await;
    let r = rewards["historicalRewards"].as_array().unwrap();
    assert_eq!(r.len(), 3, "delegators 3, 5 and 7 reward fuji(101)");
    assert!(
        r[0].get("reward").unwrap().get("historicalPrice").is_none(),
        "no price table: no price"
    );
    let chains = api
        .ok(&format!(
            "/v1/networks/fuji/addresses:listChainIds?addresses={},{}",
            fuji(1),
            fuji(999)
        ))
        .await;
    assert_eq!(chains["addresses"][0]["address"], fuji(1));
    assert_eq!(
        strings(&chains["addresses"][0]["blockchainIds"]),
        ["11111111111111111111111111111111LpoYY"]
    );
    assert_eq!(
        chains["addresses"][1]["blockchainIds"],
        serde_json::json!([])
    );
    let chain = api
        .ok(&format!(
            "/v1/networks/fuji/blockchains/{}",
            world.blockchain
        ))
        .await;
    assert_eq!(chain["blockchainName"], "dexchain");
    assert_eq!(chain["evmChainId"], 777);

    // EVM: by number and by hash agree; chain by EVM ID and blockchain ID agree.
    let b5 = api.ok(&format!("/v1/chains/{CHAIN}/blocks/5")).await;
    let hash = b5["blockHash"].as_str().unwrap();
    assert_eq!(
        api.ok(&format!("/v1/chains/{CHAIN}/blocks/{hash}")).await,
        b5
    );
    let by_id = api.ok(&format!("/v1/chains/{CHAIN}")).await;
    let platform = by_id["platformChainId"].as_str().unwrap();
    assert_eq!(api.ok(&format!("/v1/chains/{platform}")).await, by_id);
    assert_eq!(api.ok(&format!("/v1/chains/{platform}/blocks/5")).await, b5);
    let latest = api
        .ok(&format!("/v1/chains/{CHAIN}/blocks?pageSize=1"))
        .await;
    assert_eq!(
        latest["blocks"][0]["blockNumber"],
        world.evm.number.to_string()
    );

    // ERC-20 transfers: startBlock inclusive, endBlock exclusive.
    let a = evm_address(1);
    let all = api
        .ok(&format!(
            "/v1/chains/{CHAIN}/addresses/{a:#x}/transactions:listErc20?pageSize=100"
        ))
        .await;
    let all = all["transactions"].as_array().unwrap().clone();
    assert!(!all.is_empty());
    let mid: u64 = all[all.len() / 2]["blockNumber"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let mid_text = mid.to_string();
    let ranged = api.ok(&format!("/v1/chains/{CHAIN}/addresses/{a:#x}/transactions:listErc20?pageSize=100&startBlock={mid}&endBlock={}", mid + 1)).await;
    let ranged = ranged["transactions"].as_array().unwrap();
    assert!(!ranged.is_empty());
    assert!(
        ranged
            .iter()
            .all(|t| t["blockNumber"].as_str() == Some(mid_text.as_str()))
    );
    let expected = all
        .iter()
        .filter(|t| t["blockNumber"].as_str() == Some(mid_text.as_str()))
        .count();
    assert_eq!(ranged.len(), expected);
    for t in &all {
        let token = &t["erc20Token"];
        assert_eq!(
            token["symbol"],
            crate::evm_address::symbol_of(&token["address"])
        );
        let touches = [&t["from"]["address"], &t["to"]["address"]]
            .iter()
            .any(|x| **x == a.to_checksum(None));
        assert!(touches);
    }

    // Collectibles match the model's holdings.
    let (owner, _, _) = *world.evm.holdings.keys().next().unwrap();
    let got = api
        .ok(&format!(
            "/v1/chains/{CHAIN}/addresses/{owner:#x}/balances:listCollectibles?pageSize=500"
        ))
        .await;
    let want: Vec<_> = world
        .evm
        .holdings
        .iter()
        .filter(|((o, _, _), _)| *o == owner)
        .collect();
    assert_eq!(
        got["collectibleBalances"].as_array().unwrap().len(),
        want.len()
    );
}
