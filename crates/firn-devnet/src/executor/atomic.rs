//! ImportTx and ExportTx: AVAX moving between the P-Chain and the X- or C-Chain through
//! shared memory (AvalancheGo's `standardTxExecutor.ImportTx` / `ExportTx`).
//!
//! The caller has run the BaseTx checks and, once these return, consumes the inputs and
//! produces the outputs; here are the rest: the imported or exported UTXOs, the flow check
//! over them, and the shared-memory requests the block makes when it is accepted.

use super::Executor;
use super::spend::{Spend, verify_spend, verify_spend_of};
use super::syntax::{verify_input, verify_output};
use crate::error::TxError;
use crate::shared_memory::AtomicUtxo;
use crate::state::{State, Utxo};
use firn_core::ids::Id;
use firn_core::pchain::fx::{Output, TransferableInput, TransferableOutput};
use firn_core::pchain::tx::{ExportTx, ImportTx, Tx};
use std::cmp::Ordering;
use std::collections::HashMap;

impl Executor<'_> {
    /// The peer chain must be another chain of the primary network (`verify.SameSubnet`).
    fn same_subnet(&self, peer: &Id) -> Result<(), TxError> {
        if *peer == self.identity.p_chain_id {
            return Err(TxError::Rule("same chainID".into()));
        }
        if *peer != self.identity.x_chain_id && *peer != self.identity.c_chain_id {
            return Err(TxError::Rule(format!(
                "failed to get subnet of \"{peer}\": not found"
            )));
        }
        Ok(())
    }

    pub(super) fn import(
        &self,
        state: &mut State,
        tx: &Tx,
        t: &ImportTx,
        fee: u64,
    ) -> Result<(), TxError> {
        if t.imported_inputs.is_empty() {
            return Err(TxError::Syntax("no import inputs"));
        }
        for i in &t.imported_inputs {
            verify_input(i)?;
        }
        if t.imported_inputs
            .windows(2)
            .any(|w| w[0].utxo() >= w[1].utxo())
        {
            return Err(TxError::InputsNotSortedUnique);
        }
        self.same_subnet(&t.source_chain)?;
        let p_chain = self.identity.p_chain_id;
        let mut imported: HashMap<Id, Utxo> = HashMap::new();
        let mut all_found = true;
        for i in &t.imported_inputs {
            let id = i.utxo_id();
            let found = match self.shared {
                Some(shared) if !state.atomic().removes(&t.source_chain, &id) => {
                    shared.get(&p_chain, &t.source_chain, &id)
                }
                _ => None,
            };
            match found {
                Some(u) => {
                    imported.insert(
                        id,
                        Utxo {
                            tx_id: u.tx_id,
                            output_index: u.output_index,
                            asset_id: u.asset_id,
                            output: Output::Transfer(u.output),
                        },
                    );
                }
                None if self.replaying => all_found = false,
                None => return Err(TxError::MissingAtomicUtxo),
            }
        }
        if all_found {
            let inputs: Vec<TransferableInput> = t
                .base
                .inputs
                .iter()
                .chain(&t.imported_inputs)
                .cloned()
                .collect();
            let spend = Spend {
                hash: tx.unsigned().signing_hash(),
                inputs: &inputs,
                outputs: t.base.outputs.iter().collect(),
                creds: tx.credentials(),
                burned: fee,
            };
            verify_spend_of(
                |id| imported.get(id).or_else(|| state.utxo(id)),
                self.avax(),
                &spend,
                state.timestamp(),
            )?;
        }
        for i in &t.imported_inputs {
            state.remove_atomic(t.source_chain, i.utxo_id());
        }
        Ok(())
    }

    pub(super) fn export(
        &self,
        state: &mut State,
        tx: &Tx,
        t: &ExportTx,
        fee: u64,
    ) -> Result<(), TxError> {
        if t.exported_outputs.is_empty() {
            return Err(TxError::Syntax("no export outputs"));
        }
        for o in &t.exported_outputs {
            verify_output(o)?;
            if matches!(o.output, Output::Locked(_)) {
                return Err(TxError::Syntax("wrong locktime reported"));
            }
        }
        if t.exported_outputs
            .windows(2)
            .any(|w| w[0].canonical_cmp(&w[1]) == Ordering::Greater)
        {
            return Err(TxError::OutputsNotSorted);
        }
        self.same_subnet(&t.destination_chain)?;
        let spend = Spend {
            hash: tx.unsigned().signing_hash(),
            inputs: &t.base.inputs,
            outputs: t.base.outputs.iter().chain(&t.exported_outputs).collect(),
            creds: tx.credentials(),
            burned: fee,
        };
        verify_spend(state, self.avax(), &spend, state.timestamp())
            .map_err(|e| TxError::Rule(format!("failed verifySpend: {e}")))?;
        let tx_id = tx.id();
        let first = t.base.outputs.len() as u32;
        for (i, o) in t.exported_outputs.iter().enumerate() {
            state.put_atomic(
                t.destination_chain,
                exported_utxo(tx_id, first + i as u32, o),
            );
        }
        Ok(())
    }
}

fn exported_utxo(tx_id: Id, output_index: u32, o: &TransferableOutput) -> AtomicUtxo {
    AtomicUtxo {
        tx_id,
        output_index,
        asset_id: o.asset_id,
        output: o.output.transfer().clone(),
    }
}
