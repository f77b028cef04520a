//! The official client against `firn devnet`: avalanchejs (npm `@avalabs/avalanchejs`, pinned in
//! `tests/js/pchain/package-lock.json`). `pchain.mjs` reads validators, balances, blocks and
//! supply, then builds, signs and issues a P-Chain transfer with its Etna wallet and checks the
//! balances; `xchain.mjs` issues X-Chain txs and moves AVAX between the X- and P-Chains;
//! `cchain.mjs` moves AVAX to and from the C-Chain with its atomic txs.
//! Skipped, with a message, when `node` is missing; runs `npm ci` first when the scripts'
//! `node_modules` is missing and `npm` is available.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::devnet::{start, stop, temp_dir};

fn script_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/js/pchain")
}

fn tool_runs(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Makes sure the script's dependencies are installed; `false` (with a message) if they are
/// not and cannot be.
fn dependencies_ready(dir: &Path) -> bool {
    if !tool_runs("npm") && !dir.join("node_modules/@avalabs/avalanchejs").exists() {
        eprintln!(
            "SKIPPED js_pchain: {}/node_modules is missing and npm is not installed",
            dir.display()
        );
        return false;
    }
    crate::js::project("pchain", &["@avalabs/avalanchejs"]);
    true
}

/// A funded key of the devnet's default seed, from `firn keys --json`.
fn funded_keys() -> Vec<Value> {
    let out = Command::new(env!("CARGO_BIN_EXE_firn"))
        .args(["keys", "--json", "--count", "2"])
        .output()
        .expect("running firn keys");
    assert!(out.status.success());
    serde_json::from_slice::<Value>(&out.stdout)
        .expect("firn keys --json")
        .as_array()
        .expect("a key list")
        .clone()
}

/// Runs `script` against a new `firn devnet` with `env` (given the two funded keys) and
/// returns the JSON line it printed; `None` (with a message) when node or the script's
/// dependencies are missing.
fn run_script(
    script: &str,
    env: impl Fn(&[Value]) -> Vec<(&'static str, String)>,
) -> Option<Value> {
    if !tool_runs("node") {
        eprintln!("SKIPPED js_pchain {script}: node is not installed");
        return None;
    }
    let dir = script_dir();
    if !dependencies_ready(&dir) {
        return None;
    }
    let keys = funded_keys();
    let data = temp_dir("devnet-js");
    let running = start(data.path(), &[]);
    let out = Command::new("node")
        .arg(script)
        .current_dir(&dir)
        .env("FIRN_URL", &running.url)
        .envs(env(&keys))
        .output()
        .expect("running node");
    stop(running);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "avalanchejs script {script} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let seen: Value = serde_json::from_str(stdout.trim()).expect("the script's JSON line");
    eprintln!("avalanchejs saw: {seen}");
    Some(seen)
}

fn key(keys: &[Value], i: usize, field: &str) -> String {
    keys[i][field].as_str().expect("a key field").to_owned()
}

#[test]
fn avalanchejs_reads_the_devnet_and_issues_a_transfer() {
    let Some(seen) = run_script("pchain.mjs", |keys| {
        vec![
            ("FIRN_PRIVATE_KEY", key(keys, 0, "privateKeyHex")),
            ("FIRN_TO", key(keys, 1, "pChainAddress")),
        ]
    }) else {
        return;
    };
    let keys = funded_keys();
    // What the client saw, as it reported it.
    assert_eq!(seen["validators"], 5);
    assert_eq!(seen["from"], keys[0]["pChainAddress"]);
    assert_eq!(seen["to"], keys[1]["pChainAddress"]);
    assert_eq!(seen["amount"], "1234567890");
    let fee: u64 = seen["fee"].as_str().unwrap().parse().unwrap();
    // A one-input, two-output BaseTx at price 1: a few thousand nAVAX of gas.
    assert!((4_000..10_000).contains(&fee), "fee {fee}");
    assert!(seen["heightAfter"].as_u64() > seen["height"].as_u64());
}

/// avalanchejs on the X-Chain: a BaseTx, a CreateAssetTx and a transfer of the new asset, a
/// variable-cap asset minted by an OperationTx, and AVAX moved X → P → X with its export and import builders, every result read back through
/// `avm.*`, `platform.*` and `getUTXOs` with `sourceChain` (the script checks each).
#[test]
fn avalanchejs_issues_x_chain_txs_and_moves_avax_between_x_and_p() {
    let Some(seen) = run_script("xchain.mjs", |keys| {
        vec![
            ("FIRN_PRIVATE_KEY", key(keys, 0, "privateKeyHex")),
            ("FIRN_TO_KEY", key(keys, 1, "privateKeyHex")),
        ]
    }) else {
        return;
    };
    for tx in [
        "send",
        "assetID",
        "assetSend",
        "mintableID",
        "mintTx",
        "exportX",
        "importP",
        "exportP",
        "importX",
    ] {
        let id = seen[tx].as_str().unwrap_or_default();
        assert!(id.parse::<firn_core::ids::Id>().is_ok(), "{tx}: {id}");
    }
}

/// avalanchejs's C-Chain atomic txs: AVAX moved P → C, C → X and X → C with its evm import and
/// export builders at the node's base fee, every result read back through `avax.*`, `avm.*` and
/// the EVM balance and nonce (the script checks each, fees included).
#[test]
fn avalanchejs_moves_avax_to_and_from_the_c_chain() {
    let Some(seen) = run_script("cchain.mjs", |keys| {
        vec![
            ("FIRN_PRIVATE_KEY", key(keys, 0, "privateKeyHex")),
            ("FIRN_EVM_ADDRESS", key(keys, 0, "evmAddress")),
        ]
    }) else {
        return;
    };
    for tx in [
        "exportP",
        "importC",
        "exportC",
        "importX",
        "exportX",
        "importCFromX",
    ] {
        let id = seen[tx].as_str().unwrap_or_default();
        assert!(id.parse::<firn_core::ids::Id>().is_ok(), "{tx}: {id}");
    }
    let fee: u64 = seen["importFee"].as_str().unwrap().parse().unwrap();
    assert!(fee > 0, "an import pays a fee");
}
