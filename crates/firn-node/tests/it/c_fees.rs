//! The devnet's C-Chain over RPC prices gas as coreth does since Fortuna (ACP-176), and its
//! pool keeps a tx whose fee cap is under the base fee.

use alloy_consensus::{SignableTransaction, TxEip1559, TxEnvelope};
use alloy_eips::eip2718::Encodable2718;
use alloy_primitives::{Address, Bytes, TxKind, U256};
use alloy_signer::SignerSync;
use alloy_signer_local::PrivateKeySigner;
use firn_evm::fee::Acp176State;
use firn_node::NodeConfig;
use serde_json::json;

use crate::common::*;

const C: &str = "/ext/bc/C/rpc";

fn priced(key: &PrivateKeySigner, chain_id: u64, nonce: u64, max_fee: u128) -> String {
    let tx = TxEip1559 {
        chain_id,
        nonce,
        gas_limit: 21_000,
        max_fee_per_gas: max_fee,
        max_priority_fee_per_gas: 0,
        to: TxKind::Call(Address::repeat_byte(9)),
        value: U256::from(1),
        access_list: Default::default(),
        input: Bytes::new(),
    };
    let sig = key.sign_hash_sync(&tx.signature_hash()).unwrap();
    let env: TxEnvelope = tx.into_signed(sig).into();
    format!("0x{}", hex::encode(env.encoded_2718()))
}

#[tokio::test]
async fn the_c_chain_prices_gas_with_acp176() {
    let d = Devnet::spawn(NodeConfig::test().with_evm()).await;
    let c = d.node.c_chain().unwrap();
    let key = PrivateKeySigner::from_bytes(&d.node.funded_keys()[0].to_bytes().into()).unwrap();

    // The header: a 1B gas limit (ten seconds at twice the 100M target), a 1 wei base fee,
    // the fee state in the first 24 bytes of the extra data.
    let head = d
        .call_at(C, "eth_getBlockByNumber", json!(["latest", false]))
        .await;
    assert_eq!(head["gasLimit"], "0x3b9aca00");
    assert_eq!(head["baseFeePerGas"], "0x1");
    let extra = hex::decode(head["extraData"].as_str().unwrap().trim_start_matches("0x")).unwrap();
    let state = Acp176State::parse(&extra).unwrap();
    assert_eq!(state.target(), 100_000_000);
    assert_eq!(d.call_at(C, "eth_baseFee", json!([])).await, "0x1");

    // coreth has no fee config to report.
    assert_eq!(
        d.raw(C, "eth_feeConfig", json!([])).await["error"],
        json!({"code": -32601, "message": "the method eth_feeConfig does not exist/is not available"})
    );

    // A fee cap of 0 is under the pool's 1 wei minimum; 1 wei is taken and mined.
    let refused = d
        .raw(
            C,
            "eth_sendRawTransaction",
            json!([priced(&key, c.chain_id(), 0, 0)]),
        )
        .await;
    assert_eq!(
        refused["error"],
        json!({
            "code": -32000,
            "message": format!(
                "transaction underpriced: address {} have gas fee cap (0) < pool minimum fee cap (1)",
                key.address()
            )
        })
    );
    let hash = d
        .call_at(
            C,
            "eth_sendRawTransaction",
            json!([priced(&key, c.chain_id(), 0, 1)]),
        )
        .await;
    c.build_until_idle().unwrap();
    let receipt = d
        .call_at(C, "eth_getTransactionReceipt", json!([hash]))
        .await;
    assert_eq!(receipt["status"], "0x1");
    assert_eq!(receipt["effectiveGasPrice"], "0x1");
}
