//! The P-Chain's L1 warp messages (ACP-77), as in AvalancheGo's
//! `vms/platformvm/warp/message`.
//!
//! Each message is codec version 0, a u32 type ID, then the fields:
//!
//! ```text
//! SubnetToL1Conversion (0)    = [32] conversionID
//! RegisterL1Validator (1)     = [32] subnetID ‖ u32 len ‖ nodeID (20 bytes) ‖ [48] blsPublicKey
//!                               ‖ u64 expiry ‖ PChainOwner remainingBalanceOwner
//!                               ‖ PChainOwner disableOwner ‖ u64 weight
//! L1ValidatorRegistration (2) = [32] validationID ‖ bool registered
//! L1ValidatorWeight (3)       = [32] validationID ‖ u64 nonce ‖ u64 weight
//! PChainOwner                 = u32 threshold ‖ u32 count ‖ [20] address…
//! ```
//!
//! On the wire they travel as an [`AddressedCall`] with an empty source address inside an
//! [`UnsignedMessage`] whose source chain is the P-Chain ([`P_CHAIN_ID`]); see
//! [`L1Message::to_unsigned_message`].
//!
//! [`SubnetToL1ConversionData`] is not a message: it is what a `ConvertSubnetToL1Tx`
//! commits to, and its hash is the ID a [`SubnetToL1Conversion`] carries.
//!
//! BLS public keys are kept as raw 48 bytes: these messages come from contracts and the
//! codec does not check that the bytes are a valid key.

use super::payload::{AddressedCall, Payload};
use super::{PUBLIC_KEY_LEN, UnsignedMessage, WarpError};
use crate::codec::{self, CodecError, Decode, Encode, Reader, Writer};
use crate::ids::{Id, NodeId, ShortId};
use crate::network::P_CHAIN_ID;
use serde::{Deserialize, Deserializer, Serialize};

/// Type ID of [`SubnetToL1Conversion`].
pub const SUBNET_TO_L1_CONVERSION_TYPE_ID: u32 = 0;
/// Type ID of [`RegisterL1Validator`].
pub const REGISTER_L1_VALIDATOR_TYPE_ID: u32 = 1;
/// Type ID of [`L1ValidatorRegistration`].
pub const L1_VALIDATOR_REGISTRATION_TYPE_ID: u32 = 2;
/// Type ID of [`L1ValidatorWeight`].
pub const L1_VALIDATOR_WEIGHT_TYPE_ID: u32 = 3;

/// Who may spend a removed L1 validator's remaining balance, or disable it: `threshold`
/// signatures out of `addresses`.
///
/// JSON: `{"threshold":1,"addresses":["<cb58 short ID>"]}` (cb58, not bech32).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct PChainOwner {
    /// How many of `addresses` must sign.
    pub threshold: u32,
    /// The addresses that may sign; sorted and unique in a valid owner.
    #[serde(deserialize_with = "null_as_empty")]
    pub addresses: Vec<ShortId>,
}

fn null_as_empty<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<ShortId>, D::Error> {
    Ok(Option::<Vec<ShortId>>::deserialize(d)?.unwrap_or_default())
}

impl PChainOwner {
    /// Checks the rules of AvalancheGo's `secp256k1fx.OutputOwners.Verify`: the threshold
    /// is reachable, zero only without addresses, and the addresses are sorted and unique.
    pub fn verify(&self) -> Result<(), WarpError> {
        let invalid = |reason| {
            Err(WarpError::InvalidField {
                field: "owner",
                reason,
            })
        };
        if self.threshold as usize > self.addresses.len() {
            return invalid("threshold exceeds the number of addresses");
        }
        if self.threshold == 0 && !self.addresses.is_empty() {
            return invalid("threshold is zero but there are addresses");
        }
        if self.addresses.windows(2).any(|w| w[0] >= w[1]) {
            return invalid("addresses are not sorted and unique");
        }
        Ok(())
    }
}

impl Encode for PChainOwner {
    fn encode(&self, w: &mut Writer) {
        w.u32(self.threshold);
        w.vec(&self.addresses);
    }
}

