//! The JSON records several methods share: owners, the three `getCurrentValidators` shapes,
//! UTXO bytes.

use firn_core::codec::{Encode, Writer};
use firn_core::ids::ShortId;
use firn_core::pchain::fx::OutputOwners;
use firn_core::pchain::fx::Signer;
use firn_core::pchain::tx::UnsignedTx;
use firn_core::warp::messages::PChainOwner;
use firn_devnet::state::{Staker, Utxo};
use firn_devnet::vm::{L1ValidatorInfo, ValidatorInfo};
use serde_json::{Value, json};

use super::Node;
use crate::avajson::format_f32_4dp;

/// `{"locktime":"0","threshold":"1","addresses":["P-…"]}` (platformapi.Owner).
pub(super) fn owner(node: &Node, o: &OutputOwners) -> Value {
    json!({
        "locktime": o.locktime.to_string(),
        "threshold": o.threshold.to_string(),
        "addresses": addresses(node, &o.addresses),
    })
}

/// A PChainOwner as platformapi.Owner: its locktime is always `"0"`.
pub(super) fn pchain_owner(node: &Node, o: &PChainOwner) -> Value {
    json!({
        "locktime": "0",
        "threshold": o.threshold.to_string(),
        "addresses": addresses(node, &o.addresses),
    })
}

fn addresses(node: &Node, ids: &[ShortId]) -> Vec<String> {
    ids.iter().map(|a| node.address(a)).collect()
}

/// `0x`-hex without checksum (`types.JSONByteSlice`, BLS keys).
pub(super) fn hex0x(bytes: &[u8]) -> String {
    format!("0x{}", hex::encode(bytes))
}

/// The proof of possession a validator's tx registered, if it had a signer.
fn signer_of(node: &Node, s: &Staker) -> Option<Value> {
    let info = node.chain.tx(&s.tx_id)?;
    match info.tx.unsigned() {
        UnsignedTx::AddPermissionlessValidator(t) => match &t.signer {
            Signer::ProofOfPossession(p) => Some(json!({
                "publicKey": hex0x(&p.public_key),
                "proofOfPossession": hex0x(&p.proof_of_possession),
            })),
            Signer::Empty => None,
        },
        _ => s.public_key.map(|pk| json!({ "publicKey": hex0x(&pk) })),
    }
}

/// Shape 1: a primary network validator; `with_delegators` when exactly one node was asked for.
pub(super) fn primary_validator(node: &Node, v: &ValidatorInfo, with_delegators: bool) -> Value {
    let s = &v.validator;
    let delegator_weight: u64 = v.delegators.iter().map(|d| d.weight).sum();
    let mut out = json!({
        "txID": s.tx_id,
        "startTime": s.start_time.to_string(),
        "endTime": s.end_time.to_string(),
        "weight": s.weight.to_string(),
        "nodeID": s.node_id,
        "validationRewardOwner": owner(node, &s.reward_owner),
        "delegationRewardOwner": owner(node, &s.delegation_reward_owner),
        "potentialReward": s.potential_reward.to_string(),
        "accruedDelegateeReward": s.delegatee_reward.to_string(),
        "delegationFee": format_f32_4dp(s.delegation_fee as f32 / 10_000.0),
        "uptime": format_f32_4dp(uptime(node, s)),
        "connected": !is_offline(node, s),
    });
    if let (Some(signer), Some(map)) = (signer_of(node, s), out.as_object_mut()) {
        map.insert("signer".into(), signer);
    }
    if let Some(map) = out.as_object_mut() {
        map.insert(
            "delegatorCount".into(),
            v.delegators.len().to_string().into(),
        );
        map.insert(
            "delegatorWeight".into(),
            delegator_weight.to_string().into(),
        );
        if with_delegators {
            let ds: Vec<Value> = v.delegators.iter().map(|d| delegator(node, d)).collect();
            map.insert("delegators".into(), Value::Array(ds));
        }
    }
    out
}

fn is_offline(node: &Node, s: &Staker) -> bool {
    node.chain.config().offline_validators.contains(&s.node_id)
}

fn uptime(node: &Node, s: &Staker) -> f32 {
    if is_offline(node, s) { 0.0 } else { 100.0 }
}

/// A delegator record inside shape 1.
fn delegator(node: &Node, d: &Staker) -> Value {
    json!({
        "txID": d.tx_id,
        "startTime": d.start_time.to_string(),
        "endTime": d.end_time.to_string(),
        "weight": d.weight.to_string(),
        "nodeID": d.node_id,
        "rewardOwner": owner(node, &d.reward_owner),
        "potentialReward": d.potential_reward.to_string(),
    })
}

/// Shape 2: a permissioned subnet validator.
pub(super) fn subnet_validator(s: &Staker) -> Value {
    json!({
        "txID": s.tx_id,
        "startTime": s.start_time.to_string(),
        "endTime": s.end_time.to_string(),
        "weight": s.weight.to_string(),
        "nodeID": s.node_id,
    })
}

/// Shape 3: an L1 validator (platformapi.APIL1Validator).
pub(super) fn l1_validator(node: &Node, v: &L1ValidatorInfo) -> Value {
    let l = &v.validator;
    json!({
        "nodeID": l.node_id,
        "weight": l.weight.to_string(),
        "startTime": l.start_time.to_string(),
        "validationID": l.validation_id,
        "publicKey": hex0x(&l.public_key),
        "remainingBalanceOwner": pchain_owner(node, &l.remaining_balance_owner),
        "deactivationOwner": pchain_owner(node, &l.deactivation_owner),
        "minNonce": l.min_nonce.to_string(),
        "balance": v.balance.to_string(),
    })
}

/// A UTXO's bytes as AvalancheGo's `getUTXOs` serializes them: codec version 0, then
/// `avax.UTXO {txID, outputIndex, assetID, output (interface: type ID + value)}`.
pub(super) fn utxo_bytes(u: &Utxo) -> Vec<u8> {
    let mut w = Writer::new();
    w.version();
    w.raw(u.tx_id.as_bytes());
    w.u32(u.output_index);
    w.raw(u.asset_id.as_bytes());
    u.output.encode(&mut w);
    w.into_bytes()
}
