//! What AvalancheGo's chains share on the wire: the types of `vms/components/avax` (UTXO IDs,
//! transferable inputs and outputs, the base tx, UTXOs, the signed tx) and of
//! [`secp256k1fx`], the one feature extension every chain registers.
//!
//! The P-Chain, the X-Chain and the C-Chain's atomic txs lay these out byte for byte alike, but
//! each chain's codec registers a different set of types behind the Go interfaces the fields
//! hold (the P-Chain adds stakeable locks, the X-Chain NFT and property outputs). So the types
//! here are generic over what sits behind the interface, and each chain picks it:
//! `pchain::fx::TransferableOutput` is `TransferableOutput<pchain::fx::Output>`,
//! `avm::TransferableOutput` is `TransferableOutput<secp256k1fx::TransferOutput>`.
//!
//! A value behind an interface is written as a u32 type ID then the value; [`Typed`] is that
//! form, and each chain's enum of implementations provides it.

pub mod json;
pub mod secp256k1fx;

use crate::codec::{self, Bytes, CodecError, Decode, Encode, Reader, Writer};
use crate::ids::Id;
use sha2::{Digest, Sha256};
use std::cmp::Ordering;
use std::sync::OnceLock;

/// A value Go holds behind an interface: its codec form is a u32 type ID, then the value.
pub trait Typed: Sized {
    /// The fewest bytes the typed form takes, type ID included.
    const TYPED_MIN_SIZE: usize;
    /// Writes the type ID and the value.
    fn encode_typed(&self, w: &mut Writer);
    /// Reads the type ID and the value, failing on a type ID this chain does not register here.
    fn decode_typed(r: &mut Reader<'_>) -> Result<Self, CodecError>;
}

/// Implements [`Typed`] for enums whose [`Encode`] and [`Decode`] already write the type ID.
#[macro_export]
macro_rules! typed_by_codec {
    ($($t:ty),* $(,)?) => {$(
        impl $crate::avax::Typed for $t {
            const TYPED_MIN_SIZE: usize = <$t as $crate::codec::Decode>::MIN_SIZE;
            fn encode_typed(&self, w: &mut $crate::codec::Writer) {
                $crate::codec::Encode::encode(self, w);
            }
            fn decode_typed(r: &mut $crate::codec::Reader<'_>) -> Result<Self, $crate::codec::CodecError> {
                <$t as $crate::codec::Decode>::decode(r)
            }
        }
    )*};
}

/// The codec of a struct laid out as a UTXO ID, an asset ID and a typed value (`field`):
/// avax.TransferableInput and avax.UTXO share it.
macro_rules! utxo_shaped {
    ($name:ident, $field:ident) => {
        impl<T: Typed> Encode for $name<T> {
            fn encode(&self, w: &mut Writer) {
                self.tx_id.encode(w);
                w.u32(self.output_index);
                self.asset_id.encode(w);
                self.$field.encode_typed(w);
            }
        }

        impl<T: Typed> Decode for $name<T> {
            const MIN_SIZE: usize = 32 + 4 + 32 + T::TYPED_MIN_SIZE;
            fn decode(r: &mut Reader<'_>) -> Result<Self, CodecError> {
                Ok(Self {
                    tx_id: Id::decode(r)?,
                    output_index: r.u32()?,
                    asset_id: Id::decode(r)?,
                    $field: T::decode_typed(r)?,
                })
            }
        }
    };
}

/// Which output of which tx (avax.UTXOID).
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct UtxoId {
    pub tx_id: Id,
    pub output_index: u32,
}
crate::codec_struct!(UtxoId {
    tx_id: Id,
    output_index: u32
});

impl UtxoId {
    /// The UTXO's ID: `tx_id.prefix(output_index)`, as AvalancheGo's `UTXOID.InputID`.
    pub fn id(&self) -> Id {
        self.tx_id.prefix(u64::from(self.output_index))
    }
}

/// An asset amount and who owns it (avax.TransferableOutput); `O` is what the chain registers
/// behind `TransferableOut`.
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TransferableOutput<O> {
    pub asset_id: Id,
    pub output: O,
}

impl<O: Typed> Encode for TransferableOutput<O> {
    fn encode(&self, w: &mut Writer) {
        self.asset_id.encode(w);
        self.output.encode_typed(w);
    }
}

impl<O: Typed> Decode for TransferableOutput<O> {
    const MIN_SIZE: usize = 32 + O::TYPED_MIN_SIZE;
    fn decode(r: &mut Reader<'_>) -> Result<Self, CodecError> {
        Ok(Self {
            asset_id: Id::decode(r)?,
            output: O::decode_typed(r)?,
        })
    }
}

impl<O: Typed> TransferableOutput<O> {
    /// AvalancheGo's canonical order of outputs (`avax.SortTransferableOutputs`): by asset,
    /// then by the output's codec bytes. A tx's outputs must be in this order.
    pub fn canonical_cmp(&self, other: &Self) -> Ordering {
        let bytes = |o: &O| {
            let mut w = Writer::new();
            w.version();
            o.encode_typed(&mut w);
            w.into_bytes()
        };
        self.asset_id
            .cmp(&other.asset_id)
            .then_with(|| bytes(&self.output).cmp(&bytes(&other.output)))
    }

