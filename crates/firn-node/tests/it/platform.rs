//! `platform.*` shapes and errors over real HTTP, checked against AvalancheGo's wire facts.

use firn_core::encoding::Encoding;
use firn_core::pchain::Block;
use firn_devnet::Wallet;
use serde_json::json;

use crate::common::*;

#[tokio::test]
async fn height_blocks_and_encodings() {
    let d = Devnet::start().await;
    assert_eq!(
        d.p("platform.getHeight", json!({})).await,
        json!({ "height": "0" })
    );

    // Genesis by height, as a number or a decimal string, in every encoding.
    let hex = d
        .p("platform.getBlockByHeight", json!({ "height": 0 }))
        .await;
    assert_eq!(keys(&hex), ["block", "encoding"]);
    assert_eq!(hex["encoding"], "hex");
    let bytes = Encoding::Hex
        .decode_bytes(hex["block"].as_str().unwrap())
        .unwrap();
    let block: Block = firn_core::codec::from_bytes(&bytes).unwrap();
    assert_eq!(block.id(), d.chain.block_by_height(0).unwrap().block.id());
    let by_str = d
        .p(
            "platform.getBlockByHeight",
            json!({ "height": "0", "encoding": "HEXC" }),
        )
        .await;
    assert_eq!(by_str["encoding"], "hexc");
    assert_eq!(by_str["block"], hex["block"]);
    let nc = d
        .p(
            "platform.getBlockByHeight",
            json!({ "height": 0, "encoding": "hexnc" }),
        )
        .await;
    assert_eq!(
        nc["block"].as_str().unwrap(),
        format!("0x{}", hex::encode(&bytes))
    );

    // By ID, JSON encoding: the core crate's platform.getBlock JSON.
    let j = d
        .p(
            "platform.getBlock",
            json!({ "blockID": block.id(), "encoding": "json" }),
        )
        .await;
    assert_eq!(j["encoding"], "json");
    assert_eq!(j["block"]["id"], block.id().to_string());
    assert_eq!(j["block"]["height"], 0);

    // A built block is served too.
    let w = Wallet::new(&d.chain);
    let to = d.chain.funded_addresses()[3];
    d.issue_and_build(&w.send(to, 5_000_000_000).unwrap()).await;
    assert_eq!(d.height().await, 1);
    let b1 = d
        .p(
            "platform.getBlockByHeight",
            json!({ "height": 1, "encoding": "json" }),
        )
        .await;
    assert_eq!(b1["block"]["parentID"], block.id().to_string());
    assert!(b1["block"]["time"].is_u64());
    assert_eq!(b1["block"]["txs"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn block_errors_are_avalanchego_texts() {
    let d = Devnet::start().await;
    assert_eq!(
        d.p_err("platform.getBlockByHeight", json!({ "height": 9_999_999 }))
            .await,
        "couldn't get block at height 9999999: not found"
    );
    let id = firn_core::ids::Id([7; 32]);
    assert_eq!(
        d.p_err("platform.getBlock", json!({ "blockID": id })).await,
        format!("couldn't get block with id {id}: not found")
    );
    assert_eq!(
        d.p_err("platform.getBlock", json!({ "blockID": "not-cb58" }))
            .await,
        firn_rpc::avalanche::INVALID_ARG_MESSAGE
    );
    assert_eq!(
        d.p_err(
            "platform.getBlockByHeight",
            json!({ "height": 0, "encoding": "base64" })
        )
        .await,
        firn_rpc::avalanche::INVALID_ARG_MESSAGE
    );
    assert_eq!(
        d.p_err("platform.getFoo", json!({})).await,
        "rpc: can't find method \"platform.GetFoo\""
    );
    assert_eq!(
        d.p_err("platform.getBlockchainStatus", json!({})).await,
        "argument 'blockchainID' not given"
    );
    assert_eq!(
        d.p_err(
            "platform.getSubnet",
            json!({ "subnetID": firn_core::ids::Id::ZERO })
        )
        .await,
        "the primary network isn't a subnet"
    );
    assert_eq!(
        d.p_err("platform.getValidatorsAt", json!({ "height": 50 }))
            .await,
        "failed to get validator set at 50: failed to fetch validator set at unfinalized height"
    );
    // The alias serves the same service.
    let (code, _) = d
        .error_at(
            "/ext/P",
            "platform.getBlockByHeight",
            json!({ "height": 3 }),
        )
        .await;
    assert_eq!(code, -32000);
}

#[tokio::test]
async fn balance_utxos_and_tx_lifecycle() {
    let d = Devnet::start().await;
    let n = d.chain.network();
    let me = d.chain.funded_addresses()[0];
    let addr = n.p_address(&me);
    let cfg = d.chain.config();

    let b = d
        .p("platform.getBalance", json!({ "addresses": [addr] }))
        .await;
    assert_eq!(
        keys(&b),
        [
            "balance",
            "unlocked",
            "lockedStakeable",
            "lockedNotStakeable",
            "balances",
            "unlockeds",
            "lockedStakeables",
            "lockedNotStakeables",
            "utxoIDs"
        ]
    );
    assert_eq!(dec(&b["unlocked"]), cfg.funded_amount);
    assert_eq!(dec(&b["lockedStakeable"]), cfg.locked_amount);
    assert_eq!(dec(&b["lockedNotStakeable"]), 0);
    assert_eq!(dec(&b["balance"]), cfg.funded_amount + cfg.locked_amount);
    let asset = n.avax_asset_id.to_string();
    assert_eq!(
        dec(&b["balances"][&asset]),
        cfg.funded_amount + cfg.locked_amount
    );
    assert_eq!(b["lockedNotStakeables"], json!({}));
    let ids = b["utxoIDs"].as_array().unwrap();
    assert_eq!(ids.len(), 2);
    assert_eq!(keys(&ids[0]), ["txID", "outputIndex"]);
    assert!(ids[0]["outputIndex"].is_u64());

    // An address with nothing: utxoIDs is null, maps are empty.
    let nobody = n.p_address(&firn_core::ids::ShortId([0x42; 20]));
    let e = d
        .p("platform.getBalance", json!({ "addresses": [nobody] }))
        .await;
    assert_eq!(e["utxoIDs"], serde_json::Value::Null);
    assert_eq!(e["balances"], json!({}));
    assert_eq!(e["balance"], "0");
    // Another network's HRP is refused.
    let mainnet = firn_core::address::format_address("P", 1, &me);
    let msg = d
        .p_err("platform.getBalance", json!({ "addresses": [mainnet] }))
        .await;
    assert!(msg.contains("couldn't parse address"), "{msg}");
    assert_eq!(
        d.p_err("platform.getBalance", json!({ "addresses": [] }))
            .await,
        "no addresses provided"
    );

    // getUTXOs: paging shape and bytes that decode to the state's UTXOs.
    let u = d
        .p(
            "platform.getUTXOs",
            json!({ "addresses": [addr], "limit": 1 }),
        )
        .await;
    assert_eq!(keys(&u), ["numFetched", "utxos", "endIndex", "encoding"]);
    assert_eq!(u["numFetched"], "1");
    assert_eq!(keys(&u["endIndex"]), ["address", "utxo"]);
    assert_eq!(u["endIndex"]["address"], addr);
    let first = Encoding::Hex
        .decode_bytes(u["utxos"][0].as_str().unwrap())
        .unwrap();
    assert_eq!(&first[..2], &[0, 0], "codec version 0");
    let next = d
        .p(
            "platform.getUTXOs",
            json!({ "addresses": [addr], "limit": "5", "startIndex": u["endIndex"], "encoding": "hexnc" }),
        )
        .await;
    assert_eq!(next["numFetched"], "1");
    assert_eq!(next["encoding"], "hexnc");
    assert_ne!(next["utxos"][0], u["utxos"][0]);
    let page = d.chain.utxos(&[me], None, 10);
    let want: Vec<String> = page
        .utxos
        .iter()
        .map(|x| {
            let mut w = firn_core::codec::Writer::new();
            w.version();
            w.raw(x.tx_id.as_bytes());
            w.u32(x.output_index);
            w.raw(x.asset_id.as_bytes());
            firn_core::codec::Encode::encode(&x.output, &mut w);
            format!("0x{}", hex::encode(w.into_bytes()))
        })
        .collect();
    assert_eq!(next["utxos"][0].as_str().unwrap(), want[1]);

    // A send through issueTx: Processing, then Committed after a block.
    let w = Wallet::new(&d.chain);
    let to = d.chain.funded_addresses()[5];
    let tx = w.send(to, 7 * 1_000_000_000).unwrap();
    let id = d.issue(&tx).await;
    assert_eq!(
        d.p("platform.getTxStatus", json!({ "txID": id })).await,
        json!({ "status": "Processing" })
    );
    let dup = d
        .p_err(
            "platform.issueTx",
            json!({ "tx": firn_core::encoding::hex_encode_checksummed(&firn_core::codec::to_bytes(&tx)) }),
        )
        .await;
    assert_eq!(dup, "couldn't issue tx: duplicate tx");
    let built = d.advance(1).await;
    assert_eq!(built, vec![1]);
    assert_eq!(
        d.p("platform.getTxStatus", json!({ "txID": id })).await,
        json!({ "status": "Committed" })
    );
    let unknown = firn_core::ids::Id([3; 32]);
    assert_eq!(
        d.p("platform.getTxStatus", json!({ "txID": unknown }))
            .await,
        json!({ "status": "Unknown" })
    );
    let gt = d
        .p("platform.getTx", json!({ "txID": id, "encoding": "json" }))
        .await;
    assert_eq!(gt["encoding"], "json");
    assert_eq!(gt["tx"]["id"], id);
    assert!(gt["tx"]["unsignedTx"]["outputs"].is_array());
    let gh = d.p("platform.getTx", json!({ "txID": id })).await;
    let raw = Encoding::Hex
        .decode_bytes(gh["tx"].as_str().unwrap())
        .unwrap();
    assert_eq!(raw, firn_core::codec::to_bytes(&tx));
    assert_eq!(
        d.p_err("platform.getTx", json!({ "txID": unknown })).await,
        "couldn't get tx: not found"
    );

    // Bad tx bytes.
    let msg = d.p_err("platform.issueTx", json!({ "tx": "0x1234" })).await;
    assert!(msg.starts_with("problem decoding transaction: "), "{msg}");
    let junk = firn_core::encoding::hex_encode_checksummed(&[0, 0, 0, 0, 0, 99]);
    let msg = d.p_err("platform.issueTx", json!({ "tx": junk })).await;
    assert!(msg.starts_with("couldn't parse tx: "), "{msg}");
}

#[tokio::test]
async fn chain_and_network_methods() {
    let d = Devnet::start().await;
    let n = d.chain.network();
    let cfg = d.chain.config();
    assert_eq!(
        d.p("platform.getStakingAssetID", json!({})).await,
        json!({ "assetID": n.avax_asset_id })
    );
    let ts = d.p("platform.getTimestamp", json!({})).await;
    assert_eq!(ts, json!({ "timestamp": "2025-01-01T00:00:00Z" }));
    let ms = d.p("platform.getMinStake", json!({})).await;
    assert_eq!(
        dec(&ms["minValidatorStake"]),
        cfg.staking.min_validator_stake
    );
    assert_eq!(
        dec(&ms["minDelegatorStake"]),
        cfg.staking.min_delegator_stake
    );
    let sup = d.p("platform.getCurrentSupply", json!({})).await;
    assert_eq!(keys(&sup), ["supply", "height"]);
    assert_eq!(dec(&sup["supply"]), d.chain.current_supply());
    assert_eq!(sup["height"], "0");
    let bc = d.p("platform.getBlockchains", json!({})).await;
    let chains = bc["blockchains"].as_array().unwrap();
    assert_eq!(keys(&chains[0]), ["id", "name", "subnetID", "vmID"]);
    assert!(chains.iter().all(|c| c["id"] != n.p_chain_id.to_string()));
    assert_eq!(
        d.p(
            "platform.getBlockchainStatus",
            json!({ "blockchainID": "X" })
        )
        .await,
        json!({ "status": "Validating" })
    );
    assert_eq!(
        d.p(
            "platform.getBlockchainStatus",
            json!({ "blockchainID": firn_core::ids::Id([1; 32]) })
        )
        .await,
        json!({ "status": "Unknown" })
    );
    assert_eq!(
        d.p(
            "platform.validatedBy",
            json!({ "blockchainID": n.c_chain_id })
        )
        .await,
        json!({ "subnetID": firn_core::ids::Id::ZERO })
    );
    let subnets = d.p("platform.getSubnets", json!({})).await;
    assert_eq!(
        subnets["subnets"],
        json!([{ "id": firn_core::ids::Id::ZERO, "controlKeys": [], "threshold": "0" }])
    );
    let pending = d.p("platform.getPendingValidators", json!({})).await;
    assert_eq!(pending, json!({ "validators": [], "delegators": [] }));
}
