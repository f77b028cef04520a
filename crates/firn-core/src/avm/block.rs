//! X-Chain blocks: since the Cortina upgrade linearized the X-Chain, its txs come in
//! StandardBlocks (type 20), written with the codec version and the type ID as the
//! `Block` interface is.

use super::tx::Tx;
use super::type_id;
use crate::codec::{self, CodecError, Decode, Encode, Reader, Writer};
use crate::ids::Id;
use std::sync::OnceLock;

/// An X-Chain StandardBlock. Read-only, so that its cached ID cannot go stale.
#[derive(Debug, Clone)]
pub struct Block {
    parent_id: Id,
    height: u64,
    time: u64,
    merkle_root: Id,
    txs: Vec<Tx>,
    id: OnceLock<Id>,
}

impl Block {
    /// Builds a block; `merkle_root` is always zero in blocks AvalancheGo builds.
    pub fn new(parent_id: Id, height: u64, time: u64, merkle_root: Id, txs: Vec<Tx>) -> Self {
        Self {
            parent_id,
            height,
            time,
            merkle_root,
            txs,
            id: OnceLock::new(),
        }
    }

    /// The block ID: sha256 of its bytes.
    pub fn id(&self) -> Id {
        *self.id.get_or_init(|| Id::hash_of(&self.bytes()))
    }

    /// The block's bytes: codec version, type ID, fields.
    pub fn bytes(&self) -> Vec<u8> {
        codec::to_bytes(self)
    }

    /// The parent block's ID.
    pub fn parent_id(&self) -> Id {
        self.parent_id
    }

    /// The height: the parent's plus one.
    pub fn height(&self) -> u64 {
        self.height
    }

    /// The timestamp (Unix seconds).
    pub fn time(&self) -> u64 {
        self.time
    }

    /// The merkle root field (unused by AvalancheGo, zero).
    pub fn merkle_root(&self) -> Id {
        self.merkle_root
    }

    /// The txs, in execution order.
    pub fn txs(&self) -> &[Tx] {
        &self.txs
    }
}

impl PartialEq for Block {
    fn eq(&self, other: &Self) -> bool {
        (self.parent_id, self.height, self.time, self.merkle_root)
            == (other.parent_id, other.height, other.time, other.merkle_root)
            && self.txs == other.txs
    }
}

impl Eq for Block {}

impl std::hash::Hash for Block {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (self.parent_id, self.height, self.time, self.merkle_root).hash(state);
        self.txs.hash(state);
    }
}

#[cfg(feature = "arbitrary")]
impl<'a> arbitrary::Arbitrary<'a> for Block {
    fn arbitrary(u: &mut arbitrary::Unstructured<'a>) -> arbitrary::Result<Self> {
        Ok(Self::new(
            u.arbitrary()?,
            u.arbitrary()?,
            u.arbitrary()?,
            u.arbitrary()?,
            u.arbitrary()?,
        ))
    }
}

impl Encode for Block {
    fn encode(&self, w: &mut Writer) {
        w.u32(type_id::STANDARD_BLOCK);
        self.parent_id.encode(w);
        w.u64(self.height);
        w.u64(self.time);
        self.merkle_root.encode(w);
        w.vec(&self.txs);
    }
}

impl Decode for Block {
    const MIN_SIZE: usize = 4 + 32 + 8 + 8 + 32 + 4;

    /// Decodes a block after its codec version.
    fn decode(r: &mut Reader<'_>) -> Result<Self, CodecError> {
        r.expect_type_id(type_id::STANDARD_BLOCK, "an X-Chain block")?;
        Ok(Self::new(
            Id::decode(r)?,
            r.u64()?,
            r.u64()?,
            Id::decode(r)?,
            r.vec()?,
        ))
    }
}
