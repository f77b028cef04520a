//! [`Producer`]: the tokio task that builds an EVM chain's blocks soon after transactions
//! arrive (however they enter the pool: the RPC, or the node's own relayer), and on an
//! interval when one is configured. Ready transactions that did not fit
//! (the capacity is spent, or their fee cap is under the base fee) are tried again every
//! [`RETRY_DELAY`], as capacity refills and the base fee falls with time.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{Notify, watch};
use tokio::task::JoinHandle;
use tracing::{debug, warn};

use crate::chain::EvmChain;

/// How long the producer waits after a tx arrives, so that txs sent together share a block.
pub const BUILD_DELAY: Duration = Duration::from_millis(20);
/// How soon it tries again while ready txs wait for capacity or a lower base fee.
pub const RETRY_DELAY: Duration = Duration::from_millis(250);

/// A running block producer; [`Producer::shutdown`] stops it after the block in progress.
#[derive(Debug)]
pub struct Producer {
    wake: Arc<Notify>,
    stop: watch::Sender<bool>,
    task: JoinHandle<()>,
}

impl Producer {
    /// Starts building blocks for `chain` on the current runtime; with `interval`, also
    /// tries to build every `interval` (blocks are never empty).
    pub fn spawn(chain: Arc<EvmChain>, interval: Option<Duration>) -> Self {
        let wake = Arc::new(Notify::new());
        let (stop, mut stopped) = watch::channel(false);
        let woken = wake.clone();
        let mut pooled = chain.watch_pool();
        let task = tokio::spawn(async move {
            let tick = interval.unwrap_or(Duration::from_secs(3600));
            let mut waiting = false;
            loop {
                let next_try = if waiting { tick.min(RETRY_DELAY) } else { tick };
                tokio::select! {
                    _ = stopped.changed() => break,
                    _ = woken.notified() => tokio::time::sleep(BUILD_DELAY).await,
                    Ok(()) = pooled.changed() => tokio::time::sleep(BUILD_DELAY).await,
                    _ = tokio::time::sleep(next_try) => {}
                }
                if *stopped.borrow() {
                    break;
                }
                let chain = chain.clone();
                let built = tokio::task::spawn_blocking(move || {
                    (chain.build_until_idle(), chain.has_ready_txs())
                });
                match built.await {
                    Ok((result, ready)) => {
                        waiting = ready;
                        if let Err(error) = result {
                            warn!(target: "evm", %error, "block building failed");
                        }
                    }
                    Err(error) => warn!(target: "evm", %error, "block building task failed"),
                }
            }
            debug!(target: "evm", "block producer stopped");
        });
        Self { wake, stop, task }
    }

    /// A handle that wakes the producer for what the pool does not announce (the dev loop's
    /// `evm_mine`, atomic txs); pooled txs wake it themselves.
    pub fn waker(&self) -> Arc<Notify> {
        self.wake.clone()
    }

    /// Stops the producer and waits for it.
    pub async fn shutdown(self) {
        let _ = self.stop.send(true);
        if let Err(error) = self.task.await {
            warn!(target: "evm", %error, "block producer ended abnormally");
        }
    }
}
