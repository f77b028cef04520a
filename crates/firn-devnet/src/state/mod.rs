//! The P-Chain state: UTXOs (by ID and by address), current stakers (by tx, by node, by end
//! time), subnets, chains, L1 validators, the supply and the fee accumulators.
//!
//! Every mutation goes through a method that journals its inverse, so the executor can try a
//! tx or a whole block and [`State::rollback_to`] a [`State::mark`] if anything fails: an
//! invalid tx changes nothing. Reads are plain map lookups.

mod types;
pub mod validators;

pub use types::{
    Chain, Conversion, L1Validator, RewardKind, RewardUtxo, Staker, StakerKind, Subnet, Utxo,
};

use crate::fee::GasState;
use crate::shared_memory::{AtomicRequests, AtomicUtxo};
use firn_core::ids::{Id, NodeId, ShortId};
use std::collections::{BTreeMap, BTreeSet, HashMap};

#[derive(Debug)]
enum Undo {
    UtxoAdded(Id),
    UtxoRemoved(Utxo),
    StakerSet(Id, Option<Staker>),
    SubnetSet(Id, Option<Subnet>),
    ChainAdded(Id),
    L1Set(Id, Option<L1Validator>),
    Supply(u64),
    Burned(u64),
    AccruedFees(u64),
    L1Excess(u64),
    FeeState(GasState),
    Timestamp(u64),
    ExpiryAdded((u64, Id)),
    ExpiryRemoved((u64, Id)),
    RewardUtxos(Id, Option<Vec<RewardUtxo>>),
    AtomicPut,
    AtomicRemove,
}

/// The whole P-Chain state at the last accepted block.
#[derive(Debug, Default)]
pub struct State {
    timestamp: u64,
    supply: u64,
    burned: u64,
    accrued_fees: u64,
    l1_excess: u64,
    fee_state: GasState,
    utxos: HashMap<Id, Utxo>,
    by_address: HashMap<ShortId, BTreeSet<Id>>,
    stakers: HashMap<Id, Staker>,
    validator_of: BTreeMap<(Id, NodeId), Id>,
    delegators_of: HashMap<(Id, NodeId), BTreeSet<Id>>,
    end_order: BTreeSet<(u64, StakerKind, Id)>,
    subnets: BTreeMap<Id, Subnet>,
    chains: BTreeMap<Id, Chain>,
    l1: HashMap<Id, L1Validator>,
    l1_by_node: BTreeMap<(Id, NodeId), Id>,
    l1_active: BTreeSet<(u64, Id)>,
    expiries: BTreeSet<(u64, Id)>,
    reward_utxos: HashMap<Id, Vec<RewardUtxo>>,
    atomic: AtomicRequests,
    journal: Vec<Undo>,
    touched: BTreeSet<Id>,
}

impl State {
    // ---- reads ----

    /// The chain time (Unix seconds).
    pub fn timestamp(&self) -> u64 {
        self.timestamp
    }

    /// The current supply of AVAX (nAVAX).
    pub fn supply(&self) -> u64 {
        self.supply
    }

    /// The tx fees burnt since genesis, nAVAX.
    pub fn burned(&self) -> u64 {
        self.burned
    }

    /// The accrued L1 validator fees since genesis (per validator).
    pub fn accrued_fees(&self) -> u64 {
        self.accrued_fees
    }

    /// The L1 validator fee excess.
    pub fn l1_excess(&self) -> u64 {
        self.l1_excess
    }

    /// The dynamic fee state (ACP-103): gas capacity and excess.
    pub fn fee_state(&self) -> GasState {
        self.fee_state
    }

    /// A UTXO by ID.
    pub fn utxo(&self, id: &Id) -> Option<&Utxo> {
        self.utxos.get(id)
    }

    /// The shared-memory requests of the block being executed.
    pub fn atomic(&self) -> &AtomicRequests {
        &self.atomic
    }

    /// Takes the block's shared-memory requests, for the caller to apply once it is accepted.
    pub fn take_atomic(&mut self) -> AtomicRequests {
        std::mem::take(&mut self.atomic)
    }

    /// The IDs of the UTXOs `addr` is an owner of, in ID order.
    pub fn utxo_ids_of(&self, addr: &ShortId) -> Option<&BTreeSet<Id>> {
        self.by_address.get(addr)
    }

