//! subnet-EVM's dynamic fees: the `feeConfig`, the 10-second gas window kept in the header's
//! extra data, the base fee computed from it, and the block gas cost.
//!
//! Rules read from subnet-evm `commontype/fee_config.go`, `plugin/evm/customheader/
//! dynamic_fee_windower.go`, `plugin/evm/upgrade/subnetevm/window.go` and
//! `plugin/evm/blockgascost/cost.go`.

use serde::{Deserialize, Serialize};

/// Seconds the fee window covers; one `u64` of gas per second.
pub const WINDOW_LEN: usize = 10;
/// Bytes of the window at the start of a header's extra data.
pub const WINDOW_SIZE: usize = 8 * WINDOW_LEN;

/// A chain's fee configuration (`config.feeConfig` in a subnet-EVM genesis). Numbers are
/// plain JSON numbers, as subnet-evm marshals its `*big.Int`s.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FeeConfig {
    /// Block gas limit.
    pub gas_limit: u64,
    /// Target seconds between blocks (block gas cost).
    pub target_block_rate: u64,
    /// Lowest base fee, in wei.
    pub min_base_fee: u64,
    /// Gas per 10-second window the base fee aims for.
    pub target_gas: u64,
    /// How fast the base fee moves (bigger is slower).
    pub base_fee_change_denominator: u64,
    /// Lower bound of the block gas cost.
    pub min_block_gas_cost: u64,
    /// Upper bound of the block gas cost.
    pub max_block_gas_cost: u64,
    /// Block gas cost change per second away from the target rate.
    pub block_gas_cost_step: u64,
}

impl Default for FeeConfig {
    /// subnet-evm's `DefaultFeeConfig`.
    fn default() -> Self {
        Self {
            gas_limit: 8_000_000,
            target_block_rate: 2,
            min_base_fee: 25_000_000_000,
            target_gas: 15_000_000,
            base_fee_change_denominator: 36,
            min_block_gas_cost: 0,
            max_block_gas_cost: 1_000_000,
            block_gas_cost_step: 200_000,
        }
    }
}

impl FeeConfig {
    /// The C-Chain's figures: a 15M gas limit and target, 25 gwei floor (coreth before ACP-176).
    pub fn c_chain() -> Self {
        Self {
            gas_limit: 15_000_000,
            ..Self::default()
        }
    }

    /// subnet-evm's `FeeConfig.Verify`, with its error texts.
    pub fn verify(&self) -> Result<(), String> {
        if self.gas_limit == 0 {
            return Err(format!(
                "gasLimit cannot be less than or equal to 0: gasLimit = {}",
                self.gas_limit
            ));
        }
        if self.target_block_rate == 0 {
            return Err(format!(
                "targetBlockRate cannot be less than or equal to 0: targetBlockRate = {}",
                self.target_block_rate
            ));
        }
        if self.target_gas == 0 {
            return Err(format!(
                "targetGas cannot be less than or equal to 0: targetGas = {}",
                self.target_gas
            ));
        }
        if self.base_fee_change_denominator == 0 {
            return Err(format!(
                "baseFeeChangeDenominator cannot be less than or equal to 0: baseFeeChangeDenominator = {}",
                self.base_fee_change_denominator
            ));
        }
        if self.min_block_gas_cost > self.max_block_gas_cost {
            return Err(format!(
                "minBlockGasCost cannot be greater than maxBlockGasCost: minBlockGasCost = {}, maxBlockGasCost = {}",
                self.min_block_gas_cost, self.max_block_gas_cost
            ));
        }
        Ok(())
    }
}

/// Gas used per second over the last [`WINDOW_LEN`] seconds, oldest first.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FeeWindow(pub [u64; WINDOW_LEN]);

impl FeeWindow {
    /// Reads the window from the start of a header's extra data.
    pub fn parse(extra: &[u8]) -> Option<Self> {
        if extra.len() < WINDOW_SIZE {
            return None;
        }
        let mut w = [0u64; WINDOW_LEN];
        for (i, slot) in w.iter_mut().enumerate() {
            let mut b = [0u8; 8];
            b.copy_from_slice(&extra[i * 8..i * 8 + 8]);
            *slot = u64::from_be_bytes(b);
        }
        Some(Self(w))
    }

    /// The 80 bytes that go in the header.
    pub fn to_bytes(self) -> Vec<u8> {
        self.0.iter().flat_map(|v| v.to_be_bytes()).collect()
    }

    fn add(&mut self, gas: u64) {
        let last = &mut self.0[WINDOW_LEN - 1];
        *last = last.saturating_add(gas);
    }

    fn shift(&mut self, seconds: u64) {
        if seconds >= WINDOW_LEN as u64 {
            *self = Self::default();
            return;
        }
        let n = seconds as usize;
        let mut next = [0u64; WINDOW_LEN];
        next[..WINDOW_LEN - n].copy_from_slice(&self.0[n..]);
        self.0 = next;
    }

