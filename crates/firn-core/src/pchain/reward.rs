//! The P-Chain's reward arithmetic, as AvalancheGo's `vms/platformvm/reward` computes it: the
//! potential reward of a stake ([`reward`], under a [`RewardConfig`]), how a delegator's reward
//! is shared with its validator ([`split`]), the reverse: the total a delegator's net reward
//! came from ([`total_for_net`]), and from both the rule that tells a delegator's gross and net
//! reward from what an index stores ([`delegator_reward`]).
//!
//! Go computes the reward with `math/big`; here alloy's [`U512`] holds the widest product
//! (about 321 bits), so every result is the same to the nAVAX.

use alloy_primitives::U512;
use serde::{Deserialize, Serialize};

/// Shares are parts per million (`shares = 20_000` is a 2 % delegation fee).
pub const PERCENT_DENOMINATOR: u64 = 1_000_000;

const NANOS_PER_SECOND: u64 = 1_000_000_000;

/// Shares as the Data API writes a delegation fee percentage: 20 000 → `"2"`, 25 000 →
/// `"2.5"` (up to four decimals, no trailing zeros).
pub fn fee_percent_text(shares: u32) -> String {
    let whole = shares / 10_000;
    let frac = shares % 10_000;
    if frac == 0 {
        whole.to_string()
    } else {
        format!("{whole}.{}", format!("{frac:04}").trim_end_matches('0'))
    }
}

/// AvalancheGo's `reward.Config`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RewardConfig {
    /// Maximum consumption rate, parts per million (120 000 = 12%).
    pub max_consumption_rate: u64,
    /// Minimum consumption rate, parts per million.
    pub min_consumption_rate: u64,
    /// The minting period, seconds.
    pub minting_period_secs: u64,
    /// The supply cap, nAVAX.
    pub supply_cap: u64,
}

/// The reward for staking `amount` for `duration_secs` when the supply is `supply`
/// (AvalancheGo's `reward.calculator.Calculate`; durations in nanoseconds as Go does). Never
/// more than what remains to mint; 0 with no supply or no minting period.
pub fn reward(config: &RewardConfig, duration_secs: u64, amount: u64, supply: u64) -> u64 {
    if supply == 0 || config.minting_period_secs == 0 {
        return 0;
    }
    let minting_period = U512::from(config.minting_period_secs.saturating_mul(NANOS_PER_SECOND));
    let duration = U512::from(duration_secs.saturating_mul(NANOS_PER_SECOND));
    let max_sub_min = config
        .max_consumption_rate
        .saturating_sub(config.min_consumption_rate);
    let numerator = U512::from(max_sub_min) * duration
        + U512::from(config.min_consumption_rate) * minting_period;
    let remaining = config.supply_cap.saturating_sub(supply);

    // < 2^64 · 2^129 · 2^64 · 2^64: fits in 512 bits.
    let r = U512::from(remaining) * numerator * U512::from(amount) * duration;
    // Divide by mintingPeriod · PercentDenominator, the supply, then the minting period:
    // chained floor divisions equal one floor division by the product.
    let r =
        r / minting_period / U512::from(PERCENT_DENOMINATOR) / U512::from(supply) / minting_period;
    u64::try_from(r).map_or(remaining, |v| v.min(remaining))
}

/// Splits `total` into (the `shares` parts-per-million cut, the remainder), rounding in the
/// remainder's favour as AvalancheGo's `reward.Split` does: a delegator's potential reward
/// becomes (the validator's fee, the delegator's reward).
pub fn split(total: u64, shares: u32) -> (u64, u64) {
    let remainder_shares = PERCENT_DENOMINATOR.saturating_sub(u64::from(shares));
    // total · remainder_shares / 10⁶ ≤ total, so it fits back into u64.
    let remainder =
        (u128::from(total) * u128::from(remainder_shares) / u128::from(PERCENT_DENOMINATOR)) as u64;
    (total - remainder, remainder)
}

/// The smallest total whose [`split`] at `shares` leaves exactly `net` to the delegator, or
/// `None` when no total does (a 100 % fee leaves nothing, so only `net = 0` has a total, and
/// it is not recoverable). When the fee is not zero two totals can leave the same net (the
/// cut rounds up); the smaller one is returned, which may be 1 nAVAX under the node's own
/// potential reward.
pub fn total_for_net(net: u64, shares: u32) -> Option<u64> {
    let remainder_shares = u128::from(PERCENT_DENOMINATOR.checked_sub(u64::from(shares))?);
    if remainder_shares == 0 {
        return None;
    }
    let total = (u128::from(net) * u128::from(PERCENT_DENOMINATOR)).div_ceil(remainder_shares);
    let total = u64::try_from(total).ok()?;
    (split(total, shares).1 == net).then_some(total)
}

/// What the reward transaction of an ended delegation paid for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Paid {
    /// Everything paid for the stake: the delegator's reward and, before Cortina (when the
    /// delegator's reward transaction paid the validator's fee too), that fee.
    pub total: u64,
    /// What the delegator was paid.
    pub net: u64,
}