    /// Number of UTXOs.
    pub fn utxo_count(&self) -> usize {
        self.utxos.len()
    }

    /// A current staker by the tx that added it.
    pub fn staker(&self, tx_id: &Id) -> Option<&Staker> {
        self.stakers.get(tx_id)
    }

    /// The validator of `node_id` on `subnet_id` (primary or permissioned).
    pub fn validator(&self, subnet_id: &Id, node_id: &NodeId) -> Option<&Staker> {
        self.validator_of
            .get(&(*subnet_id, *node_id))
            .and_then(|id| self.stakers.get(id))
    }

    /// The validators of a subnet, by node ID.
    pub fn validators_of(&self, subnet_id: Id) -> impl Iterator<Item = &Staker> {
        self.validator_of
            .range((subnet_id, NodeId::ZERO)..=(subnet_id, NodeId([0xff; 20])))
            .filter_map(|(_, id)| self.stakers.get(id))
    }

    /// The delegators of a validator.
    pub fn delegators_of(&self, subnet_id: &Id, node_id: &NodeId) -> Vec<&Staker> {
        self.delegators_of
            .get(&(*subnet_id, *node_id))
            .map(|set| set.iter().filter_map(|id| self.stakers.get(id)).collect())
            .unwrap_or_default()
    }

    /// The staker that ends first (ties: subnet validators, delegators, validators; then tx ID).
    pub fn next_staker_to_end(&self) -> Option<&Staker> {
        self.end_order
            .first()
            .and_then(|(_, _, id)| self.stakers.get(id))
    }

    /// Every current staker in AvalancheGo's iteration order: by end time, then priority
    /// (permissioned subnet validators, delegators, validators), then tx ID.
    pub fn stakers_by_end(&self) -> impl Iterator<Item = &Staker> {
        self.end_order
            .iter()
            .filter_map(|(_, _, id)| self.stakers.get(id))
    }

    /// A subnet.
    pub fn subnet(&self, id: &Id) -> Option<&Subnet> {
        self.subnets.get(id)
    }

    /// Every subnet, by ID.
    pub fn subnets(&self) -> impl Iterator<Item = &Subnet> {
        self.subnets.values()
    }

    /// A chain.
    pub fn chain(&self, id: &Id) -> Option<&Chain> {
        self.chains.get(id)
    }

    /// Every chain, by ID.
    pub fn chains(&self) -> impl Iterator<Item = &Chain> {
        self.chains.values()
    }

    /// An L1 validator.
    pub fn l1_validator(&self, validation_id: &Id) -> Option<&L1Validator> {
        self.l1.get(validation_id)
    }

    /// The L1 validator of `node_id` on `subnet_id`.
    pub fn l1_validator_by_node(&self, subnet_id: &Id, node_id: &NodeId) -> Option<&L1Validator> {
        self.l1_by_node
            .get(&(*subnet_id, *node_id))
            .and_then(|id| self.l1.get(id))
    }

    /// The L1 validators of a subnet, by node ID.
    pub fn l1_validators_of(&self, subnet_id: Id) -> impl Iterator<Item = &L1Validator> {
        self.l1_by_node
            .range((subnet_id, NodeId::ZERO)..=(subnet_id, NodeId([0xff; 20])))
            .filter_map(|(_, id)| self.l1.get(id))
    }

    /// Number of active L1 validators across all L1s.
    pub fn active_l1_count(&self) -> u64 {
        self.l1_active.len() as u64
    }

    /// The active L1 validator whose balance runs out first.
    pub fn first_l1_to_deplete(&self) -> Option<&L1Validator> {
        self.l1_active.first().and_then(|(_, id)| self.l1.get(id))
    }

    /// Active L1 validators whose end-accumulated fee is at most `accrued`.
    pub fn depleted_l1(&self, accrued: u64) -> Vec<Id> {
        self.l1_active
            .iter()
            .take_while(|(end, _)| *end <= accrued)
            .map(|(_, id)| *id)
            .collect()
    }

    /// True if a RegisterL1Validator message with this expiry and validation ID was used.
    pub fn has_expiry(&self, expiry: u64, validation_id: &Id) -> bool {
        self.expiries.contains(&(expiry, *validation_id))
    }

    /// Expiries at or before `time`.
    pub fn stale_expiries(&self, time: u64) -> Vec<(u64, Id)> {
        self.expiries
            .iter()
            .take_while(|(t, _)| *t <= time)
            .copied()
            .collect()
    }

