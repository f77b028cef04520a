//! The P-Chain follower: fetches blocks from the node in parallel, derives their rows and
//! commits them with the cursor, batch by batch; then polls the tip.

mod derive;
mod fees;
mod known;
mod l1;
mod source;
mod staking;

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use firn_core::ids::Id;
use firn_core::network::P_CHAIN_ID;
use firn_core::pchain::block::BlockKind;
use firn_rpc::AvalancheClient;
use firn_store::page::MAX_PAGE_LIMIT;
use firn_store::rows::ChainKey;
use firn_store::{
    CursorStore, L1ValidatorFilter, PChainReader, PChainWriter, PageRequest, SortOrder, Store,
};
use tokio::sync::mpsc;
use tracing::{debug, info, warn};

pub use source::{FetchedBlock, PChainSource, RawUtxo};

use crate::error::{IndexerError, Result};
use crate::evm::{MetadataLimits, WorkerConfig};
use crate::fetch::Backoff;
use derive::Deriver;
use known::Known;

/// L1s whose validators' balances one observation round reads.
pub const MAX_OBSERVED_L1S: usize = 1_000;

/// How the follower fetches and commits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexerConfig {
    /// Blocks per fetch and per commit (one database transaction), at most: a run's first
    /// batches are shorter (16 blocks, then twice as many each time).
    pub batch_blocks: u64,
    /// RPC requests in flight while fetching.
    pub concurrency: usize,
    /// EVM blocks per batched JSON-RPC request (each block asks for the block, its receipts
    /// and its traces).
    pub request_blocks: u64,
    /// Fetched batches waiting to be committed; with `batch_blocks`, bounds memory.
    pub window: usize,
    /// Wait between polls of the tip once caught up.
    pub poll_interval: Duration,
    /// Least wait between two readings, at the tip, of the current validators' uptime and
    /// connection (`platform.getCurrentValidators`) and of the current supply.
    pub observe_every: Duration,
    /// First wait after a failure; doubled up to `max_backoff`.
    pub initial_backoff: Duration,
    /// Longest wait after failures.
    pub max_backoff: Duration,
    /// Give up after this many failures in a row (`None`: never, as a service should).
    pub max_attempts: Option<u32>,
    /// How NFT metadata documents are read.
    pub metadata: MetadataLimits,
    /// How the background fetcher of http(s) metadata works while following (`None`: it does
    /// not run; those documents stay `UNINDEXED`).
    pub metadata_worker: Option<WorkerConfig>,
}

impl Default for IndexerConfig {
    fn default() -> Self {
        Self {
            batch_blocks: 256,
            concurrency: 16,
            request_blocks: 16,
            window: 4,
            poll_interval: Duration::from_millis(500),
            observe_every: Duration::from_secs(60),
            initial_backoff: Duration::from_millis(200),
            max_backoff: Duration::from_secs(30),
            max_attempts: None,
            metadata: MetadataLimits::default(),
            metadata_worker: Some(WorkerConfig::default()),
        }
    }
}

/// Where the follower is, reported after each commit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// Last committed height.
    pub height: u64,
    /// The node's height when last asked.
    pub tip: u64,
    /// Height the current run started after (`None`: from genesis).
    pub started_at: Option<u64>,
    /// Blocks committed by this run.
    pub committed: u64,
}

type ProgressFn = Box<dyn Fn(&Progress) + Send + Sync>;

/// Follows the P-Chain of one node into one store.
pub struct PChainIndexer {
    deriver: Deriver,
    config: IndexerConfig,
    on_progress: Option<ProgressFn>,
    /// A proposal block fetched before its option: derived once the option arrives.
    held: Option<FetchedBlock>,
    /// Hash of the last committed block, to check the next one's parent.
    last_hash: Option<(u64, Id)>,
    started_at: Option<Option<u64>>,
    committed: u64,
    /// When the current validators and supply were last read.
    observed: Option<Instant>,
    /// A primary-network validator or an L1 validator change was committed since that
    /// reading: read again at once.
    validators_added: bool,
    /// The L1 validator fee ledger cannot be replayed here (see [`fees`]).
    fees_off: bool,
}

impl std::fmt::Debug for PChainIndexer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PChainIndexer")
            .field("config", &self.config)
            .field("committed", &self.committed)
            .finish_non_exhaustive()
    }
}

impl PChainIndexer {
    /// A follower of the P-Chain endpoint `client` (`http://node:9650/ext/bc/P`) into `store`.
    pub fn new(client: AvalancheClient, store: Store, config: IndexerConfig) -> Self {
        Self {
            deriver: Deriver {
                source: PChainSource::new(client, config.concurrency),
                store,
                known: Known::default(),
                network_id: None,
                fees: None,
            },
            config,
            on_progress: None,
            held: None,
            last_hash: None,
            started_at: None,
            committed: 0,
            observed: None,
            validators_added: false,
            fees_off: false,
        }
    }

