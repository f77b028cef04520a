//! [`Producer`]: the tokio task that builds blocks while the devnet runs, as AvalancheGo's
//! block builder does: soon after txs arrive, and when the clock reaches a staker's end time.

use crate::vm::PChain;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{Notify, watch};
use tokio::task::JoinHandle;
use tracing::{debug, info, warn};

/// How long the producer waits after a tx arrives before building, so that txs issued
/// together land in one block.
pub const BUILD_DELAY: Duration = Duration::from_millis(50);

/// How often the producer looks at the clock for stakers whose end time passed.
pub const TICK: Duration = Duration::from_millis(500);

/// A running block producer. [`Producer::notify`] wakes it; [`Producer::shutdown`] stops it
/// after the block it may be building.
#[derive(Debug)]
pub struct Producer {
    wake: Arc<Notify>,
    stop: watch::Sender<bool>,
    task: JoinHandle<()>,
}

impl Producer {
    /// Starts the producer on the current tokio runtime.
    pub fn spawn(chain: Arc<PChain>) -> Self {
        let wake = Arc::new(Notify::new());
        let (stop, mut stopped) = watch::channel(false);
        let woken = wake.clone();
        let task = tokio::spawn(async move {
            loop {
                tokio::select! {
                    _ = stopped.changed() => break,
                    _ = woken.notified() => tokio::time::sleep(BUILD_DELAY).await,
                    _ = tokio::time::sleep(TICK) => {}
                }
                if *stopped.borrow() {
                    break;
                }
                let chain = chain.clone();
                match tokio::task::spawn_blocking(move || chain.build_until_idle()).await {
                    Ok(Ok(blocks)) => {
                        if let Some(last) = blocks.last() {
                            let height = last.block.height();
                            info!(height, built = blocks.len(), "built blocks");
                        }
                    }
                    Ok(Err(error)) => warn!(%error, "block building failed"),
                    Err(error) => warn!(%error, "block building task failed"),
                }
            }
            debug!("block producer stopped");
        });
        Self { wake, stop, task }
    }

    /// Asks for a block soon (after [`BUILD_DELAY`]): call it when a tx was issued.
    pub fn notify(&self) {
        self.wake.notify_one();
    }

    /// A cheap handle that wakes the producer, for places that must not own it.
    pub fn waker(&self) -> Arc<Notify> {
        self.wake.clone()
    }

    /// Stops the producer and waits for it to finish.
    pub async fn shutdown(self) {
        let _ = self.stop.send(true);
        if let Err(error) = self.task.await {
            warn!(%error, "block producer ended abnormally");
        }
    }
}
