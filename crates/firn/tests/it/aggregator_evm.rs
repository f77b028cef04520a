//! Warp messages from a subnet-EVM L1, signed by the L1's validators and aggregated by the
//! Data API over loopback HTTP: a contract-style call to `sendWarpMessage` on the L1's EVM
//! chain, then `POST /v1/signatureAggregator/fuji/aggregateSignatures` with the message it
//! emitted; a block-hash message; an unknown message refused with the weight it got.

use alloy_primitives::{Address, B256, TxKind, U256, keccak256};
use firn_aggregator::{Aggregator, AggregatorConfig};
use firn_api::{ApiConfig, AppState};
use firn_core::ids::{Id, NodeId};
use firn_core::warp::payload::{AddressedCall, Payload};
use firn_core::warp::{Message, UnsignedMessage};
use firn_devnet::state::validators::canonical;
use firn_evm::WARP_ADDRESS;
use firn_node::NodeConfig;
use serde_json::{Value, json};
use std::sync::Arc;
pub(crate) const EVM_CHAIN_ID: u64 = 99_999;
/// The L1's validators' weights: the two heaviest (250 of 310) meet 67 %.
pub(crate) const WEIGHTS: [u64; 3] = [150, 100, 60];

pub(crate) use firn_node::testing::EvmL1 as L1;

/// The BLS keys of the L1's validators, in the order of [`WEIGHTS`]; validator `i` is node
/// `0x60 + i`.
pub(crate) fn l1_keys() -> Vec<firn_core::keys::bls::SecretKey> {
    firn_node::testing::evm_l1_keys(WEIGHTS.len())
}

/// A devnet with a subnet-EVM chain on a subnet converted to an L1 of three validators,
/// the chain booted and its signing rules registered.
pub(crate) async fn l1() -> L1 {
    l1_with(NodeConfig::test()).await
}

/// [`l1`] on a node made from `config` (EVM chains and the genesis signers added).
pub(crate) async fn l1_with(config: NodeConfig) -> L1 {
    firn_node::testing::evm_l1(config, EVM_CHAIN_ID, &WEIGHTS).await
}

/// Calls the Warp precompile's `sendWarpMessage(payload)` from the first funded key and
/// returns the unsigned message the accepted block's log carries.
pub(crate) fn send_warp_message(l1: &L1, payload: &[u8]) -> UnsignedMessage {
    let key = &l1.pchain.funded_keys()[0];
    let from = Address::from(key.public_key().eth_address());
    let mut input = keccak256("sendWarpMessage(bytes)")[..4].to_vec();
    input.extend(U256::from(32).to_be_bytes::<32>());
    input.extend(U256::from(payload.len()).to_be_bytes::<32>());
    let mut padded = payload.to_vec();
    padded.resize(payload.len().div_ceil(32) * 32, 0);
    input.extend(padded);
    let raw = firn_node::testing::signed_eip1559(
        &l1.evm,
        key,
        l1.evm.nonce(&from),
        200_000,
        TxKind::Call(WARP_ADDRESS),
        input,
        Default::default(),
    );
    l1.evm.submit_raw_tx(&raw).unwrap();
    let block = l1.evm.build_block().unwrap().expect("a block with the tx");
    let sent = firn_evm::sent_messages(&block);
    assert_eq!(sent.len(), 1, "the tx emitted one SendWarpMessage");
    let message = UnsignedMessage::from_bytes(&sent[0].1).unwrap();
    assert_eq!(B256::from(message.id().0), sent[0].0);
    message
}