impl Decode for PChainOwner {
    const MIN_SIZE: usize = 8;
    fn decode(r: &mut Reader<'_>) -> Result<Self, CodecError> {
        Ok(Self {
            threshold: r.u32()?,
            addresses: r.vec()?,
        })
    }
}

/// The P-Chain attests that a subnet was converted to an L1; `id` is the
/// [`SubnetToL1ConversionData::id`] of the conversion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SubnetToL1Conversion {
    /// The conversion ID.
    pub id: Id,
}

/// An L1 asks the P-Chain to register a validator. Its
/// [`validation_id`](Self::validation_id) is the sha256 of its bytes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RegisterL1Validator {
    /// The L1's subnet ID.
    pub subnet_id: Id,
    /// The validator's node ID (a 20-byte slice on the wire).
    pub node_id: NodeId,
    /// The validator's compressed BLS public key, unchecked.
    pub bls_public_key: [u8; PUBLIC_KEY_LEN],
    /// Unix time after which the registration can no longer be issued.
    pub expiry: u64,
    /// Who gets the validator's remaining balance when it leaves.
    pub remaining_balance_owner: PChainOwner,
    /// Who may disable the validator.
    pub disable_owner: PChainOwner,
    /// The validator's weight.
    pub weight: u64,
}

impl RegisterL1Validator {
    /// The validation ID: sha256 of the message bytes.
    pub fn validation_id(&self) -> Id {
        Id::hash_of(&self.bytes())
    }

    /// Checks the P-Chain's rules beyond the encoding (AvalancheGo's `Verify`): not the
    /// primary network, non-zero weight, non-empty node ID and valid owners.
    pub fn verify(&self) -> Result<(), WarpError> {
        let invalid = |field, reason| Err(WarpError::InvalidField { field, reason });
        if self.subnet_id == P_CHAIN_ID {
            return invalid("subnet ID", "it is the primary network");
        }
        if self.weight == 0 {
            return invalid("weight", "it is zero");
        }
        if self.node_id == NodeId::EMPTY {
            return invalid("node ID", "the empty node ID is not allowed");
        }
        self.remaining_balance_owner.verify()?;
        self.disable_owner.verify()
    }
}

/// The P-Chain attests whether a validation is registered: `true` while it is a
/// validator, `false` when it is not and can never be again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct L1ValidatorRegistration {
    /// The validation ID.
    pub validation_id: Id,
    /// Whether the validation is currently registered.
    pub registered: bool,
}

/// A validator's weight at a nonce: an L1's request to the P-Chain, or the P-Chain's report.
///
/// A nonce of `u64::MAX` is reserved for removal and requires weight 0; decoding rejects
/// any other weight with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct L1ValidatorWeight {
    /// The validation ID.
    pub validation_id: Id,
    /// The update's nonce.
    pub nonce: u64,
    /// The validator's new weight.
    pub weight: u64,
}

impl L1ValidatorWeight {
    /// Fails if the nonce is `u64::MAX` but the weight is not zero.
    pub fn verify(&self) -> Result<(), WarpError> {
        if self.nonce == u64::MAX && self.weight != 0 {
            return Err(WarpError::InvalidField {
                field: "nonce",
                reason: NONCE_RESERVED,
            });
        }
        Ok(())
    }
}

const NONCE_RESERVED: &str = "nonce u64::MAX is reserved for removal and requires weight 0";

/// Any of the P-Chain's L1 messages.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum L1Message {
    /// Type ID 0.
    SubnetToL1Conversion(SubnetToL1Conversion),
    /// Type ID 1.
    RegisterL1Validator(RegisterL1Validator),
    /// Type ID 2.
    L1ValidatorRegistration(L1ValidatorRegistration),
    /// Type ID 3.
    L1ValidatorWeight(L1ValidatorWeight),
}

impl L1Message {
    /// The codec bytes: version, type ID, fields.
    pub fn bytes(&self) -> Vec<u8> {
        codec::to_bytes(self)
    }

