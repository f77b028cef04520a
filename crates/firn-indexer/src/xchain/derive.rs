//! From a decoded X-Chain tx to the rows the store commits: the UTXOs it consumed and
//! produced (with the AVM's output indices) and the asset it created.

use firn_core::avm::tx::CreateAssetTx;
use firn_core::avm::{FxOutput, Tx, UnsignedTx};
use firn_core::ids::Id;
use firn_store::rows::atomic::AtomicUtxo;
use firn_store::rows::xchain::{AssetKind, XAsset, XOutputKind, XTx, XUtxo};
use tracing::warn;

use crate::error::{IndexerError, Result};
use crate::sums::{self, Sums, add};

/// What carried a tx: a linear block (its height) or a vertex of the DAG (its acceptance
/// index). Only said in the log line of a tx that cannot be derived.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Carrier {
    Block(u64),
    Vertex(u64),
}

/// The rows of `tx` as `carrier` carried it, or `None` when they do not derive: the tx is
/// logged and left out, and indexing goes on.
pub(crate) fn carried_tx_rows(tx: &Tx, carrier: Carrier) -> Option<XTx> {
    let id = tx.id();
    match tx_rows(tx, id, false) {
        Ok(rows) => Some(rows),
        Err(error) => {
            match carrier {
                Carrier::Block(height) => {
                    warn!(target: "indexer::xchain", height, tx = %id, %error, "an x-chain tx that cannot be derived is skipped");
                }
                Carrier::Vertex(vertex_index) => {
                    warn!(target: "indexer::xchain", vertex_index, tx = %id, %error, "an x-chain tx that cannot be derived is skipped");
                }
            }
            None
        }
    }
}

/// The rows of `tx`, whose ID is `tx_id` (a genesis tx's is its asset's ID, not its bytes'
/// hash).
pub(crate) fn tx_rows(tx: &Tx, tx_id: Id, genesis: bool) -> Result<XTx> {
    let unsigned = tx.unsigned();
    let base = unsigned.base();
    let mut consumed: Vec<Id> = base.inputs.iter().map(|i| i.utxo_id()).collect();
    let mut outputs: Vec<(Id, FxOutput)> = base
        .outputs
        .iter()
        .map(|o| (o.asset_id, FxOutput::Secp256k1Transfer(o.output.clone())))
        .collect();
    let (mut source_chain, mut destination_chain, mut asset) = (None, None, None);
    let (mut imported, mut exported) = (Vec::new(), Vec::new());
    match unsigned {
        UnsignedTx::Base(_) => {}
        UnsignedTx::CreateAsset(t) => {
            // Initial states follow the outputs, of the asset the tx creates.
            for state in &t.initial_states {
                outputs.extend(state.outputs.iter().map(|o| (tx_id, o.clone())));
            }
            asset = Some(asset_of(t, tx_id));
        }
        UnsignedTx::Operation(t) => {
            for op in &t.operations {
                consumed.extend(op.utxo_ids.iter().map(|u| u.id()));
                outputs.extend(op.op.outputs().into_iter().map(|o| (op.asset_id, o)));
            }
        }
        // Imported UTXOs were the source chain's: no X-Chain UTXO is consumed by them.
        UnsignedTx::Import(t) => {
            source_chain = Some(t.source_chain);
            imported = t.imported_inputs.iter().map(|i| i.utxo_id()).collect();
        }
        // Exported outputs go to the destination's shared memory, not the X-Chain; they are
        // numbered after the tx's own outputs.
        UnsignedTx::Export(t) => {
            destination_chain = Some(t.destination_chain);
            let first = base.outputs.len();
            exported = t
                .exported_outputs
                .iter()
                .enumerate()
                .map(|(i, o)| {
                    let output_index = output_index(tx_id, first + i)?;
                    let owners = &o.output.owners;
                    Ok(AtomicUtxo {
                        utxo_id: tx_id.prefix(u64::from(output_index)),
                        tx_id,
                        output_index,
                        source_chain: base.blockchain_id,
                        destination_chain: t.destination_chain,
                        asset_id: o.asset_id,
                        amount: o.output.amount,
                        threshold: owners.threshold,
                        locktime: owners.locktime,
                        addresses: owners.addresses.clone(),
                    })
                })
                .collect::<Result<Vec<_>>>()?;
        }
    }
    let produced = outputs
        .into_iter()
        .enumerate()
        .map(|(i, (asset_id, output))| Ok(utxo(tx_id, output_index(tx_id, i)?, asset_id, &output)))
        .collect::<Result<Vec<_>>>()?;
    Ok(XTx {
        tx_id,
        tx_type: unsigned.type_name().to_owned(),
        memo: base.memo.to_vec(),
        source_chain,
        destination_chain,
        bytes: tx.bytes(),
        genesis,
        consumed,
        produced,
        asset,
        burned: burned(unsigned),
        imported,
        exported,
    })
}

