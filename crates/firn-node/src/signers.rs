//! The devnet's validators as Warp signers, for `firn up`'s aggregator and for the node's
//! `firn.requestWarpSignature`: the genesis validators' keys, the keys of the validators
//! generated history added (primary network and the L1), and the signing rules of every EVM
//! chain as it boots (the C-Chain signed by the primary network, each subnet-EVM L1 by its
//! own validators, under [`EvmRules`]), with the off-chain messages each chain signs: the
//! node config's, and, for a node whose history is known, the registry upgrade history makes.

use std::sync::Arc;

use firn_core::calendar::DAY;
use firn_core::ids::Id;
use firn_devnet::PChain;
use firn_devnet::history::{HistoryGenerator, HistoryPlan};
use firn_devnet::signers::DevnetSigners;
use firn_evm::EvmChain;

use crate::error::NodeError;
use crate::evm_chains::EvmChainsHandle;
use crate::evm_rules::{EvmRules, OffChainMessages};
use crate::history::registry_upgrade;

/// A plan whose validators' keys cover any history `chain` can hold: one day for every day
/// since its genesis. For a data dir whose plan is not known (`firn devnet` over a dir `firn
/// up` made): keys of validators that never existed do no harm.
pub fn plan_covering(chain: &PChain) -> HistoryPlan {
    let age = chain
        .clock()
        .now()
        .saturating_sub(chain.config().genesis_time);
    HistoryPlan {
        days: u32::try_from(age / DAY + 1).unwrap_or(u32::MAX),
        ..HistoryPlan::default()
    }
}

/// Lets `signers` sign what the EVM chain `chain` vouches for ([`EvmRules`]) and the
/// off-chain messages `off_chain`, under its blockchain ID. Its signing subnet is the subnet
/// validating it on the P-Chain.
pub fn register_evm_chain(signers: &DevnetSigners, chain: Arc<EvmChain>, off_chain: Vec<Id>) {
    let rules = EvmRules::new(chain, signers.chain().clone()).with_off_chain(off_chain);
    signers.register_chain(rules.chain_id(), Arc::new(rules));
}

/// Signers for `chain` holding the genesis validators' keys and, if its history followed
/// `plan`, those of the validators the history added; signing for the chains of `evm` (if
/// the network runs EVM chains) what they vouch for and `off_chain`, and with a plan, the
/// history's registry upgrade of each.
pub fn devnet_signers(
    chain: &Arc<PChain>,
    plan: Option<&HistoryPlan>,
    evm: Option<&EvmChainsHandle>,
    off_chain: OffChainMessages,
) -> Result<Arc<DevnetSigners>, NodeError> {
    let signers = Arc::new(DevnetSigners::new(chain.clone()).map_err(NodeError::SigningKeys)?);
    if let Some(plan) = plan {
        let history_keys = HistoryGenerator::new(chain, plan.clone())
            .signing_keys()
            .map_err(NodeError::SigningKeys)?;
        for (node_id, key) in history_keys {
            signers.add_key(node_id, key);
        }
    }
    if let Some(evm) = evm {
        let registrar = signers.clone();
        let network_id = chain.network().network_id;
        let history = plan.is_some();
        evm.on_boot(Arc::new(move |evm_chain| {
            let chain_id = Id(evm_chain.blockchain_id().0);
            let mut listed = off_chain.of_chain(chain_id);
            if history {
                listed.push(registry_upgrade(network_id, chain_id).id());
            }
            register_evm_chain(&registrar, evm_chain.clone(), listed);
        }));
    }
    Ok(signers)
}
