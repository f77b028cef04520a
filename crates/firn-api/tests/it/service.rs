//! Service features around the endpoints: prices from a table, logos from a token list, the
//! generated OpenAPI document.

use firn_api::{ApiConfig, PriceTable, TokenLogos};
use firn_store::Store;
use firn_store::types::Address;

use firn_node::NodeConfig;
use firn_store::EvmWriter;

use crate::fixtures::{CHAIN, ERC1155, evm_address, evm_chain, fuji, seed};
use crate::harness::Api;
use crate::schema::official;

pub async fn prices_come_from_the_table_only(store: Store) {
    seed(&store, 5, 5).await;
    let prices = PriceTable::from_toml("[eur]\nAVAX = 21.5\n").unwrap();
    let api = Api::with_config(
        store.clone(),
        ApiConfig {
            prices,
            ..ApiConfig::default()
        },
    );
    let uri = format!(
        "/v1/networks/fuji/rewards?addresses={}&currency=eur",
        fuji(101)
    );
    let body = api.ok(&uri).await;
    let price = &body["historicalRewards"][0]["reward"]["historicalPrice"];
    assert_eq!(price["currencyCode"], "eur");
    assert_eq!(price["value"], 21.5);
    // A currency the table lacks, or no table at all: the optional field is left out.
    let usd = api
        .ok(&format!(
            "/v1/networks/fuji/rewards?addresses={}",
            fuji(101)
        ))
        .await;
    assert!(
        usd["historicalRewards"][0]["reward"]
            .get("historicalPrice")
            .is_none()
    );
    let plain = Api::new(store).ok(&uri).await;
    assert!(
        plain["historicalRewards"][0]["reward"]
            .get("historicalPrice")
            .is_none()
    );
}

pub async fn openapi_document_lists_every_operation(store: Store) {
    let api = Api::new(store);
    let doc = api.ok("/api-json").await;
    let ours = doc["paths"].as_object().unwrap();
    // 60 read routes (three also answer POST), reindexNft, the two signature aggregator
    // routes, the two operations routes, the five webhook paths (ten operations) and the four
    // usage routes.
    assert_eq!(ours.len(), 74, "{:?}", ours.keys().collect::<Vec<_>>());
    // An error's `message` is a string or an array of strings, as the official file says (a
    // schema-driven fuzzer checks every 400 against it).
    let schemas = &doc["components"]["schemas"];
    let message = &schemas["ErrorBody"]["properties"]["message"];
    let message = match message.get("$ref").and_then(|r| r.as_str()) {
        Some(r) => &schemas[r.trim_start_matches("#/components/schemas/")],
        None => message,
    };
    let kinds: Vec<String> = message["oneOf"]
        .as_array()
        .unwrap_or_else(|| panic!("message is oneOf: {message}"))
        .iter()
        .map(|k| format!("{}{}", k["type"], k["items"]["type"]))
        .collect();
    assert_eq!(
        kinds,
        ["\"string\"null", "\"array\"\"string\""],
        "{message}"
    );
    let html = api.get("/api").await;
    assert_eq!(html.status, 200);
    let Some(official) = official() else {
        eprintln!(
            "SKIPPED operationId cross-check: shared/openapi/data-api.openapi.json not found"
        );
        return;
    };
    for (path, item) in ours {
        for method in ["get", "post", "patch", "delete"] {
            let op = &item[method];
            if op.is_null() {
                continue;
            }
            let id = op["operationId"].as_str().unwrap();
            assert_eq!(official["paths"][path][method]["operationId"], id, "{path}");
            assert!(html.json.as_str().unwrap().contains(id), "/api lacks {id}");
            for p in op["parameters"].as_array().into_iter().flatten() {
                let name = p["name"].as_str().unwrap();
                let theirs = official["paths"][path][method]["parameters"]
                    .as_array()
                    .unwrap();
                assert!(
                    theirs.iter().any(|t| t["name"] == name),
                    "{path}: {name} is not an official parameter"
                );
            }
        }
    }
    // Every official operation of the groups firn serves whole is in the document, under the
    // official path, method and tag.
    let groups = ["Webhooks", "Operations", "Data API Usage Metrics"];
    let mut listed = 0;
    for (path, item) in official["paths"].as_object().unwrap() {
        for (method, theirs) in item.as_object().unwrap() {
            let Some(tag) = theirs["tags"][0].as_str().filter(|t| groups.contains(t)) else {
                continue;
            };
            let id = &theirs["operationId"];
            let op = &doc["paths"][path][method];
            assert_eq!(
                &op["operationId"], id,
                "{method} {path} missing from /api-json"
            );
            assert_eq!(op["tags"][0], tag, "{id}");
            listed += 1;
        }
    }
    assert_eq!(
        listed, 16,
        "10 webhook, 2 operations and 4 usage operations"
    );
}

