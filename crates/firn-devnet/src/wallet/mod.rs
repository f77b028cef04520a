//! A wallet over the funded keys: UTXO selection, change, dynamic fees and signatures for every tx
//! type the VM accepts, plus the Warp messages an L1's validator manager would send, signed
//! by the L1's validators.
//!
//! Stake is taken from stakeable-locked UTXOs first (their change stays locked), then from
//! unlocked ones, as AvalancheGo's wallet does. Builders return signed [`Tx`]s; issue them
//! with [`PChain::issue_tx`]. The L1 txs and the Warp messages they carry are in [`l1`].

mod atomic;
mod l1;

pub use l1::{L1ValidatorSpec, manager_message, sign_warp, sign_warp_by_members};

use crate::error::TxError;
use crate::genesis::{NetworkIdentity, single_owner};
use crate::vm::PChain;
use firn_core::codec::Bytes;
use firn_core::ids::{Id, NodeId, ShortId};
use firn_core::keys::bls;
use firn_core::keys::secp256k1::PrivateKey;
use firn_core::pchain::fx::{
    AuthInput, Credential, Input, LockedInput, LockedOutput, Output, OutputOwners, Owner,
    ProofOfPossession, Signer, TransferInput, TransferOutput, TransferableInput,
    TransferableOutput,
};
use firn_core::pchain::tx::{
    AddPermissionlessDelegatorTx, AddPermissionlessValidatorTx, AddSubnetValidatorTx, BaseTx,
    CreateChainTx, CreateSubnetTx, RemoveSubnetValidatorTx, SubnetValidator,
    TransferSubnetOwnershipTx, Tx, UnsignedTx, Validator,
};
use firn_core::warp::WarpError;
use std::collections::HashMap;

/// Why the wallet could not build a tx.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WalletError {
    /// The wallet's UTXOs do not cover the amount.
    #[error("insufficient funds: needs {needed} more nAVAX")]
    InsufficientFunds {
        /// The shortfall.
        needed: u64,
    },
    /// The wallet holds no key for the owner.
    #[error("no key for {threshold} of the owner's {addresses} addresses")]
    MissingKey {
        /// The owner's threshold.
        threshold: u32,
        /// How many addresses the owner has.
        addresses: usize,
    },
    /// The subnet or L1 validator does not exist.
    #[error("{0} not found")]
    NotFound(Id),
    /// A Warp message could not be built.
    #[error("warp: {0}")]
    Warp(#[from] WarpError),
    /// The VM rejected the tx.
    #[error("tx rejected: {0}")]
    Tx(#[from] TxError),
}

/// What staking txs are built from: a funded BaseTx, the keys per input, and the stake.
struct FundedStake {
    base: BaseTx,
    keys: Vec<Vec<usize>>,
    stake: Vec<TransferableOutput>,
}

/// An unsigned tx and the keys that sign it.
struct Built {
    unsigned: UnsignedTx,
    input_keys: Vec<Vec<usize>>,
    auth_keys: Option<Vec<usize>>,
}

struct Spent {
    /// Inputs in canonical order, each with the indices of the keys that sign it.
    inputs: Vec<(TransferableInput, Vec<usize>)>,
    change: Vec<TransferableOutput>,
    stake: Vec<TransferableOutput>,
}

/// The signature indices and key indices that satisfy `owners` with the keys in `index`
/// (address → key), the first `threshold` found; `None` if the keys cannot.
pub(crate) fn signers_for(
    index: &HashMap<ShortId, usize>,
    owners: &OutputOwners,
) -> Option<(Vec<u32>, Vec<usize>)> {
    let mut indices = Vec::new();
    let mut keys = Vec::new();
    for (i, a) in owners.addresses.iter().enumerate() {
        if indices.len() as u32 == owners.threshold {
            break;
        }
        if let Some(k) = index.get(a) {
            indices.push(i as u32);
            keys.push(*k);
        }
    }
    (indices.len() as u32 == owners.threshold).then_some((indices, keys))
}

/// Builds and signs txs for a set of keys against a [`PChain`].
#[derive(Debug)]
pub struct Wallet<'a> {
    chain: &'a PChain,
    keys: Vec<PrivateKey>,
    index: HashMap<ShortId, usize>,
    identity: NetworkIdentity,
}

