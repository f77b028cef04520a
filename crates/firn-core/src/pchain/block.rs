//! P-Chain blocks: Apricot (types 0–4) and Banff (types 29–32).
//!
//! A [`Block`] is its parent, height and [`BlockKind`]; its ID is sha256 of its bytes
//! (codec version included), computed on first use and cached. Decoding is canonical (the
//! bytes a block decodes from are exactly the bytes it encodes to), so the ID of a decoded
//! block is the hash of the bytes it came from.

use super::tx::Tx;
use super::type_id;
use crate::codec::{self, CodecError, Decode, Encode, Reader, Writer};
use crate::ids::Id;
use std::sync::OnceLock;

#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
/// What kind of block, with the fields only that kind has.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum BlockKind {
    ApricotProposal {
        tx: Tx,
    },
    ApricotAbort,
    ApricotCommit,
    ApricotStandard {
        txs: Vec<Tx>,
    },
    ApricotAtomic {
        tx: Tx,
    },
    /// `txs` are decision txs executed before the proposal `tx`.
    BanffProposal {
        time: u64,
        txs: Vec<Tx>,
        tx: Tx,
    },
    BanffAbort {
        time: u64,
    },
    BanffCommit {
        time: u64,
    },
    BanffStandard {
        time: u64,
        txs: Vec<Tx>,
    },
}

/// A P-Chain block. Read-only, so that its cached ID cannot go stale.
#[derive(Debug, Clone)]
pub struct Block {
    parent_id: Id,
    height: u64,
    kind: BlockKind,
    id: OnceLock<Id>,
}

impl PartialEq for Block {
    fn eq(&self, other: &Self) -> bool {
        self.parent_id == other.parent_id && self.height == other.height && self.kind == other.kind
    }
}

impl Eq for Block {}

impl std::hash::Hash for Block {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.parent_id.hash(state);
        self.height.hash(state);
        self.kind.hash(state);
    }
}

impl Block {
    /// Builds a block.
    pub fn new(parent_id: Id, height: u64, kind: BlockKind) -> Self {
        Self {
            parent_id,
            height,
            kind,
            id: OnceLock::new(),
        }
    }

    /// The block ID: sha256 of its bytes.
    pub fn id(&self) -> Id {
        *self.id.get_or_init(|| Id::hash_of(&self.bytes()))
    }

    /// The parent block's ID.
    pub fn parent_id(&self) -> Id {
        self.parent_id
    }

    /// The height: the parent's plus one.
    pub fn height(&self) -> u64 {
        self.height
    }

    /// The kind, with the kind's own fields.
    pub fn kind(&self) -> &BlockKind {
        &self.kind
    }

    /// The block's bytes: codec version, type ID, fields.
    pub fn bytes(&self) -> Vec<u8> {
        codec::to_bytes(self)
    }

    /// The codec type ID.
    pub fn type_id(&self) -> u32 {
        match self.kind {
            BlockKind::ApricotProposal { .. } => type_id::APRICOT_PROPOSAL_BLOCK,
            BlockKind::ApricotAbort => type_id::APRICOT_ABORT_BLOCK,
            BlockKind::ApricotCommit => type_id::APRICOT_COMMIT_BLOCK,
            BlockKind::ApricotStandard { .. } => type_id::APRICOT_STANDARD_BLOCK,
            BlockKind::ApricotAtomic { .. } => type_id::APRICOT_ATOMIC_BLOCK,
            BlockKind::BanffProposal { .. } => type_id::BANFF_PROPOSAL_BLOCK,
            BlockKind::BanffAbort { .. } => type_id::BANFF_ABORT_BLOCK,
            BlockKind::BanffCommit { .. } => type_id::BANFF_COMMIT_BLOCK,
            BlockKind::BanffStandard { .. } => type_id::BANFF_STANDARD_BLOCK,
        }
    }

    /// The Go type name, e.g. `BanffStandardBlock`.
    pub fn type_name(&self) -> &'static str {
        match self.kind {
            BlockKind::ApricotProposal { .. } => "ApricotProposalBlock",
            BlockKind::ApricotAbort => "ApricotAbortBlock",
            BlockKind::ApricotCommit => "ApricotCommitBlock",
            BlockKind::ApricotStandard { .. } => "ApricotStandardBlock",
            BlockKind::ApricotAtomic { .. } => "ApricotAtomicBlock",
            BlockKind::BanffProposal { .. } => "BanffProposalBlock",
            BlockKind::BanffAbort { .. } => "BanffAbortBlock",
            BlockKind::BanffCommit { .. } => "BanffCommitBlock",
            BlockKind::BanffStandard { .. } => "BanffStandardBlock",
        }
    }

    /// The block's timestamp (Unix seconds); Apricot blocks carry none.
    pub fn time(&self) -> Option<u64> {
        match self.kind {
            BlockKind::BanffProposal { time, .. }
            | BlockKind::BanffAbort { time }
            | BlockKind::BanffCommit { time }
            | BlockKind::BanffStandard { time, .. } => Some(time),
            _ => None,
        }
    }

    /// Every tx in execution order: decision txs, then the proposal or atomic tx.
    pub fn txs(&self) -> impl Iterator<Item = &Tx> {
        let (many, one): (&[Tx], Option<&Tx>) = match &self.kind {
            BlockKind::ApricotProposal { tx } | BlockKind::ApricotAtomic { tx } => (&[], Some(tx)),
            BlockKind::ApricotStandard { txs } | BlockKind::BanffStandard { txs, .. } => {
                (txs, None)
            }
            BlockKind::BanffProposal { txs, tx, .. } => (txs, Some(tx)),
            _ => (&[], None),
        };
        many.iter().chain(one)
    }
}

