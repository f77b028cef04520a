//! Generated history across the whole network, and live activity once it serves.
//!
//! [`Network::generate_history`] drives the P-Chain day by day through a [`HistoryPlan`] on the
//! frozen clock ([`firn_devnet::history`]) and, after each of its transfer blocks, the other
//! chains at the same virtual time:
//! - [`EvmHistory`]: deployments, mints, transfers, router calls with internal txs;
//! - [`IcmHistory`]: Teleporter messages between the C-Chain and the L1, both ways, some
//!   failing and retried;
//! - [`ManagerHistory`]: the L1's validator registrations, weight changes and removals through
//!   its validator manager contract;
//! - [`XHistory`]: X-Chain assets of every kind, transfers, mints, AVAX moving to and from the
//!   P-Chain;
//! - [`AtomicHistory`]: AVAX crossing to and from the C-Chain.
//!
//! [`live_activity`] keeps all chains busy once the clock is live.

mod atomic;
mod evm;
pub(crate) mod evm_tx;
mod icm;
mod l1_manager;

use std::sync::Arc;
use std::time::Duration;

use firn_core::keys::bls;
use firn_devnet::history::{HistoryGenerator, HistoryPlan};
use firn_devnet::xchain::history::{XHistory, XReport};
use firn_devnet::{DevnetError, PChain, XChain};
use tokio::sync::watch;
use tracing::{info, warn};

pub use atomic::AtomicHistory;
pub use evm::{EvmHistory, EvmReport};
pub use evm_tx::Contract;
pub use icm::{IcmHistory, REGISTRY_UPGRADE_VERSION, registry_upgrade};
pub use l1_manager::{ManagerHistory, ManagerReport};

use crate::error::NodeError;
use crate::evm_chains::EvmChainsHandle;
use crate::network::Network;

/// What one generated day did, for progress reporting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HistoryDay {
    /// The day just generated (0-based).
    pub day: u32,
    /// Days in the plan.
    pub days: u32,
    /// The P-Chain's height after the day.
    pub height: u64,
    /// P-Chain txs accepted during the day.
    pub txs: u64,
    /// P-Chain txs built but refused (logged, skipped).
    pub skipped: u64,
    /// EVM txs accepted during the day, over every chain.
    pub evm_txs: u64,
    /// EVM txs not sent (they would revert, or the pool refused them).
    pub evm_skipped: u64,
    /// X-Chain txs, and the cross-chain imports and exports on any chain, accepted.
    pub x_txs: u64,
    /// X-Chain history txs refused or not built.
    pub x_skipped: u64,
}

impl Network {
    /// The first day [`Network::generate_history`] would generate: 0 for a new data dir, the
    /// day it stopped at for one whose history was cut off, `plan.days` once done.
    pub fn next_history_day(&self, plan: &HistoryPlan) -> u32 {
        HistoryGenerator::new(self.pchain(), plan.clone()).next_day()
    }

