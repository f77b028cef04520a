//! P-Chain webhooks: `primary_network_address_activity` (a watched address's balance changed,
//! or it was paid a staking reward) and `validator_activity` (stakes, rewards and L1 validator
//! changes of a watched node or subnet).
//!
//! Matching reads the P-Chain transactions indexed after the webhook's cursor (a P-Chain
//! height), in chain order, and keeps those of the sub-events the webhook asked for. An event
//! carries the transaction as the Data API's `PChainTransaction` shows it, the sub-event and
//! the key that matched; its `messageId` is a digest of the webhook, the transaction and the
//! sub-event. The threshold sub-events ([`super::thresholds`]) judge balances instead: an
//! address's after its transactions, an L1 validator's at the indexed tip.

use std::collections::{BTreeSet, HashMap};

use firn_core::ids::{Id, NodeId, ShortId};
use firn_core::network::P_CHAIN_ID;
use firn_store::page::TxCursor;
use firn_store::rows::pchain::PTxRecord;
use firn_store::rows::webhooks::{NewEvent, WebhookRecord};
use firn_store::{
    AtomicMemoryReader, L1ValidatorFilter, PChainReader, PTxFilter, PageRequest, SortOrder, Store,
    StoreError,
};
use serde::{Deserialize, Serialize};

use super::canonical;
use super::thresholds::{
    self, AddressThreshold, BalanceThresholdFilter, Below, Holding, L1_PREFIX, ThresholdCrossing,
};
use crate::config::NetworkProfile;
use crate::wire::pchain::{Ctx, L1ValidatorDetailsFull, PChainTransaction};

/// `primary_network_address_activity`.
pub const PRIMARY_NETWORK_ADDRESS_ACTIVITY: &str = "primary_network_address_activity";
/// `validator_activity`.
pub const VALIDATOR_ACTIVITY: &str = "validator_activity";
/// The sub-event of an address whose balance fell below its threshold.
pub const BALANCE_THRESHOLD: &str = "balance_threshold";
/// The sub-event of an L1 validator whose fee balance fell below its threshold.
pub const L1_BALANCE_THRESHOLD: &str = "l1_validator_balance_threshold";

/// Transactions one matching step reads at most.
pub(crate) const MAX_TXS_PER_STEP: u32 = 1000;

/// The body of one P-Chain delivery.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PChainWebhookEvent {
    /// The webhook.
    pub webhook_id: String,
    /// `primary_network_address_activity` or `validator_activity`.
    pub event_type: String,
    /// Receivers de-duplicate on it.
    pub message_id: String,
    /// What happened.
    pub event: PChainActivity,
}

/// A P-Chain transaction a webhook matched.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PChainActivity {
    /// The sub-event (`balance_change`, `validator_stake`, …).
    pub sub_event: String,
    /// The watched key it concerns (an address, node ID or subnet ID).
    pub key: String,
    /// The transaction (every sub-event but `l1_validator_balance_threshold`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transaction: Option<PChainTransaction>,
    /// The L1 validator whose balance fell below the threshold
    /// (`l1_validator_balance_threshold`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub l1_validator: Option<L1ValidatorDetailsFull>,
    /// The threshold crossed and the balance now (the threshold sub-events).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub threshold: Option<ThresholdCrossing>,
}

/// What a P-Chain webhook watches, parsed from its stored metadata.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Watch {
    pub addresses: Vec<ShortId>,
    pub nodes: Vec<NodeId>,
    pub subnets: Vec<Id>,
    pub sub_events: Vec<String>,
    /// `balance_threshold`'s filter, when asked for.
    pub address_threshold: Option<AddressThreshold>,
    /// `l1_validator_balance_threshold`'s threshold (nAVAX), when asked for.
    pub l1_threshold: Option<u64>,
}

