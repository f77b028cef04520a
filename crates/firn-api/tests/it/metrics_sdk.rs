//! The official chainkit SDK (`@avalanche-sdk/chainkit`, pinned in
//! `crates/firn/tests/js/metrics`) calls its Metrics API methods against a firn Metrics API
//! server on loopback over a filled SQLite store: no errors, response validation included,
//! and the values the SDK parsed are the blocks' values. Skipped, saying so, without node.

use std::path::PathBuf;
use std::process::Command;

use firn_api::metrics_api::{MetricsState, serve_metrics};
use firn_api::{ApiConfig, AppState};
use firn_store::types::Address;
use firn_store::{EvmWriter, Store};
use tokio::net::TcpListener;

use crate::fixtures::{CHAIN, erc20_transfers_block, evm_address, evm_chain, id, node, seed};
use crate::metrics_history::{DAY, History, assert_close, metrics_api};
use crate::metrics_l1_fees::seed_fees;

fn script_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../firn/tests/js/metrics")
}

/// Installs the pinned SDK when missing; `false` (with a message) when node or npm cannot.
fn node_ready() -> bool {
    let dir = script_dir();
    if Command::new("node").arg("--version").output().is_err() {
        eprintln!("SKIPPED metrics_sdk: node is not installed");
        return false;
    }
    if dir.join("node_modules/@avalanche-sdk/chainkit").exists() {
        return true;
    }
    let installed = Command::new("npm")
        .args(["ci", "--ignore-scripts", "--no-audit", "--no-fund"])
        .current_dir(&dir)
        .status()
        .is_ok_and(|s| s.success());
    if !installed {
        eprintln!("SKIPPED metrics_sdk: `npm ci` failed in {}", dir.display());
    }
    installed
}

