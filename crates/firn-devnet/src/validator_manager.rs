//! The devnet L1's validator manager: firn's ACP-99 contract
//! (`contracts/src/FirnValidatorManager.sol`, with the ABI and events of ICM's proof-of-authority
//! `ValidatorManager`), placed in the L1's genesis at the address its conversion names, owned
//! by the L1's owner key. Registrations, weight changes and removals go through it: it sends
//! the P-Chain's messages with `sendWarpMessage` and takes the P-Chain's answers as Warp
//! predicates.

/// Where the L1's genesis places the manager (avalanche-cli's genesis files put a
/// `ValidatorManager` proxy at the same address).
pub const VALIDATOR_MANAGER: [u8; 20] = [
    0x0f, 0xee, 0xdc, 0x0d, 0xe0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
];

/// The storage slot of the manager's `owner`.
pub const OWNER_SLOT: u64 = 0;

/// The storage slot of the manager's churn settings: the period in seconds (low 8 bytes) and
/// the percentage (the next byte).
pub const CHURN_SETTINGS_SLOT: u64 = 6;

/// How long a churn period lasts.
pub const CHURN_PERIOD_SECONDS: u64 = 3_600;

/// The share of the total weight that may change within a churn period, percent (ICM's
/// highest allowed).
pub const MAXIMUM_CHURN_PERCENTAGE: u8 = 20;

/// The word in [`CHURN_SETTINGS_SLOT`] for `period` seconds and `percentage`.
pub fn churn_settings_word(period: u64, percentage: u8) -> [u8; 32] {
    let mut word = [0u8; 32];
    word[23] = percentage;
    word[24..].copy_from_slice(&period.to_be_bytes());
    word
}

const ARTIFACT: &str = include_str!("../../../contracts/artifacts/FirnValidatorManager.json");

/// The manager's runtime code, as `0x` hex.
pub fn manager_code() -> String {
    crate::genesis::runtime_code(ARTIFACT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn churn_settings_pack_as_solidity_packs_a_uint64_then_a_uint8() {
        let word = churn_settings_word(3_600, 20);
        assert_eq!(
            hex::encode(word),
            format!("{}14{:016x}", "0".repeat(46), 3_600)
        );
    }
}