/// The stored metadata of a P-Chain webhook (the request's, normalized).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PChainMetadata {
    /// `addresses`, `nodeId` or `subnetId`.
    pub key_type: String,
    /// The watched keys.
    pub keys: Vec<String>,
    /// The sub-events asked for.
    pub sub_events: SubEvents,
    /// Validator activity: only these nodes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub node_ids: Vec<String>,
    /// Validator activity: only these subnets.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub subnet_ids: Vec<String>,
    /// Address activity: the `balance_threshold` sub-event's balance and threshold.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub balance_threshold_filter: Option<BalanceThresholdFilter>,
    /// Validator activity: the `l1_validator_balance_threshold` sub-event's threshold, nAVAX.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub l1_validator_fee_balance_threshold: Option<String>,
}

/// `subEvents`: one of the two lists, by event type.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubEvents {
    /// Address activity's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub address_activity_sub_events: Option<Vec<String>>,
    /// Validator activity's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub validator_activity_sub_events: Option<Vec<String>>,
}

impl Watch {
    /// The watch of `metadata` on a network with address prefix `hrp`; keys that do not parse
    /// were refused when the webhook was made, so they are skipped here.
    pub(crate) fn of(metadata: &PChainMetadata, hrp: &str) -> Self {
        let mut watch = Watch::default();
        let subnet = |s: &String| s.parse::<Id>().ok();
        let node = |s: &String| s.parse::<NodeId>().ok();
        match metadata.key_type.as_str() {
            "addresses" => {
                watch.addresses = metadata
                    .keys
                    .iter()
                    .filter_map(|k| crate::params::parse_pchain_address(k, hrp))
                    .collect();
            }
            "nodeId" => watch.nodes = metadata.keys.iter().filter_map(node).collect(),
            "subnetId" => watch.subnets = metadata.keys.iter().filter_map(subnet).collect(),
            _ => {}
        }
        watch
            .nodes
            .extend(metadata.node_ids.iter().filter_map(node));
        watch
            .subnets
            .extend(metadata.subnet_ids.iter().filter_map(subnet));
        let subs = &metadata.sub_events;
        watch.sub_events = subs
            .address_activity_sub_events
            .iter()
            .chain(subs.validator_activity_sub_events.iter())
            .flatten()
            .cloned()
            .collect();
        let wants = |e: &str| watch.sub_events.iter().any(|s| s == e);
        let (address_threshold, l1_threshold) =
            (wants(BALANCE_THRESHOLD), wants(L1_BALANCE_THRESHOLD));
        if address_threshold {
            watch.address_threshold = metadata
                .balance_threshold_filter
                .as_ref()
                .and_then(|f| AddressThreshold::parse(f).ok());
        }
        if l1_threshold {
            watch.l1_threshold = metadata
                .l1_validator_fee_balance_threshold
                .as_deref()
                .and_then(|t| thresholds::parse_navax(t).ok());
        }
        watch
    }

    /// The watched addresses that own an output `tx` spends or makes.
    fn touched(&self, tx: &PTxRecord) -> Vec<ShortId> {
        self.addresses
            .iter()
            .filter(|a| {
                tx.consumed
                    .iter()
                    .chain(&tx.emitted)
                    .any(|u| u.utxo.addresses.contains(a))
            })
            .copied()
            .collect()
    }

