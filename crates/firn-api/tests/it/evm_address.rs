//! An address's activity (v1 and v2 transaction lists, internal transactions), a token's
//! transfers, contracts and their deployments, and the latest transactions and blocks of all
//! chains, against what the fixtures wrote.

use firn_store::rows::evm::{EvmBlockRows, NftMetadata, TokenStandard};
use firn_store::types::{Address, U256};
use firn_store::{EvmReader, EvmWriter, Store};
use serde_json::Value;

use crate::fixtures::{
    CHAIN, ERC20, ERC721, ERC1155, EvmHistory, FACTORY, activity_of, evm_address, evm_chain,
    minted_ids, moves_of, seed,
};
use crate::harness::Api;
use crate::schema::{assert_valid, official};

/// `(blockNumber, blockIndex)` of each listed transaction (`nativeTransaction` in details).
fn keys(txs: &[Value]) -> Vec<(u64, u64)> {
    txs.iter()
        .map(|t| {
            let t = t.get("nativeTransaction").unwrap_or(t);
            (
                t["blockNumber"].as_str().unwrap().parse().unwrap(),
                t["blockIndex"].as_u64().unwrap(),
            )
        })
        .collect()
}

fn address_of(v: &Value) -> Address {
    v["address"].as_str().unwrap().parse().unwrap()
}

