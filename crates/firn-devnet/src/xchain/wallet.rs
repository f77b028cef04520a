//! [`XWallet`]: builds and signs every X-Chain tx for a set of keys: transfers of any asset,
//! assets of every kind (fixed and variable cap, NFT families, properties), mints, NFT
//! transfers, property burns, and AVAX exported to or imported from the P- and C-Chains.
//!
//! Fees are static, so a tx is built once: the inputs cover the amounts sent plus the fee in
//! AVAX, change goes back to the first key.

use super::XChain;
use crate::error::TxError;
use crate::wallet::WalletError;
use firn_core::avax::UtxoId;
use firn_core::avax::secp256k1fx::{OutputOwners, SigIndices, TransferInput, TransferOutput};
use firn_core::avm::fx::{
    Credential, Fx, FxOperation, FxOutput, NftMintOperation, NftMintOutput, NftTransferOperation,
    NftTransferOutput, PropertyMintOperation, Secp256k1MintOperation,
};
use firn_core::avm::tx::{
    BaseTx, CreateAssetTx, ExportTx, ImportTx, InitialState, Operation, OperationTx,
};
use firn_core::avm::{TransferableInput, TransferableOutput, Tx, UnsignedTx, Utxo};
use firn_core::codec::{self, Bytes};
use firn_core::ids::{Id, ShortId};
use firn_core::keys::secp256k1::PrivateKey;
use std::collections::{BTreeMap, HashMap};

/// One owner, one address, no locktime.
pub fn owner(address: ShortId) -> OutputOwners {
    OutputOwners {
        locktime: 0,
        threshold: 1,
        addresses: vec![address],
    }
}

/// Builds and signs X-Chain txs for a set of keys.
#[derive(Debug)]
pub struct XWallet<'a> {
    chain: &'a XChain,
    keys: Vec<PrivateKey>,
    index: HashMap<ShortId, usize>,
}

/// Inputs (each with the keys that sign it) and change.
struct Spent {
    inputs: Vec<(TransferableInput, Vec<usize>)>,
    change: Vec<TransferableOutput>,
}

impl<'a> XWallet<'a> {
    /// A wallet over every funded key.
    pub fn new(chain: &'a XChain) -> Self {
        let c = chain.config();
        Self::with_keys(chain, (0..c.funded_keys).map(|i| c.funded_key(i)).collect())
    }

    /// A wallet over `keys`; the first receives change.
    pub fn with_keys(chain: &'a XChain, keys: Vec<PrivateKey>) -> Self {
        let index = keys
            .iter()
            .enumerate()
            .map(|(i, k)| (k.public_key().short_id(), i))
            .collect();
        Self { chain, keys, index }
    }

    /// The wallet's addresses.
    pub fn addresses(&self) -> Vec<ShortId> {
        self.keys
            .iter()
            .map(|k| k.public_key().short_id())
            .collect()
    }

    fn change_address(&self) -> ShortId {
        self.keys
            .first()
            .map(|k| k.public_key().short_id())
            .unwrap_or_default()
    }

    fn base(&self) -> BaseTx {
        let n = self.chain.network();
        BaseTx {
            network_id: n.network_id,
            blockchain_id: n.x_chain_id,
            ..BaseTx::default()
        }
    }

    fn avax(&self) -> Id {
        self.chain.network().avax_asset_id
    }

    fn all_utxos(&self) -> Vec<Utxo> {
        let mut all = Vec::new();
        let mut start = None;
        loop {
            let page = self.chain.utxos(&self.addresses(), start, 1024);
            all.extend(page.utxos);
            match page.next {
                Some(n) => start = Some(n),
                None => return all,
            }
        }
    }

    fn signers_for(&self, owners: &OutputOwners) -> Option<(Vec<u32>, Vec<usize>)> {
        crate::wallet::signers_for(&self.index, owners)
    }

