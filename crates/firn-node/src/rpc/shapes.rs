//! The records several methods share, built from the devnet's state: owners, the three
//! `getCurrentValidators` shapes, UTXO bytes. Their wire types are declared once in
//! [`firn_rpc::methods::platform`].

use firn_core::codec::{Encode, Writer};
use firn_core::ids::ShortId;
use firn_core::pchain::fx::OutputOwners;
use firn_core::pchain::fx::Signer;
use firn_core::pchain::tx::UnsignedTx;
use firn_core::warp::messages::PChainOwner;
use firn_devnet::state::{self, Utxo};
use firn_devnet::vm::{L1ValidatorInfo, ValidatorInfo};
use firn_rpc::methods::platform::{
    Delegator, L1Validator, Owner, PrimaryValidator, Staker, ValidatorSigner,
};

use super::Node;

/// An output owner as `platformapi.Owner`.
pub(super) fn owner(node: &Node, o: &OutputOwners) -> Owner {
    Owner {
        locktime: o.locktime,
        threshold: o.threshold,
        addresses: addresses(node, &o.addresses),
    }
}

/// A PChainOwner as platformapi.Owner: its locktime is always 0.
pub(super) fn pchain_owner(node: &Node, o: &PChainOwner) -> Owner {
    Owner {
        locktime: 0,
        threshold: o.threshold,
        addresses: addresses(node, &o.addresses),
    }
}

fn addresses(node: &Node, ids: &[ShortId]) -> Vec<String> {
    ids.iter().map(|a| node.address(a)).collect()
}

/// `0x`-hex without checksum (`types.JSONByteSlice`, BLS keys).
pub(super) fn hex0x(bytes: &[u8]) -> String {
    format!("0x{}", hex::encode(bytes))
}

/// The proof of possession a validator's tx registered, if it had a signer.
fn signer_of(node: &Node, s: &state::Staker) -> Option<ValidatorSigner> {
    let info = node.chain.tx(&s.tx_id)?;
    match info.tx.unsigned() {
        UnsignedTx::AddPermissionlessValidator(t) => match &t.signer {
            Signer::ProofOfPossession(p) => Some(ValidatorSigner {
                public_key: hex0x(&p.public_key),
                proof_of_possession: Some(hex0x(&p.proof_of_possession)),
            }),
            Signer::Empty => None,
        },
        _ => s.public_key.map(|pk| ValidatorSigner {
            public_key: hex0x(&pk),
            proof_of_possession: None,
        }),
    }
}

/// Shape 1: a primary network validator; `with_delegators` when exactly one node was asked for.
pub(super) fn primary_validator(
    node: &Node,
    v: &ValidatorInfo,
    with_delegators: bool,
) -> PrimaryValidator {
    let s = &v.validator;
    PrimaryValidator {
        staker: staker(s),
        validation_reward_owner: owner(node, &s.reward_owner),
        delegation_reward_owner: owner(node, &s.delegation_reward_owner),
        potential_reward: s.potential_reward,
        accrued_delegatee_reward: s.delegatee_reward,
        delegation_fee: s.delegation_fee as f32 / 10_000.0,
        uptime: uptime(node, s),
        connected: !is_offline(node, s),
        signer: signer_of(node, s),
        delegator_count: v.delegators.len() as u64,
        delegator_weight: v.delegators.iter().map(|d| d.weight).sum(),
        delegators: with_delegators
            .then(|| v.delegators.iter().map(|d| delegator(node, d)).collect()),
    }
}

/// Whether the devnet runs `s`'s node offline (not connected, no uptime).
pub(super) fn is_offline(node: &Node, s: &state::Staker) -> bool {
    node.chain.config().offline_validators.contains(&s.node_id)
}

fn uptime(node: &Node, s: &state::Staker) -> f32 {
    if is_offline(node, s) { 0.0 } else { 100.0 }
}

/// A delegator record inside shape 1.
fn delegator(node: &Node, d: &state::Staker) -> Delegator {
    Delegator {
        staker: staker(d),
        reward_owner: owner(node, &d.reward_owner),
        potential_reward: d.potential_reward,
    }
}

/// What every staker record starts with; alone, shape 2: a permissioned subnet validator.
pub(super) fn staker(s: &state::Staker) -> Staker {
    Staker {
        tx_id: s.tx_id,
        start_time: s.start_time,
        end_time: s.end_time,
        weight: s.weight,
        node_id: s.node_id,
    }
}

/// Shape 3: an L1 validator (platformapi.APIL1Validator).
pub(super) fn l1_validator(node: &Node, v: &L1ValidatorInfo) -> L1Validator {
    let l = &v.validator;
    L1Validator {
        node_id: l.node_id,
        weight: l.weight,
        start_time: l.start_time,
        validation_id: l.validation_id,
        public_key: hex0x(&l.public_key),
        remaining_balance_owner: pchain_owner(node, &l.remaining_balance_owner),
        deactivation_owner: pchain_owner(node, &l.deactivation_owner),
        min_nonce: l.min_nonce,
        balance: v.balance,
    }
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
