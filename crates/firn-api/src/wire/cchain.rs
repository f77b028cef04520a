//! C-Chain atomic shapes: ImportTx and ExportTx (`CChainImportTransaction`,
//! `CChainExportTransaction`), rendered from the stored tx's bytes and the exports of the
//! UTXOs it imported, and the C-Chain's atomic memory (`ListCChainAtomicBalancesResponse`).

use firn_core::atomic::{Tx, UnsignedTx};
use firn_store::rows::atomic::{AtomicBalance, CAtomicTxRecord};
use firn_store::types::Address;
use serde::Serialize;
use utoipa::ToSchema;

use super::pchain::{AssetAmount, PrimaryNetworkChainInfo};
use super::xchain::balances::shared_balances;
use super::xchain::utxos::{ImportedInput, UtxoCredential, credentials};
use super::xchain::{Utxo, XChainSharedAssetBalance, XCtx};

/// An EVM account an ExportTx debits (`EVMInput`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EvmInput {
    /// The account, checksummed.
    pub from_address: String,
    /// The amount, in nAVAX.
    pub asset: AssetAmount,
    /// The credential that signed for it.
    pub credentials: Vec<UtxoCredential>,
}

/// An EVM account an ImportTx credits (`EVMOutput`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EvmOutput {
    /// The account, checksummed.
    pub to_address: String,
    /// The amount, in nAVAX.
    pub asset: AssetAmount,
}

/// What both atomic shapes carry.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CChainAtomicFields {
    /// Tx ID.
    pub tx_hash: String,
    /// The C-Chain block's height.
    pub block_height: u64,
    /// The C-Chain block's hash.
    pub block_hash: String,
    /// The block's time.
    pub timestamp: u64,
    /// Atomic txs have no memo: `0x`.
    pub memo: String,
    /// Per asset, what its inputs spent.
    pub amount_unlocked: Vec<AssetAmount>,
    /// Per asset, what its outputs made.
    pub amount_created: Vec<AssetAmount>,
    /// The chain the AVAX left.
    pub source_chain: String,
    /// The chain the AVAX went to.
    pub destination_chain: String,
    /// `ImportTx` or `ExportTx`.
    pub tx_type: String,
}

/// An ImportTx: UTXOs from another chain credited to EVM accounts (`CChainImportTransaction`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CChainImportTransaction {
    /// The common fields.
    #[serde(flatten)]
    pub tx: CChainAtomicFields,
    /// The accounts credited.
    pub evm_outputs: Vec<EvmOutput>,
    /// The UTXOs taken out of the C-Chain's atomic memory.
    pub consumed_utxos: Vec<Utxo>,
}

/// An ExportTx: EVM accounts debited into another chain's atomic memory
/// (`CChainExportTransaction`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CChainExportTransaction {
    /// The common fields.
    #[serde(flatten)]
    pub tx: CChainAtomicFields,
    /// The accounts debited.
    pub evm_inputs: Vec<EvmInput>,
    /// The UTXOs put in the destination's atomic memory.
    pub emitted_utxos: Vec<Utxo>,
}

/// A C-Chain atomic tx, in its kind's shape.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(untagged)]
pub enum CChainAtomicTransaction {
    /// An ExportTx.
    Export(Box<CChainExportTransaction>),
    /// An ImportTx.
    Import(Box<CChainImportTransaction>),
}

