//! An L1 conversion seen through `getCurrentValidators` (L1 shape), `getL1Validator`,
//! `getAllValidatorsAt`, `getSubnet` and `/ext/bc/<chain>/validators`.

use firn_core::ids::{Id, NodeId};
use firn_core::warp::messages::PChainOwner;
use firn_devnet::Wallet;
use firn_devnet::genesis::{derive_bls, single_owner};
use firn_devnet::wallet::L1ValidatorSpec;
use serde_json::json;

use crate::common::*;

const AVAX: u64 = 1_000_000_000;

#[tokio::test]
async fn l1_conversion_through_rpc() {
    let d = Devnet::start().await;
    let n = d.chain.network();
    let w = Wallet::new(&d.chain);
    let me = w.change_address();
    let me_addr = n.p_address(&me);

    let subnet: Id = d
        .issue_and_build(&w.create_subnet(single_owner(me)).unwrap())
        .await
        .parse()
        .unwrap();
    let chain: Id = d
        .issue_and_build(
            &w.create_chain(subnet, "manager", Id([9; 32]), b"{}".to_vec())
                .unwrap(),
        )
        .await
        .parse()
        .unwrap();

    let s = d
        .p("platform.getSubnet", json!({ "subnetID": subnet }))
        .await;
    assert_eq!(
        keys(&s),
        [
            "isPermissioned",
            "controlKeys",
            "threshold",
            "locktime",
            "subnetTransformationTxID",
            "conversionID",
            "managerChainID",
            "managerAddress"
        ]
    );
    assert_eq!(s["isPermissioned"], true);
    assert_eq!(s["controlKeys"], json!([me_addr]));
    assert_eq!(s["threshold"], "1");
    assert_eq!(s["conversionID"], Id::ZERO.to_string());
    assert_eq!(
        d.p("platform.validatedBy", json!({ "blockchainID": chain }))
            .await,
        json!({ "subnetID": subnet })
    );
    let chains = d.p("platform.getBlockchains", json!({})).await;
    assert_eq!(chains["blockchains"][0]["name"], "manager");
    assert_eq!(
        d.p(
            "platform.getBlockchainStatus",
            json!({ "blockchainID": chain })
        )
        .await,
        json!({ "status": "Created" })
    );

    let sk: Vec<_> = (0..2)
        .map(|i| derive_bls("rpc", "l1", i).unwrap())
        .collect();
    let nodes: Vec<NodeId> = (0..2).map(|i| NodeId([0x10 + i; 20])).collect();
    let owner = PChainOwner {
        threshold: 1,
        addresses: vec![me],
    };
    let specs: Vec<L1ValidatorSpec<'_>> = (0..2)
        .map(|i| L1ValidatorSpec {
            node_id: nodes[i],
            weight: 100,
            balance: 10 * AVAX,
            bls: &sk[i],
            owner: owner.clone(),
        })
        .collect();
    let convert = w
        .convert_subnet_to_l1(subnet, chain, vec![0xAB; 20], &specs)
        .unwrap();
    d.issue_and_build(&convert).await;
    let height = d.height().await;

    // getCurrentValidators: shape 3.
    let cv = d
        .p(
            "platform.getCurrentValidators",
            json!({ "subnetID": subnet }),
        )
        .await;
    let vs = cv["validators"].as_array().unwrap();
    assert_eq!(vs.len(), 2);
    assert_eq!(
        keys(&vs[0]),
        [
            "nodeID",
            "weight",
            "startTime",
            "validationID",
            "publicKey",
            "remainingBalanceOwner",
            "deactivationOwner",
            "minNonce",
            "balance"
        ]
    );
    assert_eq!(vs[0]["weight"], "100");
    assert_eq!(
        vs[0]["remainingBalanceOwner"],
        json!({ "locktime": "0", "threshold": "1", "addresses": [me_addr] })
    );
    let balance = dec(&vs[0]["balance"]);
    assert!(balance > 0 && balance <= 10 * AVAX);

    // getL1Validator adds subnetID and height.
    let vid = vs[0]["validationID"].clone();
    let one = d
        .p("platform.getL1Validator", json!({ "validationID": vid }))
        .await;
    assert_eq!(one["subnetID"], subnet.to_string());
    assert_eq!(dec(&one["height"]), height);
    assert_eq!(one["nodeID"], vs[0]["nodeID"]);
    let missing = d
        .p_err(
            "platform.getL1Validator",
            json!({ "validationID": Id([5; 32]) }),
        )
        .await;
    assert_eq!(
        missing,
        format!(
            "fetching L1 validator \"{}\" failed: not found",
            Id([5; 32])
        )
    );

    // getSubnet after conversion.
    let s = d
        .p("platform.getSubnet", json!({ "subnetID": subnet }))
        .await;
    assert_eq!(s["isPermissioned"], false);
    assert_eq!(s["managerChainID"], chain.to_string());
    assert_eq!(s["managerAddress"], format!("0x{}", "ab".repeat(20)));

    // getAllValidatorsAt: canonical sets of the primary network and the L1.
    let all = d
        .p("platform.getAllValidatorsAt", json!({ "height": height }))
        .await;
    let sets = all["validatorSets"].as_object().unwrap();
    let l1 = &sets[&subnet.to_string()];
    assert_eq!(keys(l1), ["validators", "totalWeight"]);
    assert_eq!(l1["totalWeight"], "200");
    assert_eq!(
        keys(&l1["validators"][0]),
        ["publicKey", "weight", "nodeIDs"]
    );
    assert!(sets.contains_key(&Id::ZERO.to_string()));
    // Before the conversion the L1 had no validators.
    let before = d
        .p(
            "platform.getValidatorsAt",
            json!({ "subnetID": subnet, "height": height - 1 }),
        )
        .await;
    assert_eq!(before, json!({}));
    let now = d
        .p(
            "platform.getValidatorsAt",
            json!({ "subnetID": subnet, "height": height }),
        )
        .await;
    assert_eq!(now.as_object().unwrap().len(), 2);

    // /ext/bc/<chain>/validators: raw numbers.
    let path = format!("/ext/bc/{chain}/validators");
    let r = d
        .call_at(&path, "validators.getCurrentValidators", json!({}))
        .await;
    let vs = r["validators"].as_array().unwrap();
    assert_eq!(vs.len(), 2);
    assert_eq!(
        keys(&vs[0]),
        [
            "validationID",
            "nodeID",
            "weight",
            "startTimestamp",
            "isActive",
            "isL1Validator",
            "isConnected",
            "uptimePercentage",
            "uptimeSeconds"
        ]
    );
    assert_eq!(vs[0]["weight"], 100);
    assert_eq!(vs[0]["isL1Validator"], true);
    assert!(vs[0]["startTimestamp"].is_u64());
    let filtered = d
        .call_at(
            &path,
            "validators.getCurrentValidators",
            json!({ "nodeIDs": [nodes[1]] }),
        )
        .await;
    assert_eq!(filtered["validators"].as_array().unwrap().len(), 1);
    assert_eq!(filtered["validators"][0]["nodeID"], nodes[1].to_string());
    // A primary network chain has no such endpoint.
    let resp = reqwest::Client::new()
        .post(format!("{}/ext/bc/{}/validators", d.url, n.x_chain_id))
        .json(&json!({ "jsonrpc": "2.0", "method": "validators.getCurrentValidators", "params": {}, "id": 1 }))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 404);
}
