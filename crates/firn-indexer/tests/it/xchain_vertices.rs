//! The X-Chain's DAG through AvalancheGo's index API: a loopback JSON-RPC server serves
//! `/ext/index/X/vtx` (`index.getLastAccepted`, `index.getContainerRange`, hex with checksum)
//! with the real mainnet vertex of firn-core's vectors, vertices built with the codec from it
//! and the real tx vectors, and hostile containers; the backfill indexes what decodes and
//! skips the rest. A node without the index is said to have none, without error.

use std::sync::Arc;
use std::time::Duration;

use axum::Json;
use axum::extract::State;
use axum::routing::post;
use firn_core::avm::vertex::{MAX_VERTEX_SIZE, VertexKind};
use firn_core::avm::{Tx, Vertex};
use firn_core::codec::{self, Bytes};
use firn_core::encoding::hex_encode_checksummed;
use firn_core::ids::{Id, ShortId};
use firn_indexer::IndexerConfig;
use firn_indexer::xchain::{VertexBackfill, XVertexIndexer};
use firn_rpc::methods::api::{Encoded, TxReply};
use firn_rpc::methods::avm::AssetDescriptionReply;
use firn_rpc::methods::index::{Container, ContainerRangeParams, ContainerRangeReply};
use firn_rpc::{AvalancheClient, ClientConfig};
use firn_store::page::HeightCursor;
use firn_store::rows::ChainKey;
use firn_store::{
    CursorStore, PageRequest, SortOrder, Store, XChainReader, XUtxoFilter, XVertexReader,
};
use serde_json::{Value, json};

fn vector(rel: &str) -> Vec<u8> {
    let path = format!(
        "{}/../firn-core/tests/vectors/avm/{rel}",
        env!("CARGO_MANIFEST_DIR")
    );
    hex::decode(std::fs::read_to_string(path).unwrap().trim()).unwrap()
}

fn tx(rel: &str) -> Tx {
    codec::from_bytes(&vector(rel)).unwrap()
}

/// When the test server says each container was accepted.
const ACCEPTED: &str = "2021-03-11T14:57:04.628744154Z";
const ACCEPTED_UNIX: u64 = 1_615_474_624;

fn container(index: u64, id: Id, hex: String) -> Container {
    Container {
        id,
        bytes: hex,
        timestamp: ACCEPTED.to_owned(),
        encoding: "hex".to_owned(),
        index,
    }
}

fn vertex_container(index: u64, v: &Vertex) -> Container {
    container(index, v.id(), hex_encode_checksummed(&v.bytes()))
}

/// What the test node serves, and what the test expects of it.
struct Dag {
    containers: Vec<Container>,
    real: Vertex,
    child: Vertex,
    stop: Vertex,
    /// The child's tx that does not decode.
    junk_tx: Id,
    genesis: Tx,
}

/// 0: the real mainnet vertex; 1: garbage bytes; 2: hex longer than any vertex; 3: a child of
/// the real vertex (built with the codec) carrying a real mainnet BaseTx, bytes that are no
/// tx, and a real test-network BaseTx; 4: a stop vertex; 5: a vertex with a bad timestamp.
fn dag() -> Dag {
    let real = Vertex::from_bytes(&vector("vertices/mainnet-height-2121958.vtx.hex")).unwrap();
    let junk = vec![0, 0, 0, 0, 0, 0x7f, 1, 2, 3];
    let child = Vertex::new(
        real.chain_id(),
        real.height() + 1,
        vec![real.id()],
        VertexKind::Standard {
            epoch: 0,
            txs: vec![
                Bytes(vector("txs/indexer-ZGYTSU8w.tx.hex")),
                Bytes(junk.clone()),
                Bytes(vector("txs/base_tx.signed.tx.hex")),
            ],
        },
    );
    let stop = Vertex::new(
        real.chain_id(),
        child.height() + 1,
        vec![child.id()],
        VertexKind::Stop,
    );
    let garbage = b"not a vertex at all".to_vec();
    let oversized = format!("0x{}", "00".repeat(MAX_VERTEX_SIZE + 8));
    let mut late = vertex_container(5, &stop);
    late.timestamp = "yesterday".to_owned();
    Dag {
        containers: vec![
            vertex_container(0, &real),
            container(1, Id::hash_of(&garbage), hex_encode_checksummed(&garbage)),
            container(2, Id::ZERO, oversized),
            vertex_container(3, &child),
            vertex_container(4, &stop),
            late,
        ],
        real,
        child,
        stop,
        junk_tx: Id::hash_of(&junk),
        genesis: tx("txs/create_asset_tx.simple.tx.hex"),
    }
}

