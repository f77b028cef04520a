//! The arithmetic of the P-Chain: the staking reward calculator, the delegation-fee split and
//! the ACP-77 continuous fee of L1 validators, exactly as AvalancheGo computes them
//! (`vms/platformvm/reward`, `vms/platformvm/validators/fee`, `vms/components/gas`).
//!
//! AvalancheGo computes the reward with big integers; here a small private unsigned big
//! integer (little-endian u64 limbs) does the same exact arithmetic.

use crate::genesis::{L1FeeConfig, RewardConfig};

/// `PercentDenominator`: consumption rates and delegation fees are parts per million.
pub use firn_core::pchain::reward::{PERCENT_DENOMINATOR, split};

const NANOS_PER_SECOND: u64 = 1_000_000_000;

/// An unsigned big integer, just wide enough for AvalancheGo's reward formula.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Wide(Vec<u64>);

impl Wide {
    fn from_u128(v: u128) -> Self {
        Self(vec![v as u64, (v >> 64) as u64])
    }

    fn mul_u64(&mut self, m: u64) {
        let mut carry = 0u128;
        for limb in &mut self.0 {
            let p = u128::from(*limb) * u128::from(m) + carry;
            *limb = p as u64;
            carry = p >> 64;
        }
        if carry > 0 {
            self.0.push(carry as u64);
        }
    }

    fn mul_u128(&mut self, m: u128) {
        let lo = m as u64;
        let hi = (m >> 64) as u64;
        let mut high = self.clone();
        self.mul_u64(lo);
        if hi != 0 {
            high.mul_u64(hi);
            high.0.insert(0, 0);
            self.add(&high);
        }
    }

    fn add(&mut self, other: &Wide) {
        let n = self.0.len().max(other.0.len());
        self.0.resize(n, 0);
        let mut carry = 0u128;
        for i in 0..n {
            let s = u128::from(self.0[i]) + u128::from(*other.0.get(i).unwrap_or(&0)) + carry;
            self.0[i] = s as u64;
            carry = s >> 64;
        }
        if carry > 0 {
            self.0.push(carry as u64);
        }
    }

    /// Floor division by `d` (> 0).
    fn div_u64(&mut self, d: u64) {
        let mut rem = 0u128;
        for limb in self.0.iter_mut().rev() {
            let cur = (rem << 64) | u128::from(*limb);
            *limb = (cur / u128::from(d)) as u64;
            rem = cur % u128::from(d);
        }
    }

    fn to_u64(&self) -> Option<u64> {
        if self.0.iter().skip(1).any(|&l| l != 0) {
            return None;
        }
        Some(self.0.first().copied().unwrap_or(0))
    }
}

/// The reward for staking `amount` for `duration_secs` when the supply is `supply`
/// (AvalancheGo's `reward.calculator.Calculate`; durations in nanoseconds as Go does).
pub fn reward(config: &RewardConfig, duration_secs: u64, amount: u64, supply: u64) -> u64 {
    if supply == 0 || config.minting_period_secs == 0 {
        return 0;
    }
    let minting_period = config.minting_period_secs.saturating_mul(NANOS_PER_SECOND);
    let duration = duration_secs.saturating_mul(NANOS_PER_SECOND);
    let max_sub_min = config
        .max_consumption_rate
        .saturating_sub(config.min_consumption_rate);
    let numerator = u128::from(max_sub_min) * u128::from(duration)
        + u128::from(config.min_consumption_rate) * u128::from(minting_period);
    let remaining = config.supply_cap.saturating_sub(supply);

    let mut r = Wide::from_u128(u128::from(remaining));
    r.mul_u128(numerator);
    r.mul_u64(amount);
    r.mul_u64(duration);
    // Divide by mintingPeriod · PercentDenominator, the supply, then the minting period:
    // chained floor divisions equal one floor division by the product.
    r.div_u64(minting_period);
    r.div_u64(PERCENT_DENOMINATOR);
    r.div_u64(supply);
    r.div_u64(minting_period);
    match r.to_u64() {
        Some(v) => v.min(remaining),
        None => remaining,
    }
}

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
        let mut w = Wide::from_u128(accum);
        w.mul_u64(excess);
        w.div_u64(k);
        w.div_u64(i);
        accum = match (w.0.get(2).copied().unwrap_or(0), w.0.len()) {
            (0, _) => u128::from(w.0[0]) | (u128::from(*w.0.get(1).unwrap_or(&0)) << 64),
            _ => return u64::MAX,
        };
        i += 1;
    }
    (output / denominator) as u64
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

    fn avax(n: u64) -> u64 {
        n * 1_000_000_000
    }

    fn mainnet_reward_config() -> RewardConfig {
        RewardConfig {
            max_consumption_rate: 120_000,
            min_consumption_rate: 100_000,
            minting_period_secs: 365 * 24 * 3600,
            supply_cap: avax(720_000_000),
        }
    }

    #[test]
    fn reward_matches_avalanchego_calculator_vectors() {
        // (duration, stake, supply, reward) from AvalancheGo's reward calculator tests.
        let c = mainnet_reward_config();
        let (year, day, mega) = (365 * 24 * 3600, 24 * 3600, avax(1_000_000));
        let cases = [
            (year, mega, 360 * mega, avax(120_000)),
            (year, mega, 400 * mega, avax(96_000)),
            (year, 2 * mega, 400 * mega, avax(192_000)),
            (year, mega, c.supply_cap, 0),
            (day, mega, 360 * mega, 274_122_724_713),
            (day, 5_000_000, 360 * mega, 1_370),
            (day, mega, 400 * mega, 219_298_179_771),
            (day, 2 * mega, 400 * mega, 438_596_359_542),
            (day, mega, c.supply_cap, 0),
        ];
        for (duration, stake, supply, expected) in cases {
            assert_eq!(
                reward(&c, duration, stake, supply),
                expected,
                "{duration} {stake} {supply}"
            );
        }
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
