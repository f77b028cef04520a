//! Generated history (on a new data dir) and live activity (once serving).

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use firn_devnet::PChain;
use firn_devnet::history::{DayReport, HistoryGenerator, HistoryPlan};
use indicatif::{ProgressBar, ProgressStyle};
use tokio::sync::watch;
use tracing::{info, warn};

/// Generates (or resumes) the plan's history on a blocking thread, reporting each day.
pub async fn generate_history(
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
pub async fn live_activity(
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