/// A delegator's reward: the whole reward its stake earned and the delegator's part; the
/// difference is its validator's fee.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DelegatorReward {
    /// The whole reward (an estimate while the delegation has not ended).
    pub gross: u64,
    /// The delegator's part.
    pub net: u64,
}

impl DelegatorReward {
    /// The validator's share: gross minus net.
    pub fn validator_fee(&self) -> u64 {
        self.gross.saturating_sub(self.net)
    }
}

/// A delegator's reward at its validator's fee of `shares`, from what is known of it: an
/// ongoing delegation (`paid` is `None`) is estimated as its `potential` reward and that
/// reward's [`split`]. An ended one was paid its net reward, and its gross is what its reward
/// transaction paid when that included the fee (before Cortina), else the `potential` reward
/// recorded when it started or, when that is unknown (indexed only after it ended), the
/// smallest total that splits into what was paid ([`total_for_net`]). Nothing paid (an aborted
/// stake) earned nothing.
pub fn delegator_reward(
    paid: Option<Paid>,
    potential: Option<u64>,
    shares: u32,
) -> DelegatorReward {
    match paid {
        Some(Paid { total, net }) if total > net => DelegatorReward { gross: total, net },
        Some(Paid { net: 0, .. }) => DelegatorReward { gross: 0, net: 0 },
        Some(Paid { net, .. }) => DelegatorReward {
            gross: potential
                .or_else(|| total_for_net(net, shares))
                .unwrap_or(net),
            net,
        },
        None => {
            let gross = potential.unwrap_or(0);
            DelegatorReward {
                gross,
                net: split(gross, shares).1,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fee_percent_reads_as_the_data_api_writes_it() {
        assert_eq!(fee_percent_text(20_000), "2");
        assert_eq!(fee_percent_text(1_000_000), "100");
        assert_eq!(fee_percent_text(25_000), "2.5");
        assert_eq!(fee_percent_text(12_345), "1.2345");
    }

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
    fn split_rounds_in_favour_of_the_remainder() {
        assert_eq!(split(100, 20_000), (2, 98));
        assert_eq!(split(1, 20_000), (1, 0));
        assert_eq!(split(u64::MAX, 1_000_000), (u64::MAX, 0));
        assert_eq!(split(u64::MAX, 0), (0, u64::MAX));
        let (a, b) = split(u64::MAX, 500_000);
        assert_eq!(a + b, u64::MAX);
        assert_eq!(b, u64::MAX / 2);
    }

    #[test]
    fn total_for_net_is_the_smallest_total_that_splits_into_net() {
        for shares in [0, 1, 20_000, 123_456, 999_999] {
            for total in (0..5_000u64).chain([1_626_765_523, u64::MAX / 3]) {
                let (_, net) = split(total, shares);
                let found = total_for_net(net, shares).expect("a total exists");
                assert!(found <= total, "{found} > {total} at {shares}");
                assert_eq!(split(found, shares).1, net);
                if found > 0 {
                    assert_ne!(split(found - 1, shares).1, net, "not the smallest");
                }
            }
        }
        assert_eq!(total_for_net(0, 1_000_000), None);
        assert_eq!(total_for_net(5, 1_000_001), None);
        assert_eq!(total_for_net(98, 20_000), Some(100));
    }

    /// A delegator's reward at a 2 % fee.
    fn at_2_percent(paid: Option<(u64, u64)>, potential: Option<u64>) -> (u64, u64, u64) {
        let paid = paid.map(|(total, net)| Paid { total, net });
        let r = delegator_reward(paid, potential, 20_000);
        (r.gross, r.net, r.validator_fee())
    }

    #[test]
    fn an_ongoing_delegation_estimates_the_potential_reward_and_its_split() {
        // The validator's 2 % is rounded up: 1,626,765,523 · 0.98 = 1,594,230,212.54.
        assert_eq!(
            at_2_percent(None, Some(1_626_765_523)),
            (1_626_765_523, 1_594_230_212, 32_535_311)
        );
        assert_eq!(at_2_percent(None, None), (0, 0, 0));
    }

    #[test]
    fn an_ended_delegation_was_paid_net_of_its_validators_fee() {
        // Indexed while current: the gross is the node's potential reward.
        let paid = Some((1_594_230_212, 1_594_230_212));
        assert_eq!(
            at_2_percent(paid, Some(1_626_765_523)),
            (1_626_765_523, 1_594_230_212, 32_535_311)
        );
        // Indexed after it ended: the smallest total that splits into the payout.
        assert_eq!(at_2_percent(Some((98, 98)), None), (100, 98, 2));
        // Before Cortina the reward tx paid the fee too.
        assert_eq!(at_2_percent(Some((107, 97)), Some(57)), (107, 97, 10));
        // Aborted: nothing paid, nothing earned.
        assert_eq!(at_2_percent(Some((0, 0)), Some(57)), (0, 0, 0));
    }
}