pub async fn address_endpoints_match_the_store(store: Store) {
    let world = seed(&store, 5, 70).await;
    let api = Api::new(store);
    let blocks = &world.evm.blocks;

    // Every transaction of an address, newest and oldest first, v1 and v2; each carries only
    // the address's own transfers and value-moving calls.
    let a = evm_address(3);
    let path = format!("/v1/chains/{CHAIN}/addresses/{a:#x}/transactions?");
    let v1 = api.all_pages(&path, "transactions", 4).await;
    let mut want: Vec<(u64, u64)> = activity_of(blocks, a)
        .into_iter()
        .map(|(n, i)| (n, u64::from(i)))
        .collect();
    let oldest = api
        .all_pages(&format!("{path}sortOrder=asc"), "transactions", 4)
        .await;
    assert_eq!(keys(&oldest), want);
    want.reverse();
    assert_eq!(keys(&v1), want);
    let mut indirect = 0;
    for t in &v1 {
        let native = &t["nativeTransaction"];
        let parties = [&native["from"], &native["to"]].map(address_of);
        if !parties.contains(&a) {
            indirect += 1;
        }
        for kind in ["erc20Transfers", "erc721Transfers", "erc1155Transfers"] {
            for x in t[kind].as_array().unwrap() {
                assert!(
                    address_of(&x["from"]) == a || address_of(&x["to"]) == a,
                    "{x}"
                );
            }
        }
        for i in t["internalTransactions"].as_array().unwrap() {
            assert!(
                address_of(&i["from"]) == a || address_of(&i["to"]) == a,
                "{i}"
            );
            let kind = i["internalTxType"].as_str().unwrap();
            assert!(kind.starts_with("CREATE") || i["value"] != "0", "{i}");
        }
    }
    assert!(
        indirect > 2,
        "the address takes part through transfers and calls"
    );
    let v2 = api
        .all_pages(
            &format!("/v2/chains/{CHAIN}/addresses/{a:#x}/transactions?filterSpamTokens=true"),
            "transactions",
            4,
        )
        .await;
    assert_eq!(keys(&v2), want);
    let erc20 = v2
        .iter()
        .flat_map(|t| t["erc20Transfers"].as_array().unwrap())
        .next()
        .expect("an ERC-20 transfer of the address");
    assert_eq!(erc20["erc20Token"]["tokenReputation"], Value::Null);
    assert_eq!(
        erc20["erc20Token"]["symbol"],
        symbol_of(&erc20["erc20Token"]["address"])
    );

    // Internal transactions of an address (the busiest): value-moving ones only, newest first.
    let a = (0..12)
        .map(evm_address)
        .max_by_key(|a| moves_of(blocks, *a).len())
        .unwrap();
    let internal = api
        .all_pages(
            &format!("/v1/chains/{CHAIN}/addresses/{a:#x}/transactions:listInternals?"),
            "transactions",
            3,
        )
        .await;
    let mut want: Vec<(String, u64)> = moves_of(blocks, a)
        .into_iter()
        .map(|(b, i)| {
            (
                b.txs[i.tx_index as usize].hash.to_string(),
                i.value.to::<u64>(),
            )
        })
        .collect();
    want.reverse();
    assert!(want.len() > 3);
    let got: Vec<(String, u64)> = internal
        .iter()
        .map(|i| {
            let value = i["value"].as_str().unwrap().parse().unwrap();
            (i["txHash"].as_str().unwrap().to_owned(), value)
        })
        .collect();
    assert_eq!(got, want);

    // A token's transfers, of any standard.
    for (token, standard, key) in [
        (ERC20, TokenStandard::Erc20, "erc20Token"),
        (ERC721, TokenStandard::Erc721, "erc721Token"),
    ] {
        let token = evm_address(token);
        let got = api
            .all_pages(
                &format!("/v1/chains/{CHAIN}/tokens/{token:#x}/transfers?startBlock=5&endBlock=60"),
                "transfers",
                5,
            )
            .await;
        let want = blocks
            .iter()
            .filter(|b| (5..60).contains(&b.block.number))
            .flat_map(|b| b.transfers.iter())
            .filter(|x| x.token == token && x.standard == standard)
            .count();
        assert!(want > 3);
        assert_eq!(got.len(), want);
        assert!(got.iter().all(|t| address_of(&t[key]) == token));
    }

    // The factory's contracts, and one contract's metadata; a token known without its
    // deployment; an address the index knows nothing of.
    let factory = evm_address(FACTORY);
    let contracts = api
        .all_pages(
            &format!("/v1/chains/{CHAIN}/contracts/{factory:#x}/deployments?"),
            "contracts",
            3,
        )
        .await;
    let made: Vec<_> = blocks
        .iter()
        .flat_map(|b| b.internal_txs.iter().map(move |i| (b, i)))
        .filter(|(b, i)| i.from == factory && !i.reverted && b.txs[i.tx_index as usize].success)
        .collect();
    assert!(made.len() > 2);
    assert_eq!(contracts.len(), made.len());
    let (b, i) = made.last().unwrap();
    let newest = &contracts[0];
    assert_eq!(newest["ercType"], "UNKNOWN");
    assert_eq!(address_of(newest), i.to);
    let details = &newest["deploymentDetails"];
    let tx = &b.txs[i.tx_index as usize];
    assert_eq!(details["txHash"], tx.hash.to_string());
    assert_eq!(details["deployerAddress"], format!("{:#x}", tx.from));
    assert_eq!(
        details["deployerContractAddress"],
        factory.to_checksum(None)
    );
    let one = api
        .ok(&format!("/v1/chains/{CHAIN}/addresses/{:#x}", i.to))
        .await;
    assert_eq!(&one, newest);
    let token = api
        .ok(&format!(
            "/v1/chains/{CHAIN}/addresses/{:#x}",
            evm_address(ERC20)
        ))
        .await;
    assert_eq!(token["ercType"], "ERC-20");
    assert_eq!(token["name"], "Twenty");
    assert_eq!(token["decimals"], 18);
    assert!(token.get("deploymentDetails").is_none());
    api.get(&format!(
        "/v1/chains/{CHAIN}/addresses/{:#x}",
        evm_address(77)
    ))
    .await
    .assert_error(404, "no contract known");
    api.get(&format!("/v1/chains/{CHAIN}/addresses/0x12"))
        .await
        .assert_error(400, "address");
}

/// `(chain, blockNumber, blockIndex)` newest first across chains, as the all-chains lists sort.
fn merged(chains: &[&[EvmBlockRows]], per_block: bool) -> Vec<(u64, u64, u64)> {
    let mut rows: Vec<(u64, u64, u64, u64)> = Vec::new();
    for blocks in chains {
        for b in *blocks {
            let (c, n, ts) = (b.chain_id, b.block.number, b.block.timestamp);
            if per_block {
                rows.push((ts, c, n, 0));
            } else {
                rows.extend(b.txs.iter().map(|t| (ts, c, n, u64::from(t.index))));
            }
        }
    }
    rows.sort();
    rows.reverse();
    rows.into_iter().map(|(_, c, n, i)| (c, n, i)).collect()
}

