//! `avm.*` on `/ext/bc/X` over real HTTP, and AVAX moving between X and P through
//! `avm.issueTx`, `platform.issueTx` and `getUTXOs` with `sourceChain`.

use firn_core::address::ChainAddress;
use firn_core::avm::json::{block_to_json, tx_to_json};
use firn_core::avm::{Block, Tx, Utxo};
use firn_core::encoding::Encoding;
use firn_core::pchain::json::JsonContext;
use firn_devnet::Wallet;
use firn_devnet::xchain::wallet::XWallet;
use serde_json::{Value, json};

use crate::common::*;

const AVAX: u64 = 1_000_000_000;

const X: &str = "/ext/bc/X";

impl Devnet {
    async fn x(&self, method: &str, params: Value) -> Value {
        self.call_at(X, method, params).await
    }

    async fn x_err(&self, method: &str, params: Value) -> String {
        let (code, msg) = self.error_at(X, method, params).await;
        assert_eq!(code, -32000);
        msg
    }

    /// Issues through `avm.issueTx`, builds, and checks the status the node reports.
    async fn x_issue_and_build(&self, tx: &Tx) -> String {
        let hex = firn_core::encoding::hex_encode_checksummed(&tx.bytes());
        let r = self.x("avm.issueTx", json!({ "tx": hex })).await;
        let id = r["txID"].as_str().unwrap().to_string();
        assert_eq!(id, tx.id().to_string());
        self.call_at("/ext/firn", "firn.buildBlock", json!({}))
            .await;
        let s = self.x("avm.getTxStatus", json!({ "txID": id })).await;
        assert_eq!(s, json!({ "status": "Accepted" }), "tx {id}");
        id
    }

    fn x_address(&self, i: usize) -> String {
        let x = self.node.xchain();
        let id = x.funded_addresses()[i];
        ChainAddress::new("X", x.network().network_id, id).to_string()
    }
}

#[tokio::test]
async fn fees_assets_balances_and_the_genesis_block() {
    let d = Devnet::start().await;
    assert_eq!(
        d.x("avm.getHeight", json!({})).await,
        json!({ "height": "0" })
    );
    assert_eq!(
        d.x("avm.getTxFee", json!({})).await,
        json!({ "txFee": "1000000", "createAssetTxFee": "10000000" })
    );
    let avax = d.node.network().avax_asset_id.to_string();
    for asset in ["AVAX", avax.as_str()] {
        assert_eq!(
            d.x("avm.getAssetDescription", json!({ "assetID": asset }))
                .await,
            json!({ "assetID": avax, "name": "Avalanche", "symbol": "AVAX", "denomination": "9" })
        );
    }
    let funded = d.node.xchain().config().funded_amount.to_string();
    let me = d.x_address(0);
    assert_eq!(
        d.x("avm.getAllBalances", json!({ "address": me })).await,
        json!({ "balances": [{ "asset": "AVAX", "balance": funded }] })
    );
    let b = d
        .x(
            "avm.getBalance",
            json!({ "address": me, "assetID": "AVAX" }),
        )
        .await;
    assert_eq!(b["balance"], funded.as_str());
    assert_eq!(b["utxoIDs"].as_array().unwrap().len(), 1);
    assert_eq!(b["utxoIDs"][0]["txID"], avax.as_str());

    let genesis = d.x("avm.getBlockByHeight", json!({ "height": 0 })).await;
    let bytes = Encoding::Hex
        .decode_bytes(genesis["block"].as_str().unwrap())
        .unwrap();
    let block: Block = firn_core::codec::from_bytes(&bytes).unwrap();
    assert_eq!((block.height(), block.txs().len()), (0, 0));
    let by_id = d
        .x(
            "avm.getBlock",
            json!({ "blockID": block.id(), "encoding": "json" }),
        )
        .await;
    let ctx = JsonContext::xchain(d.node.network().network_id);
    assert_eq!(by_id["block"], block_to_json(&ctx, &block));
    assert_eq!(by_id["encoding"], "json");
}

