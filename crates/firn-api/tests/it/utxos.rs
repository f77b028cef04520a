//! UTXOs, balances and last activity of addresses (GET and POST) against the store, the
//! official schema, and their refusals.

use axum::body::Body;
use axum::http::Request;
use firn_store::page::UtxoCursor;
use firn_store::rows::pchain::PUtxoRecord;
use firn_store::{PChainReader, PageRequest, SortOrder, Store, UtxoFilter, UtxoSort};
use serde_json::{Value, json};

use crate::fixtures::{World, fuji, seed, short};
use crate::harness::Api;
use crate::schema::{assert_valid, official};

const P: &str = "/v1/networks/fuji/blockchains/p-chain";

fn ids(items: &[Value]) -> Vec<String> {
    items
        .iter()
        .map(|u| u["utxoId"].as_str().unwrap().to_owned())
        .collect()
}

async fn from_store(store: &Store, filter: &UtxoFilter, order: SortOrder) -> Vec<PUtxoRecord> {
    store
        .list_utxos(filter, order, &PageRequest::<UtxoCursor>::first(10_000))
        .await
        .unwrap()
        .items
}

pub async fn utxo_endpoints_match_the_store(store: Store) {
    let world: World = seed(&store, 40, 0).await;
    let api = Api::new(store.clone());
    let doc = official();
    let validate = |method: &str, path: &str, body: &Value| match &doc {
        Some(doc) => assert_valid(doc, method, path, body),
        None => eprintln!("SKIPPED schema check: shared/openapi/data-api.openapi.json not found"),
    };
    let path = "/v1/networks/{network}/blockchains/{blockchainId}/utxos";
    let owners = [0u64, 1, 2];
    let addresses: Vec<String> = owners.iter().map(|n| fuji(*n)).collect();
    let list = addresses.join(",");

    // Every order, two a page, as the store lists them.
    for (query, sort, order, include_spent) in [
        ("", UtxoSort::Created, SortOrder::Desc, false),
        (
            "&sortBy=amount&sortOrder=asc",
            UtxoSort::Amount,
            SortOrder::Asc,
            false,
        ),
        (
            "&includeSpent=true&sortOrder=asc",
            UtxoSort::Created,
            SortOrder::Asc,
            true,
        ),
        (
            "&includeSpent=true&sortBy=amount",
            UtxoSort::Amount,
            SortOrder::Desc,
            true,
        ),
    ] {
        let filter = UtxoFilter {
            addresses: owners.iter().map(|n| short(*n)).collect(),
            include_spent,
            sort,
            ..UtxoFilter::default()
        };
        let want: Vec<String> = from_store(&store, &filter, order)
            .await
            .iter()
            .map(|u| u.utxo.utxo_id.to_string())
            .collect();
        assert!(want.len() > 4, "{query}: too few UTXOs to page");
        let got = api
            .all_pages(&format!("{P}/utxos?addresses={list}{query}"), "utxos", 2)
            .await;
        assert_eq!(ids(&got), want, "GET {query}");
        let body = json!({ "addresses": list });
        let got = api
            .all_pages_of(&format!("{P}/utxos?x=1{query}"), "utxos", 3, Some(&body))
            .await;
        assert_eq!(ids(&got), want, "POST {query}");
        let page = api
            .ok(&format!("{P}/utxos?addresses={list}{query}&pageSize=5"))
            .await;
        validate("get", path, &page);
        validate("post", path, &page);
    }

    // One UTXO's every field.
    let filter = UtxoFilter {
        addresses: vec![short(0)],
        include_spent: true,
        ..UtxoFilter::default()
    };
    let stored = from_store(&store, &filter, SortOrder::Desc).await;
    let spent = stored.iter().find(|u| u.consumed.is_some()).unwrap();
    let all = api
        .all_pages(
            &format!("{P}/utxos?addresses=P-{}&includeSpent=true", fuji(0)),
            "utxos",
            50,
        )
        .await;
    let u = all
        .iter()
        .find(|u| u["utxoId"] == spent.utxo.utxo_id.to_string())
        .unwrap();
    let c = spent.consumed.unwrap();
    assert_eq!(u["addresses"], json!([fuji(0)]));
    assert_eq!(u["amount"], spent.utxo.amount.to_string());
    assert_eq!(u["asset"]["amount"], spent.utxo.amount.to_string());
    assert_eq!(u["txHash"], spent.utxo.tx_hash.to_string());
    assert_eq!(u["blockNumber"], spent.height.to_string());
    assert_eq!(u["blockTimestamp"], spent.timestamp);
    assert_eq!(u["consumingTxHash"], c.tx_hash.to_string());
    assert_eq!(u["consumingBlockNumber"], c.height.to_string());
    assert_eq!(u["consumingBlockTimestamp"], c.timestamp);
    assert_eq!(u["utxoType"], "TRANSFER");
    assert_eq!(
        u["createdOnChainId"],
        "11111111111111111111111111111111LpoYY"
    );

    // The filters: a minimum amount, the asset, and an asset nobody holds.
    let min = 500_000u64;
    let big = api
        .all_pages(
            &format!("{P}/utxos?addresses={list}&minUtxoAmount={min}"),
            "utxos",
            4,
        )
        .await;
    assert!(!big.is_empty());
    assert!(
        big.iter()
            .all(|u| u["amount"].as_str().unwrap().parse::<u64>().unwrap() >= min)
    );
    let avax = crate::fixtures::avax();
    let same = api
        .all_pages(
            &format!("{P}/utxos?addresses={list}&assetId={avax}"),
            "utxos",
            4,
        )
        .await;
    let plain = api
        .all_pages(&format!("{P}/utxos?addresses={list}"), "utxos", 4)
        .await;
    assert_eq!(ids(&same), ids(&plain));
    let other = firn_core::ids::Id([7; 32]);
    let none = api
        .ok(&format!("{P}/utxos?addresses={list}&assetId={other}"))
        .await;
    assert_eq!(none["utxos"], json!([]));

    // The POST form takes more addresses than a URL list may hold.
    let many: Vec<String> = (0..300).map(fuji).collect();
    let r = api
        .post_json(
            &format!("{P}/utxos?pageSize=1024"),
            &json!({"addresses": many.join(",")}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.json);
    let r = api
        .get(&format!("{P}/utxos?addresses={}", many[..65].join(",")))
        .await;
    r.assert_error(400, "addresses must contain no more than 64");

    check_balances(&api, &store, &world, &validate).await;
    check_last_activity(&api, &validate).await;
    check_refusals(&api, &list).await;
}

async fn check_balances(
    api: &Api,
    store: &Store,
    world: &World,
    validate: &(dyn Fn(&str, &str, &Value) + Sync),
) {
    let path = "/v1/networks/{network}/blockchains/{blockchainId}/balances";
    let now = world.p.ts;
    for (owners, at) in [
        (vec![0u64, 1], None),
        (vec![3], None),
        (vec![0, 1], Some(now - 2_000)),
    ] {
        let list: Vec<String> = owners.iter().map(|n| fuji(*n)).collect();
        let shorts: Vec<_> = owners.iter().map(|n| short(*n)).collect();
        let mut uri = format!("{P}/balances?addresses={}", list.join(","));
        if let Some(t) = at {
            uri.push_str(&format!("&blockTimestamp={t}"));
        }
        let got = api.ok(&uri).await;
        validate("get", path, &got);
        assert_eq!(
            got["chainInfo"],
            json!({"chainName": "p-chain", "network": "fuji"})
        );
        let sums = store
            .list_balances(&shorts, at.unwrap_or(now))
            .await
            .unwrap();
        assert!(!sums.is_empty(), "{uri}: nothing held");
        let b = &got["balances"];
        let mut listed = 0;
        for (field, items) in b.as_object().unwrap() {
            for item in items.as_array().unwrap() {
                let s = sums
                    .iter()
                    .find(|s| s.kind.as_str() == field)
                    .unwrap_or_else(|| panic!("{uri}: unexpected {field}"));
                assert_eq!(item["amount"], s.amount.to_string());
                assert_eq!(item["utxoCount"], s.utxo_count);
                assert_eq!(item["assetId"], s.asset_id.to_string());
                listed += 1;
            }
        }
        assert_eq!(listed, sums.len(), "{uri}");
    }
    // The unlocked balance is the sum of the unspent UTXOs the list shows.
    let unspent = api
        .all_pages(&format!("{P}/utxos?addresses={}", fuji(3)), "utxos", 100)
        .await;
    let total: u64 = unspent
        .iter()
        .map(|u| u["amount"].as_str().unwrap().parse::<u64>().unwrap())
        .sum();
    let got = api.ok(&format!("{P}/balances?addresses={}", fuji(3))).await;
    assert_eq!(
        got["balances"]["unlockedUnstaked"][0]["amount"],
        total.to_string()
    );
    assert_eq!(
        got["balances"]["unlockedUnstaked"][0]["utxoCount"],
        unspent.len()
    );
    // An address that never held anything has empty lists, not an error.
    let empty = api
        .ok(&format!("{P}/balances?addresses={}", fuji(999)))
        .await;
    assert_eq!(empty["balances"]["unlockedUnstaked"], json!([]));
    api.get(&format!(
        "{P}/balances?addresses={}&blockTimestamp={}",
        fuji(0),
        now + 1
    ))
    .await
    .assert_error(400, "after the last indexed P-Chain block");
}

async fn check_last_activity(api: &Api, validate: &(dyn Fn(&str, &str, &Value) + Sync)) {
    let path = "/v1/networks/{network}/blockchains/{blockchainId}/lastActivityTimestampByAddresses";
    let list = format!("{},{}", fuji(4), fuji(5));
    let got = api
        .ok(&format!(
            "{P}/lastActivityTimestampByAddresses?addresses={list}"
        ))
        .await;
    validate("get", path, &got);
    validate("post", path, &got);
    assert_eq!(got["chainName"], "p-chain");
    assert_eq!(got["network"], "fuji");
    // The newest UTXO event of the two, as the UTXO list shows it.
    let all = api
        .all_pages(
            &format!("{P}/utxos?addresses={list}&includeSpent=true"),
            "utxos",
            100,
        )
        .await;
    let newest = all
        .iter()
        .flat_map(|u| {
            let created = (
                u["blockNumber"].as_str().unwrap().parse::<u64>().unwrap(),
                1,
            );
            let spent = u["consumingBlockNumber"]
                .as_str()
                .map(|h| (h.parse::<u64>().unwrap(), 0));
            [Some(created), spent]
        })
        .flatten()
        .max()
        .unwrap();
    assert_eq!(got["blockNumber"], newest.0.to_string());
    assert_eq!(got["isConsumed"], newest.1 == 0);
    let posted = api
        .post_json(
            &format!("{P}/lastActivityTimestampByAddresses"),
            &json!({ "addresses": list }),
        )
        .await;
    assert_eq!(posted.status, 200);
    assert_eq!(posted.json, got);
    api.get(&format!(
        "{P}/lastActivityTimestampByAddresses?addresses={}",
        fuji(999)
    ))
    .await
    .assert_error(404, "no UTXO of these addresses");
}

async fn check_refusals(api: &Api, list: &str) {
    for (uri, status, needle) in [
        (format!("{P}/utxos"), 400, "addresses is required"),
        (format!("{P}/utxos?addresses=nope"), 400, "invalid address"),
        (
            format!("{P}/utxos?addresses={list}&sortBy=size"),
            400,
            "sortBy",
        ),
        (
            format!("{P}/utxos?addresses={list}&minUtxoAmount=-1"),
            400,
            "minUtxoAmount",
        ),
        (
            format!("{P}/utxos?addresses={list}&includeSpent=maybe"),
            400,
            "includeSpent",
        ),
        (
            format!("{P}/utxos?addresses={list}&pageSize=101"),
            400,
            "pageSize",
        ),
        (
            format!("{P}/utxos?addresses={list}&assetId=xyz"),
            400,
            "assetId",
        ),
        (format!("{P}/balances"), 400, "addresses is required"),
        (
            format!("{P}/lastActivityTimestampByAddresses"),
            400,
            "addresses is required",
        ),
    ] {
        api.get(&uri).await.assert_error(status, needle);
    }
    let bad = api
        .post_json(&format!("{P}/utxos"), &json!({ "addresses": 5 }))
        .await;
    bad.assert_error(400, "string field addresses");
    let bad = api.post_json(&format!("{P}/utxos"), &json!({})).await;
    bad.assert_error(400, "string field addresses");
    let form = api
        .request(
            Request::post(format!("{P}/utxos"))
                .header("content-type", "application/x-www-form-urlencoded")
                .body(Body::from("addresses=x"))
                .unwrap(),
        )
        .await;
    form.assert_error(415, "application/json");
    let too_many: Vec<String> = (0..1_025).map(fuji).collect();
    let r = api
        .post_json(
            &format!("{P}/utxos"),
            &json!({ "addresses": too_many.join(",") }),
        )
        .await;
    r.assert_error(400, "no more than 1024");
    let r = api
        .post_json(
            &format!("{P}/utxos?pageSize=1025"),
            &json!({ "addresses": list }),
        )
        .await;
    r.assert_error(400, "pageSize");
}
