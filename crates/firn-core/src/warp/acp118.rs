//! ACP-118 warp signature requests, and the P-Chain's justification for
//! `L1ValidatorRegistration` requests.
//!
//! The messages are protobuf (proto3), encoded here by hand: each field is a varint tag
//! (`field << 3 | wire type`), then a varint or a varint length and bytes.
//!
//! ```proto
//! message SignatureRequest  { bytes message = 1; bytes justification = 2; }   // sdk
//! message SignatureResponse { bytes signature = 1; }
//! message L1ValidatorRegistrationJustification {                               // platformvm
//!   oneof preimage {
//!     SubnetIDIndex convert_subnet_to_l1_tx_data = 1;
//!     bytes register_l1_validator_message = 2;
//!   }
//! }
//! message SubnetIDIndex { bytes subnet_id = 1; uint32 index = 2; }
//! ```
//!
//! Encoding matches Go's `proto.Marshal`: fields in number order, proto3 scalars omitted
//! when empty or zero, the set `oneof` member always written. Decoding follows protobuf
//! semantics: unknown fields (and known fields with an unexpected wire type) are skipped,
//! the last occurrence of a scalar wins and repeated sub-messages merge. Deprecated group
//! wire types are rejected. Nothing is allocated beyond the input's size.
//!
//! A request sent as an AppRequest is prefixed with the uvarint of [`HANDLER_ID`];
//! responses are not prefixed.

use super::WarpError;
use crate::ids::Id;

/// The p2p handler ID of ACP-118 signature requests (AvalancheGo's
/// `SignatureRequestHandlerID`).
pub const HANDLER_ID: u64 = 2;

/// Asks a validator to sign a warp message.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct SignatureRequest {
    /// The [`UnsignedMessage`](super::UnsignedMessage) bytes to sign.
    pub message: Vec<u8>,
    /// Why the validator should sign it; its form depends on the message.
    pub justification: Vec<u8>,
}

impl SignatureRequest {
    /// The protobuf bytes.
    pub fn bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.message.len() + self.justification.len() + 12);
        wire::put_bytes_field(&mut out, 1, &self.message);
        wire::put_bytes_field(&mut out, 2, &self.justification);
        out
    }

    /// Decodes protobuf bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, WarpError> {
        let mut out = Self::default();
        let mut r = wire::Reader::new(bytes);
        while let Some((field, value)) = r.field()? {
            match (field, value) {
                (1, wire::Value::Len(b)) => out.message = b.to_vec(),
                (2, wire::Value::Len(b)) => out.justification = b.to_vec(),
                _ => {}
            }
        }
        Ok(out)
    }

    /// The AppRequest bytes: uvarint([`HANDLER_ID`]) then the protobuf bytes.
    pub fn app_request_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        wire::put_varint(&mut out, HANDLER_ID);
        out.extend_from_slice(&self.bytes());
        out
    }

    /// Decodes AppRequest bytes, which must be for [`HANDLER_ID`].
    pub fn from_app_request_bytes(bytes: &[u8]) -> Result<Self, WarpError> {
        let mut r = wire::Reader::new(bytes);
        let handler = r.varint()?;
        if handler != HANDLER_ID {
            return Err(WarpError::WrongHandler(handler));
        }
        Self::from_bytes(r.rest())
    }
}

/// A validator's answer: its BLS signature over the requested message.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct SignatureResponse {
    /// The compressed BLS signature (96 bytes when well-formed).
    pub signature: Vec<u8>,
}

impl SignatureResponse {
    /// The protobuf bytes.
    pub fn bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.signature.len() + 3);
        wire::put_bytes_field(&mut out, 1, &self.signature);
        out
    }

    /// Decodes protobuf bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, WarpError> {
        let mut out = Self::default();
        let mut r = wire::Reader::new(bytes);
        while let Some((field, value)) = r.field()? {
            if let (1, wire::Value::Len(b)) = (field, value) {
                out.signature = b.to_vec();
            }
        }
        Ok(out)
    }
}

/// A subnet ID and the index of one of the initial validators of its conversion.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct SubnetIdIndex {
    /// The subnet ID's bytes (32 when well-formed).
    pub subnet_id: Vec<u8>,
    /// The validator's index in the `ConvertSubnetToL1Tx`.
    pub index: u32,
}

