//! An EVM chain as the node's RPC shows it: the tip, and blocks with their receipts and
//! `callTracer` traces fetched in batched JSON-RPC requests, several requests in flight.

use std::future::Future;
use std::ops::Range;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use firn_rpc::error::{INVALID_REQUEST, RESPONSE_TOO_LARGE};
use firn_rpc::{ClientError, EthClient};
use serde_json::json;
use tokio::sync::Semaphore;
use tokio::task::JoinSet;
use tracing::{debug, warn};

use crate::error::{IndexerError, Result};
use firn_rpc::methods::eth::{Block, Quantity, Receipt, Transaction, TxTrace};

/// JSON-RPC's "method not found": a node without the `debug` API.
const METHOD_NOT_FOUND: i64 = -32601;
/// `eth_call`s per batched request: a tenth of geth's default limit of 1,000 items, so that a
/// batch of calls to hostile contracts stays small however many tokens one batch of blocks
/// shows.
pub const CALLS_PER_REQUEST: usize = 100;

/// Whether the node (or this client) found a request too big: too many items (`-32600` for
/// the whole batch), results past its byte limit (`-32003`), a body over our cap, a 413, or no
/// answer in time. Asking for less may succeed.
fn too_big(e: &ClientError) -> bool {
    match e {
        ClientError::ResponseTooLarge { .. } | ClientError::Timeout { .. } => true,
        ClientError::Http { status, .. } => *status == 413,
        ClientError::Rpc(e) => e.code == RESPONSE_TOO_LARGE || e.code == INVALID_REQUEST,
        _ => false,
    }
}

fn too_big_error(e: &IndexerError) -> bool {
    matches!(e, IndexerError::Rpc(c) if too_big(c))
}

/// One block as fetched: header and transactions, receipts, and call traces.
#[derive(Debug, Clone)]
pub struct FetchedEvmBlock {
    /// `eth_getBlockByNumber(n, true)`.
    pub block: Block<Transaction>,
    /// `eth_getBlockReceipts(n)`, in transaction order.
    pub receipts: Vec<Receipt>,
    /// `debug_traceBlockByNumber(n, callTracer)`, in transaction order; empty when the node
    /// has no `debug` API.
    pub traces: Vec<TxTrace>,
}

/// The node's RPC for one EVM chain (`…/ext/bc/<chain>/rpc`).
///
/// Requests adapt to what the node accepts: a batch it finds too big is split in halves until
/// each part passes (one block at last, asked for without batching), and later batches start
/// at half the size that failed, growing back by one block per success (AIMD, as TCP does).
#[derive(Debug, Clone)]
pub struct EvmSource {
    client: EthClient,
    blocks_per_request: u64,
    /// Blocks per request now: at most `blocks_per_request`.
    request_size: Arc<AtomicU64>,
    concurrency: usize,
    /// Cleared once the node says it has no `debug_traceBlockByNumber`.
    traces: Arc<AtomicBool>,
}

type Fetching<'a> = Pin<Box<dyn Future<Output = Result<Vec<FetchedEvmBlock>>> + Send + 'a>>;

impl EvmSource {
    /// A source over `client`: up to `blocks_per_request` blocks per batched HTTP request, at
    /// most `concurrency` requests in flight.
    pub fn new(client: EthClient, blocks_per_request: u64, concurrency: usize) -> Self {
        let blocks_per_request = blocks_per_request.max(1);
        Self {
            client,
            blocks_per_request,
            request_size: Arc::new(AtomicU64::new(blocks_per_request)),
            concurrency: concurrency.max(1),
            traces: Arc::new(AtomicBool::new(true)),
        }
    }

    /// Blocks per request now (smaller than configured after the node refused a bigger one).
    pub fn request_size(&self) -> u64 {
        self.request_size.load(Ordering::Relaxed)
    }

    /// The client.
    pub fn client(&self) -> &EthClient {
        &self.client
    }

