//! `avax.*` on `/ext/bc/C/avax`: the C-Chain's atomic-tx API, the imports and exports that move
//! funds between the C-Chain and the X- and P-Chains (coreth's `plugin/evm/atomic/vm/api.go`,
//! now in AvalancheGo under `graft/coreth`).
//!
//! UTXO pages, issuing and tx lookups take AvalancheGo's shared `api` shapes ([`super::api`]).
//! What differs from the other chains: `getUTXOs` lists only atomic UTXOs, so `sourceChain` is
//! required; `getAtomicTx` answers encoded bytes only (no `json` encoding) plus the height of
//! the block that accepted the tx; statuses are coreth's own (`Dropped` included), and
//! `blockHeight` is a decimal string, present only once the tx is accepted.
//!
//! ```
//! use firn_rpc::methods::{Method, avax};
//!
//! assert_eq!(avax::GetAtomicTxStatus::NAME, "avax.getAtomicTxStatus");
//! let r: avax::AtomicTxStatusReply =
//!     serde_json::from_str(r#"{"status":"Accepted","blockHeight":"7"}"#).unwrap();
//! assert_eq!((r.status, r.block_height), (avax::AtomicTxStatus::Accepted, Some(7)));
//! ```

use serde::{Deserialize, Serialize};

pub use super::api::{
    GetUtxosParams, IssueTxParams, TxIdParams, TxIdReply, TxParams, UtxoIndex, UtxosReply,
};
use super::methods;
use crate::avajson::Uint64;

methods! {
    /// Atomic UTXOs exported to the C-Chain from `sourceChain`, owned by addresses, paged.
    GetUtxos = "avax.getUTXOs" (GetUtxosParams) -> UtxosReply;
    /// Issues a signed atomic tx.
    IssueTx = "avax.issueTx" (IssueTxParams) -> TxIdReply;
    /// An atomic tx by ID, with the height that accepted it.
    GetAtomicTx = "avax.getAtomicTx" (TxParams) -> AtomicTxReply;
    /// An atomic tx's status, with the height that accepted it.
    GetAtomicTxStatus = "avax.getAtomicTxStatus" (TxIdParams) -> AtomicTxStatusReply;
}

/// An atomic tx's status (coreth's `atomic.Status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum AtomicTxStatus {
    /// Never seen.
    Unknown,
    /// Refused by the mempool or by block verification.
    Dropped,
    /// In the mempool, or in an accepted block the chain state has not caught up with.
    Processing,
    /// In an accepted block.
    Accepted,
}

/// `avax.getAtomicTx`'s reply: `api.FormattedTx` (`{tx, encoding}`) plus `blockHeight`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AtomicTxReply {
    /// The signed tx, encoded.
    pub tx: String,
    /// The encoding used.
    pub encoding: String,
    /// The accepting block's height; omitted while the tx is processing.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "optional_uint64"
    )]
    pub block_height: Option<u64>,
}

/// `{status, blockHeight?}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AtomicTxStatusReply {
    /// The status.
    pub status: AtomicTxStatus,
    /// The accepting block's height; only with `Accepted`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "optional_uint64"
    )]
    pub block_height: Option<u64>,
}

/// coreth's `*json.Uint64` with `omitempty`: absent or `null` is `None`, a value is written
/// as a decimal string.
mod optional_uint64 {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::Uint64;

    pub fn serialize<S: Serializer>(v: &Option<u64>, s: S) -> Result<S::Ok, S::Error> {
        v.map(Uint64).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
        Ok(Option::<Uint64>::deserialize(d)?.map(|v| v.0))
    }
}
