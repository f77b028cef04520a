//! The EVM follower: one [`EvmIndexer`] per chain (the C-Chain and each subnet-EVM L1) fetches
//! blocks, receipts and traces in batched requests, derives their rows and commits them with
//! the chain's cursor, batch by batch; then polls the tip. At the tip it compares the ERC-20
//! balances the store folded with the tokens' `balanceOf` (`balances`). [`discover`] finds
//! the chains a node serves and [`follow_all`] runs one follower per chain.

mod atomic;
mod balances;
mod derive;
mod discover;
mod icm;
mod metadata;
mod nft;
mod source;
mod tokens;
mod transfers;
mod web;

use std::sync::Arc;
use std::time::Instant;

use firn_core::ids::Id;
use firn_rpc::client::redact_url;
use firn_store::rows::ChainKey;
use firn_store::rows::evm::{EvmBlockRows, EvmChainRecord, TokenTransfer};
use firn_store::types::{Address, B256};
use firn_store::{CursorStore, EvmReader, EvmWriter, Store};
use tracing::{debug, info, warn};

pub use derive::block_rows;
pub use discover::{
    ChainProgress, ChainSelection, DiscoveryStatus, EvmEndpoint, discover, follow_all, probe,
};
pub use metadata::{MetadataWorker, WorkerConfig};
pub use nft::{MetadataFetcher, MetadataLimits, decode_data_uri};
pub use source::{EvmSource, FetchedEvmBlock};
pub use transfers::decode as decode_transfers;
pub use web::{FetchError, WebClient, is_public};

use crate::error::{IndexerError, Result};
use crate::pchain::{IndexerConfig, Progress};
use balances::BalanceCheck;
use tokens::KnownTokens;

type ProgressFn = Arc<dyn Fn(&Progress) + Send + Sync>;

/// Rollbacks one sync may make before it gives up (and is retried with backoff): a node that
/// keeps changing its history is not followed back and forth for ever.
const MAX_REWINDS: u32 = 3;

/// Stops a background task when the follower stops.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// A fetched block's rows, derived on the fetch side: the next batch is derived while the
/// committer writes this one. The header's links are kept apart from the rows, so that a node
/// that changed its history is noticed before a block that failed to derive.
struct DerivedBlock {
    number: u64,
    hash: B256,
    parent_hash: B256,
    rows: Result<EvmBlockRows>,
}

impl DerivedBlock {
    fn of(chain_id: u64, blockchain_id: Id, f: &FetchedEvmBlock) -> Self {
        Self {
            number: f.block.number,
            hash: f.block.hash,
            parent_hash: f.block.parent_hash,
            rows: block_rows(chain_id, blockchain_id, f),
        }
    }
}

/// Follows one EVM chain of one node into one store.
pub struct EvmIndexer {
    endpoint: EvmEndpoint,
    source: EvmSource,
    store: Store,
    config: IndexerConfig,
    metadata: MetadataFetcher,
    /// Woken after a commit that minted NFTs.
    minted: Arc<tokio::sync::Notify>,
    on_progress: Option<ProgressFn>,
    chain_id: Option<u64>,
    tokens: KnownTokens,
    balances: BalanceCheck,
    /// Number and hash of the last committed block, to check the next one's parent.
    last_hash: Option<(u64, B256)>,
    started_at: Option<Option<u64>>,
    committed: u64,
}

impl std::fmt::Debug for EvmIndexer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EvmIndexer")
            .field("url", &self.endpoint.url)
            .field("chain_id", &self.chain_id)
            .field("committed", &self.committed)
            .finish_non_exhaustive()
    }
}

impl EvmIndexer {
    /// A follower of `endpoint` into `store`. While it follows, metadata documents at http(s)
    /// URIs are fetched in the background as [`IndexerConfig::metadata`] and
    /// [`IndexerConfig::metadata_worker`] say.
    pub fn new(endpoint: EvmEndpoint, store: Store, config: IndexerConfig) -> Result<Self> {
        let client = firn_rpc::EthClient::new(&endpoint.url, firn_rpc::ClientConfig::default())?;
        let metadata = MetadataFetcher::new(config.metadata);
        Ok(Self {
            source: EvmSource::new(client, config.request_blocks, config.concurrency),
            endpoint,
            store,
            config,
            metadata,
            minted: Arc::default(),
            on_progress: None,
            chain_id: None,
            tokens: KnownTokens::default(),
            balances: BalanceCheck::default(),
            last_hash: None,
            started_at: None,
            committed: 0,
        })
    }

    /// Calls `f` after every commit.
    pub fn on_progress(mut self, f: impl Fn(&Progress) + Send + Sync + 'static) -> Self {
        self.on_progress = Some(Arc::new(f));
        self
    }

    /// The EVM chain ID, once the node has told it.
    pub fn chain_id(&self) -> Option<u64> {
        self.chain_id
    }

