//! viem (npm) against the real `firn devnet` binary's C-Chain: `tests/js/evm/test.mjs`
//! deploys the three token contracts, transfers, reads balances and logs, estimates gas.
//! `tests/js/evm/l1.mjs` creates an L1 through P-Chain txs (avalanchejs) and reads its
//! chain config, fee config and active precompiles. `tests/js/evm/watch.mjs` runs viem's and
//! ethers' event listeners over HTTP (polling filters) and WebSocket (subscriptions);
//! `tests/js/evm/web3.mjs` does the same with web3.js 4. Skipped, with a message, when node or
//! npm is missing.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use firn_core::keys::secp256k1::PrivateKey;
use serde_json::Value;

struct Cleanup(PathBuf, Option<std::process::Child>);

impl Drop for Cleanup {
    fn drop(&mut self) {
        if let Some(child) = &mut self.1 {
            let _ = child.kill();
            let _ = child.wait();
        }
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn have(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// A running `firn devnet` on a temporary data dir: its node URL, C-Chain RPC URL and a
/// funded key. Stopped and removed on drop.
pub struct EvmDevnet {
    pub url: String,
    pub rpc: String,
    pub key: PrivateKey,
    _cleanup: Cleanup,
}

impl EvmDevnet {
    pub fn start(test_name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("firn-evm-{test_name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut child = Command::new(env!("CARGO_BIN_EXE_firn"))
            .args([
                "devnet",
                "--rpc-addr",
                "127.0.0.1:0",
                "--json",
                "--data-dir",
            ])
            .arg(&dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("running firn devnet");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let banner: Value = serde_json::from_str(&line).unwrap();
        Self {
            url: banner["listening"].as_str().unwrap().to_owned(),
            rpc: banner["rpc"]["C"].as_str().unwrap().to_owned(),
            key: banner["fundedKeys"][0]["privateKey"]
                .as_str()
                .unwrap()
                .parse()
                .unwrap(),
            _cleanup: Cleanup(dir, Some(child)),
        }
    }

    /// The funded key as `0x` hex.
    pub fn key_hex(&self) -> String {
        format!("0x{}", hex::encode(self.key.to_bytes()))
    }
}

/// Whether node and npm run (the JS suites need both).
pub fn have_node() -> bool {
    have("node") && have("npm")
}

/// Starts `firn devnet`, runs `node --test <script>` in `tests/js/evm` against it with
/// FIRN_URL, FIRN_RPC (the C-Chain), FIRN_KEY (a funded key, hex) and FIRN_ARTIFACTS, and
/// checks every node test passed.
fn run_against_devnet(test_name: &str, script: &str) {
    if !have_node() {
        eprintln!("SKIPPED {test_name}: node/npm not found");
        return;
    }
    let devnet = EvmDevnet::start(test_name);
    node_tests(
        script,
        &[
            ("FIRN_URL", devnet.url.clone()),
            ("FIRN_RPC", devnet.rpc.clone()),
            ("FIRN_KEY", devnet.key_hex()),
        ],
    );
}

/// Runs `node --test <script>` in `tests/js/evm` with `envs` and FIRN_ARTIFACTS (the
/// contracts' artifacts), and checks that some node test ran and none failed.
pub(crate) fn node_tests(script: &str, envs: &[(&str, String)]) {
    let js = crate::js::project("evm", &["viem", "@avalabs/avalanchejs", "ethers", "web3"]);
    let artifacts = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../contracts/artifacts");
    // Exit once the tests are done: web3.js leaves timers running after a sent tx is mined.
    let out = Command::new("node")
        .args(["--test", "--test-force-exit", script])
        .current_dir(&js)
        .envs(envs.iter().map(|(k, v)| (*k, v.as_str())))
        .env("FIRN_ARTIFACTS", &artifacts)
        .output()
        .expect("running node");
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{script} failed:\n{text}");
    assert!(text.contains("# fail 0"), "{text}");
    assert!(!text.contains("# pass 0"), "{text}");
}

#[test]
fn viem_deploys_tokens_transfers_and_reads_logs_on_the_c_chain() {
    run_against_devnet("evm_viem_c_chain", "test.mjs");
}

/// viem's and ethers' event listeners over HTTP (polling geth's filters) and over WebSocket
/// (`eth_subscribe`).
#[test]
fn viem_and_ethers_listeners_over_http_and_websocket_on_the_c_chain() {
    run_against_devnet("evm_watch", "watch.mjs");
}

/// web3.js 4 over HTTP (deploy, transfer, past events) and WebSocket (subscriptions).
#[test]
fn web3_js_over_http_and_websocket_on_the_c_chain() {
    run_against_devnet("evm_web3", "web3.mjs");
}

/// avalanchejs issues CreateSubnetTx + CreateChainTx (subnet-EVM genesis with all six
/// precompiles); the L1 comes up and answers subnet-evm's own methods with its genesis.
#[test]
fn viem_sees_an_l1_created_through_p_chain_txs() {
    run_against_devnet("evm_viem_l1", "l1.mjs");
}
