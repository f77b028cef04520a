//! The continuous fee of L1 validators, replayed block by block with
//! [`FeeLedger`](firn_core::pchain::validator_fee::FeeLedger): what each validation paid per UTC
//! day, who ran out, what a disable refunds. The chain's bytes do not carry any of it; the
//! ledger follows from the blocks' times and the L1 txs, under the node's fee configuration.
//!
//! The ledger is committed with the last block of every batch ([`FeeTracker::take_changes`]) and
//! resumed from the store, so it must see every block from the first L1 validator on: a store
//! indexed before the ledger existed, with L1 validators in it, cannot resume it (the
//! follower says so and goes on without it).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use firn_core::ids::{Id, NodeId};
use firn_core::pchain::validator_fee::{DayFee, FeeLedger, L1FeeConfig, LedgerState};
use firn_store::rows::l1_fees::{L1FeeActive, L1FeeChanges, L1FeeDay, L1FeeLedgerRecord};

/// The ledger, who each active validation is, and what changed since the last commit.
#[derive(Debug)]
pub(crate) struct FeeTracker {
    ledger: FeeLedger,
    /// L1 and node of each validation the ledger charges (and of those it charged before).
    who: HashMap<Id, (Id, NodeId)>,
    /// Validations whose end changed since the last commit.
    touched: BTreeSet<Id>,
    /// Validations that stopped paying since the last commit.
    stopped: BTreeSet<Id>,
    /// Fees per (validation, day) since the last commit.
    days: BTreeMap<(Id, u64), u64>,
    paid: Vec<DayFee>,
}

impl FeeTracker {
    /// A ledger under `config`, resumed from `record` (`None`: from the chain's start).
    pub fn resume(config: L1FeeConfig, record: Option<&L1FeeLedgerRecord>) -> Self {
        let (state, active) = match record {
            Some(r) => (
                r.state,
                r.active
                    .iter()
                    .map(|a| (a.validation_id, a.end_accrued))
                    .collect(),
            ),
            None => (Default::default(), Vec::new()),
        };
        let who = record
            .map(|r| {
                r.active
                    .iter()
                    .map(|a| (a.validation_id, (a.subnet_id, a.node_id)))
                    .collect()
            })
            .unwrap_or_default();
        Self {
            ledger: FeeLedger::new(config, state, &active),
            who,
            touched: BTreeSet::new(),
            stopped: BTreeSet::new(),
            days: BTreeMap::new(),
            paid: Vec::new(),
        }
    }

    /// Whether no L1 validator was ever charged (nothing has accrued, no one is active).
    fn idle(&self) -> bool {
        self.ledger.state().accrued == 0 && self.ledger.active_count() == 0
    }

    /// Charges every active validator up to a block's time. Until the first L1 validator the
    /// clock only moves: AvalancheGo accrues from Etna's activation, which the chain does not
    /// say, so firn's running total starts with the first validator (balances and fees are
    /// differences of it, the same either way).
    pub fn advance_to(&mut self, time: u64) {
        if self.idle() {
            let state = self.ledger.state();
            if time > state.time {
                let config = self.ledger.config().clone();
                self.ledger = FeeLedger::new(config, LedgerState { time, ..state }, &[]);
            }
            return;
        }
        let depleted = self.ledger.advance_to(time, &mut self.paid);
        for p in self.paid.drain(..) {
            let fee = self.days.entry((p.validation_id, p.day)).or_default();
            *fee = fee.saturating_add(p.fee);
        }
        for id in depleted {
            self.stop(id);
        }
    }

    /// A validator added with `balance` (active unless 0).
    pub fn register(&mut self, id: Id, subnet_id: Id, node_id: NodeId, balance: u64) {
        self.who.insert(id, (subnet_id, node_id));
        self.ledger.register(id, balance);
        if balance > 0 {
            self.start(id);
        } else {
            self.stop(id);
        }
    }

    /// `amount` added to a validator's balance; it pays again if it had stopped.
    pub fn top_up(&mut self, id: Id, subnet_id: Id, node_id: NodeId, amount: u64) {
        self.who.insert(id, (subnet_id, node_id));
        self.ledger.top_up(id, amount);
        self.start(id);
    }

    /// A validator disabled or removed; the balance it had left.
    pub fn deactivate(&mut self, id: &Id) -> u64 {
        let left = self.ledger.deactivate(id);
        self.stop(*id);
        left
    }

    /// What `id` has left now.
    pub fn balance(&self, id: &Id) -> u64 {
        self.ledger.balance(id)
    }

    /// The running total of fees and the active validators, for the block's columns (`None`
    /// before the first L1 validator).
    pub fn totals(&self) -> Option<(u64, u64)> {
        (!self.idle()).then(|| {
            (
                self.ledger.state().accrued,
                self.ledger.active_count() as u64,
            )
        })
    }

    fn start(&mut self, id: Id) {
        self.stopped.remove(&id);
        self.touched.insert(id);
    }

    fn stop(&mut self, id: Id) {
        self.touched.remove(&id);
        self.stopped.insert(id);
    }

    /// What changed since the last call, to commit with the batch's last block.
    pub fn take_changes(&mut self) -> L1FeeChanges {
        let who = |id: &Id| self.who.get(id).copied();
        let active = std::mem::take(&mut self.touched)
            .into_iter()
            .filter_map(|id| {
                let (subnet_id, node_id) = who(&id)?;
                Some(L1FeeActive {
                    validation_id: id,
                    subnet_id,
                    node_id,
                    end_accrued: self.ledger.end_of(&id)?,
                })
            })
            .collect();
        let days = std::mem::take(&mut self.days)
            .into_iter()
            .filter_map(|((id, day), fee)| {
                let (subnet_id, node_id) = who(&id)?;
                Some(L1FeeDay {
                    validation_id: id,
                    subnet_id,
                    node_id,
                    day,
                    fee,
                })
            })
            .collect();
        let inactive: Vec<Id> = std::mem::take(&mut self.stopped).into_iter().collect();
        for id in &inactive {
            self.who.remove(id);
        }
        L1FeeChanges {
            state: self.ledger.state(),
            active,
            inactive,
            days,
        }
    }
}
