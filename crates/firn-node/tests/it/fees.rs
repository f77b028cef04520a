//! Etna's fee methods, `getStake` and `sampleValidators` over HTTP, in AvalancheGo's shapes:
//! the dynamic fee state moves as blocks consume gas and time refills it, and a tx that does
//! not pay its dynamic fee is refused with AvalancheGo's flow-check text.

use firn_core::ids::{NodeId, ShortId};
use firn_devnet::Wallet;
use firn_devnet::genesis::derive_bls;
use serde_json::json;

use crate::common::*;

const AVAX: u64 = 1_000_000_000;
const DAY: u64 = 24 * 3600;

#[tokio::test]
async fn fee_config_and_state_have_avalanchegos_shapes_and_move_with_blocks() {
    let d = Devnet::start().await;
    let config = d.p("platform.getFeeConfig", json!({})).await;
    // Fuji's (and AvalancheGo's local) dynamic fee configuration, as plain JSON numbers.
    assert_eq!(
        config,
        json!({
            "weights": [1, 1000, 1000, 4],
            "maxCapacity": 1_000_000,
            "maxPerSecond": 100_000,
            "targetPerSecond": 50_000,
            "minPrice": 1,
            "excessConversionConstant": 2_164_043,
        })
    );
    let state = d.p("platform.getFeeState", json!({})).await;
    assert_eq!(keys(&state), ["capacity", "excess", "price", "timestamp"]);
    assert_eq!(state["capacity"], 1_000_000);
    assert_eq!(state["excess"], 0);
    assert_eq!(state["price"], 1);
    assert_eq!(state["timestamp"], "2025-01-01T00:00:00Z");

    // A transfer consumes its gas: capacity down (after a second's refill, capped), excess up.
    let w = Wallet::new(&d.chain);
    let tx = w.send(ShortId([0x21; 20]), AVAX).unwrap();
    let fee = d.chain.fee_of(tx.unsigned()).unwrap();
    d.issue_and_build(&tx).await;
    let state = d.p("platform.getFeeState", json!({})).await;
    assert_eq!(state["excess"], fee, "price 1: the fee is the gas");
    assert_eq!(state["capacity"], 1_000_000 - fee);
    assert_eq!(state["timestamp"], "2025-01-01T00:00:01Z");
    // Time drains the excess at the target rate and refills capacity.
    d.advance(10).await;
    let state = d.p("platform.getFeeState", json!({})).await;
    // No block was built (nothing to do), so the state is the last block's.
    assert_eq!(state["excess"], fee);

    let vconfig = d.p("platform.getValidatorFeeConfig", json!({})).await;
    assert_eq!(
        vconfig,
        json!({
            "capacity": 20_000,
            "target": 10_000,
            "minPrice": 512,
            "excessConversionConstant": 51_937_021,
        })
    );
    let vstate = d.p("platform.getValidatorFeeState", json!({})).await;
    assert_eq!(keys(&vstate), ["excess", "price", "timestamp"]);
    assert_eq!(vstate["excess"], 0);
    assert_eq!(vstate["price"], 512);
}

#[tokio::test]
async fn an_underpaid_dynamic_fee_is_refused_with_the_flow_check_text() {
    let d = Devnet::start().await;
    let key = d.chain.config().funded_key(0);
    let w = Wallet::with_keys(&d.chain, vec![d.chain.config().funded_key(0)]);
    let tx = w.send(ShortId([0x22; 20]), AVAX).unwrap();
    let fee = d.chain.fee_of(tx.unsigned()).unwrap();
    // Re-sign the same transfer with one nAVAX more sent, so one nAVAX of fee is missing.
    let (unsigned, _) = tx.into_parts();
    let firn_core::pchain::tx::UnsignedTx::Base(mut base) = unsigned else {
        unreachable!()
    };
    let change = base
        .outputs
        .iter_mut()
        .find(|o| o.output.amount() != AVAX)
        .unwrap();
    if let firn_core::pchain::fx::Output::Transfer(t) = &mut change.output {
        t.amount += 1;
    }
    assert!(fee > 1);
    let unsigned = firn_core::pchain::tx::UnsignedTx::Base(base);
    let hash = unsigned.signing_hash();
    let creds = vec![
        firn_core::pchain::fx::Credential {
            signatures: vec![key.sign_hash(&hash).0],
        };
        match &unsigned {
            firn_core::pchain::tx::UnsignedTx::Base(b) => b.inputs.len(),
            _ => 0,
        }
    ];
    let bad = firn_core::pchain::tx::Tx::new(unsigned, creds);
    let hex = firn_core::encoding::hex_encode_checksummed(&firn_core::codec::to_bytes(&bad));
    let msg = d
        .p_err("platform.issueTx", json!({ "tx": hex, "encoding": "hex" }))
        .await;
    let asset = d.chain.network().avax_asset_id;
    assert_eq!(
        msg,
        format!("couldn't issue tx: insufficient unlocked funds: needs 1 more {asset}"),
    );
}

