//! Shared memory between the primary network's chains: what an ExportTx put in another chain's
//! atomic memory ([`AtomicUtxo`]), and what is still there for a set of owners
//! ([`AtomicBalance`]). Each chain's writer records its own exports and imports; a UTXO is in
//! atomic memory once its export is stored and until its import is.

use firn_core::ids::{Id, ShortId};

/// A secp256k1fx transfer output an ExportTx put in `destination_chain`'s atomic memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AtomicUtxo {
    /// `tx_id.prefix(output_index)`.
    pub utxo_id: Id,
    /// The ExportTx.
    pub tx_id: Id,
    /// Its index among the tx's outputs (exported outputs follow the tx's own).
    pub output_index: u32,
    /// The exporting chain.
    pub source_chain: Id,
    /// The chain that may import it.
    pub destination_chain: Id,
    /// Asset.
    pub asset_id: Id,
    /// Amount.
    pub amount: u64,
    /// Signatures needed to spend.
    pub threshold: u32,
    /// Unix time before which it cannot be spent.
    pub locktime: u64,
    /// Owners, as the output lists them.
    pub addresses: Vec<ShortId>,
}

/// A stored export: the UTXO and its ExportTx's block time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AtomicExportRecord {
    /// The exported UTXO.
    pub utxo: AtomicUtxo,
    /// Unix time of the block that exported it.
    pub timestamp: u64,
}

/// What a chain's atomic memory holds for some owners, per exporting chain and asset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AtomicBalance {
    /// The chain that exported it.
    pub source_chain: Id,
    /// Asset.
    pub asset_id: Id,
    /// Still time-locked.
    pub locked: bool,
    /// The sum of the UTXOs' amounts.
    pub amount: u128,
    /// UTXOs (each once, however many of the owners it names).
    pub utxo_count: u64,
}