impl SubnetIdIndex {
    /// The index-th initial validator of `subnet_id`.
    pub fn new(subnet_id: Id, index: u32) -> Self {
        Self {
            subnet_id: subnet_id.0.to_vec(),
            index,
        }
    }

    /// The validation ID this names: `sha256(subnetID ‖ u32 index)`. `None` unless the
    /// subnet ID is 32 bytes.
    pub fn validation_id(&self) -> Option<Id> {
        Id::from_slice(&self.subnet_id)
            .ok()
            .map(|id| id.append(self.index))
    }

    fn bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.subnet_id.len() + 8);
        wire::put_bytes_field(&mut out, 1, &self.subnet_id);
        if self.index != 0 {
            wire::put_varint(&mut out, wire::tag(2, wire::VARINT));
            wire::put_varint(&mut out, u64::from(self.index));
        }
        out
    }

    /// Decodes `bytes` over `self`, as protobuf merges a repeated sub-message.
    fn merge_from(&mut self, bytes: &[u8]) -> Result<(), WarpError> {
        let mut r = wire::Reader::new(bytes);
        while let Some((field, value)) = r.field()? {
            match (field, value) {
                (1, wire::Value::Len(b)) => self.subnet_id = b.to_vec(),
                // proto3 uint32 keeps the low 32 bits of the varint, as Go does.
                (2, wire::Value::Varint(v)) => self.index = v as u32,
                _ => {}
            }
        }
        Ok(())
    }
}

/// What a validator is asked to attest to with an `L1ValidatorRegistration` message.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Preimage {
    /// The validation is one of a conversion's initial validators (field 1), to prove it
    /// was removed.
    ConvertSubnetToL1TxData(SubnetIdIndex),
    /// The bytes of the `RegisterL1Validator` message (field 2), to prove the validation
    /// is not and can never be registered.
    RegisterL1ValidatorMessage(Vec<u8>),
}

/// The justification of an ACP-118 request for an `L1ValidatorRegistration` message.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct L1ValidatorRegistrationJustification {
    /// The `oneof preimage`; `None` when unset.
    pub preimage: Option<Preimage>,
}

impl L1ValidatorRegistrationJustification {
    /// The protobuf bytes.
    pub fn bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        match &self.preimage {
            None => {}
            Some(Preimage::ConvertSubnetToL1TxData(index)) => {
                wire::put_bytes_field_always(&mut out, 1, &index.bytes())
            }
            Some(Preimage::RegisterL1ValidatorMessage(msg)) => {
                wire::put_bytes_field_always(&mut out, 2, msg)
            }
        }
        out
    }

    /// Decodes protobuf bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, WarpError> {
        let mut preimage = None;
        let mut r = wire::Reader::new(bytes);
        while let Some((field, value)) = r.field()? {
            match (field, value) {
                (1, wire::Value::Len(b)) => {
                    let mut index = match preimage {
                        Some(Preimage::ConvertSubnetToL1TxData(index)) => index,
                        _ => SubnetIdIndex::default(),
                    };
                    index.merge_from(b)?;
                    preimage = Some(Preimage::ConvertSubnetToL1TxData(index));
                }
                (2, wire::Value::Len(b)) => {
                    preimage = Some(Preimage::RegisterL1ValidatorMessage(b.to_vec()));
                }
                _ => {}
            }
        }
        Ok(Self { preimage })
    }
}

impl From<Preimage> for L1ValidatorRegistrationJustification {
    fn from(preimage: Preimage) -> Self {
        Self {
            preimage: Some(preimage),
        }
    }
}

/// The few pieces of the protobuf wire format these messages need.
mod wire {
    use super::WarpError;

    pub const VARINT: u8 = 0;
    const I64: u8 = 1;
    const LEN: u8 = 2;
    const I32: u8 = 5;
    /// Field numbers are 29 bits.
    const MAX_FIELD: u64 = (1 << 29) - 1;

    pub fn tag(field: u32, wire_type: u8) -> u64 {
        (u64::from(field) << 3) | u64::from(wire_type)
    }

