//! P-Chain ImportTx and ExportTx: AVAX to and from the X- and C-Chains through shared memory.

use super::{Built, Wallet, WalletError};
use crate::genesis::single_owner;
use firn_core::ids::{Id, ShortId};
use firn_core::pchain::fx::{Input, TransferInput, TransferableInput};
use firn_core::pchain::tx::{BaseTx, ExportTx, ImportTx, Tx, UnsignedTx};

impl Wallet<'_> {
    /// Exports `amount` nAVAX to `to` on `destination` (the X- or C-Chain), paying the fee
    /// from this wallet's P-Chain UTXOs.
    pub fn export(&self, destination: Id, to: ShortId, amount: u64) -> Result<Tx, WalletError> {
        self.paying_fee(amount, 0, |spent| {
            let exported = vec![self.avax_out(amount, single_owner(to))];
            Ok(self.simple(spent, Vec::new(), None, |base| {
                UnsignedTx::Export(ExportTx {
                    base,
                    destination_chain: destination,
                    exported_outputs: exported,
                })
            }))
        })
    }

    /// Imports every AVAX UTXO `source` exported to this wallet's keys, less the fee, to `to`.
    pub fn import(&self, source: Id, to: ShortId) -> Result<Tx, WalletError> {
        let avax = self.identity.avax_asset_id;
        let p_chain = self.identity.p_chain_id;
        let shared = self.chain.shared_memory();
        let mut imported: Vec<(TransferableInput, Vec<usize>)> = Vec::new();
        let mut start = None;
        loop {
            let (page, next) = shared.list(&p_chain, &source, &self.addresses(), start, 1024);
            for u in page.into_iter().filter(|u| u.asset_id == avax) {
                let Some((sig_indices, keys)) = self.signers_for(&u.output.owners) else {
                    continue;
                };
                imported.push((
                    TransferableInput {
                        tx_id: u.tx_id,
                        output_index: u.output_index,
                        asset_id: avax,
                        input: Input::Transfer(TransferInput {
                            amount: u.output.amount,
                            sig_indices,
                        }),
                    },
                    keys,
                ));
            }
            match next {
                Some(n) => start = Some(n),
                None => break,
            }
        }
        imported.sort_by_key(|(i, _)| i.utxo());
        let total = imported
            .iter()
            .map(|(i, _)| i.input.amount())
            .fold(0u64, u64::saturating_add);
        let input_keys: Vec<Vec<usize>> = imported.iter().map(|(_, k)| k.clone()).collect();
        let imported_inputs: Vec<TransferableInput> =
            imported.into_iter().map(|(i, _)| i).collect();
        let mut fee = 0u64;
        loop {
            let rest = total.checked_sub(fee).filter(|r| *r > 0).ok_or(
                WalletError::InsufficientFunds {
                    needed: fee.saturating_sub(total).max(1),
                },
            )?;
            let built = Built {
                unsigned: UnsignedTx::Import(ImportTx {
                    base: BaseTx {
                        outputs: vec![self.avax_out(rest, single_owner(to))],
                        ..self.base()
                    },
                    source_chain: source,
                    imported_inputs: imported_inputs.clone(),
                }),
                input_keys: input_keys.clone(),
                auth_keys: None,
            };
            let needed = self.chain.fee_of(&built.unsigned)?;
            if needed <= fee {
                return Ok(self.sign(built.unsigned, &built.input_keys, None));
            }
            fee = needed;
        }
    }
}