    /// Sorts `outputs` into the canonical order ([`Self::canonical_cmp`]).
    pub fn sort_canonical(outputs: &mut [Self]) {
        outputs.sort_by(Self::canonical_cmp);
    }
}

/// A UTXO being spent (avax.TransferableInput): which output of which tx, and how; `I` is what
/// the chain registers behind `TransferableIn`.
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TransferableInput<I> {
    pub tx_id: Id,
    pub output_index: u32,
    pub asset_id: Id,
    pub input: I,
}

utxo_shaped!(TransferableInput, input);

impl<I> TransferableInput<I> {
    /// The spent UTXO.
    pub fn utxo(&self) -> UtxoId {
        UtxoId {
            tx_id: self.tx_id,
            output_index: self.output_index,
        }
    }

    /// The spent UTXO's ID: `tx_id.prefix(output_index)`.
    pub fn utxo_id(&self) -> Id {
        self.utxo().id()
    }
}

/// The fields most txs start with (avax.BaseTx).
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BaseTx<O, I> {
    pub network_id: u32,
    pub blockchain_id: Id,
    pub outputs: Vec<TransferableOutput<O>>,
    pub inputs: Vec<TransferableInput<I>>,
    pub memo: Bytes,
}

// Not derived: a derive would ask `O: Default` and `I: Default`, which enums cannot give.
impl<O, I> Default for BaseTx<O, I> {
    fn default() -> Self {
        Self {
            network_id: 0,
            blockchain_id: Id::ZERO,
            outputs: Vec::new(),
            inputs: Vec::new(),
            memo: Bytes::default(),
        }
    }
}

impl<O: Typed, I: Typed> Encode for BaseTx<O, I> {
    fn encode(&self, w: &mut Writer) {
        w.u32(self.network_id);
        self.blockchain_id.encode(w);
        w.vec(&self.outputs);
        w.vec(&self.inputs);
        self.memo.encode(w);
    }
}

impl<O: Typed, I: Typed> Decode for BaseTx<O, I> {
    const MIN_SIZE: usize = 4 + 32 + 4 + 4 + 4;
    fn decode(r: &mut Reader<'_>) -> Result<Self, CodecError> {
        Ok(Self {
            network_id: r.u32()?,
            blockchain_id: Id::decode(r)?,
            outputs: r.vec()?,
            inputs: r.vec()?,
            memo: Bytes::decode(r)?,
        })
    }
}

/// An unspent output as nodes return it (avax.UTXO; `getUTXOs` gives its codec bytes); `O` is
/// what the chain registers behind `verify.State`.
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Utxo<O> {
    pub tx_id: Id,
    pub output_index: u32,
    pub asset_id: Id,
    pub output: O,
}

utxo_shaped!(Utxo, output);

impl<O> Utxo<O> {
    /// Which output of which tx this is.
    pub fn utxo(&self) -> UtxoId {
        UtxoId {
            tx_id: self.tx_id,
            output_index: self.output_index,
        }
    }