    fn sum(&self) -> u64 {
        self.0.iter().fold(0u64, |a, v| a.saturating_add(*v))
    }
}

/// What the fee rules need of the parent block.
#[derive(Debug, Clone, Copy)]
pub struct ParentFees<'a> {
    /// Parent height.
    pub number: u64,
    /// Parent timestamp, seconds.
    pub time: u64,
    /// Parent gas used.
    pub gas_used: u64,
    /// Parent base fee.
    pub base_fee: u64,
    /// Parent block gas cost (`None` before it existed).
    pub block_gas_cost: Option<u64>,
    /// Parent extra data (starts with the window after genesis).
    pub extra: &'a [u8],
}

/// The window the child at `timestamp` records: the parent's, plus its gas, shifted.
pub fn next_window(parent: &ParentFees<'_>, timestamp: u64) -> FeeWindow {
    if parent.number == 0 {
        return FeeWindow::default();
    }
    let mut w = FeeWindow::parse(parent.extra).unwrap_or_default();
    w.add(parent.gas_used);
    w.shift(timestamp.saturating_sub(parent.time));
    w
}

/// The base fee of the child of `parent` at `timestamp` (`baseFeeFromWindow`).
pub fn base_fee(config: &FeeConfig, parent: &ParentFees<'_>, timestamp: u64) -> u64 {
    if parent.number == 0 {
        return config.min_base_fee;
    }
    let total = next_window(parent, timestamp).sum();
    let target = config.target_gas;
    let base = parent.base_fee as u128;
    let fee = if total == target {
        base
    } else {
        let diff = total.abs_diff(target) as u128;
        let mut delta =
            (diff * base / target as u128 / config.base_fee_change_denominator as u128).max(1);
        if total > target {
            base.saturating_add(delta)
        } else {
            let windows = timestamp.saturating_sub(parent.time) / WINDOW_LEN as u64;
            if windows > 1 {
                delta = delta.saturating_mul(windows as u128);
            }
            base.saturating_sub(delta)
        }
    };
    u64::try_from(fee)
        .unwrap_or(u64::MAX)
        .max(config.min_base_fee)
}

/// The block gas cost of the child at `timestamp` (`BlockGasCostWithStep`).
pub fn block_gas_cost(config: &FeeConfig, parent: &ParentFees<'_>, timestamp: u64) -> u64 {
    let Some(parent_cost) = parent.block_gas_cost else {
        return config.min_block_gas_cost;
    };
    let elapsed = timestamp.saturating_sub(parent.time);
    let change = config
        .block_gas_cost_step
        .saturating_mul(config.target_block_rate.abs_diff(elapsed));
    let cost = if elapsed > config.target_block_rate {
        parent_cost
            .checked_sub(change)
            .unwrap_or(config.min_block_gas_cost)
    } else {
        parent_cost
            .checked_add(change)
            .unwrap_or(config.max_block_gas_cost)
    };
    cost.clamp(config.min_block_gas_cost, config.max_block_gas_cost)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parent(extra: &[u8], gas_used: u64, base_fee: u64) -> ParentFees<'_> {
        ParentFees {
            number: 5,
            time: 100,
            gas_used,
            base_fee,
            block_gas_cost: Some(0),
            extra,
        }
    }

    #[test]
    fn window_roundtrip_and_shift() {
        let mut w = FeeWindow([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
        assert_eq!(FeeWindow::parse(&w.to_bytes()), Some(w));
        w.shift(3);
        assert_eq!(w.0, [4, 5, 6, 7, 8, 9, 10, 0, 0, 0]);
        w.shift(10);
        assert_eq!(w, FeeWindow::default());
    }

    #[test]
    fn base_fee_rises_above_target_and_falls_to_the_floor() {
        let c = FeeConfig::default();
        let extra = FeeWindow::default().to_bytes();
        // 30M gas in the window, twice the 15M target: +1/36 of the base fee.
        let up = base_fee(&c, &parent(&extra, 30_000_000, 36_000_000_000), 100);
        assert_eq!(up, 37_000_000_000);
        // Nothing used: falls, but never below the minimum.
        let down = base_fee(&c, &parent(&extra, 0, 25_000_000_001), 105);
        assert_eq!(down, c.min_base_fee);
    }

    #[test]
    fn block_gas_cost_steps_toward_the_target_rate() {
        let c = FeeConfig::default();
        let p = ParentFees {
            block_gas_cost: Some(400_000),
            ..parent(&[], 0, 1)
        };
        assert_eq!(block_gas_cost(&c, &p, 100), 800_000);
        assert_eq!(block_gas_cost(&c, &p, 103), 200_000);
        assert_eq!(block_gas_cost(&c, &p, 200), 0);
    }
}
