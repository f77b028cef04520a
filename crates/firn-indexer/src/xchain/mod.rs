//! The X-Chain follower: fetches linear blocks (since Cortina) from the node in parallel,
//! derives their rows and commits them with the cursor, batch by batch; then polls the tip.
//!
//! Genesis comes first: the AVAX asset is in no block, so it is read with
//! `avm.getAssetDescription` (`AVAX`) and `avm.getTx` of its ID, and committed with block 0 as a
//! genesis tx whose ID is the asset's and whose initial-state outputs are UTXOs of that ID,
//! indices 0.. (as AvalancheGo keeps them). A tx that does not decode or derive is logged and
//! left out; its block is stored all the same, so indexing never stops on hostile bytes.
//!
//! The DAG before Cortina is [`XVertexIndexer`]'s (`vertices`, over [`VertexSource`]): run it
//! once before this follower, as the DAG's txs precede every linear block's.

mod derive;
mod source;
mod vertex_source;
mod vertices;

use std::time::Instant;

use firn_core::ids::Id;
use firn_rpc::AvalancheClient;
use firn_store::rows::ChainKey;
use firn_store::rows::xchain::{XBlockRecord, XChainBlockRows, XTx};
use firn_store::{CursorStore, Store, StoreError, XChainReader, XChainWriter};
use tokio::sync::mpsc;
use tracing::{debug, info, warn};

pub use source::{FetchedXBlock, XChainSource};
pub use vertex_source::{FetchedVertex, LastVertex, VertexSource};
pub use vertices::{VertexBackfill, XVertexIndexer};

use derive::Carrier;

use crate::error::{IndexerError, Result};
use crate::fetch::Backoff;
use crate::pchain::{IndexerConfig, Progress};

type ProgressFn = Box<dyn Fn(&Progress) + Send + Sync>;

/// Follows the X-Chain of one node into one store.
pub struct XChainIndexer {
    source: XChainSource,
    store: Store,
    config: IndexerConfig,
    on_progress: Option<ProgressFn>,
    /// Height and ID of the last committed block, to check the next one's parent.
    last: Option<(u64, Id)>,
    started_at: Option<Option<u64>>,
    committed: u64,
}

impl std::fmt::Debug for XChainIndexer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("XChainIndexer")
            .field("config", &self.config)
            .field("committed", &self.committed)
            .finish_non_exhaustive()
    }
}

impl XChainIndexer {
    /// A follower of the X-Chain endpoint `client` (`http://node:9650/ext/bc/X`) into `store`.
    pub fn new(client: AvalancheClient, store: Store, config: IndexerConfig) -> Self {
        Self {
            source: XChainSource::new(client, config.concurrency),
            store,
            config,
            on_progress: None,
            last: None,
            started_at: None,
            committed: 0,
        }
    }

    /// Calls `f` after every commit (progress bars, logs).
    pub fn on_progress(mut self, f: impl Fn(&Progress) + Send + Sync + 'static) -> Self {
        self.on_progress = Some(Box::new(f));
        self
    }

    /// Indexes up to the node's height at the time of the call, retrying failures with
    /// backoff. Returns the committed height.
    pub async fn backfill(&mut self) -> Result<Option<u64>> {
        let tip = self.tip().await?;
        self.sync(tip).await?;
        Ok(self.store.find_cursor(ChainKey::XChain).await?)
    }

    /// Backfills, then follows the tip until the returned future is dropped (or failures
    /// exceed [`IndexerConfig::max_attempts`]).
    pub async fn follow(&mut self) -> Result<()> {
        loop {
            let tip = self.tip().await?;
            self.sync(tip).await?;
            tokio::time::sleep(self.config.poll_interval).await;
        }
    }

    async fn tip(&mut self) -> Result<u64> {
        let mut backoff = Backoff::new(&self.config);
        loop {
            match self.source.height().await {
                Ok(t) => return Ok(t),
                Err(e) => self.failed(e, &mut backoff).await?,
            }
        }
    }

    async fn sync(&mut self, tip: u64) -> Result<()> {
        let mut backoff = Backoff::new(&self.config);
        loop {
            match self.sync_to(tip).await {
                Ok(()) => return Ok(()),
                Err(e) => self.failed(e, &mut backoff).await?,
            }
        }
    }

