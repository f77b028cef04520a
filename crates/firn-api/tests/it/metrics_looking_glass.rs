//! The Metrics API's Looking Glass: the reward addresses of a subnet's validators over a time
//! frame, checked against the stakers the fixture wrote.

use firn_core::network::P_CHAIN_ID;
use firn_store::types::Address;
use firn_store::{EvmWriter, Store};
use serde_json::{Value, json};

use crate::fixtures::{erc20_transfers_block, evm_address, evm_chain, seed};
use crate::harness::Api;
use crate::schema::assert_valid;

const PATH: &str = "/v2/subnets/{subnetId}/validators:getAddresses";

pub async fn validator_addresses_over_a_time_frame(store: Store) {
    let world = seed(&store, 3, 0).await;
    let hrp = firn_api::ApiConfig::default().network.hrp;
    let api = Api::metrics(store.clone());
    let primary = format!("/v2/subnets/{P_CHAIN_ID}/validators:getAddresses");
    // The primary network's validators (not its delegators), one entry each, by acceptance.
    let validators: Vec<_> = world
        .stakers
        .iter()
        .filter(|(_, s, _)| !s.is_delegator)
        .map(|(_, s, _)| s)
        .collect();
    assert!(validators.len() >= 3);
    let entry = |s: &firn_store::rows::pchain::NewStaker| {
        let addresses: Vec<String> = s
            .reward_addresses
            .iter()
            .map(|a| firn_core::address::bech32_encode(&hrp, a).unwrap())
            .collect();
        json!({ "addresses": addresses, "sortKey": s.start_ts.to_string() })
    };
    let want: Vec<Value> = validators.iter().map(|s| entry(s)).collect();
    let got = api
        .all_pages(&format!("{primary}?startTimestamp=0"), "addresses", 1)
        .await;
    assert_eq!(got, want, "every validator, one page each");
    // Only periods that share a moment with the frame: the second validator starts 40 s after
    // the first, so a frame ending before it holds the first alone.
    let first_start = validators[0].start_ts;
    let frame = format!(
        "{primary}?startTimestamp=0&endTimestamp={}",
        first_start + 39
    );
    let page = api.ok(&frame).await;
    assert_eq!(page["addresses"], json!([want[0]]));
    assert!(page.get("nextPageToken").is_none(), "{page}");
    let after_all = validators.iter().map(|s| s.end_ts).max().unwrap() + 1;
    let page = api
        .ok(&format!("{primary}?startTimestamp={after_all}"))
        .await;
    assert_eq!(page["addresses"], json!([]));
    // A permissioned subnet's validators have no reward owner to list.
    let subnet = format!("/v2/subnets/{}/validators:getAddresses", world.subnet);
    assert_eq!(api.ok(&subnet).await["addresses"], json!([]));

    if let Some(doc) = crate::metrics_v2::official_metrics_doc() {
        assert_valid(
            &doc,
            "get",
            PATH,
            &api.ok(&format!("{primary}?pageSize=2")).await,
        );
    } else {
        eprintln!("SKIPPED the schema check: no metrics-api.openapi.json");
    }

    // Refusals in the API's error format.
    api.get("/v2/subnets/nope/validators:getAddresses")
        .await
        .assert_error(400, "subnetId must be a cb58 subnet ID");
    api.get(&format!("{primary}?pageSize=5001"))
        .await
        .assert_error(400, "pageSize");
    api.get(&format!("{primary}?startTimestamp=9&endTimestamp=8"))
        .await
        .assert_error(400, "startTimestamp");
    api.get(&format!("{primary}?network=mainnet"))
        .await
        .assert_error(404, "not the network");
    api.get(&format!(
        "/v2/subnets/{}/validators:getAddresses",
        firn_core::ids::Id([9; 32])
    ))
    .await
    .assert_error(404, "not found");
    let token = api
        .get(&format!("{primary}?pageSize=1"))
        .await
        .next_token()
        .unwrap();
    api.get(&format!("{primary}?pageSize=2&pageToken={token}"))
        .await
        .assert_error(400, "different query");
}

/// BTC.b bridgers: net mints of the configured token on chain 43114, above a threshold, by
/// address.
pub async fn btcb_bridgers_above_a_threshold(store: Store) {
    const PATH: &str = "/v2/chains/43114/btcb/bridged:getAddresses";
    let btcb = evm_address(700);
    let config = firn_api::ApiConfig {
        btcb_token: btcb,
        ..firn_api::ApiConfig::default()
    };
    let api = Api::metrics_with_config(store.clone(), config);
    api.get(&format!("{PATH}?threshold=0"))
        .await
        .assert_error(404, "chain 43114 is not indexed");
    store.upsert_evm_chain(&evm_chain(43_114)).await.unwrap();
    let zero = Address::ZERO;
    let holder = |n| evm_address(n);
    // Bridged in: 1 → 500 then 300 more, 2 → 40, 3 → 900 (then out: 900), 4 → 2 000 of
    // another token; 1 bridges 100 out and sends 50 to 2.
    store
        .commit_evm_blocks(&[
            erc20_transfers_block(
                43_114,
                1,
                &[(btcb, zero, holder(1), 500), (btcb, zero, holder(2), 40)],
            ),
            erc20_transfers_block(
                43_114,
                2,
                &[
                    (btcb, zero, holder(3), 900),
                    (btcb, zero, holder(1), 300),
                    (evm_address(701), zero, holder(4), 2_000),
                ],
            ),
            erc20_transfers_block(
                43_114,
                3,
                &[
                    (btcb, holder(1), zero, 100),
                    (btcb, holder(1), holder(2), 50),
                    (btcb, holder(3), zero, 900),
                ],
            ),
        ])
        .await
        .unwrap();
    let entry = |n: u64, net: u64| json!({ "address": holder(n).to_checksum(None), "sortKey": net.to_string() });
    assert_eq!(
        api.all_pages(&format!("{PATH}?threshold=0"), "addresses", 1)
            .await,
        vec![entry(1, 700), entry(2, 40)],
        "by address, one a page; 3 bridged everything back"
    );
    let page = api.ok(&format!("{PATH}?threshold=40")).await;
    assert_eq!(page["addresses"], json!([entry(1, 700)]), "above, not at");
    assert!(page.get("nextPageToken").is_none(), "{page}");
    assert_eq!(
        api.ok(&format!("{PATH}?threshold=700")).await["addresses"],
        json!([])
    );
    if let Some(doc) = crate::metrics_v2::official_metrics_doc() {
        let page = api.ok(&format!("{PATH}?threshold=1&pageSize=1")).await;
        assert!(page["nextPageToken"].is_string(), "{page}");
        assert_valid(&doc, "get", PATH, &page);
    } else {
        eprintln!("SKIPPED the schema check: no metrics-api.openapi.json");
    }
    // Refusals in the API's error format.
    api.get(PATH)
        .await
        .assert_error(400, "threshold is required");
    for bad in ["-1", "1.5", "0x10", "1e3"] {
        api.get(&format!("{PATH}?threshold={bad}"))
            .await
            .assert_error(400, "threshold must be a non-negative integer");
    }
    api.get(&format!("{PATH}?threshold=1&pageSize=5001"))
        .await
        .assert_error(400, "pageSize");
    let token = api
        .get(&format!("{PATH}?threshold=0&pageSize=1"))
        .await
        .next_token()
        .unwrap();
    api.get(&format!("{PATH}?threshold=1&pageSize=1&pageToken={token}"))
        .await
        .assert_error(400, "different query");
}
