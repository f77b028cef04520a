//! The Metrics API's L1 validator fee metrics: daily and cumulative fees and paying validators,
//! for every validator, one validation, one node and one L1, from the fee ledger the fixture
//! commits with a block.

use firn_core::calendar::DAY;
use firn_core::ids::Id;
use firn_core::network::P_CHAIN_ID;
use firn_store::rows::l1_fees::{L1FeeChanges, L1FeeDay, LedgerState};
use firn_store::{PChainWriter, Store};
use serde_json::{Value, json};

use crate::fixtures::{World, id, node, pblock, seed};
use crate::harness::Api;
use crate::schema::assert_valid;

/// The days the fixture's fees fall on: two days before the ledger's day, and its day.
pub struct FeeDays {
    pub today: u64,
    pub subnet: Id,
}

/// Commits a block whose ledger says the fixture L1's validators 0 (node 10) and 1 (node 11)
/// paid 100 and 200 two days before the block's day, and validator 0 paid 40 on the day.
pub async fn seed_fees(store: &Store, world: &World) -> FeeDays {
    let height = world.p.height + 1;
    let ts = world.p.ts + 1;
    let today = ts - ts % DAY;
    let paid = |v: u64, day: u64, fee: u64| L1FeeDay {
        validation_id: id(0x68, v),
        subnet_id: world.subnet,
        node_id: node(10 + v),
        day,
        fee,
    };
    let mut block = pblock(height, ts, Vec::new());
    block.l1_fees = Some(L1FeeChanges {
        state: LedgerState {
            time: ts,
            excess: 0,
            accrued: 340,
        },
        active: Vec::new(),
        inactive: Vec::new(),
        days: vec![
            paid(0, today - 2 * DAY, 100),
            paid(1, today - 2 * DAY, 200),
            paid(0, today, 40),
        ],
    });
    store.commit_pchain_blocks(&[block]).await.unwrap();
    FeeDays {
        today,
        subnet: world.subnet,
    }
}

/// `[(timestamp, value)]`, newest first, as the API answers.
fn series(points: &[(u64, u64)]) -> Value {
    json!({
        "results": points
            .iter()
            .map(|(t, v)| json!({ "value": *v as f64, "timestamp": t }))
            .collect::<Vec<_>>()
    })
}

pub async fn l1_validator_fee_metrics(store: Store) {
    let api = Api::metrics(store.clone());
    let world = seed(&store, 2, 0).await;
    // Before the ledger exists every series is empty.
    assert_eq!(
        api.ok("/v2/validators/metrics/totalValidatorFeesDaily")
            .await,
        json!({ "results": [] })
    );
    let FeeDays { today: d, subnet } = seed_fees(&store, &world).await;
    let (d1, d2) = (d - DAY, d - 2 * DAY);
    let v0 = id(0x68, 0);
    let v1 = id(0x68, 1);
    let cases = [
        (
            "/v2/validators/metrics/totalValidatorFeesDaily".to_owned(),
            [40, 0, 300],
        ),
        (
            "/v2/validators/metrics/totalCumulativeFeesDaily".to_owned(),
            [340, 300, 300],
        ),
        (
            "/v2/validators/metrics/totalPayingValidatorsDaily".to_owned(),
            [1, 0, 2],
        ),
        (
            format!("/v2/validation/{v1}/metrics/validationFeesDaily"),
            [0, 0, 200],
        ),
        (
            format!("/v2/validation/{v0}/metrics/validationCumulativeFeesDaily"),
            [140, 100, 100],
        ),
        (
            format!("/v2/validator/{}/metrics/perNodeDailyFeesPaid", node(10)),
            [40, 0, 100],
        ),
        (
            format!(
                "/v2/validator/{}/metrics/perNodeCumulativeFeesPaid",
                node(11)
            ),
            [200, 200, 200],
        ),
        (
            format!("/v2/subnet/{subnet}/metrics/perSubnetDailyFeesPaid"),
            [40, 0, 300],
        ),
        (
            format!("/v2/subnet/{subnet}/metrics/perSubnetCumulativeFeesPaid"),
            [340, 300, 300],
        ),
        (
            format!("/v2/subnet/{subnet}/metrics/perSubnetPayingValidators"),
            [1, 0, 2],
        ),
    ];
    for (path, [a, b, c]) in &cases {
        assert_eq!(
            api.ok(path).await,
            series(&[(d, *a), (d1, *b), (d2, *c)]),
            "{path}"
        );
    }
    // The time frame: days starting within it; a cumulative series keeps what came before.
    let path = "/v2/validators/metrics/totalCumulativeFeesDaily";
    assert_eq!(
        api.ok(&format!("{path}?startTimestamp={}", d2 + 1)).await,
        series(&[(d, 340), (d1, 300)])
    );
    assert_eq!(
        api.ok(&format!(
            "{path}?startTimestamp={d1}&endTimestamp={}",
            d - 1
        ))
        .await,
        series(&[(d1, 300)])
    );
    assert_eq!(
        api.ok(&format!("{path}?endTimestamp={}", d2 - 1)).await,
        series(&[])
    );
    // Nothing paid: a node without validations, the primary network.
    assert_eq!(
        api.ok(&format!(
            "/v2/validator/{}/metrics/perNodeDailyFeesPaid",
            node(99)
        ))
        .await,
        series(&[])
    );
    assert_eq!(
        api.ok(&format!(
            "/v2/subnet/{P_CHAIN_ID}/metrics/perSubnetDailyFeesPaid"
        ))
        .await,
        series(&[])
    );

    if let Some(doc) = crate::metrics_v2::official_metrics_doc() {
        for (template, path) in [
            ("/v2/validators/metrics/{metric}", &cases[0].0),
            (
                "/v2/validation/{l1ValidationId}/metrics/{metric}",
                &cases[3].0,
            ),
            ("/v2/validator/{nodeId}/metrics/{metric}", &cases[5].0),
            ("/v2/subnet/{subnetId}/metrics/{metric}", &cases[7].0),
        ] {
            assert_valid(&doc, "get", template, &api.ok(path).await);
        }
    } else {
        eprintln!("SKIPPED the schema check: no metrics-api.openapi.json");
    }

    // Refusals in the API's error format.
    api.get("/v2/validators/metrics/feesPaid")
        .await
        .assert_error(
            400,
            "metric must be one of the following values: totalCumulativeFeesDaily",
        );
    api.get(&format!("{path}?startTimestamp=9&endTimestamp=8"))
        .await
        .assert_error(400, "startTimestamp");
    api.get("/v2/validation/nope/metrics/validationFeesDaily")
        .await
        .assert_error(400, "l1ValidationId must be a cb58 validation ID");
    api.get(&format!(
        "/v2/validation/{}/metrics/validationFeesDaily",
        Id([9; 32])
    ))
    .await
    .assert_error(404, "not found");
    api.get("/v2/validator/NodeID-nope/metrics/perNodeDailyFeesPaid")
        .await
        .assert_error(400, "nodeId");
    api.get(&format!(
        "/v2/validator/{}/metrics/validationFeesDaily",
        node(10)
    ))
    .await
    .assert_error(
        400,
        "metric must be one of the following values: perNodeCumulativeFeesPaid",
    );
    api.get("/v2/subnet/nope/metrics/perSubnetDailyFeesPaid")
        .await
        .assert_error(400, "subnetId must be a cb58 subnet ID");
    api.get(&format!(
        "/v2/subnet/{}/metrics/perSubnetDailyFeesPaid",
        Id([9; 32])
    ))
    .await
    .assert_error(404, "not found");
}
