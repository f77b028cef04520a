//! The P-Chain Warp message an L1 tx justifies (`GET .../aggregateSignatures/{txHash}`),
//! and the message a bare `L1ValidatorRegistrationJustification` implies.
//!
//! | tx | message the P-Chain signs | justification |
//! |---|---|---|
//! | ConvertSubnetToL1Tx | `SubnetToL1Conversion{conversionID}` | the subnet ID |
//! | RegisterL1ValidatorTx, validation current | `L1ValidatorRegistration{id, true}` | none |
//! | RegisterL1ValidatorTx, validation gone | `L1ValidatorRegistration{id, false}` | the `RegisterL1Validator` bytes |
//! | SetL1ValidatorWeightTx, weight > 0 | `L1ValidatorWeight{id, nonce, weight}` | none |
//! | SetL1ValidatorWeightTx, weight 0 | `L1ValidatorRegistration{id, false}` | how the validation was created |

use crate::network::{JustificationSource, NetworkError};
use firn_core::ids::{Id, NodeId};
use firn_core::pchain::tx::{ConvertSubnetToL1Tx, UnsignedTx};
use firn_core::warp::acp118::{L1ValidatorRegistrationJustification, Preimage, SubnetIdIndex};
use firn_core::warp::messages::{
    ConversionValidatorData, L1Message, L1ValidatorRegistration, L1ValidatorWeight,
    SubnetToL1Conversion, SubnetToL1ConversionData,
};
use firn_core::warp::payload::Payload;
use firn_core::warp::{Message, UnsignedMessage, WarpError};

/// Why no message could be built for a tx.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TxMessageError {
    /// The P-Chain has no such accepted tx.
    #[error("transaction {0} not found on the P-Chain")]
    NotFound(Id),
    /// The tx is of another type.
    #[error(
        "transaction {tx_id} is a {type_name}; only ConvertSubnetToL1Tx, RegisterL1ValidatorTx \
         and SetL1ValidatorWeightTx justify a P-Chain Warp message"
    )]
    NotAnL1Tx {
        /// The tx.
        tx_id: Id,
        /// Its type.
        type_name: &'static str,
    },
    /// The tx's embedded Warp message could not be read.
    #[error("transaction {tx_id} carries an unreadable warp message: {error}")]
    BadEmbeddedMessage {
        /// The tx.
        tx_id: Id,
        /// What is wrong.
        error: WarpError,
    },
    /// The P-Chain cannot prove a removed validation is gone.
    #[error("validation {0} is not registered and the P-Chain has no record of how it was created")]
    UnknownValidation(Id),
    /// A justification that names no message.
    #[error("justification is not an L1ValidatorRegistrationJustification: {0}")]
    BadJustification(String),
    /// Reading the P-Chain failed.
    #[error(transparent)]
    Network(#[from] NetworkError),
}

/// A message to aggregate and the justification validators need to sign it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Justified {
    /// The P-Chain message.
    pub message: UnsignedMessage,
    /// Its ACP-118 justification.
    pub justification: Vec<u8>,
}

/// The P-Chain message that accepted tx `tx_id` justifies, on network `network_id`.
pub async fn message_for_tx(
    reader: &dyn JustificationSource,
    network_id: u32,
    tx_id: Id,
) -> Result<Justified, TxMessageError> {
    let tx = reader
        .tx(tx_id)
        .await?
        .ok_or(TxMessageError::NotFound(tx_id))?;
    let bad = |error| TxMessageError::BadEmbeddedMessage { tx_id, error };
    let (message, justification) = match &tx {
        UnsignedTx::ConvertSubnetToL1(t) => (
            L1Message::SubnetToL1Conversion(SubnetToL1Conversion {
                id: conversion_data(t).map_err(bad)?.id(),
            }),
            t.subnet_id.0.to_vec(),
        ),
        UnsignedTx::RegisterL1Validator(t) => {
            let L1Message::RegisterL1Validator(reg) = embedded(&t.message).map_err(bad)? else {
                return Err(bad(WarpError::NotPChainMessage(
                    "the payload is not a RegisterL1Validator",
                )));
            };
            let validation_id = reg.validation_id();
            if reader.l1_validation_exists(validation_id).await? {
                (registration(validation_id, true), Vec::new())
            } else {
                let preimage = Preimage::RegisterL1ValidatorMessage(reg.bytes());
                (
                    registration(validation_id, false),
                    L1ValidatorRegistrationJustification::from(preimage).bytes(),
                )
            }
        }
        UnsignedTx::SetL1ValidatorWeight(t) => {
            let L1Message::L1ValidatorWeight(w) = embedded(&t.message).map_err(bad)? else {
                return Err(bad(WarpError::NotPChainMessage(
                    "the payload is not an L1ValidatorWeight",
                )));
            };
            if w.weight > 0 {
                (
                    L1Message::L1ValidatorWeight(L1ValidatorWeight {
                        validation_id: w.validation_id,
                        nonce: w.nonce,
                        weight: w.weight,
                    }),
                    Vec::new(),
                )
            } else {
                let preimage = reader
                    .registration_preimage(w.validation_id)
                    .await?
                    .ok_or(TxMessageError::UnknownValidation(w.validation_id))?;
                (
                    registration(w.validation_id, false),
                    L1ValidatorRegistrationJustification::from(preimage).bytes(),
                )
            }
        }
        other => {
            return Err(TxMessageError::NotAnL1Tx {
                tx_id,
                type_name: other.type_name(),
            });
        }
    };
    Ok(Justified {
        message: message.to_unsigned_message(network_id),
        justification,
    })
}