    /// `eth_chainId`.
    pub async fn chain_id(&self) -> Result<u64> {
        let id: Quantity = self.client.call("eth_chainId", ()).await?;
        Ok(id.0)
    }

    /// `eth_blockNumber`: the last accepted block.
    pub async fn tip(&self) -> Result<u64> {
        let n: Quantity = self.client.call("eth_blockNumber", ()).await?;
        Ok(n.0)
    }

    /// The hash of block `n` (`None`: the node does not have it).
    pub async fn block_hash(&self, n: u64) -> Result<Option<firn_store::types::B256>> {
        let block: Option<Block<firn_store::types::B256>> = self
            .client
            .call("eth_getBlockByNumber", (format!("{n:#x}"), false))
            .await?;
        Ok(block.map(|b| b.hash))
    }

    /// Blocks `numbers`, in order, fetched in parallel batched requests.
    pub async fn blocks(&self, numbers: std::ops::Range<u64>) -> Result<Vec<FetchedEvmBlock>> {
        let permits = Arc::new(Semaphore::new(self.concurrency));
        let mut tasks = JoinSet::new();
        let mut start = numbers.start;
        let mut chunk = 0usize;
        let size = self.request_size();
        while start < numbers.end {
            let end = start.saturating_add(size).min(numbers.end);
            let this = self.clone();
            let permits = permits.clone();
            tasks.spawn(async move {
                let _permit = permits.acquire_owned().await;
                (chunk, this.adaptive(start..end).await)
            });
            start = end;
            chunk += 1;
        }
        let mut parts: Vec<Option<Vec<FetchedEvmBlock>>> = vec![None; chunk];
        while let Some(joined) = tasks.join_next().await {
            let (i, got) = joined.map_err(|e| IndexerError::decode("fetch task", e))?;
            parts[i] = Some(got?);
        }
        Ok(parts.into_iter().flatten().flatten().collect())
    }

