//! Service features around the endpoints: prices from a table, the generated OpenAPI document.

use firn_api::{ApiConfig, PriceTable};
use firn_store::Store;

use crate::fixtures::{fuji, seed};
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
    // 38 read routes, reindexNft and the two signature aggregator routes.
    assert_eq!(ours.len(), 41, "{:?}", ours.keys().collect::<Vec<_>>());
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
        for method in ["get", "post"] {
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
}