    /// Decodes codec bytes, rejecting trailing bytes and unknown type IDs.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, WarpError> {
        Ok(codec::from_bytes(bytes)?)
    }

    /// The message's type ID.
    pub fn type_id(&self) -> u32 {
        match self {
            L1Message::SubnetToL1Conversion(_) => SUBNET_TO_L1_CONVERSION_TYPE_ID,
            L1Message::RegisterL1Validator(_) => REGISTER_L1_VALIDATOR_TYPE_ID,
            L1Message::L1ValidatorRegistration(_) => L1_VALIDATOR_REGISTRATION_TYPE_ID,
            L1Message::L1ValidatorWeight(_) => L1_VALIDATOR_WEIGHT_TYPE_ID,
        }
    }

    /// The message type's name, as in AvalancheGo.
    pub fn type_name(&self) -> &'static str {
        match self {
            L1Message::SubnetToL1Conversion(_) => "SubnetToL1Conversion",
            L1Message::RegisterL1Validator(_) => "RegisterL1Validator",
            L1Message::L1ValidatorRegistration(_) => "L1ValidatorRegistration",
            L1Message::L1ValidatorWeight(_) => "L1ValidatorWeight",
        }
    }

    /// The unsigned warp message that carries this one: an [`AddressedCall`] with an empty
    /// source address, from the P-Chain of `network_id`.
    pub fn to_unsigned_message(&self, network_id: u32) -> UnsignedMessage {
        let call = AddressedCall {
            source_address: Vec::new(),
            payload: self.bytes(),
        };
        UnsignedMessage::new(network_id, P_CHAIN_ID, call.bytes())
    }

    /// The L1 message inside an unsigned warp message, which must come from the P-Chain
    /// as an [`AddressedCall`] with an empty source address.
    pub fn from_unsigned_message(msg: &UnsignedMessage) -> Result<Self, WarpError> {
        if msg.source_chain_id != P_CHAIN_ID {
            return Err(WarpError::NotPChainMessage(
                "the source chain is not the P-Chain",
            ));
        }
        let call = match Payload::from_bytes(&msg.payload)? {
            Payload::AddressedCall(call) => call,
            Payload::Hash(_) => {
                return Err(WarpError::NotPChainMessage(
                    "the payload is not an AddressedCall",
                ));
            }
        };
        if !call.source_address.is_empty() {
            return Err(WarpError::NotPChainMessage(
                "the AddressedCall has a source address",
            ));
        }
        Self::from_bytes(&call.payload)
    }
}

impl Encode for L1Message {
    fn encode(&self, w: &mut Writer) {
        w.u32(self.type_id());
        match self {
            L1Message::SubnetToL1Conversion(m) => m.encode(w),
            L1Message::RegisterL1Validator(m) => m.encode(w),
            L1Message::L1ValidatorRegistration(m) => m.encode(w),
            L1Message::L1ValidatorWeight(m) => m.encode(w),
        }
    }
}

impl Decode for L1Message {
    const MIN_SIZE: usize = 4 + SubnetToL1Conversion::MIN_SIZE;
    fn decode(r: &mut Reader<'_>) -> Result<Self, CodecError> {
        r.nested(|r| {
            Ok(match r.u32()? {
                SUBNET_TO_L1_CONVERSION_TYPE_ID => {
                    L1Message::SubnetToL1Conversion(SubnetToL1Conversion::decode(r)?)
                }
                REGISTER_L1_VALIDATOR_TYPE_ID => {
                    L1Message::RegisterL1Validator(RegisterL1Validator::decode(r)?)
                }
                L1_VALIDATOR_REGISTRATION_TYPE_ID => {
                    L1Message::L1ValidatorRegistration(L1ValidatorRegistration::decode(r)?)
                }
                L1_VALIDATOR_WEIGHT_TYPE_ID => {
                    L1Message::L1ValidatorWeight(L1ValidatorWeight::decode(r)?)
                }
                type_id => {
                    return Err(CodecError::UnknownTypeId {
                        type_id,
                        context: "P-Chain warp message",
                    });
                }
            })
        })
    }
}

