//! `/v1/signatureAggregator`: the devnet's validators sign, the API aggregates; the official
//! 201 body, 400s naming the field, 404 for unknown txs, 503 below quorum.
//! (One backend: the routes do not read the store.)

use crate::harness::{Api, Reply};
use axum::body::Body;
use axum::http::Request;
use firn_aggregator::{Aggregator, AggregatorConfig};
use firn_api::{ApiConfig, AppState};
use firn_core::ids::Id;
use firn_core::warp::Message;
use firn_core::warp::messages::{L1Message, L1ValidatorRegistration};
use firn_devnet::signers::{DevnetSigners, SignerBehaviour};
use firn_devnet::state::validators::canonical;
use firn_devnet::vm::PChain;
use firn_node::testing::convert_an_l1;
use firn_node::{NodeConfig, NodeHandle, SignerKeys};
use firn_store::Store;
use std::sync::Arc;

struct Devnet {
    chain: Arc<PChain>,
    signers: Arc<DevnetSigners>,
    subnet: Id,
    create_subnet_tx: Id,
    convert_tx: Id,
    _node: NodeHandle,
}

/// A devnet with a subnet converted to an L1, its genesis validators signing.
async fn devnet() -> Devnet {
    let node = firn_node::spawn(NodeConfig::test().with_signers(SignerKeys::Genesis))
        .await
        .unwrap();
    let chain = node.pchain().clone();
    let l1 = convert_an_l1(&chain);
    Devnet {
        signers: node.signers().unwrap().clone(),
        chain,
        subnet: l1.subnet,
        create_subnet_tx: l1.subnet,
        convert_tx: l1.convert_tx,
        _node: node,
    }
}

fn api(store: Store, d: &Devnet) -> Api {
    let aggregator = Arc::new(Aggregator::new(
        d.signers.clone(),
        AggregatorConfig::default(),
    ));
    let state = AppState::new(store, ApiConfig::default())
        .with_signature_aggregator(aggregator, d.signers.clone());
    Api {
        app: firn_api::app(state),
    }
}

async fn post(api: &Api, network: &str, body: &str) -> Reply {
    post_as(api, network, Some("application/json"), body).await
}

async fn post_as(api: &Api, network: &str, content_type: Option<&str>, body: &str) -> Reply {
    let mut request = Request::post(format!(
        "/v1/signatureAggregator/{network}/aggregateSignatures"
    ));
    if let Some(t) = content_type {
        request = request.header("content-type", t);
    }
    api.request(request.body(Body::from(body.to_owned())).unwrap())
        .await
}

