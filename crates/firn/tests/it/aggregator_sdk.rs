//! The official chainkit SDK's `signatureAggregator.aggregate` and `.get` against firn over
//! real HTTP on loopback: a devnet with an L1, its validators signing through
//! `DevnetSigners`, the Data API serving the aggregator. The node project is
//! `tests/js/aggregator/` (chainkit pinned in package.json and package-lock.json); the test
//! skips, saying why, when node or the package cannot be had.

use firn_aggregator::{Aggregator, AggregatorConfig};
use firn_api::{ApiConfig, AppState};
use firn_core::ids::Id;
use firn_core::warp::{Message, UnsignedMessage};
use firn_devnet::state::validators::canonical;
use firn_devnet::vm::PChain;
use firn_node::testing::convert_an_l1;
use firn_node::{NodeConfig, NodeHandle, SignerKeys};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

/// The node project, with its dependencies installed from the lock file; `None` (after
/// printing why) when node or npm cannot provide them.
fn node_project() -> Option<PathBuf> {
    if !crate::js::runs("node") || !crate::js::runs("npm") {
        eprintln!("SKIPPED aggregator_sdk: node or npm is not installed");
        return None;
    }
    Some(crate::js::project(
        "aggregator",
        &["@avalanche-sdk/chainkit"],
    ))
}

/// A node (default config, frozen clock, the genesis validators signing, or not: `signers`)
/// with a subnet converted to an L1, and the conversion's P-Chain Warp message.
pub struct ConvertedL1 {
    pub node: NodeHandle,
    pub chain: Arc<PChain>,
    pub subnet: Id,
    pub convert_tx: Id,
    pub message: UnsignedMessage,
}

pub async fn devnet_with_converted_l1(signers: SignerKeys) -> ConvertedL1 {
    let node = firn_node::spawn(NodeConfig::test().with_signers(signers))
        .await
        .unwrap();
    let chain = node.pchain().clone();
    let l1 = convert_an_l1(&chain);
    ConvertedL1 {
        node,
        chain,
        subnet: l1.subnet,
        convert_tx: l1.convert_tx,
        message: l1.message,
    }
}

/// The Data API over `state` on a free loopback port: its URL, and the sender that stops it.
pub async fn serve_api(
    state: AppState,
) -> (
    String,
    tokio::sync::oneshot::Sender<()>,
    tokio::task::JoinHandle<std::io::Result<()>>,
) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(firn_api::serve(listener, state, async {
        let _ = stopped.await;
    }));
    (url, stop, server)
}

/// An empty SQLite store in `dir`.
pub async fn empty_store(dir: &Path) -> firn_store::Store {
    firn_store::open(dir.join("firn.db").to_str().unwrap())
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chainkit_signature_aggregator_aggregate_and_get_against_firn() {
    let Some(project) = node_project() else {
        return;
    };
    let ConvertedL1 {
        node,
        chain,
        subnet,
        convert_tx,
        message,
    } = devnet_with_converted_l1(SignerKeys::Genesis).await;
    let network_id = chain.network().network_id;
    let signers = node.signers().unwrap().clone();
    let aggregator = Arc::new(Aggregator::new(
        signers.clone(),
        AggregatorConfig::default(),
    ));
    let state = AppState::new(empty_store(node.data_dir()).await, ApiConfig::default())
        .with_signature_aggregator(aggregator, signers);
    let (url, stop, server) = serve_api(state).await;

    let envs = [
        ("FIRN_URL", url),
        ("MESSAGE", format!("0x{}", hex::encode(message.bytes()))),
        ("JUSTIFICATION", hex::encode(subnet.0)),
        ("TX_HASH", convert_tx.to_string()),
        ("UNKNOWN_TX", Id([5; 32]).to_string()),
    ];
    let output = tokio::task::spawn_blocking(move || {
        Command::new("node")
            .arg("aggregator.mjs")
            .current_dir(project)
            .envs(envs)
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    let _ = stop.send(());
    server.await.unwrap().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "node failed: {stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let out: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();

    // Both calls return a message the primary network's current set verifies, the same one.
    let set = canonical(&chain.validators_at(&Id::ZERO, chain.height()).unwrap()).unwrap();
    let signed = |call: &str| {
        let hex_str = out[call]["ok"]["signedMessage"]
            .as_str()
            .unwrap_or_else(|| panic!("{call}: {}", out[call]));
        let msg = Message::from_bytes(&hex::decode(hex_str).unwrap()).unwrap();
        set.verify(&msg, network_id, 67, 100).unwrap();
        msg
    };
    let aggregated = signed("aggregate");
    assert_eq!(aggregated.unsigned, message);
    assert_eq!(signed("get"), aggregated);

    // Errors reach the SDK as its typed errors.
    assert_eq!(out["malformed"]["error"]["statusCode"], 400, "{out}");
    assert_eq!(
        out["malformed"]["error"]["name"], "BadRequestError",
        "{out}"
    );
    assert_eq!(out["unknownTx"]["error"]["statusCode"], 404, "{out}");
    assert_eq!(out["unknownTx"]["error"]["name"], "NotFoundError", "{out}");
}
