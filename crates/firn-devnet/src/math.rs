//! The arithmetic of the P-Chain: the staking reward calculator, the delegation-fee split and
//! the ACP-77 continuous fee of L1 validators, exactly as AvalancheGo computes them
//! (`vms/platformvm/reward`, `vms/platformvm/validators/fee`, `vms/components/gas`).
//!
//! The reward arithmetic is firn-core's ([`firn_core::pchain::reward`]), re-exported here;
//! this module adds the gas price and the L1 validator fee. Where Go uses `math/big`, alloy's
//! [`U256`] does the same exact arithmetic.

use alloy_primitives::U256;
use serde::{Deserialize, Serialize};

/// The reward calculator and the delegation-fee split, defined once in firn-core.
pub use firn_core::pchain::reward::{PERCENT_DENOMINATOR, RewardConfig, reward, split};

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

#[cfg(test)]
mod tests {
    use super::*;

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
