//! The AVAX supply (`AvaxSupplyResponse`), from the followed node's current supply and what
//! the index holds of burns, rewards, stakes and locks.
//!
//! AvalancheGo's current supply (`platform.getCurrentSupply`) is what genesis created plus
//! every staking reward minted (a staker's potential reward joins the supply when it starts
//! and leaves it again if the reward is withheld); burned fees are not deducted. So:
//! - `totalRewards`: rewards paid plus those minted and not paid yet (the potential rewards
//!   of the stakers not yet rewarded, and the delegation fees their validators accrued);
//! - `genesisUnlock`: what genesis created (the current supply less `totalRewards`) less the
//!   genesis outputs still locked;
//! - `totalSupply`: the current supply less what the P-Chain (transactions and L1 validator
//!   fees), the C-Chain (every EVM fee: coreth pays them to a burn address) and the X-Chain
//!   burned;
//! - `circulatingSupply`: `genesisUnlock + totalRewards` less the burns, i.e. `totalSupply`
//!   less the genesis outputs still locked.
//!
//! Amounts are exact decimal AVAX (18 decimals where the C-Chain's wei count in), without
//! trailing zeros.

use serde::Serialize;
use utoipa::ToSchema;

/// nAVAX per AVAX on the P-Chain and X-Chain.
const NANO: u128 = 1_000_000_000;
/// Wei per nAVAX.
const WEI_PER_NANO: u128 = 1_000_000_000;

/// What the supply is computed from. P-Chain amounts are nAVAX, `c_burned` wei.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SupplyParts {
    /// The node's current supply.
    pub current_supply: u128,
    /// Burned by P-Chain transactions.
    pub p_burned: u128,
    /// Paid by L1 validators' continuous fees (burned on the P-Chain).
    pub l1_fees: u128,
    /// Burned on the C-Chain, wei.
    pub c_burned_wei: u128,
    /// Burned on the X-Chain.
    pub x_burned: u128,
    /// Staked by the active validators and delegators.
    pub staked: u128,
    /// Held locked by unspent UTXOs, stakes left out.
    pub locked: u128,
    /// Staking rewards paid.
    pub rewards_paid: u128,
    /// Minted into the supply, not paid yet: potential rewards of the stakers not yet
    /// rewarded, and the delegation fees their validators accrued.
    pub rewards_pending: u128,
    /// The genesis outputs still locked.
    pub genesis_locked: u128,
}

/// `AvaxSupplyResponse`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AvaxSupplyResponse {
    /// `totalSupply` less the genesis outputs still locked.
    pub circulating_supply: String,
    /// The current supply less everything burned.
    pub total_supply: String,
    /// Burned on the P-Chain, L1 validator fees included.
    #[serde(rename = "totalPBurned")]
    pub total_p_burned: String,
    /// Burned on the C-Chain.
    #[serde(rename = "totalCBurned")]
    pub total_c_burned: String,
    /// Burned on the X-Chain.
    #[serde(rename = "totalXBurned")]
    pub total_x_burned: String,
    /// Staked by the active validators and delegators.
    pub total_staked: String,
    /// Held locked by unspent UTXOs (stakes left out).
    pub total_locked: String,
    /// Staking rewards paid and still to pay.
    pub total_rewards: String,
    /// The time of the last indexed P-Chain block (RFC 3339).
    #[schema(format = DateTime)]
    pub last_updated: String,
    /// What genesis created less its outputs still locked.
    pub genesis_unlock: String,
    /// Paid by L1 validators' continuous fees.
    pub l1_validator_fees: String,
}