impl<'a> Wallet<'a> {
    /// A wallet over every funded key.
    pub fn new(chain: &'a PChain) -> Self {
        Self::with_keys(chain, chain.funded_keys())
    }

    /// A wallet over `keys`; the first key receives change.
    pub fn with_keys(chain: &'a PChain, keys: Vec<PrivateKey>) -> Self {
        let index = keys
            .iter()
            .enumerate()
            .map(|(i, k)| (k.public_key().short_id(), i))
            .collect();
        Self {
            chain,
            keys,
            index,
            identity: chain.network(),
        }
    }

    /// The wallet's addresses.
    pub fn addresses(&self) -> Vec<ShortId> {
        self.keys
            .iter()
            .map(|k| k.public_key().short_id())
            .collect()
    }

    /// The address change goes to.
    pub fn change_address(&self) -> ShortId {
        self.keys
            .first()
            .map(|k| k.public_key().short_id())
            .unwrap_or_default()
    }

    fn base(&self) -> BaseTx {
        BaseTx {
            network_id: self.identity.network_id,
            blockchain_id: self.identity.p_chain_id,
            outputs: Vec::new(),
            inputs: Vec::new(),
            memo: Bytes::default(),
        }
    }

    fn avax_out(&self, amount: u64, owners: OutputOwners) -> TransferableOutput {
        TransferableOutput {
            asset_id: self.identity.avax_asset_id,
            output: Output::Transfer(TransferOutput { amount, owners }),
        }
    }

    /// The first key of ours among `owners`' addresses, with its signature index, for
    /// single-signature owners; `threshold` keys for multisig.
    fn signers_for(&self, owners: &OutputOwners) -> Option<(Vec<u32>, Vec<usize>)> {
        signers_for(&self.index, owners)
    }

    /// Selects UTXOs to cover `stake` (locked first) and `burn` (unlocked only).
    fn spend(&self, burn: u64, stake: u64) -> Result<Spent, WalletError> {
        let now = self.chain.timestamp();
        let mut all = Vec::new();
        let mut start = None;
        loop {
            let page = self.chain.utxos(&self.addresses(), start, 1024);
            all.extend(page.utxos);
            match page.next {
                Some(n) => start = Some(n),
                None => break,
            }
        }
        let change_owner = single_owner(self.change_address());
        let avax = self.identity.avax_asset_id;
        let mut out = Spent {
            inputs: Vec::new(),
            change: Vec::new(),
            stake: Vec::new(),
        };
        let mut stake_left = stake;
        let mut burn_left = burn;
        let mut signers: Vec<(TransferableInput, Vec<usize>)> = Vec::new();

        // Stakeable-locked UTXOs, for stake only.
        for u in all
            .iter()
            .filter(|u| u.asset_id == avax && u.output.stakeable_locktime() > now)
        {
            if stake_left == 0 {
                break;
            }
            let owners = u.owners().clone();
            if owners.locktime > now {
                continue;
            }
            let Some((sig_indices, keys)) = self.signers_for(&owners) else {
                continue;
            };
            let amount = u.output.amount();
            let locktime = u.output.stakeable_locktime();
            let take = amount.min(stake_left);
            stake_left -= take;
            signers.push((
                TransferableInput {
                    tx_id: u.tx_id,
                    output_index: u.output_index,
                    asset_id: avax,
                    input: Input::Locked(LockedInput {
                        locktime,
                        input: TransferInput {
                            amount,
                            sig_indices,
                        },
                    }),
                },
                keys,
            ));
            let locked = |amount| TransferableOutput {
                asset_id: avax,
                output: Output::Locked(LockedOutput {
                    locktime,
                    output: TransferOutput {
                        amount,
                        owners: owners.clone(),
                    },
                }),
            };
            out.stake.push(locked(take));
            if amount > take {
                out.change.push(locked(amount - take));
            }
        }
        // Unlocked UTXOs, for the rest of the stake and the burn.
        for u in all
            .iter()
            .filter(|u| u.asset_id == avax && u.output.stakeable_locktime() <= now)
        {
            if stake_left == 0 && burn_left == 0 {
                break;
            }
            let owners = u.owners();
            if owners.locktime > now {
                continue;
            }
            let Some((sig_indices, keys)) = self.signers_for(owners) else {
                continue;
            };
            let amount = u.output.amount();
            let mut rest = amount;
            let to_stake = rest.min(stake_left);
            stake_left -= to_stake;
            rest -= to_stake;
            let to_burn = rest.min(burn_left);
            burn_left -= to_burn;
            rest -= to_burn;
            if to_stake > 0 {
                out.stake
                    .push(self.avax_out(to_stake, change_owner.clone()));
            }
            if rest > 0 {
                out.change.push(self.avax_out(rest, change_owner.clone()));
            }
            signers.push((
                TransferableInput {
                    tx_id: u.tx_id,
                    output_index: u.output_index,
                    asset_id: avax,
                    input: Input::Transfer(TransferInput {
                        amount,
                        sig_indices,
                    }),
                },
                keys,
            ));
        }
        if stake_left > 0 || burn_left > 0 {
            return Err(WalletError::InsufficientFunds {
                needed: stake_left + burn_left,
            });
        }
        signers.sort_by_key(|(i, _)| (i.tx_id, i.output_index));
        out.inputs = signers;
        Ok(out)
    }