#[cfg(feature = "arbitrary")]
impl<'a> arbitrary::Arbitrary<'a> for Block {
    fn arbitrary(u: &mut arbitrary::Unstructured<'a>) -> arbitrary::Result<Self> {
        Ok(Self::new(u.arbitrary()?, u.arbitrary()?, u.arbitrary()?))
    }
}

impl Encode for Block {
    fn encode(&self, w: &mut Writer) {
        w.u32(self.type_id());
        let common = |w: &mut Writer| {
            self.parent_id.encode(w);
            w.u64(self.height);
        };
        match &self.kind {
            BlockKind::ApricotProposal { tx } | BlockKind::ApricotAtomic { tx } => {
                common(w);
                tx.encode(w);
            }
            BlockKind::ApricotAbort | BlockKind::ApricotCommit => common(w),
            BlockKind::ApricotStandard { txs } => {
                common(w);
                w.vec(txs);
            }
            BlockKind::BanffProposal { time, txs, tx } => {
                w.u64(*time);
                w.vec(txs);
                common(w);
                tx.encode(w);
            }
            BlockKind::BanffAbort { time } | BlockKind::BanffCommit { time } => {
                w.u64(*time);
                common(w);
            }
            BlockKind::BanffStandard { time, txs } => {
                w.u64(*time);
                common(w);
                w.vec(txs);
            }
        }
    }
}

impl Decode for Block {
    const MIN_SIZE: usize = 4 + 32 + 8;

    /// Decodes a block after its codec version.
    fn decode(r: &mut Reader<'_>) -> Result<Self, CodecError> {
        let type_id = r.u32()?;
        let common = |r: &mut Reader<'_>| -> Result<(Id, u64), CodecError> {
            Ok((Id::decode(r)?, r.u64()?))
        };
        let (parent_id, height, kind) = match type_id {
            type_id::APRICOT_PROPOSAL_BLOCK | type_id::APRICOT_ATOMIC_BLOCK => {
                let (p, h) = common(r)?;
                let tx = Tx::decode(r)?;
                let kind = if type_id == type_id::APRICOT_PROPOSAL_BLOCK {
                    BlockKind::ApricotProposal { tx }
                } else {
                    BlockKind::ApricotAtomic { tx }
                };
                (p, h, kind)
            }
            type_id::APRICOT_ABORT_BLOCK => {
                let (p, h) = common(r)?;
                (p, h, BlockKind::ApricotAbort)
            }
            type_id::APRICOT_COMMIT_BLOCK => {
                let (p, h) = common(r)?;
                (p, h, BlockKind::ApricotCommit)
            }
            type_id::APRICOT_STANDARD_BLOCK => {
                let (p, h) = common(r)?;
                (p, h, BlockKind::ApricotStandard { txs: r.vec()? })
            }
            type_id::BANFF_PROPOSAL_BLOCK => {
                let time = r.u64()?;
                let txs = r.vec()?;
                let (p, h) = common(r)?;
                (
                    p,
                    h,
                    BlockKind::BanffProposal {
                        time,
                        txs,
                        tx: Tx::decode(r)?,
                    },
                )
            }
            type_id::BANFF_ABORT_BLOCK | type_id::BANFF_COMMIT_BLOCK => {
                let time = r.u64()?;
                let (p, h) = common(r)?;
                let kind = if type_id == type_id::BANFF_ABORT_BLOCK {
                    BlockKind::BanffAbort { time }
                } else {
                    BlockKind::BanffCommit { time }
                };
                (p, h, kind)
            }
            type_id::BANFF_STANDARD_BLOCK => {
                let time = r.u64()?;
                let (p, h) = common(r)?;
                (
                    p,
                    h,
                    BlockKind::BanffStandard {
                        time,
                        txs: r.vec()?,
                    },
                )
            }
            type_id => {
                return Err(CodecError::UnknownTypeId {
                    type_id,
                    context: "a block",
                });
            }
        };
        Ok(Self::new(parent_id, height, kind))
    }
}