    /// Registers the chain and indexes up to the node's tip at the time of the call, retrying
    /// failures with backoff; then reads the metadata of the NFTs minted, fetching documents
    /// once each (as [`IndexerConfig::metadata`] allows). Returns the committed height.
    pub async fn backfill(&mut self) -> Result<Option<u64>> {
        let chain_id = self.retrying(|me| Box::pin(me.register())).await?;
        let tip = self.retrying(|me| Box::pin(me.source.tip())).await?;
        self.retrying(move |me| Box::pin(me.sync_to(chain_id, tip)))
            .await?;
        if let Some(config) = self.config.metadata_worker {
            let mut worker = MetadataWorker::new(
                self.store.clone(),
                chain_id,
                self.source.clone(),
                self.metadata.clone(),
                WorkerConfig {
                    max_attempts: 1,
                    ..config
                },
            );
            worker.pass().await?;
        }
        Ok(self.store.find_cursor(ChainKey::Evm(chain_id)).await?)
    }

    /// Backfills, then follows the tip until the future is dropped (or failures exceed
    /// [`IndexerConfig::max_attempts`]), with the metadata worker running beside it.
    pub async fn follow(&mut self) -> Result<()> {
        let chain_id = self.retrying(|me| Box::pin(me.register())).await?;
        let _worker = self.config.metadata_worker.map(|config| {
            let worker = MetadataWorker::new(
                self.store.clone(),
                chain_id,
                self.source.clone(),
                self.metadata.clone(),
                config,
            );
            AbortOnDrop(tokio::spawn(worker.run(self.minted.clone())))
        });
        loop {
            let tip = self.retrying(|me| Box::pin(me.source.tip())).await?;
            self.retrying(move |me| Box::pin(me.sync_to(chain_id, tip)))
                .await?;
            tokio::time::sleep(self.config.poll_interval).await;
        }
    }

