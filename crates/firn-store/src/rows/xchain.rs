//! X-Chain rows: what one linear block writes ([`XChainBlockRows`]) and what the X-Chain
//! readers return (`X…Record`).
//!
//! Everything is keyed as AvalancheGo keys it: blocks by height and ID, txs by ID (a
//! CreateAssetTx's ID is its asset's ID), UTXOs by `tx_id.prefix(output_index)`. A tx's
//! position is (block height, index in the block); the genesis CreateAssetTx, which is in no
//! block, is stored at height 0 before block 0's txs.
//!
//! The DAG's txs (before Cortina, [`XChainVertexRows`]) came after genesis and before any
//! linear block, so they are stored at height 0 too, between the genesis txs and linear block
//! 0's own txs, in the order the node accepted their vertices. A position stays a plain
//! `(height, index)` of u64 and u32: every tx list, lookup table and page token keeps working
//! unchanged, and a list walks genesis, the DAG, then the linear chain. (Negative heights or a
//! second ordering column would have changed every list and the tokens the API already
//! signs.) On real networks linear block 0 is the linearization block and carries no tx, so
//! nothing follows the DAG at height 0; the store refuses vertices once a linear block above
//! 0, or one with txs, is stored, as their txs would then come after txs that spent them.
//! [`XTxRecord::vertices`] tells DAG txs (`chainFormat: "non-linear"`) from linear ones.

use firn_core::ids::{Id, ShortId};

use super::atomic::AtomicUtxo;

use super::text_enum;

/// One accepted X-Chain block and everything derived from it, committed together.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct XChainBlockRows {
    /// The block.
    pub block: XBlockRecord,
    /// The txs stored at the block's height, in order: the block's own txs, preceded at height
    /// 0 by the genesis CreateAssetTx(s). Txs that could not be derived are left out.
    pub txs: Vec<XTx>,
}

/// An X-Chain block (StandardBlock).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct XBlockRecord {
    /// Height.
    pub height: u64,
    /// Block ID (sha256 of its bytes).
    pub block_id: Id,
    /// Parent block ID.
    pub parent_id: Id,
    /// Block time, Unix seconds.
    pub timestamp: u64,
    /// Txs the block carries (derived or not).
    pub tx_count: u64,
    /// Encoded size in bytes.
    pub size_bytes: u64,
}

/// One tx to commit: what it is, what it consumed and produced, the asset it created.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct XTx {
    /// Tx ID.
    pub tx_id: Id,
    /// The codec's type name: `BaseTx`, `CreateAssetTx`, `OperationTx`, `ImportTx`, `ExportTx`.
    pub tx_type: String,
    /// Memo bytes.
    pub memo: Vec<u8>,
    /// For an ImportTx, the chain it imports from.
    pub source_chain: Option<Id>,
    /// For an ExportTx, the chain it exports to.
    pub destination_chain: Option<Id>,
    /// The signed tx's codec bytes (what `avm.getTx` encodes): enough to render any JSON form.
    pub bytes: Vec<u8>,
    /// The genesis CreateAssetTx (in no block; its ID is the asset's, not its bytes' hash).
    pub genesis: bool,
    /// X-Chain UTXOs it consumed: its inputs and its operations' UTXOs. UTXOs imported from
    /// another chain are not X-Chain UTXOs and are not listed; a UTXO the store does not hold
    /// unspent (one whose tx could not be derived) is passed over.
    pub consumed: Vec<Id>,
    /// X-Chain UTXOs it produced: outputs, initial states, operations' outputs (not the
    /// outputs it exports).
    pub produced: Vec<XUtxo>,
    /// The asset a CreateAssetTx created.
    pub asset: Option<XAsset>,
    /// For an ImportTx, the UTXOs it took out of the X-Chain's atomic memory.
    pub imported: Vec<Id>,
    /// For an ExportTx, the outputs it put in the destination's atomic memory.
    pub exported: Vec<AtomicUtxo>,
    /// What it burned, per asset: its inputs (imported ones too) less its outputs (exported
    /// ones too), where positive.
    pub burned: Vec<(Id, u64)>,
}

