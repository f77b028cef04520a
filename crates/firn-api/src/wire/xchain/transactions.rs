//! X-Chain transactions (`XChainLinearTransaction` in blocks, `XChainNonLinearTransaction` in
//! the DAG before Cortina) and their lists.
//!
//! The store holds the X-Chain UTXOs a tx consumed and produced; what crossed chains is read
//! from the tx itself: an ImportTx's inputs are the source chain's UTXOs (their owners are
//! the keys that signed for them), an ExportTx's exported outputs become the destination's.

use firn_core::avm::{Tx, UnsignedTx};
use firn_core::ids::Id;
use firn_store::rows::xchain::XTxRecord;
use serde::Serialize;
use utoipa::ToSchema;

use super::utxos::{ImportedInput, amount_of, credentials};
use super::{Utxo, XChainAssetDetails, XCtx, sum_by_asset};
use crate::wire::pchain::{AssetAmount, PrimaryNetworkChainInfo};

/// What every X-Chain transaction shows, in a block or in the DAG.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct XChainTransactionFields {
    /// Tx ID.
    pub tx_hash: String,
    /// `linear` (accepted in a block, since Cortina) or `non-linear` (in the DAG before).
    pub chain_format: String,
    /// When its block (or first vertex) was accepted, Unix seconds.
    pub timestamp: u64,
    /// `BaseTx`, `CreateAssetTx`, `OperationTx`, `ImportTx` or `ExportTx`.
    pub tx_type: String,
    /// Memo, `0x` hex.
    pub memo: String,
    /// UTXOs it consumed, imported ones included.
    pub consumed_utxos: Vec<Utxo>,
    /// UTXOs it created, exported ones included.
    pub emitted_utxos: Vec<Utxo>,
    /// Per asset, what its consumed UTXOs held.
    pub amount_unlocked: Vec<AssetAmount>,
    /// Per asset, what its emitted UTXOs hold.
    pub amount_created: Vec<AssetAmount>,
    /// For an ImportTx, the chain it imports from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_chain: Option<String>,
    /// For an ExportTx, the chain it exports to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destination_chain: Option<String>,
    /// For a CreateAssetTx, the asset.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub asset_created: Option<XChainAssetDetails>,
}

/// An X-Chain transaction accepted in a block (`XChainLinearTransaction`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct XChainLinearTransaction {
    /// What every X-Chain transaction shows.
    #[serde(flatten)]
    pub tx: XChainTransactionFields,
    /// Its block's height.
    pub block_height: u64,
    /// Its block's ID.
    pub block_hash: String,
}

/// A vertex that carried a DAG transaction (`TransactionVertexDetail`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TransactionVertexDetail {
    /// Vertex ID.
    pub hash: String,
    /// Its DAG height.
    pub height: u64,
    /// When it was accepted, Unix seconds.
    pub timestamp: u64,
}

/// An X-Chain transaction of the DAG before Cortina (`XChainNonLinearTransaction`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct XChainNonLinearTransaction {
    /// What every X-Chain transaction shows.
    #[serde(flatten)]
    pub tx: XChainTransactionFields,
    /// The vertices that carried it, first accepted first.
    pub vertices: Vec<TransactionVertexDetail>,
}

/// An X-Chain transaction in the shape of where it was accepted.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(untagged)]
pub enum XChainTransaction {
    /// In the DAG.
    NonLinear(XChainNonLinearTransaction),
    /// In a block.
    Linear(XChainLinearTransaction),
}

impl XChainTransaction {
    /// From a stored tx and its decoded bytes (the assets it names must be in `ctx`): a DAG
    /// tx's vertices, or a linear tx's block. Without `decoded`, its crossings are left out.
    pub fn from_record(ctx: XCtx<'_>, r: &XTxRecord, decoded: Option<&Tx>) -> Self {
        let linear = r.vertices.is_empty();
        let tx = XChainTransactionFields::from_record(ctx, r, decoded, linear);
        if linear {
            XChainTransaction::Linear(XChainLinearTransaction {
                tx,
                block_height: r.height,
                block_hash: r.block_id.map(|b| b.to_string()).unwrap_or_default(),
            })
        } else {
            XChainTransaction::NonLinear(XChainNonLinearTransaction {
                tx,
                vertices: r
                    .vertices
                    .iter()
                    .map(|v| TransactionVertexDetail {
                        hash: v.vertex_id.to_string(),
                        height: v.height,
                        timestamp: v.timestamp,
                    })
                    .collect(),
            })
        }
    }
}

