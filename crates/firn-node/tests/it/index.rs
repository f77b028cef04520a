//! AvalancheGo's index API at `/ext/index/{P,C}/block`: accepted blocks by acceptance order,
//! the first after genesis at index 0, with the chains' own bytes and IDs and AvalancheGo's
//! errors.

use alloy_consensus::{SignableTransaction, TxEip1559, TxEnvelope};
use alloy_eips::eip2718::Encodable2718;
use alloy_primitives::{Address, Bytes, TxKind, U256};
use alloy_signer::SignerSync;
use alloy_signer_local::PrivateKeySigner;
use firn_core::encoding::hex_encode_checksummed;
use firn_core::ids::Id;
use firn_devnet::Wallet;
use firn_devnet::genesis::single_owner;
use firn_node::NodeConfig;
use serde_json::{Value, json};

use crate::common::*;

const P: &str = "/ext/index/P/block";
const C: &str = "/ext/index/C/block";
const X: &str = "/ext/index/X/block";

#[tokio::test]
async fn p_and_c_blocks_in_acceptance_order() {
    let d = Devnet::spawn(NodeConfig::test().with_evm()).await;

    // Nothing accepted since genesis yet, on any chain; the X-Chain's vertex index is not served.
    for path in [P, X, C] {
        assert_eq!(
            d.error_at(path, "index.getLastAccepted", json!({})).await,
            (-32000, "no containers have been accepted".to_owned())
        );
    }
    let x = reqwest::Client::new()
        .post(format!("{}/ext/index/X/vtx", d.url))
        .json(
            &json!({ "jsonrpc": "2.0", "id": 1, "method": "index.getLastAccepted", "params": {} }),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(x.status(), 404);

    let w = Wallet::new(&d.chain);
    let me = w.change_address();
    for _ in 0..3 {
        d.issue_and_build(&w.create_subnet(single_owner(me)).unwrap())
            .await;
    }
    let height = d.height().await;
    assert!(height >= 3);

    let last = d.call_at(P, "index.getLastAccepted", json!({})).await;
    let head = d.chain.block_by_height(height).unwrap().block;
    assert_eq!(
        last,
        json!({
            "id": head.id().to_string(),
            "bytes": hex_encode_checksummed(&head.bytes()),
            "timestamp": firn_core::calendar::rfc3339(head.time().unwrap()),
            "encoding": "hex",
            "index": (height - 1).to_string(),
        })
    );
    let same = d
        .p(
            "platform.getBlockByHeight",
            json!({ "height": height.to_string(), "encoding": "hex" }),
        )
        .await;
    assert_eq!(last["bytes"], same["block"]);

    // Every block after genesis, in order; the range stops at the last accepted.
    let range = d
        .call_at(
            P,
            "index.getContainerRange",
            json!({ "startIndex": "0", "numToFetch": "1024", "encoding": "hexnc" }),
        )
        .await;
    let containers = range["containers"].as_array().unwrap();
    assert_eq!(containers.len() as u64, height);
    for (i, c) in containers.iter().enumerate() {
        let b = d.chain.block_by_height(i as u64 + 1).unwrap().block;
        assert_eq!(c["index"], i.to_string());
        assert_eq!(c["id"], b.id().to_string());
        assert_eq!(c["bytes"], format!("0x{}", hex::encode(b.bytes())));
        assert_eq!(c["encoding"], "hexnc");
        let by_index = d
            .call_at(
                P,
                "index.getContainerByIndex",
                json!({ "index": i.to_string(), "encoding": "hexnc" }),
            )
            .await;
        assert_eq!(&by_index, c);
        let by_id = d
            .call_at(
                P,
                "index.getContainerByID",
                json!({ "id": c["id"], "encoding": "hexnc" }),
            )
            .await;
        assert_eq!(&by_id, c);
        assert_eq!(
            d.call_at(P, "index.getIndex", json!({ "id": c["id"] }))
                .await,
            json!({ "index": i.to_string() })
        );
    }
    let tail = d
        .call_at(
            P,
            "index.getContainerRange",
            json!({ "startIndex": (height - 1).to_string(), "numToFetch": "5" }),
        )
        .await;
    assert_eq!(tail["containers"].as_array().unwrap().len(), 1);

    // Genesis and unknown IDs are not accepted containers.
    let genesis = d.chain.block_by_height(0).unwrap().block.id();
    for id in [genesis, Id([7; 32])] {
        assert_eq!(
            d.call_at(P, "index.isAccepted", json!({ "id": id })).await,
            json!({ "isAccepted": false })
        );
        assert_eq!(
            d.error_at(P, "index.getIndex", json!({ "id": id })).await.1,
            "not found"
        );
        assert_eq!(
            d.error_at(P, "index.getContainerByID", json!({ "id": id }))
                .await
                .1,
            "not found"
        );
    }
    assert_eq!(
        d.call_at(P, "index.isAccepted", json!({ "id": head.id() }))
            .await,
        json!({ "isAccepted": true })
    );

    // AvalancheGo's refusals.
    let refused = |params: Value, method: &'static str| {
        let d = &d;
        async move { d.error_at(P, method, params).await.1 }
    };
    assert_eq!(
        refused(
            json!({ "index": height.to_string() }),
            "index.getContainerByIndex"
        )
        .await,
        format!("no container at index {height}")
    );
    for n in ["0", "1025"] {
        assert_eq!(
            refused(
                json!({ "startIndex": "0", "numToFetch": n }),
                "index.getContainerRange"
            )
            .await,
            format!("numToFetch must be in [1,1024] but is {n}")
        );
    }
    assert_eq!(
        refused(
            json!({ "startIndex": (height + 4).to_string(), "numToFetch": "1" }),
            "index.getContainerRange"
        )
        .await,
        format!(
            "start index ({}) > last accepted index ({})",
            height + 4,
            height - 1
        )
    );
    assert_eq!(
        refused(json!({ "encoding": "json" }), "index.getLastAccepted").await,
        "unsupported encoding in method"
    );

    // The C-Chain's blocks: their hash as ID, their RLP as bytes.
    let c = d.node.c_chain().unwrap();
    let key = PrivateKeySigner::from_bytes(&d.node.funded_keys()[0].to_bytes().into()).unwrap();
    let tx = TxEip1559 {
        chain_id: c.chain_id(),
        nonce: 0,
        gas_limit: 21_000,
        max_fee_per_gas: 1_000_000_000_000,
        max_priority_fee_per_gas: 1,
        to: TxKind::Call(Address::repeat_byte(9)),
        value: U256::from(1),
        access_list: Default::default(),
        input: Bytes::new(),
    };
    let sig = key.sign_hash_sync(&tx.signature_hash()).unwrap();
    let raw: TxEnvelope = tx.into_signed(sig).into();
    d.call_at(
        "/ext/bc/C/rpc",
        "eth_sendRawTransaction",
        json!([format!("0x{}", hex::encode(raw.encoded_2718()))]),
    )
    .await;
    let block = c.build_block().unwrap().unwrap();
    let first = d
        .call_at(
            C,
            "index.getContainerByIndex",
            json!({ "index": "0", "encoding": "hexnc" }),
        )
        .await;
    let raw_block = d
        .call_at("/ext/bc/C/rpc", "debug_getRawBlock", json!(["0x1"]))
        .await;
    assert_eq!(first["id"], Id(block.hash.0).to_string());
    assert_eq!(first["bytes"], raw_block);
    assert_eq!(
        first["timestamp"],
        firn_core::calendar::rfc3339(block.header.timestamp)
    );
    assert_eq!(
        d.call_at(C, "index.getLastAccepted", json!({ "encoding": "hexnc" }))
            .await,
        first
    );
    assert_eq!(
        d.call_at(C, "index.getIndex", json!({ "id": first["id"] }))
            .await,
        json!({ "index": "0" })
    );
}