/// `bytes`, `from_bytes` and the conversions to and from [`L1Message`] for one message type.
macro_rules! l1_message {
    ($t:ident) => {
        impl $t {
            /// The codec bytes: version, type ID, fields.
            pub fn bytes(&self) -> Vec<u8> {
                L1Message::from(self.clone()).bytes()
            }

            /// Decodes codec bytes, which must hold this message type.
            pub fn from_bytes(bytes: &[u8]) -> Result<Self, WarpError> {
                match L1Message::from_bytes(bytes)? {
                    L1Message::$t(m) => Ok(m),
                    other => Err(WarpError::WrongType {
                        expected: stringify!($t),
                        found: other.type_name(),
                    }),
                }
            }
        }

        impl From<$t> for L1Message {
            fn from(m: $t) -> Self {
                L1Message::$t(m)
            }
        }
    };
}

l1_message!(SubnetToL1Conversion);
l1_message!(RegisterL1Validator);
l1_message!(L1ValidatorRegistration);
l1_message!(L1ValidatorWeight);

impl Encode for SubnetToL1Conversion {
    fn encode(&self, w: &mut Writer) {
        self.id.encode(w);
    }
}

impl Decode for SubnetToL1Conversion {
    const MIN_SIZE: usize = 32;
    fn decode(r: &mut Reader<'_>) -> Result<Self, CodecError> {
        Ok(Self { id: Id::decode(r)? })
    }
}

/// Writes a node ID as AvalancheGo's `[]byte` node IDs: u32 length 20, then the bytes.
fn encode_node_id(id: &NodeId, w: &mut Writer) {
    w.bytes(id.as_bytes());
}

/// Reads a `[]byte` node ID, which must be 20 bytes long.
fn decode_node_id(r: &mut Reader<'_>) -> Result<NodeId, CodecError> {
    NodeId::from_slice(r.bytes()?).map_err(|_| CodecError::Invalid("node ID must be 20 bytes"))
}

impl Encode for RegisterL1Validator {
    fn encode(&self, w: &mut Writer) {
        self.subnet_id.encode(w);
        encode_node_id(&self.node_id, w);
        w.raw(&self.bls_public_key);
        w.u64(self.expiry);
        self.remaining_balance_owner.encode(w);
        self.disable_owner.encode(w);
        w.u64(self.weight);
    }
}

impl Decode for RegisterL1Validator {
    const MIN_SIZE: usize = 32 + 4 + 20 + PUBLIC_KEY_LEN + 8 + 2 * PChainOwner::MIN_SIZE + 8;
    fn decode(r: &mut Reader<'_>) -> Result<Self, CodecError> {
        Ok(Self {
            subnet_id: Id::decode(r)?,
            node_id: decode_node_id(r)?,
            bls_public_key: r.array()?,
            expiry: r.u64()?,
            remaining_balance_owner: PChainOwner::decode(r)?,
            disable_owner: PChainOwner::decode(r)?,
            weight: r.u64()?,
        })
    }
}

impl Encode for L1ValidatorRegistration {
    fn encode(&self, w: &mut Writer) {
        self.validation_id.encode(w);
        w.bool(self.registered);
    }
}

impl Decode for L1ValidatorRegistration {
    const MIN_SIZE: usize = 33;
    fn decode(r: &mut Reader<'_>) -> Result<Self, CodecError> {
        Ok(Self {
            validation_id: Id::decode(r)?,
            registered: r.bool()?,
        })
    }
}

impl Encode for L1ValidatorWeight {
    fn encode(&self, w: &mut Writer) {
        self.validation_id.encode(w);
        w.u64(self.nonce);
        w.u64(self.weight);
    }
}

impl Decode for L1ValidatorWeight {
    const MIN_SIZE: usize = 48;
    fn decode(r: &mut Reader<'_>) -> Result<Self, CodecError> {
        let m = Self {
            validation_id: Id::decode(r)?,
            nonce: r.u64()?,
            weight: r.u64()?,
        };
        m.verify()
            .map_err(|_| CodecError::Invalid(NONCE_RESERVED))?;
        Ok(m)
    }
}

/// One initial validator of a subnet-to-L1 conversion.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ConversionValidatorData {
    /// The validator's node ID (a 20-byte slice on the wire).
    pub node_id: NodeId,
    /// The validator's compressed BLS public key, unchecked.
    pub bls_public_key: [u8; PUBLIC_KEY_LEN],
    /// The validator's weight.
    pub weight: u64,
}

