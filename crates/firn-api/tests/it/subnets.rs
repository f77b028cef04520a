//! Subnets, blockchains, and one P-Chain transaction or block by ID, against what the
//! fixtures wrote and the official schema.

use firn_core::ids::Id;
use firn_core::network::{AVM_VM_ID, CORETH_VM_ID, FUJI};
use firn_store::{PChainReader, Store};
use serde_json::{Value, json};

use crate::fixtures::{fuji, seed};
use crate::harness::Api;
use crate::schema::{assert_valid, official};

const NET: &str = "/v1/networks/fuji";

pub async fn subnets_and_blockchains_match_the_store(store: Store) {
    let world = seed(&store, 3, 0).await;
    let api = Api::new(store);
    let validate = |path: &str, body: &Value| match official() {
        Some(doc) => assert_valid(&doc, "get", path, body),
        None => eprintln!("SKIPPED schema check: shared/openapi/data-api.openapi.json not found"),
    };

    // Every chain, one per page: the created chain, then the genesis's C and X (desc).
    let names = |items: &[Value]| -> Vec<String> {
        items
            .iter()
            .map(|b| b["blockchainName"].as_str().unwrap().to_owned())
            .collect()
    };
    let desc = api
        .all_pages(&format!("{NET}/blockchains?"), "blockchains", 1)
        .await;
    let asc = api
        .all_pages(
            &format!("{NET}/blockchains?sortOrder=asc"),
            "blockchains",
            2,
        )
        .await;
    let mut genesis = ["X-Chain", "C-Chain"];
    if FUJI.c_chain_id < FUJI.x_chain_id {
        genesis.reverse();
    }
    let want_asc: Vec<String> = genesis
        .iter()
        .map(|s| s.to_string())
        .chain(["dexchain".into()])
        .collect();
    assert_eq!(names(&asc), want_asc);
    let mut want_desc = want_asc.clone();
    want_desc.reverse();
    assert_eq!(names(&desc), want_desc);
    let first = api.ok(&format!("{NET}/blockchains?pageSize=2")).await;
    validate("/v1/networks/{network}/blockchains", &first);

    // The genesis chains resolve by ID, as platform.getBlockchains names them.
    let x = api
        .ok(&format!("{NET}/blockchains/{}", FUJI.x_chain_id))
        .await;
    validate("/v1/networks/{network}/blockchains/{blockchainId}", &x);
    assert_eq!(
        (
            &x["blockchainName"],
            &x["vmId"],
            &x["subnetId"],
            &x["createBlockNumber"]
        ),
        (
            &json!("X-Chain"),
            &json!(AVM_VM_ID.to_string()),
            &json!(Id::ZERO.to_string()),
            &json!("0")
        )
    );
    let c = api
        .ok(&format!("{NET}/blockchains/{}", FUJI.c_chain_id))
        .await;
    assert_eq!(c["vmId"], CORETH_VM_ID.to_string());
    let created = api
        .ok(&format!("{NET}/blockchains/{}", world.blockchain))
        .await;
    assert_eq!(created["evmChainId"], 777);
    api.get(&format!("{NET}/blockchains/{}", Id([9; 32])))
        .await
        .assert_error(404, "not found");

    // The subnet, converted to an L1 whose manager lives on its own chain.
    let subnets = api
        .all_pages(&format!("{NET}/subnets?"), "subnets", 1)
        .await;
    assert_eq!(subnets.len(), 1);
    let s = api.ok(&format!("{NET}/subnets/{}", world.subnet)).await;
    validate("/v1/networks/{network}/subnets/{subnetId}", &s);
    assert_eq!(s, subnets[0]);
    let first = api.ok(&format!("{NET}/subnets?pageSize=1")).await;
    validate("/v1/networks/{network}/subnets", &first);
    assert_eq!(s["subnetId"], world.subnet.to_string());
    assert_eq!(s["isL1"], true);
    assert_eq!(
        s["l1ConversionTransactionHash"],
        world.conversion_tx.to_string()
    );
    assert_eq!(
        s["l1ValidatorManagerDetails"],
        json!({"blockchainId": world.blockchain.to_string(), "contractAddress": format!("0x{}", "aa".repeat(20))})
    );
    let owner = json!({"locktime": 0, "threshold": 1, "addresses": [fuji(300)]});
    assert_eq!(s["subnetOwnershipInfo"], owner);
    assert_eq!(s["ownerAddresses"], owner["addresses"]);
    assert_eq!(names(s["blockchains"].as_array().unwrap()), ["dexchain"]);
    api.get(&format!("{NET}/subnets/{}", Id::ZERO))
        .await
        .assert_error(404, "primary network");
    api.get(&format!("{NET}/subnets/{}", Id([9; 32])))
        .await
        .assert_error(404, "not found");
    api.get(&format!("{NET}/subnets/nope"))
        .await
        .assert_error(400, "subnetId");
}

pub async fn pchain_tx_and_block_by_id_match_the_store(store: Store) {
    let world = seed(&store, 3, 0).await;
    let api = Api::new(store.clone());
    let doc = official();
    let validate = |path: &str, body: &Value| match &doc {
        Some(doc) => assert_valid(doc, "get", path, body),
        None => eprintln!("SKIPPED schema check: shared/openapi/data-api.openapi.json not found"),
    };
    let p = format!("{NET}/blockchains/p-chain");

    let hash = world.stakers[0].0;
    let stored = store.find_pchain_tx(hash).await.unwrap().unwrap();
    let tx = api.ok(&format!("{p}/transactions/{hash}")).await;
    validate(
        "/v1/networks/{network}/blockchains/{blockchainId}/transactions/{txHash}",
        &tx,
    );
    assert_eq!(tx["txHash"], hash.to_string());
    assert_eq!(tx["txType"], stored.core.tx_type);
    assert_eq!(tx["blockNumber"], stored.height.to_string());
    // The same as the list shows it.
    let listed = api
        .ok(&format!(
            "{p}/transactions?addresses={}&pageSize=100",
            fuji(100)
        ))
        .await;
    let in_list = listed["transactions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["txHash"] == hash.to_string())
        .expect("the staking tx in its reward owner's list");
    assert_eq!(&tx, in_list);
    api.get(&format!("{p}/transactions/{}", Id([9; 32])))
        .await
        .assert_error(404, "not found");
    api.get(&format!("{p}/transactions/0x12"))
        .await
        .assert_error(400, "txHash");
    api.get(&format!("{NET}/blockchains/x-chain/transactions/{hash}"))
        .await
        .assert_error(404, "not indexed");

    let by_height = api.ok(&format!("{p}/blocks/{}", stored.height)).await;
    validate(
        "/v1/networks/{network}/blockchains/{blockchainId}/blocks/{blockId}",
        &by_height,
    );
    assert_eq!(by_height["blockNumber"], stored.height.to_string());
    assert_eq!(by_height["transactions"], json!([hash.to_string()]));
    let by_hash = api.ok(&format!("{p}/blocks/{}", stored.block_hash)).await;
    assert_eq!(by_hash, by_height);
    api.get(&format!("{p}/blocks/99999999"))
        .await
        .assert_error(404, "not found");
    api.get(&format!("{p}/blocks/99999999999999999999999"))
        .await
        .assert_error(400, "blockId");
    api.get(&format!("{p}/blocks/not-a-block"))
        .await
        .assert_error(400, "blockId");
    api.get(&format!("{NET}/blockchains/c-chain/blocks/1"))
        .await
        .assert_error(404, "not indexed");
}