/// The message a justification alone implies: an `L1ValidatorRegistrationJustification`
/// proves a validation is not registered, so it implies `L1ValidatorRegistration{id, false}`
/// from the P-Chain.
pub fn message_for_justification(
    network_id: u32,
    justification: &[u8],
) -> Result<UnsignedMessage, TxMessageError> {
    let parsed = L1ValidatorRegistrationJustification::from_bytes(justification)
        .map_err(|e| TxMessageError::BadJustification(e.to_string()))?;
    let validation_id = match parsed.preimage {
        Some(Preimage::ConvertSubnetToL1TxData(index)) => index
            .validation_id()
            .ok_or_else(|| TxMessageError::BadJustification("subnet ID is not 32 bytes".into()))?,
        Some(Preimage::RegisterL1ValidatorMessage(bytes)) => {
            match L1Message::from_bytes(&bytes)
                .map_err(|e| TxMessageError::BadJustification(e.to_string()))?
            {
                L1Message::RegisterL1Validator(reg) => reg.validation_id(),
                other => {
                    return Err(TxMessageError::BadJustification(format!(
                        "expected a RegisterL1Validator message, found {}",
                        other.type_name()
                    )));
                }
            }
        }
        None => {
            return Err(TxMessageError::BadJustification(
                "no preimage is set".into(),
            ));
        }
    };
    Ok(registration(validation_id, false).to_unsigned_message(network_id))
}

/// How `tx` created `validation_id`, if it did: as one of a ConvertSubnetToL1Tx's initial
/// validators (subnet and index) or through the `RegisterL1Validator` message of a
/// RegisterL1ValidatorTx. What a [`JustificationSource::registration_preimage`] looks for in the
/// accepted blocks.
pub fn preimage_in_tx(tx: &UnsignedTx, validation_id: &Id) -> Option<Preimage> {
    match tx {
        UnsignedTx::ConvertSubnetToL1(t) => (0..t.validators.len() as u32)
            .find(|&index| t.subnet_id.append(index) == *validation_id)
            .map(|index| Preimage::ConvertSubnetToL1TxData(SubnetIdIndex::new(t.subnet_id, index))),
        UnsignedTx::RegisterL1Validator(t) => match embedded(&t.message) {
            Ok(L1Message::RegisterL1Validator(reg)) if reg.validation_id() == *validation_id => {
                Some(Preimage::RegisterL1ValidatorMessage(reg.bytes()))
            }
            _ => None,
        },
        _ => None,
    }
}

fn registration(validation_id: Id, registered: bool) -> L1Message {
    L1Message::L1ValidatorRegistration(L1ValidatorRegistration {
        validation_id,
        registered,
    })
}

/// The L1 message inside a tx's signed Warp message (an AddressedCall from the manager).
fn embedded(bytes: &[u8]) -> Result<L1Message, WarpError> {
    let msg = Message::from_bytes(bytes)?;
    match Payload::from_bytes(&msg.unsigned.payload)? {
        Payload::AddressedCall(call) => L1Message::from_bytes(&call.payload),
        Payload::Hash(_) => Err(WarpError::NotPChainMessage(
            "the payload is not an AddressedCall",
        )),
    }
}

/// The conversion data a ConvertSubnetToL1Tx commits to.
fn conversion_data(t: &ConvertSubnetToL1Tx) -> Result<SubnetToL1ConversionData, WarpError> {
    let validators = t
        .validators
        .iter()
        .map(|v| {
            Ok(ConversionValidatorData {
                node_id: NodeId::from_slice(&v.node_id).map_err(|_| WarpError::InvalidField {
                    field: "node ID",
                    reason: "it is not 20 bytes",
                })?,
                bls_public_key: v.signer.public_key,
                weight: v.weight,
            })
        })
        .collect::<Result<_, WarpError>>()?;
    Ok(SubnetToL1ConversionData {
        subnet_id: t.subnet_id,
        manager_chain_id: t.chain_id,
        manager_address: t.address.0.clone(),
        validators,
    })
}
