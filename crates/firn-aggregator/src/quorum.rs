//! [`Quorum`]: the share of a subnet's weight a signature needs, and the extra share worth
//! collecting on top.

use crate::error::AggregateError;

/// The Data API's default `quorumPercentage` (the EVM's default Warp quorum).
pub const DEFAULT_QUORUM_PERCENTAGE: u64 = 67;

/// A checked quorum: `1 ≤ percentage` and `percentage + buffer ≤ 100`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quorum {
    percentage: u64,
    buffer: u64,
}

impl Default for Quorum {
    fn default() -> Self {
        Self {
            percentage: DEFAULT_QUORUM_PERCENTAGE,
            buffer: 0,
        }
    }
}

impl Quorum {
    /// A quorum of `percentage` % of the weight, collecting up to `buffer` % more when the
    /// validators answer. A zero quorum is refused: it would accept a message nobody signed.
    pub fn new(percentage: u64, buffer: u64) -> Result<Self, AggregateError> {
        if percentage == 0 || percentage > 100 {
            return Err(AggregateError::InvalidQuorum(
                "quorumPercentage must be an integer from 1 to 100",
            ));
        }
        if buffer > 100 {
            return Err(AggregateError::InvalidQuorum(
                "quorumPercentageBuffer must be an integer from 0 to 100",
            ));
        }
        if percentage + buffer > 100 {
            return Err(AggregateError::InvalidQuorum(
                "quorumPercentage + quorumPercentageBuffer must not exceed 100",
            ));
        }
        Ok(Self { percentage, buffer })
    }

    /// The required share, percent.
    pub fn percentage(&self) -> u64 {
        self.percentage
    }

    /// The extra share collected when possible, percent.
    pub fn buffer(&self) -> u64 {
        self.buffer
    }

    /// The least weight of `total` that meets the quorum: `ceil(total · percentage / 100)`,
    /// exactly the inclusive check AvalancheGo's verifier makes.
    pub fn required(&self, total: u64) -> u64 {
        share(total, self.percentage)
    }

    /// The weight collection aims for: the quorum plus the buffer.
    pub fn target(&self, total: u64) -> u64 {
        share(total, self.percentage + self.buffer)
    }
}

fn share(total: u64, percent: u64) -> u64 {
    let needed = u128::from(total) * u128::from(percent);
    // percent ≤ 100, so the result is at most `total`.
    u64::try_from(needed.div_ceil(100)).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use firn_core::warp::validators::verify_weight;

    #[test]
    fn bounds_are_checked() {
        assert!(Quorum::new(0, 0).is_err());
        assert!(Quorum::new(101, 0).is_err());
        assert!(Quorum::new(67, 34).is_err());
        assert!(Quorum::new(1, 101).is_err());
        assert_eq!(Quorum::new(67, 33).unwrap().target(300), 300);
        assert_eq!(Quorum::default().percentage(), 67);
    }

    #[test]
    fn required_weight_matches_the_verifier_exactly() {
        for total in [0u64, 1, 3, 100, 360, 1_000, 12_345_678, u64::MAX] {
            for pct in [1u64, 50, 66, 67, 99, 100] {
                let q = Quorum::new(pct, 0).unwrap();
                let r = q.required(total);
                assert!(verify_weight(r, total, pct, 100).is_ok(), "{total} {pct}");
                if r > 0 {
                    assert!(
                        verify_weight(r - 1, total, pct, 100).is_err(),
                        "{total} {pct}"
                    );
                }
            }
        }
    }
}
