//! The ACP-77 continuous fee of L1 validators, as AvalancheGo charges it
//! (`vms/platformvm/validators/fee`, `vms/components/gas`): the price ([`gas_price`]), the fee
//! state and its cost over time ([`FeeState`], under an [`L1FeeConfig`]), and a [`FeeLedger`]
//! that replays it over the P-Chain's blocks: which validators pay, what each paid in each UTC
//! day, when a balance runs out and what is left to refund.
//!
//! Every active L1 validator pays the same price per second. AvalancheGo keeps one running
//! total of what an always-active validator would have paid (`accrued`) and, per validator,
//! the total at which its balance runs out (`EndAccumulatedFee`); time moves at each block, the
//! cost of the whole step priced at the step's start, and validators whose end the total has
//! reached are deactivated. Where Go uses `math/big`, alloy's [`U256`] does the same exact
//! arithmetic.

use std::collections::{BTreeSet, HashMap};

use alloy_primitives::U256;
use serde::{Deserialize, Serialize};

use crate::calendar::DAY;
use crate::ids::Id;

/// `gas.CalculatePrice`: `min_price · e^(excess / k)` by the Taylor series AvalancheGo uses.
pub fn gas_price(min_price: u64, excess: u64, k: u64) -> u64 {
    if k == 0 {
        return u64::MAX;
    }
    let denominator = u128::from(k);
    let max_output = denominator * u128::from(u64::MAX);
    let mut output: u128 = 0;
    let mut accum: u128 = u128::from(min_price) * denominator;
    let mut i: u64 = 1;
    while accum > 0 {
        output = match output.checked_add(accum) {
            Some(o) if o < max_output => o,
            _ => return u64::MAX,
        };
        // accum < 2^128 and excess < 2^64: the product needs 192 bits.
        let next = U256::from(accum) * U256::from(excess) / U256::from(k) / U256::from(i);
        accum = match u128::try_from(next) {
            Ok(a) => a,
            Err(_) => return u64::MAX,
        };
        i += 1;
    }
    (output / denominator) as u64
}

/// The ACP-77 continuous fee of L1 validators (AvalancheGo's `validators/fee.Config`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct L1FeeConfig {
    /// Most active L1 validators.
    pub capacity: u64,
    /// Active validators at which the price holds steady.
    pub target: u64,
    /// The price per validator-second at zero excess, nAVAX.
    pub min_price: u64,
    /// How fast excess raises the price.
    pub excess_conversion_constant: u64,
}

impl Default for L1FeeConfig {
    fn default() -> Self {
        // AvalancheGo's Fuji values: the price doubles every hour above the target.
        Self {
            capacity: 20_000,
            target: 10_000,
            min_price: 512,
            excess_conversion_constant: 51_937_021,
        }
    }
}

/// The L1 validator fee state: how many active validators (`current`) and the price excess.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FeeState {
    /// Gas consumed per second: the number of active L1 validators.
    pub current: u64,
    /// The accumulated excess that raises the price.
    pub excess: u64,
}

impl FeeState {
    /// The state after `seconds` at this consumption.
    pub fn advance(self, target: u64, seconds: u64) -> Self {
        let excess = if self.current < target {
            self.excess
                .saturating_sub((target - self.current).saturating_mul(seconds))
        } else {
            self.excess
                .saturating_add((self.current - target).saturating_mul(seconds))
        };
        Self {
            current: self.current,
            excess,
        }
    }

    fn price(&self, c: &L1FeeConfig) -> u64 {
        gas_price(c.min_price, self.excess, c.excess_conversion_constant)
    }

    /// What one active validator pays over the next `seconds`.
    pub fn cost_of(self, c: &L1FeeConfig, seconds: u64) -> u64 {
        if self.current == c.target {
            return seconds.saturating_mul(self.price(c));
        }
        let mut s = self;
        let mut cost = 0u64;
        for i in 0..seconds {
            s = s.advance(c.target, 1);
            if s.excess == 0 {
                let zero = c.min_price.saturating_mul(seconds - i);
                return cost.saturating_add(zero);
            }
            cost = cost.saturating_add(s.price(c));
            if cost == u64::MAX {
                break;
            }
        }
        cost
    }