    /// The sub-events of `tx` this watch asked for, each with the key it concerns. `staker`
    /// is the node and subnet of the stake a `RewardValidatorTx` ends (the transaction names
    /// only the staking transaction).
    fn matches(
        &self,
        tx: &PTxRecord,
        staker: Option<(NodeId, Id)>,
        hrp: &str,
    ) -> Vec<(&'static str, String)> {
        let core = &tx.core;
        let mut out = Vec::new();
        let wants = |e: &str| self.sub_events.iter().any(|s| s == e);
        if !self.addresses.is_empty() {
            let touched = self.touched(tx);
            let owned = |a: &ShortId| touched.contains(a);
            let rewarded = |a: &ShortId| {
                tx.emitted
                    .iter()
                    .any(|u| u.utxo.reward_type.is_some() && u.utxo.addresses.contains(a))
            };
            for a in &self.addresses {
                let key = || address_key(hrp, a);
                if wants("balance_change") && owned(a) {
                    out.push(("balance_change", key()));
                }
                if wants("reward_distribution") && rewarded(a) {
                    out.push(("reward_distribution", key()));
                }
            }
            return out;
        }
        let node_id = core.node_id.or(staker.map(|s| s.0));
        let subnet_id = core.subnet_id.or(staker.map(|s| s.1));
        let node_ok = self.nodes.is_empty() || node_id.is_some_and(|n| self.nodes.contains(&n));
        let subnet_ok =
            self.subnets.is_empty() || subnet_id.is_some_and(|s| self.subnets.contains(&s));
        if !node_ok || !subnet_ok || (node_id.is_none() && subnet_id.is_none()) {
            return out;
        }
        let sub_event = match core.tx_type.as_str() {
            "AddValidatorTx" | "AddPermissionlessValidatorTx" | "AddSubnetValidatorTx" => {
                "validator_stake"
            }
            "AddDelegatorTx" | "AddPermissionlessDelegatorTx" => "delegator_stake",
            "RewardValidatorTx" => "reward_distribution",
            "IncreaseL1ValidatorBalanceTx" => "l1_validator_balance_increased",
            "DisableL1ValidatorTx" => "l1_validator_disabled",
            "SetL1ValidatorWeightTx" if weight_zero(tx) => "l1_validator_removed",
            _ => return out,
        };
        if wants(sub_event) {
            let key = match (self.nodes.is_empty(), node_id, subnet_id) {
                (false, Some(n), _) => n.to_string(),
                (_, _, Some(s)) => s.to_string(),
                (_, Some(n), None) => n.to_string(),
                (_, None, None) => String::new(),
            };
            out.push((sub_event, key));
        }
        out
    }
}

/// Whether a `SetL1ValidatorWeightTx` set the weight to zero (removing the validator).
fn weight_zero(tx: &PTxRecord) -> bool {
    tx.core
        .details
        .l1_validator_details
        .iter()
        .any(|d| d.weight == 0)
}

/// What one matching step found (P-Chain here; EVM steps fill it too).
#[derive(Debug, Clone, Default)]
pub(crate) struct StepOutcome {
    /// The events, in chain order.
    pub events: Vec<NewEvent>,
    /// The height matched through.
    pub through: u64,
    /// The match state to store with the cursor (`None`: the webhook keeps none).
    pub state: Option<String>,
}

