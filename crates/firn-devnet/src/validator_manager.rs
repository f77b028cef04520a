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

const ARTIFACT: &str = include_str!("../../../contracts/artifacts/FirnValidatorManager.json");

/// The manager's runtime code, as `0x` hex.
pub fn manager_code() -> String {
    crate::genesis::runtime_code(ARTIFACT)
}