    /// Selects spendable secp256k1fx UTXOs covering `amounts` per asset.
    fn spend(&self, amounts: &BTreeMap<Id, u64>) -> Result<Spent, WalletError> {
        let now = self.chain.timestamp();
        let mut left = amounts.clone();
        let mut spent = Spent {
            inputs: Vec::new(),
            change: Vec::new(),
        };
        for u in self.all_utxos() {
            let FxOutput::Secp256k1Transfer(out) = &u.output else {
                continue;
            };
            let Some(need) = left.get_mut(&u.asset_id).filter(|n| **n > 0) else {
                continue;
            };
            if out.owners.locktime > now {
                continue;
            }
            let Some((sig_indices, keys)) = self.signers_for(&out.owners) else {
                continue;
            };
            let take = out.amount.min(*need);
            *need -= take;
            if out.amount > take {
                spent.change.push(TransferableOutput {
                    asset_id: u.asset_id,
                    output: TransferOutput {
                        amount: out.amount - take,
                        owners: owner(self.change_address()),
                    },
                });
            }
            spent.inputs.push((
                TransferableInput {
                    tx_id: u.tx_id,
                    output_index: u.output_index,
                    asset_id: u.asset_id,
                    input: TransferInput {
                        amount: out.amount,
                        sig_indices,
                    },
                },
                keys,
            ));
        }
        let needed: u64 = left.values().sum();
        if needed > 0 {
            return Err(WalletError::InsufficientFunds { needed });
        }
        spent.inputs.sort_by_key(|(i, _)| i.utxo());
        Ok(spent)
    }

    /// A BaseTx paying `fee` AVAX plus `sent` per asset, with `outputs` and the change.
    fn funded_base(
        &self,
        fee: u64,
        sent: &[TransferableOutput],
    ) -> Result<(BaseTx, Vec<Vec<usize>>), WalletError> {
        let mut amounts: BTreeMap<Id, u64> = BTreeMap::new();
        amounts.insert(self.avax(), fee);
        for o in sent {
            let e = amounts.entry(o.asset_id).or_default();
            *e = e.checked_add(o.output.amount).ok_or(TxError::Overflow)?;
        }
        let spent = self.spend(&amounts)?;
        let mut base = self.base();
        base.outputs = spent.change;
        base.outputs.extend(sent.iter().cloned());
        TransferableOutput::sort_canonical(&mut base.outputs);
        base.inputs = spent.inputs.iter().map(|(i, _)| i.clone()).collect();
        Ok((base, spent.inputs.into_iter().map(|(_, k)| k).collect()))
    }

    /// Signs `unsigned`: one credential per entry of `signers`, of that fx, by those keys.
    fn sign(&self, unsigned: UnsignedTx, signers: Vec<(Fx, Vec<usize>)>) -> Tx {
        let hash: [u8; 32] = firn_core::ids::Id::hash_of(&unsigned.bytes()).0;
        let creds = signers
            .into_iter()
            .map(|(fx, keys)| Credential {
                fx,
                signatures: keys
                    .iter()
                    .filter_map(|k| self.keys.get(*k))
                    .map(|k| k.sign_hash(&hash).0)
                    .collect(),
            })
            .collect();
        Tx::new(unsigned, creds)
    }

    fn secp_signers(keys: Vec<Vec<usize>>) -> Vec<(Fx, Vec<usize>)> {
        keys.into_iter().map(|k| (Fx::Secp256k1, k)).collect()
    }

    /// Sends `amount` of `asset` to `to`.
    pub fn send(&self, asset: Id, to: ShortId, amount: u64) -> Result<Tx, WalletError> {
        let out = TransferableOutput {
            asset_id: asset,
            output: TransferOutput {
                amount,
                owners: owner(to),
            },
        };
        let (base, keys) = self.funded_base(self.chain.fees().tx_fee, &[out])?;
        Ok(self.sign(UnsignedTx::Base(base), Self::secp_signers(keys)))
    }

    /// Creates an asset with `states` (any fx), paying the CreateAssetTx fee.
    pub fn create_asset(
        &self,
        name: &str,
        symbol: &str,
        denomination: u8,
        mut states: Vec<InitialState>,
    ) -> Result<Tx, WalletError> {
        for s in &mut states {
            s.outputs.sort_by_key(codec::to_bytes);
        }
        states.sort_by_key(|s| s.fx_index);
        let (base, keys) = self.funded_base(self.chain.fees().create_asset_tx_fee, &[])?;
        let unsigned = UnsignedTx::CreateAsset(CreateAssetTx {
            base,
            name: name.to_owned(),
            symbol: symbol.to_owned(),
            denomination,
            initial_states: states,
        });
        Ok(self.sign(unsigned, Self::secp_signers(keys)))
    }

    /// A fixed-cap asset: `holders` get their amounts, and no one can mint more.
    pub fn create_fixed_cap_asset(
        &self,
        name: &str,
        symbol: &str,
        denomination: u8,
        holders: &[(ShortId, u64)],
    ) -> Result<Tx, WalletError> {
        let outputs = holders
            .iter()
            .map(|(a, amount)| {
                FxOutput::Secp256k1Transfer(TransferOutput {
                    amount: *amount,
                    owners: owner(*a),
                })
            })
            .collect();
        self.create_asset(
            name,
            symbol,
            denomination,
            vec![state(Fx::Secp256k1, outputs)],
        )
    }