    /// How many seconds `funds` pay for, at most `max_seconds`.
    pub fn seconds_remaining(self, c: &L1FeeConfig, max_seconds: u64, mut funds: u64) -> u64 {
        if c.min_price == 0 {
            return max_seconds;
        }
        if self.current == c.target {
            let price = self.price(c).max(1);
            return (funds / price).min(max_seconds);
        }
        let mut s = self;
        for seconds in 0..max_seconds {
            s = s.advance(c.target, 1);
            if s.excess == 0 {
                return seconds.saturating_add(funds / c.min_price).min(max_seconds);
            }
            let price = s.price(c);
            if price > funds {
                return seconds;
            }
            funds -= price;
        }
        max_seconds
    }
}

/// The longest time one [`FeeLedger::advance_to`] moves while validators pay: far beyond any
/// gap between two blocks of a live P-Chain.
pub const MAX_STEP: u64 = 400 * DAY;

/// The fee state a [`FeeLedger`] carries from block to block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LedgerState {
    /// Chain time the fees are charged up to, Unix seconds.
    pub time: u64,
    /// The price excess.
    pub excess: u64,
    /// What a validator active all along would have paid (AvalancheGo's `AccruedFees`).
    pub accrued: u64,
}

/// What one validation paid during one UTC day.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DayFee {
    /// The validation.
    pub validation_id: Id,
    /// Start of the day, Unix seconds.
    pub day: u64,
    /// nAVAX paid.
    pub fee: u64,
}

/// The continuous fee of every active L1 validator, replayed block by block.
#[derive(Debug, Clone)]
pub struct FeeLedger {
    config: L1FeeConfig,
    state: LedgerState,
    /// Active validators by the accrued total at which their balance runs out, then ID: the
    /// order AvalancheGo deactivates them in.
    by_end: BTreeSet<(u64, Id)>,
    ends: HashMap<Id, u64>,
}

impl FeeLedger {
    /// A ledger at `state` whose active validators are `active` (validation, accrued total at
    /// which its balance runs out).
    pub fn new(config: L1FeeConfig, state: LedgerState, active: &[(Id, u64)]) -> Self {
        let mut ledger = Self {
            config,
            state,
            by_end: BTreeSet::new(),
            ends: HashMap::new(),
        };
        for &(id, end) in active {
            ledger.set_end(id, end);
        }
        ledger
    }

    /// The fee state now.
    pub fn state(&self) -> LedgerState {
        self.state
    }

    /// The fee configuration.
    pub fn config(&self) -> &L1FeeConfig {
        &self.config
    }

