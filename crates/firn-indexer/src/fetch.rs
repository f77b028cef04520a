//! The fetch side of a backfill, shared by every chain's follower: one task asks the node for
//! consecutive batches of heights and hands them through a bounded channel, so at most `window`
//! batches wait in memory while the committer works.

use std::future::Future;
use std::ops::Range;

use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::error::Result;

/// Fetches `from..=tip` in batches of `batch` heights with `fetch`, in order. The task stops
/// after the first error (which it sends) or when the receiver is dropped; abort the handle to
/// stop it sooner.
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
    let batch = batch.max(1);
    let task = tokio::spawn(async move {
        // Heights come from the node: `tip` may be u64::MAX, so no `tip + 1`.
        let mut start = from;
        while start <= tip {
            let end = start.saturating_add(batch).min(tip.saturating_add(1));
            if end <= start {
                return;
            }
            let got = fetch(start..end).await;
            let failed = got.is_err();
            if tx.send(got).await.is_err() || failed {
                return;
            }
            start = end;
        }
    });
    (rx, task)
}
