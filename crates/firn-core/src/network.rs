//! Well-known network facts, defined once: network IDs and their names and HRPs, the primary
//! network's chain and asset IDs on mainnet, Fuji and AvalancheGo's local network, the VM IDs
//! firn recognises, and AVAX's denomination.
//!
//! ```
//! use firn_core::network::{self, FUJI};
//!
//! assert_eq!(FUJI.network_id, network::FUJI_ID);
//! assert_eq!(FUJI.c_chain_id.to_string(), "yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp");
//! assert_eq!(network::hrp_for_network(FUJI.network_id), "fuji");
//! assert_eq!(network::SUBNET_EVM_VM_ID.to_string(), "srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy");
//! ```

use crate::ids::Id;

/// Mainnet's network ID.
pub const MAINNET_ID: u32 = 1;
/// Fuji's network ID.
pub const FUJI_ID: u32 = 5;
/// The unit-test network ID AvalancheGo's own tests use.
pub const UNIT_TEST_ID: u32 = 10;
/// AvalancheGo's local network ID.
pub const LOCAL_ID: u32 = 12345;

/// nAVAX in one AVAX (AVAX has 9 decimals on the P- and X-Chains, 18 on the C-Chain).
pub const AVAX: u64 = 1_000_000_000;
/// nAVAX in one milliAVAX.
pub const MILLI_AVAX: u64 = 1_000_000;

/// The P-Chain's blockchain ID, the same on every network (all zeros).
pub const P_CHAIN_ID: Id = Id::ZERO;
/// The primary network's subnet ID (all zeros, as the P-Chain's ID).
pub const PRIMARY_NETWORK_ID: Id = Id::ZERO;

/// subnet-EVM's VM ID (`srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy`): `"subnetevm"`
/// padded to 32 bytes, as AvalancheGo names VMs.
pub const SUBNET_EVM_VM_ID: Id = Id::from_padded_str("subnetevm");
/// coreth's VM ID (`evm`, zero-padded): the C-Chain, and L1s running coreth.
pub const CORETH_VM_ID: Id = Id::from_padded_str("evm");
/// The AVM's VM ID (`avm`, zero-padded): the X-Chain.
pub const AVM_VM_ID: Id = Id::from_padded_str("avm");
/// The platform VM's ID (`platformvm`, zero-padded): the P-Chain.
pub const PLATFORM_VM_ID: Id = Id::from_padded_str("platformvm");

/// The primary network of a well-known network: its identity and chain IDs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PrimaryNetwork {
    /// The network ID.
    pub network_id: u32,
    /// The bech32 HRP of its addresses.
    pub hrp: &'static str,
    /// The X-Chain's blockchain ID.
    pub x_chain_id: Id,
    /// The C-Chain's blockchain ID.
    pub c_chain_id: Id,
    /// The C-Chain's EVM chain ID.
    pub evm_chain_id: u64,
    /// The AVAX asset ID.
    pub avax_asset_id: Id,
}

/// Mainnet.
pub const MAINNET: PrimaryNetwork = PrimaryNetwork {
    network_id: MAINNET_ID,
    hrp: "avax",
    x_chain_id: hex_id("ed5f38341e436e5d46e2bb00b45d62ae97d1b050c64bc634ae10626739e35c4b"),
    c_chain_id: hex_id("0427d4b22a2a78bcddd456742caf91b56badbff985ee19aef14573e7343fd652"),
    evm_chain_id: 43114,
    avax_asset_id: hex_id("21e67317cbc4be2aeb00677ad6462778a8f52274b9d605df2591b23027a87dff"),
};

/// Fuji, the public test network.
pub const FUJI: PrimaryNetwork = PrimaryNetwork {
    network_id: FUJI_ID,
    hrp: "fuji",
    x_chain_id: hex_id("ab68eb1ee142a05cfe768c36e11f0b596db5a3c6c77aabe665dad9e638ca94f7"),
    c_chain_id: hex_id("7fc93d85c6d62c5b2ac0b519c87010ea5294012d1e407030d6acd0021cac10d5"),
    evm_chain_id: 43113,
    avax_asset_id: hex_id("3d9bdac0ed1d761330cf680efdeb1a42159eb387d6d2950c96f7d28f61bbe2aa"),
};