    /// Calls `f` after every commit (progress bars, logs).
    pub fn on_progress(mut self, f: impl Fn(&Progress) + Send + Sync + 'static) -> Self {
        self.on_progress = Some(Box::new(f));
        self
    }

    /// Indexes up to the node's height at the time of the call (a proposal block at the tip
    /// waits for its option), retrying failures with backoff. Returns the committed height.
    pub async fn backfill(&mut self) -> Result<Option<u64>> {
        let tip = self.tip().await?;
        self.sync(tip).await?;
        self.observe_staking().await;
        Ok(self.deriver.store.find_cursor(ChainKey::PChain).await?)
    }

    /// Backfills, then follows the tip until the returned future is dropped (or failures
    /// exceed [`IndexerConfig::max_attempts`]).
    pub async fn follow(&mut self) -> Result<()> {
        loop {
            let tip = self.tip().await?;
            self.sync(tip).await?;
            self.observe_staking().await;
            tokio::time::sleep(self.config.poll_interval).await;
        }
    }

    /// Records what the node says of the current primary-network validators (uptime,
    /// connection), of the current supply and of L1 validators' remaining balances: every
    /// [`IndexerConfig::observe_every`], and at once when validators were committed. A failure
    /// is logged and skipped: these are readings for the API, never a reason to stop indexing.
    async fn observe_staking(&mut self) {
        if !self.validators_added
            && self
                .observed
                .is_some_and(|at| at.elapsed() < self.config.observe_every)
        {
            return;
        }
        self.observed = Some(Instant::now());
        let store = &self.deriver.store;
        let source = &self.deriver.source;
        let validators = match source.validator_health().await {
            Ok(observed) => store
                .record_validator_observations(&observed)
                .await
                .map(|()| observed.len())
                .map_err(IndexerError::from),
            Err(e) => Err(e),
        };
        match validators {
            Ok(n) => {
                self.validators_added = false;
                debug!(target: "indexer::pchain", validators = n, "recorded validator uptime");
            }
            Err(error) => {
                warn!(target: "indexer::pchain", %error, "reading the current validators' uptime failed; trying again later");
            }
        }
        let supply = match source.current_supply().await {
            Ok(reading) => store
                .record_supply(&reading)
                .await
                .map_err(IndexerError::from),
            Err(e) => Err(e),
        };
        if let Err(error) = supply {
            warn!(target: "indexer::pchain", %error, "reading the current supply failed; trying again later");
        }
        match self.observe_l1_balances().await {
            Ok(n) => {
                debug!(target: "indexer::pchain", validators = n, "recorded L1 validator balances")
            }
            Err(error) => {
                warn!(target: "indexer::pchain", %error, "reading the L1 validators' balances failed; trying again later");
            }
        }
    }

    /// Records the remaining balance the node reports for the validators of every L1 with an
    /// active validator (at most [`MAX_OBSERVED_L1S`] L1s a round); the number recorded.
    async fn observe_l1_balances(&self) -> Result<usize> {
        let store = &self.deriver.store;
        let mut subnets = BTreeSet::new();
        let mut page = PageRequest::first(MAX_PAGE_LIMIT);
        loop {
            let active = store
                .list_l1_validators(&L1ValidatorFilter::default(), SortOrder::Asc, &page)
                .await?;
            subnets.extend(active.items.iter().map(|v| v.validator.subnet_id));
            match active.next {
                Some(c) if subnets.len() < MAX_OBSERVED_L1S => {
                    page = PageRequest::after(MAX_PAGE_LIMIT, c)
                }
                _ => break,
            }
        }
        let mut recorded = 0;
        for subnet_id in subnets.into_iter().take(MAX_OBSERVED_L1S) {
            if let Some(observed) = self.deriver.source.l1_balances(subnet_id).await? {
                store.record_l1_observations(&observed).await?;
                recorded += observed.len();
            }
        }
        Ok(recorded)
    }