text_enum!(
    /// An X-Chain output's type, as AvalancheGo names it in JSON.
    XOutputKind {
        /// An amount of a fungible asset.
        Secp256k1Transfer = "secp256k1fx.TransferOutput",
        /// The right to mint more of a variable-cap asset.
        Secp256k1Mint = "secp256k1fx.MintOutput",
        /// The right to mint NFTs of one group.
        NftMint = "nftfx.MintOutput",
        /// An NFT.
        NftTransfer = "nftfx.TransferOutput",
        /// The right to mint a property.
        PropertyMint = "propertyfx.MintOutput",
        /// A property.
        PropertyOwned = "propertyfx.OwnedOutput",
    }
);

text_enum!(
    /// What an asset is, read from the outputs its CreateAssetTx starts it with.
    AssetKind {
        /// Fungible, all of it created at once (secp256k1fx transfer outputs only).
        FixedCap = "fixedCap",
        /// Fungible, mintable (a secp256k1fx mint output).
        VariableCap = "variableCap",
        /// An NFT family (nftfx mint outputs, one per group).
        NftFamily = "nftFamily",
        /// A property (propertyfx mint outputs).
        Property = "property",
    }
);

impl AssetKind {
    /// The kind of an asset whose initial states hold outputs of `kinds`. Assets mixing fxs
    /// are rare (the AVM allows them): NFTs win over properties, properties over mint rights,
    /// mint rights over fixed supply.
    pub fn of_outputs(kinds: impl IntoIterator<Item = XOutputKind>) -> AssetKind {
        let mut kind = AssetKind::FixedCap;
        for k in kinds {
            let this = match k {
                XOutputKind::NftMint | XOutputKind::NftTransfer => AssetKind::NftFamily,
                XOutputKind::PropertyMint | XOutputKind::PropertyOwned => AssetKind::Property,
                XOutputKind::Secp256k1Mint => AssetKind::VariableCap,
                XOutputKind::Secp256k1Transfer => AssetKind::FixedCap,
            };
            if rank(this) > rank(kind) {
                kind = this;
            }
        }
        kind
    }

    /// Whether the asset's UTXOs carry amounts (`avm.getAllBalances` counts them).
    pub fn is_fungible(self) -> bool {
        matches!(self, AssetKind::FixedCap | AssetKind::VariableCap)
    }
}

fn rank(k: AssetKind) -> u8 {
    match k {
        AssetKind::FixedCap => 0,
        AssetKind::VariableCap => 1,
        AssetKind::Property => 2,
        AssetKind::NftFamily => 3,
    }
}

/// An X-Chain UTXO as created.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct XUtxo {
    /// `tx_id.prefix(output_index)`.
    pub utxo_id: Id,
    /// The tx that created it (for genesis UTXOs, the asset ID).
    pub tx_id: Id,
    /// Its index among the tx's outputs: outputs first, then initial states or operations'
    /// outputs in order (exported outputs take `len(outputs)..` but are not X-Chain UTXOs).
    pub output_index: u32,
    /// Asset.
    pub asset_id: Id,
    /// Output type.
    pub kind: XOutputKind,
    /// Amount, for a secp256k1fx transfer output.
    pub amount: Option<u64>,
    /// NFT group, for nftfx outputs.
    pub group_id: Option<u32>,
    /// NFT payload, for an nftfx transfer output.
    pub payload: Option<Vec<u8>>,
    /// Signatures needed to spend.
    pub threshold: u32,
    /// Unix time before which it cannot be spent.
    pub locktime: u64,
    /// Owners, as the output lists them.
    pub addresses: Vec<ShortId>,
}

/// An asset created by a CreateAssetTx.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct XAsset {
    /// Asset ID (the CreateAssetTx's ID).
    pub asset_id: Id,
    /// Name.
    pub name: String,
    /// Symbol.
    pub symbol: String,
    /// Decimal places.
    pub denomination: u8,
    /// Kind.
    pub kind: AssetKind,
}

/// An asset as stored: what it is and when it was created.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct XAssetRecord {
    /// The asset.
    pub asset: XAsset,
    /// The CreateAssetTx.
    pub tx_id: Id,
    /// Its height (0 for genesis assets).
    pub height: u64,
    /// Its block time (block 0's for genesis assets).
    pub timestamp: u64,
}

/// A UTXO as stored: created where, consumed where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct XUtxoRecord {
    /// The UTXO.
    pub utxo: XUtxo,
    /// Height of the tx that created it.
    pub height: u64,
    /// Its block time.
    pub timestamp: u64,
    /// The tx that consumed it, if any.
    pub consumed: Option<XConsumption>,
}