#[tokio::test]
async fn get_stake_and_sample_validators() {
    let d = Devnet::start().await;
    let n = d.chain.network();
    let w = Wallet::with_keys(&d.chain, vec![d.chain.config().funded_key(7)]);
    let node = NodeId([0x91; 20]);
    let bls = derive_bls("rpc-stake", "v", 0).unwrap();
    let end = d.chain.config().genesis_time + 30 * DAY;
    let owner = d.chain.funded_addresses()[7];
    let vtx = w
        .add_validator(node, &bls, 2_500 * AVAX, end, owner, 30_000)
        .unwrap();
    d.issue_and_build(&vtx).await;

    // The stake came from the key's stakeable-locked funds: its outputs are the key's.
    let staker_addr = n.p_address(&owner);
    let s = d
        .p("platform.getStake", json!({ "addresses": [staker_addr] }))
        .await;
    assert_eq!(keys(&s), ["staked", "stakeds", "stakedOutputs", "encoding"]);
    assert_eq!(s["staked"], (2_500 * AVAX).to_string());
    assert_eq!(
        s["stakeds"],
        json!({ n.avax_asset_id.to_string(): (2_500 * AVAX).to_string() })
    );
    assert_eq!(s["encoding"], "hex");
    let outs = s["stakedOutputs"].as_array().unwrap();
    assert!(!outs.is_empty());
    assert!(outs.iter().all(|o| o.as_str().unwrap().starts_with("0x")));
    // validatorsOnly still counts it (a validator); an address with no stake has none.
    let other = n.p_address(&ShortId([0x99; 20]));
    let none = d
        .p("platform.getStake", json!({ "addresses": [other] }))
        .await;
    assert_eq!(
        none,
        json!({ "staked": "0", "stakeds": {}, "stakedOutputs": [], "encoding": "hex" })
    );
    let too_many: Vec<String> = (0..257).map(|_| other.clone()).collect();
    assert_eq!(
        d.p_err("platform.getStake", json!({ "addresses": too_many }))
            .await,
        "257 addresses provided but this method can take at most 256"
    );

    // Samples are sorted node IDs of current validators; weight units are drawn without
    // replacement, so a sample can be as large as the total weight.
    let sample = d
        .p("platform.sampleValidators", json!({ "size": "3" }))
        .await;
    let ids: Vec<String> = sample["validators"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids.len(), 3);
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!(ids, sorted);
    let current: Vec<String> = d
        .chain
        .current_validators(firn_core::ids::Id::ZERO, &[])
        .iter()
        .map(|v| v.validator.node_id.to_string())
        .collect();
    assert!(ids.iter().all(|i| current.contains(i)), "{ids:?}");
    assert_eq!(
        d.p("platform.sampleValidators", json!({ "size": 0 })).await,
        json!({ "validators": [] })
    );
    let unknown = firn_core::ids::Id([7; 32]);
    assert_eq!(
        d.p_err(
            "platform.sampleValidators",
            json!({ "size": 1, "subnetID": unknown })
        )
        .await,
        format!("sampling {unknown} errored with missing validators")
    );
}