    /// A variable-cap asset that `minters` may mint.
    pub fn create_variable_cap_asset(
        &self,
        name: &str,
        symbol: &str,
        denomination: u8,
        minters: &[OutputOwners],
    ) -> Result<Tx, WalletError> {
        let outputs = minters
            .iter()
            .cloned()
            .map(FxOutput::Secp256k1Mint)
            .collect();
        self.create_asset(
            name,
            symbol,
            denomination,
            vec![state(Fx::Secp256k1, outputs)],
        )
    }

    /// An NFT family of `groups` groups, each mintable by `minter`.
    pub fn create_nft_family(
        &self,
        name: &str,
        symbol: &str,
        groups: u32,
        minter: &OutputOwners,
    ) -> Result<Tx, WalletError> {
        let outputs = (0..groups)
            .map(|group_id| {
                FxOutput::NftMint(NftMintOutput {
                    group_id,
                    owners: minter.clone(),
                })
            })
            .collect();
        self.create_asset(name, symbol, 0, vec![state(Fx::Nft, outputs)])
    }

    /// A property asset that `minter` may mint.
    pub fn create_property(
        &self,
        name: &str,
        symbol: &str,
        minter: &OutputOwners,
    ) -> Result<Tx, WalletError> {
        let outputs = vec![FxOutput::PropertyMint(minter.clone())];
        self.create_asset(name, symbol, 0, vec![state(Fx::Property, outputs)])
    }

    /// The first UTXO of `asset` matching `pick` that this wallet can sign for.
    fn find_utxo(
        &self,
        asset: Id,
        pick: impl Fn(&FxOutput) -> bool,
    ) -> Result<(Utxo, Vec<u32>, Vec<usize>), WalletError> {
        self.all_utxos()
            .into_iter()
            .filter(|u| u.asset_id == asset && pick(&u.output))
            .find_map(|u| {
                let (indices, keys) = self.signers_for(u.output.owners())?;
                Some((u, indices, keys))
            })
            .ok_or(WalletError::NotFound(asset))
    }

    /// An OperationTx of one operation on one UTXO, paying the tx fee.
    fn operate(
        &self,
        asset: Id,
        utxo: UtxoId,
        op: FxOperation,
        op_keys: Vec<usize>,
    ) -> Result<Tx, WalletError> {
        let fx = op.fx();
        let (base, keys) = self.funded_base(self.chain.fees().tx_fee, &[])?;
        let unsigned = UnsignedTx::Operation(OperationTx {
            base,
            operations: vec![Operation {
                asset_id: asset,
                utxo_ids: vec![utxo],
                op,
            }],
        });
        let mut signers = Self::secp_signers(keys);
        signers.push((fx, op_keys));
        Ok(self.sign(unsigned, signers))
    }

    /// Mints `amount` of the variable-cap `asset` for `to`.
    pub fn mint(&self, asset: Id, to: ShortId, amount: u64) -> Result<Tx, WalletError> {
        let (u, indices, keys) =
            self.find_utxo(asset, |o| matches!(o, FxOutput::Secp256k1Mint(_)))?;
        let FxOutput::Secp256k1Mint(minters) = &u.output else {
            return Err(WalletError::NotFound(asset));
        };
        let op = FxOperation::Secp256k1Mint(Secp256k1MintOperation {
            mint_input: SigIndices {
                sig_indices: indices,
            },
            mint_output: minters.clone(),
            transfer_output: TransferOutput {
                amount,
                owners: owner(to),
            },
        });
        self.operate(asset, u.utxo(), op, keys)
    }

    /// Mints one NFT of `group` with `payload` for `to`.
    pub fn mint_nft(
        &self,
        asset: Id,
        group: u32,
        payload: &[u8],
        to: ShortId,
    ) -> Result<Tx, WalletError> {
        let (u, indices, keys) = self.find_utxo(
            asset,
            |o| matches!(o, FxOutput::NftMint(m) if m.group_id == group),
        )?;
        let op = FxOperation::NftMint(NftMintOperation {
            mint_input: SigIndices {
                sig_indices: indices,
            },
            group_id: group,
            payload: Bytes(payload.to_vec()),
            outputs: vec![owner(to)],
        });
        self.operate(asset, u.utxo(), op, keys)
    }

