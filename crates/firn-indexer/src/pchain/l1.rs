//! L1 txs: conversion, validator registration, weight, balance and disabling. Each sets the
//! new state of the validators it touches and, for a refund of remaining balance, the UTXO
//! the node created.

use std::collections::BTreeSet;

use firn_core::ids::{NodeId, ShortId};
use firn_core::network::P_CHAIN_ID;
use firn_core::pchain::UnsignedTx;
use firn_core::pchain::fx::{Output, OutputOwners, TransferOutput};
use firn_core::warp::Message;
use firn_core::warp::messages::{L1Message, L1ValidatorWeight, PChainOwner, RegisterL1Validator};
use firn_core::warp::payload::Payload;
use firn_store::rows::pchain::{
    BlsCredentials, L1Validator, L1ValidatorDetail, L1ValidatorManager, Owner, PTx, PUtxo,
    SubnetChange, UtxoType,
};
use tracing::warn;

use super::derive::{Deriver, TxCtx, hex_of, utxo_bytes};
use super::known::KnownL1;
use crate::error::{IndexerError, Result};
use crate::sums::{Sums, add};

/// The RegisterL1Validator message inside a RegisterL1ValidatorTx's Warp message.
pub(crate) fn register_message(bytes: &[u8]) -> Result<RegisterL1Validator> {
    match l1_message(bytes)? {
        L1Message::RegisterL1Validator(m) => Ok(m),
        other => Err(IndexerError::decode(
            "RegisterL1ValidatorTx message",
            format!("carries {}", other.type_name()),
        )),
    }
}

fn weight_message(bytes: &[u8]) -> Result<L1ValidatorWeight> {
    match l1_message(bytes)? {
        L1Message::L1ValidatorWeight(m) => Ok(m),
        other => Err(IndexerError::decode(
            "SetL1ValidatorWeightTx message",
            format!("carries {}", other.type_name()),
        )),
    }
}

/// The L1 message a validator manager sent: a Warp message from the manager's chain whose
/// payload is an AddressedCall (source: the manager contract) carrying the message.
fn l1_message(bytes: &[u8]) -> Result<L1Message> {
    let msg = Message::from_bytes(bytes).map_err(|e| IndexerError::decode("warp message", e))?;
    match Payload::from_bytes(&msg.unsigned.payload)
        .map_err(|e| IndexerError::decode("warp payload", e))?
    {
        Payload::AddressedCall(call) => {
            L1Message::from_bytes(&call.payload).map_err(|e| IndexerError::decode("L1 message", e))
        }
        Payload::Hash(_) => Err(IndexerError::decode(
            "warp payload",
            "a hash, not an AddressedCall",
        )),
    }
}

