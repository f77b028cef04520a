//! Hardhat 2 with its ethers plugin (`tests/js/hardhat`) against `firn up`: on the C-Chain and
//! on the history's L1, it compiles a contract, deploys it, calls and sends to it, queries its
//! events and listens for them; then the dev loop (`hardhat_setBalance`, an impersonated
//! signer, `evm_increaseTime`, `hardhat_mine`). Skipped, saying so, without node and npm.

use std::process::Command;

use firn_core::keys::secp256k1::PrivateKey;
use serde_json::Value;

use crate::devnet::{start_firn, stop, temp_dir};
use crate::evm_viem::have_node;
use crate::up::banner_value;

#[test]
fn hardhat_deploys_and_interacts_on_the_c_chain_and_an_l1() {
    if !have_node() {
        eprintln!(
            "SKIPPED hardhat_deploys_and_interacts_on_the_c_chain_and_an_l1: node/npm not found"
        );
        return;
    }
    let project = crate::js::project(
        "hardhat",
        &["hardhat", "@nomicfoundation/hardhat-ethers", "solc"],
    );
    let dir = temp_dir("hardhat");
    let up = start_firn(
        "up",
        dir.path(),
        &[
            "--days",
            "1",
            "--quiet-chain",
            "--api-addr",
            "127.0.0.1:0",
            "--metrics-addr",
            "127.0.0.1:0",
        ],
    );
    let c_rpc = banner_value(&up.banner, "  C        ");
    let l1_rpc = banner_value(&up.banner, "  FirnL1   ");
    let key: PrivateKey = up
        .banner
        .iter()
        .find_map(|l| {
            l.trim()
                .strip_prefix("PrivateKey-")
                .map(|k| format!("PrivateKey-{k}"))
        })
        .expect("a funded key on the banner")
        .parse()
        .unwrap();
    let key = format!("0x{}", hex::encode(key.to_bytes()));
    for (network, chain_id) in [("firn", 43_113u64), ("firnL1", 99_999)] {
        let out = Command::new(project.join("node_modules/.bin/hardhat"))
            .args(["run", "scripts/e2e.cjs", "--network", network])
            .current_dir(&project)
            .env("FIRN_RPC", &c_rpc)
            .env("FIRN_L1_RPC", &l1_rpc)
            .env("FIRN_KEY", &key)
            .env("HARDHAT_DISABLE_TELEMETRY_PROMPT", "true")
            .output()
            .expect("running hardhat");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "hardhat on {network}: {stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let seen: Value = stdout
            .lines()
            .rev()
            .find_map(|l| serde_json::from_str(l).ok())
            .unwrap_or_else(|| panic!("no JSON line from hardhat: {stdout}"));
        assert_eq!(seen["chainId"], chain_id, "{seen}");
        assert!(
            seen["address"].as_str().unwrap().starts_with("0x"),
            "{seen}"
        );
        assert_eq!(
            seen["impersonated"].as_str().unwrap().to_lowercase(),
            "0x000000000000000000000000000000000000a11e"
        );
    }
    stop(up);
}
