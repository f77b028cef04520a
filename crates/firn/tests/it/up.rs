//! `firn up` end to end: a new data dir starts with generated history, serves the node RPC,
//! and restarts without regenerating, keeping the request logs of its last moments; settings
//! come from flag, environment, file, in that order.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Command;
use std::time::Duration;

use serde_json::json;

use crate::devnet::{TempDir, call, start_firn, stop};

fn temp(name: &str) -> TempDir {
    crate::devnet::temp_dir(&format!("up-{name}"))
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

#[test]
fn up_starts_with_history_that_ends_now_and_restarts_without_regenerating() {
    let dir = temp("history");
    let flags = [
        "--days",
        "4",
        "--transfers-per-day",
        "12",
        "--quiet-chain",
        "--api-addr",
        "127.0.0.1:0",
        "--metrics-addr",
        "127.0.0.1:0",
    ];
    let up = start_firn("up", dir.path(), &flags);
    assert!(
        up.banner.iter().any(|l| l.starts_with(
            "History      4 days generated (12 P-Chain transfers and 48 EVM txs a day)"
        )),
        "{:?}",
        up.banner
    );
    // The L1's chain, EVM chain ID and RPC URL are on the banner.
    assert!(
        up.banner
            .iter()
            .any(|l| l.trim_start().starts_with("FirnL1")
                && l.contains("(EVM chain ID 99999, subnet ")),
        "{:?}",
        up.banner
    );
    let l1_rpc = banner_value(&up.banner, "  FirnL1   ");
    let l1_path = l1_rpc
        .strip_prefix(&up.url)
        .expect("the L1's RPC is on the node");
    assert_eq!(call(&up.url, l1_path, "eth_chainId", json!([])), "0x1869f");
    let p = |method: &str| call(&up.url, "/ext/bc/P", method, json!({}));
    let height: u64 = p("platform.getHeight")["height"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(height > 4 * 4, "height {height}");

    // The history ends within the last day, and covers the L1 and new stakers.
    let ts = p("platform.getTimestamp")["timestamp"]
        .as_str()
        .unwrap()
        .to_owned();
    let last = call(
        &up.url,
        "/ext/bc/P",
        "platform.getBlockByHeight",
        json!({ "height": height.to_string(), "encoding": "json" }),
    );
    let block_time = last["block"]["time"].as_u64().unwrap();
    assert!(
        now() - block_time < 2 * 24 * 3600,
        "last block at {block_time}, now {ts}"
    );
    let chains = p("platform.getBlockchains")["blockchains"].clone();
    assert!(
        chains
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["name"] == "FirnL1"
                && c["vmID"] == "srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy"),
        "{chains}"
    );
    // The C-Chain and the generated L1's subnet-EVM chain answer on their EVM RPC.
    let l1_chain = chains
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "FirnL1")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let c_id = call(&up.url, "/ext/bc/C/rpc", "eth_chainId", json!([]));
    assert_eq!(c_id, "0xa869");
    let l1_id = wait_for(|| {
        let id = std::panic::catch_unwind(|| {
            call(
                &up.url,
                &format!("/ext/bc/{l1_chain}/rpc"),
                "eth_chainId",
                json!([]),
            )
        });
        id.ok()
    });
    assert_eq!(
        l1_id, "0x1869f",
        "the L1 answers with its genesis chain ID 99999"
    );

    evm_history_is_on_both_chains(&up.url, &format!("/ext/bc/{l1_chain}/rpc"));

    let validators = p("platform.getCurrentValidators")["validators"].clone();
    assert!(validators.as_array().unwrap().len() > 5, "{validators}");

    // The indexer follows the node into the store, and the Data API serves what it indexed.
    let api = banner_value(&up.banner, "Data API     ");
    let newest = wait_for(|| {
        let page = get_json(&format!(
            "{api}/v1/networks/fuji/blockchains/p-chain/blocks?pageSize=1"
        ))?;
        let block = page["blocks"].get(0)?.clone();
        let number: u64 = block["blockNumber"].as_str()?.parse().ok()?;
        (number == height).then_some(block)
    });
    let node_block = call(
        &up.url,
        "/ext/bc/P",
        "platform.getBlockByHeight",
        json!({ "height": height.to_string(), "encoding": "json" }),
    );
    assert_eq!(newest["blockHash"], node_block["block"]["id"], "{newest}");
    crossings_are_indexed(&up.url, &api);
    icm_history_is_indexed(&up.url, &api, &format!("/ext/bc/{l1_chain}/rpc"));
    let metrics = banner_value(&up.banner, "Metrics API  ");
    let live = wait_for(|| get_json(&format!("{metrics}/v2/live-check")));
    assert_eq!(live["status"], "ok", "{live}");
    // Requests answered just before Ctrl-C still reach the request log: `firn up` writes the
    // queued logs on its way out.
    let logged = [
        "/v1/health-check",
        "/v1/chains",
        "/v1/networks/fuji/blockchains/p-chain/blocks",
    ];
    for path in logged {
        let (status, body) = get_as(&format!("{api}{path}"), RESTART_KEY);
        assert_eq!(status, 200, "{path}: {body}");
    }
    stop(up);

    // A restart serves the same chain and generates nothing more.
    let again = start_firn("up", dir.path(), &flags);
    let again_height: u64 =
        call(&again.url, "/ext/bc/P", "platform.getHeight", json!({}))["height"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap();
    assert_eq!(again_height, height);
    let api = banner_value(&again.banner, "Data API     ");
    let (status, logs) = get_as(&format!("{api}/v1/apiLogs?pageSize=100"), RESTART_KEY);
    assert_eq!(status, 200, "{logs}");
    let listed: Vec<(&str, u64)> = logs["logs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["requestPath"].as_str().unwrap(),
                l["responseCode"].as_u64().unwrap(),
            )
        })
        .collect();
    // Newest first.
    let want: Vec<(&str, u64)> = logged.iter().rev().map(|p| (*p, 200)).collect();
    assert_eq!(listed, want, "{logs}");
    stop(again);
}