    /// Reward UTXOs minted for a staker tx.
    pub fn reward_utxos(&self, staker_tx: &Id) -> &[RewardUtxo] {
        self.reward_utxos
            .get(staker_tx)
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    // ---- journal ----

    /// A point to roll back to.
    pub fn mark(&self) -> usize {
        self.journal.len()
    }

    /// Undoes every change since `mark`.
    pub fn rollback_to(&mut self, mark: usize) {
        while self.journal.len() > mark {
            if let Some(undo) = self.journal.pop() {
                self.undo(undo);
            }
        }
    }

    /// Forgets the journal (the changes are final) and returns the subnets whose validator
    /// sets may have changed.
    pub fn commit(&mut self) -> BTreeSet<Id> {
        self.journal.clear();
        std::mem::take(&mut self.touched)
    }

    fn undo(&mut self, undo: Undo) {
        match undo {
            Undo::UtxoAdded(id) => {
                self.raw_remove_utxo(&id);
            }
            Undo::UtxoRemoved(u) => self.raw_put_utxo(u),
            Undo::StakerSet(id, prev) => {
                self.raw_remove_staker(&id);
                if let Some(s) = prev {
                    self.raw_put_staker(s);
                }
            }
            Undo::SubnetSet(id, prev) => match prev {
                Some(s) => {
                    self.subnets.insert(id, s);
                }
                None => {
                    self.subnets.remove(&id);
                }
            },
            Undo::ChainAdded(id) => {
                self.chains.remove(&id);
            }
            Undo::L1Set(id, prev) => {
                self.raw_remove_l1(&id);
                if let Some(v) = prev {
                    self.raw_put_l1(v);
                }
            }
            Undo::Supply(v) => self.supply = v,
            Undo::Burned(v) => self.burned = v,
            Undo::AccruedFees(v) => self.accrued_fees = v,
            Undo::L1Excess(v) => self.l1_excess = v,
            Undo::FeeState(v) => self.fee_state = v,
            Undo::Timestamp(v) => self.timestamp = v,
            Undo::ExpiryAdded(k) => {
                self.expiries.remove(&k);
            }
            Undo::ExpiryRemoved(k) => {
                self.expiries.insert(k);
            }
            Undo::AtomicPut => {
                self.atomic.puts.pop();
            }
            Undo::AtomicRemove => {
                self.atomic.removes.pop();
            }
            Undo::RewardUtxos(id, prev) => match prev {
                Some(v) => {
                    self.reward_utxos.insert(id, v);
                }
                None => {
                    self.reward_utxos.remove(&id);
                }
            },
        }
    }

    // ---- journaled writes ----

    /// Exports a UTXO to `destination` when the block is accepted.
    pub fn put_atomic(&mut self, destination: Id, utxo: AtomicUtxo) {
        self.journal.push(Undo::AtomicPut);
        self.atomic.puts.push((destination, utxo));
    }

    /// Imports a UTXO from `source` when the block is accepted.
    pub fn remove_atomic(&mut self, source: Id, utxo_id: Id) {
        self.journal.push(Undo::AtomicRemove);
        self.atomic.removes.push((source, utxo_id));
    }

    /// Adds a UTXO.
    pub fn add_utxo(&mut self, utxo: Utxo) {
        self.journal.push(Undo::UtxoAdded(utxo.id()));
        self.raw_put_utxo(utxo);
    }

    /// Removes a UTXO, returning it.
    pub fn remove_utxo(&mut self, id: &Id) -> Option<Utxo> {
        let u = self.raw_remove_utxo(id)?;
        self.journal.push(Undo::UtxoRemoved(u.clone()));
        Some(u)
    }

    /// Adds or replaces a current staker.
    pub fn put_staker(&mut self, staker: Staker) {
        self.touched.insert(staker.subnet_id);
        let prev = self.raw_remove_staker(&staker.tx_id);
        self.journal.push(Undo::StakerSet(staker.tx_id, prev));
        self.raw_put_staker(staker);
    }

    /// Removes a current staker, returning it.
    pub fn remove_staker(&mut self, tx_id: &Id) -> Option<Staker> {
        let s = self.raw_remove_staker(tx_id)?;
        self.touched.insert(s.subnet_id);
        self.journal.push(Undo::StakerSet(*tx_id, Some(s.clone())));
        // StakerSet's undo removes then re-inserts; removing an absent staker is a no-op.
        Some(s)
    }

    /// Adds or replaces a subnet.
    pub fn put_subnet(&mut self, subnet: Subnet) {
        self.touched.insert(subnet.id);
        let prev = self.subnets.insert(subnet.id, subnet.clone());
        self.journal.push(Undo::SubnetSet(subnet.id, prev));
    }

    /// Adds a chain.
    pub fn add_chain(&mut self, chain: Chain) {
        self.journal.push(Undo::ChainAdded(chain.id));
        self.chains.insert(chain.id, chain);
    }

    /// Adds or replaces an L1 validator.
    pub fn put_l1_validator(&mut self, v: L1Validator) {
        self.touched.insert(v.subnet_id);
        let prev = self.raw_remove_l1(&v.validation_id);
        self.journal.push(Undo::L1Set(v.validation_id, prev));
        self.raw_put_l1(v);
    }

    /// Removes an L1 validator (weight set to zero).
    pub fn remove_l1_validator(&mut self, id: &Id) -> Option<L1Validator> {
        let v = self.raw_remove_l1(id)?;
        self.touched.insert(v.subnet_id);
        self.journal.push(Undo::L1Set(*id, Some(v.clone())));
        Some(v)
    }

    /// Sets the supply.
    pub fn set_supply(&mut self, v: u64) {
        self.journal.push(Undo::Supply(self.supply));
        self.supply = v;
    }

    /// Adds a burnt tx fee.
    pub fn add_burned(&mut self, fee: u64) {
        self.journal.push(Undo::Burned(self.burned));
        self.burned = self.burned.saturating_add(fee);
    }

    /// Sets the accrued L1 fees.
    pub fn set_accrued_fees(&mut self, v: u64) {
        self.journal.push(Undo::AccruedFees(self.accrued_fees));
        self.accrued_fees = v;
    }

    /// Sets the L1 fee excess.
    pub fn set_l1_excess(&mut self, v: u64) {
        self.journal.push(Undo::L1Excess(self.l1_excess));
        self.l1_excess = v;
    }

    /// Sets the dynamic fee state.
    pub fn set_fee_state(&mut self, v: GasState) {
        self.journal.push(Undo::FeeState(self.fee_state));
        self.fee_state = v;
    }

    /// Sets the chain time.
    pub fn set_timestamp(&mut self, v: u64) {
        self.journal.push(Undo::Timestamp(self.timestamp));
        self.timestamp = v;
    }

    /// Records a RegisterL1Validator message's expiry.
    pub fn add_expiry(&mut self, expiry: u64, validation_id: Id) {
        if self.expiries.insert((expiry, validation_id)) {
            self.journal
                .push(Undo::ExpiryAdded((expiry, validation_id)));
        }
    }

    /// Forgets an expiry that has passed.
    pub fn remove_expiry(&mut self, key: (u64, Id)) {
        if self.expiries.remove(&key) {
            self.journal.push(Undo::ExpiryRemoved(key));
        }
    }

    /// Appends reward UTXOs of a staker tx.
    pub fn add_reward_utxo(&mut self, staker_tx: Id, reward: RewardUtxo) {
        let prev = self.reward_utxos.get(&staker_tx).cloned();
        self.journal.push(Undo::RewardUtxos(staker_tx, prev));
        self.reward_utxos.entry(staker_tx).or_default().push(reward);
    }

    // ---- raw writes (no journal) ----

    fn raw_put_utxo(&mut self, u: Utxo) {
        let id = u.id();
        for a in &u.owners().addresses {
            self.by_address.entry(*a).or_default().insert(id);
        }
        self.utxos.insert(id, u);
    }

    fn raw_remove_utxo(&mut self, id: &Id) -> Option<Utxo> {
        let u = self.utxos.remove(id)?;
        for a in &u.owners().addresses {
            if let Some(set) = self.by_address.get_mut(a) {
                set.remove(id);
                if set.is_empty() {
                    self.by_address.remove(a);
                }
            }
        }
        Some(u)
    }

    fn raw_put_staker(&mut self, s: Staker) {
        let key = (s.subnet_id, s.node_id);
        match s.kind {
            StakerKind::Validator | StakerKind::SubnetValidator => {
                self.validator_of.insert(key, s.tx_id);
            }
            StakerKind::Delegator => {
                self.delegators_of.entry(key).or_default().insert(s.tx_id);
            }
        }
        self.end_order.insert((s.end_time, s.kind, s.tx_id));
        self.stakers.insert(s.tx_id, s);
    }

    fn raw_remove_staker(&mut self, id: &Id) -> Option<Staker> {
        let s = self.stakers.remove(id)?;
        let key = (s.subnet_id, s.node_id);
        match s.kind {
            StakerKind::Validator | StakerKind::SubnetValidator => {
                if self.validator_of.get(&key) == Some(id) {
                    self.validator_of.remove(&key);
                }
            }
            StakerKind::Delegator => {
                if let Some(set) = self.delegators_of.get_mut(&key) {
                    set.remove(id);
                    if set.is_empty() {
                        self.delegators_of.remove(&key);
                    }
                }
            }
        }
        self.end_order.remove(&(s.end_time, s.kind, s.tx_id));
        Some(s)
    }

    fn raw_put_l1(&mut self, v: L1Validator) {
        self.l1_by_node
            .insert((v.subnet_id, v.node_id), v.validation_id);
        if v.is_active() {
            self.l1_active
                .insert((v.end_accumulated_fee, v.validation_id));
        }
        self.l1.insert(v.validation_id, v);
    }

    fn raw_remove_l1(&mut self, id: &Id) -> Option<L1Validator> {
        let v = self.l1.remove(id)?;
        if self.l1_by_node.get(&(v.subnet_id, v.node_id)) == Some(id) {
            self.l1_by_node.remove(&(v.subnet_id, v.node_id));
        }
        self.l1_active
            .remove(&(v.end_accumulated_fee, v.validation_id));
        Some(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use firn_core::pchain::fx::{Output, OutputOwners, TransferOutput};

    fn utxo(n: u8, owner: u8) -> Utxo {
        Utxo {
            tx_id: Id([n; 32]),
            output_index: 0,
            asset_id: Id([1; 32]),
            output: Output::Transfer(TransferOutput {
                amount: 5,
                owners: OutputOwners {
                    locktime: 0,
                    threshold: 1,
                    addresses: vec![ShortId([owner; 20])],
                },
            }),
        }
    }

    #[test]
    fn rollback_restores_utxos_and_the_address_index() {
        let mut s = State::default();
        s.add_utxo(utxo(1, 7));
        s.commit();
        let mark = s.mark();
        let id = utxo(1, 7).id();
        s.remove_utxo(&id);
        s.add_utxo(utxo(2, 7));
        s.set_supply(99);
        assert_eq!(s.utxo_ids_of(&ShortId([7; 20])).map(|x| x.len()), Some(1));
        s.rollback_to(mark);
        assert!(s.utxo(&id).is_some());
        assert!(s.utxo(&utxo(2, 7).id()).is_none());
        assert_eq!(s.supply(), 0);
        assert_eq!(
            s.utxo_ids_of(&ShortId([7; 20]))
                .map(|x| x.iter().copied().collect::<Vec<_>>()),
            Some(vec![id])
        );
    }

    #[test]
    fn stakers_are_ordered_by_end_then_priority() {
        let mut s = State::default();
        let mk = |n: u8, kind, end| Staker {
            tx_id: Id([n; 32]),
            kind,
            subnet_id: Id::ZERO,
            node_id: NodeId([1; 20]),
            public_key: None,
            weight: 1,
            start_time: 0,
            end_time: end,
            potential_reward: 0,
            delegation_fee: 0,
            delegatee_reward: 0,
            stake: Vec::new(),
            outputs_len: 0,
            reward_owner: OutputOwners::default(),
            delegation_reward_owner: OutputOwners::default(),
        };
        s.put_staker(mk(1, StakerKind::Validator, 100));
        s.put_staker(mk(2, StakerKind::Delegator, 100));
        assert_eq!(s.next_staker_to_end().map(|x| x.tx_id), Some(Id([2; 32])));
        let mark = s.mark();
        s.remove_staker(&Id([2; 32]));
        assert_eq!(s.next_staker_to_end().map(|x| x.tx_id), Some(Id([1; 32])));
        s.rollback_to(mark);
        assert_eq!(s.delegators_of(&Id::ZERO, &NodeId([1; 20])).len(), 1);
    }
}