    /// The UTXO's ID: `tx_id.prefix(output_index)`.
    pub fn id(&self) -> Id {
        self.utxo().id()
    }
}

/// A signed tx: an unsigned tx `U` (written with its type ID) and its credentials `C`.
///
/// Its ID is sha256 of the signed bytes (codec version included), computed on first use and
/// cached; the fields are read-only so that the cached ID can never go stale. Decoding is
/// canonical, so a decoded tx's ID is the hash of the bytes it came from.
#[derive(Debug, Clone)]
pub struct SignedTx<U, C> {
    unsigned: U,
    credentials: Vec<C>,
    id: OnceLock<Id>,
}

impl<U, C> SignedTx<U, C> {
    /// Pairs an unsigned tx with its credentials.
    pub fn new(unsigned: U, credentials: Vec<C>) -> Self {
        Self {
            unsigned,
            credentials,
            id: OnceLock::new(),
        }
    }

    /// The unsigned tx.
    pub fn unsigned(&self) -> &U {
        &self.unsigned
    }

    /// The credentials, one per input (and authorisation or operation), in order.
    pub fn credentials(&self) -> &[C] {
        &self.credentials
    }

    /// The unsigned tx and credentials.
    pub fn into_parts(self) -> (U, Vec<C>) {
        (self.unsigned, self.credentials)
    }
}

impl<U: Encode, C: Encode> SignedTx<U, C> {
    /// The tx ID: sha256 of the signed bytes.
    pub fn id(&self) -> Id {
        *self.id.get_or_init(|| Id::hash_of(&self.bytes()))
    }

    /// The signed bytes: codec version, unsigned tx, credentials.
    pub fn bytes(&self) -> Vec<u8> {
        codec::to_bytes(self)
    }

    /// The bytes credentials sign over: codec version and the unsigned tx.
    pub fn unsigned_bytes(&self) -> Vec<u8> {
        codec::to_bytes(&self.unsigned)
    }

    /// sha256 of [`Self::unsigned_bytes`]: the hash secp256k1 credentials sign.
    pub fn signing_hash(&self) -> [u8; 32] {
        Sha256::digest(self.unsigned_bytes()).into()
    }

    /// The ID of this tx's `index`-th output as a UTXO.
    pub fn utxo_id(&self, index: u32) -> Id {
        self.id().prefix(u64::from(index))
    }
}

impl<U: PartialEq, C: PartialEq> PartialEq for SignedTx<U, C> {
    fn eq(&self, other: &Self) -> bool {
        self.unsigned == other.unsigned && self.credentials == other.credentials
    }
}

impl<U: Eq, C: Eq> Eq for SignedTx<U, C> {}

impl<U: std::hash::Hash, C: std::hash::Hash> std::hash::Hash for SignedTx<U, C> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.unsigned.hash(state);
        self.credentials.hash(state);
    }
}

#[cfg(feature = "arbitrary")]
impl<'a, U: arbitrary::Arbitrary<'a>, C: arbitrary::Arbitrary<'a>> arbitrary::Arbitrary<'a>
    for SignedTx<U, C>
{
    fn arbitrary(u: &mut arbitrary::Unstructured<'a>) -> arbitrary::Result<Self> {
        Ok(Self::new(u.arbitrary()?, u.arbitrary()?))
    }
}

impl<U: Encode, C: Encode> Encode for SignedTx<U, C> {
    fn encode(&self, w: &mut Writer) {
        self.unsigned.encode(w);
        w.vec(&self.credentials);
    }
}

impl<U: Decode, C: Decode> Decode for SignedTx<U, C> {
    const MIN_SIZE: usize = U::MIN_SIZE + 4;
    /// Decodes a tx with no codec version, as inside a block.
    fn decode(r: &mut Reader<'_>) -> Result<Self, CodecError> {
        let unsigned = U::decode(r)?;
        Ok(Self::new(unsigned, r.vec()?))
    }
}
