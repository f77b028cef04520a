//! A wallet for the C-Chain's atomic txs: builds and signs ImportTx (AVAX another chain
//! exported to the keys' addresses, credited to an EVM address) and ExportTx (AVAX debited
//! from a key's EVM account, put into another chain's shared memory), paying coreth's dynamic
//! fee at a given base fee. What the EVM knows (the account's nonce, the base fee) comes in
//! as arguments.

use crate::genesis::NetworkIdentity;
use crate::shared_memory::SharedMemory;
use alloy_primitives::Address;
use firn_core::atomic::{
    EvmInput, EvmOutput, ExportTx, ImportTx, TransferableInput, TransferableOutput, Tx, UnsignedTx,
    dynamic_fee,
};
use firn_core::avax::secp256k1fx::{Credential, OutputOwners, TransferInput, TransferOutput};
use firn_core::ids::{Id, ShortId};
use firn_core::keys::secp256k1::PrivateKey;
use sha2::{Digest, Sha256};

/// Signs the C-Chain's atomic txs with `keys`.
#[derive(Debug)]
pub struct CWallet {
    identity: NetworkIdentity,
    memory: SharedMemory,
    keys: Vec<PrivateKey>,
}

impl CWallet {
    /// A wallet of `keys` on the network `identity`, importing from `memory`.
    pub fn new(identity: NetworkIdentity, memory: SharedMemory, keys: Vec<PrivateKey>) -> Self {
        Self {
            identity,
            memory,
            keys,
        }
    }

    fn addresses(&self) -> Vec<ShortId> {
        self.keys
            .iter()
            .map(|k| k.public_key().short_id())
            .collect()
    }

    /// Imports every AVAX UTXO `source` exported to the C-Chain for this wallet's keys
    /// (single-signature ones), less the fee at `base_fee` wei per gas, to `to`.
    pub fn import(&self, source: Id, to: Address, base_fee: u64) -> Result<Tx, String> {
        let avax = self.identity.avax_asset_id;
        let mine = self.addresses();
        let mut inputs: Vec<(TransferableInput, usize)> = Vec::new();
        let mut start = None;
        loop {
            let c = &self.identity.c_chain_id;
            let (page, next) = self.memory.list(c, &source, &mine, start, 1024);
            for u in page.into_iter().filter(|u| u.asset_id == avax) {
                let Some((index, key)) = single_signer(&u.output.owners, &mine) else {
                    continue;
                };
                let input = TransferInput {
                    amount: u.output.amount,
                    sig_indices: vec![index],
                };
                let i = TransferableInput {
                    tx_id: u.tx_id,
                    output_index: u.output_index,
                    asset_id: avax,
                    input,
                };
                inputs.push((i, key));
            }
            match next {
                Some(n) => start = Some(n),
                None => break,
            }
        }
        if inputs.is_empty() {
            return Err(format!("nothing from {source} to import"));
        }
        inputs.sort_by_key(|(i, _)| i.utxo());
        inputs.dedup_by_key(|(i, _)| i.utxo());
        let total = inputs
            .iter()
            .try_fold(0u64, |s, (i, _)| s.checked_add(i.input.amount))
            .ok_or("imported amounts overflow")?;
        let mut tx = ImportTx {
            network_id: self.identity.network_id,
            blockchain_id: self.identity.c_chain_id,
            source_chain: source,
            imported_inputs: inputs.iter().map(|(i, _)| i.clone()).collect(),
            outputs: vec![EvmOutput {
                address: to,
                amount: total,
                asset_id: avax,
            }],
        };
        let fee = self.fee(&UnsignedTx::Import(tx.clone()), base_fee)?;
        tx.outputs[0].amount = total
            .checked_sub(fee)
            .filter(|a| *a > 0)
            .ok_or_else(|| format!("{total} nAVAX does not cover the fee of {fee}"))?;
        let keys: Vec<usize> = inputs.iter().map(|(_, k)| *k).collect();
        Ok(self.sign(UnsignedTx::Import(tx), &keys))
    }

    /// Exports `amount` nAVAX to `to` on `destination` from key `from`'s EVM account, whose
    /// nonce is `nonce`; the account also pays the fee at `base_fee` wei per gas.
    pub fn export(
        &self,
        from: usize,
        nonce: u64,
        destination: Id,
        to: ShortId,
        amount: u64,
        base_fee: u64,
    ) -> Result<Tx, String> {
        let key = self.keys.get(from).ok_or("no such key")?;
        let avax = self.identity.avax_asset_id;
        let mut tx = ExportTx {
            network_id: self.identity.network_id,
            blockchain_id: self.identity.c_chain_id,
            destination_chain: destination,
            inputs: vec![EvmInput {
                address: Address::from(key.public_key().eth_address()),
                amount,
                asset_id: avax,
                nonce,
            }],
            exported_outputs: vec![TransferableOutput {
                asset_id: avax,
                output: TransferOutput {
                    amount,
                    owners: OutputOwners {
                        locktime: 0,
                        threshold: 1,
                        addresses: vec![to],
                    },
                },
            }],
        };
        let fee = self.fee(&UnsignedTx::Export(tx.clone()), base_fee)?;
        tx.inputs[0].amount = amount
            .checked_add(fee)
            .ok_or("export amount and fee overflow")?;
        Ok(self.sign(UnsignedTx::Export(tx), &[from]))
    }

    /// The fee of `tx` at `base_fee`: its gas does not depend on its amounts.
    fn fee(&self, tx: &UnsignedTx, base_fee: u64) -> Result<u64, String> {
        dynamic_fee(tx.gas_used(), base_fee).ok_or_else(|| "the fee overflows".into())
    }

    /// Signs `tx` with one signature per credential, of the keys at `keys`.
    pub fn sign(&self, tx: UnsignedTx, keys: &[usize]) -> Tx {
        let hash: [u8; 32] = Sha256::digest(tx.bytes()).into();
        let credentials = keys
            .iter()
            .map(|k| Credential {
                signatures: vec![self.keys[*k].sign_hash(&hash).0],
            })
            .collect();
        Tx::new(tx, credentials)
    }
}

/// The owner index and key index of a UTXO one of `mine` can spend alone.
fn single_signer(owners: &OutputOwners, mine: &[ShortId]) -> Option<(u32, usize)> {
    if owners.threshold != 1 || owners.locktime > 0 {
        return None;
    }
    owners.addresses.iter().enumerate().find_map(|(i, a)| {
        let key = mine.iter().position(|m| m == a)?;
        Some((i as u32, key))
    })
}
