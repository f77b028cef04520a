//! The arithmetic of the P-Chain: the staking reward calculator, the delegation-fee split and
//! the ACP-77 continuous fee of L1 validators, exactly as AvalancheGo computes them
//! (`vms/platformvm/reward`, `vms/platformvm/validators/fee`, `vms/components/gas`).
//!
//! Both are firn-core's ([`firn_core::pchain::reward`], [`firn_core::pchain::validator_fee`]),
//! re-exported here: the indexer replays the same fee the devnet charges.

/// The reward calculator and the delegation-fee split, defined once in firn-core.
pub use firn_core::pchain::reward::{PERCENT_DENOMINATOR, RewardConfig, reward, split};

/// The gas price and the L1 validator fee, defined once in firn-core.
pub use firn_core::pchain::validator_fee::{FeeState, L1FeeConfig, gas_price};