/// Per asset, what `tx`'s transfer inputs (imported ones too) hold beyond its transfer outputs
/// (exported ones too): the fee it burned. Assets it creates or mints come out ahead and are
/// left out.
fn burned(tx: &UnsignedTx) -> Vec<(Id, u64)> {
    let base = tx.base();
    let (mut inputs, mut outputs) = (Sums::new(), Sums::new());
    for i in &base.inputs {
        add(&mut inputs, i.asset_id, i.input.amount);
    }
    for o in &base.outputs {
        add(&mut outputs, o.asset_id, o.output.amount);
    }
    match tx {
        UnsignedTx::Import(t) => {
            for i in &t.imported_inputs {
                add(&mut inputs, i.asset_id, i.input.amount);
            }
        }
        UnsignedTx::Export(t) => {
            for o in &t.exported_outputs {
                add(&mut outputs, o.asset_id, o.output.amount);
            }
        }
        _ => {}
    }
    sums::burned(&inputs, &[&outputs])
        .into_iter()
        .filter_map(|(asset, n)| u64::try_from(n).ok().map(|n| (asset, n)))
        .collect()
}

/// The `i`th output's index in tx `tx_id` (outputs, then initial states, operations' or
/// exported outputs).
fn output_index(tx_id: Id, i: usize) -> Result<u32> {
    u32::try_from(i)
        .map_err(|_| IndexerError::decode(format!("x-chain tx {tx_id}"), "more than 2^32 outputs"))
}

fn kind_of(o: &FxOutput) -> XOutputKind {
    match o {
        FxOutput::Secp256k1Transfer(_) => XOutputKind::Secp256k1Transfer,
        FxOutput::Secp256k1Mint(_) => XOutputKind::Secp256k1Mint,
        FxOutput::NftMint(_) => XOutputKind::NftMint,
        FxOutput::NftTransfer(_) => XOutputKind::NftTransfer,
        FxOutput::PropertyMint(_) => XOutputKind::PropertyMint,
        FxOutput::PropertyOwned(_) => XOutputKind::PropertyOwned,
    }
}

fn utxo(tx_id: Id, output_index: u32, asset_id: Id, o: &FxOutput) -> XUtxo {
    let owners = o.owners();
    let (amount, group_id, payload) = match o {
        FxOutput::Secp256k1Transfer(t) => (Some(t.amount), None, None),
        FxOutput::NftMint(n) => (None, Some(n.group_id), None),
        FxOutput::NftTransfer(n) => (None, Some(n.group_id), Some(n.payload.to_vec())),
        FxOutput::Secp256k1Mint(_) | FxOutput::PropertyMint(_) | FxOutput::PropertyOwned(_) => {
            (None, None, None)
        }
    };
    XUtxo {
        utxo_id: tx_id.prefix(u64::from(output_index)),
        tx_id,
        output_index,
        asset_id,
        kind: kind_of(o),
        amount,
        group_id,
        payload,
        threshold: owners.threshold,
        locktime: owners.locktime,
        addresses: owners.addresses.clone(),
    }
}

fn asset_of(t: &CreateAssetTx, asset_id: Id) -> XAsset {
    let kinds = t
        .initial_states
        .iter()
        .flat_map(|s| s.outputs.iter().map(kind_of));
    XAsset {
        asset_id,
        name: t.name.clone(),
        symbol: t.symbol.clone(),
        denomination: t.denomination,
        kind: AssetKind::of_outputs(kinds),
    }
}
