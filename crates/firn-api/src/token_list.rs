//! Token logos from a token list the operator supplies, in the Uniswap token-list format the
//! Avalanche ecosystem publishes its lists in (`{"tokens": [{"chainId": 43114, "address":
//! "0x…", "logoURI": "https://…"}, …]}`). The chain says nothing about logos, so
//! `logoUri` on tokens and on senders and recipients that are tokens comes from here or is
//! left out.
//!
//! A list is anyone's file: entries whose address is not an EVM address, whose chain ID is
//! not a number or whose URI is longer than [`MAX_URI_CHARS`] or not `https`, `http`,
//! `ipfs` or `data` are skipped, and at most [`MAX_TOKENS`] are kept.

use std::collections::HashMap;

use firn_store::types::Address;
use serde::Deserialize;

/// Longest logo URI kept.
pub const MAX_URI_CHARS: usize = 2_048;
/// Tokens one list holds at most.
pub const MAX_TOKENS: usize = 100_000;

/// Logo URIs by chain and token contract.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TokenLogos(HashMap<(u64, Address), String>);

#[derive(Deserialize)]
struct List {
    tokens: Vec<Entry>,
}

/// One token of the list, each field whatever the file holds: a bad entry is skipped, not
/// the list.
#[derive(Deserialize)]
struct Entry {
    #[serde(rename = "chainId", default)]
    chain_id: serde_json::Value,
    #[serde(default)]
    address: serde_json::Value,
    #[serde(rename = "logoURI", default)]
    logo_uri: serde_json::Value,
}

impl TokenLogos {
    /// Parses a token list's JSON text; an error says what is wrong with the document.
    /// Unusable entries are skipped (see the module doc), and the number kept is
    /// [`TokenLogos::len`].
    pub fn from_token_list(json: &str) -> Result<Self, serde_json::Error> {
        let list: List = serde_json::from_str(json)?;
        let mut logos = HashMap::new();
        for entry in list.tokens {
            if logos.len() >= MAX_TOKENS {
                break;
            }
            let Some(chain_id) = entry.chain_id.as_u64() else {
                continue;
            };
            let address = entry.address.as_str();
            let Some(address) = address.and_then(crate::params::parse_evm_address) else {
                continue;
            };
            let Some(uri) = entry.logo_uri.as_str().filter(|u| usable(u)) else {
                continue;
            };
            logos.insert((chain_id, address), uri.to_owned());
        }
        Ok(Self(logos))
    }

    /// The logo of `token` on chain `chain_id`, if the list has one.
    pub fn logo(&self, chain_id: u64, token: &Address) -> Option<String> {
        self.0.get(&(chain_id, *token)).cloned()
    }

    /// Logos held.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the list gave no usable logo.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

fn usable(uri: &str) -> bool {
    const SCHEMES: [&str; 4] = ["https://", "http://", "ipfs://", "data:image/"];
    uri.len() <= MAX_URI_CHARS
        && SCHEMES.iter().any(|s| uri.starts_with(s))
        && !uri.chars().any(char::is_control)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_usable_logos_only() {
        let list = r#"{"name": "x", "tokens": [
            {"chainId": 43114, "address": "0xB97EF9Ef8734C71904D8002F8b6Bc66Dd9c48a6E", "logoURI": "https://example.org/usdc.png", "symbol": "USDC", "decimals": 6},
            {"chainId": 43113, "address": "0xb97ef9ef8734c71904d8002f8b6bc66dd9c48a6e", "logoURI": "ipfs://Qm"},
            {"chainId": 43114, "address": "0x1111111111111111111111111111111111111111", "logoURI": "javascript:alert(1)"},
            {"chainId": "43114", "address": "0x2222222222222222222222222222222222222222", "logoURI": "https://a"},
            {"chainId": 43114, "address": "not an address", "logoURI": "https://a"},
            {"chainId": 43114, "address": "0x3333333333333333333333333333333333333333"},
            {"chainId": 43114, "address": 5, "logoURI": ["https://a"]},
            {"name": "no fields at all"}
        ]}"#;
        let logos = TokenLogos::from_token_list(list).unwrap();
        assert_eq!(logos.len(), 2);
        let usdc = crate::params::parse_evm_address("0xb97ef9ef8734c71904d8002f8b6bc66dd9c48a6e");
        let usdc = usdc.unwrap();
        assert_eq!(
            logos.logo(43114, &usdc).as_deref(),
            Some("https://example.org/usdc.png")
        );
        assert_eq!(logos.logo(43113, &usdc).as_deref(), Some("ipfs://Qm"));
        assert_eq!(logos.logo(1, &usdc), None);
        assert!(TokenLogos::from_token_list("{\"tokens\": 5}").is_err());
    }
}
