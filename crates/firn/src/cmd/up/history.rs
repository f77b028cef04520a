//! Generated history on a new data dir, with a progress bar on a terminal (and a log line per
//! day from `firn_node` otherwise).

use anyhow::Context;
use firn_devnet::history::HistoryPlan;
use firn_node::Network;
use firn_node::history::HistoryDay;
use indicatif::{ProgressBar, ProgressStyle};
use tokio::sync::watch;
use tracing::info;

/// Generates (or resumes) the plan's history on a blocking thread. Returns `false` if `stop`
/// cut it short (between two days; a restart resumes), and the network, with the EVM chains
/// the P-Chain created opened.
pub async fn generate_history(
    mut network: Network,
    plan: HistoryPlan,
    evm_txs_per_day: u32,
    quiet: bool,
    stop: watch::Receiver<bool>,
) -> anyhow::Result<(bool, Network)> {
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
    bar.set_position(u64::from(network.next_history_day(&plan)));
    let progress = bar.clone();
    let (complete, network) = tokio::task::spawn_blocking(move || {
        let (mut total_txs, mut total_x, mut total_evm) = (0u64, 0u64, 0u64);
        let complete = network.generate_history(
            &plan,
            evm_txs_per_day,
            || *stop.borrow(),
            |day: &HistoryDay| {
                total_txs += day.txs;
                total_x += day.x_txs;
                total_evm += day.evm_txs;
                progress.set_position(u64::from(day.day) + 1);
                progress.set_message(format!(
                    "P-Chain height {} · {total_txs} P-Chain txs · {total_x} X-Chain txs · {total_evm} EVM txs",
                    day.height
                ));
                info!(
                    day = day.day,
                    days = day.days,
                    height = day.height,
                    txs = day.txs,
                    skipped = day.skipped,
                    evm_txs = day.evm_txs,
                    evm_skipped = day.evm_skipped,
                    x_txs = day.x_txs,
                    x_skipped = day.x_skipped,
                    "history day generated"
                );
            },
        );
        // Boxed: NodeError is large to move through the join handle.
        complete
            .map(|complete| (complete, network))
            .map_err(anyhow::Error::new)
    })
    .await
    .context("the history generator stopped unexpectedly")?
    .context("couldn't generate history")?;
    bar.finish_and_clear();
    Ok((complete, network))
}
