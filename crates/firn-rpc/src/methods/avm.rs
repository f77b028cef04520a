//! `avm.*` on `/ext/bc/X`: the X-Chain's methods, params and replies (AvalancheGo's
//! `vms/avm/service.go`).
//!
//! Blocks, txs, heights and UTXO pages use the shapes AvalancheGo's `api` package shares with
//! the P-Chain ([`super::api`]); what is the X-Chain's own (asset descriptions, per-address
//! balances, the fee pair) is declared here. With `encoding: json`, `getTx` and `getBlock`
//! answer with [`Encoded::Json`], the value `firn_core::avm::json::{tx_to_json, block_to_json}`
//! build.
//!
//! ```
//! use firn_rpc::methods::{Method, avm};
//!
//! assert_eq!(avm::GetTxFee::NAME, "avm.getTxFee");
//! let fee: avm::TxFeeReply =
//!     serde_json::from_str(r#"{"txFee":"1000000","createAssetTxFee":"10000000"}"#).unwrap();
//! assert_eq!(fee.create_asset_tx_fee, 10_000_000);
//! ```

use firn_core::ids::Id;
use serde::{Deserialize, Serialize};

pub use super::api::{
    BlockReply, Encoded, GetBlockByHeightParams, GetBlockParams, GetUtxosParams, HeightReply,
    IssueTxParams, TxIdParams, TxIdReply, TxParams, TxReply, UtxoIndex, UtxoRef, UtxosReply,
};
use super::{NoParams, methods};
use crate::avajson::{u8_string, u64_string};

methods! {
    /// A block by ID (only once the X-Chain is linearized).
    GetBlock = "avm.getBlock" (GetBlockParams) -> BlockReply;
    /// A block by height.
    GetBlockByHeight = "avm.getBlockByHeight" (GetBlockByHeightParams) -> BlockReply;
    /// The last accepted height.
    GetHeight = "avm.getHeight" (NoParams) -> HeightReply;
    /// Issues a signed tx.
    IssueTx = "avm.issueTx" (IssueTxParams) -> TxIdReply;
    /// A tx by ID.
    GetTx = "avm.getTx" (TxParams) -> TxReply;
    /// A tx's status: `Accepted` or `Unknown` (deprecated by AvalancheGo, still served).
    GetTxStatus = "avm.getTxStatus" (TxIdParams) -> TxStatusReply;
    /// UTXOs owned by addresses, paged; with `sourceChain`, those exported to the X-Chain.
    GetUtxos = "avm.getUTXOs" (GetUtxosParams) -> UtxosReply;
    /// An asset's name, symbol and denomination.
    GetAssetDescription = "avm.getAssetDescription" (AssetIdParams) -> AssetDescriptionReply;
    /// One asset held by one address (deprecated by AvalancheGo, still served).
    GetBalance = "avm.getBalance" (GetBalanceParams) -> BalanceReply;
    /// Every asset held by one address (deprecated by AvalancheGo, still served).
    GetAllBalances = "avm.getAllBalances" (GetAllBalancesParams) -> AllBalancesReply;
    /// The base and asset-creation fees.
    GetTxFee = "avm.getTxFee" (NoParams) -> TxFeeReply;
}

// ---- params ----

/// `{assetID}`: an asset ID or an alias (`AVAX`), so a string, not an [`Id`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct AssetIdParams {
    /// The asset, by ID or alias.
    #[serde(rename = "assetID")]
    pub asset_id: String,
}

/// `avm.getBalance` params.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct GetBalanceParams {
    /// An `X-<hrp>1…` address.
    pub address: String,
    /// The asset, by ID or alias.
    #[serde(rename = "assetID")]
    pub asset_id: String,
    /// Also count UTXOs the address shares with others or cannot spend yet.
    #[serde(rename = "includePartial")]
    pub include_partial: bool,
}

/// `avm.getAllBalances` params: `api.JSONAddress` plus `includePartial`, flat on the wire as
/// Go writes an embedded struct.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct GetAllBalancesParams {
    /// An `X-<hrp>1…` address.
    pub address: String,
    /// Also count UTXOs the address shares with others or cannot spend yet.
    #[serde(rename = "includePartial")]
    pub include_partial: bool,
}

// ---- replies ----

/// A tx's status as `avm.getTxStatus` names it (`choices.Status`); AvalancheGo answers only
/// `Accepted` or `Unknown` since the X-Chain's linearization, but clients may meet the others.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum TxStatus {
    /// Never seen.
    Unknown,
    /// Being decided.
    Processing,
    /// Rejected.
    Rejected,
    /// Accepted.
    Accepted,
}

/// `{status}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TxStatusReply {
    /// The status.
    pub status: TxStatus,
}

/// `avm.getAssetDescription`'s reply: `{assetID, name, symbol, denomination}` (Go embeds
/// `FormattedAssetID`, so `assetID` comes first).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AssetDescriptionReply {
    /// The asset's ID (an alias given in the params resolved).
    #[serde(rename = "assetID")]
    pub asset_id: Id,
    /// Its name, not necessarily unique.
    pub name: String,
    /// Its symbol.
    pub symbol: String,
    /// How many decimal places user interfaces shift balances by (`json.Uint8`).
    #[serde(with = "u8_string")]
    pub denomination: u8,
}

/// `avm.getBalance`'s reply: the balance and the UTXOs counted (`[]` when none: AvalancheGo
/// always makes the list).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BalanceReply {
    /// The amount, in the asset's smallest unit.
    #[serde(with = "u64_string")]
    pub balance: u64,
    /// The UTXOs counted.
    #[serde(rename = "utxoIDs")]
    pub utxo_ids: Vec<UtxoRef>,
}

/// One asset of `avm.getAllBalances`: `{asset, balance}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AssetBalance {
    /// The asset's primary alias (`AVAX`) or, without one, its ID.
    pub asset: String,
    /// The amount, in the asset's smallest unit (`u64::MAX` when the sum overflows, as
    /// AvalancheGo saturates it).
    #[serde(with = "u64_string")]
    pub balance: u64,
}

/// `{balances}`, in no particular order (AvalancheGo walks a Go map).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AllBalancesReply {
    /// Every asset the address holds a counted UTXO of.
    pub balances: Vec<AssetBalance>,
}

/// `{txFee, createAssetTxFee}`, nAVAX.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TxFeeReply {
    /// The fee of most txs.
    #[serde(with = "u64_string")]
    pub tx_fee: u64,
    /// The fee of a `CreateAssetTx`.
    #[serde(with = "u64_string")]
    pub create_asset_tx_fee: u64,
}
