//! P-Chain webhooks: `primary_network_address_activity` (a watched address's balance changed,
//! or it was paid a staking reward) and `validator_activity` (stakes, rewards and L1 validator
//! changes of a watched node or subnet).
//!
//! Matching reads the P-Chain transactions indexed after the webhook's cursor (a P-Chain
//! height), in chain order, and keeps those of the sub-events the webhook asked for. An event
//! carries the transaction as the Data API's `PChainTransaction` shows it, the sub-event and
//! the key that matched; its `messageId` is a digest of the webhook, the transaction and the
//! sub-event.

use firn_core::ids::{Id, NodeId, ShortId};
use firn_store::page::TxCursor;
use firn_store::rows::pchain::PTxRecord;
use firn_store::rows::webhooks::{NewEvent, WebhookRecord};
use firn_store::{PChainReader, PTxFilter, PageRequest, SortOrder, Store, StoreError};
use serde::{Deserialize, Serialize};

use super::canonical;
use crate::config::NetworkProfile;
use crate::wire::pchain::{Ctx, PChainTransaction};

/// `primary_network_address_activity`.
pub const PRIMARY_NETWORK_ADDRESS_ACTIVITY: &str = "primary_network_address_activity";
/// `validator_activity`.
pub const VALIDATOR_ACTIVITY: &str = "validator_activity";

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
    /// The transaction.
    pub transaction: PChainTransaction,
}

/// What a P-Chain webhook watches, parsed from its stored metadata.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Watch {
    pub addresses: Vec<ShortId>,
    pub nodes: Vec<NodeId>,
    pub subnets: Vec<Id>,
    pub sub_events: Vec<String>,
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
        watch
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
            let owned = |a: &ShortId| {
                tx.consumed
                    .iter()
                    .chain(&tx.emitted)
                    .any(|u| u.utxo.addresses.contains(a))
            };
            let rewarded = |a: &ShortId| {
                tx.emitted
                    .iter()
                    .any(|u| u.utxo.reward_type.is_some() && u.utxo.addresses.contains(a))
            };
            for a in &self.addresses {
                let key = || {
                    let bech32 = firn_core::address::bech32_encode(hrp, a).unwrap_or_default();
                    format!("P-{bech32}")
                };
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

/// One step of a P-Chain webhook from height `after` up to `tip`: its events, and the height
/// matched through.
pub(crate) async fn step(
    store: &Store,
    network: &NetworkProfile,
    avax_asset_cb58: &str,
    webhook: &WebhookRecord,
    after: u64,
    tip: u64,
) -> Result<(Vec<NewEvent>, u64), StoreError> {
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
    let ctx = Ctx::new(network, avax_asset_cb58);
    let mut events = Vec::new();
    for tx in txs.items.iter().filter(|t| t.height <= through) {
        let staker = match tx.core.ends_staker {
            Some(staked) if watch.addresses.is_empty() && tx.core.node_id.is_none() => store
                .find_staker(staked)
                .await?
                .map(|s| (s.staker.node_id, s.staker.subnet_id)),
            _ => None,
        };
        for (sub_event, key) in watch.matches(tx, staker, &network.hrp) {
            let message_id = super::payload::message_id(&[
                webhook.id.as_bytes(),
                &tx.core.tx_hash.0,
                sub_event.as_bytes(),
                key.as_bytes(),
            ]);
            let event = PChainWebhookEvent {
                webhook_id: webhook.id.clone(),
                event_type: webhook.event_type.clone(),
                message_id: message_id.clone(),
                event: PChainActivity {
                    sub_event: sub_event.to_owned(),
                    key,
                    transaction: PChainTransaction::from_record(ctx, tx),
                },
            };
            let body = canonical::to_vec(&event).map_err(|e| StoreError::Corrupt {
                column: "webhook event",
                reason: e.to_string(),
            })?;
            events.push(NewEvent { message_id, body });
        }
    }
    Ok((events, through))
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
                node_ids: Vec::new(),
                subnet_ids: Vec::new(),
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