pub async fn all_chain_lists_merge_by_time(store: Store) {
    let world = seed(&store, 2, 50).await;
    // A second chain whose blocks interleave with the first's, some at the very same second.
    const OTHER: u64 = 43114;
    store.upsert_evm_chain(&evm_chain(OTHER)).await.unwrap();
    let mut other = EvmHistory::new(9, OTHER, 8);
    let mut blocks = Vec::new();
    for (i, b) in world.evm.blocks.iter().enumerate() {
        let mut next = other.next_block();
        if i % 5 == 0 {
            // The same time as a block of the first chain.
            next.block.timestamp = b.block.timestamp.max(other.ts);
            other.ts = next.block.timestamp;
        }
        blocks.push(next);
    }
    // Its tokens sit at the same addresses as the first chain's, under other names.
    for t in blocks.iter_mut().flat_map(|b| b.tokens.iter_mut()) {
        t.name = format!("Other {}", t.name);
    }
    store.commit_evm_blocks(&blocks).await.unwrap();
    let api = Api::new(store);
    let chains: [&[EvmBlockRows]; 2] = [&world.evm.blocks, &blocks];

    let txs = api.all_pages("/v1/transactions?", "transactions", 7).await;
    let got: Vec<(u64, u64, u64)> = txs
        .iter()
        .zip(keys(&txs))
        .map(|(t, (n, i))| (t["chainId"].as_str().unwrap().parse().unwrap(), n, i))
        .collect();
    assert_eq!(got, merged(&chains, false));
    // A recipient that is a token is named by its own chain.
    let other_id = OTHER.to_string();
    let named: Vec<(bool, bool)> = txs
        .iter()
        .filter_map(|t| {
            let name = t["to"]["name"].as_str()?;
            Some((t["chainId"] == other_id, name.starts_with("Other ")))
        })
        .collect();
    assert!(named.iter().any(|(other, _)| *other) && named.iter().any(|(other, _)| !*other));
    assert!(
        named.iter().all(|(other, renamed)| other == renamed),
        "{named:?}"
    );
    let failed = api
        .all_pages(
            "/v1/transactions?status=failed&network=fuji",
            "transactions",
            3,
        )
        .await;
    assert!(!failed.is_empty() && failed.len() < txs.len());
    assert!(failed.iter().all(|t| t["txStatus"] == "0"));

    let listed = api.all_pages("/v1/blocks?", "blocks", 6).await;
    let got: Vec<(u64, u64, u64)> = listed
        .iter()
        .map(|b| {
            let c = b["chainId"].as_str().unwrap().parse().unwrap();
            (c, b["blockNumber"].as_str().unwrap().parse().unwrap(), 0)
        })
        .collect();
    assert_eq!(got, merged(&chains, true));
    let mainnet = api.ok("/v1/blocks?network=mainnet").await;
    assert_eq!(mainnet["blocks"], serde_json::json!([]));
    api.get("/v1/transactions?status=pending")
        .await
        .assert_error(400, "status");
}