/// One step of a P-Chain webhook from height `after` up to `tip`, from match state `state`.
pub(crate) async fn step(
    store: &Store,
    network: &NetworkProfile,
    avax_asset_cb58: &str,
    webhook: &WebhookRecord,
    (after, tip): (u64, u64),
    state: Option<&str>,
) -> Result<StepOutcome, StoreError> {
    let metadata: PChainMetadata = serde_json::from_str(&webhook.metadata).unwrap_or_default();
    let watch = Watch::of(&metadata, &network.hrp);
    let page = PageRequest {
        limit: MAX_TXS_PER_STEP,
        after: Some(TxCursor {
            height: after,
            index: u32::MAX,
        }),
    };
    let txs = store
        .list_pchain_txs(&PTxFilter::default(), SortOrder::Asc, &page)
        .await?;
    let mut through = tip;
    if txs.next.is_some() {
        // A full page: the last height may continue on the next one.
        if let Some(last) = txs.items.last() {
            through = through.min(last.height.saturating_sub(1)).max(after);
            if through == after {
                through = last.height;
            }
        }
    }
    let txs: Vec<&PTxRecord> = txs.items.iter().filter(|t| t.height <= through).collect();
    let ctx = Ctx::new(network, avax_asset_cb58);
    let mut below = Below::parse(state);
    let mut events = Vec::new();
    // An address's balance is judged after its last transaction of each second.
    let mut last_of_second: HashMap<(ShortId, u64), usize> = HashMap::new();
    if watch.address_threshold.is_some() {
        for (i, tx) in txs.iter().enumerate() {
            for a in watch.touched(tx) {
                last_of_second.insert((a, tx.timestamp), i);
            }
        }
    }
    for (i, tx) in txs.iter().enumerate() {
        let staker = match tx.core.ends_staker {
            Some(staked) if watch.addresses.is_empty() && tx.core.node_id.is_none() => store
                .find_staker(staked)
                .await?
                .map(|s| (s.staker.node_id, s.staker.subnet_id)),
            _ => None,
        };
        for (sub_event, key) in watch.matches(tx, staker, &network.hrp) {
            let id = [&tx.core.tx_hash.0[..], sub_event.as_bytes(), key.as_bytes()];
            let activity = PChainActivity {
                sub_event: sub_event.to_owned(),
                key: key.clone(),
                transaction: Some(PChainTransaction::from_record(ctx, tx)),
                l1_validator: None,
                threshold: None,
            };
            events.push(event(webhook, &id, activity)?);
        }
        let Some(limit) = watch.address_threshold else {
            continue;
        };
        for a in watch.touched(tx) {
            if last_of_second.get(&(a, tx.timestamp)) != Some(&i) {
                continue;
            }
            let key = address_key(&network.hrp, &a);
            if let Holding::AtomicMemory { .. } = limit.holding {
                // Other chains' exports raise it without a P-Chain tx: judge (silently) what
                // it was just before this second, so a rise since is not missed.
                let before =
                    address_balance(store, network, limit, a, tx.timestamp.saturating_sub(1))
                        .await?;
                below.judge(&key, before, limit.threshold);
            }
            let balance = address_balance(store, network, limit, a, tx.timestamp).await?;
            if !below.judge(&key, balance, limit.threshold) {
                continue;
            }
            let id = [
                &tx.core.tx_hash.0[..],
                BALANCE_THRESHOLD.as_bytes(),
                key.as_bytes(),
            ];
            let activity = PChainActivity {
                sub_event: BALANCE_THRESHOLD.to_owned(),
                key: key.clone(),
                transaction: Some(PChainTransaction::from_record(ctx, tx)),
                l1_validator: None,
                threshold: Some(ThresholdCrossing {
                    balance_type: metadata
                        .balance_threshold_filter
                        .as_ref()
                        .map(|f| f.balance_type.clone()),
                    balance_threshold: limit.threshold.to_string(),
                    balance: balance.to_string(),
                }),
            };
            events.push(event(webhook, &id, activity)?);
        }
    }
    if let Some(threshold) = watch.l1_threshold
        && through == tip
    {
        let found = l1_thresholds(store, ctx, &watch, threshold, &mut below).await?;
        for (id, activity) in found {
            let parts = [id.as_bytes(), &through.to_le_bytes()[..]];
            events.push(event(webhook, &parts, activity)?);
        }
    }
    let keeps_state = watch.address_threshold.is_some() || watch.l1_threshold.is_some();
    Ok(StepOutcome {
        events,
        through,
        state: keeps_state.then(|| below.to_state()),
    })
}

/// L1 validators one webhook's threshold judges at most.
const MAX_L1_WATCHED: usize = 10_000;

