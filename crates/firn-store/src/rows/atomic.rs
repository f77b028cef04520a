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

/// A stored export and, once imported, the ImportTx and its time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AtomicUtxoRecord {
    /// The export.
    pub export: AtomicExportRecord,
    /// The ImportTx that took it, and its block time.
    pub imported: Option<(Id, u64)>,
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

/// A C-Chain atomic tx as its block carries it: what the C-Chain's commit writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CAtomicTx {
    /// Position in the block's extra data.
    pub index: u32,
    /// sha256 of `bytes`.
    pub tx_id: Id,
    /// `ImportTx` or `ExportTx`.
    pub tx_type: String,
    /// The chain it imports from or exports to.
    pub peer_chain: Id,
    /// The signed tx (coreth's codec).
    pub bytes: Vec<u8>,
    /// Who it names: UTXO owners and EVM accounts ([`CAtomicParty`]).
    pub parties: Vec<CAtomicParty>,
    /// The UTXOs an ExportTx put in its destination's atomic memory.
    pub exported: Vec<AtomicUtxo>,
    /// The UTXO IDs an ImportTx took out of the C-Chain's atomic memory.
    pub imported: Vec<Id>,
    /// The AVAX it burned (its fee), nAVAX.
    pub burned: u64,
}

/// An address a C-Chain atomic tx names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CAtomicParty {
    /// An owner of a UTXO it imports or exports.
    Owner(ShortId),
    /// An EVM account it credits or debits.
    Account([u8; 20]),
}

impl CAtomicParty {
    /// The stored key: a kind byte (0 owner, 1 account) and the 20 address bytes.
    pub fn key(&self) -> Vec<u8> {
        let (kind, bytes) = match self {
            CAtomicParty::Owner(a) => (0u8, a.0),
            CAtomicParty::Account(a) => (1u8, *a),
        };
        let mut key = Vec::with_capacity(21);
        key.push(kind);
        key.extend_from_slice(&bytes);
        key
    }
}

/// A stored C-Chain atomic tx.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CAtomicTxRecord {
    /// The block's height.
    pub height: u64,
    /// Position in the block's extra data.
    pub index: u32,
    /// The tx's ID.
    pub tx_id: Id,
    /// `ImportTx` or `ExportTx`.
    pub tx_type: String,
    /// The block's time.
    pub timestamp: u64,
    /// The block's hash.
    pub block_hash: [u8; 32],
    /// The chain it imports from or exports to.
    pub peer_chain: Id,
    /// The signed tx.
    pub bytes: Vec<u8>,
}

/// What a C-Chain atomic tx list keeps.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CAtomicTxFilter {
    /// Txs naming any of these (none: every tx).
    pub parties: Vec<CAtomicParty>,
    /// `ImportTx`, `ExportTx` (none: both).
    pub tx_types: Vec<String>,
    /// Blocks at or after this time.
    pub start_ts: Option<u64>,
    /// Blocks at or before this time.
    pub end_ts: Option<u64>,
}
