//! The C-Chain's atomic txs from a block's `blockExtraData` (coreth's ImportTx and ExportTx):
//! what they import and export, and who they name. Extra data that does not decode is logged
//! and skipped; the block's EVM rows are indexed all the same.

use firn_core::atomic::{Tx, UnsignedTx, txs_from_ext_data};
use firn_core::keys::secp256k1::{RecoverableSignature, recover};
use firn_store::rows::atomic::{AtomicUtxo, CAtomicParty, CAtomicTx};
use tracing::warn;

/// The atomic txs of the block at `number` whose extra data is `ext_data`.
pub fn atomic_txs(number: u64, ext_data: &[u8]) -> Vec<CAtomicTx> {
    let txs = match txs_from_ext_data(ext_data, true) {
        Ok(txs) => txs,
        Err(error) => {
            warn!(number, %error, "C-Chain block's atomic txs do not decode: skipped");
            return Vec::new();
        }
    };
    txs.iter()
        .enumerate()
        .map(|(i, tx)| row(u32::try_from(i).unwrap_or(u32::MAX), tx))
        .collect()
}

fn row(index: u32, tx: &Tx) -> CAtomicTx {
    let tx_id = tx.id();
    let mut parties = Vec::new();
    let mut exported = Vec::new();
    let mut imported = Vec::new();
    let (tx_type, peer_chain) = match tx.unsigned() {
        UnsignedTx::Import(t) => {
            // Inputs name no owners: the keys that signed them are.
            parties.extend(signers(tx).into_iter().map(CAtomicParty::Owner));
            parties.extend(
                t.outputs
                    .iter()
                    .map(|o| CAtomicParty::Account(o.address.0.0)),
            );
            imported = t.imported_inputs.iter().map(|i| i.utxo_id()).collect();
            ("ImportTx", t.source_chain)
        }
        UnsignedTx::Export(t) => {
            parties.extend(
                t.inputs
                    .iter()
                    .map(|i| CAtomicParty::Account(i.address.0.0)),
            );
            for (i, out) in t.exported_outputs.iter().enumerate() {
                let owners = &out.output.owners;
                parties.extend(owners.addresses.iter().copied().map(CAtomicParty::Owner));
                let output_index = u32::try_from(i).unwrap_or(u32::MAX);
                exported.push(AtomicUtxo {
                    utxo_id: tx_id.prefix(u64::from(output_index)),
                    tx_id,
                    output_index,
                    source_chain: t.blockchain_id,
                    destination_chain: t.destination_chain,
                    asset_id: out.asset_id,
                    amount: out.output.amount,
                    threshold: owners.threshold,
                    locktime: owners.locktime,
                    addresses: owners.addresses.clone(),
                });
            }
            ("ExportTx", t.destination_chain)
        }
    };
    parties.sort();
    parties.dedup();
    CAtomicTx {
        index,
        tx_id,
        tx_type: tx_type.to_owned(),
        peer_chain,
        bytes: tx.bytes(),
        parties,
        exported,
        imported,
    }
}

/// The addresses whose keys signed `tx`'s credentials (those that recover).
fn signers(tx: &Tx) -> Vec<firn_core::ids::ShortId> {
    let hash = tx.signing_hash();
    tx.credentials()
        .iter()
        .flat_map(|c| c.signatures.iter())
        .filter_map(|sig| recover(&hash, &RecoverableSignature(*sig)).ok())
        .map(|key| key.short_id())
        .collect()
}
