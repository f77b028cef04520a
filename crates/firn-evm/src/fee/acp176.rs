//! ACP-176, the C-Chain's fees since Fortuna: a gas capacity that refills at twice the target
//! per second up to ten seconds' worth, an excess whose exponential sets the price, and a
//! target that validators move by at most 2^15 of excess per block.
//!
//! Rules read from AvalancheGo `vms/evm/acp176/acp176.go` and `vms/components/gas`; the
//! header's extra data starts with [`Acp176State::to_bytes`].

use firn_core::pchain::validator_fee::gas_price;

/// `P`: the lowest target, gas per second.
pub const MIN_TARGET_PER_SECOND: u64 = 1_000_000;
/// `Q`: most target excess one block may move.
pub const MAX_TARGET_EXCESS_DIFF: u64 = 1 << 15;
/// How fast the target may change per block.
pub const MAX_TARGET_CHANGE_RATE: u64 = 1024;
/// `D`: target excess per factor `e` of target.
pub const TARGET_CONVERSION: u64 = MAX_TARGET_CHANGE_RATE * MAX_TARGET_EXCESS_DIFF;
/// `M`: the lowest gas price, in wei.
pub const MIN_GAS_PRICE: u64 = 1;
/// Seconds of the maximum rate the capacity holds.
pub const TIME_TO_FILL_CAPACITY: u64 = 5;
/// Maximum gas per second, as a multiple of the target.
pub const TARGET_TO_MAX: u64 = 2;
/// `K / T`: about 60 / ln 2, so the price at most doubles every minute.
pub const TARGET_TO_PRICE_UPDATE_CONVERSION: u64 = 87;
/// Bytes of the state at the start of a header's extra data.
pub const STATE_SIZE: usize = 24;
/// The largest target excess whose target fits a `u64`, plus one.
const MAX_TARGET_EXCESS: u64 = 1_024_950_627;

/// The fee state a block's header carries (`acp176.State`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Acp176State {
    /// Gas the next block may use.
    pub capacity: u64,
    /// Gas used above the target, which sets the price.
    pub excess: u64,
    /// `q`, which sets the target.
    pub target_excess: u64,
}

/// A block used more gas than the state had room for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("insufficient capacity: capacity ({capacity}) < gas ({gas})")]
pub struct InsufficientCapacity {
    /// The room there was.
    pub capacity: u64,
    /// The gas the block used.
    pub gas: u64,
}

impl Acp176State {
    /// The state at the start of `extra` (`ParseState`), `None` when it is too short.
    pub fn parse(extra: &[u8]) -> Option<Self> {
        let word = |i: usize| -> Option<u64> {
            Some(u64::from_be_bytes(
                extra.get(i * 8..i * 8 + 8)?.try_into().ok()?,
            ))
        };
        Some(Self {
            capacity: word(0)?,
            excess: word(1)?,
            target_excess: word(2)?,
        })
    }

    /// The 24 bytes the header's extra data starts with.
    pub fn to_bytes(self) -> Vec<u8> {
        [self.capacity, self.excess, self.target_excess]
            .iter()
            .flat_map(|v| v.to_be_bytes())
            .collect()
    }

    /// `T`: the target, gas per second.
    pub fn target(&self) -> u64 {
        gas_price(MIN_TARGET_PER_SECOND, self.target_excess, TARGET_CONVERSION)
    }

    /// `C`: the most capacity there can be, which is also the block gas limit.
    pub fn max_capacity(&self) -> u64 {
        self.target()
            .saturating_mul(TARGET_TO_MAX * TIME_TO_FILL_CAPACITY)
    }

    /// The base fee: `M · e^(excess / K)`.
    pub fn gas_price(&self) -> u64 {
        let k = self
            .target()
            .saturating_mul(TARGET_TO_PRICE_UPDATE_CONVERSION);
        gas_price(MIN_GAS_PRICE, self.excess, k)
    }

    /// The state `seconds` later: capacity refilled at twice the target (up to the maximum),
    /// excess drained at the target.
    pub fn advance_seconds(&mut self, seconds: u64) {
        let target = self.target();
        let max_per_second = target.saturating_mul(TARGET_TO_MAX);
        let max_capacity = max_per_second.saturating_mul(TIME_TO_FILL_CAPACITY);
        self.capacity = self
            .capacity
            .saturating_add(max_per_second.saturating_mul(seconds))
            .min(max_capacity);
        self.excess = match target.checked_mul(seconds) {
            Some(drain) => self.excess.saturating_sub(drain),
            None => 0,
        };
    }

    /// Spends `gas` of the capacity, adding it to the excess.
    pub fn consume_gas(&mut self, gas: u64) -> Result<(), InsufficientCapacity> {
        self.capacity = self.capacity.checked_sub(gas).ok_or(InsufficientCapacity {
            capacity: self.capacity,
            gas,
        })?;
        self.excess = self.excess.saturating_add(gas);
        Ok(())
    }