    /// Logs a failure and waits before the next attempt (or gives up); what was remembered
    /// of the last block is read again from the store.
    async fn failed(&mut self, error: IndexerError, backoff: &mut Backoff) -> Result<()> {
        self.last = None;
        backoff
            .wait(error, |error, attempt, wait| {
                warn!(target: "indexer::xchain", %error, attempt, backoff_ms = wait.as_millis() as u64, "x-chain indexing failed, retrying");
            })
            .await
    }

    /// Fetches, derives and commits every block after the cursor up to `tip`.
    async fn sync_to(&mut self, tip: u64) -> Result<()> {
        let cursor = self.store.find_cursor(ChainKey::XChain).await?;
        if self.started_at.is_none() {
            self.started_at = Some(cursor);
        }
        let from = cursor.map_or(0, |c| c.saturating_add(1));
        if from > tip {
            self.report(cursor.unwrap_or(0), tip);
            return Ok(());
        }
        if self.last.is_none()
            && let Some(c) = cursor
        {
            match self.store.get_xchain_block_by_height(c).await {
                Ok(b) => self.last = Some((c, b.block_id)),
                Err(StoreError::NotFound { .. }) => {}
                Err(e) => return Err(e.into()),
            }
        }
        let source = self.source.clone();
        let (mut rx, fetcher) = crate::fetch::spawn_batches(
            from,
            tip,
            self.config.batch_blocks,
            self.config.window,
            move |heights| {
                let source = source.clone();
                async move { source.blocks(heights).await }
            },
        );
        let result = self.commit_stream(&mut rx, tip).await;
        fetcher.abort();
        result
    }

    async fn commit_stream(
        &mut self,
        rx: &mut mpsc::Receiver<Result<Vec<FetchedXBlock>>>,
        tip: u64,
    ) -> Result<()> {
        while let Some(fetched) = rx.recv().await {
            let blocks = fetched?;
            let mut rows = Vec::with_capacity(blocks.len());
            for b in &blocks {
                self.check_parent(b)?;
                let mut txs = Vec::new();
                if b.height == 0 {
                    txs.extend(genesis_txs(&self.source).await?);
                }
                txs.extend(block_txs(b));
                rows.push(XChainBlockRows {
                    block: XBlockRecord {
                        height: b.height,
                        block_id: b.id,
                        parent_id: b.parent_id,
                        timestamp: b.time,
                        tx_count: b.tx_count,
                        size_bytes: b.size,
                    },
                    txs,
                });
                self.last = Some((b.height, b.id));
            }
            let Some(height) = rows.last().map(|r| r.block.height) else {
                continue;
            };
            let started = Instant::now();
            let outcome = self.store.commit_xchain_blocks(&rows).await?;
            self.committed += outcome.committed as u64;
            debug!(target: "indexer::xchain", height, committed = outcome.committed, skipped = outcome.skipped, commit_ms = started.elapsed().as_millis() as u64, "committed x-chain blocks");
            self.report(height, tip);
        }
        Ok(())
    }

    fn check_parent(&self, b: &FetchedXBlock) -> Result<()> {
        if let Some((h, id)) = self.last
            && h.checked_add(1) == Some(b.height)
            && b.parent_id != id
        {
            return Err(IndexerError::ParentMismatch {
                height: b.height,
                parent: b.parent_id,
                prev: h,
                stored: id,
            });
        }
        Ok(())
    }

    fn report(&self, height: u64, tip: u64) {
        let p = Progress {
            height,
            tip,
            started_at: self.started_at.flatten(),
            committed: self.committed,
        };
        if let Some(f) = &self.on_progress {
            f(&p);
        } else {
            info!(target: "indexer::xchain", height, tip, committed = self.committed, "indexed x-chain blocks");
        }
    }
}

/// The rows of a block's txs that derive; the others are logged and left out.
fn block_txs(b: &FetchedXBlock) -> Vec<XTx> {
    b.txs
        .iter()
        .filter_map(|tx| derive::carried_tx_rows(tx, Carrier::Block(b.height)))
        .collect()
}

/// The genesis tx(s) stored before anything else: AVAX's CreateAssetTx under the asset's ID.
async fn genesis_txs(source: &XChainSource) -> Result<Option<XTx>> {
    let (asset_id, tx) = source.genesis().await?;
    let Some(tx) = tx else { return Ok(None) };
    match derive::tx_rows(&tx, asset_id, true) {
        Ok(rows) => Ok(Some(rows)),
        Err(error) => {
            warn!(target: "indexer::xchain", asset = %asset_id, %error, "the genesis asset's tx cannot be derived; it is skipped");
            Ok(None)
        }
    }
}
