//! Warp (ICM) messages, byte-compatible with AvalancheGo's `vms/platformvm/warp`.
//!
//! A Warp message is an [`UnsignedMessage`] (network ID, source chain ID, opaque payload)
//! plus a [`BitSetSignature`]: a [`bitset`] of the canonical validators that signed and
//! their aggregate BLS signature over the unsigned message bytes.
//!
//! - [`payload`]: the two standard payloads, `Hash` and `AddressedCall`;
//! - [`messages`]: the P-Chain's L1 messages (ACP-77) carried in an `AddressedCall`;
//! - [`validators`]: the canonical validator set, quorum verification and aggregation;
//! - [`acp118`]: the protobuf messages of ACP-118 signature requests;
//! - [`predicate`]: signed messages carried in a tx's access list, and the block's results.
//!
//! Wire layout (codec version 0, big-endian):
//!
//! ```text
//! UnsignedMessage = u16 version ‖ u32 networkID ‖ [32] sourceChainID ‖ u32 len ‖ payload
//! Message         = UnsignedMessage ‖ u32 typeID (0) ‖ u32 len ‖ signers ‖ [96] signature
//! ```
//!
//! A message's ID is the sha256 of its unsigned bytes, which are a prefix of the signed bytes.

pub mod acp118;
pub mod bitset;
pub mod json;
pub mod messages;
pub mod payload;
pub mod predicate;
pub mod validators;

use crate::codec::{self, CodecError, Decode, Encode, Reader, Writer};
use crate::ids::{Id, NodeId};

/// Length of a compressed BLS signature.
pub const SIGNATURE_LEN: usize = crate::keys::bls::SIGNATURE_LEN;
/// Length of a compressed BLS public key.
pub const PUBLIC_KEY_LEN: usize = crate::keys::bls::PUBLIC_KEY_LEN;
/// Type ID of [`BitSetSignature`] in the warp codec (the only signature type).
pub const BIT_SET_SIGNATURE_TYPE_ID: u32 = 0;
/// The largest warp message we decode: AvalancheGo's default maximum p2p message size
/// (2 MiB). AvalancheGo's warp codec itself has no limit, but nothing larger can cross
/// the network.
pub const MAX_MESSAGE_SIZE: usize = 2 * 1024 * 1024;
/// The EVM's default quorum numerator (`WarpDefaultQuorumNumerator`).
pub const DEFAULT_QUORUM_NUM: u64 = 67;
/// The EVM's quorum denominator (`WarpQuorumDenominator`).
pub const QUORUM_DEN: u64 = 100;
/// The destination chain ID meaning "any chain" (all `0xff`).
pub const ANYCAST_ID: Id = Id([0xff; 32]);

/// Why a warp message could not be decoded, built or verified.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WarpError {
    #[error("malformed warp bytes: {0}")]
    Codec(#[from] CodecError),
    #[error("wrong payload type: expected {expected}, found {found}")]
    WrongType {
        expected: &'static str,
        found: &'static str,
    },
    #[error("message is for network {actual}, expected network {expected}")]
    WrongNetwork { expected: u32, actual: u32 },
    #[error("bitset is invalid: it starts with a zero byte")]
    InvalidBitSet,
    #[error(
        "unknown validator: signer index {index} but the canonical set has {validators} validators"
    )]
    UnknownValidator { index: usize, validators: usize },
    #[error("signer index {0} is given more than once")]
    DuplicateSigner(usize),
    #[error("no signers: at least one signature is needed")]
    NoSigners,
    #[error(
        "quorum {num}/{den} is invalid: the denominator must be positive and not below the numerator"
    )]
    InvalidQuorum { num: u64, den: u64 },
    #[error(
        "signature weight is insufficient: {signed} signed, {required} required of total {total}"
    )]
    InsufficientWeight {
        /// Weight of the validators that signed.
        signed: u64,
        /// The least signed weight that would reach the quorum.
        required: u64,
        /// Weight of the whole validator set.
        total: u64,
    },
    #[error("signature is invalid")]
    InvalidSignature,
    #[error("signature bytes are not a valid BLS signature: {0}")]
    MalformedSignature(String),
    #[error("BLS aggregation failed: {0}")]
    Bls(String),
    #[error("validator weights overflow u64")]
    WeightOverflow,
    #[error("{0} appears more than once in the validator set")]
    DuplicateNodeId(NodeId),
    #[error("not a P-Chain L1 message: {0}")]
    NotPChainMessage(&'static str),
    #[error("invalid {field}: {reason}")]
    InvalidField {
        field: &'static str,
        reason: &'static str,
    },
    #[error("malformed protobuf: {0}")]
    Protobuf(&'static str),
    #[error("app request is for handler {0}, expected the ACP-118 handler {expected}", expected = acp118::HANDLER_ID)]
    WrongHandler(u64),
}

/// A warp message before it is signed. Its [`bytes`](Self::bytes) are what validators sign.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct UnsignedMessage {
    /// The network the message belongs to (1 mainnet, 5 Fuji, ...).
    pub network_id: u32,
    /// The chain that sent the message; [`crate::network::P_CHAIN_ID`] for P-Chain messages.
    pub source_chain_id: Id,
    /// Opaque payload, usually the bytes of a [`payload::Payload`].
    pub payload: Vec<u8>,
}

