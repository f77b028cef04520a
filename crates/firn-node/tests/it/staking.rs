//! The staking lifecycle seen through the RPC: a validator and a delegator issued with
//! `platform.issueTx`, time moved with `firn.advanceTime`, rewards and supply.

use firn_core::ids::NodeId;
use firn_devnet::Wallet;
use firn_devnet::genesis::derive_bls;
use serde_json::json;

use crate::common::*;

const AVAX: u64 = 1_000_000_000;
const DAY: u64 = 24 * 3600;

#[tokio::test]
async fn validator_and_delegator_earn_rewards_seen_through_rpc() {
    let d = Devnet::start().await;
    let n = d.chain.network();
    let w = Wallet::new(&d.chain);
    let owner = firn_core::ids::ShortId([0x55; 20]);
    let owner_addr = n.p_address(&owner);
    let node = NodeId([0x77; 20]);
    let bls = derive_bls("rpc-test", "v", 0).unwrap();
    let genesis = d.chain.config().genesis_time;
    let supply0 = dec(&d.p("platform.getCurrentSupply", json!({})).await["supply"]);
    let before = dec(&d
        .p("platform.getBalance", json!({ "addresses": [owner_addr] }))
        .await["balance"]);

    let vend = genesis + 30 * DAY;
    let vtx = w
        .add_validator(node, &bls, 2_000 * AVAX, vend, owner, 100_000)
        .unwrap();
    let vid = d.issue_and_build(&vtx).await;
    let dtx = w
        .add_delegator(node, 100 * AVAX, genesis + 20 * DAY, owner)
        .unwrap();
    let did = d.issue_and_build(&dtx).await;
    let staked_height = d.height().await;

    // Shape 1, with delegators when exactly one node is asked for.
    let one = d
        .p(
            "platform.getCurrentValidators",
            json!({ "nodeIDs": [node] }),
        )
        .await;
    let v = &one["validators"][0];
    assert_eq!(
        keys(v),
        [
            "txID",
            "startTime",
            "endTime",
            "weight",
            "nodeID",
            "validationRewardOwner",
            "delegationRewardOwner",
            "potentialReward",
            "accruedDelegateeReward",
            "delegationFee",
            "uptime",
            "connected",
            "signer",
            "delegatorCount",
            "delegatorWeight",
            "delegators"
        ]
    );
    assert_eq!(v["txID"], vid);
    assert_eq!(dec(&v["weight"]), 2_000 * AVAX);
    assert_eq!(dec(&v["endTime"]), vend);
    assert_eq!(v["delegationFee"], "10.0000");
    assert_eq!(v["uptime"], "100.0000");
    assert_eq!(v["connected"], true);
    assert_eq!(
        v["validationRewardOwner"],
        json!({ "locktime": "0", "threshold": "1", "addresses": [owner_addr] })
    );
    assert_eq!(
        v["signer"]["publicKey"],
        format!("0x{}", hex::encode(bls.public_key().to_bytes()))
    );
    assert_eq!(keys(&v["signer"]), ["publicKey", "proofOfPossession"]);
    assert_eq!(v["delegatorCount"], "1");
    assert_eq!(dec(&v["delegatorWeight"]), 100 * AVAX);
    let del = &v["delegators"][0];
    assert_eq!(
        keys(del),
        [
            "txID",
            "startTime",
            "endTime",
            "weight",
            "nodeID",
            "rewardOwner",
            "potentialReward"
        ]
    );
    assert_eq!(del["txID"], did);
    assert!(dec(&del["potentialReward"]) > 0);
    // Without a single node ID there is no `delegators` key.
    let all = d.p("platform.getCurrentValidators", json!({})).await;
    let listed = all["validators"].as_array().unwrap();
    assert_eq!(listed.len() as u32, d.chain.config().initial_validators + 1);
    assert!(listed.iter().all(|v| v.get("delegators").is_none()));
    // An unknown node is left out.
    let none = d
        .p(
            "platform.getCurrentValidators",
            json!({ "nodeIDs": [NodeId([1; 20])] }),
        )
        .await;
    assert_eq!(none, json!({ "validators": [] }));

    // The supply counts the potential rewards from the stakers' start.
    let supply1 = dec(&d.p("platform.getCurrentSupply", json!({})).await["supply"]);
    let potential = dec(&v["potentialReward"]) + dec(&del["potentialReward"]);
    assert_eq!(supply1, supply0 + potential);

    // The validator set at the staking height has the node with stake plus delegation.
    let at = d
        .p(
            "platform.getValidatorsAt",
            json!({ "height": staked_height }),
        )
        .await;
    let entry = &at[node.to_string()];
    assert_eq!(keys(entry), ["publicKey", "weight"]);
    assert_eq!(dec(&entry["weight"]), 2_100 * AVAX);
    // A past height, before the validator, does not have it; "proposed" is the tip.
    let past = d
        .p("platform.getValidatorsAt", json!({ "height": "0" }))
        .await;
    assert!(past.get(node.to_string()).is_none());
    assert_eq!(
        past.as_object().unwrap().len() as u32,
        d.chain.config().initial_validators
    );
    let proposed = d
        .p("platform.getValidatorsAt", json!({ "height": "proposed" }))
        .await;
    assert_eq!(proposed, at);

    // Past both end times: reward proposals and commits are built.
    let built = d.advance(31 * DAY).await;
    assert!(
        built.len() >= 4,
        "expected proposal+commit per staker, got {built:?}"
    );
    let after = d
        .p(
            "platform.getCurrentValidators",
            json!({ "nodeIDs": [node] }),
        )
        .await;
    assert_eq!(after, json!({ "validators": [] }));
    assert_eq!(
        d.p("platform.getTxStatus", json!({ "txID": vid })).await,
        json!({ "status": "Committed" })
    );

    // Rewards: reward UTXOs exist and the owner's balance grew by stake back plus rewards.
    let r = d.p("platform.getRewardUTXOs", json!({ "txID": did })).await;
    assert_eq!(keys(&r), ["numFetched", "utxos", "encoding"]);
    assert_eq!(r["numFetched"], "1");
    let vr = d.p("platform.getRewardUTXOs", json!({ "txID": vid })).await;
    assert!(dec(&vr["numFetched"]) >= 1);
    assert_eq!(before, 0);
    let now = d
        .p("platform.getBalance", json!({ "addresses": [owner_addr] }))
        .await;
    assert_eq!(dec(&now["balance"]), potential);
    assert_eq!(dec(&now["unlocked"]), potential);
    let utxos = d
        .p("platform.getUTXOs", json!({ "addresses": [owner_addr] }))
        .await;
    assert_eq!(
        utxos["numFetched"],
        vr["numFetched"]
            .as_str()
            .map(|n| (n.parse::<u64>().unwrap() + 1).to_string())
            .unwrap()
    );
    let supply2 = dec(&d.p("platform.getCurrentSupply", json!({})).await["supply"]);
    assert_eq!(supply2, supply1);
}

#[tokio::test]
async fn a_tx_invalid_at_build_time_is_reported_dropped_with_its_reason() {
    let d = Devnet::start().await;
    let cfg = d.chain.config();
    let w = Wallet::with_keys(&d.chain, vec![cfg.funded_key(0)]);
    // Exactly the minimum duration now; one second too short once the clock moves on.
    let end = d.chain.timestamp() + cfg.staking.min_stake_duration_secs;
    let tx = w
        .add_delegator(
            cfg.validator_node_id(0),
            100 * AVAX,
            end,
            w.change_address(),
        )
        .unwrap();
    let id = d.issue(&tx).await;
    assert_eq!(d.advance(1).await, Vec::<u64>::new());
    assert_eq!(
        d.p("platform.getTxStatus", json!({ "txID": id })).await,
        json!({ "status": "Dropped", "reason": "staking period is too short" })
    );
}
