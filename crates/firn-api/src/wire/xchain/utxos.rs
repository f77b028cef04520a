//! The `Utxo` shape of X-Chain (and C-Chain) UTXOs and its list.

use firn_core::avax::UtxoId;
use firn_core::avax::secp256k1fx::{SignatureBytes, TransferOutput};
use firn_core::ids::{Id, ShortId};
use firn_core::keys::secp256k1::{RecoverableSignature, recover};
use firn_store::rows::atomic::AtomicUtxoRecord;
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
    /// The signatures that spent it, with their keys (for UTXOs a tx consumed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub credentials: Option<Vec<UtxoCredential>>,
}

/// A signature of a credential, with the key that made it (`UtxoCredential`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UtxoCredential {
    /// The 65-byte recoverable signature, `0x` hex.
    pub signature: String,
    /// The compressed public key it recovers, `0x` hex.
    pub public_key: String,
}

/// `signatures` over `hash` with the keys they recover (those that do not recover are left
/// out).
pub(crate) fn credentials(hash: &[u8; 32], signatures: &[SignatureBytes]) -> Vec<UtxoCredential> {
    signatures
        .iter()
        .filter_map(|s| {
            let key = recover(hash, &RecoverableSignature(*s)).ok()?;
            Some(UtxoCredential {
                signature: format!("0x{}", hex::encode(s)),
                public_key: format!("0x{}", hex::encode(key.compressed())),
            })
        })
        .collect()
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
            credentials: None,
        }
    }
}

impl Utxo {
    /// A UTXO another chain exported to `r`'s destination, as its export stored it.
    pub fn from_atomic(ctx: XCtx<'_>, r: &AtomicUtxoRecord) -> Self {
        let (e, u) = (&r.export, &r.export.utxo);
        Self {
            addresses: ctx.base.addresses(&u.addresses),
            asset: ctx.amount(u.asset_id, u.amount),
            consumed_on_chain_id: ctx.base.chain(&u.destination_chain),
            created_on_chain_id: ctx.base.chain(&u.source_chain),
            utxo_id: u.utxo_id.to_string(),
            consuming_tx_hash: r.imported.map(|(tx, _)| tx.to_string()),
            consuming_tx_timestamp: r.imported.map(|(_, ts)| ts),
            creation_tx_hash: u.tx_id.to_string(),
            group_id: None,
            locktime: u.locktime,
            output_index: u.output_index.to_string(),
            payload: None,
            threshold: u.threshold,
            timestamp: e.timestamp,
            utxo_type: "transfer".to_owned(),
            credentials: None,
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

/// A UTXO an ImportTx on `consumed_on` took out of the atomic memory `source` filled.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ImportedInput<'a> {
    /// The chain that imported it.
    pub consumed_on: &'a Id,
    /// The chain that exported it.
    pub source: &'a Id,
    /// Which output of which ExportTx.
    pub utxo: UtxoId,
    /// Its asset and amount.
    pub asset_id: Id,
    pub amount: u64,
    /// Signatures its input gives.
    pub signatures: usize,
    /// The ImportTx and its time.
    pub consumer: (Id, u64),
    /// The hash the ImportTx's credentials sign, and this input's signatures.
    pub credential: (&'a [u8; 32], &'a [SignatureBytes]),
}

impl Utxo {
    /// `input` as its stored export has it (owners, threshold, locktime, creation time), or,
    /// when the exporting chain is not indexed, owned by the keys that signed for it and
    /// created (as far as is known) at the import; with the credential that spent it.
    pub(crate) fn imported(ctx: XCtx<'_>, input: ImportedInput<'_>) -> Self {
        let (hash, sigs) = input.credential;
        let utxo_id = input.utxo.id();
        let (tx_id, ts) = input.consumer;
        let (owners, threshold, locktime, timestamp) = match ctx.export_of(&utxo_id) {
            Some(e) => (
                e.utxo.addresses.clone(),
                e.utxo.threshold,
                e.utxo.locktime,
                e.timestamp,
            ),
            None => {
                let threshold = u32::try_from(input.signatures).unwrap_or(u32::MAX);
                (signers(hash, sigs), threshold, 0, ts)
            }
        };
        Self {
            addresses: ctx.base.addresses(&owners),
            asset: ctx.amount(input.asset_id, input.amount),
            consumed_on_chain_id: ctx.base.chain(input.consumed_on),
            created_on_chain_id: ctx.base.chain(input.source),
            utxo_id: utxo_id.to_string(),
            consuming_tx_hash: Some(tx_id.to_string()),
            consuming_tx_timestamp: Some(ts),
            creation_tx_hash: input.utxo.tx_id.to_string(),
            group_id: None,
            locktime,
            output_index: input.utxo.output_index.to_string(),
            payload: None,
            threshold,
            timestamp,
            utxo_type: "transfer".to_owned(),
            credentials: Some(credentials(hash, sigs)),
        }
    }

    /// Output `index` of the ExportTx `tx_id` (accepted at `timestamp` on `created_on`), put
    /// in `destination`'s atomic memory.
    pub(crate) fn exported(
        ctx: XCtx<'_>,
        (created_on, destination): (&Id, &Id),
        (tx_id, index, timestamp): (Id, u32, u64),
        asset_id: Id,
        out: &TransferOutput,
    ) -> Self {
        let owners = &out.owners;
        Self {
            addresses: ctx.base.addresses(&owners.addresses),
            asset: ctx.amount(asset_id, out.amount),
            consumed_on_chain_id: ctx.base.chain(destination),
            created_on_chain_id: ctx.base.chain(created_on),
            utxo_id: tx_id.prefix(u64::from(index)).to_string(),
            consuming_tx_hash: None,
            consuming_tx_timestamp: None,
            creation_tx_hash: tx_id.to_string(),
            group_id: None,
            locktime: owners.locktime,
            output_index: index.to_string(),
            payload: None,
            threshold: owners.threshold,
            timestamp,
            utxo_type: "transfer".to_owned(),
            credentials: None,
        }
    }
}

/// The keys whose `signatures` over `hash` recover.
pub(crate) fn signers(hash: &[u8; 32], signatures: &[SignatureBytes]) -> Vec<ShortId> {
    signatures
        .iter()
        .filter_map(|s| recover(hash, &RecoverableSignature(*s)).ok())
        .map(|k| k.short_id())
        .collect()
}