impl UnsignedMessage {
    /// A message from `source_chain_id` on `network_id`.
    pub fn new(network_id: u32, source_chain_id: Id, payload: Vec<u8>) -> Self {
        Self {
            network_id,
            source_chain_id,
            payload,
        }
    }

    /// The codec bytes: version, network ID, source chain ID, payload.
    pub fn bytes(&self) -> Vec<u8> {
        codec::to_bytes(self)
    }

    /// Decodes codec bytes, rejecting trailing bytes and inputs over [`MAX_MESSAGE_SIZE`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, WarpError> {
        Ok(codec::from_bytes_with_max(bytes, MAX_MESSAGE_SIZE)?)
    }

    /// The message ID: sha256 of [`bytes`](Self::bytes).
    pub fn id(&self) -> Id {
        Id::hash_of(&self.bytes())
    }
}

impl Encode for UnsignedMessage {
    fn encode(&self, w: &mut Writer) {
        w.u32(self.network_id);
        self.source_chain_id.encode(w);
        w.bytes(&self.payload);
    }
}

impl Decode for UnsignedMessage {
    const MIN_SIZE: usize = 4 + 32 + 4;
    fn decode(r: &mut Reader<'_>) -> Result<Self, CodecError> {
        Ok(Self {
            network_id: r.u32()?,
            source_chain_id: Id::decode(r)?,
            payload: r.bytes()?.to_vec(),
        })
    }
}

/// The signers of a message and their aggregate signature.
///
/// `signers` is kept as raw bytes so that any message round-trips; it is checked (see
/// [`bitset`]) when the signature is verified or counted.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BitSetSignature {
    /// Big-endian bitset: bit `i` marks canonical validator `i`.
    pub signers: Vec<u8>,
    /// Compressed aggregate BLS signature.
    pub signature: [u8; SIGNATURE_LEN],
}

impl BitSetSignature {
    /// How many validators signed (AvalancheGo's `NumSigners`). Fails on a bitset with a
    /// leading zero byte.
    pub fn num_signers(&self) -> Result<usize, WarpError> {
        bitset::count(&self.signers)
    }

    /// The canonical indices of the signers, ascending.
    pub fn signer_indices(&self) -> Result<Vec<usize>, WarpError> {
        bitset::to_indices(&self.signers)
    }
}

impl Encode for BitSetSignature {
    fn encode(&self, w: &mut Writer) {
        w.bytes(&self.signers);
        w.raw(&self.signature);
    }
}

impl Decode for BitSetSignature {
    const MIN_SIZE: usize = 4 + SIGNATURE_LEN;
    fn decode(r: &mut Reader<'_>) -> Result<Self, CodecError> {
        Ok(Self {
            signers: r.bytes()?.to_vec(),
            signature: r.array()?,
        })
    }
}

/// A signed warp message.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Message {
    /// What was signed.
    pub unsigned: UnsignedMessage,
    /// Who signed it, and the aggregate signature.
    pub signature: BitSetSignature,
}

impl Message {
    /// Pairs an unsigned message with its signature.
    pub fn new(unsigned: UnsignedMessage, signature: BitSetSignature) -> Self {
        Self {
            unsigned,
            signature,
        }
    }

    /// The codec bytes: the unsigned message bytes, then the signature with its type ID.
    pub fn bytes(&self) -> Vec<u8> {
        codec::to_bytes(self)
    }

