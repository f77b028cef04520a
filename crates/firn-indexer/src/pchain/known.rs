//! What the indexer remembers between blocks, with fallbacks to the store and the node.
//!
//! Memory only speeds things up: after a restart every lookup falls back to what is committed
//! (the store) or what the node serves (`platform.getTx`, `platform.getRewardUTXOs`), so a
//! crash never changes what is derived.

use std::collections::HashMap;

use firn_core::ids::{Id, NodeId, ShortId};
use firn_core::pchain::UnsignedTx;
use firn_core::pchain::fx::TransferableInput;
use firn_store::rows::pchain::{L1Validator, PUtxo, StakerRecord};
use firn_store::{PChainReader, StakerFilter, Store};

use super::source::PChainSource;
use crate::error::{IndexerError, Result};

/// More remembered UTXOs than this and the cache starts again (lookups fall back).
const MAX_CACHED_UTXOS: usize = 2_000_000;

/// A UTXO the indexer has seen created.
#[derive(Debug, Clone)]
pub(crate) struct KnownUtxo {
    /// Owner addresses.
    pub owners: Vec<ShortId>,
    /// Whether the store holds it (false: a refund found spent when its tx was indexed).
    pub stored: bool,
    /// Amount, when known.
    pub amount: Option<u64>,
}

/// An L1 validator's state and the owner of its remaining balance.
#[derive(Debug, Clone)]
pub(crate) struct KnownL1 {
    pub validator: L1Validator,
    pub balance_owner: Vec<ShortId>,
    pub balance_threshold: u32,
}

/// The indexer's memory of UTXOs, stakers and L1 validators.
#[derive(Debug, Default)]
pub(crate) struct Known {
    utxos: HashMap<Id, KnownUtxo>,
    /// Staker tx → is a delegator.
    stakers: HashMap<Id, bool>,
    /// Node → the delegation fee (millionths) of its latest primary-network validator.
    validator_shares: HashMap<NodeId, u32>,
    /// (subnet, node) → the AddSubnetValidatorTx of the current subnet validator.
    subnet_validators: HashMap<(Id, NodeId), Id>,
    l1: HashMap<Id, KnownL1>,
}

impl Known {
    /// Forgets everything (after a failed commit, memory may be ahead of the store).
    pub fn clear(&mut self) {
        *self = Self::default();
    }

    pub fn created(&mut self, utxo: &PUtxo, stored: bool) {
        if self.utxos.len() >= MAX_CACHED_UTXOS {
            self.utxos.clear();
        }
        self.utxos.insert(
            utxo.utxo_id,
            KnownUtxo {
                owners: utxo.addresses.clone(),
                stored,
                amount: Some(utxo.amount),
            },
        );
    }

    /// The remembered UTXO `id`, to adjust.
    pub fn peek_mut(&mut self, id: &Id) -> Option<&mut KnownUtxo> {
        self.utxos.get_mut(id)
    }

    pub fn staker_added(&mut self, tx: Id, is_delegator: bool) {
        self.stakers.insert(tx, is_delegator);
    }

    pub fn validator_added(&mut self, node: NodeId, shares: u32) {
        self.validator_shares.insert(node, shares);
    }

    /// The delegation fee of the primary-network validator on `node` that a delegator starting
    /// at `start` delegates to.
    pub async fn validator_shares(
        &mut self,
        node: NodeId,
        start: u64,
        store: &Store,
    ) -> Result<u32> {
        if let Some(shares) = self.validator_shares.get(&node) {
            return Ok(*shares);
        }
        let validator = latest_validator(store, node, |v| {
            v.staker.subnet_id == firn_core::network::P_CHAIN_ID && v.staker.start_ts <= start
        })
        .await?
        .ok_or_else(|| IndexerError::Missing {
            what: "primary network validator",
            key: node.to_string(),
        })?;
        self.validator_shares
            .insert(node, validator.staker.delegation_fee);
        Ok(validator.staker.delegation_fee)
    }

    pub fn subnet_validator_added(&mut self, subnet: Id, node: NodeId, tx: Id) {
        self.subnet_validators.insert((subnet, node), tx);
    }

    pub fn l1_changed(&mut self, l1: KnownL1) {
        self.l1.insert(l1.validator.validation_id, l1);
    }

    /// Takes the UTXO an input spends out of memory, or finds it through the node and store.
    pub async fn spend(
        &mut self,
        input: &TransferableInput,
        source: &PChainSource,
        store: &Store,
    ) -> Result<KnownUtxo> {
        let id = input.utxo_id();
        if let Some(u) = self.utxos.remove(&id) {
            return Ok(u);
        }
        resolve_utxo(input, source, store).await
    }

    /// Whether the staker added by `tx` is a delegator.
    pub async fn is_delegator(&mut self, tx: Id, store: &Store) -> Result<bool> {
        if let Some(d) = self.stakers.get(&tx) {
            return Ok(*d);
        }
        let s = store
            .find_staker(tx)
            .await?
            .ok_or_else(|| IndexerError::Missing {
                what: "staker",
                key: tx.to_string(),
            })?;
        self.stakers.insert(tx, s.staker.is_delegator);
        Ok(s.staker.is_delegator)
    }

