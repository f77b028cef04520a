//! The whole platform end to end, as a user runs it, with the official clients:
//!
//! 1. `firn up` in the background with a small history, then the Data API SDK suite
//!    (`tests/js/data-api`), the Metrics API checks (`tests/js/metrics`), an aggregation through
//!    chainkit's signature aggregator (`tests/js/aggregator`) and the node-RPC client checks
//!    with avalanchejs (`tests/js/pchain`);
//! 2. the scale-out deployment: `firn devnet` over a data dir with generated history,
//!    `firn index --database postgres://…` and two `firn serve --database postgres://…
//!    --rpc <devnet>` sharing one fresh PostgreSQL database, each `serve` running the Data
//!    API suite, the Metrics API checks and the chainkit aggregation (its validators asked
//!    through the devnet's RPC), then the node-RPC checks against the devnet; then an
//!    `address_activity` webhook made through one `serve`, delivered once per event while both
//!    run, and taken over by the other when its holder is killed with `kill -9`.
//!
//! Each test skips, saying why, when node is missing (or, for the second, PostgreSQL).
//! The values the suites compare come from the node's RPC (heights, chains, keys).

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::devnet::{Running, TempDir, call, post_json, start_firn, stop};
use crate::up::{banner_value, get_json, wait_for};

/// History small enough for a test, big enough for two pages of every list.
const HISTORY: [&str; 8] = [
    "--days",
    "4",
    "--transfers-per-day",
    "12",
    "--evm-txs-per-day",
    "72",
    "--seed",
    "firn-e2e",
];

fn temp(name: &str) -> TempDir {
    crate::devnet::temp_dir(&format!("e2e-{name}"))
}

