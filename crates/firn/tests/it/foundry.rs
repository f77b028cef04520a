//! Foundry's `cast` and `forge` (the npm binaries) against `firn devnet`'s C-Chain, on the
//! small project in `tests/js/foundry`: chain facts, a value transfer and its receipt,
//! `forge create`, calls and sends to the contract, `cast logs`, `cast run` (replays a tx on
//! the state of the block before it), `forge script --broadcast`, and `forge test
//! --fork-url` reading the devnet's state, and the dev loop (`cast rpc anvil_setBalance`,
//! `cast send --unlocked` from an impersonated account, `evm_increaseTime`, `evm_mine`).
//! Skipped, saying so, without node and npm.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::evm_viem::{EvmDevnet, have_node};

struct Foundry<'a> {
    dir: &'a Path,
    devnet: &'a EvmDevnet,
}

impl Foundry<'_> {
    /// Runs `tool args…` in the project; its stdout (panics with both streams on failure).
    fn run(&self, tool: &str, args: &[&str]) -> String {
        let out = Command::new(self.dir.join("node_modules/.bin").join(tool))
            .args(args)
            .current_dir(self.dir)
            .env("ETH_RPC_URL", &self.devnet.rpc)
            .env("FOUNDRY_DISABLE_NIGHTLY_WARNING", "1")
            .env("NO_COLOR", "1")
            .output()
            .unwrap_or_else(|e| panic!("running {tool}: {e}"));
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "{tool} {}: {stdout}\n{}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        );
        stdout
    }

    fn cast(&self, args: &[&str]) -> String {
        self.run("cast", args).trim().to_owned()
    }

    fn cast_json(&self, args: &[&str]) -> Value {
        let text = self.cast(args);
        serde_json::from_str(&text).unwrap_or_else(|_| panic!("not JSON: {text}"))
    }
}

/// The address after `label` in `forge create`'s output.
fn after<'a>(text: &'a str, label: &str) -> &'a str {
    text.lines()
        .find_map(|l| l.trim().strip_prefix(label))
        .map(str::trim)
        .unwrap_or_else(|| panic!("no {label:?} in {text}"))
}