/// Judges the active L1 validators of the watched nodes or subnets against `threshold`, at
/// the indexed tip: the validators that just crossed below it, each with its key in
/// [`Below`] and its event.
async fn l1_thresholds(
    store: &Store,
    ctx: Ctx<'_>,
    watch: &Watch,
    threshold: u64,
    below: &mut Below,
) -> Result<Vec<(String, PChainActivity)>, StoreError> {
    let filters: Vec<L1ValidatorFilter> = if watch.nodes.is_empty() {
        let by_subnet = |s: &Id| L1ValidatorFilter {
            subnet_id: Some(*s),
            ..L1ValidatorFilter::default()
        };
        watch.subnets.iter().map(by_subnet).collect()
    } else {
        let by_node = |n: &NodeId| L1ValidatorFilter {
            node_id: Some(*n),
            ..L1ValidatorFilter::default()
        };
        watch.nodes.iter().map(by_node).collect()
    };
    let mut validators = Vec::new();
    'filters: for filter in &filters {
        let mut after = None;
        loop {
            let page = PageRequest { limit: 500, after };
            let page = store
                .list_l1_validators(filter, SortOrder::Asc, &page)
                .await?;
            for v in page.items {
                if validators.len() >= MAX_L1_WATCHED {
                    break 'filters;
                }
                let subnet = v.validator.subnet_id;
                if watch.subnets.is_empty() || watch.subnets.contains(&subnet) {
                    validators.push(v);
                }
            }
            match page.next {
                Some(next) => after = Some(next),
                None => break,
            }
        }
    }
    let ids: Vec<Id> = validators
        .iter()
        .map(|v| v.validator.validation_id)
        .collect();
    let (seen, _) = crate::routes::l1_validators::remaining_balances(store, &ids).await?;
    let mut live = BTreeSet::new();
    let mut crossed = Vec::new();
    for v in &validators {
        let id = v.validator.validation_id;
        let details = L1ValidatorDetailsFull::from_record(ctx, v, seen.get(&id));
        let key = format!("{L1_PREFIX}{id}");
        live.insert(key.clone());
        let balance = details.validation.remaining_balance;
        if !below.judge(&key, u128::from(balance), threshold) {
            continue;
        }
        let watched = if watch.nodes.is_empty() {
            v.validator.subnet_id.to_string()
        } else {
            v.validator.node_id.to_string()
        };
        let activity = PChainActivity {
            sub_event: L1_BALANCE_THRESHOLD.to_owned(),
            key: watched,
            transaction: None,
            l1_validator: Some(details),
            threshold: Some(ThresholdCrossing {
                balance_type: None,
                balance_threshold: threshold.to_string(),
                balance: balance.to_string(),
            }),
        };
        crossed.push((key, activity));
    }
    below.keep_l1(&live);
    Ok(crossed)
}

/// An event of `webhook` whose `messageId` digests the webhook and `parts`.
fn event(
    webhook: &WebhookRecord,
    parts: &[&[u8]],
    activity: PChainActivity,
) -> Result<NewEvent, StoreError> {
    let mut all = vec![webhook.id.as_bytes()];
    all.extend_from_slice(parts);
    let message_id = super::payload::message_id(&all);
    let event = PChainWebhookEvent {
        webhook_id: webhook.id.clone(),
        event_type: webhook.event_type.clone(),
        message_id: message_id.clone(),
        event: activity,
    };
    let body = canonical::to_vec(&event).map_err(|e| StoreError::Corrupt {
        column: "webhook event",
        reason: e.to_string(),
    })?;
    Ok(NewEvent { message_id, body })
}

/// `a`'s AVAX in the threshold's holding at time `at`, as far as the chains are indexed.
async fn address_balance(
    store: &Store,
    network: &NetworkProfile,
    limit: AddressThreshold,
    a: ShortId,
    at: u64,
) -> Result<u128, StoreError> {
    let avax = network.avax_asset_id;
    Ok(match limit.holding {
        Holding::Utxos(_) => limit.balance(&store.list_balances(&[a], at).await?, avax),
        Holding::AtomicMemory { .. } => {
            let held = store
                .list_atomic_balances(P_CHAIN_ID, &[a], Some(at), at)
                .await?;
            limit.balance_in_memory(&held, avax)
        }
    })
}

