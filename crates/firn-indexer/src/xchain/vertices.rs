//! The X-Chain's DAG before Cortina, backfilled once from the node's vertex index: the
//! vertices after the vertex cursor up to the last accepted, each with its txs derived as a
//! linear block's are ([`derive::carried_tx_rows`]), committed batch by batch with the cursor.
//!
//! Genesis is stored first (its UTXOs are what the first vertices spend). The DAG is final:
//! no parent checks or rollbacks, and no following after the backfill, as Cortina ended it.
//! A node without the index says so once and the backfill ends without error.

use firn_core::ids::Id;
use firn_rpc::AvalancheClient;
use firn_store::rows::ChainKey;
use firn_store::rows::xchain::{XChainVertexRows, XVertexRecord};
use firn_store::{CursorStore, Store, StoreError, XChainWriter};
use tracing::{debug, info, warn};

use super::derive::{self, Carrier};
use super::vertex_source::{FetchedVertex, LastVertex, VertexSource};
use super::{XChainSource, genesis_txs};
use crate::error::{IndexerError, Result};
use crate::fetch::{Backoff, spawn_batches};
use crate::pchain::IndexerConfig;

/// What a vertex backfill found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VertexBackfill {
    /// The node serves no vertex index: nothing was done.
    NotServed,
    /// The index was read to its end: the last stored acceptance index (`None`: the DAG is
    /// empty) and how many vertices this call committed.
    Indexed {
        /// The vertex cursor after the backfill.
        cursor: Option<u64>,
        /// Vertices committed by this call.
        committed: u64,
    },
}

/// Backfills the X-Chain's DAG from one node into one store.
#[derive(Debug)]
pub struct XVertexIndexer {
    source: VertexSource,
    xchain: XChainSource,
    store: Store,
    config: IndexerConfig,
    committed: u64,
}

impl XVertexIndexer {
    /// A backfill from the vertex index `index` (`http://node:9650/ext/index/X/vtx`), with the
    /// X-Chain endpoint `xchain` (`…/ext/bc/X`) for the genesis asset, into `store`.
    pub fn new(
        index: AvalancheClient,
        xchain: AvalancheClient,
        store: Store,
        config: IndexerConfig,
    ) -> Self {
        Self {
            source: VertexSource::new(index),
            xchain: XChainSource::new(xchain, config.concurrency),
            store,
            config,
            committed: 0,
        }
    }

    /// Indexes every vertex the node accepted that is not stored yet, retrying failures with
    /// backoff. Errors only when the store refuses the DAG (it conflicts with what is stored,
    /// or linear blocks are stored already) or failures exceed
    /// [`IndexerConfig::max_attempts`].
    pub async fn backfill(&mut self) -> Result<VertexBackfill> {
        let mut backoff = Backoff::new(&self.config);
        loop {
            match self.try_backfill().await {
                Ok(done) => return Ok(done),
                Err(e) if is_final(&e) => return Err(e),
                Err(e) => {
                    backoff
                        .wait(e, |error, attempt, wait| {
                            warn!(target: "indexer::xchain", %error, attempt, backoff_ms = wait.as_millis() as u64, "x-chain vertex backfill failed, retrying");
                        })
                        .await?;
                }
            }
        }
    }

    async fn try_backfill(&mut self) -> Result<VertexBackfill> {
        let tip = match self.source.last_accepted().await? {
            LastVertex::NotServed => {
                info!(target: "indexer::xchain", "the node serves no x-chain vertex index (/ext/index/X/vtx, AvalancheGo's --index-enabled): the DAG before Cortina is not indexed");
                return Ok(VertexBackfill::NotServed);
            }
            LastVertex::Empty => None,
            LastVertex::At(i) => Some(i),
        };
        let cursor = self.store.find_cursor(ChainKey::XChainVertices).await?;
        let from = cursor.map_or(0, |c| c.saturating_add(1));
        let Some(tip) = tip.filter(|t| *t >= from) else {
            return Ok(self.done(cursor));
        };
        let source = self.source.clone();
        let (mut rx, fetcher) = spawn_batches(
            from,
            tip,
            self.config.batch_blocks,
            self.config.window,
            move |indices| {
                let source = source.clone();
                async move { source.vertices(indices).await }
            },
        );
        let result = self.commit_stream(&mut rx, cursor.is_none(), tip).await;
        fetcher.abort();
        result?;
        let cursor = self.store.find_cursor(ChainKey::XChainVertices).await?;
        Ok(self.done(cursor))
    }

    async fn commit_stream(
        &mut self,
        rx: &mut tokio::sync::mpsc::Receiver<Result<Vec<FetchedVertex>>>,
        mut needs_genesis: bool,
        tip: u64,
    ) -> Result<()> {
        while let Some(fetched) = rx.recv().await {
            let fetched = fetched?;
            let Some(first) = fetched.first() else {
                continue;
            };
            if needs_genesis {
                if let Some(genesis) = genesis_txs(&self.xchain).await? {
                    self.store
                        .commit_xchain_genesis(&[genesis], first.timestamp)
                        .await?;
                }
                needs_genesis = false;
            }
            let rows: Vec<XChainVertexRows> = fetched.iter().map(vertex_rows).collect();
            let outcome = self.store.commit_xchain_vertices(&rows).await?;
            self.committed += outcome.committed as u64;
            let last = fetched.last().map_or(0, |v| v.index);
            debug!(target: "indexer::xchain", vertex_index = last, tip, committed = outcome.committed, skipped = outcome.skipped, "committed x-chain vertices");
        }
        Ok(())
    }

    fn done(&self, cursor: Option<u64>) -> VertexBackfill {
        info!(target: "indexer::xchain", cursor, committed = self.committed, "indexed the x-chain's vertices");
        VertexBackfill::Indexed {
            cursor,
            committed: self.committed,
        }
    }
}

/// The rows of a fetched vertex: every tx's ID (sha256 of its bytes, decoded or not), and the
/// rows of those that decode and derive (the others are logged and left out).
fn vertex_rows(v: &FetchedVertex) -> XChainVertexRows {
    let tx_bytes = v.vertex.tx_bytes();
    let mut txs = Vec::with_capacity(tx_bytes.len());
    for raw in tx_bytes {
        match firn_core::codec::from_bytes::<firn_core::avm::Tx>(&raw.0) {
            Ok(tx) => txs.extend(derive::carried_tx_rows(&tx, Carrier::Vertex(v.index))),
            Err(error) => {
                warn!(target: "indexer::xchain", vertex_index = v.index, tx = %Id::hash_of(&raw.0), %error, "an x-chain tx that does not decode is skipped");
            }
        }
    }
    XChainVertexRows {
        vertex: XVertexRecord {
            index: v.index,
            vertex_id: v.vertex.id(),
            height: v.vertex.height(),
            parent_ids: v.vertex.parent_ids().to_vec(),
            timestamp: v.timestamp,
            tx_count: tx_bytes.len() as u64,
            size_bytes: v.size,
            tx_ids: tx_bytes.iter().map(|b| Id::hash_of(&b.0)).collect(),
        },
        txs,
    }
}

/// Errors a retry cannot mend: the store refuses this DAG.
fn is_final(e: &IndexerError) -> bool {
    matches!(
        e,
        IndexerError::Store(
            StoreError::ConflictingVertex { .. } | StoreError::VertexAfterBlocks { .. }
        )
    )
}
