//! Indexing NFT metadata in the background, so that no contract and no server a contract names
//! can slow the commits down.
//!
//! The store queues every minted NFT ([`MetadataQueue::UnreadUri`]). A [`MetadataWorker`]
//! reads each one's `tokenURI`/`uri` from the node (a `data:` document is decoded there and
//! then), and fetches http(s) documents ([`MetadataQueue::Unfetched`]) when its fetcher
//! fetches at all. At most [`WorkerConfig::concurrency`] rows are in work at once and
//! [`WorkerConfig::per_host`] requests go to one host. A failure that may pass (the node or
//! the server unreachable, throttled) is tried again after a backoff that doubles from
//! [`WorkerConfig::first_retry`] to [`WorkerConfig::last_retry`]; after
//! [`WorkerConfig::max_attempts`] a document gets its final status. What the worker remembers
//! is bounded: the queues are the store's, the retry schedule holds at most
//! [`MAX_SCHEDULED`] rows and the per-host limiters [`MAX_HOSTS`] hosts.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use firn_store::rows::evm::{MetadataQueue, NftMetadata, TokenStandard};
use firn_store::types::{Address, U256};
use firn_store::{EvmReader, EvmWriter, Store};
use tokio::sync::{Notify, Semaphore};
use tokio::task::JoinSet;
use tokio::time::Instant;
use tracing::{debug, warn};

use super::nft::MetadataFetcher;
use super::source::EvmSource;

/// Rows read from a queue at once.
const PAGE: u32 = 64;
/// Retries scheduled at most; past it a failed row is tried on the next pass.
pub const MAX_SCHEDULED: usize = 100_000;
/// Hosts with a limiter of their own at most (idle ones are dropped first).
pub const MAX_HOSTS: usize = 4096;
/// Token standards remembered at most.
const MAX_STANDARDS: usize = 65_536;

/// How hard the worker works.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorkerConfig {
    /// Rows in work at once.
    pub concurrency: usize,
    /// Requests in flight to one host.
    pub per_host: usize,
    /// Wait between passes when nothing new is minted.
    pub poll: Duration,
    /// First wait before a retry; doubled each time.
    pub first_retry: Duration,
    /// Longest wait before a retry.
    pub last_retry: Duration,
    /// Tries before a document gets its final status.
    pub max_attempts: u32,
}

impl Default for WorkerConfig {
    fn default() -> Self {
        Self {
            concurrency: 8,
            per_host: 2,
            poll: Duration::from_secs(5),
            first_retry: Duration::from_secs(30),
            last_retry: Duration::from_secs(3600),
            max_attempts: 6,
        }
    }
}

/// When a failed row is tried again.
#[derive(Debug, Clone, Copy)]
struct Retry {
    attempts: u32,
    due: Instant,
}

/// How working on one row ended.
enum Outcome {
    /// The row has a new status to store.
    Done,
    /// Not now: try again later.
    Later(&'static str),
}

/// Indexes one chain's queued NFT metadata until dropped.
#[derive(Debug)]
pub struct MetadataWorker {
    store: Store,
    chain_id: u64,
    source: EvmSource,
    fetcher: MetadataFetcher,
    config: WorkerConfig,
    retries: HashMap<(Address, U256), Retry>,
    hosts: HashMap<String, Arc<Semaphore>>,
    standards: HashMap<Address, TokenStandard>,
}

impl MetadataWorker {
    /// A worker for chain `chain_id` of `store`, reading URIs from `source`.
    pub fn new(
        store: Store,
        chain_id: u64,
        source: EvmSource,
        fetcher: MetadataFetcher,
        config: WorkerConfig,
    ) -> Self {
        Self {
            store,
            chain_id,
            source,
            fetcher,
            config,
            retries: HashMap::new(),
            hosts: HashMap::new(),
            standards: HashMap::new(),
        }
    }

    /// Works until the future is dropped, a pass after each `minted` notice or every
    /// [`WorkerConfig::poll`].
    pub async fn run(mut self, minted: Arc<Notify>) {
        loop {
            if let Err(error) = self.pass().await {
                warn!(target: "indexer::metadata", chain_id = self.chain_id, %error, "indexing NFT metadata failed; trying again");
            }
            let _ = tokio::time::timeout(self.config.poll, minted.notified()).await;
        }
    }

    /// One pass over both queues; how many rows it worked on.
    pub async fn pass(&mut self) -> crate::Result<usize> {
        let mut worked = self.drain(MetadataQueue::UnreadUri).await?;
        if self.fetcher.fetches() {
            worked += self.drain(MetadataQueue::Unfetched).await?;
        }
        Ok(worked)
    }