    /// Decodes codec bytes, rejecting trailing bytes, unknown signature types and inputs
    /// over [`MAX_MESSAGE_SIZE`]. The signer bitset is not checked here.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, WarpError> {
        Ok(codec::from_bytes_with_max(bytes, MAX_MESSAGE_SIZE)?)
    }

    /// The message ID: that of the unsigned message.
    pub fn id(&self) -> Id {
        self.unsigned.id()
    }
}

impl Encode for Message {
    fn encode(&self, w: &mut Writer) {
        self.unsigned.encode(w);
        w.u32(BIT_SET_SIGNATURE_TYPE_ID);
        self.signature.encode(w);
    }
}

impl Decode for Message {
    const MIN_SIZE: usize = UnsignedMessage::MIN_SIZE + 4 + BitSetSignature::MIN_SIZE;
    fn decode(r: &mut Reader<'_>) -> Result<Self, CodecError> {
        let unsigned = UnsignedMessage::decode(r)?;
        let signature = r.nested(|r| match r.u32()? {
            BIT_SET_SIGNATURE_TYPE_ID => BitSetSignature::decode(r),
            type_id => Err(CodecError::UnknownTypeId {
                type_id,
                context: "warp signature",
            }),
        })?;
        Ok(Self {
            unsigned,
            signature,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Message {
        Message::new(
            UnsignedMessage::new(5, Id([7; 32]), b"hi".to_vec()),
            BitSetSignature {
                signers: vec![0x05],
                signature: [0xab; SIGNATURE_LEN],
            },
        )
    }

    #[test]
    fn unsigned_layout_and_id() {
        let m = sample().unsigned;
        let bytes = m.bytes();
        let mut want = vec![0, 0, 0, 0, 0, 5];
        want.extend_from_slice(&[7; 32]);
        want.extend_from_slice(&[0, 0, 0, 2, b'h', b'i']);
        assert_eq!(bytes, want);
        assert_eq!(m.id(), Id::hash_of(&want));
        assert_eq!(UnsignedMessage::from_bytes(&bytes), Ok(m));
    }

    #[test]
    fn signed_bytes_extend_the_unsigned_bytes() {
        let m = sample();
        let bytes = m.bytes();
        let unsigned = m.unsigned.bytes();
        assert!(bytes.starts_with(&unsigned));
        let tail = &bytes[unsigned.len()..];
        assert_eq!(&tail[..9], &[0, 0, 0, 0, 0, 0, 0, 1, 0x05]);
        assert_eq!(&tail[9..], &[0xab; SIGNATURE_LEN]);
        assert_eq!(Message::from_bytes(&bytes), Ok(m.clone()));
        assert_eq!(m.id(), m.unsigned.id());
    }

    #[test]
    fn rejects_unknown_signature_types_and_trailing_bytes() {
        let m = sample();
        let unsigned_len = m.unsigned.bytes().len();
        let mut bytes = m.bytes();
        bytes[unsigned_len + 3] = 1;
        assert_eq!(
            Message::from_bytes(&bytes),
            Err(WarpError::Codec(CodecError::UnknownTypeId {
                type_id: 1,
                context: "warp signature"
            }))
        );
        let mut bytes = m.bytes();
        bytes.push(0);
        assert_eq!(
            Message::from_bytes(&bytes),
            Err(WarpError::Codec(CodecError::TrailingBytes(1)))
        );
        assert!(matches!(
            Message::from_bytes(&bytes[..bytes.len() - 2]),
            Err(WarpError::Codec(CodecError::UnexpectedEof { .. }))
        ));
    }

    #[test]
    fn hostile_lengths_fail_cleanly() {
        let mut bytes = vec![0, 0, 0, 0, 0, 1];
        bytes.extend_from_slice(&[0; 32]);
        bytes.extend_from_slice(&[0xff, 0xff, 0xff, 0xff]);
        assert!(matches!(
            UnsignedMessage::from_bytes(&bytes),
            Err(WarpError::Codec(CodecError::SliceTooLong { .. }))
        ));
        let big = vec![0u8; MAX_MESSAGE_SIZE + 1];
        assert!(matches!(
            Message::from_bytes(&big),
            Err(WarpError::Codec(CodecError::TooLarge { .. }))
        ));
    }
}