    /// Blocks `numbers` in one request, or in halves (recursively) while the node finds the
    /// request too big.
    fn adaptive(&self, numbers: Range<u64>) -> Fetching<'_> {
        Box::pin(async move {
            let len = numbers.end - numbers.start;
            match self.chunk(numbers.clone()).await {
                Ok(blocks) => {
                    let _ =
                        self.request_size
                            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
                                (n < self.blocks_per_request).then_some(n + 1)
                            });
                    Ok(blocks)
                }
                Err(e) if too_big_error(&e) && len > 1 => {
                    let half = len / 2;
                    self.request_size.fetch_min(half.max(1), Ordering::Relaxed);
                    debug!(target: "indexer::evm", from = numbers.start, blocks = len, error = %e, "request too big for the node: splitting it");
                    let mid = numbers.start + half;
                    let mut first = self.adaptive(numbers.start..mid).await?;
                    first.extend(self.adaptive(mid..numbers.end).await?);
                    Ok(first)
                }
                Err(e) if too_big_error(&e) => self.one_block(numbers.start).await,
                Err(e) => Err(e),
            }
        })
    }

    /// Block `n` in separate requests (a node's batch limits do not apply to them); traces too
    /// big or unusable leave it without internal transactions.
    async fn one_block(&self, n: u64) -> Result<Vec<FetchedEvmBlock>> {
        let tag = format!("{n:#x}");
        let block: Option<Block<Transaction>> = self
            .client
            .call("eth_getBlockByNumber", (&tag, true))
            .await?;
        let block = block.ok_or_else(|| IndexerError::Missing {
            what: "evm block",
            key: n.to_string(),
        })?;
        let receipts: Vec<Receipt> = self.client.call("eth_getBlockReceipts", (&tag,)).await?;
        let traces = if self.traces.load(Ordering::Relaxed) {
            let raw = self
                .client
                .call_deep::<_, Vec<TxTrace>>(
                    "debug_traceBlockByNumber",
                    (&tag, json!({ "tracer": "callTracer" })),
                )
                .await;
            self.usable_traces(n, raw)?
        } else {
            Vec::new()
        };
        Ok(vec![self.checked(n, block, receipts, traces)?])
    }

    /// The traces of block `n`, or none when they cannot be used (see [`EvmSource::chunk`]).
    fn usable_traces(
        &self,
        n: u64,
        got: Result<Vec<TxTrace>, ClientError>,
    ) -> Result<Vec<TxTrace>> {
        match got {
            Ok(t) => Ok(t),
            Err(ClientError::Rpc(e)) if e.code == METHOD_NOT_FOUND => {
                warn!(target: "indexer::evm", url = self.client.url(), "the node has no debug_traceBlockByNumber: indexing without internal transactions");
                self.traces.store(false, Ordering::Relaxed);
                Ok(Vec::new())
            }
            // What one block's traces hold is anyone's (a call tree too deep or too big, a
            // trace the node cannot finish): that block goes without internal txs.
            Err(
                e @ (ClientError::Rpc(_)
                | ClientError::Decode { .. }
                | ClientError::ResponseTooLarge { .. }
                | ClientError::Timeout { .. }),
            ) => {
                warn!(target: "indexer::evm", block = n, error = %e, "the block's traces are unusable: indexing it without internal transactions");
                Ok(Vec::new())
            }
            Err(e) => Err(e.into()),
        }
    }

    /// `block` with its receipts and traces, checked against each other.
    fn checked(
        &self,
        n: u64,
        block: Block<Transaction>,
        receipts: Vec<Receipt>,
        mut traces: Vec<TxTrace>,
    ) -> Result<FetchedEvmBlock> {
        let what = || format!("block {n}");
        if block.number != n {
            return Err(IndexerError::decode(
                what(),
                format!("the node sent block {} instead", block.number),
            ));
        }
        if let Err(reason) = check_traces(&block, &traces) {
            warn!(target: "indexer::evm", block = n, %reason, "the block's traces do not match its transactions: indexing it without internal transactions");
            traces.clear();
        }
        check_receipts(&block, &receipts).map_err(|e| IndexerError::decode(what(), e))?;
        Ok(FetchedEvmBlock {
            block,
            receipts,
            traces,
        })
    }

    /// One batched request: block, receipts and traces of each number in `numbers`.
    async fn chunk(&self, numbers: Range<u64>) -> Result<Vec<FetchedEvmBlock>> {
        let with_traces = self.traces.load(Ordering::Relaxed);
        let mut batch = self.client.batch();
        for n in numbers.clone() {
            let tag = format!("{n:#x}");
            batch.add("eth_getBlockByNumber", (&tag, true))?;
            batch.add("eth_getBlockReceipts", (&tag,))?;
            if with_traces {
                batch.add(
                    "debug_traceBlockByNumber",
                    (&tag, json!({ "tracer": "callTracer" })),
                )?;
            }
        }
        let response = batch.send().await?;
        let per = if with_traces { 3 } else { 2 };
        let mut out = Vec::with_capacity(numbers.clone().count());
        for (i, n) in numbers.enumerate() {
            let block: Option<Block<Transaction>> = response.get(i * per)?;
            let block = block.ok_or_else(|| IndexerError::Missing {
                what: "evm block",
                key: n.to_string(),
            })?;
            let receipts: Vec<Receipt> = response.get(i * per + 1)?;
            let traces = if with_traces {
                match response.get_deep::<Vec<TxTrace>>(i * per + 2) {
                    // Past the node's byte limit: the batch is split, the traces kept.
                    Err(e) if too_big(&e) => return Err(e.into()),
                    got => self.usable_traces(n, got)?,
                }
            } else {
                Vec::new()
            };
            out.push(self.checked(n, block, receipts, traces)?);
        }
        Ok(out)
    }

    /// `eth_call`s of `(to, data)` against the latest state, each with at most `gas` (the
    /// node's cap when `None`), in batches of [`CALLS_PER_REQUEST`] (halved while the node
    /// finds one too big). Each outcome is the returned bytes, or `None` when the call
    /// failed, reverted or alone was too big for the node: a contract can make its own calls
    /// fail, never the caller's.
    pub async fn calls(
        &self,
        calls: &[(firn_store::types::Address, Vec<u8>)],
        gas: Option<u64>,
    ) -> Result<Vec<Option<Vec<u8>>>> {
        self.calls_at(calls, gas, None).await
    }

    /// [`EvmSource::calls`] against the state at block `at` (the latest when `None`).
    pub async fn calls_at(
        &self,
        calls: &[(firn_store::types::Address, Vec<u8>)],
        gas: Option<u64>,
        at: Option<u64>,
    ) -> Result<Vec<Option<Vec<u8>>>> {
        let mut out = Vec::with_capacity(calls.len());
        for part in calls.chunks(CALLS_PER_REQUEST) {
            out.extend(self.call_batch(part, gas, at).await?);
        }
        Ok(out)
    }

    fn call_batch<'a>(
        &'a self,
        calls: &'a [(firn_store::types::Address, Vec<u8>)],
        gas: Option<u64>,
        at: Option<u64>,
    ) -> CallOutcomes<'a> {
        Box::pin(async move {
            let tag = at.map_or_else(|| "latest".to_owned(), |b| format!("{b:#x}"));
            let mut batch = self.client.batch();
            for (to, data) in calls {
                let mut req =
                    json!({ "to": format!("{to:#x}"), "data": format!("0x{}", hex::encode(data)) });
                if let Some(gas) = gas {
                    req["gas"] = json!(format!("{gas:#x}"));
                }
                batch.add("eth_call", (req, &tag))?;
            }
            let split = |e: &ClientError| too_big(e) && calls.len() > 1;
            let response = match batch.send().await {
                Ok(r) => r,
                Err(e) if split(&e) => return self.halves(calls, gas, at).await,
                Err(e) if too_big(&e) => return Ok(vec![None]),
                Err(e) => return Err(e.into()),
            };
            let got: Vec<Result<String, ClientError>> = (0..calls.len())
                .map(|i| response.get::<String>(i))
                .collect();
            // Results past the node's byte limit: ask for fewer at once.
            if got.iter().any(|r| r.as_ref().is_err_and(split)) {
                return self.halves(calls, gas, at).await;
            }
            Ok(got
                .into_iter()
                .map(|r| {
                    r.ok()
                        .and_then(|s| hex::decode(s.trim_start_matches("0x")).ok())
                })
                .collect())
        })
    }

    async fn halves(
        &self,
        calls: &[(firn_store::types::Address, Vec<u8>)],
        gas: Option<u64>,
        at: Option<u64>,
    ) -> Result<Vec<Option<Vec<u8>>>> {
        let (first, second) = calls.split_at(calls.len() / 2);
        let mut out = self.call_batch(first, gas, at).await?;
        out.extend(self.call_batch(second, gas, at).await?);
        Ok(out)
    }
}

type CallOutcomes<'a> = Pin<Box<dyn Future<Output = Result<Vec<Option<Vec<u8>>>>> + Send + 'a>>;

fn check_receipts(block: &Block<Transaction>, receipts: &[Receipt]) -> Result<(), String> {
    let n = block.transactions.len();
    if receipts.len() != n {
        return Err(format!("{} receipts for {n} transactions", receipts.len()));
    }
    for (i, (tx, r)) in block.transactions.iter().zip(receipts).enumerate() {
        if tx.hash != r.transaction_hash {
            return Err(format!("receipt {i} is for another transaction"));
        }
    }
    Ok(())
}

fn check_traces(block: &Block<Transaction>, traces: &[TxTrace]) -> Result<(), String> {
    let n = block.transactions.len();
    if !traces.is_empty() && traces.len() != n {
        return Err(format!("{} traces for {n} transactions", traces.len()));
    }
    for (i, (tx, t)) in block.transactions.iter().zip(traces).enumerate() {
        if t.tx_hash.is_some_and(|h| h != tx.hash) {
            return Err(format!("trace {i} is for another transaction"));
        }
    }
    Ok(())
}
