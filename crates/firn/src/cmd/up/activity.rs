//! Generated history (on a new data dir) and live activity (once serving).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use firn_devnet::PChain;
use firn_devnet::history::{DayReport, HistoryGenerator, HistoryPlan};
use indicatif::{ProgressBar, ProgressStyle};
use tokio::sync::watch;
use tracing::{info, warn};

use super::evm_history::{EvmHistory, EvmReport};
use crate::cmd::evm::{EvmChainsHandle, OpenChains};

/// What history generation needs besides the P-Chain: its EVM chains and their share.
pub struct EvmSide {
    pub chains: OpenChains,
    pub data_dir: PathBuf,
    pub txs_per_day: u32,
}

/// Generates (or resumes) the plan's history on a blocking thread, reporting each day: the
/// P-Chain's, and after each of its transfer blocks the EVM chains' at the same virtual time.
/// Returns `false` if `stop` cut it short (between two days; a restart resumes), and the EVM
/// chains, opened as the P-Chain created them.
pub async fn generate_history(
    chain: Arc<PChain>,
    plan: HistoryPlan,
    evm: EvmSide,
    quiet: bool,
    stop: watch::Receiver<bool>,
) -> anyhow::Result<(bool, OpenChains)> {
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
    let (complete, opened) = tokio::task::spawn_blocking(move || {
        let EvmSide {
            chains: mut opened,
            data_dir,
            txs_per_day,
        } = evm;
        let activity = EvmHistory::new(&chain, txs_per_day);
        let mut generator = HistoryGenerator::new(&chain, plan.clone());
        let (mut total_txs, mut total_evm) = (0u64, 0u64);
        let first = generator.next_day();
        progress.set_position(u64::from(first));
        for day in first..plan.days {
            if *stop.borrow() {
                return Ok((false, opened));
            }
            let mut evm_day = EvmReport::default();
            let report: DayReport = generator.generate_day_with(day, |slot, slots| {
                opened.refresh(&chain, &data_dir);
                let r = activity.slot(&opened.all(), day, slot, slots)?;
                evm_day.txs += r.txs;
                evm_day.skipped += r.skipped;
                Ok::<_, anyhow::Error>(())
            })?;
            total_txs += report.txs;
            total_evm += evm_day.txs;
            progress.set_position(u64::from(day) + 1);
            progress.set_message(format!(
                "P-Chain height {} · {total_txs} P-Chain txs · {total_evm} EVM txs",
                report.height
            ));
            info!(
                day = report.day,
                days = report.days,
                height = report.height,
                txs = report.txs,
                skipped = report.skipped,
                evm_txs = evm_day.txs,
                evm_skipped = evm_day.skipped,
                "history day generated"
            );
        }
        Ok::<_, anyhow::Error>((true, opened))
    })
    .await
    .context("the history generator stopped unexpectedly")?
    .context("couldn't generate history")?;
    bar.finish_and_clear();
    Ok((complete, opened))
}

/// Live activity until `stop`: a round of P-Chain transfers and a few txs on every EVM chain
/// every `interval`.
pub async fn live_activity(
    chain: Arc<PChain>,
    plan: HistoryPlan,
    evm: Arc<EvmChainsHandle>,
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
        let chains = evm.served();
        let result = tokio::task::spawn_blocking(move || {
            let report = HistoryGenerator::new(&chain, plan).live_round(round)?;
            let evm = EvmHistory::new(&chain, 0).live_round(&chains, round)?;
            Ok::<_, anyhow::Error>((report, evm))
        })
        .await;
        match result {
            Ok(Ok((report, evm))) => info!(
                txs = report.txs,
                height = report.height,
                evm_txs = evm.txs,
                "live activity"
            ),
            Ok(Err(e)) => warn!(error = %format!("{e:#}"), "live activity failed"),
            Err(e) => warn!(error = %e, "live activity task failed"),
        }
    }
}