#[tokio::test]
async fn txs_are_issued_read_back_and_listed() {
    let d = Devnet::start().await;
    let x = d.node.xchain();
    let w = XWallet::new(x);
    let to = x.funded_addresses()[1];
    let avax = d.node.network().avax_asset_id;
    let tx = w.send(avax, to, 12_345).unwrap();
    let id = d.x_issue_and_build(&tx).await;
    // Issuing it again while it is accepted is refused: its UTXOs are spent.
    let again = d
        .x_err(
            "avm.issueTx",
            json!({ "tx": firn_core::encoding::hex_encode_checksummed(&tx.bytes()) }),
        )
        .await;
    assert!(again.starts_with("duplicate tx"), "{again}");

    let hex = d.x("avm.getTx", json!({ "txID": id })).await;
    assert_eq!(hex["encoding"], "hex");
    let read: Tx = firn_core::codec::from_bytes(
        &Encoding::Hex
            .decode_bytes(hex["tx"].as_str().unwrap())
            .unwrap(),
    )
    .unwrap();
    assert_eq!(read, tx);
    let j = d
        .x("avm.getTx", json!({ "txID": id, "encoding": "json" }))
        .await;
    let ctx = JsonContext::xchain(d.node.network().network_id);
    assert_eq!(j["tx"], tx_to_json(&ctx, &tx));
    let block = d
        .x(
            "avm.getBlockByHeight",
            json!({ "height": "1", "encoding": "json" }),
        )
        .await;
    assert_eq!(block["block"]["txs"][0]["id"], id.as_str());

    // The recipient's UTXOs: its genesis output and the new one, paged one at a time.
    let addr = d.x_address(1);
    let first = d
        .x("avm.getUTXOs", json!({ "addresses": [addr], "limit": 1 }))
        .await;
    assert_eq!(first["numFetched"], "1");
    let second = d
        .x(
            "avm.getUTXOs",
            json!({ "addresses": [addr], "limit": 1, "startIndex": first["endIndex"] }),
        )
        .await;
    assert_eq!(second["numFetched"], "1");
    let amounts: Vec<u64> = [&first, &second]
        .iter()
        .map(|page| {
            let u: Utxo = firn_core::codec::from_bytes(
                &Encoding::Hex
                    .decode_bytes(page["utxos"][0].as_str().unwrap())
                    .unwrap(),
            )
            .unwrap();
            match u.output {
                firn_core::avm::FxOutput::Secp256k1Transfer(t) => t.amount,
                other => panic!("unexpected output {other:?}"),
            }
        })
        .collect();
    assert!(amounts.contains(&12_345), "{amounts:?}");
}

#[tokio::test]
async fn avax_moves_x_to_p_and_p_to_x_over_rpc() {
    let d = Devnet::start().await;
    let x = d.node.xchain();
    let n = d.node.network();
    let who = x.funded_addresses()[2];
    let p_addr = ChainAddress::new("P", n.network_id, who).to_string();
    let x_addr = d.x_address(2);

    // X → P: the export shows in platform.getUTXOs with sourceChain X, then is imported.
    d.x_issue_and_build(
        &XWallet::new(x)
            .export(n.p_chain_id, who, 30 * AVAX)
            .unwrap(),
    )
    .await;
    let atomic = d
        .p(
            "platform.getUTXOs",
            json!({ "addresses": [p_addr], "sourceChain": "X" }),
        )
        .await;
    assert_eq!(atomic["numFetched"], "1");
    let pw = Wallet::new(&d.chain);
    d.issue_and_build(&pw.import(n.x_chain_id, who).unwrap())
        .await;
    let atomic = d
        .p(
            "platform.getUTXOs",
            json!({ "addresses": [p_addr], "sourceChain": "X" }),
        )
        .await;
    assert_eq!(atomic["numFetched"], "0");

    // P → X: listed by avm.getUTXOs with sourceChain P, then imported by avm.issueTx.
    d.issue_and_build(&pw.export(n.x_chain_id, who, 10 * AVAX).unwrap())
        .await;
    let atomic = d
        .x(
            "avm.getUTXOs",
            json!({ "addresses": [x_addr], "sourceChain": "P" }),
        )
        .await;
    assert_eq!(atomic["numFetched"], "1");
    let before = x.balances(&[who], false)[&n.avax_asset_id].amount;
    d.x_issue_and_build(&XWallet::new(x).import(n.p_chain_id, who).unwrap())
        .await;
    let after = x.balances(&[who], false)[&n.avax_asset_id].amount;
    assert_eq!(after, before + 10 * AVAX - 1_000_000);
}

#[tokio::test]
async fn bad_arguments_get_avalanchegos_errors() {
    let d = Devnet::start().await;
    let zero = firn_core::ids::Id::ZERO.to_string();
    assert_eq!(
        d.x_err("avm.getTx", json!({ "txID": zero })).await,
        "nil transaction ID"
    );
    let unknown = firn_core::ids::Id([7; 32]).to_string();
    assert_eq!(
        d.x_err("avm.getTx", json!({ "txID": unknown })).await,
        "not found"
    );
    assert_eq!(
        d.x("avm.getTxStatus", json!({ "txID": unknown })).await,
        json!({ "status": "Unknown" })
    );
    assert_eq!(
        d.x_err("avm.getAssetDescription", json!({ "assetID": "GOLD" }))
            .await,
        "asset 'GOLD' not found"
    );
    assert_eq!(
        d.x_err("avm.getBlockByHeight", json!({ "height": 9 }))
            .await,
        "couldn't get block at height 9: not found"
    );
    let p_addr = d.x_address(0).replacen("X-", "P-", 1);
    let msg = d
        .x_err(
            "avm.getBalance",
            json!({ "address": p_addr, "assetID": "AVAX" }),
        )
        .await;
    assert!(
        msg.starts_with(&format!("problem parsing address '{p_addr}': ")),
        "{msg}"
    );
    assert_eq!(
        d.x_err("avm.getUTXOs", json!({ "addresses": [] })).await,
        "no addresses provided"
    );
    let msg = d
        .x_err(
            "avm.getUTXOs",
            json!({ "addresses": [d.x_address(0)], "sourceChain": "Q" }),
        )
        .await;
    assert!(
        msg.starts_with("problem parsing source chainID \"Q\""),
        "{msg}"
    );
    let msg = d.x_err("avm.issueTx", json!({ "tx": "0x00" })).await;
    assert!(msg.starts_with("problem decoding transaction"), "{msg}");
}