fn node_runs() -> bool {
    Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// A node project under `tests/js`, its dependencies installed from its lock file.
fn js_project(name: &str, marker: &str) -> PathBuf {
    crate::js::project(name, &[marker])
}

/// Runs `node script` in the project with `envs`; its stdout, after asserting it succeeded.
fn node(project: &str, marker: &str, script: &str, envs: &[(&str, String)]) -> String {
    let dir = js_project(project, marker);
    let out = Command::new("node")
        .arg(script)
        .current_dir(&dir)
        .envs(envs.iter().map(|(k, v)| (*k, v.as_str())))
        .output()
        .expect("running node");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{project}/{script} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// The devnet's funded keys (`firn keys --json`) for `seed`.
fn keys(seed: &str) -> Vec<Value> {
    let out = Command::new(env!("CARGO_BIN_EXE_firn"))
        .args(["keys", "--json", "--count", "4", "--seed", seed])
        .output()
        .expect("running firn keys");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice::<Value>(&out.stdout)
        .expect("firn keys --json")
        .as_array()
        .expect("a key list")
        .clone()
}

fn p_height(rpc: &str) -> u64 {
    call(rpc, "/ext/bc/P", "platform.getHeight", json!({}))["height"]
        .as_str()
        .and_then(|h| h.parse().ok())
        .expect("a height")
}

/// The generated L1's chain, from the node.
fn l1_chain(rpc: &str) -> Value {
    call(rpc, "/ext/bc/P", "platform.getBlockchains", json!({}))["blockchains"]
        .as_array()
        .expect("blockchains")
        .iter()
        .find(|c| c["name"] == "FirnL1")
        .cloned()
        .expect("the FirnL1 chain")
}

/// Waits until the Data API behind `api` has indexed the node's P-Chain up to `height`.
fn wait_indexed(api: &str, height: u64) {
    wait_for(|| {
        let page = get_json(&format!(
            "{api}/v1/networks/fuji/blockchains/p-chain/blocks?pageSize=1"
        ))?;
        let newest: u64 = page["blocks"].get(0)?["blockNumber"]
            .as_str()?
            .parse()
            .ok()?;
        (newest >= height).then_some(())
    });
}

/// Waits until the Data API holds the C-Chain up to the node's head at the time of asking.
fn wait_evm_indexed(api: &str, rpc: &str) {
    let head = call(rpc, "/ext/bc/C/rpc", "eth_blockNumber", json!([]));
    let head = u64::from_str_radix(
        head.as_str().expect("a quantity").trim_start_matches("0x"),
        16,
    )
    .expect("a hex quantity");
    wait_for(|| {
        let page = get_json(&format!("{api}/v1/chains/43113/blocks?pageSize=1"))?;
        let newest: u64 = page["blocks"].get(0)?["blockNumber"]
            .as_str()?
            .parse()
            .ok()?;
        (newest >= head).then_some(())
    });
}

/// The C-Chain addresses the history made busiest, read from the node's logs: the one in the
/// most ERC-20 transfers, the one in the most ERC-721 transfers, and the one holding the most
/// collectibles (ERC-721 tokens, ERC-1155 ids) now, with how many: the suite checks the Data
/// API lists exactly those, and pages through each list.
struct Busiest {
    erc20: String,
    erc721: String,
    collector: String,
    /// How many collectibles `collector` holds.
    collectibles: u32,
}

fn busiest_token_holders(rpc: &str) -> Busiest {
    use std::collections::HashMap;
    const ZERO: &str = "0x0000000000000000000000000000000000000000";
    let transfer = format!(
        "0x{}",
        hex::encode(firn_core::evm::event_topic(
            "Transfer(address,address,uint256)"
        ))
    );
    let logs = call(
        rpc,
        "/ext/bc/C/rpc",
        "eth_getLogs",
        json!([{ "fromBlock": "0x0", "toBlock": "latest", "topics": [transfer] }]),
    );
    let topic_address = |t: &Value| format!("0x{}", &t.as_str().expect("a topic")[26..]);
    let mut erc20: HashMap<String, u32> = HashMap::new();
    let mut erc721: HashMap<String, u32> = HashMap::new();
    let mut owners: HashMap<(String, String), String> = HashMap::new();
    for log in logs.as_array().expect("logs") {
        let topics = log["topics"].as_array().expect("topics");
        let (from, to) = (topic_address(&topics[1]), topic_address(&topics[2]));
        let counts = if topics.len() == 4 {
            &mut erc721
        } else {
            &mut erc20
        };
        for a in [&from, &to] {
            if a != ZERO {
                *counts.entry(a.clone()).or_default() += 1;
            }
        }
        if topics.len() == 4 {
            let token = (log["address"].to_string(), topics[3].to_string());
            owners.insert(token, to);
        }
    }
    // ERC-1155 balances by (contract, id), from TransferSingle and TransferBatch.
    let mut balances: HashMap<(String, String, u128), i128> = HashMap::new();
    let topic = |event: &str| format!("0x{}", hex::encode(firn_core::evm::event_topic(event)));
    let (single, batch) = (
        topic("TransferSingle(address,address,address,uint256,uint256)"),
        topic("TransferBatch(address,address,address,uint256[],uint256[])"),
    );
    let logs = call(
        rpc,
        "/ext/bc/C/rpc",
        "eth_getLogs",
        json!([{ "fromBlock": "0x0", "toBlock": "latest", "topics": [[single.clone(), batch]] }]),
    );
    for log in logs.as_array().expect("logs") {
        let topics = log["topics"].as_array().expect("topics");
        let (from, to) = (topic_address(&topics[2]), topic_address(&topics[3]));
        let data = hex::decode(log["data"].as_str().expect("data").trim_start_matches("0x"))
            .expect("hex data");
        let word =
            |i: usize| u128::from_be_bytes(data[i * 32 + 16..i * 32 + 32].try_into().unwrap());
        let moves: Vec<(u128, u128)> = if topics[0].as_str() == Some(single.as_str()) {
            vec![(word(0), word(1))]
        } else {
            let (ids, values) = (word(0) as usize / 32, word(1) as usize / 32);
            (0..word(ids) as usize)
                .map(|i| (word(ids + 1 + i), word(values + 1 + i)))
                .collect()
        };
        let contract = log["address"].to_string();
        for (id, value) in moves {
            *balances
                .entry((contract.clone(), from.clone(), id))
                .or_default() -= value as i128;
            *balances
                .entry((contract.clone(), to.clone(), id))
                .or_default() += value as i128;
        }
    }
    let mut held: HashMap<String, u32> = HashMap::new();
    let holders_1155 = balances
        .into_iter()
        .filter(|(_, b)| *b > 0)
        .map(|((_, owner, _), _)| owner);
    for owner in owners
        .into_values()
        .chain(holders_1155)
        .filter(|o| o != ZERO)
    {
        *held.entry(owner).or_default() += 1;
    }
    let top = |m: &HashMap<String, u32>, what: &str| {
        m.iter()
            .max_by_key(|(a, n)| (**n, std::cmp::Reverse((*a).clone())))
            .map(|(a, _)| a.clone())
            .unwrap_or_else(|| panic!("the history made no {what}"))
    };
    Busiest {
        erc20: top(&erc20, "ERC-20 transfers"),
        erc721: top(&erc721, "ERC-721 transfers"),
        collectibles: held[&top(&held, "ERC-721 or ERC-1155 holdings")],
        collector: top(&held, "ERC-721 or ERC-1155 holdings"),
    }
}

/// The SDK suite's context for a live devnet: addresses by role (the history's key 1 stakes,
/// key 2 delegates and earns rewards, key 3 sends transfers), the node's height, validators
/// and L1 chain. Totals the node cannot tell are left out.
fn live_context(rpc: &str, api: &str, seed: &str) -> Value {
    let keys = keys(seed);
    let bare = |k: &Value| {
        k["pChainAddress"]
            .as_str()
            .and_then(|a| a.strip_prefix("P-"))
            .expect("a P-Chain address")
            .to_owned()
    };
    let l1 = l1_chain(rpc);
    // The devnet's blocks name no proposer (there is no proposervm): blocks by node ID are
    // asked for a current validator, and come back as one empty page.
    let validators = call(rpc, "/ext/bc/P", "platform.getCurrentValidators", json!({}));
    let node_id = validators["validators"][0]["nodeID"].clone();
    let proposers = get_json(&format!(
        "{api}/v1/networks/fuji/blockchains/p-chain/blocks?pageSize=10"
    ))
    .expect("the Data API's blocks")["blocks"]
        .as_array()
        .expect("blocks")
        .iter()
        .any(|b| b.get("proposerDetails").is_some());
    // The height the newest block must reach, indexed before the suite runs.
    let height = p_height(rpc);
    wait_indexed(api, height);
    let mut ctx = json!({
        "pAddress": bare(&keys[3]),
        "stakingAddress": bare(&keys[1]),
        "rewardAddress": bare(&keys[2]),
        "pHeight": height,
        "nodeId": node_id,
        "proposers": proposers,
        "blockchainId": l1["id"],
        "blockchainName": "FirnL1",
        "evm": true,
    });
    let c = |method: &str, params: Value| call(rpc, "/ext/bc/C/rpc", method, params);
    let first = c("eth_getBlockByNumber", json!(["0x1", true]));
    let deploy = first["transactions"][0]["hash"].clone();
    let receipt = c("eth_getTransactionReceipt", json!([deploy]));
    wait_evm_indexed(api, rpc);
    let busiest = busiest_token_holders(rpc);
    ctx["chainId"] = json!("43113");
    ctx["evmAddress"] = json!(busiest.erc20);
    ctx["erc721Address"] = json!(busiest.erc721);
    ctx["collector"] = json!(busiest.collector);
    ctx["collectibleCount"] = json!(busiest.collectibles);
    ctx["contract"] = receipt["contractAddress"].clone();
    ctx["contractTx"] = deploy;
    ctx
}

fn data_api_suite(api: &str, ctx: &Value) {
    let out = node(
        "data-api",
        // Its newest dependency: an install that has it has the rest.
        "@noble/hashes",
        "suite.mjs",
        &[
            ("FIRN_API_URL", api.to_owned()),
            ("FIRN_SDK_CONTEXT", ctx.to_string()),
        ],
    );
    eprintln!("{out}");
    assert!(out.contains(", 0 failures"), "{out}");
    assert!(
        !out.contains("skipped (evm: false)"),
        "every EVM step runs: {out}"
    );
}

/// The SDK suite that checks every Data API answer against the node's own RPC.
fn node_suite(api: &str, rpc: &str) {
    let out = node(
        "data-api",
        // Its newest dependency: an install that has it has the rest.
        "@noble/hashes",
        "node.mjs",
        &[
            ("FIRN_API_URL", api.to_owned()),
            ("FIRN_NODE_URL", rpc.to_owned()),
        ],
    );
    eprintln!("{out}");
    assert!(out.contains(", 0 failures"), "{out}");
}

/// The Teleporter messages the C-Chain and the L1 logged sending.
fn icm_messages_sent(rpc: &str) -> usize {
    let l1 = format!("/ext/bc/{}/rpc", l1_chain(rpc)["id"].as_str().unwrap());
    let topic = firn_core::evm::event_topic(firn_core::teleporter::signatures::SEND);
    ["/ext/bc/C/rpc", l1.as_str()]
        .iter()
        .map(|path| {
            let filter = json!([{
                "fromBlock": "0x0",
                "toBlock": "latest",
                "address": firn_core::teleporter::MESSENGER_V1.to_string(),
                "topics": [format!("0x{}", hex::encode(topic))],
            }]);
            call(rpc, path, "eth_getLogs", filter)
                .as_array()
                .unwrap()
                .len()
        })
        .sum()
}

fn metrics_suite(metrics: &str, rpc: &str) {
    let chain = "43113";
    let out = node(
        "metrics",
        "@avalanche-sdk/chainkit",
        "metrics.mjs",
        &[
            ("FIRN_METRICS_URL", metrics.to_owned()),
            ("FIRN_CHAIN_ID", chain.to_owned()),
        ],
    );
    let report: Value = serde_json::from_str(out.trim()).expect("the metrics report");
    assert_eq!(report["errors"], json!([]), "{report}");
    assert_eq!(report["healthCheck"]["status"], "ok", "{report}");
    // Validators joined during the history: the staking series has points.
    let points = report["getStakingMetrics"]["items"]
        .as_array()
        .expect("staking points");
    assert!(!points.is_empty(), "{report}");
    // ICM: the history's messages, counted as the chains logged them.
    let sent = icm_messages_sent(rpc) as f64;
    assert!(sent >= 4.0, "{sent} ICM messages in the history");
    assert_eq!(report["getICMSummary"]["allTime"], sent, "{report}");
    let by_source: f64 = report["getICMTimeseries"]
        .as_array()
        .expect("ICM points")
        .iter()
        .map(|p| p["value"].as_f64().unwrap())
        .sum();
    assert_eq!(by_source, sent, "{report}");
}

/// avalanchejs reads the node and issues a transfer, which the node builds.
fn pchain_client(rpc: &str, seed: &str) {
    let keys = keys(seed);
    let out = node(
        "pchain",
        "@avalabs/avalanchejs",
        "pchain.mjs",
        &[
            ("FIRN_URL", rpc.to_owned()),
            (
                "FIRN_PRIVATE_KEY",
                keys[0]["privateKeyHex"].as_str().unwrap().to_owned(),
            ),
            (
                "FIRN_TO",
                keys[1]["pChainAddress"].as_str().unwrap().to_owned(),
            ),
        ],
    );
    let seen: Value = serde_json::from_str(out.trim()).expect("the script's JSON line");
    let validators = call(rpc, "/ext/bc/P", "platform.getCurrentValidators", json!({}));
    assert_eq!(
        seen["validators"].as_u64(),
        Some(validators["validators"].as_array().unwrap().len() as u64),
        "{seen}"
    );
    assert_eq!(seen["from"], keys[0]["pChainAddress"]);
    assert!(
        seen["heightAfter"].as_u64() > seen["height"].as_u64(),
        "{seen}"
    );
}

/// The L1 conversion's Warp message, aggregated by chainkit through firn's Data API from the
/// devnet's validators, and fetched again by the conversion tx's hash.
fn aggregation(rpc: &str, api: &str) {
    use firn_core::ids::Id;
    use firn_core::warp::Message;
    use firn_core::warp::messages::{L1Message, SubnetToL1Conversion};

    let l1 = l1_chain(rpc);
    let subnet_id = l1["subnetID"].as_str().expect("the L1's subnet").to_owned();
    let subnet = call(
        rpc,
        "/ext/bc/P",
        "platform.getSubnet",
        json!({ "subnetID": subnet_id }),
    );
    let conversion: Id = subnet["conversionID"]
        .as_str()
        .and_then(|c| c.parse().ok())
        .expect("a converted subnet");
    // The conversion tx: the one in the first blocks naming the L1's manager address.
    let convert_tx = (1..=p_height(rpc).min(40))
        .find_map(|h| {
            let block = call(
                rpc,
                "/ext/bc/P",
                "platform.getBlockByHeight",
                json!({ "height": h.to_string(), "encoding": "json" }),
            );
            block["block"]["txs"].as_array()?.iter().find_map(|tx| {
                let u = &tx["unsignedTx"];
                (u["subnetID"] == subnet_id.as_str() && u.get("validators").is_some())
                    .then(|| tx["id"].as_str().map(str::to_owned))
                    .flatten()
            })
        })
        .expect("the ConvertSubnetToL1Tx");
    let network_id: u32 = call(rpc, "/ext/info", "info.getNetworkID", json!({}))["networkID"]
        .as_str()
        .and_then(|n| n.parse().ok())
        .expect("a network ID");
    let message = L1Message::SubnetToL1Conversion(SubnetToL1Conversion { id: conversion })
        .to_unsigned_message(network_id);
    let subnet_bytes: Id = subnet_id.parse().expect("a subnet ID");
    let out = node(
        "aggregator",
        "@avalanche-sdk/chainkit",
        "aggregator.mjs",
        &[
            ("FIRN_URL", api.to_owned()),
            ("MESSAGE", format!("0x{}", hex::encode(message.bytes()))),
            ("JUSTIFICATION", hex::encode(subnet_bytes.0)),
            ("TX_HASH", convert_tx),
            ("UNKNOWN_TX", Id([5; 32]).to_string()),
        ],
    );
    let out: Value = serde_json::from_str(out.trim()).expect("the aggregator's JSON");
    let signed = |what: &str| {
        let hex_str = out[what]["ok"]["signedMessage"]
            .as_str()
            .unwrap_or_else(|| panic!("{what}: {out}"));
        Message::from_bytes(&hex::decode(hex_str.trim_start_matches("0x")).unwrap()).unwrap()
    };
    let aggregated = signed("aggregate");
    assert_eq!(aggregated.unsigned, message);
    assert_eq!(signed("get"), aggregated);
    assert_eq!(out["unknownTx"]["error"]["statusCode"], 404, "{out}");
}

#[test]
fn firn_up_serves_the_official_clients() {
    if !node_runs() {
        eprintln!("SKIPPED firn_up_serves_the_official_clients: node is not installed");
        return;
    }
    let dir = temp("up");
    let mut flags = vec![
        "--quiet-chain",
        "--api-addr",
        "127.0.0.1:0",
        "--metrics-addr",
        "127.0.0.1:0",
    ];
    flags.extend(HISTORY);
    let up = start_firn("up", dir.path(), &flags);
    let api = banner_value(&up.banner, "Data API     ");
    let metrics = banner_value(&up.banner, "Metrics API  ");
    wait_indexed(&api, p_height(&up.url));

    let ctx = live_context(&up.url, &api, "firn-e2e");
    data_api_suite(&api, &ctx);
    metrics_suite(&metrics, &up.url);
    aggregation(&up.url, &api);
    pchain_client(&up.url, "firn-e2e");
    stop(up);
}

/// A fresh PostgreSQL database for one test, dropped when done; `None` (after saying why)
/// when the server or `psql` is not there.
struct Database {
    name: String,
}

const PG: [&str; 6] = ["-h", "127.0.0.1", "-U", "postgres", "-d", "test"];

impl Database {
    fn create() -> Option<Self> {
        let name = format!("firn_e2e_{}", std::process::id());
        let ran = Command::new("psql")
            .args(PG)
            .args(["-c", &format!("DROP DATABASE IF EXISTS {name}")])
            .args(["-c", &format!("CREATE DATABASE {name}")])
            .output();
        match ran {
            Ok(out) if out.status.success() => Some(Self { name }),
            Ok(out) => {
                eprintln!(
                    "SKIPPED scale-out e2e: PostgreSQL at 127.0.0.1:5432 is not reachable: {}",
                    String::from_utf8_lossy(&out.stderr).trim()
                );
                None
            }
            Err(e) => {
                eprintln!("SKIPPED scale-out e2e: psql is not installed ({e})");
                None
            }
        }
    }

    fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:5432/{}", self.name)
    }
}

impl Drop for Database {
    fn drop(&mut self) {
        let _ = Command::new("psql")
            .args(PG)
            .args([
                "-c",
                &format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name),
            ])
            .output();
    }
}