#[tokio::test]
async fn x_chain_blocks_in_acceptance_order() {
    let d = Devnet::start().await;
    let x = d.node.xchain();
    let w = firn_devnet::xchain::wallet::XWallet::new(x);
    let avax = d.node.network().avax_asset_id;
    for amount in [1_000, 2_000] {
        x.issue_tx(w.send(avax, x.funded_addresses()[1], amount).unwrap())
            .unwrap();
        x.build_until_idle().unwrap();
    }
    let range = d
        .call_at(
            X,
            "index.getContainerRange",
            json!({ "startIndex": "0", "numToFetch": "10" }),
        )
        .await;
    let containers = range["containers"].as_array().unwrap();
    assert_eq!(containers.len(), 2);
    for (i, c) in containers.iter().enumerate() {
        let b = x.block_by_height(i as u64 + 1).unwrap().block;
        assert_eq!(c["id"], b.id().to_string());
        assert_eq!(c["bytes"], hex_encode_checksummed(&b.bytes()));
        let by_height = d
            .call_at(
                "/ext/bc/X",
                "avm.getBlockByHeight",
                json!({ "height": i + 1 }),
            )
            .await;
        assert_eq!(c["bytes"], by_height["block"]);
    }
    let last = d.call_at(X, "index.getLastAccepted", json!({})).await;
    assert_eq!(last, containers[1]);
}
