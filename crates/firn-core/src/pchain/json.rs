//! The JSON AvalancheGo gives P-Chain blocks and txs (`platform.getBlock`, `platform.getTx`
//! with `encoding: json`).
//!
//! The shapes follow AvalancheGo's Go structs: fields in declaration order, embedded structs
//! inlined, numbers as raw JSON numbers (u64 may exceed 2^53), byte slices as `0x` hex, fixed
//! byte arrays as arrays of numbers, Go `[]byte` as base64, and map-backed objects
//! (secp256k1fx outputs, owners, credentials) with keys in alphabetical order. Addresses need a
//! [`JsonContext`]: the chain alias and the network's HRP. The rules and the shapes every
//! chain shares live in [`crate::avax::json`].

use super::block::{Block, BlockKind};
use super::fx::{
    AuthInput, Input, Output, ProofOfPossession, SECP256K1FX_ID, Signer, TransferableInput,
    TransferableOutput,
};
use super::tx::{BaseTx, SubnetValidator, Tx, UnsignedTx, Validator};
use crate::avax::json::{
    self as shared, base64, credential, owners, transfer_input, transfer_output,
};
use crate::encoding::hex_encode_nc;
use crate::warp::messages::PChainOwner;
use serde_json::{Map, Value, json};

pub use crate::avax::json::JsonContext;

fn output(ctx: &JsonContext, o: &Output) -> Value {
    match o {
        Output::Transfer(t) => transfer_output(ctx, t),
        Output::Locked(l) => {
            json!({ "locktime": l.locktime, "output": transfer_output(ctx, &l.output) })
        }
    }
}

fn input(i: &Input) -> Value {
    match i {
        Input::Transfer(t) => transfer_input(t),
        Input::Locked(l) => json!({ "locktime": l.locktime, "input": transfer_input(&l.input) }),
    }
}

fn transferable_output(ctx: &JsonContext, o: &TransferableOutput) -> Value {
    shared::transferable_output(o, json!(SECP256K1FX_ID), output(ctx, &o.output))
}

fn transferable_input(i: &TransferableInput) -> Value {
    shared::transferable_input(i, json!(SECP256K1FX_ID), input(&i.input))
}

fn outputs(ctx: &JsonContext, outs: &[TransferableOutput]) -> Value {
    Value::Array(outs.iter().map(|o| transferable_output(ctx, o)).collect())
}

fn auth(a: &AuthInput) -> Value {
    json!({ "signatureIndices": a.sig_indices })
}

fn validator_fields(m: &mut Map<String, Value>, v: &Validator) {
    m.insert("nodeID".into(), json!(v.node_id));
    m.insert("start".into(), json!(v.start));
    m.insert("end".into(), json!(v.end));
    m.insert("weight".into(), json!(v.weight));
}

fn validator(v: &Validator) -> Value {
    let mut m = Map::new();
    validator_fields(&mut m, v);
    Value::Object(m)
}

fn subnet_validator(v: &SubnetValidator) -> Value {
    let mut m = Map::new();
    validator_fields(&mut m, &v.validator);
    m.insert("subnetID".into(), json!(v.subnet_id));
    Value::Object(m)
}

fn pop(p: &ProofOfPossession) -> Value {
    json!({
        "publicKey": hex_encode_nc(&p.public_key),
        "proofOfPossession": hex_encode_nc(&p.proof_of_possession),
    })
}

fn signer(s: &Signer) -> Value {
    match s {
        Signer::Empty => json!({}),
        Signer::ProofOfPossession(p) => pop(p),
    }
}

fn pchain_owner(o: &PChainOwner) -> Value {
    json!({ "threshold": o.threshold, "addresses": o.addresses })
}

fn base_fields(ctx: &JsonContext, b: &BaseTx) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("networkID".into(), json!(b.network_id));
    m.insert("blockchainID".into(), json!(b.blockchain_id));
    m.insert("outputs".into(), outputs(ctx, &b.outputs));
    m.insert(
        "inputs".into(),
        Value::Array(b.inputs.iter().map(transferable_input).collect()),
    );
    m.insert("memo".into(), json!(hex_encode_nc(&b.memo)));
    m
}

