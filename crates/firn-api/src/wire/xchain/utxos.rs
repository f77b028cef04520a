//! The `Utxo` shape of X-Chain (and C-Chain) UTXOs and its list.

use firn_store::rows::xchain::{XOutputKind, XUtxoRecord};
use serde::Serialize;
use utoipa::ToSchema;

use super::XCtx;
use crate::wire::pchain::{AssetAmount, PrimaryNetworkChainInfo};

/// A UTXO of the X-Chain or of shared memory (`Utxo`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Utxo {
    /// Owners: the addresses eligible to sign its consumption.
    pub addresses: Vec<String>,
    /// Asset and amount (1 for an NFT, 0 for a mint right).
    pub asset: AssetAmount,
    /// The chain it is (or will be) consumed on.
    pub consumed_on_chain_id: String,
    /// The chain it was created on.
    pub created_on_chain_id: String,
    /// UTXO ID.
    pub utxo_id: String,
    /// The tx that consumed it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consuming_tx_hash: Option<String>,
    /// When that tx was accepted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consuming_tx_timestamp: Option<u64>,
    /// The tx that created it.
    pub creation_tx_hash: String,
    /// NFT group, for NFT outputs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group_id: Option<u32>,
    /// Time before which it cannot be spent.
    pub locktime: u64,
    /// Its index among its tx's outputs.
    pub output_index: String,
    /// NFT payload, `0x` hex.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub payload: Option<String>,
    /// Signatures needed to spend it.
    pub threshold: u32,
    /// When it was created.
    pub timestamp: u64,
    /// `transfer` or `mint`.
    pub utxo_type: String,
}

impl Utxo {
    /// From a stored X-Chain UTXO.
    pub fn from_record(ctx: XCtx<'_>, r: &XUtxoRecord) -> Self {
        let u = &r.utxo;
        let x = ctx.x_chain();
        Self {
            addresses: ctx.base.addresses(&u.addresses),
            asset: ctx.amount(u.asset_id, amount_of(u.kind, u.amount)),
            consumed_on_chain_id: x.clone(),
            created_on_chain_id: x,
            utxo_id: u.utxo_id.to_string(),
            consuming_tx_hash: r.consumed.map(|c| c.tx_id.to_string()),
            consuming_tx_timestamp: r.consumed.map(|c| c.timestamp),
            creation_tx_hash: u.tx_id.to_string(),
            group_id: u.group_id,
            locktime: u.locktime,
            output_index: u.output_index.to_string(),
            payload: u.payload.as_ref().map(|p| format!("0x{}", hex::encode(p))),
            threshold: u.threshold,
            timestamp: r.timestamp,
            utxo_type: utxo_type(u.kind).to_owned(),
        }
    }
}

/// What an output counts for in amounts: its amount, one NFT, or nothing (mint rights).
pub(super) fn amount_of(kind: XOutputKind, amount: Option<u64>) -> u64 {
    match kind {
        XOutputKind::NftTransfer => 1,
        _ => amount.unwrap_or(0),
    }
}

/// `mint` for the rights to mint, `transfer` for what is owned.
fn utxo_type(kind: XOutputKind) -> &'static str {
    match kind {
        XOutputKind::Secp256k1Mint | XOutputKind::NftMint | XOutputKind::PropertyMint => "mint",
        XOutputKind::Secp256k1Transfer | XOutputKind::NftTransfer | XOutputKind::PropertyOwned => {
            "transfer"
        }
    }
}

/// A page of UTXOs (`ListUtxosResponse`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListUtxosResponse {
    /// Token of the next page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// The UTXOs.
    pub utxos: Vec<Utxo>,
    /// The chain and network.
    pub chain_info: PrimaryNetworkChainInfo,
}
