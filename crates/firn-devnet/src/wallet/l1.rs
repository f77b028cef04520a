//! The wallet's L1 txs (ACP-77: conversion, registration, weight, balance, disabling) and the
//! Warp messages an L1's validator manager sends, signed by the L1's validators.

use super::{Wallet, WalletError};
use crate::state::validators::canonical;
use crate::vm::PChain;
use firn_core::codec::Bytes;
use firn_core::ids::{Id, NodeId};
use firn_core::keys::bls;
use firn_core::pchain::fx::ProofOfPossession;
use firn_core::pchain::tx::{
    ConvertSubnetToL1Tx, ConvertSubnetToL1Validator, DisableL1ValidatorTx,
    IncreaseL1ValidatorBalanceTx, RegisterL1ValidatorTx, SetL1ValidatorWeightTx, Tx, UnsignedTx,
};
use firn_core::warp::messages::{L1Message, PChainOwner};
use firn_core::warp::payload::AddressedCall;
use firn_core::warp::{Message, UnsignedMessage};

/// One initial validator of a ConvertSubnetToL1Tx.
#[derive(Debug)]
pub struct L1ValidatorSpec<'a> {
    /// The node.
    pub node_id: NodeId,
    /// Its weight.
    pub weight: u64,
    /// Its initial balance, nAVAX.
    pub balance: u64,
    /// Its BLS key.
    pub bls: &'a bls::SecretKey,
    /// Who gets its remaining balance and may disable it.
    pub owner: PChainOwner,
}

impl Wallet<'_> {
    /// Converts a subnet to an L1 managed by `address` on `manager_chain`.
    pub fn convert_subnet_to_l1(
        &self,
        subnet_id: Id,
        manager_chain: Id,
        address: Vec<u8>,
        validators: &[L1ValidatorSpec<'_>],
    ) -> Result<Tx, WalletError> {
        let (subnet_auth, auth_keys) = self.subnet_auth(subnet_id)?;
        let balances: u64 = validators.iter().map(|v| v.balance).sum();
        let mut vdrs: Vec<ConvertSubnetToL1Validator> = validators
            .iter()
            .map(|v| ConvertSubnetToL1Validator {
                node_id: Bytes(v.node_id.0.to_vec()),
                weight: v.weight,
                balance: v.balance,
                signer: ProofOfPossession {
                    public_key: v.bls.public_key().to_bytes(),
                    proof_of_possession: v.bls.sign_proof_of_possession().to_bytes(),
                },
                remaining_balance_owner: v.owner.clone(),
                deactivation_owner: v.owner.clone(),
            })
            .collect();
        vdrs.sort_by(|a, b| a.node_id.0.cmp(&b.node_id.0));
        self.paying_fee(balances, 0, |spent| {
            Ok(
                self.simple(spent, Vec::new(), Some(auth_keys.clone()), |base| {
                    UnsignedTx::ConvertSubnetToL1(ConvertSubnetToL1Tx {
                        base,
                        subnet_id,
                        chain_id: manager_chain,
                        address: Bytes(address.clone()),
                        validators: vdrs.clone(),
                        subnet_auth: subnet_auth.clone(),
                    })
                }),
            )
        })
    }

    /// Registers an L1 validator from a signed RegisterL1Validator Warp message.
    pub fn register_l1_validator(
        &self,
        balance: u64,
        bls_key: &bls::SecretKey,
        message: &Message,
    ) -> Result<Tx, WalletError> {
        let proof_of_possession = bls_key.sign_proof_of_possession().to_bytes();
        let message = Bytes(message.bytes());
        self.paying_fee(balance, 0, |spent| {
            Ok(self.simple(spent, Vec::new(), None, |base| {
                UnsignedTx::RegisterL1Validator(RegisterL1ValidatorTx {
                    base,
                    balance,
                    proof_of_possession,
                    message: message.clone(),
                })
            }))
        })
    }

    /// Changes an L1 validator's weight from a signed L1ValidatorWeight Warp message.
    pub fn set_l1_validator_weight(&self, message: &Message) -> Result<Tx, WalletError> {
        let message = Bytes(message.bytes());
        self.paying_fee(0, 0, |spent| {
            Ok(self.simple(spent, Vec::new(), None, |base| {
                UnsignedTx::SetL1ValidatorWeight(SetL1ValidatorWeightTx {
                    base,
                    message: message.clone(),
                })
            }))
        })
    }

    /// Adds `amount` nAVAX to an L1 validator's balance.
    pub fn increase_l1_validator_balance(
        &self,
        validation_id: Id,
        amount: u64,
    ) -> Result<Tx, WalletError> {
        self.paying_fee(amount, 0, |spent| {
            Ok(self.simple(spent, Vec::new(), None, |base| {
                UnsignedTx::IncreaseL1ValidatorBalance(IncreaseL1ValidatorBalanceTx {
                    base,
                    validation_id,
                    balance: amount,
                })
            }))
        })
    }

    /// Disables an L1 validator (the wallet must hold its deactivation owner's keys).
    pub fn disable_l1_validator(&self, validation_id: Id) -> Result<Tx, WalletError> {
        let owner = self
            .chain
            .with_state(|s| {
                s.l1_validator(&validation_id)
                    .map(|v| v.deactivation_owner.clone())
            })
            .ok_or(WalletError::NotFound(validation_id))?;
        let (disable_auth, auth_keys) =
            self.auth_for(&crate::executor::syntax::pchain_owner(&owner))?;
        self.paying_fee(0, 0, |spent| {
            Ok(
                self.simple(spent, Vec::new(), Some(auth_keys.clone()), |base| {
                    UnsignedTx::DisableL1Validator(DisableL1ValidatorTx {
                        base,
                        validation_id,
                        disable_auth: disable_auth.clone(),
                    })
                }),
            )
        })
    }
}