/// A JSON-RPC 2.0 reply to `request`: `result`, or AvalancheGo's error object.
fn reply(request: &Value, result: Result<Value, (i64, &str)>) -> Json<Value> {
    let id = request["id"].clone();
    Json(match result {
        Ok(r) => json!({ "jsonrpc": "2.0", "id": id, "result": r }),
        Err((code, message)) => {
            json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } })
        }
    })
}

async fn index_api(State(dag): State<Arc<Dag>>, Json(request): Json<Value>) -> Json<Value> {
    let containers = &dag.containers;
    let result = match request["method"].as_str() {
        Some("index.getLastAccepted") => match containers.last() {
            Some(c) => Ok(serde_json::to_value(c).unwrap()),
            None => Err((-32000, "no containers have been accepted")),
        },
        Some("index.getContainerRange") => {
            let p: ContainerRangeParams =
                serde_json::from_value(request["params"].clone()).unwrap();
            assert!((1..=1024).contains(&p.num_to_fetch), "{p:?}");
            assert_eq!(p.encoding.as_deref(), Some("hex"));
            let start = usize::try_from(p.start_index).unwrap();
            let end = (start + p.num_to_fetch as usize).min(containers.len());
            let got = containers.get(start..end).unwrap_or_default().to_vec();
            Ok(serde_json::to_value(ContainerRangeReply { containers: got }).unwrap())
        }
        _ => Err((-32601, "rpc: can't find method")),
    };
    reply(&request, result)
}

async fn avm_api(State(dag): State<Arc<Dag>>, Json(request): Json<Value>) -> Json<Value> {
    let result = match request["method"].as_str() {
        Some("avm.getAssetDescription") => Ok(serde_json::to_value(AssetDescriptionReply {
            asset_id: dag.genesis.id(),
            name: "Avalanche".to_owned(),
            symbol: "AVAX".to_owned(),
            denomination: 9,
        })
        .unwrap()),
        Some("avm.getTx") => Ok(serde_json::to_value(TxReply {
            tx: Encoded::Text(hex_encode_checksummed(&dag.genesis.bytes())),
            encoding: "hex".to_owned(),
        })
        .unwrap()),
        _ => Err((-32601, "rpc: can't find method")),
    };
    reply(&request, result)
}

/// A node on loopback; `with_index` false serves no vertex index (404, as AvalancheGo without
/// `--index-enabled`).
async fn serve(dag: Arc<Dag>, with_index: bool) -> (String, tokio::task::JoinHandle<()>) {
    let mut app = axum::Router::new().route("/ext/bc/X", post(avm_api));
    if with_index {
        app = app.route("/ext/index/X/vtx", post(index_api));
    }
    let app = app.with_state(dag);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let task = tokio::spawn(async move {
        axum::serve(listener, app).await.unwrap();
    });
    (url, task)
}

fn indexer(url: &str, store: &Store) -> XVertexIndexer {
    let client = |path: &str| {
        AvalancheClient::new(&format!("{url}{path}"), ClientConfig::default()).unwrap()
    };
    let config = IndexerConfig {
        // Batches of 2: the hostile containers fall on batch edges and inside batches.
        batch_blocks: 2,
        max_attempts: Some(3),
        initial_backoff: Duration::from_millis(10),
        ..IndexerConfig::default()
    };
    XVertexIndexer::new(
        client("/ext/index/X/vtx"),
        client("/ext/bc/X"),
        store.clone(),
        config,
    )
}

