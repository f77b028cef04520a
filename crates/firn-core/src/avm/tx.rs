//! X-Chain transactions: the five unsigned types of `vms/avm/txs` and the signed [`Tx`].

use super::fx::{Credential, FxOperation, FxOutput};
use super::type_id;
use super::{TransferableInput, TransferableOutput};
use crate::avax::UtxoId;
use crate::avax::secp256k1fx::{TransferInput, TransferOutput};
use crate::codec;
use crate::codec_struct;
use crate::ids::Id;

/// Type 0, and the fields every X-Chain tx starts with (avax.BaseTx with secp256k1fx outputs and
/// inputs, the only ones the X-Chain registers behind `TransferableOut` and `TransferableIn`).
pub type BaseTx = crate::avax::BaseTx<TransferOutput, TransferInput>;

/// The outputs an asset starts with, all of one fx (txs.InitialState).
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct InitialState {
    /// Index of the fx in the X-Chain's fx list ([`super::fx::Fx::from_index`]); the codec takes
    /// any value, the VM only 0–2.
    pub fx_index: u32,
    pub outputs: Vec<FxOutput>,
}
codec_struct!(InitialState {
    fx_index: u32,
    outputs: Vec<FxOutput>
});

/// Type 1: creates an asset. Its ID is the tx's ID.
///
/// The initial states decide the kind of asset: secp256k1fx transfer outputs alone give a
/// fixed-cap asset, secp256k1fx mint outputs a variable-cap one, nftfx mint outputs an NFT
/// family (one group per output), propertyfx mint outputs a property.
///
/// The name and symbol must be UTF-8 here; Go's codec takes any bytes, but the AVM accepts
/// only ASCII letters, digits and spaces, so no accepted tx is refused.
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct CreateAssetTx {
    pub base: BaseTx,
    pub name: String,
    pub symbol: String,
    pub denomination: u8,
    pub initial_states: Vec<InitialState>,
}
codec_struct!(CreateAssetTx {
    base: BaseTx,
    name: String,
    symbol: String,
    denomination: u8,
    initial_states: Vec<InitialState>,
});

/// One operation of an OperationTx: `op` consumes the UTXOs `utxo_ids` of asset `asset_id`
/// (txs.Operation).
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Operation {
    pub asset_id: Id,
    pub utxo_ids: Vec<UtxoId>,
    pub op: FxOperation,
}
codec_struct!(Operation {
    asset_id: Id,
    utxo_ids: Vec<UtxoId>,
    op: FxOperation
});

/// Type 2: mints, transfers NFTs, or burns properties.
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct OperationTx {
    pub base: BaseTx,
    pub operations: Vec<Operation>,
}
codec_struct!(OperationTx {
    base: BaseTx,
    operations: Vec<Operation>
});

/// Type 3: consumes UTXOs another chain exported to the X-Chain.
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct ImportTx {
    pub base: BaseTx,
    pub source_chain: Id,
    pub imported_inputs: Vec<TransferableInput>,
}
codec_struct!(ImportTx {
    base: BaseTx,
    source_chain: Id,
    imported_inputs: Vec<TransferableInput>
});

/// Type 4: sends outputs to another chain's shared memory.
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct ExportTx {
    pub base: BaseTx,
    pub destination_chain: Id,
    pub exported_outputs: Vec<TransferableOutput>,
}
codec_struct!(ExportTx {
    base: BaseTx,
    destination_chain: Id,
    exported_outputs: Vec<TransferableOutput>
});

crate::codec_enum! {
    /// An unsigned X-Chain tx: the value behind the AVM's `UnsignedTx` interface.
    pub enum UnsignedTx ("an X-Chain unsigned tx", min BaseTx) {
        Base(BaseTx) = type_id::BASE_TX, "BaseTx";
        CreateAsset(CreateAssetTx) = type_id::CREATE_ASSET_TX, "CreateAssetTx";
        Operation(OperationTx) = type_id::OPERATION_TX, "OperationTx";
        Import(ImportTx) = type_id::IMPORT_TX, "ImportTx";
        Export(ExportTx) = type_id::EXPORT_TX, "ExportTx";
    }
}

impl UnsignedTx {
    /// The BaseTx fields every X-Chain tx starts with.
    pub fn base(&self) -> &BaseTx {
        match self {
            UnsignedTx::Base(t) => t,
            UnsignedTx::CreateAsset(t) => &t.base,
            UnsignedTx::Operation(t) => &t.base,
            UnsignedTx::Import(t) => &t.base,
            UnsignedTx::Export(t) => &t.base,
        }
    }

    /// Every UTXO the tx consumes: its inputs, then imported inputs or operations' UTXOs, in
    /// the order its credentials follow.
    pub fn consumed_utxos(&self) -> Vec<UtxoId> {
        let mut utxos: Vec<UtxoId> = self.base().inputs.iter().map(|i| i.utxo()).collect();
        match self {
            UnsignedTx::Import(t) => utxos.extend(t.imported_inputs.iter().map(|i| i.utxo())),
            UnsignedTx::Operation(t) => utxos.extend(
                t.operations
                    .iter()
                    .flat_map(|op| op.utxo_ids.iter().copied()),
            ),
            _ => {}
        }
        utxos
    }

    /// The bytes credentials sign over: codec version and the tx.
    pub fn bytes(&self) -> Vec<u8> {
        codec::to_bytes(self)
    }
}

/// A signed X-Chain tx: the unsigned tx and one credential per input, imported input or
/// operation. Its ID is sha256 of the signed bytes; a CreateAssetTx's ID is the asset's ID.
pub type Tx = crate::avax::SignedTx<UnsignedTx, Credential>;
