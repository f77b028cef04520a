//! Etna's dynamic tx fees (ACP-103), as AvalancheGo's `vms/components/gas` and
//! `vms/platformvm/txs/fee` compute them.
//!
//! A tx's [`Dimensions`] (bandwidth, DB reads, DB writes, compute; see [`complexity`]) are
//! weighted into gas by [`DynamicFeeConfig::weights`]. The chain's [`GasState`] holds a
//! `capacity` that refills over time up to a maximum and an `excess` that grows with the gas
//! blocks consume and shrinks at the target rate; the gas price is
//! `min_price · e^(excess / K)` ([`crate::math::gas_price`], AvalancheGo's integer Taylor
//! series). A block's txs all pay the price of the state after its time advanced and before
//! its gas was consumed; the fee `gas · price` is burnt in the tx's flow check.

pub mod complexity;

use crate::math::gas_price;
use serde::{Deserialize, Serialize};

pub use complexity::{ComplexityError, tx_complexity};

/// The number of fee dimensions.
pub const DIMENSIONS: usize = 4;

/// Bandwidth (bytes), the first dimension.
pub const BANDWIDTH: usize = 0;
/// DB reads, the second dimension.
pub const DB_READ: usize = 1;
/// DB writes (including deletes), the third dimension.
pub const DB_WRITE: usize = 2;
/// Compute (microseconds), the fourth dimension.
pub const COMPUTE: usize = 3;

/// What a tx costs the chain along each dimension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Dimensions(pub [u64; DIMENSIONS]);

impl Dimensions {
    /// `[bandwidth, reads, writes, compute]`.
    pub const fn new(bandwidth: u64, reads: u64, writes: u64, compute: u64) -> Self {
        Self([bandwidth, reads, writes, compute])
    }

    /// The sum, or `None` on overflow.
    pub fn checked_add(self, other: Self) -> Option<Self> {
        let mut out = self;
        for (o, x) in out.0.iter_mut().zip(other.0) {
            *o = o.checked_add(x)?;
        }
        Some(out)
    }

    /// The gas: the dot product with `weights`, or `None` on overflow.
    pub fn to_gas(self, weights: &Dimensions) -> Option<u64> {
        self.0
            .iter()
            .zip(weights.0)
            .try_fold(0u64, |acc, (d, w)| acc.checked_add(d.checked_mul(w)?))
    }
}

/// AvalancheGo's `gas.Config`: how complexity becomes gas and how gas is priced. Missing
/// fields take AvalancheGo's values.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct DynamicFeeConfig {
    /// Gas per unit of bandwidth, DB read, DB write and compute.
    pub weights: Dimensions,
    /// The most gas the chain stores for later blocks.
    pub max_capacity: u64,
    /// The rate capacity refills at, gas per second.
    pub max_per_second: u64,
    /// The rate at which the price holds steady, gas per second.
    pub target_per_second: u64,
    /// The price at zero excess, nAVAX per gas.
    pub min_price: u64,
    /// How fast excess raises the price.
    pub excess_conversion_constant: u64,
}

impl Default for DynamicFeeConfig {
    /// AvalancheGo's values for mainnet, Fuji and local networks (they are the same).
    fn default() -> Self {
        Self {
            weights: Dimensions::new(1, 1_000, 1_000, 4),
            max_capacity: 1_000_000,
            max_per_second: 100_000,
            target_per_second: 50_000,
            min_price: 1,
            excess_conversion_constant: 2_164_043,
        }
    }
}

impl DynamicFeeConfig {
    /// The gas of `complexity`, or `None` on overflow.
    pub fn gas(&self, complexity: Dimensions) -> Option<u64> {
        complexity.to_gas(&self.weights)
    }

    /// The gas price at `excess`.
    pub fn price(&self, excess: u64) -> u64 {
        gas_price(self.min_price, excess, self.excess_conversion_constant)
    }

    /// The state genesis starts with: full capacity, no excess.
    pub fn genesis_state(&self) -> GasState {
        GasState {
            capacity: self.max_capacity,
            excess: 0,
        }
    }
}

/// AvalancheGo's `gas.State`: the gas available to the next block and the excess.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct GasState {
    /// Gas the next block may consume.
    pub capacity: u64,
    /// Gas consumed above the target, which raises the price.
    pub excess: u64,
}

/// A block consumed more gas than the chain had.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("insufficient capacity: capacity ({capacity}) < gas ({gas})")]
pub struct InsufficientCapacity {
    /// The gas available.
    pub capacity: u64,
    /// The gas the block needs.
    pub gas: u64,
}

impl GasState {
    /// The state `seconds` later: capacity refilled (at most `max_capacity`), excess reduced
    /// at the target rate (AvalancheGo's `State.AdvanceTime`, saturating as it does).
    pub fn advance(self, config: &DynamicFeeConfig, seconds: u64) -> Self {
        let refill = config.max_per_second.saturating_mul(seconds);
        Self {
            capacity: self
                .capacity
                .saturating_add(refill)
                .min(config.max_capacity),
            excess: self
                .excess
                .saturating_sub(config.target_per_second.saturating_mul(seconds)),
        }
    }

    /// The state after a block consumed `gas` (AvalancheGo's `State.ConsumeGas`; excess
    /// saturates).
    pub fn consume(self, gas: u64) -> Result<Self, InsufficientCapacity> {
        let capacity = self.capacity.checked_sub(gas).ok_or(InsufficientCapacity {
            capacity: self.capacity,
            gas,
        })?;
        Ok(Self {
            capacity,
            excess: self.excess.saturating_add(gas),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn advance_refills_capacity_and_drains_excess() {
        let c = DynamicFeeConfig::default();
        let s = GasState {
            capacity: 0,
            excess: 120_000,
        };
        let later = s.advance(&c, 2);
        assert_eq!(later.capacity, 200_000);
        assert_eq!(later.excess, 20_000);
        assert_eq!(s.advance(&c, 100).capacity, c.max_capacity);
        assert_eq!(s.advance(&c, 100).excess, 0);
        assert_eq!(s.advance(&c, u64::MAX).capacity, c.max_capacity);
    }

    #[test]
    fn consume_needs_capacity_and_raises_excess() {
        let s = GasState {
            capacity: 10,
            excess: u64::MAX - 1,
        };
        assert_eq!(
            s.consume(11),
            Err(InsufficientCapacity {
                capacity: 10,
                gas: 11
            })
        );
        assert_eq!(
            s.consume(5),
            Ok(GasState {
                capacity: 5,
                excess: u64::MAX
            })
        );
        assert_eq!(
            InsufficientCapacity {
                capacity: 10,
                gas: 11
            }
            .to_string(),
            "insufficient capacity: capacity (10) < gas (11)"
        );
    }

    #[test]
    fn price_doubles_every_30_seconds_of_full_blocks() {
        let c = DynamicFeeConfig::default();
        assert_eq!(c.price(0), 1);
        // Excess of (max - target) · 30 s ≈ K · ln 2 doubles the min price; with a min price
        // of 1 the integer series rounds down until the excess passes K · ln 2.
        assert_eq!(c.price(50_000 * 30), 1);
        assert_eq!(c.price(2 * c.excess_conversion_constant), 7);
    }

    #[test]
    fn gas_weighs_each_dimension() {
        let w = Dimensions::new(1, 2_000, 20_000, 10);
        assert_eq!(Dimensions::new(399, 1, 3, 200).to_gas(&w), Some(64_399));
        assert_eq!(Dimensions::new(u64::MAX, 1, 0, 0).to_gas(&w), None);
    }
}
