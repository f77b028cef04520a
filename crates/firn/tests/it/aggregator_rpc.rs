//! Signature aggregation over a node's RPC, as `firn serve --rpc` does it: a devnet with an
//! L1 behind its node RPC on a loopback port (the validators answering
//! `firn.requestWarpSignature`), an `RpcValidatorNetwork` over it, and the Data API's
//! `signatureAggregator` routes over real HTTP. Offline, lying and too-slow validators are
//! skipped as in process; a node that cannot carry signature requests (like AvalancheGo)
//! makes the routes answer 503 saying so.

use std::sync::Arc;
use std::time::Duration;

use firn_aggregator::{
    AggregateError, AggregationRequest, Aggregator, AggregatorConfig, NetworkError,
};
use firn_api::{ApiConfig, AppState};
use firn_core::ids::Id;
use firn_core::warp::Message;
use firn_devnet::signers::SignerBehaviour;
use firn_devnet::state::validators::canonical;
use firn_node::SignerKeys;
use firn_rpc::{RpcNetworkConfig, RpcValidatorNetwork};
use serde_json::{Value, json};

use crate::aggregator_sdk::{ConvertedL1, devnet_with_converted_l1, empty_store, serve_api};

/// The aggregator's network over `devnet`'s node RPC, as `firn serve --rpc` makes it.
async fn connect(devnet: &ConvertedL1) -> Arc<RpcValidatorNetwork> {
    Arc::new(
        RpcValidatorNetwork::connect(devnet.node.url(), RpcNetworkConfig::default())
            .await
            .unwrap(),
    )
}

/// The Data API aggregating through `network`, on a free port: its URL, its stop sender
/// and its task.
async fn api_over(
    devnet: &ConvertedL1,
    network: Arc<RpcValidatorNetwork>,
) -> (
    String,
    tokio::sync::oneshot::Sender<()>,
    tokio::task::JoinHandle<std::io::Result<()>>,
) {
    let aggregator = Arc::new(Aggregator::new(
        network.clone(),
        AggregatorConfig::default(),
    ));
    let state = AppState::new(
        empty_store(devnet.node.data_dir()).await,
        ApiConfig::default(),
    )
    .with_signature_aggregator(aggregator, network);
    serve_api(state).await
}

async fn post(url: &str, body: Value) -> (u16, Value) {
    let response = reqwest::Client::new()
        .post(url)
        .json(&body)
        .send()
        .await
        .unwrap();
    (response.status().as_u16(), response.json().await.unwrap())
}

async fn get(url: &str) -> (u16, Value) {
    let response = reqwest::get(url).await.unwrap();
    (response.status().as_u16(), response.json().await.unwrap())
}

