//! The C-Chain's atomic txs (coreth's `plugin/evm/atomic`): ImportTx and ExportTx move assets
//! between the C-Chain's EVM state and the shared memory it has with the X- and P-Chains.
//!
//! An ImportTx spends UTXOs another chain exported (secp256k1fx inputs, as on the X-Chain) and
//! credits EVM accounts ([`EvmOutput`]); an ExportTx debits EVM accounts ([`EvmInput`], with
//! the account's nonce) and writes UTXOs for another chain. Signed txs pair one secp256k1fx
//! credential with each imported input or EVM input. Blocks carry them in their extra data:
//! one tx before Apricot Phase 5, a list of txs since ([`txs_from_ext_data`]).
//!
//! coreth's codec registers ImportTx (0) and ExportTx (1), skips three IDs so that the
//! secp256k1fx types keep the IDs they have on the other chains (5, 7, 9), then secp256k1fx's
//! Input (10) and OutputOwners (11). A tx's ID is sha256 of its signed bytes.
//!
//! There is no JSON form to match: coreth's `avax.getAtomicTx` always answers with the tx's
//! bytes (`formatting.Encode`), and `encoding: json` fails with "unsupported encoding in
//! method" (`utils/formatting/encoding.go`); no other coreth API marshals an atomic tx to JSON.

use crate::avax::secp256k1fx::{Credential, TransferInput, TransferOutput};
use crate::codec::{self, CodecError, Decode, Encode, Reader, Writer};
use crate::codec_struct;
use crate::ids::Id;
use alloy_primitives::Address;

/// Codec type IDs of coreth's atomic codec (`plugin/evm/atomic/codec.go`).
pub mod type_id {
    use crate::avax::secp256k1fx::type_id as secp256k1fx;

    pub const IMPORT_TX: u32 = 0;
    pub const EXPORT_TX: u32 = 1;
    pub const SECP256K1FX_TRANSFER_INPUT: u32 = secp256k1fx::TRANSFER_INPUT;
    pub const SECP256K1FX_TRANSFER_OUTPUT: u32 = secp256k1fx::TRANSFER_OUTPUT;
    pub const SECP256K1FX_CREDENTIAL: u32 = secp256k1fx::CREDENTIAL;
    pub const SECP256K1FX_INPUT: u32 = 10;
    pub const SECP256K1FX_OUTPUT_OWNERS: u32 = 11;
}

/// An asset amount imported from another chain, in the X-/P-Chain's denomination (nAVAX for
/// AVAX), credited to an EVM address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct EvmOutput {
    pub address: Address,
    pub amount: u64,
    pub asset_id: Id,
}
codec_struct!(EvmOutput {
    address: Address,
    amount: u64,
    asset_id: Id
});

/// An asset amount debited from an EVM address for export; `nonce` is the account's nonce,
/// which the export consumes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct EvmInput {
    pub address: Address,
    pub amount: u64,
    pub asset_id: Id,
    pub nonce: u64,
}
codec_struct!(EvmInput {
    address: Address,
    amount: u64,
    asset_id: Id,
    nonce: u64
});

impl Encode for Address {
    fn encode(&self, w: &mut Writer) {
        w.raw(self.as_slice());
    }
}

impl Decode for Address {
    const MIN_SIZE: usize = 20;
    fn decode(r: &mut Reader<'_>) -> Result<Self, CodecError> {
        Ok(Address::from(r.array::<20>()?))
    }
}

/// An X-/P-Chain UTXO being imported: always a secp256k1fx transfer input.
pub type TransferableInput = crate::avax::TransferableInput<TransferInput>;

/// An output exported to the X-/P-Chain: always a secp256k1fx transfer output.
pub type TransferableOutput = crate::avax::TransferableOutput<TransferOutput>;

/// A UTXO in the C-Chain's shared memory (`avax.getUTXOs`): always a secp256k1fx transfer output.
pub type Utxo = crate::avax::Utxo<TransferOutput>;

/// Type 0 (UnsignedImportTx).
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct ImportTx {
    pub network_id: u32,
    pub blockchain_id: Id,
    pub source_chain: Id,
    pub imported_inputs: Vec<TransferableInput>,
    pub outputs: Vec<EvmOutput>,
}
codec_struct!(ImportTx {
    network_id: u32,
    blockchain_id: Id,
    source_chain: Id,
    imported_inputs: Vec<TransferableInput>,
    outputs: Vec<EvmOutput>
});

/// Type 1 (UnsignedExportTx).
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct ExportTx {
    pub network_id: u32,
    pub blockchain_id: Id,
    pub destination_chain: Id,
    pub inputs: Vec<EvmInput>,
    pub exported_outputs: Vec<TransferableOutput>,
}
codec_struct!(ExportTx {
    network_id: u32,
    blockchain_id: Id,
    destination_chain: Id,
    inputs: Vec<EvmInput>,
    exported_outputs: Vec<TransferableOutput>
});

crate::codec_enum! {
    /// An unsigned atomic tx: the value behind coreth's `UnsignedAtomicTx` interface.
    pub enum UnsignedTx ("an atomic tx", min ImportTx) {
        Import(ImportTx) = type_id::IMPORT_TX, "UnsignedImportTx";
        Export(ExportTx) = type_id::EXPORT_TX, "UnsignedExportTx";
    }
}

impl UnsignedTx {
    /// The network the tx was made for.
    pub fn network_id(&self) -> u32 {
        match self {
            UnsignedTx::Import(t) => t.network_id,
            UnsignedTx::Export(t) => t.network_id,
        }
    }