    pub fn put_varint(out: &mut Vec<u8>, mut v: u64) {
        while v >= 0x80 {
            out.push((v as u8) | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
    }

    /// A length-delimited field, written even when empty (sub-messages, oneof members).
    pub fn put_bytes_field_always(out: &mut Vec<u8>, field: u32, bytes: &[u8]) {
        put_varint(out, tag(field, LEN));
        put_varint(out, bytes.len() as u64);
        out.extend_from_slice(bytes);
    }

    /// A proto3 `bytes` field: omitted when empty.
    pub fn put_bytes_field(out: &mut Vec<u8>, field: u32, bytes: &[u8]) {
        if !bytes.is_empty() {
            put_bytes_field_always(out, field, bytes);
        }
    }

    /// A field's value; fixed-width values are only skipped.
    pub enum Value<'a> {
        Varint(u64),
        Len(&'a [u8]),
        Fixed,
    }

    pub struct Reader<'a> {
        buf: &'a [u8],
    }

    impl<'a> Reader<'a> {
        pub fn new(buf: &'a [u8]) -> Self {
            Self { buf }
        }

        pub fn rest(&self) -> &'a [u8] {
            self.buf
        }

        fn take(&mut self, n: usize) -> Result<&'a [u8], WarpError> {
            if n > self.buf.len() {
                return Err(WarpError::Protobuf("field runs past the end of the input"));
            }
            let (head, tail) = self.buf.split_at(n);
            self.buf = tail;
            Ok(head)
        }

        /// A varint of at most 10 bytes whose value fits in 64 bits.
        pub fn varint(&mut self) -> Result<u64, WarpError> {
            let mut v = 0u64;
            for i in 0..10 {
                let Some((&b, tail)) = self.buf.split_first() else {
                    return Err(WarpError::Protobuf("truncated varint"));
                };
                self.buf = tail;
                if i == 9 && b > 1 {
                    return Err(WarpError::Protobuf("varint overflows 64 bits"));
                }
                v |= u64::from(b & 0x7f) << (7 * i);
                if b < 0x80 {
                    return Ok(v);
                }
            }
            Err(WarpError::Protobuf("varint overflows 64 bits"))
        }