    /// The AddSubnetValidatorTx of `node` on `subnet`, which a RemoveSubnetValidatorTx ends.
    pub async fn take_subnet_validator(
        &mut self,
        subnet: Id,
        node: NodeId,
        store: &Store,
    ) -> Result<Id> {
        if let Some(tx) = self.subnet_validators.remove(&(subnet, node)) {
            return Ok(tx);
        }
        latest_validator(store, node, |s| {
            s.staker.subnet_id == subnet && s.ended_by.is_none()
        })
        .await?
        .map(|s| s.tx_hash)
        .ok_or_else(|| IndexerError::Missing {
            what: "subnet validator",
            key: format!("{node} on {subnet}"),
        })
    }

    /// The state of L1 validator `validation_id` before the current tx.
    pub async fn l1(
        &mut self,
        validation_id: Id,
        source: &PChainSource,
        store: &Store,
    ) -> Result<KnownL1> {
        if let Some(v) = self.l1.get(&validation_id) {
            return Ok(v.clone());
        }
        let rec = store
            .find_l1_validator(validation_id)
            .await?
            .ok_or_else(|| IndexerError::Missing {
                what: "L1 validator",
                key: validation_id.to_string(),
            })?;
        let (balance_owner, balance_threshold) =
            balance_owner_from_tx(validation_id, rec.created_tx_hash, source).await?;
        let known = KnownL1 {
            validator: rec.validator,
            balance_owner,
            balance_threshold,
        };
        self.l1.insert(validation_id, known.clone());
        Ok(known)
    }
}

/// The newest stored validator (not delegator) staker of `node` that `wanted` accepts.
async fn latest_validator(
    store: &Store,
    node: NodeId,
    wanted: impl Fn(&StakerRecord) -> bool,
) -> Result<Option<StakerRecord>> {
    let filter = StakerFilter {
        delegators: Some(false),
        node_ids: vec![node],
        ..Default::default()
    };
    let mut page = firn_store::PageRequest::first(100);
    loop {
        let got = store
            .list_stakers(&filter, firn_store::SortOrder::Desc, &page)
            .await?;
        if let Some(s) = got.items.into_iter().find(&wanted) {
            return Ok(Some(s));
        }
        match got.next {
            Some(next) => page = firn_store::PageRequest::after(100, next),
            None => return Ok(None),
        }
    }
}

/// The remaining-balance owner of an L1 validator, read from the tx that created it.
async fn balance_owner_from_tx(
    validation_id: Id,
    created_by: Id,
    source: &PChainSource,
) -> Result<(Vec<ShortId>, u32)> {
    let tx = source.tx(created_by).await?;
    match tx.unsigned() {
        UnsignedTx::ConvertSubnetToL1(t) => {
            for (i, v) in t.validators.iter().enumerate() {
                if t.validation_id(i as u32) == validation_id {
                    let o = &v.remaining_balance_owner;
                    return Ok((o.addresses.clone(), o.threshold));
                }
            }
            Ok((Vec::new(), 0))
        }
        UnsignedTx::RegisterL1Validator(t) => match super::l1::register_message(&t.message) {
            Ok(reg) => Ok((
                reg.remaining_balance_owner.addresses.clone(),
                reg.remaining_balance_owner.threshold,
            )),
            Err(_) => Ok((Vec::new(), 0)),
        },
        _ => Ok((Vec::new(), 0)),
    }
}

/// Finds a spent UTXO the indexer does not remember: the outputs of its tx (`platform.getTx`),
/// a staker's returned stake or reward (`platform.getRewardUTXOs`), or an L1 refund.
async fn resolve_utxo(
    input: &TransferableInput,
    source: &PChainSource,
    store: &Store,
) -> Result<KnownUtxo> {
    let id = input.utxo_id();
    let missing = || IndexerError::Missing {
        what: "utxo",
        key: id.to_string(),
    };
    let tx = source.tx(input.tx_id).await?;
    let unsigned = tx.unsigned();
    let outputs = unsigned.base().map_or(&[][..], |b| &b.outputs[..]);
    let index = input.output_index as usize;
    let known = |o: &firn_core::pchain::fx::TransferableOutput| KnownUtxo {
        owners: o.output.transfer().owners.addresses.clone(),
        stored: true,
        amount: Some(o.output.amount()),
    };
    if let Some(o) = outputs.get(index) {
        return Ok(known(o));
    }
    if let Some(stake) = super::staking::stake_outputs(unsigned) {
        if let Some(o) = stake.get(index - outputs.len()) {
            return Ok(known(o));
        }
        let rewards = source.reward_utxos(input.tx_id).await?;
        let r = rewards.iter().find(|r| r.id() == id).ok_or_else(missing)?;
        return Ok(KnownUtxo {
            owners: r.output.transfer().owners.addresses.clone(),
            stored: true,
            amount: Some(r.output.amount()),
        });
    }
    if matches!(
        unsigned,
        UnsignedTx::DisableL1Validator(_) | UnsignedTx::SetL1ValidatorWeight(_)
    ) && index == outputs.len()
    {
        // A refund: stored only if it was still unspent when its tx was indexed.
        let stored = store
            .find_pchain_tx(input.tx_id)
            .await?
            .is_some_and(|t| t.emitted.iter().any(|u| u.utxo.utxo_id == id));
        return Ok(KnownUtxo {
            owners: Vec::new(),
            stored,
            amount: None,
        });
    }
    Err(missing())
}
