//! The devnet's validators as Warp signers, for `firn up`'s aggregator and for `firn devnet`'s
//! `firn.requestWarpSignature`: the genesis validators' keys, the keys of the validators
//! generated history added (primary network and the L1), and the signing rules of every EVM
//! chain as it boots (the C-Chain signed by the primary network, each subnet-EVM L1 by its
//! own validators).

use std::sync::Arc;

use anyhow::Context;
use firn_devnet::PChain;
use firn_devnet::history::{HistoryGenerator, HistoryPlan};
use firn_devnet::signers::DevnetSigners;

use crate::cmd::evm::EvmChainsHandle;

/// A plan whose validators' keys cover any history `chain` can hold: one day for every day
/// since its genesis. For a data dir whose plan is not known (`firn devnet` over a dir `firn
/// up` made): keys of validators that never existed do no harm.
pub fn plan_covering(chain: &PChain) -> HistoryPlan {
    const DAY: u64 = 24 * 3600;
    let age = chain
        .clock()
        .now()
        .saturating_sub(chain.config().genesis_time);
    HistoryPlan {
        days: u32::try_from(age / DAY + 1).unwrap_or(u32::MAX),
        ..HistoryPlan::default()
    }
}

/// Signers for `chain`, whose history followed `plan`, signing for the chains of `evm`.
pub fn devnet_signers(
    chain: &Arc<PChain>,
    plan: &HistoryPlan,
    evm: &EvmChainsHandle,
) -> anyhow::Result<Arc<DevnetSigners>> {
    let signers = Arc::new(
        DevnetSigners::new(chain.clone()).context("couldn't load the validators' signing keys")?,
    );
    let history_keys = HistoryGenerator::new(chain, plan.clone())
        .signing_keys()
        .context("couldn't derive the history validators' signing keys")?;
    for (node_id, key) in history_keys {
        signers.add_key(node_id, key);
    }
    let registrar = signers.clone();
    evm.on_boot(Arc::new(move |evm_chain| {
        registrar.register_evm_chain(evm_chain.clone());
    }));
    Ok(signers)
}