    fn sign(
        &self,
        unsigned: UnsignedTx,
        input_keys: &[Vec<usize>],
        auth_keys: Option<&[usize]>,
    ) -> Tx {
        let hash = unsigned.signing_hash();
        let sign_all = |keys: &[usize]| Credential {
            signatures: keys
                .iter()
                .filter_map(|k| self.keys.get(*k))
                .map(|k| k.sign_hash(&hash).0)
                .collect(),
        };
        let mut creds: Vec<Credential> = input_keys.iter().map(|k| sign_all(k)).collect();
        if let Some(keys) = auth_keys {
            creds.push(sign_all(keys));
        }
        Tx::new(unsigned, creds)
    }

    /// Fills `base` from a spend and returns the keys per input.
    fn fill(
        &self,
        base: &mut BaseTx,
        spent: &mut Spent,
        extra_outputs: Vec<TransferableOutput>,
    ) -> Vec<Vec<usize>> {
        let mut outputs = std::mem::take(&mut spent.change);
        outputs.extend(extra_outputs);
        TransferableOutput::sort_canonical(&mut outputs);
        base.outputs = outputs;
        base.inputs = spent.inputs.iter().map(|(i, _)| i.clone()).collect();
        spent.inputs.iter().map(|(_, keys)| keys.clone()).collect()
    }

    fn subnet_auth(&self, subnet_id: Id) -> Result<(AuthInput, Vec<usize>), WalletError> {
        let owner = self
            .chain
            .with_state(|s| s.subnet(&subnet_id).map(|x| x.owner.clone()))
            .ok_or(WalletError::NotFound(subnet_id))?;
        self.auth_for(&owner)
    }

    fn auth_for(&self, owner: &OutputOwners) -> Result<(AuthInput, Vec<usize>), WalletError> {
        let (sig_indices, keys) = self.signers_for(owner).ok_or(WalletError::MissingKey {
            threshold: owner.threshold,
            addresses: owner.addresses.len(),
        })?;
        Ok((AuthInput { sig_indices }, keys))
    }