/// The API key of the requests the restart test looks for in `/v1/apiLogs`.
const RESTART_KEY: &str = "up-restart-test";

/// GET `url` with the API key `key` over plain HTTP/1.1: the status and the JSON body.
fn get_as(url: &str, key: &str) -> (u16, serde_json::Value) {
    let rest = url.strip_prefix("http://").unwrap();
    let (host, path) = rest.split_at(rest.find('/').unwrap());
    let mut s = TcpStream::connect(host).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nx-glacier-api-key: {key}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut resp = String::new();
    s.read_to_string(&mut resp).unwrap();
    let (head, body) = resp.split_once("\r\n\r\n").unwrap();
    let status = head[9..12].parse().unwrap();
    // Chunked bodies: the JSON sits between the chunk-size lines.
    let json = body
        .find('{')
        .and_then(|a| body.rfind('}').map(|b| &body[a..=b]))
        .unwrap_or(body);
    let value = serde_json::from_str(json).unwrap_or_else(|_| panic!("{url}: not JSON: {body}"));
    (status, value)
}

fn quantity(v: &serde_json::Value) -> u64 {
    u64::from_str_radix(v.as_str().unwrap().trim_start_matches("0x"), 16).unwrap()
}

/// The C-Chain and the L1's chain hold generated history: blocks at the virtual days' times,
/// key 0's token contracts and router, ERC-20 transfers, and router calls whose trace shows
/// the internal transactions.
fn evm_history_is_on_both_chains(url: &str, l1_path: &str) {
    const DAY: u64 = 24 * 3600;
    let keys = Command::new(env!("CARGO_BIN_EXE_firn"))
        .args(["keys", "--json", "--count", "1"])
        .output()
        .unwrap();
    let keys: serde_json::Value = serde_json::from_slice(&keys.stdout).unwrap();
    let deployer_hex = keys[0]["evmAddress"].as_str().unwrap().to_lowercase();
    let mut deployer_addr = [0u8; 20];
    hex::decode_to_slice(deployer_hex.trim_start_matches("0x"), &mut deployer_addr).unwrap();
    for path in ["/ext/bc/C/rpc", l1_path] {
        let eth = |method: &str, params: serde_json::Value| call(url, path, method, params);
        let head = quantity(&eth("eth_blockNumber", json!([])));
        assert!(head > 20, "{path}: only {head} blocks of EVM history");
        let time = |n: u64| {
            quantity(&eth("eth_getBlockByNumber", json!([format!("{n:#x}"), false]))["timestamp"])
        };
        let (first, last) = (time(1), time(head));
        // Day 0 of 4 began at least 3 days ago; the last block is in the past, after the first.
        assert!(now() - first > 3 * DAY, "{path}: block 1 at {first}");
        assert!(first < last && last <= now(), "{path}: {first}..{last}");
        let contract = |nonce: u64| {
            format!(
                "0x{}",
                hex::encode(firn_core::evm::create_address(&deployer_addr, nonce))
            )
        };
        for nonce in 0..4 {
            let code = eth("eth_getCode", json!([contract(nonce), "latest"]));
            assert!(
                code.as_str().unwrap().len() > 2,
                "{path}: no contract {nonce}"
            );
        }
        let logs = |address: String, event: &str| {
            eth(
                "eth_getLogs",
                json!([{
                    "fromBlock": "0x0",
                    "toBlock": "latest",
                    "address": address,
                    "topics": [format!("0x{}", hex::encode(firn_core::evm::event_topic(event)))],
                }]),
            )
            .as_array()
            .unwrap()
            .clone()
        };
        let transfers = logs(contract(0), "Transfer(address,address,uint256)");
        assert!(
            transfers.len() > 1,
            "{path}: ERC-20 transfers {transfers:?}"
        );
        let splits = logs(contract(3), "Split(address,uint256,uint256)");
        let split = splits
            .first()
            .unwrap_or_else(|| panic!("{path}: no router call"));
        let trace = eth(
            "debug_traceTransaction",
            json!([split["transactionHash"], { "tracer": "callTracer" }]),
        );
        assert!(
            !trace["calls"].as_array().unwrap().is_empty(),
            "{path}: the split made no internal calls: {trace}"
        );
    }
}