/// A background `firn` process, stopped with SIGINT when dropped.
struct Process(Child);

impl Drop for Process {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-INT", &self.0.id().to_string()])
            .status();
        let _ = self.0.wait();
    }
}

/// `firn serve` on free ports, aggregating signatures through the node at `rpc`; its Data
/// API and Metrics API URLs.
fn serve(database: &str, rpc: &str) -> (Running, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_firn"))
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--metrics-listen",
            "127.0.0.1:0",
            "--database",
            database,
            "--rpc",
            rpc,
            // The test's webhook receiver listens on loopback.
            "--webhook-private-targets",
        ])
        // Behind one load balancer, every process signs page tokens with one secret.
        .env("FIRN_PAGE_TOKEN_SECRET", "e2e-shared-secret")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("running firn serve");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut banner = Vec::new();
    let url = loop {
        let line = lines
            .next()
            .expect("firn serve exited before listening")
            .unwrap();
        banner.push(line.clone());
        if let Some(url) = line.strip_prefix("Listening on ") {
            break url.to_owned();
        }
    };
    let metrics = banner_value(&banner, "Metrics API: ");
    (Running { child, url, banner }, metrics)
}

#[test]
fn devnet_index_and_two_serves_on_postgres_serve_the_official_clients() {
    if !node_runs() {
        eprintln!("SKIPPED scale-out e2e: node is not installed");
        return;
    }
    let Some(db) = Database::create() else {
        return;
    };
    // History first, by `firn up` on its own data dir; then the devnet serves that chain.
    let dir = temp("scale");
    let mut flags = vec![
        "--quiet-chain",
        "--api-addr",
        "127.0.0.1:0",
        "--metrics-addr",
        "127.0.0.1:0",
    ];
    flags.extend(HISTORY);
    stop(start_firn("up", dir.path(), &flags));
    let devnet = start_firn("devnet", dir.path(), &["--seed", "firn-e2e"]);

    let indexer = Process(
        Command::new(env!("CARGO_BIN_EXE_firn"))
            .args(["index", "--rpc", &devnet.url, "--database", &db.url()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("running firn index"),
    );
    let (first, first_metrics) = serve(&db.url(), &devnet.url);
    let (second, second_metrics) = serve(&db.url(), &devnet.url);
    let height = p_height(&devnet.url);
    wait_indexed(&first.url, height);

    let ctx = live_context(&devnet.url, &first.url, "firn-e2e");
    for (api, metrics) in [(&first.url, &first_metrics), (&second.url, &second_metrics)] {
        data_api_suite(api, &ctx);
        metrics_suite(metrics, &devnet.url);
        // Each API process aggregates through the devnet's RPC (`--rpc`).
        aggregation(&devnet.url, api);
    }
    // What PostgreSQL holds, against the node.
    node_suite(&first.url, &devnet.url);
    pchain_client(&devnet.url, "firn-e2e");
    // Behind a load balancer, a page token one process issued is good on the other.
    for (first, second, path) in [
        (
            &first.url,
            &second.url,
            "/v1/networks/fuji/blockchains/p-chain/transactions?pageSize=2",
        ),
        (
            &first_metrics,
            &second_metrics,
            "/v2/chains/43113/metrics/txCount?timeInterval=hour&pageSize=2",
        ),
    ] {
        let (_, page) = crate::data_api::get(first, path);
        let token = page["nextPageToken"]
            .as_str()
            .expect("a next page")
            .to_owned();
        let next = format!("{path}&pageToken={token}");
        let (status, from_second) = crate::data_api::get(second, &next);
        assert!(status.contains(" 200 "), "{path}: {status} {from_second}");
        let (_, from_first) = crate::data_api::get(first, &next);
        // The Metrics API's tokens carry their issue time: answers a second apart differ there.
        let without_token = |mut page: Value| {
            let token = page.as_object_mut().and_then(|o| o.remove("nextPageToken"));
            (page, token.is_some())
        };
        assert_eq!(
            without_token(from_second),
            without_token(from_first),
            "{path}"
        );
        // A forged token is a 400 in the API's own error format, never a 500.
        let forged = format!("{path}&pageToken={}", "A".repeat(token.len()));
        let (status, body) = crate::data_api::get(second, &forged);
        assert!(status.contains(" 400 "), "{path}: {status} {body}");
    }
    // The indexer follows the transfer, and both API processes see it in the shared store.
    wait_indexed(&first.url, height + 1);
    wait_indexed(&second.url, height + 1);

    let survivor = webhooks_survive_their_holder(&devnet, first, second);
    stop(survivor);
    drop(indexer);
    stop(devnet);
}

/// The address the scale-out webhook watches.
const WATCHED: &str = "0x00000000000000000000000000000000c0ffee02";

/// A webhook delivery: its JSON body, and which `firn serve` (by process ID) posted it.
struct Delivery {
    body: Value,
    from: Option<u32>,
}

impl Delivery {
    fn message_id(&self) -> &str {
        self.body["messageId"].as_str().expect("a messageId")
    }

    fn tx_hash(&self) -> &str {
        self.body["event"]["transaction"]["txHash"]
            .as_str()
            .expect("a txHash")
    }
}

/// A webhook receiver on loopback: reads each POST, answers `200 OK`, and passes the body on
/// with the process among `pids` that sent it. Its URL and the deliveries.
fn receiver(pids: [u32; 2]) -> (String, mpsc::Receiver<Delivery>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            // A poster killed mid-request sends nothing whole: skip it.
            let Some(body) = read_post(&stream) else {
                continue;
            };
            // The sender still waits for the answer, so its socket is still open.
            let from = stream
                .peer_addr()
                .ok()
                .and_then(|peer| process_of(peer.port(), port, &pids));
            let _ = stream
                .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
            if tx.send(Delivery { body, from }).is_err() {
                return;
            }
        }
    });
    (format!("http://127.0.0.1:{port}/hook"), rx)
}

