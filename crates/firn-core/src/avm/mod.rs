//! X-Chain (AVM) transactions, blocks and vertices, byte-compatible with AvalancheGo's
//! `vms/avm` and `snow/engine/avalanche/vertex`.
//!
//! - [`fx`]: the outputs, operations and credentials of secp256k1fx, nftfx and propertyfx;
//! - [`tx`]: [`UnsignedTx`] (BaseTx, CreateAssetTx, OperationTx, ImportTx, ExportTx) and the
//!   signed [`Tx`];
//! - [`block`]: the [`Block`] of the linearized chain (StandardBlock, since Cortina);
//! - [`vertex`]: the [`Vertex`] of the DAG the X-Chain ran on before Cortina;
//! - [`json`]: the JSON `avm.getTx` and `avm.getBlock` give txs and blocks;
//! - [`genesis`]: the X-Chain's genesis, and the AVAX asset ID it yields.
//!
//! The secp256k1fx types the X-Chain shares with the other chains, and the generic
//! transferable inputs and outputs, come from [`crate::avax`]. Type IDs are the AVM codec's:
//! the five tx types, then each fx's types in the order the fx registers them, fxs in the
//! X-Chain's order (secp256k1fx, nftfx, propertyfx), then the block ([`type_id`]).
//!
//! IDs are computed as on the P-Chain: a tx's ID is sha256 of its signed bytes, a block's or
//! vertex's sha256 of its bytes, a UTXO's `tx_id.prefix(output_index)`. Decoding is canonical,
//! so these are the hashes of the bytes a value was decoded from.

pub mod block;
pub mod fx;
pub mod genesis;
pub mod json;
pub mod tx;
pub mod vertex;

pub use block::Block;
pub use fx::{Credential, Fx, FxOperation, FxOutput};
pub use tx::{Tx, UnsignedTx};
pub use vertex::Vertex;

use crate::avax::secp256k1fx::{TransferInput, TransferOutput};

/// An asset amount and who owns it: on the X-Chain always a secp256k1fx transfer output.
pub type TransferableOutput = crate::avax::TransferableOutput<TransferOutput>;

/// A UTXO being spent: on the X-Chain always with a secp256k1fx transfer input.
pub type TransferableInput = crate::avax::TransferableInput<TransferInput>;

/// An X-Chain UTXO (`avm.getUTXOs` gives its codec bytes), holding any fx's output.
pub type Utxo = crate::avax::Utxo<FxOutput>;

/// Codec type IDs of the X-Chain (`vms/avm/txs/parser.go`, each fx's `Initialize`,
/// `vms/avm/block/parser.go`). The fx and block IDs follow from the X-Chain registering
/// exactly secp256k1fx, nftfx and propertyfx, in that order; an AVM with other fxs numbers
/// them differently.
pub mod type_id {
    use crate::avax::secp256k1fx::type_id as secp256k1fx;

    pub const BASE_TX: u32 = 0;
    pub const CREATE_ASSET_TX: u32 = 1;
    pub const OPERATION_TX: u32 = 2;
    pub const IMPORT_TX: u32 = 3;
    pub const EXPORT_TX: u32 = 4;
    pub const SECP256K1FX_TRANSFER_INPUT: u32 = secp256k1fx::TRANSFER_INPUT;
    pub const SECP256K1FX_MINT_OUTPUT: u32 = secp256k1fx::MINT_OUTPUT;
    pub const SECP256K1FX_TRANSFER_OUTPUT: u32 = secp256k1fx::TRANSFER_OUTPUT;
    pub const SECP256K1FX_MINT_OPERATION: u32 = secp256k1fx::MINT_OPERATION;
    pub const SECP256K1FX_CREDENTIAL: u32 = secp256k1fx::CREDENTIAL;
    pub const NFTFX_MINT_OUTPUT: u32 = 10;
    pub const NFTFX_TRANSFER_OUTPUT: u32 = 11;
    pub const NFTFX_MINT_OPERATION: u32 = 12;
    pub const NFTFX_TRANSFER_OPERATION: u32 = 13;
    pub const NFTFX_CREDENTIAL: u32 = 14;
    pub const PROPERTYFX_MINT_OUTPUT: u32 = 15;
    pub const PROPERTYFX_OWNED_OUTPUT: u32 = 16;
    pub const PROPERTYFX_MINT_OPERATION: u32 = 17;
    pub const PROPERTYFX_BURN_OPERATION: u32 = 18;
    pub const PROPERTYFX_CREDENTIAL: u32 = 19;
    pub const STANDARD_BLOCK: u32 = 20;
}