/// How an event names a watched address: `P-` and its bech32.
fn address_key(hrp: &str, a: &ShortId) -> String {
    let bech32 = firn_core::address::bech32_encode(hrp, a).unwrap_or_default();
    format!("P-{bech32}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use firn_store::rows::pchain::{PTxCore, PTxDetails};

    fn tx(tx_type: &str, node: Option<NodeId>, subnet: Option<Id>) -> PTxRecord {
        PTxRecord {
            height: 1,
            tx_index: 0,
            block_hash: Id([0; 32]),
            timestamp: 0,
            core: PTxCore {
                tx_hash: Id([1; 32]),
                tx_type: tx_type.to_owned(),
                memo: Vec::new(),
                source_chain: None,
                destination_chain: None,
                value: Vec::new(),
                amount_burned: Vec::new(),
                amount_staked: Vec::new(),
                amount_l1_balance_burned: Vec::new(),
                node_id: node,
                subnet_id: subnet,
                start_ts: None,
                end_ts: None,
                ends_staker: None,
                details: PTxDetails::default(),
            },
            consumed: Vec::new(),
            emitted: Vec::new(),
        }
    }

    fn watch(key_type: &str, key: String, subs: &[&str]) -> Watch {
        Watch::of(
            &PChainMetadata {
                key_type: key_type.to_owned(),
                keys: vec![key],
                sub_events: SubEvents {
                    address_activity_sub_events: None,
                    validator_activity_sub_events: Some(
                        subs.iter().map(|s| (*s).to_owned()).collect(),
                    ),
                },
                ..PChainMetadata::default()
            },
            "fuji",
        )
    }

    #[test]
    fn validator_activity_matches_its_node_and_sub_events() {
        let (node, other) = (NodeId([7; 20]), NodeId([8; 20]));
        let subnet = Id([9; 32]);
        let w = watch(
            "nodeId",
            node.to_string(),
            &["validator_stake", "reward_distribution"],
        );
        let stake = tx("AddPermissionlessValidatorTx", Some(node), Some(subnet));
        assert_eq!(
            w.matches(&stake, None, "fuji"),
            [("validator_stake", node.to_string())]
        );
        let delegation = tx("AddPermissionlessDelegatorTx", Some(node), Some(subnet));
        assert!(
            w.matches(&delegation, None, "fuji").is_empty(),
            "not asked for"
        );
        let elsewhere = tx("AddPermissionlessValidatorTx", Some(other), Some(subnet));
        assert!(
            w.matches(&elsewhere, None, "fuji").is_empty(),
            "another node"
        );
        // A reward names only the stake it ends: the stake's node decides.
        let reward = tx("RewardValidatorTx", None, None);
        assert_eq!(
            w.matches(&reward, Some((node, subnet)), "fuji"),
            [("reward_distribution", node.to_string())]
        );
        assert!(w.matches(&reward, Some((other, subnet)), "fuji").is_empty());
        assert!(w.matches(&reward, None, "fuji").is_empty());
    }

    #[test]
    fn validator_activity_by_subnet_sees_l1_changes() {
        let subnet = Id([9; 32]);
        let w = watch(
            "subnetId",
            subnet.to_string(),
            &["l1_validator_balance_increased", "l1_validator_disabled"],
        );
        let node = Some(NodeId([1; 20]));
        for (t, want) in [
            (
                "IncreaseL1ValidatorBalanceTx",
                Some("l1_validator_balance_increased"),
            ),
            ("DisableL1ValidatorTx", Some("l1_validator_disabled")),
            ("RegisterL1ValidatorTx", None),
            ("BaseTx", None),
        ] {
            let got = w.matches(&tx(t, node, Some(subnet)), None, "fuji");
            assert_eq!(got.first().map(|m| m.0), want, "{t}");
            if want.is_some() {
                assert_eq!(got[0].1, subnet.to_string());
            }
        }
        assert!(
            w.matches(
                &tx("DisableL1ValidatorTx", node, Some(Id([2; 32]))),
                None,
                "fuji"
            )
            .is_empty()
        );
    }
}