    /// The C-Chain's blockchain ID, as the tx names it.
    pub fn blockchain_id(&self) -> Id {
        match self {
            UnsignedTx::Import(t) => t.blockchain_id,
            UnsignedTx::Export(t) => t.blockchain_id,
        }
    }

    /// The bytes credentials sign over: codec version and the tx.
    pub fn bytes(&self) -> Vec<u8> {
        codec::to_bytes(self)
    }
}

/// A signed atomic tx: one secp256k1fx credential per imported input or EVM input.
///
/// coreth's codec would read any registered type with a `Verify` method as a credential (an
/// input, an owner); no such tx can be valid, so only secp256k1fx credentials (type 9) decode.
pub type Tx = crate::avax::SignedTx<UnsignedTx, Credential>;

/// nAVAX to wei: the C-Chain credits and debits AVAX with 18 decimals, the other chains with 9.
pub const X2C_RATE: u64 = 1_000_000_000;
/// Gas every atomic tx pays on top of its bytes and signatures (Apricot Phase 5).
pub const ATOMIC_TX_INTRINSIC_GAS: u64 = 10_000;
/// Most gas one block's atomic txs use together (Apricot Phase 5).
pub const ATOMIC_GAS_LIMIT: u64 = 100_000;
/// Gas per signature (secp256k1fx's `CostPerSignature`).
pub const COST_PER_SIGNATURE: u64 = 1_000;

impl UnsignedTx {
    /// The gas the tx uses (coreth's `GasUsed(fixedFee: true)`): a gas per unsigned byte, per
    /// signature, and [`ATOMIC_TX_INTRINSIC_GAS`].
    pub fn gas_used(&self) -> u64 {
        let bytes = self.bytes().len() as u64;
        let signatures: u64 = match self {
            UnsignedTx::Import(t) => t
                .imported_inputs
                .iter()
                .map(|i| i.input.sig_indices.len() as u64)
                .sum(),
            UnsignedTx::Export(t) => t.inputs.len() as u64,
        };
        bytes
            .saturating_add(signatures.saturating_mul(COST_PER_SIGNATURE))
            .saturating_add(ATOMIC_TX_INTRINSIC_GAS)
    }

    /// What the tx burns of `asset`: what it consumes less what it produces, nAVAX for AVAX
    /// (its fee); 0 when it produces more (no valid tx does).
    pub fn burned(&self, asset: Id) -> u64 {
        let sum = |amounts: &mut dyn Iterator<Item = (Id, u64)>| -> u128 {
            amounts
                .filter(|(a, _)| *a == asset)
                .map(|(_, n)| u128::from(n))
                .sum()
        };
        let (consumed, produced) = match self {
            UnsignedTx::Import(t) => (
                sum(&mut t
                    .imported_inputs
                    .iter()
                    .map(|i| (i.asset_id, i.input.amount))),
                sum(&mut t.outputs.iter().map(|o| (o.asset_id, o.amount))),
            ),
            UnsignedTx::Export(t) => (
                sum(&mut t.inputs.iter().map(|i| (i.asset_id, i.amount))),
                sum(&mut t
                    .exported_outputs
                    .iter()
                    .map(|o| (o.asset_id, o.output.amount))),
            ),
        };
        u64::try_from(consumed.saturating_sub(produced)).unwrap_or(u64::MAX)
    }
}

/// The fee, in nAVAX, of `gas` at `base_fee` wei per gas, rounded up (coreth's
/// `CalculateDynamicFee`); `None` past `u64::MAX`.
pub fn dynamic_fee(gas: u64, base_fee: u64) -> Option<u64> {
    let wei = u128::from(gas) * u128::from(base_fee);
    u64::try_from(wei.div_ceil(u128::from(X2C_RATE))).ok()
}

/// The atomic txs in a C-Chain block's extra data: none when it is empty, one tx before Apricot
/// Phase 5, a non-empty list of txs since.
pub fn txs_from_ext_data(ext_data: &[u8], apricot_phase5: bool) -> Result<Vec<Tx>, CodecError> {
    if ext_data.is_empty() {
        return Ok(Vec::new());
    }
    if !apricot_phase5 {
        return Ok(vec![codec::from_bytes(ext_data)?]);
    }
    let txs: Vec<Tx> = codec::from_bytes(ext_data)?;
    if txs.is_empty() {
        return Err(CodecError::Invalid(
            "a block's extra data lists no atomic txs",
        ));
    }
    Ok(txs)
}

/// The extra data of a block carrying `txs` ([`txs_from_ext_data`]'s inverse): the single tx
/// before Apricot Phase 5, the list since.
pub fn ext_data_from_txs(txs: &[Tx], apricot_phase5: bool) -> Vec<u8> {
    match txs {
        [] => Vec::new(),
        [tx] if !apricot_phase5 => tx.bytes(),
        _ => {
            let mut w = Writer::new();
            w.version();
            w.vec(txs);
            w.into_bytes()
        }
    }
}

#[cfg(feature = "arbitrary")]
mod arbitrary_impls {
    //! By hand: `alloy_primitives::Address` has no `Arbitrary` without alloy's own feature.
    use super::*;
    use arbitrary::{Arbitrary, Result, Unstructured};

    impl<'a> Arbitrary<'a> for EvmOutput {
        fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
            Ok(Self {
                address: Address::from(<[u8; 20]>::arbitrary(u)?),
                amount: u.arbitrary()?,
                asset_id: u.arbitrary()?,
            })
        }
    }

    impl<'a> Arbitrary<'a> for EvmInput {
        fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
            Ok(Self {
                address: Address::from(<[u8; 20]>::arbitrary(u)?),
                amount: u.arbitrary()?,
                asset_id: u.arbitrary()?,
                nonce: u.arbitrary()?,
            })
        }
    }
}
