//! Checking a `primary_network_address_activity` or `validator_activity` create request: its
//! network, chain, keys and sub-events, as the official schemas name them.

use firn_core::ids::{Id, NodeId};
use firn_core::network::P_CHAIN_ID;

use super::pchain::{
    BALANCE_THRESHOLD, L1_BALANCE_THRESHOLD, PChainMetadata, PRIMARY_NETWORK_ADDRESS_ACTIVITY,
};
use super::routes::Target;
use super::thresholds::{AddressThreshold, parse_navax};
use super::wire::CreateWebhookRequest;
use crate::state::AppState;

/// Keys one address-activity webhook may watch.
const MAX_KEYS: usize = 1000;

const ADDRESS_SUB_EVENTS: [&str; 3] = ["balance_change", BALANCE_THRESHOLD, "reward_distribution"];
const VALIDATOR_SUB_EVENTS: [&str; 7] = [
    "validator_stake",
    "delegator_stake",
    "reward_distribution",
    "l1_validator_balance_increased",
    "l1_validator_disabled",
    "l1_validator_removed",
    L1_BALANCE_THRESHOLD,
];

/// The P-Chain webhook `req` asks for; `None` when it is invalid (the problems are in
/// `errors`).
pub(super) fn pchain_target(
    state: &AppState,
    req: &CreateWebhookRequest,
    errors: &mut Vec<String>,
) -> Option<Target> {
    let network = &state.config.network;
    match req.network.as_deref() {
        Some(n) if network.accepts(n) => {}
        Some(n) => errors.push(format!(
            "network {:?} is not the network this server indexes",
            n.chars().take(40).collect::<String>()
        )),
        None => errors.push("network is required (fuji, testnet or mainnet)".to_owned()),
    }
    let address_activity = req.event_type.as_deref() == Some(PRIMARY_NETWORK_ADDRESS_ACTIVITY);
    if address_activity {
        match req.chain_id.as_deref() {
            Some("p-chain") => {}
            Some(c) if c.parse::<Id>().ok() == Some(P_CHAIN_ID) => {}
            Some(_) => errors.push(
                "chainId must be p-chain: this server indexes no X-Chain activity".to_owned(),
            ),
            None => errors.push("chainId is required (p-chain)".to_owned()),
        }
    }
    let raw = req.metadata.clone()?;
    let mut metadata: PChainMetadata = match serde_json::from_value(raw) {
        Ok(m) => m,
        Err(e) => {
            errors.push(format!("metadata: {e}"));
            return None;
        }
    };
    let (subs, allowed): (Option<&Vec<String>>, &[&str]) = if address_activity {
        (
            metadata.sub_events.address_activity_sub_events.as_ref(),
            &ADDRESS_SUB_EVENTS,
        )
    } else {
        (
            metadata.sub_events.validator_activity_sub_events.as_ref(),
            &VALIDATOR_SUB_EVENTS,
        )
    };
    let list = if address_activity {
        "addressActivitySubEvents"
    } else {
        "validatorActivitySubEvents"
    };
    match subs {
        None => errors.push(format!("metadata.subEvents.{list} is required")),
        Some(s) if s.is_empty() => {
            errors.push(format!("metadata.subEvents.{list} must name a sub-event"))
        }
        Some(s) => {
            for e in s {
                if !allowed.contains(&e.as_str()) {
                    errors.push(format!(
                        "metadata.subEvents.{list}: {:?} is not one of {}",
                        e.chars().take(40).collect::<String>(),
                        allowed.join(", ")
                    ));
                }
            }
        }
    }
    check_keys(state, &mut metadata, address_activity, errors);
    check_thresholds(&metadata, address_activity, errors);
    let stored = serde_json::to_string(&metadata).ok()?;
    errors.is_empty().then(|| Target {
        chain_id: "p-chain".to_owned(),
        evm_chain_id: None,
        metadata: stored,
        addresses: Vec::new(),
    })
}

