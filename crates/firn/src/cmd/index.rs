//! `firn index`: follows a node's P-Chain into a store until Ctrl-C, with a progress bar on a
//! terminal and structured logs otherwise.

use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::Context;
use firn_indexer::{IndexerConfig, PChainIndexer, Progress};
use firn_rpc::{AvalancheClient, ClientConfig};
use indicatif::{ProgressBar, ProgressStyle};
use tracing::info;

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
    let store = firn_store::open(&database)
        .await
        .with_context(|| format!("couldn't open the store {database}"))?;
    let client = AvalancheClient::new(&pchain_url(&args.rpc), ClientConfig::default())
        .with_context(|| format!("bad --rpc {}", args.rpc))?;
    let config = IndexerConfig {
        batch_blocks: args.batch_blocks,
        concurrency: args.concurrency as usize,
        ..IndexerConfig::default()
    };
    let reporter = Reporter::new(std::io::stderr().is_terminal());
    let bar = reporter.bar.clone();
    let mut indexer =
        PChainIndexer::new(client, store.clone(), config).on_progress(move |p| reporter.report(p));
    info!(target: "firn::index", rpc = %args.rpc, %database, "indexing");
    let run = async {
        if args.once {
            indexer.backfill().await.map(|_| ())
        } else {
            indexer.follow().await
        }
    };
    let result = tokio::select! {
        r = run => r.map_err(anyhow::Error::from),
        () = super::devnet::shutdown_signal() => {
            info!(target: "firn::index", "stopping");
            Ok(())
        }
    };
    if let Some(bar) = bar {
        bar.finish();
    }
    store.close().await;
    result
}

/// Shows progress: a bar on a terminal, a log line every few seconds otherwise.
struct Reporter {
    bar: Option<ProgressBar>,
    last_log: Mutex<Option<Instant>>,
}

impl Reporter {
    fn new(terminal: bool) -> Self {
        let bar = terminal.then(|| {
            let bar = ProgressBar::new(0);
            bar.set_style(
                ProgressStyle::with_template(
                    "{spinner} p-chain [{bar:40}] {pos}/{len} blocks  {per_sec}  ETA {eta}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
            );
            bar
        });
        Self {
            bar,
            last_log: Mutex::new(None),
        }
    }

    fn report(&self, p: &Progress) {
        let base = p.started_at.map_or(0, |h| h + 1);
        if let Some(bar) = &self.bar {
            bar.set_length(p.tip.saturating_add(1).saturating_sub(base));
            bar.set_position((p.height + 1).saturating_sub(base));
            return;
        }
        let mut last = self.last_log.lock().unwrap_or_else(|e| e.into_inner());
        let due = last.is_none_or(|t| t.elapsed() >= Duration::from_secs(2)) || p.height >= p.tip;
        if due {
            *last = Some(Instant::now());
            info!(target: "firn::index", height = p.height, tip = p.tip, committed = p.committed, "indexed p-chain blocks");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::pchain_url;

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