impl XChainTransactionFields {
    fn from_record(ctx: XCtx<'_>, r: &XTxRecord, decoded: Option<&Tx>, linear: bool) -> Self {
        let mut consumed: Vec<Utxo> = r
            .consumed
            .iter()
            .map(|u| Utxo::from_record(ctx, u))
            .collect();
        let mut emitted: Vec<Utxo> = r
            .produced
            .iter()
            .map(|u| Utxo::from_record(ctx, u))
            .collect();
        if let Some(tx) = decoded {
            with_credentials(&mut consumed, tx);
            consumed.extend(imported(ctx, r, tx));
            emitted.extend(exported(ctx, r, tx));
        }
        let asset_created = (r.tx_type == "CreateAssetTx")
            .then(|| ctx.assets.get(&r.tx_id))
            .flatten()
            .map(|a| XChainAssetDetails::from_record(ctx, a));
        Self {
            tx_hash: r.tx_id.to_string(),
            chain_format: if linear { "linear" } else { "non-linear" }.to_owned(),
            timestamp: r.timestamp,
            tx_type: r.tx_type.clone(),
            memo: format!("0x{}", hex::encode(&r.memo)),
            amount_unlocked: amounts(ctx, &r.consumed, &consumed),
            amount_created: amounts(ctx, &r.produced, &emitted),
            consumed_utxos: consumed,
            emitted_utxos: emitted,
            source_chain: r.source_chain.map(|c| ctx.base.chain(&c)),
            destination_chain: r.destination_chain.map(|c| ctx.base.chain(&c)),
            asset_created,
        }
    }
}

/// Per asset, the amounts of `stored` UTXOs and of the crossing ones rendered after them.
fn amounts(
    ctx: XCtx<'_>,
    stored: &[firn_store::rows::xchain::XUtxoRecord],
    all: &[Utxo],
) -> Vec<AssetAmount> {
    let own = stored.iter().map(|u| {
        (
            u.utxo.asset_id,
            u128::from(amount_of(u.utxo.kind, u.utxo.amount)),
        )
    });
    // Crossing UTXOs are secp256k1fx transfer outputs: their amount is what they render.
    let crossing = all[stored.len()..].iter().filter_map(|u| {
        let asset: Id = u.asset.asset_id.parse().ok()?;
        Some((asset, u.asset.amount.parse::<u128>().ok()?))
    });
    sum_by_asset(ctx, own.chain(crossing))
}

/// Gives each of `consumed` (the tx's own chain's UTXOs) the credential that spent it: the
/// base inputs' credentials come first, then (on an OperationTx) one per operation.
fn with_credentials(consumed: &mut [Utxo], tx: &Tx) {
    let hash = tx.signing_hash();
    let creds = tx.credentials();
    let base = &tx.unsigned().base().inputs;
    let mut spent: Vec<(String, usize)> = base
        .iter()
        .enumerate()
        .map(|(i, input)| (input.utxo_id().to_string(), i))
        .collect();
    if let UnsignedTx::Operation(t) = tx.unsigned() {
        for (k, op) in t.operations.iter().enumerate() {
            spent.extend(
                op.utxo_ids
                    .iter()
                    .map(|u| (u.id().to_string(), base.len() + k)),
            );
        }
    }
    for u in consumed {
        let credential = spent
            .iter()
            .find(|(id, _)| *id == u.utxo_id)
            .and_then(|(_, i)| creds.get(*i));
        if let Some(c) = credential {
            u.credentials = Some(credentials(&hash, &c.signatures));
        }
    }
}

/// The source chain's UTXOs an ImportTx consumed ([`Utxo::imported`]).
fn imported(ctx: XCtx<'_>, r: &XTxRecord, tx: &Tx) -> Vec<Utxo> {
    let UnsignedTx::Import(import) = tx.unsigned() else {
        return Vec::new();
    };
    let hash = tx.signing_hash();
    let x_chain = ctx.base.network.x_chain_id;
    // Credentials follow the inputs: the base inputs', then the imported ones'.
    let first = import.base.inputs.len();
    import
        .imported_inputs
        .iter()
        .enumerate()
        .map(|(i, input)| {
            let sigs = tx.credentials().get(first + i);
            let imported = ImportedInput {
                consumed_on: &x_chain,
                source: &import.source_chain,
                utxo: input.utxo(),
                asset_id: input.asset_id,
                amount: input.input.amount,
                signatures: input.input.sig_indices.len(),
                consumer: (r.tx_id, r.timestamp),
                credential: (&hash, sigs.map_or(&[], |c| c.signatures.as_slice())),
            };
            Utxo::imported(ctx, imported)
        })
        .collect()
}

/// The UTXOs an ExportTx put in the destination chain's shared memory, numbered after its
/// outputs.
fn exported(ctx: XCtx<'_>, r: &XTxRecord, tx: &Tx) -> Vec<Utxo> {
    let UnsignedTx::Export(export) = tx.unsigned() else {
        return Vec::new();
    };
    let first = export.base.outputs.len();
    let x_chain = ctx.base.network.x_chain_id;
    export
        .exported_outputs
        .iter()
        .enumerate()
        .filter_map(|(i, out)| {
            let index = u32::try_from(first + i).ok()?;
            Some(Utxo::exported(
                ctx,
                (&x_chain, &export.destination_chain),
                (r.tx_id, index, r.timestamp),
                out.asset_id,
                &out.output,
            ))
        })
        .collect()
}

/// A page of X-Chain transactions (`ListXChainTransactionsResponse`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListXChainTransactionsResponse {
    /// Token of the next page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// The transactions.
    pub transactions: Vec<XChainTransaction>,
    /// The chain and network.
    pub chain_info: PrimaryNetworkChainInfo,
}
