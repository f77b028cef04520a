//! `firn up`: the whole platform in one process, on a data directory.
//!
//! A new data directory starts `--days` days in the past: the devnet is opened on a frozen
//! clock, history is generated day by day (a progress bar on a terminal, a log line per day
//! otherwise), then the clock goes live and the services start. A directory whose history was
//! cut off resumes it; one whose history is done (`history.done`) goes straight to serving.

mod settings;

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::Context;
use firn_devnet::history::{DayReport, HistoryGenerator, HistoryPlan};
use firn_devnet::{Clock, DevnetConfig, PChain, Producer};
use firn_rpc::{Node, node_router};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::json;
use tokio::sync::watch;
use tracing::{info, warn};

use super::devnet::{self, CHAIN_DIR, ChainChoice};
use crate::cli::UpArgs;
use settings::UpSettings;

/// Written once generated history is complete; holds the plan it was generated with.
const HISTORY_DONE: &str = "history.done";

pub fn run(args: &UpArgs) -> anyhow::Result<()> {
    let settings = settings::resolve(args)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("couldn't start the async runtime")?;
    runtime.block_on(up(args, settings))
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

async fn up(args: &UpArgs, settings: UpSettings) -> anyhow::Result<()> {
    let plan = settings.plan.clone();
    let choice = ChainChoice {
        data_dir: &settings.data_dir,
        profile: settings.profile,
        seed: settings.seed.as_deref(),
        config: settings.devnet.clone(),
    };
    let config = devnet::load_config(&choice, |c: DevnetConfig| {
        if plan.days == 0 {
            c.starting_now()
        } else {
            DevnetConfig {
                genesis_time: plan.genesis_time(unix_now()),
                ..c
            }
        }
    })?;
    let chain_dir = settings.data_dir.join(CHAIN_DIR);
    let clock = Clock::frozen(config.genesis_time);
    let chain = Arc::new(
        PChain::open(config, &chain_dir, clock.clone())
            .with_context(|| format!("couldn't open the chain in {}", chain_dir.display()))?,
    );

    let done_path = settings.data_dir.join(HISTORY_DONE);
    if !done_path.exists() {
        clock.set(chain.timestamp());
        generate_history(chain.clone(), plan.clone(), args.silent || args.json).await?;
        let record = json!({ "days": plan.days, "transfersPerDay": plan.transfers_per_day });
        std::fs::write(&done_path, record.to_string())
            .with_context(|| format!("couldn't write {}", done_path.display()))?;
    }
    clock.go_live();

    let listener = tokio::net::TcpListener::bind(settings.rpc_addr)
        .await
        .with_context(|| format!("couldn't listen on {}", settings.rpc_addr))?;
    let rpc_addr = listener.local_addr()?;
    let producer = Producer::spawn(chain.clone());
    let node = Arc::new(Node::new(chain.clone(), Some(producer.waker())));
    let router = node_router(node).build()?;
    let (stop_tx, stop_rx) = watch::channel(false);
    let activity = (!settings.quiet_chain).then(|| {
        tokio::spawn(live_activity(
            chain.clone(),
            plan.clone(),
            settings.activity_interval,
            stop_rx.clone(),
        ))
    });

    let url = format!("http://{rpc_addr}");
    let mut banner = devnet::banner(&chain, &url, &settings.data_dir);
    banner["history"] = json!({
        "days": plan.days,
        "transfersPerDay": plan.transfers_per_day,
        "liveActivity": if settings.quiet_chain {
            serde_json::Value::Null
        } else {
            json!(settings.activity_interval.as_secs())
        },
    });
    if args.json {
        println!("{}", serde_json::to_string(&banner)?);
    } else if !args.silent {
        println!(
            "History      {} days generated ({} P-Chain transfers a day); live activity {}",
            plan.days,
            plan.transfers_per_day,
            if settings.quiet_chain {
                "off (--quiet-chain)".to_owned()
            } else {
                format!("every {}s", settings.activity_interval.as_secs())
            }
        );
        devnet::print_banner(&banner);
    }
    info!(%rpc_addr, height = chain.height(), "firn is up");

    firn_rpc::serve(listener, router, devnet::shutdown_signal()).await?;
    let _ = stop_tx.send(true);
    if let Some(task) = activity {
        let _ = task.await;
    }
    producer.shutdown().await;
    info!(height = chain.height(), "firn stopped");
    if !args.silent && !args.json {
        eprintln!("Shut down at height {}", chain.height());
    }
    Ok(())
}

/// Generates (or resumes) the plan's history on a blocking thread, reporting each day.
async fn generate_history(
    chain: Arc<PChain>,
    plan: HistoryPlan,
    quiet: bool,
) -> anyhow::Result<()> {
    let bar = if quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(u64::from(plan.days))
    };
    bar.set_style(
        ProgressStyle::with_template(
            "generating history {bar:30} day {pos}/{len} · {msg} · {per_sec} · eta {eta}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let progress = bar.clone();
    let mut total_txs = 0u64;
    tokio::task::spawn_blocking(move || {
        let mut generator = HistoryGenerator::new(&chain, plan);
        progress.set_position(u64::from(generator.next_day()));
        generator.run(|day: DayReport| {
            total_txs += day.txs;
            progress.set_position(u64::from(day.day) + 1);
            progress.set_message(format!("height {} · {total_txs} txs", day.height));
            info!(
                day = day.day,
                days = day.days,
                height = day.height,
                txs = day.txs,
                skipped = day.skipped,
                "history day generated"
            );
        })
    })
    .await
    .context("the history generator stopped unexpectedly")?
    .context("couldn't generate history")?;
    bar.finish_and_clear();
    Ok(())
}

/// Live activity until `stop`: a round of transfers every `interval`.
async fn live_activity(
    chain: Arc<PChain>,
    plan: HistoryPlan,
    interval: Duration,
    mut stop: watch::Receiver<bool>,
) {
    let mut ticker = tokio::time::interval(interval);
    ticker.tick().await;
    for round in 0u64.. {
        tokio::select! {
            _ = ticker.tick() => {}
            _ = stop.changed() => return,
        }
        let chain = chain.clone();
        let plan = plan.clone();
        let result = tokio::task::spawn_blocking(move || {
            HistoryGenerator::new(&chain, plan).live_round(round)
        })
        .await;
        match result {
            Ok(Ok(report)) => info!(txs = report.txs, height = report.height, "live activity"),
            Ok(Err(e)) => warn!(error = %e, "live activity failed"),
            Err(e) => warn!(error = %e, "live activity task failed"),
        }
    }
}
