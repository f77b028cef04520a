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
/// Returns `false` if `stop` cut it short (between two days; a restart resumes).
pub async fn generate_history(
    chain: Arc<PChain>,
    plan: HistoryPlan,
    quiet: bool,
    stop: watch::Receiver<bool>,
) -> anyhow::Result<bool> {
    let bar = if quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(u64::from(plan.days))
    };
    bar.set_style(
        ProgressStyle::with_template(
            "generating history {bar:30} day {pos}/{len} · {msg} · eta {eta}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let progress = bar.clone();
    let complete = tokio::task::spawn_blocking(move || {
        let mut generator = HistoryGenerator::new(&chain, plan.clone());
        let mut total_txs = 0u64;
        let first = generator.next_day();
        progress.set_position(u64::from(first));
        for day in first..plan.days {
            if *stop.borrow() {
                return Ok(false);
            }
            let report: DayReport = generator.generate_day(day)?;
            total_txs += report.txs;
            progress.set_position(u64::from(day) + 1);
            progress.set_message(format!("height {} · {total_txs} txs", report.height));
            info!(
                day = report.day,
                days = report.days,
                height = report.height,
                txs = report.txs,
                skipped = report.skipped,
                "history day generated"
            );
        }
        Ok::<_, firn_devnet::DevnetError>(true)
    })
    .await
    .context("the history generator stopped unexpectedly")?
    .context("couldn't generate history")?;
    bar.finish_and_clear();
    Ok(complete)
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
