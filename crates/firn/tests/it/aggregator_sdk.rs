//! The official chainkit SDK's `signatureAggregator.aggregate` and `.get` against firn over
//! real HTTP on loopback: a devnet with an L1, its validators signing through
//! `DevnetSigners`, the Data API serving the aggregator. The node project is
//! `tests/js/aggregator/` (chainkit pinned in package.json and package-lock.json); the test
//! skips, saying why, when node or the package cannot be had.

use firn_aggregator::{Aggregator, AggregatorConfig};
use firn_api::{ApiConfig, AppState};
use firn_core::ids::{Id, NodeId};
use firn_core::warp::messages::{L1Message, PChainOwner};
use firn_core::warp::{Message, UnsignedMessage};
use firn_devnet::clock::Clock;
use firn_devnet::genesis::{DevnetConfig, derive_bls, single_owner};
use firn_devnet::signers::DevnetSigners;
use firn_devnet::state::validators::canonical;
use firn_devnet::vm::PChain;
use firn_devnet::wallet::{L1ValidatorSpec, Wallet};
use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;

use crate::devnet::TempDir;

const AVAX: u64 = 1_000_000_000;

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

fn build(chain: &PChain, tx: firn_core::pchain::tx::Tx) -> Id {
    let id = chain.issue_tx(tx).unwrap();
    chain.clock().advance(1);
    chain.build_until_idle().unwrap();
    id
}

/// A devnet (default config, frozen clock) with a subnet converted to an L1, and the
/// conversion's P-Chain Warp message.
pub struct ConvertedL1 {
    /// Holds the chain; removed when dropped.
    pub dir: TempDir,
    pub chain: Arc<PChain>,
    pub subnet: Id,
    pub convert_tx: Id,
    pub message: UnsignedMessage,
}

pub fn devnet_with_converted_l1(name: &str) -> ConvertedL1 {
    let dir = TempDir(std::env::temp_dir().join(format!("firn-{name}-{}", std::process::id())));
    let _ = std::fs::remove_dir_all(&dir.0);
    let config = DevnetConfig::default();
    let chain = Arc::new(
        PChain::open(
            config.clone(),
            dir.0.join("devnet"),
            Clock::frozen(config.genesis_time),
        )
        .unwrap(),
    );
    let wallet = Wallet::new(&chain);
    let me = wallet.change_address();
    let subnet = build(&chain, wallet.create_subnet(single_owner(me)).unwrap());
    let manager = build(
        &chain,
        wallet
            .create_chain(subnet, "manager", Id([9; 32]), b"{}".to_vec())
            .unwrap(),
    );
    let key = derive_bls("sdk", "l1", 0).unwrap();
    let spec = L1ValidatorSpec {
        node_id: NodeId([0x41; 20]),
        weight: 100,
        balance: 10 * AVAX,
        bls: &key,
        owner: PChainOwner {
            threshold: 1,
            addresses: vec![me],
        },
    };
    let convert_tx = build(
        &chain,
        wallet
            .convert_subnet_to_l1(subnet, manager, vec![0xAB; 20], &[spec])
            .unwrap(),
    );
    let conversion_id = chain.subnets()[0].conversion.clone().unwrap().conversion_id;
    let message =
        L1Message::SubnetToL1Conversion(firn_core::warp::messages::SubnetToL1Conversion {
            id: conversion_id,
        })
        .to_unsigned_message(chain.network().network_id);
    std::fs::create_dir_all(&dir.0).unwrap();
    ConvertedL1 {
        dir,
        chain,
        subnet,
        convert_tx,
        message,
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
pub async fn empty_store(dir: &TempDir) -> firn_store::Store {
    firn_store::open(dir.0.join("firn.db").to_str().unwrap())
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chainkit_signature_aggregator_aggregate_and_get_against_firn() {
    let Some(project) = node_project() else {
        return;
    };
    let ConvertedL1 {
        dir,
        chain,
        subnet,
        convert_tx,
        message,
    } = devnet_with_converted_l1("agg-sdk");
    let network_id = chain.network().network_id;
    let signers = Arc::new(DevnetSigners::new(chain.clone()).unwrap());
    let aggregator = Arc::new(Aggregator::new(
        signers.clone(),
        AggregatorConfig::default(),
    ));
    let state = AppState::new(empty_store(&dir).await, ApiConfig::default())
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