        /// The next field number and value, or `None` at the end of the input.
        pub fn field(&mut self) -> Result<Option<(u64, Value<'a>)>, WarpError> {
            if self.buf.is_empty() {
                return Ok(None);
            }
            let tag = self.varint()?;
            let field = tag >> 3;
            if field == 0 || field > MAX_FIELD {
                return Err(WarpError::Protobuf("invalid field number"));
            }
            let value = match (tag & 7) as u8 {
                VARINT => Value::Varint(self.varint()?),
                I64 => {
                    self.take(8)?;
                    Value::Fixed
                }
                LEN => {
                    let len = self.varint()?;
                    let len = usize::try_from(len)
                        .map_err(|_| WarpError::Protobuf("field runs past the end of the input"))?;
                    Value::Len(self.take(len)?)
                }
                I32 => {
                    self.take(4)?;
                    Value::Fixed
                }
                _ => return Err(WarpError::Protobuf("unsupported wire type")),
            };
            Ok(Some((field, value)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_encoding_matches_protobuf() {
        let req = SignatureRequest {
            message: vec![1, 2, 3],
            justification: vec![9],
        };
        assert_eq!(req.bytes(), [0x0a, 3, 1, 2, 3, 0x12, 1, 9]);
        assert_eq!(SignatureRequest::from_bytes(&req.bytes()), Ok(req.clone()));
        assert_eq!(req.app_request_bytes()[0], 2);
        assert_eq!(
            SignatureRequest::from_app_request_bytes(&req.app_request_bytes()),
            Ok(req.clone())
        );
        assert_eq!(
            SignatureRequest::from_app_request_bytes(&[0x01, 0x0a, 0]),
            Err(WarpError::WrongHandler(1))
        );
        // Empty fields are omitted.
        assert_eq!(SignatureRequest::default().bytes(), Vec::<u8>::new());
        assert_eq!(
            SignatureRequest::from_bytes(&[]),
            Ok(SignatureRequest::default())
        );
    }

    #[test]
    fn long_lengths_use_multi_byte_varints() {
        let resp = SignatureResponse {
            signature: vec![0xaa; 200],
        };
        let bytes = resp.bytes();
        assert_eq!(&bytes[..3], &[0x0a, 0xc8, 0x01]);
        assert_eq!(SignatureResponse::from_bytes(&bytes), Ok(resp));
    }

    #[test]
    fn unknown_fields_are_skipped_and_last_wins() {
        // field 3 varint, field 4 fixed64, field 5 fixed32, field 6 bytes, field 1 twice,
        // field 2 with the wrong wire type (varint).
        let mut bytes = vec![0x18, 0x96, 0x01];
        bytes.extend_from_slice(&[0x21, 0, 0, 0, 0, 0, 0, 0, 0]);
        bytes.extend_from_slice(&[0x2d, 0, 0, 0, 0]);
        bytes.extend_from_slice(&[0x32, 2, 7, 7]);
        bytes.extend_from_slice(&[0x0a, 1, 1, 0x0a, 1, 2]);
        bytes.extend_from_slice(&[0x10, 5]);
        assert_eq!(
            SignatureRequest::from_bytes(&bytes),
            Ok(SignatureRequest {
                message: vec![2],
                justification: vec![]
            })
        );
    }

    #[test]
    fn malformed_protobuf_fails_cleanly() {
        for (bytes, why) in [
            (&[0x0a, 5, 1][..], "field runs past the end of the input"),
            (&[0x0a][..], "truncated varint"),
            (&[0x0a, 0xff][..], "truncated varint"),
            (&[0x02, 0][..], "invalid field number"),
            (&[0x0b][..], "unsupported wire type"),
            (&[0x0e][..], "unsupported wire type"),
            (
                &[
                    0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02,
                ][..],
                "varint overflows 64 bits",
            ),
            (
                &[
                    0x0a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
                ][..],
                "field runs past the end of the input",
            ),
        ] {
            assert_eq!(
                SignatureRequest::from_bytes(bytes),
                Err(WarpError::Protobuf(why)),
                "{bytes:02x?}"
            );
        }
    }

    #[test]
    fn justification_oneof() {
        let by_index = L1ValidatorRegistrationJustification::from(
            Preimage::ConvertSubnetToL1TxData(SubnetIdIndex::new(Id([1; 32]), 3)),
        );
        let bytes = by_index.bytes();
        let mut want = vec![0x0a, 36, 0x0a, 32];
        want.extend_from_slice(&[1; 32]);
        want.extend_from_slice(&[0x10, 3]);
        assert_eq!(bytes, want);
        assert_eq!(
            L1ValidatorRegistrationJustification::from_bytes(&bytes),
            Ok(by_index)
        );

        // A set oneof member is written even when empty.
        let empty_index = L1ValidatorRegistrationJustification::from(
            Preimage::ConvertSubnetToL1TxData(SubnetIdIndex::default()),
        );
        assert_eq!(empty_index.bytes(), [0x0a, 0]);
        assert_eq!(
            L1ValidatorRegistrationJustification::from_bytes(&[0x0a, 0]),
            Ok(empty_index)
        );
        let empty_msg = L1ValidatorRegistrationJustification::from(
            Preimage::RegisterL1ValidatorMessage(vec![]),
        );
        assert_eq!(empty_msg.bytes(), [0x12, 0]);
        assert_eq!(
            L1ValidatorRegistrationJustification::from_bytes(&[]),
            Ok(L1ValidatorRegistrationJustification::default())
        );

        // The last member wins; a repeated sub-message merges.
        let bytes = [0x12, 1, 9, 0x0a, 2, 0x10, 4, 0x0a, 2, 0x0a, 0];
        assert_eq!(
            L1ValidatorRegistrationJustification::from_bytes(&bytes),
            Ok(Preimage::ConvertSubnetToL1TxData(SubnetIdIndex {
                subnet_id: vec![],
                index: 4
            })
            .into())
        );
        let bytes = [0x0a, 2, 0x10, 4, 0x12, 1, 9];
        assert_eq!(
            L1ValidatorRegistrationJustification::from_bytes(&bytes),
            Ok(Preimage::RegisterL1ValidatorMessage(vec![9]).into())
        );
    }

    #[test]
    fn subnet_id_index_validation_id() {
        let id = Id([4; 32]);
        assert_eq!(
            SubnetIdIndex::new(id, 7).validation_id(),
            Some(id.append(7))
        );
        assert_eq!(SubnetIdIndex::default().validation_id(), None);
    }
}
