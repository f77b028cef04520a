//! X-Chain shapes: transactions (`transactions`), the `Utxo` shape every X-Chain list shares
//! (`utxos`), the DAG's vertices (`vertices`), asset details, and balances (`balances`).
//!
//! Everything renders from the store's records, with the names, symbols and denominations of
//! their assets looked up once per response ([`XCtx`]), and from a tx's own bytes for what the
//! X-Chain tables do not hold: UTXOs imported from another chain and outputs exported to one.

pub(crate) mod balances;
mod transactions;
pub(crate) mod utxos;
mod vertices;

use std::collections::HashMap;

use firn_core::ids::Id;
use firn_store::rows::atomic::AtomicExportRecord;
use firn_store::rows::xchain::{AssetKind, XAssetRecord};
use serde::Serialize;
use utoipa::ToSchema;

use super::pchain::{AssetAmount, Ctx};

pub use balances::{ListXChainBalancesResponse, XChainBalances, XChainSharedAssetBalance};
pub use transactions::{
    ListXChainTransactionsResponse, TransactionVertexDetail, XChainLinearTransaction,
    XChainNonLinearTransaction, XChainTransaction, XChainTransactionFields,
};
pub use utxos::{ListUtxosResponse, Utxo};
pub use vertices::{ListXChainVerticesResponse, XChainVertex};

/// One primary-network transaction, in its chain's shape (what `getTxByHash` answers).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(untagged)]
pub enum PrimaryNetworkTransaction {
    /// A P-Chain transaction.
    P(Box<crate::wire::pchain::PChainTransaction>),
    /// An X-Chain transaction, in a block or in the DAG.
    X(Box<XChainTransaction>),
    /// A C-Chain atomic transaction.
    C(Box<crate::wire::cchain::CChainAtomicTransaction>),
}

/// Rendering context of X-Chain shapes: the network's, the X-Chain's ID and the assets the
/// response names.
#[derive(Debug, Clone, Copy)]
pub struct XCtx<'a> {
    /// The network's context.
    pub base: Ctx<'a>,
    assets: &'a HashMap<Id, XAssetRecord>,
    /// The stored exports of UTXOs the response's ImportTxs imported, by UTXO ID.
    exports: Option<&'a HashMap<Id, AtomicExportRecord>>,
}

impl<'a> XCtx<'a> {
    /// A context naming assets from `assets` (an asset missing there shows as unknown).
    pub fn new(base: Ctx<'a>, assets: &'a HashMap<Id, XAssetRecord>) -> Self {
        Self {
            base,
            assets,
            exports: None,
        }
    }

    /// With the stored exports of imported UTXOs (their owners and creation time).
    pub fn with_exports(self, exports: &'a HashMap<Id, AtomicExportRecord>) -> Self {
        Self {
            exports: Some(exports),
            ..self
        }
    }

    pub(crate) fn export_of(&self, utxo_id: &Id) -> Option<&'a AtomicExportRecord> {
        self.exports.and_then(|e| e.get(utxo_id))
    }

    fn x_chain(&self) -> String {
        self.base.chain(&self.base.network.x_chain_id)
    }

    /// An amount of an asset, named as the asset was created.
    pub fn amount(&self, asset_id: Id, amount: impl Into<u128>) -> AssetAmount {
        let mut out = self.base.amount(asset_id, amount);
        if let Some(a) = self.assets.get(&asset_id) {
            out.name = a.asset.name.clone();
            out.symbol = a.asset.symbol.clone();
            out.denomination = u32::from(a.asset.denomination);
            out.r#type = asset_type(a.asset.kind).to_owned();
        }
        out
    }
}

/// `nft` for NFT families, `secp256k1` for the rest (`PrimaryNetworkAssetType`).
fn asset_type(kind: AssetKind) -> &'static str {
    match kind {
        AssetKind::NftFamily => "nft",
        _ => "secp256k1",
    }
}

/// An X-Chain asset (`XChainAssetDetails`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct XChainAssetDetails {
    /// Asset ID.
    pub asset_id: String,
    /// Name.
    pub name: String,
    /// Symbol.
    pub symbol: String,
    /// Decimal places.
    pub denomination: u32,
    /// `secp256k1` or `nft`.
    pub r#type: String,
    /// When its CreateAssetTx was accepted, Unix seconds.
    pub created_at_timestamp: u64,
    /// `fixed` or `variable`: whether more can be minted.
    pub cap: String,
}

impl XChainAssetDetails {
    /// From a stored asset.
    pub fn from_record(ctx: XCtx<'_>, r: &XAssetRecord) -> Self {
        let a = &r.asset;
        Self {
            asset_id: ctx.base.asset(&a.asset_id),
            name: a.name.clone(),
            symbol: a.symbol.clone(),
            denomination: u32::from(a.denomination),
            r#type: asset_type(a.kind).to_owned(),
            created_at_timestamp: r.timestamp,
            // Mint rights make a cap variable: NFT families and properties are minted too.
            cap: if a.kind == AssetKind::FixedCap {
                "fixed"
            } else {
                "variable"
            }
            .to_owned(),
        }
    }
}

/// Amounts summed per asset in the order each asset first appears.
pub(crate) fn sum_by_asset(
    ctx: XCtx<'_>,
    items: impl IntoIterator<Item = (Id, u128)>,
) -> Vec<AssetAmount> {
    let mut sums: Vec<(Id, u128)> = Vec::new();
    let mut index: HashMap<Id, usize> = HashMap::new();
    for (asset, amount) in items {
        match index.get(&asset) {
            Some(&i) => sums[i].1 = sums[i].1.saturating_add(amount),
            None => {
                index.insert(asset, sums.len());
                sums.push((asset, amount));
            }
        }
    }
    sums.into_iter().map(|(a, n)| ctx.amount(a, n)).collect()
}
