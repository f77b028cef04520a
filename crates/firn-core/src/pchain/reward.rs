//! How a delegator's reward is shared with its validator (AvalancheGo's `reward.Split`), and
//! the reverse: the total a delegator's net reward came from.

/// Shares are parts per million (`shares = 20_000` is a 2 % delegation fee).
pub const PERCENT_DENOMINATOR: u64 = 1_000_000;

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

#[cfg(test)]
mod tests {
    use super::*;

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
}
