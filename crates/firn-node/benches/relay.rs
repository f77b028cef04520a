//! The node's ICM relayer on the devnet: `cargo bench -p firn-node --features testing --bench
//! relay`. `FIRN_RELAY_MESSAGES` (default 200) Teleporter messages are sent at once from the
//! C-Chain to an L1 of three validators; the clock runs from their send until the L1's inbox
//! has executed every one (blocks are built by the bench as soon as txs wait, the devnet's
//! clock a second further each round, as a live chain's blocks would be). Then the same
//! messages are signed again by a fresh aggregator, one after another, which gives the share
//! of the relaying time spent aggregating. Prints messages a second, that share, the machine's
//! load and the process's resident memory.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

#[path = "support/mod.rs"]
mod support;

use std::time::{Duration, Instant};

use alloy_primitives::{Address, Bytes, TxKind, U256, keccak256};
use firn_aggregator::{AggregationRequest, Aggregator, AggregatorConfig};
use firn_core::keys::secp256k1::PrivateKey;
use firn_core::warp::UnsignedMessage;
use firn_evm::{CallRequest, EvmChain, sent_messages};
use firn_node::NodeConfig;
use firn_node::testing::{evm_l1, signed_eip1559};
use support::{load, rss_kib};

const INBOX: &str = include_str!("../../../contracts/artifacts/FirnTeleporterInbox.json");

fn signed(chain: &EvmChain, key: &PrivateKey, nonce: u64, to: TxKind, input: Vec<u8>) -> Vec<u8> {
    signed_eip1559(chain, key, nonce, 1_000_000, to, input, Default::default())
}

fn word(v: U256) -> [u8; 32] {
    v.to_be_bytes::<32>()
}

/// `sendCrossChainMessage((destination, inbox, (0, 0), 100,000, [], payload))`.
fn send_input(destination: [u8; 32], inbox: Address, payload: &[u8]) -> Vec<u8> {
    let mut input = keccak256(
        "sendCrossChainMessage((bytes32,address,(address,uint256),uint256,address[],bytes))",
    )[..4]
        .to_vec();
    let mut tuple = [
        destination,
        word(U256::from_be_slice(inbox.as_slice())),
        [0; 32],
        [0; 32],
        word(U256::from(100_000)),
        word(U256::from(7 * 32)),
        word(U256::from(8 * 32)),
        [0; 32],
        word(U256::from(payload.len())),
    ]
    .concat();
    let mut body = payload.to_vec();
    body.resize(payload.len().div_ceil(32) * 32, 0);
    tuple.extend(body);
    input.extend(word(U256::from(32)));
    input.extend(tuple);
    input
}

fn received(chain: &EvmChain, inbox: Address) -> u64 {
    let out = chain
        .call(&CallRequest {
            to: Some(inbox),
            input: Some(Bytes::copy_from_slice(&keccak256("received()")[..4])),
            ..Default::default()
        })
        .unwrap();
    U256::from_be_slice(&out).to::<u64>()
}

fn main() {
    let n: u64 = std::env::var("FIRN_RELAY_MESSAGES")
        .ok()
        .and_then(|v| v.replace('_', "").parse().ok())
        .unwrap_or(200);
    let rt = support::runtime();
    rt.block_on(async {
        let l1 = evm_l1(NodeConfig::test().with_relayer(), 99_999, &[150, 100, 60]).await;
        let c = l1.node.evm().unwrap().c_chain.clone();
        let keys = l1.pchain.funded_keys();
        let key = &keys[0];
        let from = Address::from(key.public_key().eth_address());
        let artifact: serde_json::Value = serde_json::from_str(INBOX).unwrap();
        let mut init =
            hex::decode(artifact["bytecode"].as_str().unwrap().trim_start_matches("0x")).unwrap();
        init.extend([0u8; 12]);
        init.extend(firn_devnet::teleporter::TELEPORTER_MESSENGER);
        l1.evm
            .submit_raw_tx(&signed(&l1.evm, key, l1.evm.nonce(&from), TxKind::Create, init))
            .unwrap();
        let block = l1.evm.build_block().unwrap().unwrap();
        let inbox = block.receipts[0].contract_address.unwrap();

        let teleporter = Address::from(firn_devnet::teleporter::TELEPORTER_MESSENGER);
        let destination = l1.evm.blockchain_id().0;
        let first = c.nonce(&from);
        let sends: Vec<Vec<u8>> = (0..n)
            .map(|i| {
                let input = send_input(destination, inbox, format!("message {i}").as_bytes());
                signed(&c, key, first + i, TxKind::Call(teleporter), input)
            })
            .collect();
        let start = Instant::now();
        for raw in &sends {
            c.submit_raw_tx(raw).unwrap();
        }
        let deadline = start + Duration::from_secs(60);
        while received(&l1.evm, inbox) < n && Instant::now() < deadline {
            // The fixture's clock is frozen: a second a round keeps the L1's fee window from
            // reading hundreds of blocks as one second's (its base fee would climb without end).
            l1.pchain.clock().advance(1);
            c.build_until_idle().unwrap();
            l1.evm.build_until_idle().unwrap();
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        let elapsed = start.elapsed();
        let done = received(&l1.evm, inbox);
        if done < n {
            println!(
                "stalled: {} txs waiting on the L1 at base fee {} wei, {} on the C-Chain",
                l1.evm.pool_len(),
                l1.evm.next_base_fee(),
                c.pool_len()
            );
        }

        // The same messages signed again, one after another, by a fresh aggregator.
        let messages: Vec<UnsignedMessage> = (1..=c.height())
            .filter_map(|h| c.block_by_number(h))
            .flat_map(|b| sent_messages(&b))
            .map(|(_, bytes)| UnsignedMessage::from_bytes(&bytes).unwrap())
            .collect();
        let aggregator = Aggregator::new(l1.signers.clone(), AggregatorConfig::default());
        let signing = Instant::now();
        for m in &messages {
            aggregator
                .aggregate(AggregationRequest::new(m.clone()))
                .await
                .unwrap();
        }
        let aggregation = signing.elapsed();
        let rate = done as f64 / elapsed.as_secs_f64();
        println!(
            "relay C-Chain -> L1: {done} of {n} messages executed in {:.2} s = {rate:.0} messages/s; \
             aggregating {} messages alone took {:.2} s ({:.0}% of the relaying time, {:.2} ms each); \
             load {}; RSS {} MiB",
            elapsed.as_secs_f64(),
            messages.len(),
            aggregation.as_secs_f64(),
            100.0 * aggregation.as_secs_f64() / elapsed.as_secs_f64(),
            aggregation.as_secs_f64() * 1000.0 / messages.len().max(1) as f64,
            load(),
            rss_kib("self") / 1024,
        );
        l1.node.shutdown().await;
    });
}