/// Logos come from the operator's token list: on ERC-20 balances, on transfers' tokens and on
/// senders and recipients that are tokens; nowhere without a list.
pub async fn token_logos_come_from_the_list_only(store: Store) {
    let world = seed(&store, 2, 60).await;
    // Balance lists carry the holder's native balance, from the chain's node.
    let node = firn_node::spawn(NodeConfig::test().with_evm())
        .await
        .unwrap();
    let mut chain = evm_chain(CHAIN);
    chain.rpc_url = node.url_of("/ext/bc/C/rpc");
    store.upsert_evm_chain(&chain).await.unwrap();
    let blocks = &world.evm.blocks;
    let model = crate::fixtures::erc20_balances(blocks);
    let (holder, held) = model.iter().max_by_key(|(_, h)| h.len()).unwrap();
    assert!(held.len() > 1, "a holder of several tokens");
    let listed = *held.keys().next().unwrap();
    let multi = evm_address(ERC1155);
    let logo = |a: &Address| format!("https://logos.example/{a:#x}.png");
    let list = serde_json::json!({"name": "test", "tokens": [
        {"chainId": CHAIN, "address": listed.to_checksum(None), "logoURI": logo(&listed)},
        {"chainId": CHAIN, "address": format!("{multi:#x}"), "logoURI": logo(&multi)},
        {"chainId": CHAIN + 1, "address": format!("{holder:#x}"), "logoURI": "https://elsewhere"},
    ]});
    let config = ApiConfig {
        token_logos: TokenLogos::from_token_list(&list.to_string()).unwrap(),
        ..ApiConfig::default()
    };
    let with_list = Api::with_config(store.clone(), config);
    let without = Api::new(store);
    let balances =
        format!("/v1/chains/{CHAIN}/addresses/{holder:#x}/balances:listErc20?pageSize=100");
    let transfers =
        format!("/v1/chains/{CHAIN}/addresses/{holder:#x}/transactions:listErc20?pageSize=100");
    let batch = crate::fixtures::erc1155_batch_tx(blocks);
    let tx = format!("/v1/chains/{CHAIN}/transactions/{batch:#x}");

    let body = with_list.ok(&balances).await;
    let mut seen = 0;
    for b in body["erc20TokenBalances"].as_array().unwrap() {
        let want = (b["address"] == listed.to_checksum(None)).then(|| logo(&listed));
        assert_eq!(b["logoUri"].as_str().map(str::to_owned), want, "{b}");
        seen += usize::from(want.is_some());
    }
    assert_eq!(seen, 1);
    let body = with_list.ok(&transfers).await;
    let mut seen = 0;
    for t in body["transactions"].as_array().unwrap() {
        let token = &t["erc20Token"];
        let want = (token["address"] == listed.to_checksum(None)).then(|| logo(&listed));
        assert_eq!(token["logoUri"].as_str().map(str::to_owned), want, "{t}");
        seen += usize::from(want.is_some());
    }
    assert!(seen > 0, "transfers of the listed token");
    let body = with_list.ok(&tx).await;
    let to = &body["nativeTransaction"]["to"];
    assert_eq!(
        (&to["symbol"], to["logoUri"].as_str()),
        (&serde_json::json!("MUL"), Some(logo(&multi).as_str()))
    );
    // A sender that is not a token gets no logo, even one the list names on another chain.
    assert!(body["nativeTransaction"]["from"].get("logoUri").is_none());

    for uri in [&balances, &transfers, &tx] {
        let body = without.ok(uri).await;
        assert!(!body.to_string().contains("logoUri"), "{uri}: {body}");
    }
}