    /// Generates (or resumes) `plan`'s history, blocking: every day of P-Chain activity and,
    /// if the network runs EVM chains, `evm_txs_per_day` EVM txs a day spread over its P-Chain
    /// blocks (two thirds on the C-Chain). Chains the P-Chain creates are opened as it does.
    /// Calls `on_day` after each day; checks `stop` between days and returns `false` if it
    /// said to stop (a later call resumes).
    pub fn generate_history(
        &mut self,
        plan: &HistoryPlan,
        evm_txs_per_day: u32,
        stop: impl Fn() -> bool,
        mut on_day: impl FnMut(&HistoryDay),
    ) -> Result<bool, NodeError> {
        let xchain = self.xchain().clone();
        let (pchain, data_dir, mut evm) = self.parts_mut();
        let activity = EvmHistory::new(pchain, evm_txs_per_day);
        let x_activity = XHistory::new(pchain, &xchain);
        let crossings = AtomicHistory::new(pchain, &xchain);
        let signers = history_signers(pchain, plan).map_err(NodeError::SigningKeys)?;
        let messages = IcmHistory::new(pchain, signers.clone());
        let manager = ManagerHistory::new(pchain, plan, signers).map_err(NodeError::SigningKeys)?;
        let mut generator = HistoryGenerator::new(pchain, plan.clone());
        if evm.is_some() {
            generator = generator.with_manager_on_chain();
        }
        for day in generator.next_day()..plan.days {
            if stop() {
                return Ok(false);
            }
            let mut evm_day = EvmReport::default();
            let mut x_day = XReport::default();
            // P-Chain txs the L1's validator manager needed.
            let (mut manager_p_txs, mut manager_p_skipped) = (0, 0);
            let report = generator.generate_day_with(day, |slot, slots| {
                let x = x_activity
                    .slot(day, slot, slots)
                    .map_err(NodeError::XChainHistory)?;
                x_day.txs += x.txs;
                x_day.skipped += x.skipped;
                let Some(opened) = evm.as_deref_mut() else {
                    return Ok(());
                };
                opened.refresh(pchain, data_dir);
                let r = activity
                    .slot(&opened.all(), day, slot, slots)
                    .map_err(NodeError::EvmHistory)?;
                evm_day.txs += r.txs;
                evm_day.skipped += r.skipped;
                let m = messages
                    .slot(pchain, &opened.all(), day, slot, slots)
                    .map_err(NodeError::EvmHistory)?;
                evm_day.txs += m.txs;
                evm_day.skipped += m.skipped;
                let l1 = manager
                    .slot(pchain, &opened.all(), day, slot, slots)
                    .map_err(NodeError::EvmHistory)?;
                evm_day.txs += l1.evm.txs;
                evm_day.skipped += l1.evm.skipped;
                manager_p_txs += l1.p_txs;
                manager_p_skipped += l1.p_skipped;
                let a = crossings.slot(&opened.c_chain, day, slot, slots)?;
                x_day.txs += a.txs;
                x_day.skipped += a.skipped;
                Ok::<_, NodeError>(())
            })?;
            let generated = HistoryDay {
                day: report.day,
                days: report.days,
                height: report.height,
                txs: report.txs + manager_p_txs,
                skipped: report.skipped + manager_p_skipped,
                evm_txs: evm_day.txs,
                evm_skipped: evm_day.skipped,
                x_txs: x_day.txs,
                x_skipped: x_day.skipped,
            };
            on_day(&generated);
        }
        Ok(true)
    }
}

/// Every validator key history knows: the genesis validators' and those the plan adds.
fn history_signers(
    pchain: &PChain,
    plan: &HistoryPlan,
) -> Result<Vec<Arc<bls::SecretKey>>, DevnetError> {
    let config = pchain.config();
    let mut signers = Vec::new();
    for i in 0..config.initial_validators {
        signers.push(Arc::new(config.validator_bls_key(i)?));
    }
    let added = HistoryGenerator::new(pchain, plan.clone()).signing_keys()?;
    signers.extend(added.into_iter().map(|(_, key)| key));
    Ok(signers)
}

/// Live activity until `stop`: a round of P-Chain transfers, X-Chain activity and a few txs
/// on every EVM chain every `interval`.
pub async fn live_activity(
    chain: Arc<PChain>,
    xchain: Arc<XChain>,
    plan: HistoryPlan,
    evm: Option<Arc<EvmChainsHandle>>,
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
        let xchain = xchain.clone();
        let plan = plan.clone();
        let chains = evm.as_ref().map(|e| e.served()).unwrap_or_default();
        let result = tokio::task::spawn_blocking(move || {
            let report = HistoryGenerator::new(&chain, plan)
                .live_round(round)
                .map_err(NodeError::PChainHistory)?;
            let x = XHistory::new(&chain, &xchain)
                .live_round(round)
                .map_err(NodeError::XChainHistory)?;
            let evm = EvmHistory::new(&chain, 0)
                .live_round(&chains, round)
                .map_err(NodeError::EvmHistory)?;
            let crossings = match chains.first() {
                Some(c) => AtomicHistory::new(&chain, &xchain).live_round(c, round)?,
                None => XReport::default(),
            };
            Ok::<_, NodeError>((report, x, evm, crossings))
        })
        .await;
        match result {
            Ok(Ok((report, x, evm, crossings))) => info!(
                txs = report.txs,
                height = report.height,
                x_txs = x.txs,
                crossing_txs = crossings.txs,
                evm_txs = evm.txs,
                "live activity"
            ),
            Ok(Err(e)) => warn!(error = %e, "live activity failed"),
            Err(e) => warn!(error = %e, "live activity task failed"),
        }
    }
}
