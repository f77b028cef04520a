//! The Metrics API's Looking Glass: the reward addresses of a subnet's validators over a time
//! frame, checked against the stakers the fixture wrote.

use firn_core::network::P_CHAIN_ID;
use firn_store::Store;
use serde_json::{Value, json};

use crate::fixtures::seed;
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
