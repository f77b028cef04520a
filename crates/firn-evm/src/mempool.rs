//! The transaction pool: per sender, transactions by nonce. A sender's transactions are
//! ready from its account nonce on without gaps; later ones wait. A second transaction with
//! a pooled nonce replaces it only when it pays at least 10% more, as geth's pool requires.

use std::collections::{BTreeMap, HashMap, VecDeque};

use alloy_consensus::Transaction;
use alloy_primitives::{Address, B256};

use crate::block::SignedTx;
use crate::error::TxError;

/// Most transactions the pool holds.
pub const MAX_POOL: usize = 100_000;
/// Price bump, in percent, a replacement must pay.
const PRICE_BUMP: u128 = 10;
/// Arrivals remembered for pending-transaction filters: one that falls further behind misses
/// the oldest.
pub const ARRIVALS_KEPT: usize = 4_096;

/// Pending transactions.
#[derive(Debug, Default)]
pub struct Mempool {
    by_sender: HashMap<Address, BTreeMap<u64, SignedTx>>,
    /// Senders in the order their first pooled tx arrived (block building order).
    order: Vec<Address>,
    hashes: HashMap<B256, Address>,
    /// The newest arrivals, oldest first; `arrived` counts every arrival ever.
    arrivals: VecDeque<B256>,
    arrived: u64,
}

impl Mempool {
    /// Transactions pooled.
    pub fn len(&self) -> usize {
        self.hashes.len()
    }

    /// A pooled transaction.
    pub fn get(&self, hash: &B256) -> Option<&SignedTx> {
        let sender = self.hashes.get(hash)?;
        self.by_sender
            .get(sender)?
            .values()
            .find(|t| t.hash == *hash)
    }

    /// The next nonce of `sender` counting pooled ready txs, from its account nonce.
    pub fn pending_nonce(&self, sender: &Address, account_nonce: u64) -> u64 {
        let mut next = account_nonce;
        if let Some(txs) = self.by_sender.get(sender) {
            while txs.contains_key(&next) {
                next += 1;
            }
        }
        next
    }

    /// Adds a checked transaction; replaces a pooled one with its nonce if it pays enough.
    pub fn insert(&mut self, tx: SignedTx) -> Result<(), TxError> {
        if self.hashes.contains_key(&tx.hash) {
            return Err(TxError::AlreadyKnown);
        }
        let queue = self.by_sender.entry(tx.sender).or_default();
        let nonce = tx.envelope.nonce();
        if let Some(old) = queue.get(&nonce) {
            let bumped = |p: u128| p.saturating_mul(100 + PRICE_BUMP) / 100;
            let old_fee = old.envelope.max_fee_per_gas();
            let old_tip = old.envelope.max_priority_fee_per_gas().unwrap_or(old_fee);
            let new_fee = tx.envelope.max_fee_per_gas();
            let new_tip = tx.envelope.max_priority_fee_per_gas().unwrap_or(new_fee);
            if new_fee < bumped(old_fee) || new_tip < bumped(old_tip) {
                return Err(TxError::ReplaceUnderpriced);
            }
            self.hashes.remove(&old.hash);
        } else if self.hashes.len() >= MAX_POOL {
            return Err(TxError::PoolFull);
        }
        if queue.is_empty() {
            self.order.push(tx.sender);
        }
        self.hashes.insert(tx.hash, tx.sender);
        if self.arrivals.len() == ARRIVALS_KEPT {
            self.arrivals.pop_front();
        }
        self.arrivals.push_back(tx.hash);
        self.arrived += 1;
        queue.insert(nonce, tx);
        Ok(())
    }

    /// How many transactions ever arrived.
    pub fn arrived(&self) -> u64 {
        self.arrived
    }

    /// The hashes of the transactions that arrived since arrival number `since` (those still
    /// remembered), and the number to ask from next time.
    pub fn arrivals_since(&self, since: u64) -> (Vec<B256>, u64) {
        let first_kept = self.arrived - self.arrivals.len() as u64;
        let skip = since.saturating_sub(first_kept);
        let new = self
            .arrivals
            .iter()
            .skip(usize::try_from(skip).unwrap_or(usize::MAX))
            .copied()
            .collect();
        (new, self.arrived)
    }

    /// Every pooled transaction, by sender then nonce.
    pub fn all(&self) -> Vec<SignedTx> {
        let mut senders: Vec<&Address> = self.by_sender.keys().collect();
        senders.sort();
        senders
            .into_iter()
            .flat_map(|s| self.by_sender[s].values().cloned())
            .collect()
    }

    /// Ready transactions in building order: senders by arrival, each sender's run of nonces
    /// from `nonce_of(sender)`, at most `limit` in all.
    pub fn ready(&self, nonce_of: impl Fn(&Address) -> u64, limit: usize) -> Vec<SignedTx> {
        let mut out = Vec::new();
        for sender in &self.order {
            let Some(txs) = self.by_sender.get(sender) else {
                continue;
            };
            let first = nonce_of(sender);
            // A run of consecutive nonces from `first`; a gap ends it.
            for (expected, (nonce, tx)) in (first..).zip(txs.range(first..)) {
                if *nonce != expected || out.len() >= limit {
                    break;
                }
                out.push(tx.clone());
            }
            if out.len() >= limit {
                break;
            }
        }
        out
    }

    /// Drops every transaction of `sender` below `nonce` (mined or made stale).
    pub fn drop_below(&mut self, sender: &Address, nonce: u64) {
        let Some(txs) = self.by_sender.get_mut(sender) else {
            return;
        };
        let keep = txs.split_off(&nonce);
        for tx in txs.values() {
            self.hashes.remove(&tx.hash);
        }
        *txs = keep;
        if txs.is_empty() {
            self.by_sender.remove(sender);
            self.order.retain(|s| s != sender);
        }
    }

    /// Removes one transaction (it can never run).
    pub fn remove(&mut self, hash: &B256) {
        let Some(sender) = self.hashes.remove(hash) else {
            return;
        };
        if let Some(txs) = self.by_sender.get_mut(&sender) {
            txs.retain(|_, t| t.hash != *hash);
            if txs.is_empty() {
                self.by_sender.remove(&sender);
                self.order.retain(|s| *s != sender);
            }
        }
    }
}