    /// Transfers an NFT of `asset` this wallet holds to `to`.
    pub fn transfer_nft(&self, asset: Id, to: ShortId) -> Result<Tx, WalletError> {
        let (u, indices, keys) =
            self.find_utxo(asset, |o| matches!(o, FxOutput::NftTransfer(_)))?;
        let FxOutput::NftTransfer(nft) = &u.output else {
            return Err(WalletError::NotFound(asset));
        };
        let op = FxOperation::NftTransfer(NftTransferOperation {
            input: SigIndices {
                sig_indices: indices,
            },
            output: NftTransferOutput {
                group_id: nft.group_id,
                payload: nft.payload.clone(),
                owners: owner(to),
            },
        });
        self.operate(asset, u.utxo(), op, keys)
    }

    /// Mints the property `asset` for `to`.
    pub fn mint_property(&self, asset: Id, to: ShortId) -> Result<Tx, WalletError> {
        let (u, indices, keys) =
            self.find_utxo(asset, |o| matches!(o, FxOutput::PropertyMint(_)))?;
        let FxOutput::PropertyMint(minter) = &u.output else {
            return Err(WalletError::NotFound(asset));
        };
        let op = FxOperation::PropertyMint(PropertyMintOperation {
            mint_input: SigIndices {
                sig_indices: indices,
            },
            mint_output: minter.clone(),
            owned_output: owner(to),
        });
        self.operate(asset, u.utxo(), op, keys)
    }

    /// Burns a property of `asset` this wallet owns.
    pub fn burn_property(&self, asset: Id) -> Result<Tx, WalletError> {
        let (u, indices, keys) =
            self.find_utxo(asset, |o| matches!(o, FxOutput::PropertyOwned(_)))?;
        let op = FxOperation::PropertyBurn(SigIndices {
            sig_indices: indices,
        });
        self.operate(asset, u.utxo(), op, keys)
    }

    /// Exports `amount` nAVAX to `to` on `destination` (the P- or C-Chain).
    pub fn export(&self, destination: Id, to: ShortId, amount: u64) -> Result<Tx, WalletError> {
        let exported = TransferableOutput {
            asset_id: self.avax(),
            output: TransferOutput {
                amount,
                owners: owner(to),
            },
        };
        let fee = self.chain.fees().tx_fee;
        let total = fee.checked_add(amount).ok_or(TxError::Overflow)?;
        let (base, keys) = self.funded_base(total, &[])?;
        let unsigned = UnsignedTx::Export(ExportTx {
            base,
            destination_chain: destination,
            exported_outputs: vec![exported],
        });
        Ok(self.sign(unsigned, Self::secp_signers(keys)))
    }

    /// Imports every AVAX UTXO `source` exported to this wallet's keys, less the fee, to `to`.
    pub fn import(&self, source: Id, to: ShortId) -> Result<Tx, WalletError> {
        let avax = self.avax();
        let mut imported: Vec<(TransferableInput, Vec<usize>)> = Vec::new();
        let mut start = None;
        loop {
            let page = self
                .chain
                .atomic_utxos(&source, &self.addresses(), start, 1024);
            for u in page.utxos.into_iter().filter(|u| u.asset_id == avax) {
                if let Some((sig_indices, keys)) = self.signers_for(&u.output.owners) {
                    imported.push((
                        TransferableInput {
                            tx_id: u.tx_id,
                            output_index: u.output_index,
                            asset_id: avax,
                            input: TransferInput {
                                amount: u.output.amount,
                                sig_indices,
                            },
                        },
                        keys,
                    ));
                }
            }
            match page.next {
                Some(n) => start = Some(n),
                None => break,
            }
        }
        imported.sort_by_key(|(i, _)| i.utxo());
        let total = imported
            .iter()
            .map(|(i, _)| i.input.amount)
            .fold(0u64, u64::saturating_add);
        let fee = self.chain.fees().tx_fee;
        let rest =
            total
                .checked_sub(fee)
                .filter(|r| *r > 0)
                .ok_or(WalletError::InsufficientFunds {
                    needed: fee.saturating_sub(total).max(1),
                })?;
        let base = BaseTx {
            outputs: vec![TransferableOutput {
                asset_id: avax,
                output: TransferOutput {
                    amount: rest,
                    owners: owner(to),
                },
            }],
            ..self.base()
        };
        let (inputs, keys): (Vec<_>, Vec<_>) = imported.into_iter().unzip();
        let unsigned = UnsignedTx::Import(ImportTx {
            base,
            source_chain: source,
            imported_inputs: inputs,
        });
        Ok(self.sign(unsigned, Self::secp_signers(keys)))
    }
}

/// An initial state of `fx` with `outputs`.
fn state(fx: Fx, outputs: Vec<FxOutput>) -> InitialState {
    InitialState {
        fx_index: fx as u32,
        outputs,
    }
}