/// The signed message of a 201, verified against the primary network's current set.
fn signed(d: &Devnet, r: &Reply) -> Message {
    assert_eq!(r.status.as_u16(), 201, "{}", r.json);
    let hex_str = r.json["signedMessage"].as_str().unwrap();
    assert!(!hex_str.starts_with("0x"));
    let msg = Message::from_bytes(&hex::decode(hex_str).unwrap()).unwrap();
    let set = canonical(&d.chain.validators_at(&Id::ZERO, d.chain.height()).unwrap()).unwrap();
    set.verify(&msg, d.chain.network().network_id, 67, 100)
        .unwrap();
    msg
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn signatures_aggregate_by_message_and_by_tx() {
    crate::harness::sqlite(|store| async move {
        let d = devnet().await;
        let api = api(store, &d);

        // GET by tx: the conversion's SubnetToL1Conversion.
        let by_tx = api
            .get(&format!("/v1/signatureAggregator/fuji/aggregateSignatures/{}", d.convert_tx))
            .await;
        let msg = signed(&d, &by_tx);
        assert!(matches!(
            L1Message::from_unsigned_message(&msg.unsigned).unwrap(),
            L1Message::SubnetToL1Conversion(_)
        ));

        // POST the same message (0x-prefixed) with its justification: the same signed bytes.
        let body = format!(
            r#"{{"message": "0x{}", "justification": "{}", "quorumPercentage": 67, "pChainHeight": 0}}"#,
            hex::encode(msg.unsigned.bytes()),
            hex::encode(d.subnet.0)
        );
        let by_message = post(&api, "testnet", &body).await;
        assert_eq!(signed(&d, &by_message), msg);
        assert_eq!(by_message.headers["content-type"], "application/json");

        // Both bodies match the official schemas.
        match crate::schema::official() {
            Some(doc) => {
                let base = "/v1/signatureAggregator/{network}/aggregateSignatures";
                crate::schema::assert_valid(&doc, "post", base, &by_message.json);
                let get = format!("{base}/{{txHash}}");
                crate::schema::assert_valid(&doc, "get", &get, &by_tx.json);
            }
            None => eprintln!("SKIPPED schema check: the official OpenAPI file is not beside the repo"),
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_unknown_txs_and_too_little_weight() {
    crate::harness::sqlite(|store| async move {
        let d = devnet().await;
        let api = api(store, &d);
        post(&api, "fuji", r#"{"message": "0xzz"}"#)
            .await
            .assert_error(400, "message must be a hex string");
        post(&api, "fuji", r#"{"message": "1234"}"#)
            .await
            .assert_error(400, "message is not an unsigned Warp message");
        post(&api, "fuji", "{}")
            .await
            .assert_error(400, "Either message or justification must be given");
        post(&api, "fuji", r#"{"message": "", "justification": ""}"#)
            .await
            .assert_error(400, "Either message or justification must be given");
        post(&api, "fuji", "not json")
            .await
            .assert_error(400, "request body is not a valid JSON object");
        // What a cross-site form can send is refused before anything is parsed or asked.
        for content_type in [
            None,
            Some("application/x-www-form-urlencoded"),
            Some("text/plain"),
            Some("multipart/form-data; boundary=x"),
        ] {
            post_as(&api, "fuji", content_type, r#"{"message": "00"}"#)
                .await
                .assert_error(415, "Content-Type: application/json");
        }
        post_as(
            &api,
            "fuji",
            Some("Application/JSON; charset=utf-8"),
            "not json",
        )
        .await
        .assert_error(400, "request body is not a valid JSON object");
        post(
            &api,
            "fuji",
            r#"{"justification": "0x00", "quorumPercentage": 101}"#,
        )
        .await
        .assert_error(400, "quorumPercentage must be an integer from 0 to 100");
        post(
            &api,
            "fuji",
            r#"{"justification": "0x00", "quorumPercentage": 90, "quorumPercentageBuffer": 20}"#,
        )
        .await
        .assert_error(400, "must not exceed 100");
        post(
            &api,
            "fuji",
            r#"{"justification": "0x00", "quorumPercentage": "x", "pChainHeight": -1}"#,
        )
        .await
        .assert_error(400, "pChainHeight must be a non-negative integer");
        post(
            &api,
            "fuji",
            r#"{"justification": "zz", "signingSubnetId": "nope"}"#,
        )
        .await
        .assert_error(400, "signingSubnetId must be a 32-byte ID");
        post(&api, "devnet", "{}")
            .await
            .assert_error(400, "network must be one of");
        let far = format!(
            r#"{{"message": "{}", "justification": "{}", "pChainHeight": 99999}}"#,
            hex::encode(
                L1Message::L1ValidatorRegistration(L1ValidatorRegistration {
                    validation_id: d.subnet.append(0),
                    registered: true
                })
                .to_unsigned_message(d.chain.network().network_id)
                .bytes()
            ),
            ""
        );
        post(&api, "fuji", &far)
            .await
            .assert_error(400, "P-Chain height 99999 is not accepted yet");

        let get = |tx: String| {
            let api = api.clone();
            async move {
                api.get(&format!(
                    "/v1/signatureAggregator/fuji/aggregateSignatures/{tx}"
                ))
                .await
            }
        };
        get(Id([1; 32]).to_string())
            .await
            .assert_error(404, "not found on the P-Chain");
        get("xyz".into())
            .await
            .assert_error(400, "txHash must be a transaction ID");
        get(d.create_subnet_tx.to_string())
            .await
            .assert_error(400, "is a CreateSubnetTx");

        // Two of five equal validators offline: 60 % < 67 %, a 503 clients retry.
        let config = d.chain.config();
        for i in 0..2 {
            d.signers
                .set_behaviour(config.validator_node_id(i), SignerBehaviour::Offline);
        }
        let registered = format!(
            r#"{{"message": "{}"}}"#,
            hex::encode(
                L1Message::L1ValidatorRegistration(L1ValidatorRegistration {
                    validation_id: d.subnet.append(0),
                    registered: true
                })
                .to_unsigned_message(d.chain.network().network_id)
                .bytes()
            )
        );
        post(&api, "fuji", &registered)
            .await
            .assert_error(503, "signature weight is insufficient");
        // 0 is the default 67 %, not "any weight will do".
        let at_zero = registered.replace('}', r#", "quorumPercentage": 0}"#);
        post(&api, "fuji", &at_zero)
            .await
            .assert_error(503, "signature weight is insufficient");
        // The same at 60 % passes.
        let at_sixty = registered.replace('}', r#", "quorumPercentage": 60}"#);
        signed_at(&d, &post(&api, "fuji", &at_sixty).await, 60);
    })
    .await;
}

fn signed_at(d: &Devnet, r: &Reply, q: u64) {
    assert_eq!(r.status.as_u16(), 201, "{}", r.json);
    let msg = Message::from_bytes(&hex::decode(r.json["signedMessage"].as_str().unwrap()).unwrap())
        .unwrap();
    let set = canonical(&d.chain.validators_at(&Id::ZERO, d.chain.height()).unwrap()).unwrap();
    set.verify(&msg, d.chain.network().network_id, q, 100)
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_validators_the_routes_answer_503() {
    crate::harness::sqlite(|store| async move {
        let api = Api::new(store);
        post(&api, "fuji", r#"{"message": "00"}"#)
            .await
            .assert_error(503, "not connected to validators");
    })
    .await;
}
