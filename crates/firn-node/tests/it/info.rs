//! The rest of `info.*` (`getNodeIP`, `peers`, `upgrades`, `uptime`, `acps`, `getTxFee`,
//! `getVMs`) and `proposervm.*`, in AvalancheGo's shapes: the devnet's validators are the
//! node's peers, an offline one is not, and the node's own uptime follows the devnet's.

use firn_devnet::DevnetConfig;
use serde_json::{Value, json};

use crate::common::*;

async fn info(d: &Devnet, method: &str, params: Value) -> Value {
    d.call_at("/ext/info", method, params).await
}

#[tokio::test]
async fn peers_uptime_upgrades_fees_and_vms() {
    let mut config = DevnetConfig::default();
    let cfg0 = config.clone();
    let offline = cfg0.validator_node_id(3);
    config.offline_validators = vec![offline];
    let d = Devnet::start_with(config).await;
    let cfg = d.chain.config();

    assert_eq!(
        info(&d, "info.getNodeIP", json!({})).await,
        json!({ "ip": "" })
    );

    // The other initial validators, less the offline one.
    let peers = info(&d, "info.peers", json!({})).await;
    let ids: Vec<String> = peers["peers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["nodeID"].as_str().unwrap().to_owned())
        .collect();
    let mut want: Vec<String> = (1..cfg.initial_validators)
        .map(|i| cfg.validator_node_id(i))
        .filter(|id| *id != offline)
        .map(|id| id.to_string())
        .collect();
    want.sort();
    let mut got = ids.clone();
    got.sort();
    assert_eq!(got, want);
    assert_eq!(peers["numPeers"], want.len().to_string());
    let first = &peers["peers"][0];
    assert_eq!(
        keys(first),
        [
            "ip",
            "publicIP",
            "nodeID",
            "version",
            "upgradeTime",
            "lastSent",
            "lastReceived",
            "observedUptime",
            "trackedSubnets",
            "supportedACPs",
            "objectedACPs",
            "benched"
        ]
    );
    assert_eq!(first["observedUptime"], "100");
    assert!(first["lastSent"].as_str().unwrap().ends_with('Z'));
    let one = info(&d, "info.peers", json!({ "nodeIDs": [ids[0]] })).await;
    assert_eq!(one["numPeers"], "1");
    assert_eq!(one["peers"][0]["nodeID"], ids[0]);
    let own = cfg.validator_node_id(0).to_string();
    let none = info(&d, "info.peers", json!({ "nodeIDs": [own] })).await;
    assert_eq!(
        none,
        json!({ "numPeers": "0", "peers": [] }),
        "a node is not its own peer"
    );

    let up = info(&d, "info.upgrades", json!({})).await;
    assert_eq!(up["etnaTime"], "2020-12-05T05:00:00Z");
    assert_eq!(up["fortunaTime"], "2020-12-05T05:00:00Z");
    assert_eq!(up["graniteTime"], "9999-12-01T00:00:00Z");
    assert_eq!(up["graniteEpochDuration"], 30_000_000_000u64);
    assert_eq!(
        up["cortinaXChainStopVertexID"],
        "11111111111111111111111111111111LpoYY"
    );
    assert_eq!(keys(&up).len(), 18);

    assert_eq!(
        info(&d, "info.uptime", json!({})).await,
        json!({ "rewardingStakePercentage": "100.0000", "weightedAveragePercentage": "100.0000" })
    );
    assert_eq!(
        info(&d, "info.acps", json!({})).await,
        json!({ "acps": {} })
    );

    // Fuji's static fees.
    let fees = info(&d, "info.getTxFee", json!({})).await;
    assert_eq!(fees["txFee"], "1000000");
    assert_eq!(fees["createSubnetTxFee"], "100000000");
    assert_eq!(fees["transformSubnetTxFee"], "1000000000");
    assert_eq!(fees["addPrimaryNetworkValidatorFee"], "0");

    // VM and fx IDs as AvalancheGo's docs list them.
    let vms = info(&d, "info.getVMs", json!({})).await;
    assert_eq!(
        vms,
        json!({
            "vms": {
                "jvYyfQTxGMJLuGWa55kdP2p2zSUYsQ5Raupu4TW34ZAUBAbtq": ["avm"],
                "mgj786NP7uDwBCcq6YwThhaN8FLyybkCa4zBWTQbNgmK6k9A6": ["evm"],
                "rWhpuQPF1kb72esV2momhMuTYGkEb1oL29pt2EBXWmSy4kxnT": ["platform"],
                "srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy": [],
            },
            "fxs": {
                "qd2U4HDWUvMrVUeTcCHp6xH3Qpnn1XbU5MDdnBoiifFqvgXwT": "nftfx",
                "rXJsCSEYXg2TehWxCEEGj6JU2PWKTkd6cBdNLjoe2SpsKD9cy": "propertyfx",
                "spdxUxVJQbX85MGxMHbKw1sHxMnSqJ3QBzDyDYEP3h6TLuxqQ": "secp256k1fx",
            }
        })
    );
    let version = info(&d, "info.getNodeVersion", json!({})).await;
    assert_eq!(
        keys(&version["vmVersions"]),
        [
            "avm",
            "evm",
            "platform",
            "srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy"
        ]
    );

    // proposervm on the P-, X- and C-Chains; none on a chain firn does not run.
    let height = d.height().await;
    for chain in ["P", "X", "C"] {
        let path = format!("/ext/bc/{chain}/proposervm");
        assert_eq!(
            d.call_at(&path, "proposervm.getProposedHeight", json!({}))
                .await,
            json!({ "height": height.to_string() })
        );
        assert_eq!(
            d.call_at(&path, "proposervm.getCurrentEpoch", json!({}))
                .await,
            json!({ "number": "0", "startTime": "0", "pChainHeight": "0" }),
            "no epochs before Granite"
        );
    }
    let resp = reqwest::Client::new()
        .post(format!("{}/ext/bc/Q/proposervm", d.url))
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "proposervm.getProposedHeight", "params": {}}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 404, "no chain Q");
}

#[tokio::test]
async fn an_offline_node_sees_no_uptime() {
    let mut config = DevnetConfig::default();
    config.offline_validators = vec![config.validator_node_id(0)];
    let d = Devnet::start_with(config).await;
    assert_eq!(
        info(&d, "info.uptime", json!({})).await,
        json!({ "rewardingStakePercentage": "0.0000", "weightedAveragePercentage": "0.0000" })
    );
}
