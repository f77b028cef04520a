//! The params and replies AvalancheGo's `api` package shares between chains
//! (`api/common_args_responses.go`), declared once here so that `platform.*`, `avm.*` and
//! `avax.*` use the same types, as AvalancheGo's services do.
//!
//! Go's `formatting.Encoding` param is an `Option<String>` here: absent means AvalancheGo's
//! zero value, `hex`, and a client that leaves it out sends nothing, as AvalancheGo's own
//! clients do. Replies always carry the encoding used.

use firn_core::ids::Id;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::avajson::{u32_string, u64_string};

/// `api.Index`, a UTXO page position: `{address, utxo}` (both empty for the first page).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct UtxoIndex {
    /// The address.
    pub address: String,
    /// The UTXO ID.
    pub utxo: String,
}

/// `api.GetUTXOsArgs`: `platform.getUTXOs`, `avm.getUTXOs` and `avax.getUTXOs` params.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct GetUtxosParams {
    /// Owners.
    pub addresses: Vec<String>,
    /// The chain whose exports to this chain (atomic memory) to list; empty for this chain's own
    /// UTXOs (`avax.getUTXOs` requires it).
    pub source_chain: String,
    /// Page size (0: the most, 1024).
    #[serde(with = "u32_string")]
    pub limit: u32,
    /// Where the page starts.
    pub start_index: UtxoIndex,
    /// `hex` (default) or `hexnc`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub encoding: Option<String>,
}

/// `api.GetBlockArgs`: `{blockID, encoding}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct GetBlockParams {
    /// The block.
    #[serde(rename = "blockID")]
    pub block_id: Id,
    /// `hex` (default), `hexnc`, `hexc` or `json`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub encoding: Option<String>,
}

/// `api.GetBlockByHeightArgs`: `{height, encoding}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct GetBlockByHeightParams {
    /// The height.
    #[serde(with = "u64_string")]
    pub height: u64,
    /// `hex` (default), `hexnc`, `hexc` or `json`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub encoding: Option<String>,
}

/// `api.GetTxArgs`: `{txID, encoding}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct TxParams {
    /// The tx.
    #[serde(rename = "txID")]
    pub tx_id: Id,
    /// `hex` (default), `hexnc`, `hexc` or `json`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub encoding: Option<String>,
}

/// `api.FormattedTx` as params: `{tx, encoding}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct IssueTxParams {
    /// The signed tx, encoded.
    pub tx: String,
    /// `hex` (default) or `hexnc`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub encoding: Option<String>,
}

/// `api.GetHeightResponse`: `{height}`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeightReply {
    /// The height.
    #[serde(with = "u64_string")]
    pub height: u64,
}

/// A UTXO reference, `avax.UTXOID`: `{txID, outputIndex}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct UtxoRef {
    /// The creating tx.
    #[serde(rename = "txID")]
    pub tx_id: Id,
    /// The output's index (a JSON number).
    #[serde(rename = "outputIndex")]
    pub output_index: u32,
}

/// `api.GetUTXOsReply`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UtxosReply {
    /// How many UTXOs are in the page.
    #[serde(with = "u64_string")]
    pub num_fetched: u64,
    /// The UTXOs, encoded.
    #[serde(default)]
    pub utxos: Vec<String>,
    /// Where the next page starts.
    pub end_index: UtxoIndex,
    /// The encoding used.
    pub encoding: String,
}

/// A block or tx as `getBlock`/`getTx` give it: encoded bytes, or JSON with `encoding: json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Encoded {
    /// The bytes in the requested encoding.
    Text(String),
    /// AvalancheGo's JSON form.
    Json(Value),
}

/// `api.GetBlockResponse`: `{block, encoding}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BlockReply {
    /// The block.
    pub block: Encoded,
    /// The encoding used.
    pub encoding: String,
}

/// `api.GetTxReply`: `{tx, encoding}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TxReply {
    /// The tx.
    pub tx: Encoded,
    /// The encoding used.
    pub encoding: String,
}

/// `api.JSONTxID` as a reply: `{txID}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TxIdReply {
    /// The tx.
    #[serde(rename = "txID")]
    pub tx_id: Id,
}

/// `api.JSONTxID` as params: `{txID}` (`avm.getTxStatus`, `avax.getAtomicTxStatus`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct TxIdParams {
    /// The tx.
    #[serde(rename = "txID")]
    pub tx_id: Id,
}