impl Encode for ConversionValidatorData {
    fn encode(&self, w: &mut Writer) {
        encode_node_id(&self.node_id, w);
        w.raw(&self.bls_public_key);
        w.u64(self.weight);
    }
}

impl Decode for ConversionValidatorData {
    const MIN_SIZE: usize = 4 + 20 + PUBLIC_KEY_LEN + 8;
    fn decode(r: &mut Reader<'_>) -> Result<Self, CodecError> {
        Ok(Self {
            node_id: decode_node_id(r)?,
            bls_public_key: r.array()?,
            weight: r.u64()?,
        })
    }
}

/// What a `ConvertSubnetToL1Tx` commits to. Codec version 0 and the fields, no type ID:
///
/// ```text
/// [32] subnetID ‖ [32] managerChainID ‖ u32 len ‖ managerAddress ‖ u32 count ‖ validator…
/// validator = u32 len ‖ nodeID ‖ [48] blsPublicKey ‖ u64 weight
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SubnetToL1ConversionData {
    /// The converted subnet.
    pub subnet_id: Id,
    /// The chain of the validator manager contract.
    pub manager_chain_id: Id,
    /// The validator manager's address on that chain.
    pub manager_address: Vec<u8>,
    /// The initial validators, in the tx's order.
    pub validators: Vec<ConversionValidatorData>,
}

impl SubnetToL1ConversionData {
    /// The codec bytes: version, then the fields.
    pub fn bytes(&self) -> Vec<u8> {
        codec::to_bytes(self)
    }

    /// Decodes codec bytes, rejecting trailing bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, WarpError> {
        Ok(codec::from_bytes(bytes)?)
    }

    /// The conversion ID: sha256 of the bytes.
    pub fn id(&self) -> Id {
        Id::hash_of(&self.bytes())
    }

    /// The message the P-Chain signs for this conversion.
    pub fn message(&self) -> SubnetToL1Conversion {
        SubnetToL1Conversion { id: self.id() }
    }
}

impl Encode for SubnetToL1ConversionData {
    fn encode(&self, w: &mut Writer) {
        self.subnet_id.encode(w);
        self.manager_chain_id.encode(w);
        w.bytes(&self.manager_address);
        w.vec(&self.validators);
    }
}