/// One HTTP/1.1 request's JSON body (headers, then `Content-Length` bytes).
fn read_post(stream: &TcpStream) -> Option<Value> {
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .ok()?;
    let mut reader = BufReader::new(stream);
    let mut length = 0;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().ok()?;
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

/// The process among `pids` holding the loopback TCP connection from `from_port` to
/// `to_port`, found through Linux's `/proc`.
fn process_of(from_port: u16, to_port: u16, pids: &[u32]) -> Option<u32> {
    let port = |address: &str| u16::from_str_radix(address.rsplit(':').next()?, 16).ok();
    let table = std::fs::read_to_string("/proc/net/tcp").ok()?;
    let inode = table.lines().skip(1).find_map(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        if port(fields.get(1)?)? == from_port && port(fields.get(2)?)? == to_port {
            fields.get(9).map(|i| format!("socket:[{i}]"))
        } else {
            None
        }
    })?;
    pids.iter().copied().find(|pid| {
        std::fs::read_dir(format!("/proc/{pid}/fd"))
            .into_iter()
            .flatten()
            .flatten()
            .any(|fd| {
                std::fs::read_link(fd.path()).is_ok_and(|l| l.to_str() == Some(inode.as_str()))
            })
    })
}

/// Reads deliveries into `seen` until every hash of `want` arrived, for up to 90 s.
fn wait_for_hashes(rx: &mpsc::Receiver<Delivery>, seen: &mut Vec<Delivery>, want: &[String]) {
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        let got: BTreeSet<&str> = seen.iter().map(Delivery::tx_hash).collect();
        if want.iter().all(|h| got.contains(h.as_str())) {
            return;
        }
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(delivery) => seen.push(delivery),
            Err(_) => panic!("timed out waiting for {want:?}; delivered so far: {got:?}"),
        }
    }
}