pub async fn nft_collections_list_their_tokens(store: Store) {
    let world = seed(&store, 2, 60).await;
    let api = Api::new(store);
    for (token, erc_type) in [(ERC721, "ERC-721"), (ERC1155, "ERC-1155")] {
        let token = evm_address(token);
        let minted = minted_ids(&world.evm.blocks, token);
        assert!(minted.len() > 2);
        let path = format!("/v1/chains/{CHAIN}/nfts/collections/{token:#x}/tokens");
        let got = api.all_pages(&format!("{path}?"), "tokens", 2).await;
        let ids: Vec<String> = got
            .iter()
            .map(|t| t["tokenId"].as_str().unwrap().to_owned())
            .collect();
        let want: Vec<String> = minted.iter().map(U256::to_string).collect();
        assert_eq!(ids, want);
        assert!(got.iter().all(|t| t["ercType"] == erc_type));
        assert!(
            got.iter()
                .all(|t| t["metadata"]["indexStatus"] == "UNINDEXED")
        );
        let first = minted.first().unwrap();
        let one = api.ok(&format!("{path}/{first}")).await;
        assert_eq!(one, got[0]);
        if let Some(doc) = official() {
            assert_valid(
                &doc,
                "get",
                "/v1/chains/{chainId}/nfts/collections/{address}/tokens",
                &api.ok(&path).await,
            );
            assert_valid(
                &doc,
                "get",
                "/v1/chains/{chainId}/nfts/collections/{address}/tokens/{tokenId}",
                &one,
            );
        }
        api.get(&format!("{path}/123456789"))
            .await
            .assert_error(404, "token 123456789");
        api.get(&format!("{path}/x1"))
            .await
            .assert_error(400, "tokenId must be a token ID");
    }
    api.get(&format!(
        "/v1/chains/{CHAIN}/nfts/collections/{:#x}/tokens",
        evm_address(ERC20)
    ))
    .await
    .assert_error(404, "is not an NFT collection");
}

/// The symbol the fixtures give the ERC-20 token at `address`.
pub fn symbol_of(address: &Value) -> &'static str {
    let b = evm_address(crate::fixtures::ERC20_B).to_checksum(None);
    if address.as_str() == Some(b.as_str()) {
        "BEE"
    } else {
        "TWE"
    }
}

/// `reindexNft` queues a minted token's metadata to be read again (the store shows it in the
/// worker's queue), once an hour: sooner is a 429 with Retry-After; an unknown token is a 404.
pub async fn nft_reindex_is_queued_once_an_hour(store: Store) {
    let world = seed(&store, 2, 60).await;
    let token = evm_address(ERC721);
    let id = *minted_ids(&world.evm.blocks, token).first().unwrap();
    // As if the worker had read it: the reindex must put it back in the queue.
    let mut read = store
        .find_nft_metadata(CHAIN, token, id)
        .await
        .unwrap()
        .unwrap();
    read.index_status = "INDEXED".to_owned();
    read.token_uri = "ipfs://firn/1.json".to_owned();
    read.name = Some("One".to_owned());
    store.upsert_nft_metadata(CHAIN, &read).await.unwrap();
    let api = Api::new(store.clone());
    // Transfers of the token carry what the indexer read.
    let minter = world
        .evm
        .blocks
        .iter()
        .flat_map(|b| &b.transfers)
        .find(|t| t.token == token && t.token_id == Some(id) && t.from == Address::ZERO)
        .unwrap()
        .to;
    let moves = api
        .all_pages(
            &format!("/v1/chains/{CHAIN}/addresses/{minter:#x}/transactions:listErc721?"),
            "transactions",
            50,
        )
        .await;
    let mint = moves
        .iter()
        .find(|t| t["erc721Token"]["tokenId"] == id.to_string())
        .unwrap();
    assert_eq!(mint["erc721Token"]["tokenUri"], "ipfs://firn/1.json");
    assert_eq!(mint["erc721Token"]["metadata"]["indexStatus"], "INDEXED");
    assert_eq!(mint["erc721Token"]["metadata"]["name"], "One");
    let post = |path: String| {
        let api = &api;
        async move {
            api.request(
                axum::http::Request::post(path)
                    .body(axum::body::Body::empty())
                    .unwrap(),
            )
            .await
        }
    };
    let path = |id: &dyn std::fmt::Display| {
        format!("/v1/chains/{CHAIN}/nfts/collections/{token:#x}/tokens/{id}:reindex")
    };
    let first = post(path(&id)).await;
    assert_eq!(first.status, 201, "{}", first.json);
    let queued = store
        .find_nft_metadata(CHAIN, token, id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(queued.index_status, NftMetadata::URI_UNREAD);
    let again = post(path(&id)).await;
    again.assert_error(429, "less than an hour ago");
    let wait: u64 = again.headers["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((3_500..=3_600).contains(&wait), "{wait}");
    post(path(&"424242424242"))
        .await
        .assert_error(404, "has not been minted");
    post(path(&"twelve"))
        .await
        .assert_error(400, "tokenId must be a token ID");
}