fn signed(reply: &Value) -> Message {
    let hex_str = reply["signedMessage"]
        .as_str()
        .unwrap_or_else(|| panic!("no signedMessage: {reply}"));
    Message::from_bytes(&hex::decode(hex_str).unwrap()).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn aggregation_through_a_devnet_node_rpc_verifies_at_67_percent() {
    let devnet = devnet_with_converted_l1(SignerKeys::Genesis).await;
    let chain = &devnet.chain;
    let network_id = chain.network().network_id;
    let signers = devnet.node.signers().unwrap().clone();
    let (api, stop, server) = api_over(&devnet, connect(&devnet).await).await;

    // Five validators of equal weight: one offline and one slow (within the timeout) still
    // leave four, 80 %.
    let config = chain.config();
    let offline = config.validator_node_id(0);
    signers.set_behaviour(offline, SignerBehaviour::Offline);
    signers.set_behaviour(
        config.validator_node_id(1),
        SignerBehaviour::Slow { delay_ms: 50 },
    );
    let set = canonical(&chain.validators_at(&Id::ZERO, chain.height()).unwrap()).unwrap();
    let (status, reply) = post(
        &format!("{api}/v1/signatureAggregator/fuji/aggregateSignatures"),
        json!({
            "message": hex::encode(devnet.message.bytes()),
            "justification": hex::encode(devnet.subnet.0),
        }),
    )
    .await;
    assert_eq!(status, 201, "{reply}");
    let aggregated = signed(&reply);
    assert_eq!(aggregated.unsigned, devnet.message);
    set.verify(&aggregated, network_id, 67, 100).unwrap();
    let signers_of = |msg: &Message| {
        set.signers(&msg.signature.signers)
            .unwrap()
            .iter()
            .flat_map(|v| v.node_ids.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(signers_of(&aggregated).len(), 4);
    assert!(!signers_of(&aggregated).contains(&offline));

    // The GET route reads the conversion tx through the node's platform.getTx.
    let (status, reply) = get(&format!(
        "{api}/v1/signatureAggregator/fuji/aggregateSignatures/{}",
        devnet.convert_tx
    ))
    .await;
    assert_eq!(status, 201, "{reply}");
    assert_eq!(signed(&reply), aggregated);
    let (status, reply) = get(&format!(
        "{api}/v1/signatureAggregator/fuji/aggregateSignatures/{}",
        Id([5; 32])
    ))
    .await;
    assert_eq!(status, 404, "{reply}");

    let _ = stop.send(());
    server.await.unwrap().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lying_and_too_slow_validators_over_rpc_are_skipped_as_in_process() {
    let devnet = devnet_with_converted_l1(SignerKeys::Genesis).await;
    let chain = &devnet.chain;
    let signers = devnet.node.signers().unwrap().clone();
    let network = connect(&devnet).await;
    let aggregator = Aggregator::new(
        network,
        AggregatorConfig {
            request_timeout: Duration::from_millis(300),
            ..AggregatorConfig::default()
        },
    );
    let config = chain.config();
    let liar = config.validator_node_id(2);
    let sleeper = config.validator_node_id(3);
    signers.set_behaviour(liar, SignerBehaviour::BadSignature);
    signers.set_behaviour(sleeper, SignerBehaviour::Slow { delay_ms: 30_000 });
    let mut request = AggregationRequest::new(devnet.message.clone());
    request.justification = devnet.subnet.0.to_vec();

    // Three of five sign: 60 % < 67 %, the text clients retry on.
    let err = aggregator.aggregate(request.clone()).await.unwrap_err();
    assert!(
        matches!(
            err,
            AggregateError::InsufficientWeight {
                signers: 3,
                asked: 5,
                ..
            }
        ),
        "{err}"
    );
    // At 60 % the three honest ones are enough, and neither the liar nor the sleeper is in.
    request.quorum = firn_aggregator::Quorum::new(60, 0).unwrap();
    let out = aggregator.aggregate(request).await.unwrap();
    let set = canonical(&chain.validators_at(&Id::ZERO, chain.height()).unwrap()).unwrap();
    set.verify(&out.message, chain.network().network_id, 60, 100)
        .unwrap();
    let nodes: Vec<_> = set
        .signers(&out.message.signature.signers)
        .unwrap()
        .iter()
        .flat_map(|v| v.node_ids.clone())
        .collect();
    assert_eq!(nodes.len(), 3);
    assert!(!nodes.contains(&liar) && !nodes.contains(&sleeper));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_without_the_signing_method_fails_aggregation_saying_so() {
    // Like AvalancheGo: the platform reads work, signature requests have no HTTP method.
    let devnet = devnet_with_converted_l1(SignerKeys::Off).await;
    let network = connect(&devnet).await;
    let direct = Aggregator::new(network.clone(), AggregatorConfig::default())
        .aggregate(AggregationRequest::new(devnet.message.clone()))
        .await
        .unwrap_err();
    assert!(
        matches!(
            direct,
            AggregateError::Network(NetworkError::Unsupported(_))
        ),
        "{direct}"
    );
    let (api, stop, server) = api_over(&devnet, network).await;

    // Asked again (the network now fails at once) and through the GET route: the same answer.
    let post_reply = post(
        &format!("{api}/v1/signatureAggregator/fuji/aggregateSignatures"),
        json!({ "message": hex::encode(devnet.message.bytes()) }),
    )
    .await;
    let get_reply = get(&format!(
        "{api}/v1/signatureAggregator/fuji/aggregateSignatures/{}",
        devnet.convert_tx
    ))
    .await;
    for (status, reply) in [post_reply, get_reply] {
        assert_eq!(status, 503, "{reply}");
        assert_eq!(reply["statusCode"], 503, "{reply}");
        assert_eq!(reply["error"], "Service Unavailable", "{reply}");
        let message = reply["message"].as_str().unwrap();
        assert!(
            message.contains("firn.requestWarpSignature")
                && message.contains(devnet.node.url())
                && message.contains("p2p"),
            "{message}"
        );
    }
    let _ = stop.send(());
    server.await.unwrap().unwrap();
}
