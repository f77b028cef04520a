//! `firn up` end to end: a new data dir starts with generated history, serves the node RPC,
//! and restarts without regenerating; settings come from flag, environment, file, in that order.

use std::process::Command;

use serde_json::json;

use crate::devnet::{TempDir, call, start_firn, stop};

fn temp(name: &str) -> TempDir {
    TempDir(std::env::temp_dir().join(format!("firn-up-{name}-{}", std::process::id())))
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
    let flags = ["--days", "4", "--transfers-per-day", "12", "--quiet-chain"];
    let up = start_firn("up", &dir.0, &flags);
    assert!(
        up.banner
            .iter()
            .any(|l| l.starts_with("History      4 days generated (12 P-Chain transfers a day)")),
        "{:?}",
        up.banner
    );
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
    let validators = p("platform.getCurrentValidators")["validators"].clone();
    assert!(validators.as_array().unwrap().len() > 5, "{validators}");
    stop(up);

    // A restart serves the same chain and generates nothing more.
    let again = start_firn("up", &dir.0, &flags);
    let again_height: u64 =
        call(&again.url, "/ext/bc/P", "platform.getHeight", json!({}))["height"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap();
    assert_eq!(again_height, height);
    stop(again);
}

#[test]
fn settings_come_from_flag_then_environment_then_file() {
    let dir = temp("settings");
    std::fs::create_dir_all(&dir.0).unwrap();
    let file = dir.0.join("firn.toml");
    std::fs::write(
        &file,
        "days = 3\ntransfers_per_day = 4\nquiet_chain = true\n",
    )
    .unwrap();
    let banner = |name: &str, env_days: Option<&str>, flag_days: Option<&str>| {
        let data = dir.0.join(name);
        let mut args = vec!["up", "--rpc-addr", "127.0.0.1:0", "--silent", "--config"];
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
    std::fs::create_dir_all(&dir.0).unwrap();
    let file = dir.0.join("firn.toml");
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
}