/// The unsigned Warp message an L1's validator manager sends: an AddressedCall from
/// `source_address` on `source_chain` carrying `msg`.
pub fn manager_message(
    network_id: u32,
    source_chain: Id,
    source_address: &[u8],
    msg: &L1Message,
) -> UnsignedMessage {
    let call = AddressedCall {
        source_address: source_address.to_vec(),
        payload: msg.bytes(),
    };
    UnsignedMessage::new(network_id, source_chain, call.bytes())
}

/// Signs `unsigned` with `signers` (BLS keys of validators of `subnet_id` at the current
/// height) and aggregates their signatures over the subnet's canonical validator set.
pub fn sign_warp(
    chain: &PChain,
    subnet_id: Id,
    unsigned: UnsignedMessage,
    signers: &[&bls::SecretKey],
) -> Result<Message, WalletError> {
    sign_with(chain, subnet_id, unsigned, signers, true)
}

/// Signs `unsigned` with those of `keys` that belong to validators of `subnet_id` at the
/// current height (the others are passed over) and aggregates their signatures; whether they
/// carry a quorum is for the receiver to judge.
pub fn sign_warp_by_members(
    chain: &PChain,
    subnet_id: Id,
    unsigned: UnsignedMessage,
    keys: &[&bls::SecretKey],
) -> Result<Message, WalletError> {
    sign_with(chain, subnet_id, unsigned, keys, false)
}

fn sign_with(
    chain: &PChain,
    subnet_id: Id,
    unsigned: UnsignedMessage,
    keys: &[&bls::SecretKey],
    every_key_a_member: bool,
) -> Result<Message, WalletError> {
    let set = chain
        .validators_at(&subnet_id, chain.height())
        .unwrap_or_default();
    let canonical = canonical(&set)?;
    let bytes = unsigned.bytes();
    let mut sigs = Vec::new();
    for sk in keys {
        let pk = sk.public_key();
        match canonical.validators.iter().position(|v| v.public_key == pk) {
            Some(index) => sigs.push((index, sk.sign(&bytes))),
            None if every_key_a_member => {
                return Err(WalletError::MissingKey {
                    threshold: 1,
                    addresses: canonical.validators.len(),
                });
            }
            None => {}
        }
    }
    Ok(canonical.aggregate(unsigned, &sigs)?)
}