/// Checks (and normalizes) the keys and filters of `metadata`.
fn check_keys(
    state: &AppState,
    metadata: &mut PChainMetadata,
    address_activity: bool,
    errors: &mut Vec<String>,
) {
    let hrp = &state.config.network.hrp;
    let bad = |what: &str, k: &str| {
        format!(
            "metadata.keys: {:?} is not {what}",
            k.chars().take(80).collect::<String>()
        )
    };
    match (address_activity, metadata.key_type.as_str()) {
        (true, "addresses") => {
            if metadata.keys.is_empty() || metadata.keys.len() > MAX_KEYS {
                errors.push(format!("metadata.keys must hold 1 to {MAX_KEYS} addresses"));
            }
            for k in &metadata.keys {
                if crate::params::parse_pchain_address(k, hrp).is_none() {
                    errors.push(bad(
                        &format!("a P-Chain address of this network ({hrp}1…)"),
                        k,
                    ));
                }
            }
        }
        (false, kind @ ("nodeId" | "subnetId")) => {
            if metadata.keys.len() != 1 {
                errors.push("metadata.keys must hold exactly one key".to_owned());
            }
            for k in &metadata.keys {
                let ok = if kind == "nodeId" {
                    k.parse::<NodeId>().is_ok()
                } else {
                    k.parse::<Id>().is_ok()
                };
                if !ok {
                    errors.push(bad(&format!("a {kind}"), k));
                }
            }
        }
        (true, _) => errors.push("metadata.keyType must be addresses".to_owned()),
        (false, _) => errors.push("metadata.keyType must be nodeId or subnetId".to_owned()),
    }
    for n in &metadata.node_ids {
        if n.parse::<NodeId>().is_err() {
            errors.push(format!(
                "metadata.nodeIds: {:?} is not a node ID",
                n.chars().take(80).collect::<String>()
            ));
        }
    }
    for s in &metadata.subnet_ids {
        if s.parse::<Id>().is_err() {
            errors.push(format!(
                "metadata.subnetIds: {:?} is not a subnet ID",
                s.chars().take(80).collect::<String>()
            ));
        }
    }
    if metadata.node_ids.len() + metadata.subnet_ids.len() > MAX_KEYS {
        errors.push(format!(
            "metadata.nodeIds and subnetIds hold at most {MAX_KEYS} IDs"
        ));
    }
}

/// Checks that a threshold sub-event comes with its threshold, and a threshold with its
/// sub-event.
fn check_thresholds(metadata: &PChainMetadata, address_activity: bool, errors: &mut Vec<String>) {
    let subs = &metadata.sub_events;
    let asked = |e: &str| {
        subs.address_activity_sub_events
            .iter()
            .chain(&subs.validator_activity_sub_events)
            .flatten()
            .any(|s| s == e)
    };
    let filter = &metadata.balance_threshold_filter;
    let l1 = &metadata.l1_validator_fee_balance_threshold;
    if address_activity {
        match filter {
            Some(f) => {
                if let Err(e) = AddressThreshold::parse(f) {
                    errors.push(e);
                }
                if !asked(BALANCE_THRESHOLD) {
                    errors.push(format!(
                        "metadata.balanceThresholdFilter needs the {BALANCE_THRESHOLD} sub-event"
                    ));
                }
            }
            None if asked(BALANCE_THRESHOLD) => errors.push(format!(
                "the {BALANCE_THRESHOLD} sub-event needs metadata.balanceThresholdFilter \
                 (balanceType and balanceThreshold in nAVAX)"
            )),
            None => {}
        }
        if l1.is_some() {
            errors.push(
                "metadata.l1ValidatorFeeBalanceThreshold belongs to validator_activity".to_owned(),
            );
        }
        return;
    }
    match l1 {
        Some(t) => {
            if let Err(e) = parse_navax(t) {
                errors.push(format!("metadata.l1ValidatorFeeBalanceThreshold {e}"));
            }
            if !asked(L1_BALANCE_THRESHOLD) {
                errors.push(format!(
                    "metadata.l1ValidatorFeeBalanceThreshold needs the {L1_BALANCE_THRESHOLD} \
                     sub-event"
                ));
            }
        }
        None if asked(L1_BALANCE_THRESHOLD) => errors.push(format!(
            "the {L1_BALANCE_THRESHOLD} sub-event needs metadata.l1ValidatorFeeBalanceThreshold \
             (nAVAX)"
        )),
        None => {}
    }
    if filter.is_some() {
        errors.push(
            "metadata.balanceThresholdFilter belongs to primary_network_address_activity"
                .to_owned(),
        );
    }
}
