//! The flusher: takes the queued request logs in batches, writes them to the store, and
//! deletes logs past the retention age and row cap every [`PRUNE_EVERY`].
//!
//! A batch the store refuses (database down) is logged and dropped: usage logs are worth less
//! than keeping the queue moving, and requests never wait on them either way.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use firn_http::usage::{RequestLog, UsageQueue, UsageRecorder};
use firn_store::rows::usage::RequestLogRecord;
use firn_store::{Store, UsageStore};
use tokio::task::JoinHandle;

use crate::metrics_api::clock::unix_ms as now_ms;

/// Logs written per store transaction.
const BATCH: usize = 1_000;
/// Logs waiting in memory before new ones are dropped.
pub const QUEUE_CAPACITY: usize = 50_000;
/// How often old logs are deleted.
pub const PRUNE_EVERY: Duration = Duration::from_secs(600);

/// How long request logs are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retention {
    /// Logs older than this are deleted.
    pub max_age: Duration,
    /// Past this many logs, the oldest are deleted.
    pub max_rows: u64,
}

impl Default for Retention {
    /// 30 days, 5,000,000 logs.
    fn default() -> Self {
        Self {
            max_age: Duration::from_secs(30 * 86_400),
            max_rows: 5_000_000,
        }
    }
}

/// Writes one queue's logs to one store.
#[derive(Debug)]
pub struct Flusher {
    store: Store,
    queue: UsageQueue,
    retention: Retention,
}

/// A recorder and a running flusher writing its logs to `store`: give the recorder to the
/// Data API ([`crate::AppState::with_usage`]) and the node; the flusher ends once every clone
/// of the recorder is gone and the queue is written.
pub fn start(store: Store, retention: Retention) -> (UsageRecorder, JoinHandle<()>) {
    let (recorder, queue) = UsageRecorder::channel(QUEUE_CAPACITY);
    let task = tokio::spawn(Flusher::new(store, queue, retention).run());
    (recorder, task)
}

impl Flusher {
    /// A flusher of `queue` into `store`.
    pub fn new(store: Store, queue: UsageQueue, retention: Retention) -> Self {
        Self {
            store,
            queue,
            retention,
        }
    }

    /// Writes every log queued now; how many.
    pub async fn flush(&mut self) -> firn_store::Result<usize> {
        let mut written = 0;
        loop {
            let batch = self.queue.drain(BATCH);
            if batch.is_empty() {
                return Ok(written);
            }
            written += batch.len();
            self.write(batch).await?;
        }
    }

    /// Deletes logs past the retention; how many.
    pub async fn prune(&self) -> firn_store::Result<u64> {
        let age = u64::try_from(self.retention.max_age.as_millis()).unwrap_or(u64::MAX);
        self.store
            .prune_request_logs(now_ms().saturating_sub(age), self.retention.max_rows)
            .await
    }

    /// Writes batches as they come and prunes periodically, until the queue closes.
    pub async fn run(mut self) {
        let mut prune = tokio::time::interval(PRUNE_EVERY);
        prune.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                batch = self.queue.next_batch(BATCH) => {
                    let Some(batch) = batch else { break };
                    let n = batch.len();
                    if let Err(e) = self.write(batch).await {
                        tracing::warn!(target: "api::usage", error = %e, logs = n, "dropping request logs the store refused");
                    }
                }
                _ = prune.tick() => match self.prune().await {
                    Ok(deleted) => tracing::debug!(target: "api::usage", deleted, "pruned request logs"),
                    Err(e) => tracing::warn!(target: "api::usage", error = %e, "pruning request logs"),
                },
            }
        }
    }

    async fn write(&self, batch: Vec<RequestLog>) -> firn_store::Result<()> {
        let records: Vec<RequestLogRecord> = batch.into_iter().map(record).collect();
        self.store.record_requests(&records).await
    }
}

/// Logs numbered so far by this process: the tie-break of logs of one millisecond.
static SEQUENCE: AtomicU64 = AtomicU64::new(0);

/// A UUIDv7 of `time_ms` whose other bits hold the process's sequence number, so logs of one
/// millisecond list in the order they were queued (their text sorts as their bytes do).
fn log_id(time_ms: u64) -> String {
    let seq = SEQUENCE.fetch_add(1, Ordering::Relaxed) & (u64::MAX >> 2);
    let mut bytes = [0u8; 10];
    bytes[2..].copy_from_slice(&seq.to_be_bytes());
    uuid::Builder::from_unix_timestamp_millis(time_ms, &bytes)
        .into_uuid()
        .to_string()
}

fn record(log: RequestLog) -> RequestLogRecord {
    RequestLogRecord {
        time_ms: log.time_ms,
        log_id: log_id(log.time_ms),
        api_key_id: log.api_key_id,
        request_type: log.kind.as_str().to_owned(),
        path: log.path,
        chain_id: log.chain_id,
        rpc_method: log.rpc_method,
        primary_network: log.primary_network,
        status: log.status,
        duration_ms: log.duration_ms,
        ip: log.ip,
        host: log.host,
        user_agent: log.user_agent,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_ids_of_one_millisecond_sort_in_queue_order() {
        let ids: Vec<String> = (0..300).map(|_| log_id(1_700_000_000_000)).collect();
        let mut sorted = ids.clone();
        sorted.sort();
        assert_eq!(ids, sorted);
    }
}