impl CChainAtomicTransaction {
    /// From a stored tx and `tx`, its decoded bytes.
    pub fn from_record(ctx: XCtx<'_>, r: &CAtomicTxRecord, tx: &Tx) -> Self {
        let c_chain = ctx.base.network.c_chain_id;
        let base = |tx_type: &str, source: String, destination: String| CChainAtomicFields {
            tx_hash: r.tx_id.to_string(),
            block_height: r.height,
            block_hash: format!("0x{}", hex::encode(r.block_hash)),
            timestamp: r.timestamp,
            memo: "0x".to_owned(),
            amount_unlocked: Vec::new(),
            amount_created: Vec::new(),
            source_chain: source,
            destination_chain: destination,
            tx_type: tx_type.to_owned(),
        };
        let hash = tx.signing_hash();
        match tx.unsigned() {
            UnsignedTx::Import(t) => {
                let mut fields = base(
                    "ImportTx",
                    ctx.base.chain(&t.source_chain),
                    ctx.base.chain(&c_chain),
                );
                let consumed: Vec<Utxo> = t
                    .imported_inputs
                    .iter()
                    .enumerate()
                    .map(|(i, input)| {
                        let sigs = tx.credentials().get(i);
                        let imported = ImportedInput {
                            consumed_on: &c_chain,
                            source: &t.source_chain,
                            utxo: input.utxo(),
                            asset_id: input.asset_id,
                            amount: input.input.amount,
                            signatures: input.input.sig_indices.len(),
                            consumer: (r.tx_id, r.timestamp),
                            credential: (&hash, sigs.map_or(&[], |c| c.signatures.as_slice())),
                        };
                        Utxo::imported(ctx, imported)
                    })
                    .collect();
                fields.amount_unlocked = sum(
                    ctx,
                    t.imported_inputs
                        .iter()
                        .map(|i| (i.asset_id, i.input.amount)),
                );
                fields.amount_created = sum(ctx, t.outputs.iter().map(|o| (o.asset_id, o.amount)));
                Self::Import(Box::new(CChainImportTransaction {
                    tx: fields,
                    evm_outputs: t
                        .outputs
                        .iter()
                        .map(|o| EvmOutput {
                            to_address: checksummed(o.address),
                            asset: ctx.amount(o.asset_id, o.amount),
                        })
                        .collect(),
                    consumed_utxos: consumed,
                }))
            }
            UnsignedTx::Export(t) => {
                let mut fields = base(
                    "ExportTx",
                    ctx.base.chain(&c_chain),
                    ctx.base.chain(&t.destination_chain),
                );
                fields.amount_unlocked = sum(ctx, t.inputs.iter().map(|i| (i.asset_id, i.amount)));
                fields.amount_created = sum(
                    ctx,
                    t.exported_outputs
                        .iter()
                        .map(|o| (o.asset_id, o.output.amount)),
                );
                let emitted = t
                    .exported_outputs
                    .iter()
                    .enumerate()
                    .map(|(i, out)| {
                        let index = u32::try_from(i).unwrap_or(u32::MAX);
                        Utxo::exported(
                            ctx,
                            (&c_chain, &t.destination_chain),
                            (r.tx_id, index, r.timestamp),
                            out.asset_id,
                            &out.output,
                        )
                    })
                    .collect();
                Self::Export(Box::new(CChainExportTransaction {
                    tx: fields,
                    evm_inputs: t
                        .inputs
                        .iter()
                        .enumerate()
                        .map(|(i, input)| EvmInput {
                            from_address: checksummed(input.address),
                            asset: ctx.amount(input.asset_id, input.amount),
                            credentials: tx
                                .credentials()
                                .get(i)
                                .map(|c| credentials(&hash, &c.signatures))
                                .unwrap_or_default(),
                        })
                        .collect(),
                    emitted_utxos: emitted,
                }))
            }
        }
    }
}

fn checksummed(a: Address) -> String {
    a.to_checksum(None)
}

/// Per asset, in the order each first appears.
fn sum(ctx: XCtx<'_>, items: impl Iterator<Item = (firn_core::ids::Id, u64)>) -> Vec<AssetAmount> {
    super::xchain::sum_by_asset(ctx, items.map(|(a, n)| (a, u128::from(n))))
}

/// A page of C-Chain atomic txs (`ListCChainAtomicTransactionsResponse`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListCChainAtomicTransactionsResponse {
    /// Token of the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// The transactions.
    pub transactions: Vec<CChainAtomicTransaction>,
    /// The chain and network.
    pub chain_info: PrimaryNetworkChainInfo,
}

/// What the C-Chain's atomic memory holds for some addresses (`CChainAtomicBalances`).
#[derive(Debug, Clone, Default, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CChainAtomicBalances {
    /// Unlocked amounts exported to the C-Chain and not yet imported.
    pub atomic_memory_unlocked: Vec<XChainSharedAssetBalance>,
    /// Locked amounts exported to the C-Chain and not yet imported.
    pub atomic_memory_locked: Vec<XChainSharedAssetBalance>,
}

impl CChainAtomicBalances {
    /// From what the store holds (`held`), by lock.
    pub fn from_held(ctx: XCtx<'_>, held: &[AtomicBalance]) -> Self {
        let (atomic_memory_unlocked, atomic_memory_locked) = shared_balances(ctx, held);
        Self {
            atomic_memory_unlocked,
            atomic_memory_locked,
        }
    }
}

/// Balances of addresses in the C-Chain's atomic memory (`ListCChainAtomicBalancesResponse`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListCChainAtomicBalancesResponse {
    /// The balances.
    pub balances: CChainAtomicBalances,
    /// The chain and network.
    pub chain_info: PrimaryNetworkChainInfo,
}
