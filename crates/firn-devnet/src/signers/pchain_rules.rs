//! What a P-Chain validator agrees to sign (AvalancheGo's `vms/platformvm/network/warp.go`):
//! only AddressedCalls with an empty source address carrying one of the P-Chain's L1
//! messages, each justified by the current chain state:
//!
//! - `SubnetToL1Conversion{id}`: justification = the 32-byte subnet ID; the subnet was
//!   converted and `id` is its conversion ID;
//! - `L1ValidatorRegistration{id, true}`: the validation is an L1 validator now;
//! - `L1ValidatorRegistration{id, false}`: justification = an
//!   `L1ValidatorRegistrationJustification` whose preimage is either a conversion's
//!   `(subnetID, index)` (converted subnet, validation gone) or the `RegisterL1Validator`
//!   bytes (validation absent and its expiry passed, or registered once and since removed);
//! - `L1ValidatorWeight{id, nonce, weight}`: the validator exists, `nonce + 1` is its
//!   minimum nonce and `weight` its weight.
//!
//! Error codes and meanings follow AvalancheGo's; the texts are firn's.

use super::WarpVerifier;
use crate::vm::PChain;
use firn_aggregator::AppError;
use firn_core::ids::Id;
use firn_core::warp::UnsignedMessage;
use firn_core::warp::acp118::{L1ValidatorRegistrationJustification, Preimage, SubnetIdIndex};
use firn_core::warp::messages::{L1Message, L1ValidatorWeight, SubnetToL1Conversion};
use firn_core::warp::payload::Payload;
use std::sync::Arc;

const FAILED_TO_PARSE_ADDRESSED_CALL: i32 = 1;
const ADDRESSED_CALL_HAS_SOURCE_ADDRESS: i32 = 2;
const FAILED_TO_PARSE_PAYLOAD: i32 = 3;
const UNSUPPORTED_PAYLOAD_TYPE: i32 = 4;
const FAILED_TO_PARSE_JUSTIFICATION: i32 = 5;
const CONVERSION_DOES_NOT_EXIST: i32 = 6;
const MISMATCHED_CONVERSION_ID: i32 = 7;
const INVALID_JUSTIFICATION_TYPE: i32 = 8;
const FAILED_TO_PARSE_SUBNET_ID: i32 = 9;
const MISMATCHED_VALIDATION_ID: i32 = 10;
const VALIDATION_DOES_NOT_EXIST: i32 = 11;
const VALIDATION_EXISTS: i32 = 12;
const FAILED_TO_PARSE_REGISTER_L1_VALIDATOR: i32 = 13;
const VALIDATION_COULD_BE_REGISTERED: i32 = 14;
const IMPOSSIBLE_NONCE: i32 = 15;
const WRONG_NONCE: i32 = 16;
const WRONG_WEIGHT: i32 = 17;

fn refuse(code: i32, message: impl Into<String>) -> AppError {
    AppError {
        code,
        message: message.into(),
    }
}

/// The P-Chain's ACP-118 verifier over the devnet's state.
#[derive(Debug, Clone)]
pub struct PChainRules {
    chain: Arc<PChain>,
}

impl PChainRules {
    /// Rules over `chain`'s current state.
    pub fn new(chain: Arc<PChain>) -> Self {
        Self { chain }
    }

    fn conversion(&self, msg: &SubnetToL1Conversion, justification: &[u8]) -> Result<(), AppError> {
        let subnet_id = Id::from_slice(justification).map_err(|e| {
            refuse(
                FAILED_TO_PARSE_JUSTIFICATION,
                format!("failed to parse justification: {e}"),
            )
        })?;
        let conversion = self.chain.with_state(|s| {
            s.subnet(&subnet_id)
                .and_then(|sub| sub.conversion.as_ref())
                .map(|c| c.conversion_id)
        });
        let Some(expected) = conversion else {
            return Err(refuse(
                CONVERSION_DOES_NOT_EXIST,
                format!("subnet {subnet_id} has not been converted"),
            ));
        };
        if msg.id != expected {
            return Err(refuse(
                MISMATCHED_CONVERSION_ID,
                format!(
                    "conversion ID {} is not the subnet's conversion ID {expected}",
                    msg.id
                ),
            ));
        }
        Ok(())
    }

    fn registration(
        &self,
        validation_id: Id,
        registered: bool,
        justification: &[u8],
    ) -> Result<(), AppError> {
        let exists = self.chain.l1_validator(&validation_id).is_some();
        if registered {
            return if exists {
                Ok(())
            } else {
                Err(refuse(
                    VALIDATION_DOES_NOT_EXIST,
                    format!("validation {validation_id} does not exist"),
                ))
            };
        }
        let parsed =
            L1ValidatorRegistrationJustification::from_bytes(justification).map_err(|e| {
                refuse(
                    FAILED_TO_PARSE_JUSTIFICATION,
                    format!("failed to parse justification: {e}"),
                )
            })?;
        match parsed.preimage {
            Some(Preimage::ConvertSubnetToL1TxData(index)) => {
                self.removed_initial_validator(validation_id, &index, exists)
            }
            Some(Preimage::RegisterL1ValidatorMessage(bytes)) => {
                self.never_validates(validation_id, &bytes, exists)
            }
            None => Err(refuse(
                INVALID_JUSTIFICATION_TYPE,
                "invalid justification type: no preimage",
            )),
        }
    }