    async fn tip(&mut self) -> Result<u64> {
        let mut backoff = Backoff::new(&self.config);
        loop {
            match self.deriver.source.height().await {
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

    /// Logs a failure and waits before the next attempt, or gives up after
    /// `max_attempts`. Memory is dropped, so everything is derived again from what was
    /// committed.
    async fn failed(&mut self, error: IndexerError, backoff: &mut Backoff) -> Result<()> {
        self.deriver.known.clear();
        self.deriver.fees = None;
        self.held = None;
        self.last_hash = None;
        backoff
            .wait(error, |error, attempt, wait| {
                warn!(target: "indexer::pchain", %error, attempt, backoff_ms = wait.as_millis() as u64, "p-chain indexing failed, retrying");
            })
            .await
    }

    /// Resumes the L1 validator fee ledger from the store before the first block derived
    /// (again after a failure): from the chain's start on an empty store; not at all when the
    /// node has no fee configuration or the store holds L1 validators the ledger never saw.
    async fn resume_fees(&mut self, cursor: Option<u64>) -> Result<()> {
        if self.fees_off || self.deriver.fees.is_some() {
            return Ok(());
        }
        let Some(config) = self.deriver.source.validator_fee_config().await? else {
            info!(target: "indexer::pchain", "the node has no platform.getValidatorFeeConfig: L1 validator fees are not replayed");
            self.fees_off = true;
            return Ok(());
        };
        let store = &self.deriver.store;
        let record = match cursor {
            Some(_) => store.find_l1_fee_ledger().await?,
            None => None,
        };
        // The ledger must have seen every block since the first L1 validator.
        let resumable = match (&record, cursor) {
            (_, None) => true,
            (Some(r), Some(c)) if r.height == c => true,
            _ => {
                let any = L1ValidatorFilter {
                    include_inactive: true,
                    ..L1ValidatorFilter::default()
                };
                store
                    .list_l1_validators(&any, SortOrder::Asc, &PageRequest::first(1))
                    .await?
                    .items
                    .is_empty()
            }
        };
        if !resumable {
            warn!(target: "indexer::pchain", "this store holds L1 validators indexed without the L1 validator fee ledger: their fees are not replayed (index into a new store to have them)");
            self.fees_off = true;
            return Ok(());
        }
        self.deriver.fees = Some(fees::FeeTracker::resume(config, record.as_ref()));
        Ok(())
    }

    /// Fetches, derives and commits every block after the cursor up to `tip`.
    async fn sync_to(&mut self, tip: u64) -> Result<()> {
        let cursor = self.deriver.store.find_cursor(ChainKey::PChain).await?;
        if self.started_at.is_none() {
            self.started_at = Some(cursor);
        }
        let from = match (&self.held, cursor) {
            (Some(h), _) => h.block.height().saturating_add(1),
            (None, Some(c)) => c.saturating_add(1),
            (None, None) => 0,
        };
        if from > tip {
            self.report(cursor.unwrap_or(0), tip);
            return Ok(());
        }
        if self.last_hash.is_none()
            && let Some(c) = cursor
            && let Some(b) = self.deriver.store.find_pchain_block(c).await?
        {
            self.last_hash = Some((c, b.block.hash));
        }
        self.resume_fees(cursor).await?;
        let source = self.deriver.source.clone();
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
        rx: &mut mpsc::Receiver<Result<Vec<FetchedBlock>>>,
        tip: u64,
    ) -> Result<()> {
        while let Some(fetched) = rx.recv().await {
            let mut blocks: Vec<FetchedBlock> = self.held.take().into_iter().collect();
            blocks.extend(fetched?);
            let mut rows = Vec::with_capacity(blocks.len());
            for i in 0..blocks.len() {
                let next = blocks.get(i + 1).map(|b| &b.block);
                let b = &blocks[i];
                if next.is_none() && is_proposal(&b.block) {
                    break;
                }
                self.check_parent(b)?;
                rows.push(self.deriver.block(b, next).await?);
                self.last_hash = Some((b.block.height(), b.block.id()));
            }
            if rows.len() < blocks.len() {
                self.held = blocks.pop();
            }
            if rows.is_empty() {
                continue;
            }
            if let (Some(fees), Some(last)) = (&mut self.deriver.fees, rows.last_mut()) {
                last.l1_fees = Some(fees.take_changes());
            }
            let started = Instant::now();
            let outcome = self.deriver.store.commit_pchain_blocks(&rows).await?;
            self.validators_added |= rows.iter().flat_map(|r| &r.txs).any(|t| {
                !t.l1_validators.is_empty()
                    || t.staker
                        .as_ref()
                        .is_some_and(|s| !s.is_delegator && s.subnet_id == P_CHAIN_ID)
            });
            let height = rows.last().map_or(0, |r| r.block.height);
            self.committed += outcome.committed as u64;
            debug!(target: "indexer::pchain", height, committed = outcome.committed, skipped = outcome.skipped, commit_ms = started.elapsed().as_millis() as u64, "committed p-chain blocks");
            self.report(height, tip);
        }
        Ok(())
    }

    fn check_parent(&self, b: &FetchedBlock) -> Result<()> {
        if let Some((h, hash)) = self.last_hash
            && h.checked_add(1) == Some(b.block.height())
            && b.block.parent_id() != hash
        {
            return Err(IndexerError::ParentMismatch {
                height: b.block.height(),
                parent: b.block.parent_id(),
                prev: h,
                stored: hash,
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
            info!(target: "indexer::pchain", height, tip, committed = self.committed, "indexed p-chain blocks");
        }
    }
}

fn is_proposal(b: &firn_core::pchain::Block) -> bool {
    matches!(
        b.kind(),
        BlockKind::BanffProposal { .. } | BlockKind::ApricotProposal { .. }
    )
}