/// The JSON of an unsigned tx (the `unsignedTx` field of a tx).
pub fn unsigned_tx_to_json(ctx: &JsonContext, tx: &UnsignedTx) -> Value {
    let mut m = tx.base().map(|b| base_fields(ctx, b)).unwrap_or_default();
    let mut put = |k: &str, v: Value| {
        m.insert(k.to_string(), v);
    };
    match tx {
        UnsignedTx::AddValidator(t) => {
            put("validator", validator(&t.validator));
            put("stake", outputs(ctx, &t.stake));
            put("rewardsOwner", owners(ctx, &t.rewards_owner.0));
            put("shares", json!(t.shares));
        }
        UnsignedTx::AddSubnetValidator(t) => {
            put("validator", subnet_validator(&t.validator));
            put("subnetAuthorization", auth(&t.subnet_auth));
        }
        UnsignedTx::AddDelegator(t) => {
            put("validator", validator(&t.validator));
            put("stake", outputs(ctx, &t.stake));
            put("rewardsOwner", owners(ctx, &t.rewards_owner.0));
        }
        UnsignedTx::CreateChain(t) => {
            put("subnetID", json!(t.subnet_id));
            put("chainName", json!(t.chain_name));
            put("vmID", json!(t.vm_id));
            put("fxIDs", json!(t.fx_ids));
            put("genesisData", json!(base64(&t.genesis_data)));
            put("subnetAuthorization", auth(&t.subnet_auth));
        }
        UnsignedTx::CreateSubnet(t) => put("owner", owners(ctx, &t.owner.0)),
        UnsignedTx::Import(t) => {
            put("sourceChain", json!(t.source_chain));
            put(
                "importedInputs",
                Value::Array(t.imported_inputs.iter().map(transferable_input).collect()),
            );
        }
        UnsignedTx::Export(t) => {
            put("destinationChain", json!(t.destination_chain));
            put("exportedOutputs", outputs(ctx, &t.exported_outputs));
        }
        UnsignedTx::AdvanceTime(t) => put("time", json!(t.time)),
        UnsignedTx::RewardValidator(t) => put("txID", json!(t.tx_id)),
        UnsignedTx::RemoveSubnetValidator(t) => {
            put("nodeID", json!(t.node_id));
            put("subnetID", json!(t.subnet_id));
            put("subnetAuthorization", auth(&t.subnet_auth));
        }
        UnsignedTx::TransformSubnet(t) => {
            put("subnetID", json!(t.subnet_id));
            put("assetID", json!(t.asset_id));
            put("initialSupply", json!(t.initial_supply));
            put("maximumSupply", json!(t.maximum_supply));
            put("minConsumptionRate", json!(t.min_consumption_rate));
            put("maxConsumptionRate", json!(t.max_consumption_rate));
            put("minValidatorStake", json!(t.min_validator_stake));
            put("maxValidatorStake", json!(t.max_validator_stake));
            put("minStakeDuration", json!(t.min_stake_duration));
            put("maxStakeDuration", json!(t.max_stake_duration));
            put("minDelegationFee", json!(t.min_delegation_fee));
            put("minDelegatorStake", json!(t.min_delegator_stake));
            put(
                "maxValidatorWeightFactor",
                json!(t.max_validator_weight_factor),
            );
            put("uptimeRequirement", json!(t.uptime_requirement));
            put("subnetAuthorization", auth(&t.subnet_auth));
        }
        UnsignedTx::AddPermissionlessValidator(t) => {
            put("validator", validator(&t.validator));
            put("subnetID", json!(t.subnet_id));
            put("signer", signer(&t.signer));
            put("stake", outputs(ctx, &t.stake));
            put(
                "validationRewardsOwner",
                owners(ctx, &t.validation_rewards_owner.0),
            );
            put(
                "delegationRewardsOwner",
                owners(ctx, &t.delegation_rewards_owner.0),
            );
            put("shares", json!(t.shares));
        }
        UnsignedTx::AddPermissionlessDelegator(t) => {
            put("validator", validator(&t.validator));
            put("subnetID", json!(t.subnet_id));
            put("stake", outputs(ctx, &t.stake));
            put("rewardsOwner", owners(ctx, &t.rewards_owner.0));
        }
        UnsignedTx::TransferSubnetOwnership(t) => {
            put("subnetID", json!(t.subnet_id));
            put("subnetAuthorization", auth(&t.subnet_auth));
            put("newOwner", owners(ctx, &t.new_owner.0));
        }
        UnsignedTx::Base(_) => {}
        UnsignedTx::ConvertSubnetToL1(t) => {
            put("subnetID", json!(t.subnet_id));
            put("chainID", json!(t.chain_id));
            put("address", json!(hex_encode_nc(&t.address)));
            let validators = t
                .validators
                .iter()
                .map(|v| {
                    json!({
                        "nodeID": hex_encode_nc(&v.node_id),
                        "weight": v.weight,
                        "balance": v.balance,
                        "signer": pop(&v.signer),
                        "remainingBalanceOwner": pchain_owner(&v.remaining_balance_owner),
                        "deactivationOwner": pchain_owner(&v.deactivation_owner),
                    })
                })
                .collect();
            put("validators", Value::Array(validators));
            put("subnetAuthorization", auth(&t.subnet_auth));
        }
        UnsignedTx::RegisterL1Validator(t) => {
            put("balance", json!(t.balance));
            put("proofOfPossession", json!(t.proof_of_possession.to_vec()));
            put("message", json!(hex_encode_nc(&t.message)));
        }
        UnsignedTx::SetL1ValidatorWeight(t) => put("message", json!(hex_encode_nc(&t.message))),
        UnsignedTx::IncreaseL1ValidatorBalance(t) => {
            put("validationID", json!(t.validation_id));
            put("balance", json!(t.balance));
        }
        UnsignedTx::DisableL1Validator(t) => {
            put("validationID", json!(t.validation_id));
            put("disableAuthorization", auth(&t.disable_auth));
        }
    }
    Value::Object(m)
}