#[test]
fn cast_and_forge_work_against_the_c_chain() {
    if !have_node() {
        eprintln!("SKIPPED cast_and_forge_work_against_the_c_chain: node/npm not found");
        return;
    }
    let dir = crate::js::project(
        "foundry",
        &[
            "@foundry-rs/forge-linux-amd64",
            "@foundry-rs/cast-linux-amd64",
            "solc",
        ],
    );
    let devnet = EvmDevnet::start("foundry");
    let f = Foundry {
        dir: &dir,
        devnet: &devnet,
    };
    let key = devnet.key_hex();
    let me = f.cast(&["wallet", "address", "--private-key", &key]);

    assert_eq!(f.cast(&["chain-id"]), "43113");
    let balance: u128 = f.cast(&["balance", &me]).parse().unwrap();
    assert!(balance > 10u128.pow(21), "{me} holds {balance}");

    // A value transfer and its receipt.
    let bob = "0x000000000000000000000000000000000000b0b0";
    let sent = f.cast_json(&[
        "send",
        "--private-key",
        &key,
        "--value",
        "1ether",
        bob,
        "--json",
    ]);
    assert_eq!(sent["status"], "0x1", "{sent}");
    let hash = sent["transactionHash"].as_str().unwrap();
    let receipt = f.cast_json(&["receipt", hash, "--json"]);
    assert_eq!(receipt["blockHash"], sent["blockHash"]);
    assert_eq!(f.cast(&["balance", bob]), "1000000000000000000");

    // forge create, then calls, sends and logs.
    let created = f.run(
        "forge",
        &[
            "create",
            "src/Counter.sol:Counter",
            "--rpc-url",
            &devnet.rpc,
            "--private-key",
            &key,
            "--broadcast",
        ],
    );
    let counter = after(&created, "Deployed to:").to_owned();
    assert_eq!(f.cast(&["call", &counter, "number()(uint256)"]), "0");
    let incremented = f.cast_json(&[
        "send",
        "--private-key",
        &key,
        &counter,
        "increment()",
        "--json",
    ]);
    assert_eq!(incremented["status"], "0x1", "{incremented}");
    assert_eq!(f.cast(&["call", &counter, "number()(uint256)"]), "1");
    let logs = f.cast_json(&[
        "logs",
        "--from-block",
        "0",
        "--address",
        &counter,
        "Incremented(address indexed,uint256)",
        "--json",
    ]);
    let logs = logs.as_array().unwrap();
    assert_eq!(logs.len(), 1, "{logs:?}");
    assert_eq!(logs[0]["transactionHash"], incremented["transactionHash"]);

    // cast run replays the increment on the state before its block, with a trace.
    let increment_hash = incremented["transactionHash"].as_str().unwrap();
    let trace = f.cast(&["run", "--with-local-artifacts", increment_hash]);
    assert!(
        trace.contains("increment") && trace.contains("Incremented"),
        "{trace}"
    );

    // cast proof: the counter's slot 0 (number) with its proof; cast access-list: the slot an
    // increment touches.
    let proof = f.cast_json(&["proof", &counter, "0"]);
    assert_eq!(proof["storageProof"][0]["value"], "0x1", "{proof}");
    assert!(!proof["accountProof"].as_array().unwrap().is_empty());
    let listed = f.cast_json(&[
        "access-list",
        &counter,
        "increment()",
        "--from",
        &me,
        "--json",
    ]);
    let text = listed.to_string().to_lowercase();
    assert!(
        text.contains(&counter.to_lowercase())
            && text.contains("0x0000000000000000000000000000000000000000000000000000000000000000"),
        "{listed}"
    );

    // forge script deploys another counter and increments it.
    let script = f.run(
        "forge",
        &[
            "script",
            "script/Counter.s.sol:CounterScript",
            "--rpc-url",
            &devnet.rpc,
            "--private-key",
            &key,
            "--broadcast",
            "--slow",
        ],
    );
    assert!(
        script.contains("ONCHAIN EXECUTION COMPLETE & SUCCESSFUL"),
        "{script}"
    );

    // forge test on a fork of the devnet reads the counter's state.
    let tested = Command::new(dir.join("node_modules/.bin/forge"))
        .args(["test", "--fork-url", &devnet.rpc])
        .current_dir(&dir)
        .env("COUNTER", &counter)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&tested.stdout);
    assert!(
        tested.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&tested.stderr)
    );
    assert!(text.contains("1 passed; 0 failed"), "{text}");

    // The dev loop: a balance set directly, a send from an account whose key nobody has, the
    // clock moved and a block mined on demand.
    let whale = "0x000000000000000000000000000000000000a11e";
    f.cast(&["rpc", "anvil_setBalance", whale, "0x56bc75e2d63100000"]);
    assert_eq!(f.cast(&["balance", whale]), "100000000000000000000");
    f.cast(&["rpc", "anvil_impersonateAccount", whale]);
    let unlocked = f.cast_json(&[
        "send",
        "--unlocked",
        "--from",
        whale,
        "--value",
        "2ether",
        bob,
        "--json",
    ]);
    assert_eq!(unlocked["status"], "0x1", "{unlocked}");
    assert_eq!(unlocked["from"], whale);
    assert_eq!(f.cast(&["balance", bob]), "3000000000000000000");
    let before: u64 = f
        .cast(&["block", "latest", "-f", "timestamp"])
        .parse()
        .unwrap();
    f.cast(&["rpc", "evm_increaseTime", "86400"]);
    f.cast(&["rpc", "evm_mine"]);
    let after: u64 = f
        .cast(&["block", "latest", "-f", "timestamp"])
        .parse()
        .unwrap();
    assert!(after >= before + 86_400, "{before} → {after}");
}