impl AvaxSupplyResponse {
    /// The supply of `parts`, updated at `last_updated` (RFC 3339).
    pub fn new(parts: &SupplyParts, last_updated: String) -> Self {
        let p = parts;
        let rewards = p.rewards_paid.saturating_add(p.rewards_pending);
        let genesis = p.current_supply.saturating_sub(rewards);
        let p_burned = p.p_burned.saturating_add(p.l1_fees);
        let burned_wei = wei(p_burned)
            .saturating_add(p.c_burned_wei)
            .saturating_add(wei(p.x_burned));
        let total_wei = wei(p.current_supply).saturating_sub(burned_wei);
        Self {
            circulating_supply: avax_wei(total_wei.saturating_sub(wei(p.genesis_locked))),
            total_supply: avax_wei(total_wei),
            total_p_burned: avax(p_burned),
            total_c_burned: avax_wei(p.c_burned_wei),
            total_x_burned: avax(p.x_burned),
            total_staked: avax(p.staked),
            total_locked: avax(p.locked),
            total_rewards: avax(rewards),
            last_updated,
            genesis_unlock: avax(genesis.saturating_sub(p.genesis_locked)),
            l1_validator_fees: avax(p.l1_fees),
        }
    }
}

fn wei(nano: u128) -> u128 {
    nano.saturating_mul(WEI_PER_NANO)
}

/// Decimal AVAX of nAVAX.
fn avax(nano: u128) -> String {
    decimal(nano, NANO, 9)
}

/// Decimal AVAX of wei.
fn avax_wei(amount: u128) -> String {
    decimal(amount, NANO * WEI_PER_NANO, 18)
}

/// `amount / unit` (`unit` = 10^`digits`) as exact decimal text without trailing zeros.
fn decimal(amount: u128, unit: u128, digits: usize) -> String {
    let (whole, frac) = (amount / unit, amount % unit);
    if frac == 0 {
        return whole.to_string();
    }
    let frac = format!("{frac:0digits$}");
    format!("{whole}.{}", frac.trim_end_matches('0'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_are_exact_and_trimmed() {
        assert_eq!(avax(0), "0");
        assert_eq!(avax(360_000_000 * NANO), "360000000");
        assert_eq!(avax(1), "0.000000001");
        assert_eq!(avax(1_500_000_000), "1.5");
        assert_eq!(avax_wei(1), "0.000000000000000001");
        assert_eq!(
            avax_wei(4_868_917_656_222_642_629_429_578_983),
            "4868917656.222642629429578983"
        );
    }

    #[test]
    fn supply_splits_as_the_node_counts_it() {
        let parts = SupplyParts {
            current_supply: 1_000 * NANO,
            p_burned: 3 * NANO,
            l1_fees: 2 * NANO,
            c_burned_wei: NANO * WEI_PER_NANO / 2,
            x_burned: 0,
            staked: 400 * NANO,
            locked: 50 * NANO,
            rewards_paid: 30 * NANO,
            rewards_pending: 70 * NANO,
            genesis_locked: 20 * NANO,
        };
        let r = AvaxSupplyResponse::new(&parts, "2025-01-01T00:00:00Z".into());
        assert_eq!(r.total_rewards, "100");
        // Genesis made 900, 20 of it still locked.
        assert_eq!(r.genesis_unlock, "880");
        assert_eq!(r.total_p_burned, "5");
        assert_eq!(r.total_c_burned, "0.5");
        assert_eq!(r.total_supply, "994.5");
        assert_eq!(r.circulating_supply, "974.5");
        assert_eq!(r.l1_validator_fees, "2");
        assert_eq!(r.total_staked, "400");
        assert_eq!(r.total_locked, "50");
    }

    #[test]
    fn nothing_overflows_or_goes_negative() {
        let parts = SupplyParts {
            current_supply: u128::MAX,
            p_burned: u128::MAX,
            c_burned_wei: u128::MAX,
            rewards_paid: u128::MAX,
            rewards_pending: u128::MAX,
            genesis_locked: u128::MAX,
            ..SupplyParts::default()
        };
        let r = AvaxSupplyResponse::new(&parts, String::new());
        assert_eq!(r.total_supply, "0");
        assert_eq!(r.circulating_supply, "0");
        assert_eq!(r.genesis_unlock, "0");
    }
}
