//! The C-Chain's side of shared memory: coreth's checks of an atomic ImportTx or ExportTx
//! against everything but the EVM's state (`atomic.Unsigned*Tx.Verify` and the semantic
//! verifier's flow check, credentials and imported UTXOs), and what an accepted one puts into
//! or takes out of shared memory.
//!
//! The EVM chain (`firn_evm`) does the rest: debiting and crediting accounts, export nonces,
//! and carrying the txs in its blocks. Error texts are coreth's.

use crate::clock::Clock;
use crate::executor::spend::{recover_signer, verify_credentials};
use crate::executor::syntax::{verify_owners, verify_sig_indices};
use crate::genesis::NetworkIdentity;
use crate::shared_memory::{AtomicRequests, AtomicUtxo, SharedMemory};
use firn_core::atomic::{ExportTx, ImportTx, Tx, UnsignedTx, dynamic_fee};
use firn_core::ids::Id;

/// The C-Chain's view of shared memory, for the EVM chain to call.
#[derive(Debug, Clone)]
pub struct CChainAtomic {
    identity: NetworkIdentity,
    memory: SharedMemory,
    clock: Clock,
}

impl CChainAtomic {
    /// The C-Chain of the network `identity`, over the devnet's shared `memory`; `clock` says
    /// when imported UTXOs unlock.
    pub fn new(identity: NetworkIdentity, memory: SharedMemory, clock: Clock) -> Self {
        Self {
            identity,
            memory,
            clock,
        }
    }

    /// Checks `tx` as coreth does before it touches the EVM's state, at `base_fee` wei per gas.
    pub fn verify(&self, tx: &Tx, base_fee: u64) -> Result<(), String> {
        let fee = dynamic_fee(tx.unsigned().gas_used(), base_fee)
            .ok_or("overflow occurred while calculating the fee")?;
        match tx.unsigned() {
            UnsignedTx::Import(t) => self.verify_import(tx, t, fee),
            UnsignedTx::Export(t) => self.verify_export(tx, t, fee),
        }
    }

    /// What accepting `txs` changes in shared memory.
    pub fn requests(txs: &[Tx]) -> AtomicRequests {
        let mut requests = AtomicRequests::default();
        for tx in txs {
            match tx.unsigned() {
                UnsignedTx::Import(t) => requests.removes.extend(
                    t.imported_inputs
                        .iter()
                        .map(|i| (t.source_chain, i.utxo_id())),
                ),
                UnsignedTx::Export(t) => {
                    let id = tx.id();
                    requests
                        .puts
                        .extend(t.exported_outputs.iter().enumerate().map(|(i, out)| {
                            let utxo = AtomicUtxo {
                                tx_id: id,
                                output_index: i as u32,
                                asset_id: out.asset_id,
                                output: out.output.clone(),
                            };
                            (t.destination_chain, utxo)
                        }))
                }
            }
        }
        requests
    }

    /// Applies accepted `txs` to shared memory.
    pub fn accept(&self, txs: &[Tx]) {
        self.memory
            .apply(&self.identity.c_chain_id, &Self::requests(txs));
    }

    fn verify_ids(&self, network_id: u32, blockchain_id: &Id, peer: &Id) -> Result<(), String> {
        let n = &self.identity;
        if network_id != n.network_id {
            return Err("tx was issued with a different network ID".into());
        }
        // `SameSubnet`: the peer is another chain of the primary network.
        if *blockchain_id != n.c_chain_id || (*peer != n.x_chain_id && *peer != n.p_chain_id) {
            return Err("tx has wrong chain ID".into());
        }
        Ok(())
    }

