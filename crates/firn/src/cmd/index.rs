//! `firn index`: follows a node's P-Chain, X-Chain and every EVM chain it serves (the C-Chain
//! and each subnet-EVM L1) into a store until Ctrl-C, all in parallel, with one progress bar
//! per chain on a terminal and structured logs otherwise.

use firn_rpc::client::redact_url;
use std::io::IsTerminal;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::Context;
use firn_indexer::evm::{ChainSelection, EvmIndexer, MetadataLimits, discover, follow_all, probe};
use firn_indexer::xchain::{VertexBackfill, XVertexIndexer};
use firn_indexer::{IndexerConfig, PChainIndexer, Progress, XChainIndexer};
use firn_rpc::methods::NoParams;
use firn_rpc::methods::avm::GetHeight as XGetHeight;
use firn_rpc::{AvalancheClient, ClientConfig};
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use tracing::{info, warn};

use crate::cli::IndexArgs;

/// The store file inside the data dir when no `--database` is given.
const DEFAULT_DB_FILE: &str = "firn.db";

pub fn run(args: &IndexArgs) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("couldn't start the async runtime")?;
    runtime.block_on(index(args))
}

/// How often the node's chains list is read again for new EVM chains.
const REDISCOVER: Duration = Duration::from_secs(10);

/// The node's base URL: `http://node:9650/ext/bc/P` → `http://node:9650`.
fn node_base(rpc: &str) -> &str {
    let base = rpc.trim_end_matches('/');
    base.strip_suffix("/ext/bc/P")
        .or_else(|| base.strip_suffix("/ext/P"))
        .unwrap_or(base)
}

/// The P-Chain endpoint of a node URL: `http://node:9650` → `http://node:9650/ext/bc/P`.
fn pchain_url(rpc: &str) -> String {
    let base = rpc.trim_end_matches('/');
    if base.ends_with("/ext/bc/P") || base.ends_with("/ext/P") {
        base.to_owned()
    } else {
        format!("{base}/ext/bc/P")
    }
}

async fn index(args: &IndexArgs) -> anyhow::Result<()> {
    let database = match &args.database {
        Some(url) => url.clone(),
        None => args
            .data_dir
            .join(DEFAULT_DB_FILE)
            .to_str()
            .context("the data dir path is not UTF-8")?
            .to_owned(),
    };
    let options = firn_store::StoreOptions {
        cache_mib: args.store_cache_mib,
        ..firn_store::StoreOptions::default()
    };
    let store = firn_store::Store::open_with(&database, &options)
        .await
        .with_context(|| format!("couldn't open the store {}", redact_url(&database)))?;
    let client = AvalancheClient::new(&pchain_url(&args.rpc), ClientConfig::default())
        .with_context(|| format!("bad --rpc {}", redact_url(&args.rpc)))?;
    let config = IndexerConfig {
        batch_blocks: args.batch_blocks,
        concurrency: args.concurrency as usize,
        metadata: MetadataLimits {
            allow_private: args.metadata_private_urls,
            ..MetadataLimits::default()
        },
        ..IndexerConfig::default()
    };
    let reporter = Arc::new(Reporter::new(std::io::stderr().is_terminal()));
    let pchain_reporter = reporter.clone();
    let mut indexer = PChainIndexer::new(client, store.clone(), config.clone())
        .on_progress(move |p| pchain_reporter.report("p-chain", p));
    info!(target: "firn::index", rpc = %redact_url(&args.rpc), database = %redact_url(&database), "indexing");
    let base = node_base(&args.rpc).to_owned();
    let x_client = AvalancheClient::new(&format!("{base}/ext/bc/X"), ClientConfig::default())
        .with_context(|| format!("bad --rpc {}", redact_url(&args.rpc)))?;
    let x_reporter = reporter.clone();
    let mut xchain = XChainIndexer::new(x_client.clone(), store.clone(), config.clone())
        .on_progress(move |p| x_reporter.report("x-chain", p));
    let vtx_client =
        AvalancheClient::new(&format!("{base}/ext/index/X/vtx"), ClientConfig::default())
            .with_context(|| format!("bad --rpc {}", redact_url(&args.rpc)))?;
    let mut dag = XVertexIndexer::new(vtx_client, x_client.clone(), store.clone(), config.clone());
    let run = async {
        let selection = if args.evm_chains.is_empty() {
            ChainSelection::Served
        } else {
            ChainSelection::Only(args.evm_chains.clone())
        };
        if args.once {
            let evm = backfill_evm(&base, &store, &config, &reporter, &selection);
            let x = async {
                // A node that serves no X-Chain is skipped, so that `--once` ends.
                if let Err(error) = x_client.request::<XGetHeight>(&NoParams {}).await {
                    warn!(target: "firn::index", %error, "skipping the X-Chain: the node does not answer avm.getHeight");
                    return Ok(());
                }
                backfill_dag(&mut dag).await;
                xchain
                    .backfill()
                    .await
                    .map(|_| ())
                    .map_err(anyhow::Error::from)
            };
            let (p, x, e) = tokio::join!(indexer.backfill(), x, evm);
            p.map(|_| ()).map_err(anyhow::Error::from).and(x).and(e)
        } else {
            let evm_reporter = reporter.clone();
            let evm = follow_all(
                base.clone(),
                store.clone(),
                config.clone(),
                REDISCOVER,
                Arc::new(move |name: &str, p: &Progress| evm_reporter.report(name, p)),
                selection,
                Arc::default(),
            );
            // The X-Chain's follower retries a node's failures itself; should it stop, the
            // other chains go on.
            let x = async {
                backfill_dag(&mut dag).await;
                if let Err(error) = xchain.follow().await {
                    warn!(target: "firn::index", %error, "the X-Chain indexer stopped");
                }
                std::future::pending::<()>().await
            };
            tokio::select! {
                r = indexer.follow() => r.map_err(anyhow::Error::from),
                () = evm => Ok(()),
                () = x => Ok(()),
            }
        }
    };
    let result = tokio::select! {
        r = run => r,
        () = super::devnet::shutdown_signal() => {
            info!(target: "firn::index", "stopping");
            Ok(())
        }
    };
    reporter.finish();
    store.close().await;
    result
}