/// A Data API serving the aggregator over `l1`'s signers, on loopback.
pub(crate) async fn serve(l1: &L1) -> (String, tokio::sync::oneshot::Sender<()>) {
    let aggregator = Arc::new(Aggregator::new(
        l1.signers.clone(),
        AggregatorConfig::default(),
    ));
    let store = firn_store::open(l1.node.data_dir().join("firn.db").to_str().unwrap())
        .await
        .unwrap();
    let state = AppState::new(store, ApiConfig::default())
        .with_signature_aggregator(aggregator, l1.signers.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = listener.local_addr().unwrap().to_string();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(firn_api::serve(listener, state, async {
        let _ = stopped.await;
    }));
    (url, stop)
}

/// `POST /v1/signatureAggregator/fuji/aggregateSignatures` over a plain HTTP/1.1
/// connection: the status and the JSON body.
async fn aggregate(addr: &str, message: &UnsignedMessage) -> (u16, Value) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let body = json!({ "message": format!("0x{}", hex::encode(message.bytes())) }).to_string();
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let request = format!(
        "POST /v1/signatureAggregator/fuji/aggregateSignatures HTTP/1.1\r\nHost: {addr}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut reply = String::new();
    stream.read_to_string(&mut reply).await.unwrap();
    let (head, json) = reply.split_once("\r\n\r\n").unwrap();
    assert!(
        !head
            .to_ascii_lowercase()
            .contains("transfer-encoding: chunked"),
        "{head}"
    );
    let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap();
    (status, serde_json::from_str(json).unwrap())
}

/// The signed message of a 201, checked with firn-core against the L1's canonical set at
/// the current P-Chain height and 67 % quorum.
fn verified(l1: &L1, unsigned: &UnsignedMessage, status: u16, body: &Value) -> Message {
    assert_eq!(status, 201, "{body}");
    let bytes = hex::decode(body["signedMessage"].as_str().unwrap()).unwrap();
    let signed = Message::from_bytes(&bytes).unwrap();
    assert_eq!(&signed.unsigned, unsigned);
    let set = canonical(
        &l1.pchain
            .validators_at(&l1.subnet, l1.pchain.height())
            .unwrap(),
    )
    .unwrap();
    set.verify(&signed, l1.pchain.network().network_id, 67, 100)
        .unwrap();
    signed
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_l1s_validators_sign_what_its_evm_chain_sent_and_its_block_hashes() {
    let l1 = l1().await;
    let (url, _stop) = serve(&l1).await;

    let sent = send_warp_message(&l1, b"hello from the L1");
    let (status, body) = aggregate(&url, &sent).await;
    let signed = verified(&l1, &sent, status, &body);
    match Payload::from_bytes(&signed.unsigned.payload).unwrap() {
        Payload::AddressedCall(call) => assert_eq!(call.payload, b"hello from the L1"),
        other => panic!("not an AddressedCall: {other:?}"),
    }

    let head = l1.evm.head();
    let block_hash = UnsignedMessage::new(
        l1.pchain.network().network_id,
        Id(l1.evm.blockchain_id().0),
        Payload::Hash(Id(head.hash.0)).bytes(),
    );
    let (status, body) = aggregate(&url, &block_hash).await;
    verified(&l1, &block_hash, status, &body);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn messages_the_chain_never_sent_are_refused_with_the_weight_obtained() {
    let l1 = l1().await;
    let (url, _stop) = serve(&l1).await;
    let network_id = l1.pchain.network().network_id;
    let source = Id(l1.evm.blockchain_id().0);
    let sender = Address::repeat_byte(7);
    let never_sent = UnsignedMessage::new(
        network_id,
        source,
        Payload::AddressedCall(AddressedCall {
            source_address: sender.to_vec(),
            payload: b"never sent".to_vec(),
        })
        .bytes(),
    );
    let unknown_block =
        UnsignedMessage::new(network_id, source, Payload::Hash(Id([0x5a; 32])).bytes());
    let total: u64 = WEIGHTS.iter().sum();
    let required = (total * 67).div_ceil(100);
    for message in [never_sent, unknown_block] {
        let (status, body) = aggregate(&url, &message).await;
        assert_eq!(status, 503, "{body}");
        let text = body["message"].to_string();
        assert!(
            text.contains(&format!(
                "signature weight is insufficient: 0 obtained, {required} required of total {total}"
            )),
            "{body}"
        );
    }

    // What each validator said: subnet-EVM's codes (1 parse, 2 verify).
    let node = NodeId([0x60; 20]);
    let refusal = |m: &UnsignedMessage| {
        l1.signers
            .answer(
                node,
                &firn_core::warp::acp118::SignatureRequest {
                    message: m.bytes(),
                    justification: Vec::new(),
                },
            )
            .unwrap_err()
            .to_string()
    };
    let unknown_block =
        UnsignedMessage::new(network_id, source, Payload::Hash(Id([0x5b; 32])).bytes());
    assert!(refusal(&unknown_block).contains("(code 2)"));
    let garbage = UnsignedMessage::new(network_id, source, b"not a payload".to_vec());
    let said = refusal(&garbage);
    assert!(
        said.contains("failed to parse payload") && said.contains("(code 1)"),
        "{said}"
    );
}

/// `method` on the node's RPC of `l1`'s chain: its result, or its error message.
pub(crate) async fn warp_rpc(l1: &L1, method: &str, params: Value) -> Result<Value, String> {
    let url = l1
        .node
        .url_of(&format!("/ext/bc/{}/rpc", Id(l1.evm.blockchain_id().0)));
    let body = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params });
    let reply: Value = reqwest::Client::new()
        .post(url)
        .json(&body)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    match reply.get("error") {
        Some(e) => Err(e["message"].as_str().unwrap().to_owned()),
        None => Ok(reply["result"].clone()),
    }
}

fn hex_of(v: &Value) -> Vec<u8> {
    hex::decode(v.as_str().unwrap().trim_start_matches("0x")).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_chains_warp_methods_sign_as_the_node_and_aggregate_the_l1s_quorum() {
    let l1 = l1().await;
    let sent = send_warp_message(&l1, b"asked over warp_*");
    let id = sent.id().to_string();
    let got = warp_rpc(&l1, "warp_getMessage", json!([id])).await.unwrap();
    assert_eq!(hex_of(&got), sent.bytes());

    // The node signs as the devnet's first validator.
    let own = l1
        .pchain
        .config()
        .validator_bls_key(0)
        .unwrap()
        .public_key();
    let check_own = |signature: &Value, message: &UnsignedMessage| {
        let signature = firn_core::keys::bls::Signature::from_bytes(&hex_of(signature)).unwrap();
        assert!(firn_core::keys::bls::verify(
            &own,
            &message.bytes(),
            &signature
        ));
    };
    let signature = warp_rpc(&l1, "warp_getMessageSignature", json!([id]))
        .await
        .unwrap();
    check_own(&signature, &sent);

    // The L1's validators aggregated: a quorum of 67 % of them.
    let signed = warp_rpc(
        &l1,
        "warp_getMessageAggregateSignature",
        json!([id, 67, ""]),
    )
    .await
    .unwrap();
    let body = json!({ "signedMessage": signed.as_str().unwrap().trim_start_matches("0x") });
    verified(&l1, &sent, 201, &body);

    // The head block's hash, signed and aggregated the same way.
    let head = Id(l1.evm.head().hash.0);
    let block_message = UnsignedMessage::new(
        l1.pchain.network().network_id,
        Id(l1.evm.blockchain_id().0),
        Payload::Hash(head).bytes(),
    );
    let signature = warp_rpc(&l1, "warp_getBlockSignature", json!([head.to_string()]))
        .await
        .unwrap();
    check_own(&signature, &block_message);
    let subnet = l1.subnet.to_string();
    let signed = warp_rpc(
        &l1,
        "warp_getBlockAggregateSignature",
        json!([head.to_string(), 67, subnet]),
    )
    .await
    .unwrap();
    let body = json!({ "signedMessage": signed.as_str().unwrap().trim_start_matches("0x") });
    verified(&l1, &block_message, 201, &body);

    // What the chain never sent or accepted is not signed.
    let unknown = Id([0x5a; 32]).to_string();
    assert_eq!(
        warp_rpc(&l1, "warp_getMessageSignature", json!([unknown])).await,
        Err(format!(
            "failed to get message {unknown} with error not found"
        ))
    );
    let refused = warp_rpc(&l1, "warp_getBlockSignature", json!([unknown]))
        .await
        .unwrap_err();
    assert!(
        refused.starts_with(&format!(
            "failed to get signature for block {unknown} with error"
        )),
        "{refused}"
    );
    let bad_quorum = warp_rpc(&l1, "warp_getMessageAggregateSignature", json!([id, 0, ""]))
        .await
        .unwrap_err();
    assert!(bad_quorum.contains("quorum"), "{bad_quorum}");
}