pub async fn xchain_vertices_from_the_index_api(store: Store) {
    let dag = Arc::new(dag());
    let (url, server) = serve(Arc::clone(&dag), true).await;

    let done = indexer(&url, &store).backfill().await.unwrap();
    // 0, 3 and 4 decode; 1 (garbage), 2 (oversized) and 5 (bad timestamp) are skipped.
    assert_eq!(
        done,
        VertexBackfill::Indexed {
            cursor: Some(4),
            committed: 3
        }
    );
    assert_eq!(
        store.find_cursor(ChainKey::XChainVertices).await.unwrap(),
        Some(4)
    );

    // The real vertex, by ID, as the bytes say.
    let real = store.get_xchain_vertex_by_id(dag.real.id()).await.unwrap();
    assert_eq!(
        real.vertex_id.to_string(),
        "2sc5kGzCQzATBsDVvgKyLCdRgjeXZyjZL5qttsuYxZUKhPGDVH"
    );
    assert_eq!((real.index, real.height), (0, 2_121_958));
    assert_eq!(real.parent_ids, dag.real.parent_ids());
    assert_eq!(
        (real.timestamp, real.tx_count, real.size_bytes),
        (ACCEPTED_UNIX, 1, 425)
    );
    let import = "w3nAnUhBbJjobdu4ywgQXQAAdXhN9i13UJC7rHsHukmu5FDo8"
        .parse::<Id>()
        .unwrap();
    assert_eq!(real.tx_ids, [import]);

    // The child lists all three txs, the one that does not decode too.
    let child_txs: Vec<Tx> = [0, 2]
        .map(|i| codec::from_bytes(&dag.child.tx_bytes()[i].0).unwrap())
        .to_vec();
    let child = store.get_xchain_vertex_by_id(dag.child.id()).await.unwrap();
    assert_eq!(
        child.tx_ids,
        [child_txs[0].id(), dag.junk_tx, child_txs[1].id()]
    );
    assert_eq!((child.index, child.tx_count), (3, 3));
    let stop = store.get_xchain_vertex_by_id(dag.stop.id()).await.unwrap();
    assert_eq!(
        (stop.index, stop.tx_count, stop.parent_ids.clone()),
        (4, 0, vec![dag.child.id()])
    );

    // Newest first, and by height.
    let latest = store
        .list_xchain_vertices(SortOrder::Desc, &PageRequest::first(2))
        .await
        .unwrap();
    let indices: Vec<u64> = latest.items.iter().map(|v| v.index).collect();
    assert_eq!(
        (indices, latest.next),
        (vec![4, 3], Some(HeightCursor { height: 3 }))
    );
    let at = store
        .list_xchain_vertices_by_height(2_121_959, SortOrder::Desc, &PageRequest::first(10))
        .await
        .unwrap();
    assert_eq!(at.items, [child]);

    // The real ImportTx: a DAG tx with its vertex and its one UTXO, unspent, under its owner.
    let got = store.get_xchain_tx(import).await.unwrap();
    assert_eq!(got.tx_type, "ImportTx");
    assert!(!got.is_linear());
    assert_eq!(got.vertices.len(), 1);
    assert_eq!(
        (
            got.vertices[0].vertex_id,
            got.vertices[0].height,
            got.vertices[0].timestamp
        ),
        (dag.real.id(), 2_121_958, ACCEPTED_UNIX)
    );
    assert_eq!(got.produced.len(), 1);
    let utxo = &got.produced[0];
    assert_eq!(utxo.utxo.amount, Some(0x3b7c_4580));
    assert!(utxo.consumed.is_none());
    let owner: ShortId = utxo.utxo.addresses[0];
    let utxos = store
        .list_xchain_utxos(
            &XUtxoFilter {
                addresses: vec![owner],
                asset_id: None,
                ..XUtxoFilter::default()
            },
            SortOrder::Desc,
            &PageRequest::first(10),
        )
        .await
        .unwrap();
    assert!(
        utxos
            .items
            .iter()
            .any(|u| u.utxo.utxo_id == import.prefix(0))
    );

    // The child's txs that decode are stored after the real vertex's, the junk is not; genesis
    // came first.
    let positions: Vec<(Id, u32)> = {
        let mut p = Vec::new();
        for id in [
            dag.genesis.id(),
            import,
            child_txs[0].id(),
            child_txs[1].id(),
        ] {
            p.push((id, store.get_xchain_tx(id).await.unwrap().index));
        }
        p
    };
    assert_eq!(
        positions.iter().map(|p| p.1).collect::<Vec<_>>(),
        [0, 1, 2, 3]
    );
    assert!(store.get_xchain_tx(dag.genesis.id()).await.unwrap().genesis);
    assert!(store.get_xchain_tx(dag.junk_tx).await.is_err());

    // Again: nothing new, nothing changed.
    let again = indexer(&url, &store).backfill().await.unwrap();
    assert_eq!(
        again,
        VertexBackfill::Indexed {
            cursor: Some(4),
            committed: 0
        }
    );
    server.abort();

    // A node without the index: said once, no error, nothing touched.
    let (url, server) = serve(dag, false).await;
    let none = indexer(&url, &store).backfill().await.unwrap();
    assert_eq!(none, VertexBackfill::NotServed);
    assert_eq!(
        store.find_cursor(ChainKey::XChainVertices).await.unwrap(),
        Some(4)
    );
    server.abort();
}