    /// Builds a tx paying its own dynamic fee at the current gas price: `make` turns a spend
    /// of `fee + extra` (and `stake`) into the unsigned tx, the keys per input and the auth
    /// keys; the fee is recomputed from the tx's complexity until it covers itself (more
    /// inputs or a change output raise it), as AvalancheGo's wallet does.
    fn paying_fee(
        &self,
        extra: u64,
        stake: u64,
        make: impl Fn(Spent) -> Result<Built, WalletError>,
    ) -> Result<Tx, WalletError> {
        let mut fee = 0u64;
        loop {
            let burn = fee
                .checked_add(extra)
                .ok_or(WalletError::InsufficientFunds { needed: u64::MAX })?;
            let built = make(self.spend(burn, stake)?)?;
            let needed = self.chain.fee_of(&built.unsigned)?;
            if needed <= fee {
                return Ok(self.sign(
                    built.unsigned,
                    &built.input_keys,
                    built.auth_keys.as_deref(),
                ));
            }
            fee = needed;
        }
    }

    /// A tx whose BaseTx is the spend plus `outputs`, signed by the inputs' keys (and
    /// `auth` keys last).
    fn simple(
        &self,
        spent: Spent,
        outputs: Vec<TransferableOutput>,
        auth_keys: Option<Vec<usize>>,
        make: impl FnOnce(BaseTx) -> UnsignedTx,
    ) -> Built {
        let mut spent = spent;
        let mut base = self.base();
        let input_keys = self.fill(&mut base, &mut spent, outputs);
        Built {
            unsigned: make(base),
            input_keys,
            auth_keys,
        }
    }

    /// Sends `amount` nAVAX to `to`.
    pub fn send(&self, to: ShortId, amount: u64) -> Result<Tx, WalletError> {
        self.paying_fee(amount, 0, |spent| {
            let out = self.avax_out(amount, single_owner(to));
            Ok(self.simple(spent, vec![out], None, UnsignedTx::Base))
        })
    }

    /// Creates a subnet owned by `owner`.
    pub fn create_subnet(&self, owner: OutputOwners) -> Result<Tx, WalletError> {
        self.paying_fee(0, 0, |spent| {
            Ok(self.simple(spent, Vec::new(), None, |base| {
                UnsignedTx::CreateSubnet(CreateSubnetTx {
                    base,
                    owner: Owner(owner.clone()),
                })
            }))
        })
    }

    /// Creates a chain on `subnet_id`.
    pub fn create_chain(
        &self,
        subnet_id: Id,
        name: &str,
        vm_id: Id,
        genesis: Vec<u8>,
    ) -> Result<Tx, WalletError> {
        let (subnet_auth, auth_keys) = self.subnet_auth(subnet_id)?;
        self.paying_fee(0, 0, |spent| {
            Ok(
                self.simple(spent, Vec::new(), Some(auth_keys.clone()), |base| {
                    UnsignedTx::CreateChain(CreateChainTx {
                        base,
                        subnet_id,
                        chain_name: name.to_string(),
                        vm_id,
                        fx_ids: Vec::new(),
                        genesis_data: Bytes(genesis.clone()),
                        subnet_auth: subnet_auth.clone(),
                    })
                }),
            )
        })
    }

    /// Splits a spend into the filled BaseTx, the keys that sign each input and the sorted
    /// stake outputs.
    fn staked(&self, mut spent: Spent) -> FundedStake {
        let mut base = self.base();
        let keys = self.fill(&mut base, &mut spent, Vec::new());
        let mut stake = std::mem::take(&mut spent.stake);
        TransferableOutput::sort_canonical(&mut stake);
        FundedStake { base, keys, stake }
    }

    /// A primary-network staking period for `node_id` from now until `end`.
    fn staking_period(&self, node_id: NodeId, end: u64, weight: u64) -> Validator {
        Validator {
            node_id,
            start: self.chain.timestamp(),
            end,
            weight,
        }
    }