    /// Moves the target excess at most [`MAX_TARGET_EXCESS_DIFF`] toward `desired`, scaling the
    /// excess so the price holds, and caps the capacity at the new maximum.
    pub fn update_target_excess(&mut self, desired: u64) {
        let previous = self.target();
        let change = self
            .target_excess
            .abs_diff(desired)
            .min(MAX_TARGET_EXCESS_DIFF);
        self.target_excess = if self.target_excess < desired {
            self.target_excess + change
        } else {
            self.target_excess - change
        };
        let target = self.target();
        let scaled = u128::from(self.excess) * u128::from(target) / u128::from(previous.max(1));
        self.excess = u64::try_from(scaled).unwrap_or(u64::MAX);
        self.capacity = self.capacity.min(self.max_capacity());
    }
}

/// The smallest target excess whose target reaches `target` (`DesiredTargetExcess`).
pub fn desired_target_excess(target: u64) -> u64 {
    let (mut low, mut high) = (0, MAX_TARGET_EXCESS);
    while low < high {
        let mid = low + (high - low) / 2;
        let state = Acp176State {
            target_excess: mid,
            ..Acp176State::default()
        };
        if state.target() >= target {
            high = mid;
        } else {
            low = mid + 1;
        }
    }
    low
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAVAX: u64 = 1_000_000_000;

    fn state(excess: u64, target_excess: u64) -> Acp176State {
        Acp176State {
            capacity: 0,
            excess,
            target_excess,
        }
    }

    /// AvalancheGo's `readerTests`: state → target, max capacity and price.
    #[test]
    fn targets_capacities_and_prices_match_avalanchego() {
        let cases = [
            (state(0, 0), MIN_TARGET_PER_SECOND, 1),
            (state(60_303_808, 33), MIN_TARGET_PER_SECOND, 2),
            (state(60_303_868, 34), MIN_TARGET_PER_SECOND + 1, 2),
            (
                state(95_672_652, MAX_TARGET_EXCESS_DIFF),
                MIN_TARGET_PER_SECOND + 977,
                3,
            ),
            (state(2_704_386_192, 13_605_152), 1_500_000, NAVAX + 2),
            (state(6_610_721_802, 36_863_312), 3_000_000, 100 * NAVAX + 4),
            (
                state(22_035_739_340, 77_261_935),
                10_000_000,
                100 * NAVAX + 5,
            ),
            (
                state(220_357_393_400, 154_523_870),
                100_000_000,
                100 * NAVAX + 5,
            ),
            (
                state(2_203_573_881_110, 231_785_804),
                1_000_000_000 - 24,
                100 * NAVAX,
            ),
        ];
        for (s, target, price) in cases {
            assert_eq!(s.target(), target, "{s:?}");
            assert_eq!(s.max_capacity(), 10 * target, "{s:?}");
            assert_eq!(s.gas_price(), price, "{s:?}");
        }
        // The desired excess of each exact target is the smallest that reaches it.
        assert_eq!(desired_target_excess(1_500_000), 13_605_152);
        assert_eq!(desired_target_excess(MIN_TARGET_PER_SECOND), 0);
        assert_eq!(desired_target_excess(100_000_000), 154_523_870);
    }

    #[test]
    fn capacity_refills_at_twice_the_target_and_excess_drains_at_it() {
        let mut s = state(5_000_000, 0);
        s.advance_seconds(1);
        assert_eq!((s.capacity, s.excess), (2_000_000, 4_000_000));
        s.advance_seconds(100);
        assert_eq!((s.capacity, s.excess), (10_000_000, 0));
        s.consume_gas(9_000_000).unwrap();
        assert_eq!((s.capacity, s.excess), (1_000_000, 9_000_000));
        assert_eq!(
            s.consume_gas(1_000_001).unwrap_err().to_string(),
            "insufficient capacity: capacity (1000000) < gas (1000001)"
        );
        s.advance_seconds(u64::MAX);
        assert_eq!((s.capacity, s.excess), (10_000_000, 0));
    }

    #[test]
    fn the_target_moves_a_bounded_step_and_keeps_the_price() {
        let mut s = Acp176State {
            capacity: 10_000_000,
            excess: 2_704_386_192,
            target_excess: 0,
        };
        let price = s.gas_price();
        s.update_target_excess(u64::MAX);
        assert_eq!(s.target_excess, MAX_TARGET_EXCESS_DIFF);
        assert_eq!(s.target(), MIN_TARGET_PER_SECOND + 977);
        // Scaling the excess with the target keeps the price within rounding.
        assert!(
            s.gas_price().abs_diff(price) <= price / 1_000_000,
            "{price} {s:?}"
        );
        s.update_target_excess(0);
        assert_eq!(s.target_excess, 0);
        assert_eq!(s.capacity, 10_000_000);
        assert_eq!(Acp176State::parse(&s.to_bytes()), Some(s));
        assert_eq!(Acp176State::parse(&[0; 23]), None);
    }
}
