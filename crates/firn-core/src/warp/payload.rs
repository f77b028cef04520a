//! The standard warp payloads of AvalancheGo's `vms/platformvm/warp/payload`.
//!
//! A payload is codec version 0, a u32 type ID, then the fields:
//!
//! ```text
//! Hash (0)          = [32] hash
//! AddressedCall (1) = u32 len ‖ sourceAddress ‖ u32 len ‖ payload
//! ```
//!
//! AvalancheGo refuses to parse payloads larger than [`MAX_PAYLOAD_SIZE`].

use super::WarpError;
use crate::codec::{self, CodecError, Decode, Encode, Reader, Writer};
use crate::ids::Id;

/// AvalancheGo's maximum payload size (24 KiB).
pub const MAX_PAYLOAD_SIZE: usize = 24 * 1024;
/// Type ID of [`Payload::Hash`].
pub const HASH_TYPE_ID: u32 = 0;
/// Type ID of [`Payload::AddressedCall`].
pub const ADDRESSED_CALL_TYPE_ID: u32 = 1;

/// A call from an address on the source chain; the destination, if any, is in `payload`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct AddressedCall {
    /// The sender: a 20-byte EVM address on EVM chains, empty for the P-Chain.
    pub source_address: Vec<u8>,
    /// The call's bytes.
    pub payload: Vec<u8>,
}

/// A standard warp payload.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Payload {
    /// Attests to a hash, e.g. a block hash.
    Hash(Id),
    /// A call from an address on the source chain.
    AddressedCall(AddressedCall),
}

impl Payload {
    /// The codec bytes: version, type ID, fields.
    pub fn bytes(&self) -> Vec<u8> {
        codec::to_bytes(self)
    }

    /// Decodes codec bytes, rejecting trailing bytes, unknown type IDs and inputs over
    /// [`MAX_PAYLOAD_SIZE`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, WarpError> {
        Ok(codec::from_bytes_with_max(bytes, MAX_PAYLOAD_SIZE)?)
    }

    /// The payload's type ID.
    pub fn type_id(&self) -> u32 {
        match self {
            Payload::Hash(_) => HASH_TYPE_ID,
            Payload::AddressedCall(_) => ADDRESSED_CALL_TYPE_ID,
        }
    }

    /// The payload type's name, as in AvalancheGo.
    pub fn type_name(&self) -> &'static str {
        match self {
            Payload::Hash(_) => "Hash",
            Payload::AddressedCall(_) => "AddressedCall",
        }
    }
}

impl AddressedCall {
    /// The codec bytes of this call as a [`Payload`].
    pub fn bytes(&self) -> Vec<u8> {
        let mut w = Writer::with_capacity(14 + self.source_address.len() + self.payload.len());
        w.version();
        w.u32(ADDRESSED_CALL_TYPE_ID);
        self.encode(&mut w);
        w.into_bytes()
    }

    /// Decodes payload bytes that must hold an `AddressedCall`.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, WarpError> {
        match Payload::from_bytes(bytes)? {
            Payload::AddressedCall(call) => Ok(call),
            other => Err(WarpError::WrongType {
                expected: "AddressedCall",
                found: other.type_name(),
            }),
        }
    }
}

impl From<AddressedCall> for Payload {
    fn from(call: AddressedCall) -> Self {
        Payload::AddressedCall(call)
    }
}

impl Encode for AddressedCall {
    fn encode(&self, w: &mut Writer) {
        w.bytes(&self.source_address);
        w.bytes(&self.payload);
    }
}

impl Decode for AddressedCall {
    const MIN_SIZE: usize = 8;
    fn decode(r: &mut Reader<'_>) -> Result<Self, CodecError> {
        Ok(Self {
            source_address: r.bytes()?.to_vec(),
            payload: r.bytes()?.to_vec(),
        })
    }
}

impl Encode for Payload {
    fn encode(&self, w: &mut Writer) {
        w.u32(self.type_id());
        match self {
            Payload::Hash(hash) => hash.encode(w),
            Payload::AddressedCall(call) => call.encode(w),
        }
    }
}

impl Decode for Payload {
    const MIN_SIZE: usize = 4 + AddressedCall::MIN_SIZE;
    fn decode(r: &mut Reader<'_>) -> Result<Self, CodecError> {
        r.nested(|r| match r.u32()? {
            HASH_TYPE_ID => Ok(Payload::Hash(Id::decode(r)?)),
            ADDRESSED_CALL_TYPE_ID => Ok(Payload::AddressedCall(AddressedCall::decode(r)?)),
            type_id => Err(CodecError::UnknownTypeId {
                type_id,
                context: "warp payload",
            }),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_layout() {
        let p = Payload::Hash(Id([0x11; 32]));
        let bytes = p.bytes();
        assert_eq!(&bytes[..6], &[0, 0, 0, 0, 0, 0]);
        assert_eq!(&bytes[6..], &[0x11; 32]);
        assert_eq!(Payload::from_bytes(&bytes), Ok(p));
    }

    #[test]
    fn addressed_call_layout() {
        let call = AddressedCall {
            source_address: vec![0xaa; 2],
            payload: b"xyz".to_vec(),
        };
        let bytes = call.bytes();
        assert_eq!(
            bytes,
            [
                0, 0, 0, 0, 0, 1, 0, 0, 0, 2, 0xaa, 0xaa, 0, 0, 0, 3, b'x', b'y', b'z'
            ]
        );
        assert_eq!(Payload::from(call.clone()).bytes(), bytes);
        assert_eq!(AddressedCall::from_bytes(&bytes), Ok(call));
    }

    #[test]
    fn wrong_types_and_sizes_fail() {
        let hash = Payload::Hash(Id::ZERO).bytes();
        assert_eq!(
            AddressedCall::from_bytes(&hash),
            Err(WarpError::WrongType {
                expected: "AddressedCall",
                found: "Hash"
            })
        );
        assert_eq!(
            Payload::from_bytes(&[0, 0, 0, 0, 0, 2]),
            Err(WarpError::Codec(CodecError::UnknownTypeId {
                type_id: 2,
                context: "warp payload"
            }))
        );
        let big = AddressedCall {
            source_address: vec![],
            payload: vec![0; MAX_PAYLOAD_SIZE],
        };
        assert!(matches!(
            Payload::from_bytes(&big.bytes()),
            Err(WarpError::Codec(CodecError::TooLarge { .. }))
        ));
    }
}
