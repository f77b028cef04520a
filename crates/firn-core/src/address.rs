//! Chain-prefixed bech32 addresses (`P-fuji1…`) and the HRP of each network ID.
//!
//! An address is `<chain alias>-<bech32(hrp, short id)>`, classic BIP-173 bech32 (not
//! bech32m). The short ID is `ripemd160(sha256(compressed secp256k1 public key))`.

use crate::encoding::EncodingError;
use crate::ids::ShortId;
use crate::network::hrp_for_network;
use bech32::primitives::decode::CheckedHrpstring;
use bech32::{Bech32, Hrp};
use std::fmt;
use std::str::FromStr;

/// bech32 of a short ID with the given HRP, no chain prefix.
pub fn bech32_encode(hrp: &str, id: &ShortId) -> Result<String, EncodingError> {
    let hrp = Hrp::parse(hrp).map_err(|e| EncodingError::Bech32(hrp.to_string(), e.to_string()))?;
    bech32::encode::<Bech32>(hrp, id.as_bytes())
        .map_err(|e| EncodingError::Bech32(hrp.to_string(), e.to_string()))
}

/// Parses a bech32 string (no chain prefix) into its HRP and short ID.
pub fn bech32_decode(s: &str) -> Result<(String, ShortId), EncodingError> {
    let checked = CheckedHrpstring::new::<Bech32>(s)
        .map_err(|e| EncodingError::Bech32(s.to_string(), e.to_string()))?;
    let hrp = checked.hrp().to_lowercase();
    let bytes: Vec<u8> = checked.byte_iter().collect();
    Ok((hrp, ShortId::from_slice(&bytes)?))
}

/// An address with its chain alias and HRP, e.g. `P-fuji18jma8ppw3nhx5r4ap8clazz0dps7rv5u6wmu4t`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ChainAddress {
    /// `P`, `X` or `C`, or a chain ID string.
    pub chain: String,
    /// The bech32 human-readable part.
    pub hrp: String,
    /// The 20 address bytes.
    pub id: ShortId,
}

impl ChainAddress {
    /// An address on `chain` of the network `network_id`.
    pub fn new(chain: &str, network_id: u32, id: ShortId) -> Self {
        Self {
            chain: chain.to_string(),
            hrp: hrp_for_network(network_id).to_string(),
            id,
        }
    }

    /// The same address without the chain prefix (`fuji1…`).
    pub fn bech32(&self) -> String {
        // HRPs only ever come from `hrp_for_network` or a parsed string, so they are valid.
        bech32_encode(&self.hrp, &self.id).unwrap_or_default()
    }
}

impl fmt::Display for ChainAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.chain, self.bech32())
    }
}

impl FromStr for ChainAddress {
    type Err = EncodingError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (chain, rest) = s.split_once('-').ok_or(EncodingError::Address(
            s.to_string(),
            "expected <chain>-<bech32>, e.g. P-fuji1…",
        ))?;
        if chain.is_empty() {
            return Err(EncodingError::Address(s.to_string(), "missing chain alias"));
        }
        let (hrp, id) = bech32_decode(rest)?;
        Ok(Self {
            chain: chain.to_string(),
            hrp,
            id,
        })
    }
}

/// Formats a short ID as `<chain>-<bech32>` for a network.
pub fn format_address(chain: &str, network_id: u32, id: &ShortId) -> String {
    ChainAddress::new(chain, network_id, *id).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::{FUJI_ID, UNIT_TEST_ID, network_name};

    #[test]
    fn formats_and_parses_the_unit_test_vector() {
        let id =
            ShortId::from_slice(&hex::decode("445566778899aabb445566778899aabb44556677").unwrap())
                .unwrap();
        let s = format_address("P", UNIT_TEST_ID, &id);
        assert_eq!(s, "P-testing1g32kvaugnx4tk3z4vemc3xd2hdz92enhgrdu9n");
        let parsed: ChainAddress = s.parse().unwrap();
        assert_eq!(parsed, ChainAddress::new("P", 10, id));
    }

    #[test]
    fn rejects_bech32m_bad_checksums_and_missing_prefix() {
        let id = ShortId([0x11; 20]);
        let hrp = Hrp::parse("fuji").unwrap();
        let m = bech32::encode::<bech32::Bech32m>(hrp, id.as_bytes()).unwrap();
        assert!(format!("P-{m}").parse::<ChainAddress>().is_err());
        assert!("fuji1qqqq".parse::<ChainAddress>().is_err());
        let mut good = format_address("X", FUJI_ID, &id);
        good.pop();
        good.push('q');
        assert!(good.parse::<ChainAddress>().is_err());
    }

    #[test]
    fn unknown_networks_use_custom() {
        assert_eq!(hrp_for_network(99999), "custom");
        assert_eq!(hrp_for_network(5), "fuji");
        assert_eq!(network_name(12345), "local");
    }
}
