//! [`Producer`]: the tokio task that builds blocks while the devnet runs, as AvalancheGo's
//! block builders do: soon after txs arrive, and (on the P-Chain) when the clock reaches a
//! staker's end time. One producer per chain ([`BuildBlocks`]).

use crate::error::DevnetError;
use crate::vm::PChain;
use crate::xchain::XChain;
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

/// A chain the producer builds blocks for.
pub trait BuildBlocks: Send + Sync + 'static {
    /// The chain's name in logs.
    const NAME: &'static str;
    /// Builds every block there is to build now; returns how many and the last height.
    fn build_pending(&self) -> Result<Option<(usize, u64)>, DevnetError>;
}

impl BuildBlocks for PChain {
    const NAME: &'static str = "P";
    fn build_pending(&self) -> Result<Option<(usize, u64)>, DevnetError> {
        let blocks = self.build_until_idle()?;
        Ok(blocks.last().map(|b| (blocks.len(), b.block.height())))
    }
}

impl BuildBlocks for XChain {
    const NAME: &'static str = "X";
    fn build_pending(&self) -> Result<Option<(usize, u64)>, DevnetError> {
        let blocks = self.build_until_idle()?;
        Ok(blocks.last().map(|b| (blocks.len(), b.block.height())))
    }
}

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
    pub fn spawn<C: BuildBlocks>(chain: Arc<C>) -> Self {
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
                match tokio::task::spawn_blocking(move || chain.build_pending()).await {
                    Ok(Ok(Some((built, height)))) => {
                        info!(chain = C::NAME, height, built, "built blocks");
                    }
                    Ok(Ok(None)) => {}
                    Ok(Err(error)) => warn!(chain = C::NAME, %error, "block building failed"),
                    Err(error) => warn!(chain = C::NAME, %error, "block building task failed"),
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
