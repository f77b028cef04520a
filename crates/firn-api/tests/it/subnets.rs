//! Subnets, blockchains, and one P-Chain transaction or block by ID, against what the
//! fixtures wrote and the official schema.

use firn_core::ids::Id;
use firn_core::network::{AVM_VM_ID, CORETH_VM_ID, FUJI};
use firn_store::rows::l1_fees::{L1FeeActive, L1FeeChanges, LedgerState};
use firn_store::{PChainReader, PChainWriter, Store};
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
    // A P-Chain tx is not on the X-Chain.
    api.get(&format!("{NET}/blockchains/x-chain/transactions/{hash}"))
        .await
        .assert_error(404, "not found");
    api.get(&format!("{NET}/blockchains/c-chain/transactions/{hash}"))
        .await
        .assert_error(404, "not found");

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
    // No C-Chain is indexed in this store.
    api.get(&format!("{NET}/blockchains/c-chain/blocks/1"))
        .await
        .assert_error(404, "block 1 not found");
}

pub async fn l1_validators_match_the_store(store: Store) {
    let world = seed(&store, 3, 0).await;
    let api_store = store.clone();
    let api = Api::new(store);
    let list = format!("{NET}/l1Validators?");
    let doc = official();
    let made = crate::fixtures::l1_validators(world.subnet);
    let ids = |items: &[Value]| -> Vec<String> {
        items
            .iter()
            .map(|v| v["validationId"].as_str().unwrap().to_owned())
            .collect()
    };
    // The active ones, newest first (one conversion made them: by validation ID, descending).
    let mut active: Vec<String> = made
        .iter()
        .filter(|v| v.active)
        .map(|v| v.validation_id.to_string())
        .collect();
    active.sort_by_key(|s| std::cmp::Reverse(s.parse::<Id>().unwrap()));
    let got = api.all_pages(&list, "validators", 1).await;
    assert_eq!(ids(&got), active);
    let mut all: Vec<String> = made.iter().map(|v| v.validation_id.to_string()).collect();
    all.sort_by_key(|s| std::cmp::Reverse(s.parse::<Id>().unwrap()));
    let every = api
        .all_pages(
            &format!("{list}includeInactiveL1Validators=true"),
            "validators",
            2,
        )
        .await;
    assert_eq!(ids(&every), all);

    let page = api
        .ok(&format!("{list}includeInactiveL1Validators=true"))
        .await;
    if let Some(doc) = &doc {
        assert_valid(doc, "get", "/v1/networks/{network}/l1Validators", &page);
    }
    // The node's reading is at the last block's height.
    assert_eq!(page["blockHeight"], world.p.height.to_string());
    for v in page["validators"].as_array().unwrap() {
        let m = made
            .iter()
            .find(|m| v["validationId"] == m.validation_id.to_string())
            .unwrap();
        assert_eq!(
            v["validationIdHex"],
            format!("0x{}", hex::encode(m.validation_id.0))
        );
        assert_eq!(v["nodeId"], m.node_id.to_string());
        assert_eq!(v["subnetId"], world.subnet.to_string());
        assert_eq!(v["weight"], m.weight);
        // Validator 0 has the node's reading; 1 none (its conversion balance); 2 is inactive.
        let balance = match m.validation_id {
            i if i == made[0].validation_id => 999_000_000,
            _ if !m.active => 0,
            _ => m.balance,
        };
        assert_eq!(v["remainingBalance"], balance, "{v}");
        assert_eq!(
            v["blsCredentials"]["publicKey"],
            format!("0x{}", hex::encode(&m.bls_public_key))
        );
        let owner = |o: &firn_store::rows::pchain::Owner| {
            json!({
                "addresses": o.addresses.iter().map(|a| firn_core::address::bech32_encode("fuji", a).unwrap()).collect::<Vec<_>>(),
                "threshold": o.threshold,
            })
        };
        assert_eq!(
            v["remainingBalanceOwner"],
            owner(&m.remaining_balance_owner)
        );
        assert_eq!(v["deactivationOwner"], owner(&m.deactivation_owner));
        assert!(v["creationTimestamp"].as_u64().unwrap() > 0);
    }

    // Each filter.
    let one = &made[1];
    for (query, want) in [
        (
            format!("nodeId={}", one.node_id),
            vec![one.validation_id.to_string()],
        ),
        (
            format!("l1ValidationId={}", one.validation_id),
            vec![one.validation_id.to_string()],
        ),
        (format!("subnetId={}", world.subnet), active.clone()),
        (format!("subnetId={}", Id([9; 32])), Vec::new()),
        (
            format!(
                "nodeId={}&includeInactiveL1Validators=true",
                made[2].node_id
            ),
            vec![made[2].validation_id.to_string()],
        ),
        (format!("nodeId={}", made[2].node_id), Vec::new()),
    ] {
        let got = api
            .all_pages(&format!("{list}{query}"), "validators", 5)
            .await;
        assert_eq!(ids(&got), want, "{query}");
    }
    for (query, needle) in [
        ("subnetId=nope", "subnetId"),
        ("nodeId=NodeID-xyz", "nodeId"),
        (
            "includeInactiveL1Validators=yes",
            "includeInactiveL1Validators",
        ),
        ("pageSize=101", "pageSize"),
    ] {
        api.get(&format!("{list}{query}"))
            .await
            .assert_error(400, needle);
    }

    // Once the indexer replays the fee ledger, a balance is what the ledger leaves the
    // validator at the indexed height: 0 charged up to 1 000, ending at 1 555; 1 at 1 777.
    let height = world.p.height + 1;
    let mut block = crate::fixtures::pblock(height, world.p.ts + 1, Vec::new());
    let charged = |v: &firn_store::rows::pchain::L1Validator, end| L1FeeActive {
        validation_id: v.validation_id,
        subnet_id: v.subnet_id,
        node_id: v.node_id,
        end_accrued: end,
    };
    block.l1_fees = Some(L1FeeChanges {
        state: LedgerState {
            time: world.p.ts + 1,
            excess: 0,
            accrued: 1_000,
        },
        active: vec![charged(&made[0], 1_555), charged(&made[1], 1_777)],
        inactive: Vec::new(),
        days: Vec::new(),
    });
    api_store.commit_pchain_blocks(&[block]).await.unwrap();
    let page = api
        .ok(&format!("{list}includeInactiveL1Validators=true"))
        .await;
    assert_eq!(page["blockHeight"], height.to_string());
    let balances: Vec<(String, u64)> = page["validators"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            let id = v["validationId"].as_str().unwrap().to_owned();
            (id, v["remainingBalance"].as_u64().unwrap())
        })
        .collect();
    let want = |i: usize, b: u64| (made[i].validation_id.to_string(), b);
    assert_eq!(balances, vec![want(2, 0), want(1, 777), want(0, 555)]);
}