    /// Adds a primary network validator with a BLS signer, staking `weight` until `end`.
    pub fn add_validator(
        &self,
        node_id: NodeId,
        bls_key: &bls::SecretKey,
        weight: u64,
        end: u64,
        reward_to: ShortId,
        shares: u32,
    ) -> Result<Tx, WalletError> {
        let signer = Signer::ProofOfPossession(Box::new(ProofOfPossession::new(bls_key)));
        self.paying_fee(0, weight, |spent| {
            let FundedStake { base, keys, stake } = self.staked(spent);
            let tx = AddPermissionlessValidatorTx {
                base,
                validator: self.staking_period(node_id, end, weight),
                subnet_id: Id::ZERO,
                signer: signer.clone(),
                stake,
                validation_rewards_owner: Owner(single_owner(reward_to)),
                delegation_rewards_owner: Owner(single_owner(reward_to)),
                shares,
            };
            Ok(Built {
                unsigned: UnsignedTx::AddPermissionlessValidator(tx),
                input_keys: keys,
                auth_keys: None,
            })
        })
    }

    /// Delegates `weight` to `node_id` until `end`.
    pub fn add_delegator(
        &self,
        node_id: NodeId,
        weight: u64,
        end: u64,
        reward_to: ShortId,
    ) -> Result<Tx, WalletError> {
        self.paying_fee(0, weight, |spent| {
            let FundedStake { base, keys, stake } = self.staked(spent);
            let tx = AddPermissionlessDelegatorTx {
                base,
                validator: self.staking_period(node_id, end, weight),
                subnet_id: Id::ZERO,
                stake,
                rewards_owner: Owner(single_owner(reward_to)),
            };
            Ok(Built {
                unsigned: UnsignedTx::AddPermissionlessDelegator(tx),
                input_keys: keys,
                auth_keys: None,
            })
        })
    }

    /// Adds `node_id` (a primary network validator) to a permissioned subnet.
    pub fn add_subnet_validator(
        &self,
        subnet_id: Id,
        node_id: NodeId,
        weight: u64,
        end: u64,
    ) -> Result<Tx, WalletError> {
        let (subnet_auth, auth_keys) = self.subnet_auth(subnet_id)?;
        let start = self.chain.timestamp();
        self.paying_fee(0, 0, |spent| {
            Ok(
                self.simple(spent, Vec::new(), Some(auth_keys.clone()), |base| {
                    UnsignedTx::AddSubnetValidator(AddSubnetValidatorTx {
                        base,
                        validator: SubnetValidator {
                            validator: Validator {
                                node_id,
                                start,
                                end,
                                weight,
                            },
                            subnet_id,
                        },
                        subnet_auth: subnet_auth.clone(),
                    })
                }),
            )
        })
    }

    /// Removes a permissioned subnet validator.
    pub fn remove_subnet_validator(
        &self,
        subnet_id: Id,
        node_id: NodeId,
    ) -> Result<Tx, WalletError> {
        let (subnet_auth, auth_keys) = self.subnet_auth(subnet_id)?;
        self.paying_fee(0, 0, |spent| {
            Ok(
                self.simple(spent, Vec::new(), Some(auth_keys.clone()), |base| {
                    UnsignedTx::RemoveSubnetValidator(RemoveSubnetValidatorTx {
                        base,
                        node_id,
                        subnet_id,
                        subnet_auth: subnet_auth.clone(),
                    })
                }),
            )
        })
    }

    /// Transfers a subnet to `new_owner`.
    pub fn transfer_subnet_ownership(
        &self,
        subnet_id: Id,
        new_owner: OutputOwners,
    ) -> Result<Tx, WalletError> {
        let (subnet_auth, auth_keys) = self.subnet_auth(subnet_id)?;
        self.paying_fee(0, 0, |spent| {
            Ok(
                self.simple(spent, Vec::new(), Some(auth_keys.clone()), |base| {
                    UnsignedTx::TransferSubnetOwnership(TransferSubnetOwnershipTx {
                        base,
                        subnet_id,
                        subnet_auth: subnet_auth.clone(),
                        new_owner: Owner(new_owner.clone()),
                    })
                }),
            )
        })
    }
}
