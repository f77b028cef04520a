//! ICM's Teleporter on the devnet's EVM chains: firn's own messenger
//! (`contracts/src/FirnTeleporterMessenger.sol`, with Teleporter v1's ABI, events, message IDs,
//! receipts, fees and retries) placed at Teleporter's address in each L1's genesis, as Nick's
//! method places ICM's on public chains.

/// TeleporterMessenger v1's address on every chain of every network, as bytes.
pub const TELEPORTER_MESSENGER: [u8; 20] = firn_core::teleporter::MESSENGER_V1.0.0;

const ARTIFACT: &str = include_str!("../../../contracts/artifacts/FirnTeleporterMessenger.json");

/// The messenger's runtime code, as `0x` hex.
pub fn messenger_code() -> String {
    crate::genesis::runtime_code(ARTIFACT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_artifact_holds_runtime_code() {
        let code = messenger_code();
        assert!(
            code.starts_with("0x6080"),
            "{}",
            &code[..code.len().min(10)]
        );
        assert!(code.len() > 2_000);
    }
}