    /// A conversion's initial validator that is no longer registered.
    fn removed_initial_validator(
        &self,
        validation_id: Id,
        index: &SubnetIdIndex,
        exists: bool,
    ) -> Result<(), AppError> {
        let subnet_id = Id::from_slice(&index.subnet_id).map_err(|e| {
            refuse(
                FAILED_TO_PARSE_SUBNET_ID,
                format!("failed to parse subnet ID: {e}"),
            )
        })?;
        let justified = subnet_id.append(index.index);
        if justified != validation_id {
            return Err(refuse(
                MISMATCHED_VALIDATION_ID,
                format!("validation ID {validation_id} is not the justified {justified}"),
            ));
        }
        let converted = self.chain.with_state(|s| {
            s.subnet(&subnet_id)
                .is_some_and(|sub| sub.conversion.is_some())
        });
        if !converted {
            return Err(refuse(
                CONVERSION_DOES_NOT_EXIST,
                format!("subnet {subnet_id} has not been converted"),
            ));
        }
        if exists {
            return Err(refuse(
                VALIDATION_EXISTS,
                format!("validation {validation_id} exists"),
            ));
        }
        Ok(())
    }

    /// A validation that is not registered and can never be: its RegisterL1Validator
    /// message expired, or it was registered and removed (its expiry is still recorded).
    fn never_validates(
        &self,
        validation_id: Id,
        bytes: &[u8],
        exists: bool,
    ) -> Result<(), AppError> {
        let reg = match L1Message::from_bytes(bytes) {
            Ok(L1Message::RegisterL1Validator(reg)) => reg,
            Ok(other) => {
                return Err(refuse(
                    FAILED_TO_PARSE_REGISTER_L1_VALIDATOR,
                    format!(
                        "justification is a {}, not a RegisterL1Validator",
                        other.type_name()
                    ),
                ));
            }
            Err(e) => {
                return Err(refuse(
                    FAILED_TO_PARSE_REGISTER_L1_VALIDATOR,
                    format!("failed to parse RegisterL1Validator justification: {e}"),
                ));
            }
        };
        let justified = reg.validation_id();
        if justified != validation_id {
            return Err(refuse(
                MISMATCHED_VALIDATION_ID,
                format!("validation ID {validation_id} is not the justified {justified}"),
            ));
        }
        if exists {
            return Err(refuse(
                VALIDATION_EXISTS,
                format!("validation {validation_id} exists"),
            ));
        }
        let (now, removed) = self
            .chain
            .with_state(|s| (s.timestamp(), s.has_expiry(reg.expiry, &validation_id)));
        if reg.expiry <= now || removed {
            return Ok(());
        }
        Err(refuse(
            VALIDATION_COULD_BE_REGISTERED,
            format!(
                "validation {validation_id} can be registered until {}",
                reg.expiry
            ),
        ))
    }

    fn weight(&self, msg: &L1ValidatorWeight) -> Result<(), AppError> {
        if msg.nonce == u64::MAX {
            return Err(refuse(IMPOSSIBLE_NONCE, "impossible nonce"));
        }
        let Some(v) = self.chain.l1_validator(&msg.validation_id) else {
            return Err(refuse(
                VALIDATION_DOES_NOT_EXIST,
                format!("validation {} does not exist", msg.validation_id),
            ));
        };
        let v = v.validator;
        if msg.nonce.checked_add(1) != Some(v.min_nonce) {
            return Err(refuse(
                WRONG_NONCE,
                format!(
                    "nonce {} is not the expected {} - 1",
                    msg.nonce, v.min_nonce
                ),
            ));
        }
        if msg.weight != v.weight {
            return Err(refuse(
                WRONG_WEIGHT,
                format!(
                    "weight {} is not the validator's weight {}",
                    msg.weight, v.weight
                ),
            ));
        }
        Ok(())
    }
}

impl WarpVerifier for PChainRules {
    fn verify(&self, message: &UnsignedMessage, justification: &[u8]) -> Result<(), AppError> {
        let call = match Payload::from_bytes(&message.payload) {
            Ok(Payload::AddressedCall(call)) => call,
            Ok(Payload::Hash(_)) => {
                return Err(refuse(
                    FAILED_TO_PARSE_ADDRESSED_CALL,
                    "failed to parse warp addressed call: the payload is a Hash",
                ));
            }
            Err(e) => {
                return Err(refuse(
                    FAILED_TO_PARSE_ADDRESSED_CALL,
                    format!("failed to parse warp addressed call: {e}"),
                ));
            }
        };
        if !call.source_address.is_empty() {
            return Err(refuse(
                ADDRESSED_CALL_HAS_SOURCE_ADDRESS,
                "source address should be empty",
            ));
        }
        let parsed = L1Message::from_bytes(&call.payload).map_err(|e| {
            refuse(
                FAILED_TO_PARSE_PAYLOAD,
                format!("failed to parse warp addressed call payload: {e}"),
            )
        })?;
        match parsed {
            L1Message::SubnetToL1Conversion(m) => self.conversion(&m, justification),
            L1Message::L1ValidatorRegistration(m) => {
                self.registration(m.validation_id, m.registered, justification)
            }
            L1Message::L1ValidatorWeight(m) => self.weight(&m),
            L1Message::RegisterL1Validator(_) => Err(refuse(
                UNSUPPORTED_PAYLOAD_TYPE,
                "unsupported warp addressed call payload type: RegisterL1Validator",
            )),
        }
    }
}
