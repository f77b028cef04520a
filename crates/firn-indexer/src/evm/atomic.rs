//! The C-Chain's atomic txs from a block's `blockExtraData` (coreth's ImportTx and ExportTx):
//! what they import and export, and who they name. Extra data that does not decode is logged
//! and skipped; the block's EVM rows are indexed all the same.
//!
//! An import's owners are the keys that signed it, recovered from its credentials. A valid
//! block holds at most 100 signatures (100,000 atomic gas at 1,000 a signature); a node's block
//! gets [`MAX_RECOVERIES`] recoveries at most, so crafted extra data cannot make it expensive.

use firn_core::atomic::{Tx, UnsignedTx, txs_from_ext_data};
use firn_core::keys::secp256k1::{RecoverableSignature, recover};
use firn_core::network::PrimaryNetwork;
use firn_store::rows::atomic::{AtomicUtxo, CAtomicParty, CAtomicTx};
use tracing::warn;

/// Most signatures recovered per block.
pub const MAX_RECOVERIES: usize = 1_000;

/// The atomic txs of the block at `number` whose extra data is `ext_data`.
pub fn atomic_txs(number: u64, ext_data: &[u8]) -> Vec<CAtomicTx> {
    let txs = match txs_from_ext_data(ext_data, true) {
        Ok(txs) => txs,
        Err(error) => {
            warn!(number, %error, "C-Chain block's atomic txs do not decode: skipped");
            return Vec::new();
        }
    };
    let mut budget = MAX_RECOVERIES;
    txs.iter()
        .enumerate()
        .map(|(i, tx)| row(u32::try_from(i).unwrap_or(u32::MAX), tx, &mut budget))
        .collect()
}

fn row(index: u32, tx: &Tx, budget: &mut usize) -> CAtomicTx {
    let tx_id = tx.id();
    let mut parties = Vec::new();
    let mut exported = Vec::new();
    let mut imported = Vec::new();
    let (tx_type, peer_chain) = match tx.unsigned() {
        UnsignedTx::Import(t) => {
            // Inputs name no owners: the keys that signed them are.
            parties.extend(signers(tx, budget).into_iter().map(CAtomicParty::Owner));
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
    let unsigned = tx.unsigned();
    CAtomicTx {
        burned: PrimaryNetwork::by_id(unsigned.network_id())
            .map_or(0, |n| unsigned.burned(n.avax_asset_id)),
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

/// The addresses whose keys signed `tx`'s credentials (those that recover, while `budget`
/// lasts).
fn signers(tx: &Tx, budget: &mut usize) -> Vec<firn_core::ids::ShortId> {
    let hash = tx.signing_hash();
    let sigs: Vec<_> = tx
        .credentials()
        .iter()
        .flat_map(|c| c.signatures.iter())
        .take(*budget)
        .collect();
    *budget -= sigs.len();
    sigs.into_iter()
        .filter_map(|sig| recover(&hash, &RecoverableSignature(*sig)).ok())
        .map(|key| key.short_id())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use firn_core::atomic::{ImportTx, TransferableInput, ext_data_from_txs};
    use firn_core::avax::secp256k1fx::{Credential, TransferInput};
    use firn_core::ids::Id;
    use firn_core::keys::secp256k1::PrivateKey;

    fn import_signed_many(times: usize) -> (Tx, firn_core::ids::ShortId) {
        let key = PrivateKey::from_seed(b"firn-atomic-test", 0);
        let unsigned = UnsignedTx::Import(ImportTx {
            network_id: 5,
            blockchain_id: Id([1; 32]),
            source_chain: Id::ZERO,
            imported_inputs: vec![TransferableInput {
                tx_id: Id([2; 32]),
                output_index: 0,
                asset_id: Id([3; 32]),
                input: TransferInput {
                    amount: 5,
                    sig_indices: vec![0],
                },
            }],
            outputs: Vec::new(),
        });
        let hash = Tx::new(unsigned.clone(), Vec::new()).signing_hash();
        let sig = key.sign_hash(&hash).0;
        let tx = Tx::new(
            unsigned,
            vec![Credential {
                signatures: vec![sig; times],
            }],
        );
        (tx, key.public_key().short_id())
    }

    #[test]
    fn recoveries_stop_at_the_budget() {
        let (tx, signer) = import_signed_many(50);
        let mut budget = 5;
        assert_eq!(signers(&tx, &mut budget), vec![signer; 5]);
        assert_eq!(budget, 0);
        assert!(signers(&tx, &mut budget).is_empty());
        let (crafted, _) = import_signed_many(MAX_RECOVERIES + 500);
        let ext = ext_data_from_txs(&[crafted.clone(), crafted], true);
        let rows = atomic_txs(1, &ext);
        assert_eq!(rows.len(), 2);
        // The first names its signer; the budget is spent before the second.
        assert!(rows[0].parties.contains(&CAtomicParty::Owner(signer)));
        assert!(!rows[1].parties.contains(&CAtomicParty::Owner(signer)));
    }

    #[test]
    fn extra_data_that_does_not_decode_names_no_txs() {
        assert!(atomic_txs(1, &[0, 0, 0, 0, 0, 9, 1]).is_empty());
        assert!(atomic_txs(1, &[0xff; 64]).is_empty());
    }
}
