//! The vertices of the DAG the X-Chain ran on until the Cortina upgrade linearized it
//! (`snow/engine/avalanche/vertex`).
//!
//! A vertex's codec version says its layout: version 0 is a standard vertex (chain, height,
//! epoch, parents, txs), version 1 the stop vertex that ended the DAG (chain, height,
//! parents). The txs are opaque byte strings to the vertex; on the X-Chain each is a signed
//! [`Tx`] with its own codec version. A vertex's ID is sha256 of its bytes.

use super::tx::Tx;
use crate::codec::{self, Bytes, CodecError, Decode, Encode, Reader, Writer};
use crate::ids::Id;
use std::sync::OnceLock;

/// The largest vertex AvalancheGo's vertex codec accepts: 1 MiB.
pub const MAX_VERTEX_SIZE: usize = 1024 * 1024;

/// The codec version of a standard vertex.
pub const STANDARD_VERSION: u16 = 0;
/// The codec version of the stop vertex.
pub const STOP_VERSION: u16 = 1;

/// What the version says the vertex holds.
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum VertexKind {
    /// Version 0: txs, with an epoch (always 0 in valid vertices).
    Standard { epoch: u32, txs: Vec<Bytes> },
    /// Version 1: the stop vertex, with no txs.
    Stop,
}

/// A DAG vertex. Read-only, so that its cached ID cannot go stale.
#[derive(Debug, Clone)]
pub struct Vertex {
    chain_id: Id,
    height: u64,
    parent_ids: Vec<Id>,
    kind: VertexKind,
    id: OnceLock<Id>,
}

impl Vertex {
    /// Builds a vertex.
    pub fn new(chain_id: Id, height: u64, parent_ids: Vec<Id>, kind: VertexKind) -> Self {
        Self {
            chain_id,
            height,
            parent_ids,
            kind,
            id: OnceLock::new(),
        }
    }

    /// Decodes a vertex: at most [`MAX_VERTEX_SIZE`] bytes, version 0 or 1, no trailing bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, CodecError> {
        if bytes.len() > MAX_VERTEX_SIZE {
            return Err(CodecError::TooLarge {
                len: bytes.len(),
                max: MAX_VERTEX_SIZE,
            });
        }
        let mut r = Reader::new(bytes);
        let version = r.u16()?;
        if version != STANDARD_VERSION && version != STOP_VERSION {
            return Err(CodecError::UnknownVersion(version));
        }
        let chain_id = Id::decode(&mut r)?;
        let height = r.u64()?;
        let vertex = if version == STANDARD_VERSION {
            let epoch = r.u32()?;
            let parent_ids = r.vec()?;
            let txs = r.vec()?;
            Self::new(
                chain_id,
                height,
                parent_ids,
                VertexKind::Standard { epoch, txs },
            )
        } else {
            Self::new(chain_id, height, r.vec()?, VertexKind::Stop)
        };
        r.finish()?;
        Ok(vertex)
    }

    /// The vertex's bytes: its version, then the fields that version has.
    pub fn bytes(&self) -> Vec<u8> {
        let mut w = Writer::with_capacity(256);
        match &self.kind {
            VertexKind::Standard { epoch, txs } => {
                w.u16(STANDARD_VERSION);
                self.chain_id.encode(&mut w);
                w.u64(self.height);
                w.u32(*epoch);
                w.vec(&self.parent_ids);
                w.vec(txs);
            }
            VertexKind::Stop => {
                w.u16(STOP_VERSION);
                self.chain_id.encode(&mut w);
                w.u64(self.height);
                w.vec(&self.parent_ids);
            }
        }
        w.into_bytes()
    }

    /// The vertex ID: sha256 of its bytes.
    pub fn id(&self) -> Id {
        *self.id.get_or_init(|| Id::hash_of(&self.bytes()))
    }

    /// The chain the vertex belongs to.
    pub fn chain_id(&self) -> Id {
        self.chain_id
    }

    /// The height: one more than the highest parent's.
    pub fn height(&self) -> u64 {
        self.height
    }

    /// The parents' IDs.
    pub fn parent_ids(&self) -> &[Id] {
        &self.parent_ids
    }

    /// Standard or stop, with what that kind holds.
    pub fn kind(&self) -> &VertexKind {
        &self.kind
    }

    /// True for the stop vertex that ended the DAG.
    pub fn is_stop_vertex(&self) -> bool {
        self.kind == VertexKind::Stop
    }

    /// The txs' bytes (none in the stop vertex).
    pub fn tx_bytes(&self) -> &[Bytes] {
        match &self.kind {
            VertexKind::Standard { txs, .. } => txs,
            VertexKind::Stop => &[],
        }
    }

    /// The txs decoded as X-Chain txs.
    pub fn txs(&self) -> Result<Vec<Tx>, CodecError> {
        self.tx_bytes()
            .iter()
            .map(|b| codec::from_bytes(b))
            .collect()
    }
}

impl PartialEq for Vertex {
    fn eq(&self, other: &Self) -> bool {
        (self.chain_id, self.height) == (other.chain_id, other.height)
            && self.parent_ids == other.parent_ids
            && self.kind == other.kind
    }
}

impl Eq for Vertex {}

#[cfg(feature = "arbitrary")]
impl<'a> arbitrary::Arbitrary<'a> for Vertex {
    fn arbitrary(u: &mut arbitrary::Unstructured<'a>) -> arbitrary::Result<Self> {
        Ok(Self::new(
            u.arbitrary()?,
            u.arbitrary()?,
            u.arbitrary()?,
            u.arbitrary()?,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_vertices_have_no_epoch_or_txs() {
        let v = Vertex::new(Id([1; 32]), 2, vec![Id([4; 32])], VertexKind::Stop);
        let bytes = v.bytes();
        assert_eq!(bytes.len(), 2 + 32 + 8 + 4 + 32);
        assert_eq!(&bytes[..2], &[0, 1]);
        assert_eq!(Vertex::from_bytes(&bytes), Ok(v));
    }

    #[test]
    fn other_versions_are_rejected() {
        assert_eq!(
            Vertex::from_bytes(&[0, 2, 0]),
            Err(CodecError::UnknownVersion(2))
        );
    }
}