    /// The active validators with the accrued total at which each balance runs out.
    pub fn active(&self) -> impl Iterator<Item = (Id, u64)> + '_ {
        self.by_end.iter().map(|&(end, id)| (id, end))
    }

    /// How many validators are active.
    pub fn active_count(&self) -> usize {
        self.by_end.len()
    }

    /// The accrued total at which `id`'s balance runs out (`None` when inactive).
    pub fn end_of(&self, id: &Id) -> Option<u64> {
        self.ends.get(id).copied()
    }

    /// What `id` has left (0 when inactive).
    pub fn balance(&self, id: &Id) -> u64 {
        self.ends
            .get(id)
            .map_or(0, |end| end.saturating_sub(self.state.accrued))
    }

    fn set_end(&mut self, id: Id, end: u64) {
        if let Some(old) = self.ends.insert(id, end) {
            self.by_end.remove(&(old, id));
        }
        self.by_end.insert((end, id));
    }

    fn remove(&mut self, id: &Id) -> Option<u64> {
        let end = self.ends.remove(id)?;
        self.by_end.remove(&(end, *id));
        Some(end)
    }

    /// Moves the chain time to `time` as AvalancheGo does at a block: every active validator
    /// pays the step's cost (priced at the step's start, with today's count of active
    /// validators) up to its balance, and those whose balance ran out are deactivated and
    /// returned. What each paid per UTC day is added to `paid`. A `time` not after the
    /// ledger's changes nothing; while validators pay, one call moves at most [`MAX_STEP`]
    /// (the work is per second above the target and per day, and a block's time comes from
    /// the node).
    pub fn advance_to(&mut self, time: u64, paid: &mut Vec<DayFee>) -> Vec<Id> {
        let from = self.state.time;
        if time <= from {
            return Vec::new();
        }
        let time = match self.by_end.is_empty() {
            true => time,
            false => time.min(from.saturating_add(MAX_STEP)),
        };
        let seconds = time - from;
        let c = &self.config;
        let fs = FeeState {
            current: self.by_end.len() as u64,
            excess: self.state.excess,
        };
        let accrued = self.state.accrued.saturating_add(fs.cost_of(c, seconds));
        // The step day by day: the per-second price does not depend on where the step is cut.
        let (mut t, mut s, mut acc) = (from, fs, self.state.accrued);
        // Until everyone has run out.
        let last_end = self.by_end.last().map_or(0, |e| e.0);
        while t < time && acc < last_end {
            let day = t - t % DAY;
            let end = day.saturating_add(DAY).min(time);
            let next = acc.saturating_add(s.cost_of(c, end - t)).min(accrued);
            for &(runs_out, id) in &self.by_end {
                let fee = runs_out.min(next).saturating_sub(acc);
                if fee > 0 {
                    paid.push(DayFee {
                        validation_id: id,
                        day,
                        fee,
                    });
                }
            }
            s = s.advance(c.target, end - t);
            (t, acc) = (end, next);
        }
        let mut depleted = Vec::new();
        while let Some(&(runs_out, id)) = self.by_end.first() {
            if runs_out > accrued {
                break;
            }
            self.remove(&id);
            depleted.push(id);
        }
        self.state = LedgerState {
            time,
            excess: fs.advance(self.config.target, seconds).excess,
            accrued,
        };
        depleted
    }

    /// A validator added with `balance` (ConvertSubnetToL1Tx, RegisterL1ValidatorTx): active
    /// unless the balance is 0.
    pub fn register(&mut self, id: Id, balance: u64) {
        if balance == 0 {
            self.remove(&id);
        } else {
            self.set_end(id, self.state.accrued.saturating_add(balance));
        }
    }

    /// `amount` added to a validator's balance (IncreaseL1ValidatorBalanceTx): an inactive one
    /// becomes active again.
    pub fn top_up(&mut self, id: Id, amount: u64) {
        let base = self.ends.get(&id).copied().unwrap_or(self.state.accrued);
        self.set_end(id, base.saturating_add(amount));
    }

    /// A validator disabled or removed: it stops paying; returns the balance it had left (what
    /// the P-Chain refunds).
    pub fn deactivate(&mut self, id: &Id) -> u64 {
        self.remove(id)
            .map_or(0, |end| end.saturating_sub(self.state.accrued))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vid(n: u8) -> Id {
        Id([n; 32])
    }

    fn fuji() -> L1FeeConfig {
        L1FeeConfig {
            capacity: 20_000,
            target: 10_000,
            min_price: 512,
            excess_conversion_constant: 51_937_021,
        }
    }

    /// A ledger on Fuji's fee configuration at `time`, with no one paying yet.
    fn fuji_ledger_at(time: u64) -> FeeLedger {
        let state = LedgerState {
            time,
            ..LedgerState::default()
        };
        FeeLedger::new(fuji(), state, &[])
    }

    #[test]
    fn ledger_charges_every_active_validator_per_day_until_it_runs_out() {
        let start = 10 * DAY + DAY - 100;
        let mut ledger = fuji_ledger_at(start);
        // 1 has a day and a bit of fees, 2 an hour's.
        ledger.register(vid(1), 512 * (DAY + 50));
        ledger.register(vid(2), 512 * 3_600);
        ledger.register(vid(3), 0);
        assert_eq!(ledger.balance(&vid(3)), 0, "no balance, never active");
        let mut paid = Vec::new();
        // 100 s before midnight, then two days.
        let depleted = ledger.advance_to(start + 100 + 2 * DAY, &mut paid);
        assert_eq!(depleted, vec![vid(2), vid(1)], "ran out, first to last");
        let day = 10 * DAY;
        assert_eq!(
            paid,
            vec![
                DayFee {
                    validation_id: vid(2),
                    day,
                    fee: 512 * 100
                },
                DayFee {
                    validation_id: vid(1),
                    day,
                    fee: 512 * 100
                },
                DayFee {
                    validation_id: vid(2),
                    day: day + DAY,
                    fee: 512 * 3_500
                },
                DayFee {
                    validation_id: vid(1),
                    day: day + DAY,
                    fee: 512 * (DAY - 50)
                },
            ],
            "split at midnight, each paying at most its balance"
        );
        assert_eq!(ledger.balance(&vid(1)), 0);
        assert_eq!(ledger.active().count(), 0);
        // A top-up brings 1 back; disabling refunds what it has left.
        ledger.top_up(vid(1), 512 * 10);
        assert_eq!(ledger.balance(&vid(1)), 512 * 10);
        let mut paid = Vec::new();
        assert!(
            ledger
                .advance_to(ledger.state().time + 4, &mut paid)
                .is_empty()
        );
        assert_eq!(paid.iter().map(|p| p.fee).sum::<u64>(), 512 * 4);
        assert_eq!(ledger.deactivate(&vid(1)), 512 * 6);
        assert_eq!(ledger.deactivate(&vid(1)), 0, "once");
        // Time that does not move charges nothing.
        let mut paid = Vec::new();
        assert!(ledger.advance_to(ledger.state().time, &mut paid).is_empty());
        assert!(paid.is_empty());
    }

    #[test]
    fn ledger_bounds_the_work_of_a_far_future_time() {
        let mut ledger = FeeLedger::new(fuji(), LedgerState::default(), &[]);
        // No one pays: any time is reached at once.
        let mut paid = Vec::new();
        ledger.advance_to(u64::MAX / 2, &mut paid);
        assert_eq!(ledger.state().time, u64::MAX / 2);
        // Balances that never run out: one step moves at most MAX_STEP, split per day.
        let start = 1_700_000_123;
        let mut ledger = fuji_ledger_at(start);
        for n in 1..=3 {
            ledger.register(vid(n), u64::MAX / 4);
        }
        ledger.advance_to(u64::MAX, &mut paid);
        assert_eq!(ledger.state().time, start + MAX_STEP);
        let days = (start + MAX_STEP - 1) / DAY - start / DAY + 1;
        assert_eq!(paid.len() as u64, 3 * days);
        // Above the target (priced per second) at a price that saturates: the step stops
        // costing work there, and everyone runs out on the first day.
        let mut c = fuji();
        c.target = 1;
        c.min_price = u64::MAX / 2;
        let mut busy = FeeLedger::new(c, LedgerState::default(), &[]);
        for n in 1..=3 {
            busy.register(vid(n), u64::MAX / 4);
        }
        let mut paid = Vec::new();
        assert_eq!(busy.advance_to(u64::MAX, &mut paid).len(), 3);
        assert_eq!(paid.len(), 3, "one day each");
    }

    #[test]
    fn ledger_over_the_target_prices_the_step_at_its_start() {
        let mut c = fuji();
        c.target = 1;
        let mut ledger = FeeLedger::new(c.clone(), LedgerState::default(), &[]);
        for n in 1..=3 {
            ledger.register(vid(n), u64::MAX / 4);
        }
        let mut paid = Vec::new();
        ledger.advance_to(2 * DAY + 7, &mut paid);
        let step = FeeState {
            current: 3,
            excess: 0,
        };
        // Each validator paid the whole step's cost, split over three days.
        for n in 1..=3 {
            let total: u64 = paid
                .iter()
                .filter(|p| p.validation_id == vid(n))
                .map(|p| p.fee)
                .sum();
            assert_eq!(total, step.cost_of(&c, 2 * DAY + 7));
        }
        assert_eq!(paid.iter().filter(|p| p.validation_id == vid(1)).count(), 3);
        assert_eq!(
            ledger.state().excess,
            step.advance(c.target, 2 * DAY + 7).excess
        );
        assert!(ledger.state().excess > 0);
    }

    #[test]
    fn gas_price_is_min_price_at_zero_excess_and_doubles() {
        assert_eq!(gas_price(512, 0, 865_617), 512);
        // excess = k · ln 2 doubles the price (within rounding).
        let p = gas_price(1_000_000, 600_000, 865_617);
        assert!((1_999_000..=2_001_000).contains(&p), "{p}");
        assert_eq!(gas_price(u64::MAX, u64::MAX, 1), u64::MAX);
        // (min price, excess, k, price) from AvalancheGo's gas tests.
        let e = 6_786_177_901_268_885_274;
        let cases = [
            (1, 0, 1, 1),
            (1, 1, 1, 2),
            (1, 2, 1, 6),
            (1, 10_000, 10_000, 2),
            (1, 1_000_000, 10_000, u64::MAX),
            (10, 10_000_000, 1_000_000, 220_264),
            (u64::from(u32::MAX), 1, 1, 11_674_931_546),
            (e, 1, 1, u64::MAX - 11),
            (e, u64::MAX, u64::MAX, u64::MAX - 1),
        ];
        for (min, excess, k, expected) in cases {
            assert_eq!(gas_price(min, excess, k), expected, "{min} {excess} {k}");
        }
    }

    #[test]
    fn cost_and_seconds_remaining_agree() {
        let c = L1FeeConfig {
            capacity: 20_000,
            target: 10_000,
            min_price: 512,
            excess_conversion_constant: 865_617,
        };
        let s = FeeState {
            current: 1,
            excess: 0,
        };
        assert_eq!(s.cost_of(&c, 100), 51_200);
        assert_eq!(s.seconds_remaining(&c, u64::MAX, 51_200), 100);
        assert_eq!(s.seconds_remaining(&c, 10, 51_200), 10);
        let busy = FeeState {
            current: 15_000,
            excess: 0,
        };
        let cost = busy.cost_of(&c, 60);
        assert!(cost > 60 * 512);
        assert_eq!(busy.seconds_remaining(&c, u64::MAX, cost), 60);
    }

    #[test]
    fn l1_fee_matches_avalanchego_fee_vectors() {
        // From AvalancheGo's validators/fee tests: min price 2048, target 10 000, price
        // doubling every day (k = 1 246 488 515), one minute.
        let c = L1FeeConfig {
            capacity: 20_000,
            target: 10_000,
            min_price: 2_048,
            excess_conversion_constant: 1_246_488_515,
        };
        let cases = [
            (10, 0, 122_880, 0),
            (10_000, 0, 122_880, 0),
            (10_000, 864_000_000, 245_760, 864_000_000),
            (10_000, 1_246_488_515, 334_020, 1_246_488_515),
            (15_000, 0, 122_880, 300_000),
        ];
        for (current, excess, cost, excess_after) in cases {
            let s = FeeState { current, excess };
            assert_eq!(s.cost_of(&c, 60), cost, "{current} {excess}");
            assert_eq!(s.advance(c.target, 60).excess, excess_after);
            assert_eq!(s.seconds_remaining(&c, u64::MAX, cost), 60);
        }
    }
}