/// Derives an L1 tx's effects into `out`; returns the balance it burned into validators.
pub(crate) async fn derive(
    d: &mut Deriver,
    ctx: &TxCtx<'_>,
    out: &mut PTx,
    addresses: &mut BTreeSet<ShortId>,
) -> Result<Sums> {
    let mut burned = Sums::new();
    let avax = |out: &PTx| {
        out.emitted
            .first()
            .map(|u| u.asset_id)
            .or_else(|| ctx.tx.unsigned().base()?.inputs.first().map(|i| i.asset_id))
            .unwrap_or(P_CHAIN_ID)
    };
    match ctx.tx.unsigned() {
        UnsignedTx::ConvertSubnetToL1(t) => {
            out.core.subnet_id = Some(t.subnet_id);
            out.core.details.l1_validator_manager = Some(L1ValidatorManager {
                blockchain_id: t.chain_id,
                contract_address: format!("0x{}", hex_of(&t.address.0)),
            });
            let conversion_id = t
                .conversion_data()
                .map(|c| c.id())
                .map_err(|e| IndexerError::decode("ConvertSubnetToL1Tx", e))?;
            out.subnet = Some(SubnetChange::Converted {
                subnet_id: t.subnet_id,
                conversion_id,
                manager_chain: t.chain_id,
                manager_address: t.address.0.clone(),
            });
            let asset = avax(out);
            for (i, v) in t.validators.iter().enumerate() {
                let node_id = NodeId::from_slice(&v.node_id)
                    .map_err(|e| IndexerError::decode("ConvertSubnetToL1Tx node ID", e))?;
                let validator = L1Validator {
                    validation_id: t.validation_id(i as u32),
                    subnet_id: t.subnet_id,
                    node_id,
                    weight: v.weight,
                    balance: v.balance,
                    bls_public_key: v.signer.public_key.to_vec(),
                    active: v.balance > 0,
                    remaining_balance_owner: owner(&v.remaining_balance_owner),
                    deactivation_owner: owner(&v.deactivation_owner),
                };
                add(&mut burned, asset, v.balance);
                if let Some(fees) = &mut d.fees {
                    fees.register(validator.validation_id, t.subnet_id, node_id, v.balance);
                }
                addresses.extend(v.remaining_balance_owner.addresses.iter().copied());
                out.core.details.l1_validator_details.push(detail(
                    &validator,
                    Some(v.balance),
                    Some(&v.signer.public_key),
                    Some(&v.signer.proof_of_possession),
                ));
                set(
                    d,
                    out,
                    KnownL1 {
                        validator,
                        balance_owner: v.remaining_balance_owner.addresses.clone(),
                        balance_threshold: v.remaining_balance_owner.threshold,
                    },
                );
            }
        }
        UnsignedTx::RegisterL1Validator(t) => {
            let reg = register_message(&t.message.0)?;
            let validator = L1Validator {
                validation_id: reg.validation_id(),
                subnet_id: reg.subnet_id,
                node_id: reg.node_id,
                weight: reg.weight,
                balance: t.balance,
                bls_public_key: reg.bls_public_key.to_vec(),
                active: t.balance > 0,
                remaining_balance_owner: owner(&reg.remaining_balance_owner),
                deactivation_owner: owner(&reg.disable_owner),
            };
            out.core.subnet_id = Some(reg.subnet_id);
            out.core.node_id = Some(reg.node_id);
            add(&mut burned, avax(out), t.balance);
            if let Some(fees) = &mut d.fees {
                fees.register(
                    validator.validation_id,
                    reg.subnet_id,
                    reg.node_id,
                    t.balance,
                );
            }
            addresses.extend(reg.remaining_balance_owner.addresses.iter().copied());
            out.core.details.l1_validator_details.push(detail(
                &validator,
                Some(t.balance),
                Some(&reg.bls_public_key),
                Some(&t.proof_of_possession),
            ));
            set(
                d,
                out,
                KnownL1 {
                    validator,
                    balance_owner: reg.remaining_balance_owner.addresses.clone(),
                    balance_threshold: reg.remaining_balance_owner.threshold,
                },
            );
        }
        UnsignedTx::SetL1ValidatorWeight(t) => {
            let msg = weight_message(&t.message.0)?;
            let mut known = d.known.l1(msg.validation_id, &d.source, &d.store).await?;
            known.validator.weight = msg.weight;
            if msg.weight == 0 {
                refund(d, ctx, out, &known).await?;
                if let Some(fees) = &mut d.fees {
                    fees.deactivate(&msg.validation_id);
                }
                known.validator.balance = 0;
                known.validator.active = false;
            }
            finish(d, out, known);
        }
        UnsignedTx::IncreaseL1ValidatorBalance(t) => {
            let mut known = d.known.l1(t.validation_id, &d.source, &d.store).await?;
            known.validator.balance = match &mut d.fees {
                // What it has left after the deposit, not only what was deposited.
                Some(fees) => {
                    let v = &known.validator;
                    fees.top_up(t.validation_id, v.subnet_id, v.node_id, t.balance);
                    fees.balance(&t.validation_id)
                }
                None => known.validator.balance.saturating_add(t.balance),
            };
            known.validator.active = true;
            add(&mut burned, avax(out), t.balance);
            let mut row = detail(&known.validator, Some(t.balance), None, None);
            row.remaining_balance = known.validator.balance;
            out.core.details.l1_validator_details.push(row);
            out.core.subnet_id = Some(known.validator.subnet_id);
            out.core.node_id = Some(known.validator.node_id);
            out.l1_validation_ids.push(t.validation_id);
            out.l1_validators.push(known.validator.clone());
            d.known.l1_changed(known);
        }
        UnsignedTx::DisableL1Validator(t) => {
            let mut known = d.known.l1(t.validation_id, &d.source, &d.store).await?;
            refund(d, ctx, out, &known).await?;
            if let Some(fees) = &mut d.fees {
                fees.deactivate(&t.validation_id);
            }
            known.validator.balance = 0;
            known.validator.active = false;
            finish(d, out, known);
        }
        _ => {}
    }
    Ok(burned)
}

/// An L1 owner as the store keeps owners (no locktime).
fn owner(o: &PChainOwner) -> Owner {
    Owner {
        locktime: 0,
        threshold: o.threshold,
        addresses: o.addresses.clone(),
    }
}