    /// Runs `step` until it succeeds, logging failures and backing off exponentially.
    async fn retrying<T>(
        &mut self,
        mut step: impl for<'a> FnMut(
            &'a mut Self,
        )
            -> std::pin::Pin<Box<dyn Future<Output = Result<T>> + Send + 'a>>,
    ) -> Result<T> {
        let mut backoff = self.config.initial_backoff;
        let mut attempt = 0u32;
        loop {
            match step(self).await {
                Ok(v) => return Ok(v),
                Err(error) => {
                    attempt += 1;
                    self.tokens.clear();
                    self.balances.clear();
                    self.last_hash = None;
                    if self.config.max_attempts.is_some_and(|m| attempt >= m) {
                        return Err(error);
                    }
                    warn!(target: "indexer::evm", url = %redact_url(&self.endpoint.url), %error, attempt, backoff_ms = backoff.as_millis() as u64, "evm indexing failed, retrying");
                    tokio::time::sleep(backoff).await;
                    backoff = backoff.saturating_mul(2).min(self.config.max_backoff);
                }
            }
        }
    }

    /// Asks the node for the chain ID and registers the chain in the store.
    async fn register(&mut self) -> Result<u64> {
        if let Some(id) = self.chain_id {
            return Ok(id);
        }
        let chain_id = self.source.chain_id().await?;
        let e = &self.endpoint;
        self.store
            .upsert_evm_chain(&EvmChainRecord {
                chain_id,
                blockchain_id: e.blockchain_id,
                subnet_id: e.subnet_id,
                name: e.name.clone(),
                description: e.description(),
                is_testnet: e.is_testnet,
                token_name: e.token_name.clone(),
                token_symbol: e.token_symbol.clone(),
                token_decimals: 18,
                rpc_url: e.url.clone(),
            })
            .await?;
        info!(target: "indexer::evm", chain_id, name = %e.name, url = %redact_url(&e.url), "registered evm chain");
        self.chain_id = Some(chain_id);
        Ok(chain_id)
    }

    /// Fetches, derives and commits every block after the cursor up to `tip`; where the node's
    /// history departs from the stored one, steps back to where they agree first.
    async fn sync_to(&mut self, chain_id: u64, tip: u64) -> Result<()> {
        let mut rewinds = 0;
        loop {
            match self.sync_once(chain_id, tip).await {
                Err(IndexerError::EvmDiverged { height }) if rewinds < MAX_REWINDS => {
                    rewinds += 1;
                    self.rewind(chain_id, height).await?;
                }
                done => return done,
            }
        }
    }

    /// Finds the last block below `diverged` on which the node and the store agree, and rolls
    /// the store back to it. A node whose block `diverged` does not follow its own block below
    /// (replicas behind a load balancer answering in turn) is not followed back: that is an
    /// error, retried later.
    async fn rewind(&mut self, chain_id: u64, diverged: u64) -> Result<()> {
        self.last_hash = None;
        self.tokens.clear();
        self.balances.clear();
        let mut height = diverged.saturating_sub(1);
        loop {
            let stored = self.store.find_evm_block(chain_id, height).await?;
            let node = self.source.block_hash(height).await?;
            if stored.is_some_and(|b| Some(b.block.hash) == node) {
                break;
            }
            let depth = diverged - height;
            if height == 0 || depth > firn_store::UNDO_BLOCKS {
                return Err(firn_store::StoreError::RollbackTooDeep {
                    chain_id,
                    to: height,
                    window: firn_store::UNDO_BLOCKS,
                }
                .into());
            }
            height -= 1;
        }
        if height + 1 == diverged {
            return Err(IndexerError::decode(
                format!("evm block {diverged}"),
                "the node's block does not follow its own parent (inconsistent replicas?)",
            ));
        }
        let cursor = self.store.rollback_evm_chain(chain_id, height).await?;
        warn!(target: "indexer::evm", chain_id, from = diverged - 1, to = ?cursor, url = %redact_url(&self.endpoint.url), "the node shows another history above this block: rolled the store back");
        Ok(())
    }

    /// [`EvmIndexer::sync_to`] without stepping back.
    async fn sync_once(&mut self, chain_id: u64, tip: u64) -> Result<()> {
        let cursor = self.store.find_cursor(ChainKey::Evm(chain_id)).await?;
        if self.started_at.is_none() {
            self.started_at = Some(cursor);
        }
        let from = cursor.map_or(0, |c| c.saturating_add(1));
        if from > tip {
            self.report(cursor.unwrap_or(0), tip);
            return Ok(());
        }
        if self.last_hash.is_none()
            && let Some(c) = cursor
            && let Some(b) = self.store.find_evm_block(chain_id, c).await?
        {
            self.last_hash = Some((c, b.block.hash));
        }
        let source = self.source.clone();
        let blockchain_id = self.endpoint.blockchain_id;
        let (mut rx, fetcher) = crate::fetch::spawn_batches(
            from,
            tip,
            self.config.batch_blocks,
            self.config.window,
            move |heights| {
                let source = source.clone();
                async move {
                    let blocks = source.blocks(heights).await?;
                    Ok(blocks
                        .iter()
                        .map(|f| DerivedBlock::of(chain_id, blockchain_id, f))
                        .collect())
                }
            },
        );
        let mut result = Ok(());
        while let Some(fetched) = rx.recv().await {
            result = match fetched {
                Ok(blocks) => self.commit(chain_id, blocks, tip).await,
                Err(e) => Err(e),
            };
            if result.is_err() {
                break;
            }
        }
        fetcher.abort();
        result?;
        // At the tip: the ERC-20 balances just folded can be compared with `balanceOf`.
        self.balances
            .check(&self.source, &self.store, chain_id, tip)
            .await;
        Ok(())
    }

    /// Commits one fetched and derived batch, with the metadata of its new tokens and NFTs.
    async fn commit(&mut self, chain_id: u64, blocks: Vec<DerivedBlock>, tip: u64) -> Result<()> {
        let mut rows: Vec<EvmBlockRows> = Vec::with_capacity(blocks.len());
        for b in blocks {
            if let Some((h, hash)) = self.last_hash
                && h.checked_add(1) == Some(b.number)
                && b.parent_hash != hash
            {
                return Err(IndexerError::EvmDiverged { height: b.number });
            }
            rows.push(b.rows?);
            self.last_hash = Some((b.number, b.hash));
        }
        let Some(last) = rows.last().map(|r| r.block.number) else {
            return Ok(());
        };
        self.add_metadata(chain_id, &mut rows).await?;
        let started = Instant::now();
        let outcome = self.store.commit_evm_blocks(&rows).await?;
        self.balances.note(rows.iter().flat_map(|r| &r.transfers));
        let mut transfers = rows.iter().flat_map(|r| &r.transfers);
        if transfers.any(|t| t.from == Address::ZERO && t.token_id.is_some()) {
            self.minted.notify_one();
        }
        self.committed += outcome.committed as u64;
        debug!(target: "indexer::evm", chain_id, height = last, committed = outcome.committed, skipped = outcome.skipped, commit_ms = started.elapsed().as_millis() as u64, "committed evm blocks");
        self.report(last, tip);
        Ok(())
    }

    /// Token metadata rides with the block that first shows the token. (The store queues
    /// the metadata of minted NFTs itself; the worker reads it.)
    async fn add_metadata(&mut self, chain_id: u64, rows: &mut [EvmBlockRows]) -> Result<()> {
        let transfers: Vec<&TokenTransfer> = rows.iter().flat_map(|r| &r.transfers).collect();
        if transfers.is_empty() {
            return Ok(());
        }
        let tokens = self
            .tokens
            .new_tokens(&self.source, &self.store, chain_id, &transfers)
            .await?;
        for token in tokens {
            if let Some(r) = rows
                .iter_mut()
                .find(|r| r.transfers.iter().any(|t| t.token == token.address))
            {
                r.tokens.push(token);
            }
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
        match &self.on_progress {
            Some(f) => f(&p),
            None => {
                info!(target: "indexer::evm", chain_id = self.chain_id, height, tip, committed = self.committed, "indexed evm blocks");
            }
        }
    }
}