    /// Works through the due rows of `queue`.
    async fn drain(&mut self, queue: MetadataQueue) -> crate::Result<usize> {
        let mut after = None;
        let mut worked = 0;
        loop {
            let rows = self
                .store
                .list_pending_nft_metadata(self.chain_id, queue, after, PAGE)
                .await?;
            let Some(last) = rows.last() else {
                return Ok(worked);
            };
            after = Some((last.token, last.token_id));
            let now = Instant::now();
            let mut due = Vec::with_capacity(rows.len());
            for m in rows {
                let scheduled = self.retries.get(&(m.token, m.token_id));
                if scheduled.is_some_and(|r| r.due > now) {
                    continue;
                }
                // The token's row commits with the mint; until then it waits.
                if let Some(standard) = self.standard(m.token).await? {
                    due.push((m, standard));
                }
            }
            worked += due.len();
            self.work_on(due).await;
        }
    }

    /// The standard of `token`, once its row is stored.
    async fn standard(&mut self, token: Address) -> crate::Result<Option<TokenStandard>> {
        if let Some(s) = self.standards.get(&token) {
            return Ok(Some(*s));
        }
        let found = self.store.find_token(self.chain_id, token).await?;
        let Some(t) = found else { return Ok(None) };
        if self.standards.len() >= MAX_STANDARDS {
            self.standards.clear();
        }
        self.standards.insert(token, t.standard);
        Ok(Some(t.standard))
    }

    /// The limiter of `uri`'s host.
    fn host_limit(&mut self, uri: &str) -> Arc<Semaphore> {
        let host = reqwest::Url::parse(uri)
            .ok()
            .and_then(|u| u.host_str().map(str::to_owned))
            .unwrap_or_default();
        if self.hosts.len() >= MAX_HOSTS && !self.hosts.contains_key(&host) {
            // Hosts with nothing in flight hold no state worth keeping.
            self.hosts.retain(|_, s| Arc::strong_count(s) > 1);
        }
        let per_host = self.config.per_host.max(1);
        self.hosts
            .entry(host)
            .or_insert_with(|| Arc::new(Semaphore::new(per_host)))
            .clone()
    }

    async fn work_on(&mut self, rows: Vec<(NftMetadata, TokenStandard)>) {
        let slots = Arc::new(Semaphore::new(self.config.concurrency.max(1)));
        let mut tasks = JoinSet::new();
        for (m, standard) in rows {
            let host =
                (m.index_status == NftMetadata::UNINDEXED).then(|| self.host_limit(&m.token_uri));
            let slots = slots.clone();
            let fetcher = self.fetcher.clone();
            let source = self.source.clone();
            tasks.spawn(async move {
                let _slot = slots.acquire_owned().await;
                let mut m = m;
                let outcome = match host {
                    Some(host) => {
                        let _host = host.acquire_owned().await;
                        fetch(&fetcher, &mut m).await
                    }
                    None => read(&fetcher, &source, standard, &mut m).await,
                };
                (m, outcome)
            });
        }
        while let Some(done) = tasks.join_next().await {
            let Ok((m, outcome)) = done else { continue };
            self.settle(m, outcome).await;
        }
    }

    /// Stores what one row came to, or schedules it again.
    async fn settle(&mut self, mut m: NftMetadata, outcome: Outcome) {
        let key = (m.token, m.token_id);
        let failure = match outcome {
            Outcome::Done => {
                self.retries.remove(&key);
                return self.save(&m).await;
            }
            Outcome::Later(status) => status,
        };
        let attempts = self.retries.get(&key).map_or(1, |r| r.attempts + 1);
        // A URI read is retried for as long as it takes (the node is down); a document gets
        // its final status after the last attempt.
        if m.index_status == NftMetadata::UNINDEXED && attempts >= self.config.max_attempts {
            self.retries.remove(&key);
            m.index_status = failure.to_owned();
            return self.save(&m).await;
        }
        if self.retries.len() >= MAX_SCHEDULED && !self.retries.contains_key(&key) {
            return;
        }
        let wait = self
            .config
            .first_retry
            .saturating_mul(1 << (attempts - 1).min(16))
            .min(self.config.last_retry);
        let due = Instant::now() + wait;
        self.retries.insert(key, Retry { attempts, due });
        debug!(target: "indexer::metadata", token = %format!("{:#x}", m.token), token_id = %m.token_id, attempts, status = failure, "NFT metadata not indexed; trying again later");
    }

    async fn save(&self, m: &NftMetadata) {
        if let Err(error) = self.store.upsert_nft_metadata(self.chain_id, m).await {
            warn!(target: "indexer::metadata", chain_id = self.chain_id, %error, "storing NFT metadata failed");
        }
    }
}

/// Reads `m`'s URI (and a `data:` document).
async fn read(
    fetcher: &MetadataFetcher,
    source: &EvmSource,
    standard: TokenStandard,
    m: &mut NftMetadata,
) -> Outcome {
    match fetcher.read_uri(source, standard, m).await {
        Ok(()) => Outcome::Done,
        Err(error) => {
            debug!(target: "indexer::metadata", %error, "reading a tokenURI failed");
            Outcome::Later(NftMetadata::URI_UNREAD)
        }
    }
}

/// Fetches `m`'s document.
async fn fetch(fetcher: &MetadataFetcher, m: &mut NftMetadata) -> Outcome {
    match fetcher.resolve_remote(m).await {
        Ok(()) => Outcome::Done,
        Err(e) => Outcome::Later(e.status()),
    }
}
