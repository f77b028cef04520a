//! The indexers `firn up` runs over its own node RPC: the P-Chain and X-Chain followers and one
//! EVM follower per EVM chain (the C-Chain and each subnet-EVM L1, picked up as they appear),
//! all as tasks that stop when `stop` resolves.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use firn_indexer::evm::{ChainSelection, MetadataLimits, follow_all};
use firn_indexer::{IndexerConfig, PChainIndexer, Progress, XChainIndexer};
use firn_rpc::{AvalancheClient, ClientConfig};
use firn_store::Store;
use tokio::task::JoinHandle;
use tracing::{debug, warn};

/// How often the chains list is read again for new L1s.
const REDISCOVER: Duration = Duration::from_secs(2);

/// Spawns the indexers following the node at `rpc_url` (`http://127.0.0.1:9650`) into `store`;
/// NFT metadata is fetched from private addresses only if `metadata_private_urls`.
pub(super) fn spawn(
    rpc_url: &str,
    store: &Store,
    metadata_private_urls: bool,
    stop: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<JoinHandle<()>> {
    let client = AvalancheClient::new(&format!("{rpc_url}/ext/bc/P"), ClientConfig::default())
        .context("couldn't make the indexer's RPC client")?;
    let config = IndexerConfig {
        metadata: MetadataLimits {
            allow_private: metadata_private_urls,
            ..MetadataLimits::default()
        },
        ..IndexerConfig::default()
    };
    let mut pchain = PChainIndexer::new(client, store.clone(), config.clone());
    let x_client = AvalancheClient::new(&format!("{rpc_url}/ext/bc/X"), ClientConfig::default())
        .context("couldn't make the X-Chain indexer's RPC client")?;
    let mut xchain = XChainIndexer::new(x_client, store.clone(), config.clone());
    let evm = follow_all(
        rpc_url.to_owned(),
        store.clone(),
        config,
        REDISCOVER,
        Arc::new(|chain: &str, p: &Progress| {
            debug!(target: "firn::up", chain, height = p.height, tip = p.tip, "indexed evm blocks");
        }),
        ChainSelection::Served,
        Arc::default(),
    );
    Ok(tokio::spawn(async move {
        tokio::select! {
            result = pchain.follow() => {
                if let Err(e) = result {
                    warn!(error = %e, "the indexer stopped");
                }
            }
            () = async {
                // Should the X-Chain's follower stop, the other chains go on.
                if let Err(e) = xchain.follow().await {
                    warn!(error = %e, "the X-Chain indexer stopped");
                }
                std::future::pending::<()>().await
            } => {}
            () = evm => {}
            () = stop => {}
        }
    }))
}
