//! The proposervm's wrapper around chain blocks (AvalancheGo's `vms/proposervm/block`).
//!
//! Since Apricot Phase 4 the P-, X- and C-Chain's blocks travel wrapped: the proposervm adds
//! who proposed the block and when, and the index API (`/ext/index/X/block`) serves these
//! wrappers, not the chain's own bytes. A wrapper is one of three codec types (version 0):
//!
//! | type | AvalancheGo            | fields                                                         |
//! |------|------------------------|----------------------------------------------------------------|
//! | 0    | `statelessBlock`        | parent, timestamp, P-Chain height, certificate, inner block, signature |
//! | 1    | `option`                | parent, inner block (the commit/abort options of a P-Chain proposal)    |
//! | 2    | `statelessGraniteBlock` | type 0's fields, then the epoch (P-Chain height, number, start time), then the signature |
//!
//! A post-fork block is *signed* when it carries the proposer's staking certificate (and a
//! signature by it), *unsigned* when both are empty (built when anyone may propose).
//!
//! IDs, as AvalancheGo computes them: a signed or unsigned block's ID is sha256 of its bytes
//! without the signature and its length prefix (so the signature does not change the ID); an
//! option's is sha256 of all its bytes.
//!
//! The proposer is the node ID of the certificate: `ripemd160(sha256(certificate bytes))`, as
//! `ids.NodeIDFromCert` hashes the raw bytes it was given. No X.509 parsing is needed for that,
//! so none is done: the certificate is only bounded (2 KiB, AvalancheGo's
//! `staking.MaxCertificateLen`). What is **not** checked: that the certificate is well-formed
//! X.509 with an RSA or ECDSA key (AvalancheGo refuses a block otherwise), the signature, and
//! that a Granite block's epoch is non-zero (`verify`, not parsing, in AvalancheGo). Nodes
//! only serve blocks that passed those checks; this parser is for reading what they serve.

use crate::codec::{self, Bytes, CodecError, Decode, Encode, Reader, Writer};
use crate::ids::{Id, NodeId};
use ripemd::Ripemd160;
use sha2::{Digest, Sha256};

/// The largest wrapper accepted: AvalancheGo bounds blocks by its p2p message size (2 MiB).
pub const MAX_BLOCK_SIZE: usize = 2 * 1024 * 1024;

/// The largest proposer certificate AvalancheGo parses (`staking.MaxCertificateLen`).
pub const MAX_CERTIFICATE_LEN: usize = 2 * 1024;

/// Codec type IDs of `vms/proposervm/block/codec.go`, in registration order.
pub mod type_id {
    pub const SIGNED_BLOCK: u32 = 0;
    pub const OPTION: u32 = 1;
    pub const GRANITE_BLOCK: u32 = 2;
}

/// The P-Chain epoch a Granite block was built in (block.Epoch).
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Epoch {
    pub p_chain_height: u64,
    pub number: u64,
    /// Unix seconds (an int64 in Go).
    pub start_time: i64,
}

/// A post-fork block: types 0 and 2 (`epoch` is `Some` exactly for type 2).
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct PostForkBlock {
    pub parent_id: Id,
    /// Unix seconds (an int64 in Go).
    pub timestamp: i64,
    /// The P-Chain height whose validator set the block was proposed under.
    pub p_chain_height: u64,
    /// The proposer's DER staking certificate; empty in an unsigned block.
    pub certificate: Bytes,
    /// The chain's own block bytes.
    pub inner: Bytes,
    pub epoch: Option<Epoch>,
    /// The proposer's signature over the block header; empty in an unsigned block.
    pub signature: Bytes,
}

/// An option block (type 1): one of the two outcomes of a P-Chain proposal block.
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct OptionBlock {
    pub parent_id: Id,
    pub inner: Bytes,
}

/// A proposervm block as the index API and the network carry it.
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Block {
    PostFork(PostForkBlock),
    Option(OptionBlock),
}

impl Block {
    /// Parses a wrapper (codec version included), bounded by [`MAX_BLOCK_SIZE`].
    pub fn parse(bytes: &[u8]) -> Result<Self, CodecError> {
        codec::from_bytes_with_max(bytes, MAX_BLOCK_SIZE)
    }

    /// The wrapper's bytes (codec version included).
    pub fn bytes(&self) -> Vec<u8> {
        codec::to_bytes(self)
    }

    /// The wrapper's ID (see the module docs for what is hashed).
    pub fn id(&self) -> Id {
        match self {
            Block::PostFork(b) => {
                let mut w = Writer::new();
                w.version();
                b.encode_unsigned(&mut w);
                Id::hash_of(w.as_slice())
            }
            Block::Option(_) => Id::hash_of(&self.bytes()),
        }
    }