fn detail(
    v: &L1Validator,
    balance_change: Option<u64>,
    public_key: Option<&[u8; 48]>,
    pop: Option<&[u8; 96]>,
) -> L1ValidatorDetail {
    L1ValidatorDetail {
        validation_id: v.validation_id,
        node_id: v.node_id,
        subnet_id: v.subnet_id,
        weight: v.weight,
        remaining_balance: v.balance,
        balance_change,
        bls_credentials: public_key.zip(pop).map(|(k, p)| BlsCredentials {
            public_key: format!("0x{}", hex_of(k)),
            proof_of_possession: format!("0x{}", hex_of(p)),
        }),
    }
}

/// Records a validator created by this tx.
fn set(d: &mut Deriver, out: &mut PTx, known: KnownL1) {
    out.l1_validation_ids.push(known.validator.validation_id);
    out.l1_validators.push(known.validator.clone());
    d.known.l1_changed(known);
}

/// Records a changed validator (weight or disable).
fn finish(d: &mut Deriver, out: &mut PTx, known: KnownL1) {
    out.core.subnet_id = Some(known.validator.subnet_id);
    out.core.node_id = Some(known.validator.node_id);
    out.core
        .details
        .l1_validator_details
        .push(detail(&known.validator, None, None, None));
    set(d, out, known);
}

/// The refund of an active validator's remaining balance, at output index `len(outputs)`.
/// Its amount depends on the fees accrued up to the block: the fee ledger knows it; without
/// the ledger it is read from the node's UTXO set, and if already spent it is stored when its
/// spender is indexed.
async fn refund(d: &mut Deriver, ctx: &TxCtx<'_>, out: &mut PTx, known: &KnownL1) -> Result<()> {
    if !known.validator.active || known.balance_owner.is_empty() {
        return Ok(());
    }
    let index = ctx.tx.unsigned().base().map_or(0, |b| b.outputs.len()) as u32;
    let id = ctx.id.prefix(u64::from(index));
    let owed = d
        .fees
        .as_ref()
        .map(|f| f.balance(&known.validator.validation_id));
    let fee_asset = ctx
        .tx
        .unsigned()
        .base()
        .and_then(|b| b.inputs.first())
        .map(|i| i.asset_id);
    let found = match (owed, fee_asset) {
        // Ran out before this block: nothing to refund.
        (Some(0), _) => return Ok(()),
        (Some(amount), Some(asset_id)) => Some((
            asset_id,
            Output::Transfer(TransferOutput {
                amount,
                owners: OutputOwners {
                    locktime: 0,
                    threshold: known.balance_threshold,
                    addresses: known.balance_owner.clone(),
                },
            }),
        )),
        _ => {
            let network_id = d.network_id.unwrap_or_default();
            let utxos = d.source.utxos(network_id, &known.balance_owner).await?;
            utxos
                .into_iter()
                .find(|u| u.id() == id)
                .map(|u| (u.asset_id, u.output))
        }
    };
    match found {
        Some((asset_id, output)) => {
            let owners = &output.transfer().owners;
            let row = PUtxo {
                utxo_id: id,
                tx_hash: ctx.id,
                output_index: index,
                asset_id,
                amount: output.amount(),
                addresses: owners.addresses.clone(),
                threshold: owners.threshold,
                locktime: owners.locktime,
                stakeable_locktime: None,
                staked: false,
                utxo_type: UtxoType::Transfer,
                reward_type: None,
                created_on_chain: P_CHAIN_ID,
                consumed_on_chain: P_CHAIN_ID,
                start_ts: None,
                end_ts: None,
                bytes: utxo_bytes(ctx.id, index, asset_id, &output),
            };
            d.known.created(&row, true);
            out.emitted.push(row);
        }
        None => {
            warn!(target: "indexer::pchain", tx = %ctx.id, "l1 refund already spent; stored when its spender is indexed");
            let placeholder = PUtxo {
                utxo_id: id,
                tx_hash: ctx.id,
                output_index: index,
                asset_id: P_CHAIN_ID,
                amount: 0,
                addresses: known.balance_owner.clone(),
                threshold: known.balance_threshold,
                locktime: 0,
                stakeable_locktime: None,
                staked: false,
                utxo_type: UtxoType::Transfer,
                reward_type: None,
                created_on_chain: P_CHAIN_ID,
                consumed_on_chain: P_CHAIN_ID,
                start_ts: None,
                end_ts: None,
                bytes: Vec::new(),
            };
            d.known.created(&placeholder, false);
            if let Some(u) = d.known.peek_mut(&id) {
                u.amount = None;
            }
        }
    }
    Ok(())
}