/// The consumption of a UTXO.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct XConsumption {
    /// The consuming tx.
    pub tx_id: Id,
    /// Its height.
    pub height: u64,
    /// Its block time.
    pub timestamp: u64,
}

/// A tx as stored, with the UTXOs it consumed and produced (what an explorer shows).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct XTxRecord {
    /// Tx ID.
    pub tx_id: Id,
    /// Height of its block (0 for genesis txs and txs of the DAG).
    pub height: u64,
    /// Position at that height (genesis txs first at height 0).
    pub index: u32,
    /// Block time.
    pub timestamp: u64,
    /// Type name ([`XTx::tx_type`]).
    pub tx_type: String,
    /// Memo bytes.
    pub memo: Vec<u8>,
    /// For an ImportTx, the chain it imports from.
    pub source_chain: Option<Id>,
    /// For an ExportTx, the chain it exports to.
    pub destination_chain: Option<Id>,
    /// The signed tx's codec bytes: decode with `firn_core::avm::Tx` and render with
    /// `firn_core::avm::json::tx_to_json` for AvalancheGo's JSON.
    pub bytes: Vec<u8>,
    /// Whether it is a genesis tx.
    pub genesis: bool,
    /// Its block's ID (block 0's for genesis txs; `None` only before block 0 is stored).
    pub block_id: Option<Id>,
    /// X-Chain UTXOs it consumed, by UTXO ID.
    pub consumed: Vec<XUtxoRecord>,
    /// X-Chain UTXOs it produced, by output index.
    pub produced: Vec<XUtxoRecord>,
    /// For a tx of the DAG, the vertices that carried it, first accepted first (its `height`
    /// is then 0 and its `timestamp` the first vertex's); empty for a tx of a linear block.
    pub vertices: Vec<XTxVertex>,
}

impl XTxRecord {
    /// Whether the tx was in a linear block (`chainFormat: "linear"`), not in the DAG.
    pub fn is_linear(&self) -> bool {
        self.vertices.is_empty()
    }
}

/// One accepted vertex of the DAG and its txs, committed together.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct XChainVertexRows {
    /// The vertex.
    pub vertex: XVertexRecord,
    /// Its txs that derived, in vertex order; the others are left out (their IDs stay in
    /// [`XVertexRecord::tx_ids`]). A tx an earlier vertex carried keeps its first position.
    pub txs: Vec<XTx>,
}

/// A vertex of the X-Chain's DAG, as the node's index API (`/ext/index/X/vtx`) served it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct XVertexRecord {
    /// The index API's `index`: how many vertices the node accepted before it.
    pub index: u64,
    /// Vertex ID (sha256 of its bytes).
    pub vertex_id: Id,
    /// Height in the DAG (one more than its highest parent's).
    pub height: u64,
    /// Parent vertex IDs, as the vertex lists them.
    pub parent_ids: Vec<Id>,
    /// When the node accepted it (the container's timestamp), Unix seconds.
    pub timestamp: u64,
    /// Txs it carries (derived or not).
    pub tx_count: u64,
    /// Encoded size in bytes.
    pub size_bytes: u64,
    /// The IDs of every tx it carries, in order (sha256 of each tx's bytes).
    pub tx_ids: Vec<Id>,
}

/// A vertex that carried a tx: what the Data API shows of it on the tx.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct XTxVertex {
    /// Vertex ID.
    pub vertex_id: Id,
    /// Its height in the DAG.
    pub height: u64,
    /// When it was accepted, Unix seconds.
    pub timestamp: u64,
}

/// One asset's unspent fungible amount held by some addresses, both ways
/// `avm.getAllBalances` counts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct XBalance {
    /// Asset.
    pub asset_id: Id,
    /// What `includePartial: false` counts: outputs with a single owner whose locktime has
    /// passed.
    pub spendable: u128,
    /// What `includePartial: true` counts: every output naming one of the addresses.
    pub total: u128,
    /// UTXOs making up `total`.
    pub utxo_count: u64,
    /// Outputs whose locktime has passed, whatever their owners.
    pub unlocked: u128,
    /// UTXOs making up `unlocked`.
    pub unlocked_count: u64,
}