    /// The parent wrapper's ID.
    pub fn parent_id(&self) -> Id {
        match self {
            Block::PostFork(b) => b.parent_id,
            Block::Option(o) => o.parent_id,
        }
    }

    /// The chain's own block bytes.
    pub fn inner(&self) -> &[u8] {
        match self {
            Block::PostFork(b) => &b.inner.0,
            Block::Option(o) => &o.inner.0,
        }
    }

    /// The timestamp (Unix seconds); options have none of their own.
    pub fn timestamp(&self) -> Option<i64> {
        match self {
            Block::PostFork(b) => Some(b.timestamp),
            Block::Option(_) => None,
        }
    }

    /// The P-Chain height the block was proposed under; options have none of their own.
    pub fn p_chain_height(&self) -> Option<u64> {
        match self {
            Block::PostFork(b) => Some(b.p_chain_height),
            Block::Option(_) => None,
        }
    }

    /// The proposer's node ID: `None` for options, [`NodeId::EMPTY`] for an unsigned block (as
    /// AvalancheGo reports it).
    pub fn proposer(&self) -> Option<NodeId> {
        match self {
            Block::PostFork(b) => Some(b.proposer()),
            Block::Option(_) => None,
        }
    }
}

impl PostForkBlock {
    /// True when the block carries a proposer certificate.
    pub fn is_signed(&self) -> bool {
        !self.certificate.0.is_empty()
    }

    /// The proposer's node ID, `ripemd160(sha256(certificate))`; [`NodeId::EMPTY`] if unsigned.
    pub fn proposer(&self) -> NodeId {
        if !self.is_signed() {
            return NodeId::EMPTY;
        }
        let sha = Sha256::digest(&self.certificate.0);
        let hash: [u8; 20] = Ripemd160::digest(sha).into();
        NodeId::from(hash)
    }

    /// Everything but the signature: what the ID hashes.
    fn encode_unsigned(&self, w: &mut Writer) {
        let type_id = match self.epoch {
            None => type_id::SIGNED_BLOCK,
            Some(_) => type_id::GRANITE_BLOCK,
        };
        w.u32(type_id);
        self.parent_id.encode(w);
        w.raw(&self.timestamp.to_be_bytes());
        w.u64(self.p_chain_height);
        self.certificate.encode(w);
        self.inner.encode(w);
        if let Some(epoch) = &self.epoch {
            w.u64(epoch.p_chain_height);
            w.u64(epoch.number);
            w.raw(&epoch.start_time.to_be_bytes());
        }
    }
}

impl Encode for Block {
    fn encode(&self, w: &mut Writer) {
        match self {
            Block::PostFork(b) => {
                b.encode_unsigned(w);
                b.signature.encode(w);
            }
            Block::Option(o) => {
                w.u32(type_id::OPTION);
                o.parent_id.encode(w);
                o.inner.encode(w);
            }
        }
    }
}

fn i64_be(r: &mut Reader<'_>) -> Result<i64, CodecError> {
    Ok(i64::from_be_bytes(r.array::<8>()?))
}

impl Decode for Block {
    /// An option with an empty inner block: type ID, parent, length.
    const MIN_SIZE: usize = 4 + 32 + 4;

    fn decode(r: &mut Reader<'_>) -> Result<Self, CodecError> {
        let type_id = r.u32()?;
        if type_id == type_id::OPTION {
            return Ok(Block::Option(OptionBlock {
                parent_id: Id::decode(r)?,
                inner: Bytes::decode(r)?,
            }));
        }
        if type_id != type_id::SIGNED_BLOCK && type_id != type_id::GRANITE_BLOCK {
            return Err(CodecError::UnknownTypeId {
                type_id,
                context: "a proposervm block",
            });
        }
        let parent_id = Id::decode(r)?;
        let timestamp = i64_be(r)?;
        let p_chain_height = r.u64()?;
        let certificate = Bytes::decode(r)?;
        if certificate.0.len() > MAX_CERTIFICATE_LEN {
            return Err(CodecError::Invalid(
                "a proposervm block's certificate is longer than AvalancheGo's 2 KiB limit",
            ));
        }
        let inner = Bytes::decode(r)?;
        let epoch = if type_id == type_id::GRANITE_BLOCK {
            Some(Epoch {
                p_chain_height: r.u64()?,
                number: r.u64()?,
                start_time: i64_be(r)?,
            })
        } else {
            None
        };
        Ok(Block::PostFork(PostForkBlock {
            parent_id,
            timestamp,
            p_chain_height,
            certificate,
            inner,
            epoch,
            signature: Bytes::decode(r)?,
        }))
    }
}