/// The history moved AVAX P → C, X → C and C → X: the C-Chain's blocks carry the atomic txs,
/// the node reports them accepted, and the Data API lists exactly them, newest first.
fn crossings_are_indexed(url: &str, api: &str) {
    let eth = |method: &str, params: serde_json::Value| call(url, "/ext/bc/C/rpc", method, params);
    let head = quantity(&eth("eth_blockNumber", json!([])));
    let mut carried = Vec::new();
    for n in 1..=head {
        let block = eth("eth_getBlockByNumber", json!([format!("{n:#x}"), false]));
        let ext = block["blockExtraData"].as_str().unwrap();
        let bytes = hex::decode(ext.trim_start_matches("0x")).unwrap();
        for tx in firn_core::atomic::txs_from_ext_data(&bytes, true).unwrap() {
            let status = call(
                url,
                "/ext/bc/C/avax",
                "avax.getAtomicTxStatus",
                json!({ "txID": tx.id() }),
            );
            assert_eq!(status["blockHeight"], n.to_string(), "{status}");
            carried.push(tx.id().to_string());
        }
    }
    assert!(
        carried.len() >= 9,
        "{} crossings in the history",
        carried.len()
    );
    carried.reverse();
    let listed = wait_for(|| {
        let page = get_json(&format!(
            "{api}/v1/networks/fuji/blockchains/c-chain/transactions?pageSize=100"
        ))?;
        let txs = page["transactions"].as_array()?.clone();
        let ids: Vec<String> = txs
            .iter()
            .map(|t| t["txHash"].as_str().unwrap_or_default().to_owned())
            .collect();
        (ids == carried).then_some(txs)
    });
    let kinds: std::collections::BTreeSet<(String, String)> = listed
        .iter()
        .map(|t| {
            let peer = match t["txType"].as_str().unwrap() {
                "ImportTx" => &t["sourceChain"],
                _ => &t["destinationChain"],
            };
            (
                t["txType"].as_str().unwrap().to_owned(),
                peer.as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let (p, x) = (
        firn_core::network::P_CHAIN_ID.to_string(),
        firn_core::network::FUJI.x_chain_id.to_string(),
    );
    let want = [
        ("ImportTx".to_owned(), p),
        ("ImportTx".to_owned(), x.clone()),
        ("ExportTx".to_owned(), x),
    ];
    assert_eq!(kinds, want.into_iter().collect(), "{listed:?}");
}

/// The history's Teleporter messages, both ways between the C-Chain and the L1, as the chains
/// logged them: each listed by the Data API delivered, executed (a failed one after its
/// retry), with its receipt back where a later message carried it.
fn icm_history_is_indexed(url: &str, api: &str, l1_path: &str) {
    let topic = |sig: &str| format!("0x{}", hex::encode(firn_core::evm::event_topic(sig)));
    let logs = |path: &str, sig: &str| -> Vec<serde_json::Value> {
        let filter = json!([{
            "fromBlock": "0x0",
            "toBlock": "latest",
            "address": firn_core::teleporter::MESSENGER_V1.to_string(),
            "topics": [topic(sig)],
        }]);
        call(url, path, "eth_getLogs", filter)
            .as_array()
            .unwrap()
            .clone()
    };
    use firn_core::teleporter::signatures;
    let sent: Vec<String> = ["/ext/bc/C/rpc", l1_path]
        .iter()
        .flat_map(|p| logs(p, signatures::SEND))
        .map(|l| {
            l["topics"][1]
                .as_str()
                .unwrap()
                .trim_start_matches("0x")
                .to_owned()
        })
        .collect();
    let failed = logs(l1_path, signatures::EXECUTION_FAILED);
    assert!(sent.len() >= 4, "{} messages in the history", sent.len());
    assert!(!failed.is_empty(), "no failed execution in the history");
    let listed = wait_for(|| {
        let page = get_json(&format!("{api}/v1/icm/messages?pageSize=100"))?;
        let messages = page["messages"].as_array()?.clone();
        let done = messages.len() == sent.len()
            && messages
                .iter()
                .all(|m| m["status"] == "delivered" && m["messageExecuted"] == true);
        done.then_some(messages)
    });
    let ids: std::collections::BTreeSet<&str> = listed
        .iter()
        .map(|m| m["messageId"].as_str().unwrap())
        .collect();
    assert_eq!(ids, sent.iter().map(String::as_str).collect());
    let ways: std::collections::BTreeSet<(&str, &str)> = listed
        .iter()
        .map(|m| {
            (
                m["sourceEvmChainId"].as_str().unwrap(),
                m["destinationEvmChainId"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        ways,
        [("43113", "99999"), ("99999", "43113")]
            .into_iter()
            .collect()
    );
    assert!(
        listed.iter().any(|m| m["receiptDelivered"] == true),
        "{listed:?}"
    );
    let retried = failed[0]["topics"][1]
        .as_str()
        .unwrap()
        .trim_start_matches("0x");
    assert!(ids.contains(retried));
}

/// The first word after `prefix` on the banner line that starts with it.
pub fn banner_value(banner: &[String], prefix: &str) -> String {
    let line = banner
        .iter()
        .find_map(|l| l.strip_prefix(prefix))
        .unwrap_or_else(|| panic!("no {prefix:?} line in {banner:?}"));
    line.split_whitespace().next().unwrap().to_owned()
}

/// GET over plain HTTP/1.1; `None` unless the answer is a 200 with a JSON body.
pub fn get_json(url: &str) -> Option<serde_json::Value> {
    let rest = url.strip_prefix("http://")?;
    let (host, path) = rest.split_at(rest.find('/')?);
    let mut s = TcpStream::connect(host).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut resp = String::new();
    s.read_to_string(&mut resp).ok()?;
    let (head, body) = resp.split_once("\r\n\r\n")?;
    if !head.starts_with("HTTP/1.1 200") {
        return None;
    }
    // Chunked bodies: the JSON sits between the chunk-size lines.
    let json = body
        .find('{')
        .and_then(|a| body.rfind('}').map(|b| &body[a..=b]))?;
    serde_json::from_str(json).ok()
}

/// Polls `f` every 100 ms for up to 60 s.
pub fn wait_for<T>(mut f: impl FnMut() -> Option<T>) -> T {
    for _ in 0..600 {
        if let Some(v) = f() {
            return v;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("gave up waiting after 60 s");
}

#[test]
fn settings_come_from_flag_then_environment_then_file() {
    let dir = temp("settings");
    let file = dir.path().join("firn.toml");
    std::fs::write(
        &file,
        "days = 3\ntransfers_per_day = 4\nquiet_chain = true\n",
    )
    .unwrap();
    let banner = |name: &str, env_days: Option<&str>, flag_days: Option<&str>| {
        let data = dir.path().join(name);
        let mut args = vec![
            "up",
            "--rpc-addr",
            "127.0.0.1:0",
            "--api-addr",
            "127.0.0.1:0",
            "--metrics-addr",
            "127.0.0.1:0",
            "--silent",
            "--config",
        ];
        args.push(file.to_str().unwrap());
        args.extend(["--data-dir", data.to_str().unwrap()]);
        if let Some(d) = flag_days {
            args.extend(["--days", d]);
        }
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_firn"));
        cmd.args(&args).env_remove("FIRN_DAYS");
        if let Some(d) = env_days {
            cmd.env("FIRN_DAYS", d);
        }
        // --silent: it runs until stopped; read the saved record of the history instead.
        let mut child = cmd.spawn().unwrap();
        let done = data.join("history.done");
        for _ in 0..600 {
            if done.exists() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        let _ = Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status();
        assert!(child.wait().unwrap().success());
        let record: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(done).unwrap()).unwrap();
        (
            record["days"].as_u64().unwrap(),
            record["transfersPerDay"].as_u64().unwrap(),
        )
    };
    assert_eq!(banner("file", None, None), (3, 4));
    assert_eq!(banner("env", Some("2"), None), (2, 4));
    assert_eq!(banner("flag", Some("2"), Some("1")), (1, 4));
}

#[test]
fn a_bad_config_file_is_refused_with_its_path() {
    let dir = temp("bad-config");
    let file = dir.path().join("firn.toml");
    std::fs::write(&file, "dayz = 3\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_firn"))
        .args(["up", "--config", file.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("couldn't parse") && err.contains("firn.toml"),
        "{err}"
    );
    assert!(err.contains("dayz"), "{err}");

    // Off-chain messages in the file are checked before anything starts.
    std::fs::write(&file, "warp_off_chain_messages = [\"0x1234\"]\n").unwrap();
    let data = dir.path().join("data");
    let out = Command::new(env!("CARGO_BIN_EXE_firn"))
        .args(["up", "--config", file.to_str().unwrap(), "--data-dir"])
        .arg(&data)
        .args(["--rpc-addr", "127.0.0.1:0"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("failed to parse off-chain message at index 0"),
        "{err}"
    );
}

/// The heads of the P-Chain, the C-Chain and the L1's EVM chain: heights and block hashes.
fn heads(url: &str) -> serde_json::Value {
    let p = |method: &str, params: serde_json::Value| call(url, "/ext/bc/P", method, params);
    let block = |h: u64| {
        p(
            "platform.getBlockByHeight",
            json!({ "height": h.to_string(), "encoding": "json" }),
        )["block"]
            .clone()
    };
    // History's last P-Chain block: the newest before today (UTC). Blocks after it are live
    // (reward proposals come due on the wall clock) and carry the wall time.
    let today = now() / (24 * 3600) * (24 * 3600);
    let mut height: u64 = p("platform.getHeight", json!({}))["height"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    while block(height)["time"].as_u64().is_none_or(|t| t >= today) {
        height -= 1;
    }
    let tip = block(height)["id"].clone();
    let l1 = p("platform.getBlockchains", json!({}))["blockchains"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "FirnL1")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let evm = |path: &str| {
        let block = call(url, path, "eth_getBlockByNumber", json!(["latest", false]));
        json!([block["number"], block["hash"]])
    };
    json!({
        "p": [height, tip],
        "c": evm("/ext/bc/C/rpc"),
        "l1": evm(&format!("/ext/bc/{l1}/rpc")),
    })
}

#[test]
fn history_is_deterministic_and_resumes_after_an_interruption() {
    let dir = temp("resume");
    let flags = [
        "--days",
        "8",
        "--transfers-per-day",
        "8",
        "--evm-txs-per-day",
        "24",
        "--quiet-chain",
        "--api-addr",
        "127.0.0.1:0",
        "--metrics-addr",
        "127.0.0.1:0",
    ];
    // Interrupted once its first day is logged, then resumed by a second start.
    let cut = dir.path().join("cut");
    let mut child = Command::new(env!("CARGO_BIN_EXE_firn"))
        .args(["up", "--silent", "--rpc-addr", "127.0.0.1:0", "--data-dir"])
        .arg(&cut)
        .args(flags)
        .env("FIRN_LOG", "warn,firn::cmd::up=info")
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut log = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    while std::io::BufRead::read_line(&mut log, &mut line).unwrap() > 0
        && !line.contains("history day generated")
    {
        line.clear();
    }
    assert!(
        line.contains("evm_txs"),
        "the day log counts EVM txs: {line}"
    );
    let _ = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    let mut rest = String::new();
    log.read_to_string(&mut rest).unwrap();
    assert!(child.wait().unwrap().success(), "{rest}");
    assert!(
        !cut.join("history.done").exists(),
        "history finished before the interruption landed; make it longer"
    );
    let resumed = start_firn("up", &cut, &flags);
    let resumed_heads = heads(&resumed.url);
    stop(resumed);

    // The same plan in one go, on another data dir: the same chains, block for block.
    let whole = start_firn("up", &dir.path().join("whole"), &flags);
    let whole_heads = heads(&whole.url);
    stop(whole);
    assert_eq!(resumed_heads, whole_heads);
}