/// The JSON of a signed tx: `{"unsignedTx", "credentials", "id"}`.
pub fn tx_to_json(ctx: &JsonContext, tx: &Tx) -> Value {
    let credentials = tx.credentials().iter().map(credential).collect();
    shared::signed_tx(
        unsigned_tx_to_json(ctx, tx.unsigned()),
        credentials,
        tx.id(),
    )
}

fn txs(ctx: &JsonContext, txs: &[Tx]) -> Value {
    Value::Array(txs.iter().map(|t| tx_to_json(ctx, t)).collect())
}

/// The JSON of a block, as `platform.getBlock` gives it with `encoding: json`.
pub fn block_to_json(ctx: &JsonContext, block: &Block) -> Value {
    let mut m = Map::new();
    let common = |m: &mut Map<String, Value>| {
        m.insert("parentID".into(), json!(block.parent_id()));
        m.insert("height".into(), json!(block.height()));
        m.insert("id".into(), json!(block.id()));
    };
    match block.kind() {
        BlockKind::ApricotProposal { tx } | BlockKind::ApricotAtomic { tx } => {
            common(&mut m);
            m.insert("tx".into(), tx_to_json(ctx, tx));
        }
        BlockKind::ApricotAbort | BlockKind::ApricotCommit => common(&mut m),
        BlockKind::ApricotStandard { txs: list } => {
            common(&mut m);
            m.insert("txs".into(), txs(ctx, list));
        }
        BlockKind::BanffProposal {
            time,
            txs: list,
            tx,
        } => {
            m.insert("time".into(), json!(time));
            m.insert("txs".into(), txs(ctx, list));
            common(&mut m);
            m.insert("tx".into(), tx_to_json(ctx, tx));
        }
        BlockKind::BanffAbort { time } | BlockKind::BanffCommit { time } => {
            m.insert("time".into(), json!(time));
            common(&mut m);
        }
        BlockKind::BanffStandard { time, txs: list } => {
            m.insert("time".into(), json!(time));
            common(&mut m);
            m.insert("txs".into(), txs(ctx, list));
        }
    }
    Value::Object(m)
}