/// Webhooks across processes on one PostgreSQL: an `address_activity` webhook made through
/// `first` is delivered by one process, each event once; `kill -9` of that process hands the
/// webhook to the other, which delivers what follows. Every transfer arrives under one
/// `messageId` of its own. Returns the process still running.
fn webhooks_survive_their_holder(devnet: &Running, first: Running, second: Running) -> Running {
    let (hook, rx) = receiver([first.child.id(), second.child.id()]);
    let (status, webhook) = post_json(
        &first.url,
        "/v1/webhooks",
        &json!({
            "eventType": "address_activity",
            "url": hook,
            "chainId": "43113",
            "metadata": {"addresses": [WATCHED]},
        }),
    );
    assert_eq!(status, 201, "{webhook}");
    let id = webhook["id"].as_str().expect("a webhook ID").to_owned();

    // Both processes run: one holds the webhook, and each event arrives once.
    let mut sent = crate::webhooks::transfers(&devnet.url, WATCHED, 4);
    let mut seen = Vec::new();
    wait_for_hashes(&rx, &mut seen, &sent);
    let ids: BTreeSet<&str> = seen.iter().map(Delivery::message_id).collect();
    assert_eq!(ids.len(), seen.len(), "a messageId arrived twice");
    assert_eq!(seen.len(), 4, "only the watched address's transfers");
    for d in &seen {
        assert_eq!(d.body["webhookId"], id.as_str(), "{}", d.body);
        assert_eq!(d.body["eventType"], "address_activity", "{}", d.body);
    }
    let holders: BTreeSet<Option<u32>> = seen.iter().map(|d| d.from).collect();
    assert_eq!(
        holders.len(),
        1,
        "one process delivers a webhook: {holders:?}"
    );
    let holder = holders
        .first()
        .copied()
        .flatten()
        .expect("the delivering process");

    // Killed with `kill -9`, its lease lapses and the other process delivers what follows.
    let (mut killed, survivor) = if holder == first.child.id() {
        (first, second)
    } else {
        (second, first)
    };
    killed.child.kill().unwrap();
    killed.child.wait().unwrap();
    let later = crate::webhooks::transfers(&devnet.url, WATCHED, 4);
    wait_for_hashes(&rx, &mut seen, &later);
    sent.extend(later);

    // At least once: a redelivery keeps its messageId; no transaction gets two.
    let mut by_id: BTreeMap<&str, &str> = BTreeMap::new();
    for d in &seen {
        let hash = *by_id.entry(d.message_id()).or_insert(d.tx_hash());
        assert_eq!(
            hash,
            d.tx_hash(),
            "{} names two transactions",
            d.message_id()
        );
    }
    let hashes: BTreeSet<&str> = by_id.values().copied().collect();
    assert_eq!(
        by_id.len(),
        hashes.len(),
        "a transaction under two messageIds"
    );
    assert_eq!(
        hashes,
        sent.iter().map(String::as_str).collect(),
        "exactly the watched address's transfers"
    );
    eprintln!(
        "webhook take-over: {} deliveries of {} events ({} redelivered after the kill)",
        seen.len(),
        sent.len(),
        seen.len() - by_id.len()
    );
    survivor
}