/// AvalancheGo's local network (`genesis_local.json`; see `reference/data-api-facts.md`).
pub const LOCAL: PrimaryNetwork = PrimaryNetwork {
    network_id: LOCAL_ID,
    hrp: "local",
    x_chain_id: hex_id("d891ad56056d9c01f18f43f58b5c784ad07a4a49cf3d1f11623804b5cba2c6bf"),
    c_chain_id: hex_id("9d0775f450604bd2fbc49ce0c5c1c6dfeb2dc2acb8c92c26eeae6e6df4502b19"),
    evm_chain_id: 43112,
    avax_asset_id: hex_id("dbcf890f77f49b96857648b72b77f9f82937f28a68704af05da0dc12ba53f2db"),
};

impl PrimaryNetwork {
    /// Every well-known primary network.
    pub const ALL: [PrimaryNetwork; 3] = [MAINNET, FUJI, LOCAL];

    /// The well-known primary network with ID `network_id` (Mainnet, Fuji, or the local
    /// network firn's and AvalancheGo's devnets use); `None` for any other.
    pub fn by_id(network_id: u32) -> Option<PrimaryNetwork> {
        Self::ALL.into_iter().find(|n| n.network_id == network_id)
    }
}

/// The bech32 HRP AvalancheGo gives a network ID (`custom` for any it does not know).
pub fn hrp_for_network(network_id: u32) -> &'static str {
    match network_id {
        MAINNET_ID => "avax",
        2 => "cascade",
        3 => "denali",
        4 => "everest",
        FUJI_ID => "fuji",
        UNIT_TEST_ID => "testing",
        LOCAL_ID => "local",
        _ => "custom",
    }
}

/// The network name `info.getNetworkName` gives a network ID.
pub fn network_name(network_id: u32) -> String {
    match network_id {
        MAINNET_ID => "mainnet".into(),
        2 => "cascade".into(),
        3 => "denali".into(),
        4 => "everest".into(),
        FUJI_ID => "fuji".into(),
        UNIT_TEST_ID => "testing".into(),
        LOCAL_ID => "local".into(),
        other => format!("network-{other}"),
    }
}

/// An ID from 64 lower-case hex digits, at compile time (the constants above).
const fn hex_id(hex: &str) -> Id {
    const fn nibble(c: u8) -> u8 {
        match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            _ => panic!("not a lower-case hex digit"),
        }
    }
    let bytes = hex.as_bytes();
    assert!(bytes.len() == 64, "an ID is 64 hex digits");
    let mut out = [0u8; 32];
    let mut i = 0;
    while i < 32 {
        out[i] = (nibble(bytes[2 * i]) << 4) | nibble(bytes[2 * i + 1]);
        i += 1;
    }
    Id(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn well_known_ids_print_as_their_cb58() {
        let cases = [
            (
                MAINNET.x_chain_id,
                "2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM",
            ),
            (
                MAINNET.c_chain_id,
                "2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5",
            ),
            (
                MAINNET.avax_asset_id,
                "FvwEAhmxKfeiG8SnEvq42hc6whRyY3EFYAvebMqDNDGCgxN5Z",
            ),
            (
                FUJI.x_chain_id,
                "2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm",
            ),
            (
                FUJI.c_chain_id,
                "yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp",
            ),
            (
                FUJI.avax_asset_id,
                "U8iRqJoiJm8xZHAacmvYyZVwqQx6uDNtQeP3CQ6fcgQk3JqnK",
            ),
            (
                LOCAL.x_chain_id,
                "2eNy1mUFdmaxXNj1eQHUe7Np4gju9sJsEtWQ4MX3ToiNKuADed",
            ),
            (
                LOCAL.c_chain_id,
                "2CA6j5zYzasynPsFeNoqWkmTCt3VScMvXUZHbfDJ8k3oGzAPtU",
            ),
            (
                LOCAL.avax_asset_id,
                "2fombhL7aGPwj3KH4bfrmJwW6PVnMobf9Y2fn9GwxiAAJyFDbe",
            ),
            (
                SUBNET_EVM_VM_ID,
                "srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy",
            ),
            (P_CHAIN_ID, "11111111111111111111111111111111LpoYY"),
        ];
        for (id, text) in cases {
            assert_eq!(id.to_string(), text);
        }
    }

    #[test]
    fn hrps_follow_avalanchego() {
        for n in PrimaryNetwork::ALL {
            assert_eq!(hrp_for_network(n.network_id), n.hrp);
            assert_eq!(PrimaryNetwork::by_id(n.network_id), Some(n));
        }
        assert_eq!(PrimaryNetwork::by_id(77), None);
        assert_eq!(hrp_for_network(77), "custom");
        assert_eq!(network_name(77), "network-77");
    }
}