/// Runs `metrics.mjs` with `env` against a Metrics API over `store`; its report, after
/// checking that no call failed.
async fn run_script(store: &Store, env: Vec<(&'static str, String)>) -> serde_json::Value {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let state = MetricsState::new(AppState::new(store.clone(), ApiConfig::default()));
    let server = tokio::spawn(serve_metrics(listener, state, async {
        let _ = stopped.await;
    }));
    let output = tokio::task::spawn_blocking(move || {
        Command::new("node")
            .arg("metrics.mjs")
            .current_dir(script_dir())
            .env("FIRN_METRICS_URL", url)
            .envs(env)
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    let _ = stop.send(());
    server.await.unwrap().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let report: serde_json::Value = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|_| panic!("sdk script output: {stdout}\n{stderr}"));
    assert_eq!(report["errors"], serde_json::json!([]), "{stderr}");
    assert!(output.status.success());
    report
}

async fn sdk_sees_the_blocks(store: Store) {
    let (_, history, _) = metrics_api(&store).await;
    let world = seed(&store, 2, 0).await;
    let fees = seed_fees(&store, &world).await;
    let env = vec![
        ("FIRN_CHAIN_ID", CHAIN.to_string()),
        ("FIRN_L1_VALIDATION_ID", id(0x68, 0).to_string()),
        ("FIRN_L1_NODE_ID", node(11).to_string()),
        ("FIRN_L1_SUBNET_ID", fees.subnet.to_string()),
    ];
    let report = run_script(&store, env).await;
    check(&report, &history);
    check_l1_fees(&report, fees.today);
}

/// BTC.b bridged to chain 43114 (the default token): 1 200 to one address, 30 to another.
async fn sdk_sees_btcb_bridgers(store: Store) {
    store.upsert_evm_chain(&evm_chain(43_114)).await.unwrap();
    let (btcb, zero) = (firn_api::BTCB_MAINNET, Address::ZERO);
    let (a, b) = (evm_address(1), evm_address(2));
    store
        .commit_evm_blocks(&[erc20_transfers_block(
            43_114,
            1,
            &[(btcb, zero, a, 1_200), (btcb, zero, b, 30)],
        )])
        .await
        .unwrap();
    let report = run_script(&store, vec![("FIRN_BTCB_THRESHOLD", "0".to_owned())]).await;
    let bridgers = &report["chains.listBTCbBridgersAboveThreshold"];
    assert_eq!(bridgers["pages"], 2, "one a page: {bridgers}");
    assert_eq!(
        bridgers["items"],
        serde_json::json!([
            { "address": a.to_checksum(None), "sortKey": "1200" },
            { "address": b.to_checksum(None), "sortKey": "30" },
        ])
    );
}

/// The L1 validator fees the SDK parsed: the fixture's days, newest first.
fn check_l1_fees(report: &serde_json::Value, today: u64) {
    let days = [today, today - DAY, today - 2 * DAY];
    for (name, values) in [
        ("listMetrics:totalValidatorFeesDaily", [40, 0, 300]),
        ("listMetrics:totalCumulativeFeesDaily", [340, 300, 300]),
        ("listMetrics:totalPayingValidatorsDaily", [1, 0, 2]),
        ("getMetricsByValidationId:validationFeesDaily", [40, 0, 100]),
        (
            "getMetricsByValidationId:validationCumulativeFeesDaily",
            [140, 100, 100],
        ),
        ("getMetricsByNodeId:perNodeDailyFeesPaid", [0, 0, 200]),
        (
            "getMetricsByNodeId:perNodeCumulativeFeesPaid",
            [200, 200, 200],
        ),
        ("getMetricsBySubnetId:perSubnetDailyFeesPaid", [40, 0, 300]),
        (
            "getMetricsBySubnetId:perSubnetCumulativeFeesPaid",
            [340, 300, 300],
        ),
        ("getMetricsBySubnetId:perSubnetPayingValidators", [1, 0, 2]),
    ] {
        let want: Vec<serde_json::Value> = days
            .iter()
            .zip(values)
            .map(|(t, v)| serde_json::json!({ "value": v, "timestamp": t }))
            .collect();
        assert_eq!(
            report[format!("l1Validators.{name}")],
            serde_json::Value::Array(want),
            "{name} via the SDK"
        );
    }
}

fn check(report: &serde_json::Value, history: &History) {
    assert_eq!(report["healthCheck"]["status"], "ok");
    assert_eq!(report["liveCheck"]["status"], "ok");
    assert_eq!(report["list"][0]["evmChainId"], CHAIN);
    assert_eq!(report["get"]["evmChainId"], CHAIN);
    let tx = &report["getMetrics:txCount"];
    let days = history.days_desc();
    assert_eq!(tx["pages"], days.len().div_ceil(7) as u64);
    let items = tx["items"].as_array().unwrap();
    assert_eq!(items.len(), days.len());
    for (item, day) in items.iter().zip(&days) {
        assert_eq!(item["timestamp"], *day);
        assert_close(
            item["value"].as_f64().unwrap(),
            history.tx_count(*day, day + DAY),
            "txCount via the SDK",
        );
    }
    assert_close(
        report["getRollingWindowMetrics"]["allTime"]
            .as_f64()
            .unwrap(),
        history.tx_count(0, u64::MAX),
        "allTime via the SDK",
    );
    // One chain indexed: the network-wide series and windows are its own.
    assert_eq!(
        report["getMetrics:txCount:total"],
        report["getMetrics:txCount"]
    );
    assert_eq!(
        report["getRollingWindowMetrics:total"],
        report["getRollingWindowMetrics"]
    );
    let senders = &report["getRollingWindowMetrics:activeSenders"];
    let tip = history.last_ts();
    let hour_start = |secs: u64| {
        let t = tip - (secs - 1);
        t - t % 3_600
    };
    for (field, from) in [
        ("lastHour", hour_start(3_600)),
        ("lastDay", hour_start(DAY)),
        ("lastWeek", hour_start(7 * DAY)),
        ("allTime", 0),
    ] {
        assert_close(
            senders[field].as_f64().unwrap(),
            history.active_senders(from, u64::MAX),
            &format!("activeSenders {field} via the SDK"),
        );
    }
    assert!(report["getStakingMetrics"]["pages"].as_u64().unwrap() >= 1);
    // The fixture's three primary-network validators, one per page.
    let validators = &report["subnets.getValidators"];
    assert_eq!(validators["pages"], 3, "{validators}");
    for v in validators["items"].as_array().unwrap() {
        assert_eq!(v["addresses"].as_array().unwrap().len(), 1, "{v}");
        assert!(v["sortKey"].as_str().unwrap().parse::<u64>().is_ok(), "{v}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chainkit_metrics_methods_validate() {
    if !node_ready() {
        return;
    }
    crate::harness::sqlite(sdk_sees_the_blocks).await;
    crate::harness::sqlite(sdk_sees_btcb_bridgers).await;
}