/// The X-Chain's DAG from before Cortina, once, before its linear blocks (the store takes
/// no vertex after them). A node without the vertex index is said so by the indexer; a
/// failure is logged and the linear chain is indexed regardless.
async fn backfill_dag(dag: &mut XVertexIndexer) {
    match dag.backfill().await {
        Ok(VertexBackfill::Indexed { committed, .. }) if committed > 0 => {
            info!(target: "firn::index", committed, "indexed the x-chain's vertices");
        }
        Ok(_) => {}
        Err(error) => {
            warn!(target: "firn::index", %error, "the x-chain's vertices were not indexed");
        }
    }
}

/// Backfills every EVM chain the node serves, in parallel, up to each one's tip.
async fn backfill_evm(
    base: &str,
    store: &firn_store::Store,
    config: &IndexerConfig,
    reporter: &Arc<Reporter>,
    selection: &ChainSelection,
) -> anyhow::Result<()> {
    let endpoints = discover(base)
        .await
        .with_context(|| format!("couldn't list the EVM chains of {base}"))?;
    let mut tasks = tokio::task::JoinSet::new();
    for e in endpoints.into_iter().filter(|e| selection.wants(e)) {
        // A chain the node lists but does not serve (no RPC for it) is skipped: `--once`
        // must end. Once reachable, failures are retried like the P-Chain's.
        if let Err(error) = probe(&e.url).await {
            warn!(target: "firn::index", chain = %e.name, url = %redact_url(&e.url), %error, "skipping an unreachable EVM chain");
            continue;
        }
        let name = e.name.clone();
        let r = reporter.clone();
        let mut indexer = EvmIndexer::new(e, store.clone(), config.clone())?
            .on_progress(move |p| r.report(&name, p));
        tasks.spawn(async move { indexer.backfill().await });
    }
    while let Some(done) = tasks.join_next().await {
        if let Err(error) = done.context("an EVM indexer task failed")? {
            warn!(target: "firn::index", %error, "an EVM chain could not be indexed");
            return Err(error.into());
        }
    }
    Ok(())
}

/// Shows progress: one bar per chain on a terminal, a log line every few seconds otherwise.
struct Reporter {
    bars: Option<(
        MultiProgress,
        Mutex<std::collections::HashMap<String, ProgressBar>>,
    )>,
    last_log: Mutex<std::collections::HashMap<String, Instant>>,
}

impl Reporter {
    fn new(terminal: bool) -> Self {
        Self {
            bars: terminal.then(|| (MultiProgress::new(), Mutex::new(Default::default()))),
            last_log: Mutex::new(Default::default()),
        }
    }

    fn bar(multi: &MultiProgress, chain: &str) -> ProgressBar {
        let bar = multi.add(ProgressBar::new(0));
        let template = format!(
            "{{spinner}} {chain:<10} [{{bar:40}}] {{pos}}/{{len}} blocks  {{per_sec}}  ETA {{eta}}"
        );
        bar.set_style(
            ProgressStyle::with_template(&template)
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        bar
    }

    fn report(&self, chain: &str, p: &Progress) {
        let base = p.started_at.map_or(0, |h| h + 1);
        if let Some((multi, bars)) = &self.bars {
            let mut bars = bars.lock().unwrap_or_else(|e| e.into_inner());
            let bar = bars
                .entry(chain.to_owned())
                .or_insert_with(|| Self::bar(multi, chain));
            bar.set_length(p.tip.saturating_add(1).saturating_sub(base));
            bar.set_position((p.height + 1).saturating_sub(base));
            return;
        }
        let mut last = self.last_log.lock().unwrap_or_else(|e| e.into_inner());
        let due = last
            .get(chain)
            .is_none_or(|t| t.elapsed() >= Duration::from_secs(2))
            || p.height >= p.tip;
        if due {
            last.insert(chain.to_owned(), Instant::now());
            info!(target: "firn::index", chain, height = p.height, tip = p.tip, committed = p.committed, "indexed blocks");
        }
    }

    fn finish(&self) {
        if let Some((_, bars)) = &self.bars {
            for bar in bars.lock().unwrap_or_else(|e| e.into_inner()).values() {
                bar.finish();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{node_base, pchain_url};

    #[test]
    fn node_base_drops_the_pchain_path() {
        assert_eq!(node_base("http://n:9650/ext/bc/P"), "http://n:9650");
        assert_eq!(node_base("http://n:9650/"), "http://n:9650");
    }

    #[test]
    fn node_urls_point_at_the_pchain() {
        assert_eq!(pchain_url("http://n:9650"), "http://n:9650/ext/bc/P");
        assert_eq!(pchain_url("http://n:9650/"), "http://n:9650/ext/bc/P");
        assert_eq!(
            pchain_url("http://n:9650/ext/bc/P"),
            "http://n:9650/ext/bc/P"
        );
    }
}