impl Decode for SubnetToL1ConversionData {
    const MIN_SIZE: usize = 32 + 32 + 4 + 4;
    fn decode(r: &mut Reader<'_>) -> Result<Self, CodecError> {
        Ok(Self {
            subnet_id: Id::decode(r)?,
            manager_chain_id: Id::decode(r)?,
            manager_address: r.bytes()?.to_vec(),
            validators: r.vec()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn register() -> RegisterL1Validator {
        RegisterL1Validator {
            subnet_id: Id([1; 32]),
            node_id: NodeId([2; 20]),
            bls_public_key: [3; PUBLIC_KEY_LEN],
            expiry: 4,
            remaining_balance_owner: PChainOwner {
                threshold: 1,
                addresses: vec![ShortId([5; 20])],
            },
            disable_owner: PChainOwner::default(),
            weight: 6,
        }
    }

    #[test]
    fn register_layout_and_validation_id() {
        let m = register();
        let bytes = m.bytes();
        assert_eq!(&bytes[..6], &[0, 0, 0, 0, 0, 1]);
        assert_eq!(&bytes[38..42], &[0, 0, 0, 20]);
        assert_eq!(bytes.len(), 6 + RegisterL1Validator::MIN_SIZE + 20);
        assert_eq!(m.validation_id(), Id::hash_of(&bytes));
        assert_eq!(RegisterL1Validator::from_bytes(&bytes), Ok(m.clone()));
        m.verify().unwrap();
    }

    #[test]
    fn node_ids_must_be_20_bytes() {
        let mut bytes = register().bytes();
        // Claim 19 bytes: the rest then misparses, but the length is caught first.
        bytes[41] = 19;
        assert_eq!(
            L1Message::from_bytes(&bytes),
            Err(WarpError::Codec(CodecError::Invalid(
                "node ID must be 20 bytes"
            )))
        );
    }

    #[test]
    fn reserved_nonce_needs_zero_weight() {
        let ok = L1ValidatorWeight {
            validation_id: Id::ZERO,
            nonce: u64::MAX,
            weight: 0,
        };
        assert_eq!(L1ValidatorWeight::from_bytes(&ok.bytes()), Ok(ok));
        let bad = L1ValidatorWeight { weight: 1, ..ok };
        assert!(bad.verify().is_err());
        assert_eq!(
            L1ValidatorWeight::from_bytes(&bad.bytes()),
            Err(WarpError::Codec(CodecError::Invalid(NONCE_RESERVED)))
        );
    }

    #[test]
    fn wrong_type_is_reported() {
        let bytes = SubnetToL1Conversion { id: Id::ZERO }.bytes();
        assert_eq!(
            L1ValidatorWeight::from_bytes(&bytes),
            Err(WarpError::WrongType {
                expected: "L1ValidatorWeight",
                found: "SubnetToL1Conversion"
            })
        );
        assert_eq!(
            L1Message::from_bytes(&[0, 0, 0, 0, 0, 4]),
            Err(WarpError::Codec(CodecError::UnknownTypeId {
                type_id: 4,
                context: "P-Chain warp message"
            }))
        );
    }

    #[test]
    fn unsigned_message_wrapping_round_trips() {
        let m = L1Message::from(L1ValidatorRegistration {
            validation_id: Id([9; 32]),
            registered: true,
        });
        let unsigned = m.to_unsigned_message(5);
        assert_eq!(unsigned.network_id, 5);
        assert_eq!(unsigned.source_chain_id, P_CHAIN_ID);
        assert_eq!(
            AddressedCall::from_bytes(&unsigned.payload).unwrap(),
            AddressedCall {
                source_address: vec![],
                payload: m.bytes()
            }
        );
        assert_eq!(L1Message::from_unsigned_message(&unsigned), Ok(m.clone()));

        let mut other_chain = unsigned.clone();
        other_chain.source_chain_id = Id([1; 32]);
        assert!(matches!(
            L1Message::from_unsigned_message(&other_chain),
            Err(WarpError::NotPChainMessage(_))
        ));
        let with_address = UnsignedMessage::new(
            5,
            P_CHAIN_ID,
            AddressedCall {
                source_address: vec![1],
                payload: m.bytes(),
            }
            .bytes(),
        );
        assert!(matches!(
            L1Message::from_unsigned_message(&with_address),
            Err(WarpError::NotPChainMessage(_))
        ));
    }

    #[test]
    fn owner_rules_and_json() {
        let a = ShortId([1; 20]);
        let b = ShortId([2; 20]);
        let ok = PChainOwner {
            threshold: 1,
            addresses: vec![a, b],
        };
        ok.verify().unwrap();
        PChainOwner::default().verify().unwrap();
        for bad in [
            PChainOwner {
                threshold: 3,
                addresses: vec![a, b],
            },
            PChainOwner {
                threshold: 0,
                addresses: vec![a],
            },
            PChainOwner {
                threshold: 1,
                addresses: vec![b, a],
            },
            PChainOwner {
                threshold: 1,
                addresses: vec![a, a],
            },
        ] {
            assert!(bad.verify().is_err(), "{bad:?}");
        }

        let json = serde_json::to_string(&ok).unwrap();
        assert_eq!(
            json,
            format!(r#"{{"threshold":1,"addresses":["{a}","{b}"]}}"#)
        );
        assert_eq!(serde_json::from_str::<PChainOwner>(&json).unwrap(), ok);
        let null: PChainOwner =
            serde_json::from_str(r#"{"threshold":0,"addresses":null}"#).unwrap();
        assert_eq!(null, PChainOwner::default());
    }

    #[test]
    fn register_verify_rules() {
        let mut m = register();
        m.subnet_id = P_CHAIN_ID;
        assert!(m.verify().is_err());
        let mut m = register();
        m.weight = 0;
        assert!(m.verify().is_err());
        let mut m = register();
        m.node_id = NodeId::EMPTY;
        assert!(m.verify().is_err());
        let mut m = register();
        m.disable_owner.threshold = 1;
        assert!(m.verify().is_err());
    }
}
