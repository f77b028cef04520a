//! An EVM chain as the node's RPC shows it: the tip, and blocks with their receipts and
//! `callTracer` traces fetched in batched JSON-RPC requests, several requests in flight.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use firn_rpc::{ClientError, EthClient};
use serde_json::json;
use tokio::sync::Semaphore;
use tokio::task::JoinSet;
use tracing::warn;

use super::wire::{RpcBlock, RpcReceipt, RpcTrace, parse_quantity};
use crate::error::{IndexerError, Result};

/// JSON-RPC's "method not found": a node without the `debug` API.
const METHOD_NOT_FOUND: i64 = -32601;

/// One block as fetched: header and transactions, receipts, and call traces.
#[derive(Debug, Clone)]
pub struct FetchedEvmBlock {
    /// `eth_getBlockByNumber(n, true)`.
    pub block: RpcBlock,
    /// `eth_getBlockReceipts(n)`, in transaction order.
    pub receipts: Vec<RpcReceipt>,
    /// `debug_traceBlockByNumber(n, callTracer)`, in transaction order; empty when the node
    /// has no `debug` API.
    pub traces: Vec<RpcTrace>,
}

/// The node's RPC for one EVM chain (`…/ext/bc/<chain>/rpc`).
#[derive(Debug, Clone)]
pub struct EvmSource {
    client: EthClient,
    blocks_per_request: u64,
    concurrency: usize,
    /// Cleared once the node says it has no `debug_traceBlockByNumber`.
    traces: Arc<AtomicBool>,
}

impl EvmSource {
    /// A source over `client`: `blocks_per_request` blocks per batched HTTP request, at most
    /// `concurrency` requests in flight.
    pub fn new(client: EthClient, blocks_per_request: u64, concurrency: usize) -> Self {
        Self {
            client,
            blocks_per_request: blocks_per_request.max(1),
            concurrency: concurrency.max(1),
            traces: Arc::new(AtomicBool::new(true)),
        }
    }

    /// The client.
    pub fn client(&self) -> &EthClient {
        &self.client
    }

    /// `eth_chainId`.
    pub async fn chain_id(&self) -> Result<u64> {
        let id: String = self.client.call("eth_chainId", ()).await?;
        parse_quantity(&id).map_err(|e| IndexerError::decode("eth_chainId", e))
    }

    /// `eth_blockNumber`: the last accepted block.
    pub async fn tip(&self) -> Result<u64> {
        let n: String = self.client.call("eth_blockNumber", ()).await?;
        parse_quantity(&n).map_err(|e| IndexerError::decode("eth_blockNumber", e))
    }

    /// Blocks `numbers`, in order, fetched in parallel batched requests.
    pub async fn blocks(&self, numbers: std::ops::Range<u64>) -> Result<Vec<FetchedEvmBlock>> {
        let permits = Arc::new(Semaphore::new(self.concurrency));
        let mut tasks = JoinSet::new();
        let mut start = numbers.start;
        let mut chunk = 0usize;
        while start < numbers.end {
            let end = (start + self.blocks_per_request).min(numbers.end);
            let this = self.clone();
            let permits = permits.clone();
            tasks.spawn(async move {
                let _permit = permits.acquire_owned().await;
                (chunk, this.chunk(start..end).await)
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

    /// One batched request: block, receipts and traces of each number in `numbers`.
    async fn chunk(&self, numbers: std::ops::Range<u64>) -> Result<Vec<FetchedEvmBlock>> {
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
            let what = || format!("block {n}");
            let block: Option<RpcBlock> = response.get(i * per)?;
            let block = block.ok_or_else(|| IndexerError::Missing {
                what: "evm block",
                key: n.to_string(),
            })?;
            if block.number != n {
                return Err(IndexerError::decode(
                    what(),
                    format!("the node sent block {} instead", block.number),
                ));
            }
            let receipts: Vec<RpcReceipt> = response.get(i * per + 1)?;
            let traces = if with_traces {
                match response.get::<Vec<RpcTrace>>(i * per + 2) {
                    Ok(t) => t,
                    Err(ClientError::Rpc(e)) if e.code == METHOD_NOT_FOUND => {
                        warn!(target: "indexer::evm", url = self.client.url(), "the node has no debug_traceBlockByNumber: indexing without internal transactions");
                        self.traces.store(false, Ordering::Relaxed);
                        Vec::new()
                    }
                    Err(e) => return Err(e.into()),
                }
            } else {
                Vec::new()
            };
            check_lengths(&block, &receipts, &traces)
                .map_err(|e| IndexerError::decode(what(), e))?;
            out.push(FetchedEvmBlock {
                block,
                receipts,
                traces,
            });
        }
        Ok(out)
    }

    /// `eth_call`s of `(to, data)` against the latest state, in one batch; each outcome is the
    /// returned bytes, or `None` when the call failed or reverted.
    pub async fn calls(
        &self,
        calls: &[(firn_store::types::Address, Vec<u8>)],
    ) -> Result<Vec<Option<Vec<u8>>>> {
        let mut batch = self.client.batch();
        for (to, data) in calls {
            let req = json!({ "to": to.to_string(), "data": format!("0x{}", hex::encode(data)) });
            batch.add("eth_call", (req, "latest"))?;
        }
        let response = batch.send().await?;
        Ok((0..calls.len())
            .map(|i| {
                response
                    .get::<String>(i)
                    .ok()
                    .and_then(|s| hex::decode(s.trim_start_matches("0x")).ok())
            })
            .collect())
    }
}

fn check_lengths(
    block: &RpcBlock,
    receipts: &[RpcReceipt],
    traces: &[RpcTrace],
) -> Result<(), String> {
    let n = block.transactions.len();
    if receipts.len() != n {
        return Err(format!("{} receipts for {n} transactions", receipts.len()));
    }
    if !traces.is_empty() && traces.len() != n {
        return Err(format!("{} traces for {n} transactions", traces.len()));
    }
    for (i, (tx, r)) in block.transactions.iter().zip(receipts).enumerate() {
        if tx.hash != r.transaction_hash {
            return Err(format!("receipt {i} is for another transaction"));
        }
        if let Some(h) = traces.get(i).and_then(|t| t.tx_hash)
            && h != tx.hash
        {
            return Err(format!("trace {i} is for another transaction"));
        }
    }
    Ok(())
}