    fn verify_import(&self, tx: &Tx, t: &ImportTx, fee: u64) -> Result<(), String> {
        let avax = self.identity.avax_asset_id;
        if t.imported_inputs.is_empty() {
            return Err("tx has no imported inputs".into());
        }
        self.verify_ids(t.network_id, &t.blockchain_id, &t.source_chain)?;
        if t.outputs.is_empty() {
            return Err("tx has no EVM outputs".into());
        }
        for out in &t.outputs {
            if out.amount == 0 {
                return Err("EVM Output failed verification: output has no value".into());
            }
            if out.asset_id != avax {
                return Err("import output cannot contain non-AVAX in Banff".into());
            }
        }
        for i in &t.imported_inputs {
            if i.input.amount == 0 {
                return Err("atomic input failed verification: input has no value".into());
            }
            verify_sig_indices(&i.input.sig_indices)
                .map_err(|e| format!("atomic input failed verification: {e}"))?;
            if i.asset_id != avax {
                return Err("import input cannot contain non-AVAX in Banff".into());
            }
        }
        let keys: Vec<_> = t.imported_inputs.iter().map(|i| i.utxo_id()).collect();
        if t.imported_inputs
            .windows(2)
            .any(|w| (w[0].tx_id, w[0].output_index) >= (w[1].tx_id, w[1].output_index))
        {
            return Err("inputs not sorted and unique".into());
        }
        if t.outputs
            .windows(2)
            .any(|w| (w[0].address, w[0].asset_id) >= (w[1].address, w[1].asset_id))
        {
            return Err("outputs not sorted and unique".into());
        }
        let produced = t.outputs.iter().map(|o| o.amount);
        let consumed = t.imported_inputs.iter().map(|i| i.input.amount);
        if !covers(fee, produced, consumed) {
            return Err("import tx flow check failed due to: insufficient funds".into());
        }
        if tx.credentials().len() != t.imported_inputs.len() {
            return Err(format!(
                "incorrect number of credentials: ({} vs. {})",
                t.imported_inputs.len(),
                tx.credentials().len()
            ));
        }
        let hash = tx.signing_hash();
        let now = self.clock.now();
        for ((i, id), cred) in t.imported_inputs.iter().zip(&keys).zip(tx.credentials()) {
            let c = &self.identity.c_chain_id;
            let utxo = self.memory.get(c, &t.source_chain, id).ok_or_else(|| {
                format!(
                    "failed to fetch import UTXOs from {} due to: not found",
                    t.source_chain
                )
            })?;
            if utxo.asset_id != i.asset_id {
                return Err("asset IDs in the input don't match the utxo".into());
            }
            let transfer = |e: String| format!("import tx transfer failed verification: {e}");
            if utxo.output.amount != i.input.amount {
                return Err(transfer(format!(
                    "utxo amount and input amount are not equal: {} != {}",
                    utxo.output.amount, i.input.amount
                )));
            }
            verify_credentials(
                &hash,
                &i.input.sig_indices,
                &cred.signatures,
                &utxo.output.owners,
                now,
            )
            .map_err(|e| transfer(e.to_string()))?;
        }
        Ok(())
    }

    fn verify_export(&self, tx: &Tx, t: &ExportTx, fee: u64) -> Result<(), String> {
        let avax = self.identity.avax_asset_id;
        if t.exported_outputs.is_empty() {
            return Err("tx has no export outputs".into());
        }
        self.verify_ids(t.network_id, &t.blockchain_id, &t.destination_chain)?;
        for i in &t.inputs {
            if i.amount == 0 {
                return Err("input has no value".into());
            }
            if i.asset_id != avax {
                return Err("export input cannot contain non-AVAX in Banff".into());
            }
        }
        for o in &t.exported_outputs {
            if o.output.amount == 0 {
                return Err("output has no value".into());
            }
            verify_owners(&o.output.owners)?;
            if o.asset_id != avax {
                return Err("export output cannot contain non-AVAX in Banff".into());
            }
        }
        let sorted_outputs = t
            .exported_outputs
            .windows(2)
            .all(|w| firn_core::codec::to_bytes(&w[0]) <= firn_core::codec::to_bytes(&w[1]));
        if !sorted_outputs {
            return Err("tx outputs not sorted".into());
        }
        if t.inputs
            .windows(2)
            .any(|w| (w[0].address, w[0].asset_id) >= (w[1].address, w[1].asset_id))
        {
            return Err("inputs not sorted and unique".into());
        }
        let produced = t.exported_outputs.iter().map(|o| o.output.amount);
        let consumed = t.inputs.iter().map(|i| i.amount);
        if !covers(fee, produced, consumed) {
            return Err("export tx flow check failed due to: insufficient funds".into());
        }
        if tx.credentials().len() != t.inputs.len() {
            return Err(format!(
                "export tx contained incorrect number of credentials want {} got {}",
                t.inputs.len(),
                tx.credentials().len()
            ));
        }
        let hash = tx.signing_hash();
        for (input, cred) in t.inputs.iter().zip(tx.credentials()) {
            let [sig] = cred.signatures.as_slice() else {
                return Err(format!(
                    "incorrect number of signatures want 1 signature for EVM Input Credential, but got {}",
                    cred.signatures.len()
                ));
            };
            let address = recover_signer(&hash, sig)
                .map_err(|e| format!("invalid signature: {e}"))?
                .eth_address();
            if input.address.as_slice() != address {
                return Err("signature doesn't match public key".into());
            }
        }
        Ok(())
    }
}

/// coreth's flow check of AVAX: what is consumed covers what is produced plus the fee, with
/// no sum overflowing.
fn covers(
    fee: u64,
    mut produced: impl Iterator<Item = u64>,
    mut consumed: impl Iterator<Item = u64>,
) -> bool {
    let produced = produced.try_fold(fee, u64::checked_add);
    let consumed = consumed.try_fold(0u64, u64::checked_add);
    matches!((produced, consumed), (Some(p), Some(c)) if p <= c)
}
