//! The fetch side of a backfill, shared by every chain's follower: one task asks the node for
//! consecutive batches of heights and hands them through a bounded channel, so at most `window`
//! batches wait in memory while the committer works; [`Backoff`], how a follower waits between
//! failed attempts; [`blocks_by_height`], the bytes of consecutive blocks of any chain that
//! serves AvalancheGo's `getBlockByHeight`; and [`hex_bytes`], the bytes of a block or tx asked
//! for in hex.

use std::future::Future;
use std::ops::Range;
use std::time::Duration;

use firn_core::encoding::hex_decode_checksummed;
use firn_rpc::AvalancheClient;
use firn_rpc::methods::Method;
use firn_rpc::methods::api::{BlockReply, Encoded, GetBlockByHeightParams};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::error::{IndexerError, Result};
use crate::pchain::IndexerConfig;

/// The first batch of a run, in heights: each next batch is twice as long, up to the
/// configured size. The committer starts after a few blocks, not after a whole batch has been
/// fetched (and derived), and stays busy from then on; a batch's fixed costs are paid a few
/// more times per run.
const FIRST_BATCH: u64 = 16;

/// The batches `from..=tip` is fetched in: from [`FIRST_BATCH`] heights, doubling up to
/// `batch`.
fn batch_ranges(from: u64, tip: u64, batch: u64) -> impl Iterator<Item = Range<u64>> {
    let batch = batch.max(1);
    let mut size = batch.min(FIRST_BATCH);
    // Heights come from the node: `tip` may be u64::MAX, so no `tip + 1`.
    let mut next = Some(from).filter(|start| *start <= tip);
    std::iter::from_fn(move || {
        let start = next?;
        let end = start.saturating_add(size).min(tip.saturating_add(1));
        if end <= start {
            next = None;
            return None;
        }
        next = Some(end).filter(|e| *e <= tip);
        size = size.saturating_mul(2).min(batch);
        Some(start..end)
    })
}

/// Fetches `from..=tip` with `fetch` in order, in batches growing to `batch` heights (see
/// [`FIRST_BATCH`]). The task stops after the first error (which it sends) or when the
/// receiver is dropped; abort the handle to stop it sooner.
pub(crate) fn spawn_batches<T, F, Fut>(
    from: u64,
    tip: u64,
    batch: u64,
    window: usize,
    fetch: F,
) -> (mpsc::Receiver<Result<Vec<T>>>, JoinHandle<()>)
where
    T: Send + 'static,
    F: Fn(Range<u64>) -> Fut + Send + 'static,
    Fut: Future<Output = Result<Vec<T>>> + Send,
{
    let (tx, rx) = mpsc::channel(window.max(1));
    let task = tokio::spawn(async move {
        for heights in batch_ranges(from, tip, batch) {
            let got = fetch(heights).await;
            let failed = got.is_err();
            if tx.send(got).await.is_err() || failed {
                return;
            }
        }
    });
    (rx, task)
}

/// Failures in a row of one follower step, and the wait before its next attempt: from
/// [`IndexerConfig::initial_backoff`], doubled up to [`IndexerConfig::max_backoff`], given up
/// after [`IndexerConfig::max_attempts`].
#[derive(Debug)]
pub(crate) struct Backoff {
    attempt: u32,
    wait: Duration,
    max_wait: Duration,
    max_attempts: Option<u32>,
}

impl Backoff {
    pub(crate) fn new(config: &IndexerConfig) -> Self {
        Self {
            attempt: 0,
            wait: config.initial_backoff,
            max_wait: config.max_backoff,
            max_attempts: config.max_attempts,
        }
    }

    /// Counts the failure `error`: returns it once the attempts are used up; otherwise has
    /// `log` report it (with the attempt and the wait) and waits.
    pub(crate) async fn wait(
        &mut self,
        error: IndexerError,
        log: impl FnOnce(&IndexerError, u32, Duration),
    ) -> Result<()> {
        self.attempt += 1;
        if self.max_attempts.is_some_and(|m| self.attempt >= m) {
            return Err(error);
        }
        log(&error, self.attempt, self.wait);
        tokio::time::sleep(self.wait).await;
        self.wait = self.wait.saturating_mul(2).min(self.max_wait);
        Ok(())
    }
}

/// The bytes of a block or tx asked for in hex (a node that answers JSON is wrong).
pub(crate) fn hex_bytes(encoded: &Encoded, what: impl Fn() -> String) -> Result<Vec<u8>> {
    match encoded {
        Encoded::Text(s) => hex_decode_checksummed(s).map_err(|e| IndexerError::decode(what(), e)),
        Encoded::Json(_) => Err(IndexerError::decode(what(), "JSON where hex was asked for")),
    }
}

/// `M` (`platform.getBlockByHeight`, `avm.getBlockByHeight`) for each height in `heights`, in
/// hex, `concurrency` requests in flight: each block's bytes, in the order asked.
pub(crate) async fn blocks_by_height<M>(
    client: &AvalancheClient,
    heights: Range<u64>,
    concurrency: usize,
) -> Result<Vec<(u64, Vec<u8>)>>
where
    M: Method<Params = GetBlockByHeightParams, Reply = BlockReply>,
{
    let params: Vec<GetBlockByHeightParams> = heights
        .clone()
        .map(|height| GetBlockByHeightParams {
            height,
            encoding: Some("hex".to_owned()),
        })
        .collect();
    let replies = client.request_many::<M>(params, concurrency).await;
    heights
        .zip(replies)
        .map(|(height, reply)| {
            Ok((
                height,
                hex_bytes(&reply?.block, || format!("block {height}"))?,
            ))
        })
        .collect()
}

/// The error for a block the node sent at `height` that says it is at `got`.
pub(crate) fn wrong_height(height: u64, got: u64) -> IndexerError {
    IndexerError::decode(
        format!("block {height}"),
        format!("the node sent block {got} instead"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_start_small_and_double_up_to_the_configured_size() {
        let lengths = |from, tip, batch| {
            let ranges: Vec<Range<u64>> = batch_ranges(from, tip, batch).collect();
            let joined: Vec<u64> = ranges.iter().cloned().flatten().collect();
            assert_eq!(joined, (from..=tip).collect::<Vec<_>>());
            ranges.iter().map(|r| r.end - r.start).collect::<Vec<_>>()
        };
        assert_eq!(lengths(0, 999, 256), [16, 32, 64, 128, 256, 256, 248]);
        assert_eq!(lengths(5, 9, 256), [5]);
        assert_eq!(lengths(0, 9, 3), [3, 3, 3, 1]);
        assert_eq!(lengths(7, 7, 0), [1]);
        assert_eq!(batch_ranges(8, 7, 256).count(), 0);
        let top: Vec<Range<u64>> = batch_ranges(u64::MAX - 20, u64::MAX, 256).collect();
        assert_eq!(top, [u64::MAX - 20..u64::MAX - 4, u64::MAX - 4..u64::MAX]);
    }
}
