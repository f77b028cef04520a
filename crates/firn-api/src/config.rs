//! What a server is configured with: the network it answers for, limits, API keys, rate
//! limits and the optional price table and token list. Everything has a safe default ([`ApiConfig::default`]:
//! Fuji identity, no keys required, no rate limit, 30 s per request, 1 MiB bodies).

use std::collections::BTreeMap;
use std::time::Duration;

use firn_core::ids::Id;
use firn_core::network::{self, PrimaryNetwork};
use firn_store::types::Address;
use serde::Deserialize;

/// The network the indexed chains belong to, as the Data API names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NetworkKind {
    /// Mainnet (`{network}` = `mainnet`).
    Mainnet,
    /// The test network (`{network}` = `fuji` or `testnet`).
    Fuji,
}

/// The identity of the indexed primary network: what `{network}`, the chain aliases and the
/// bech32 addresses resolve to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NetworkProfile {
    /// Mainnet or the test network.
    pub kind: NetworkKind,
    /// bech32 HRP of addresses (`fuji`, `avax`, `local`).
    pub hrp: String,
    /// X-Chain blockchain ID.
    pub x_chain_id: Id,
    /// C-Chain blockchain ID.
    pub c_chain_id: Id,
    /// AVAX asset ID.
    pub avax_asset_id: Id,
}

impl NetworkProfile {
    /// Fuji's identity (the devnet's default profile).
    pub fn fuji() -> Self {
        Self::of(NetworkKind::Fuji, &network::FUJI)
    }

    /// Mainnet's identity.
    pub fn mainnet() -> Self {
        Self::of(NetworkKind::Mainnet, &network::MAINNET)
    }

    fn of(kind: NetworkKind, n: &PrimaryNetwork) -> Self {
        Self {
            kind,
            hrp: n.hrp.to_owned(),
            x_chain_id: n.x_chain_id,
            c_chain_id: n.c_chain_id,
            avax_asset_id: n.avax_asset_id,
        }
    }

    /// The `network` value responses carry (`mainnet` or `fuji`).
    pub fn wire_name(&self) -> &'static str {
        match self.kind {
            NetworkKind::Mainnet => "mainnet",
            NetworkKind::Fuji => "fuji",
        }
    }

    /// Whether a `{network}` path value names this network.
    pub fn accepts(&self, network: &str) -> bool {
        match self.kind {
            NetworkKind::Mainnet => network == "mainnet",
            NetworkKind::Fuji => network == "fuji" || network == "testnet",
        }
    }
}

/// A rate limit: at most `requests` per `window`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimit {
    /// Requests allowed per window.
    pub requests: u64,
    /// Window length.
    pub window: Duration,
}

/// Prices per currency code (`usd`, `eur`, …) per asset: AVAX under `"AVAX"` (also used for
/// the C-Chain's native token), ERC-20 tokens under their lower-case `0x` address. Loaded from
/// a TOML file: `[usd] AVAX = 25.1` and so on.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct PriceTable(pub BTreeMap<String, BTreeMap<String, f64>>);

impl PriceTable {
    /// Parses the TOML text of a price table.
    pub fn from_toml(text: &str) -> Result<Self, toml::de::Error> {
        toml::from_str(text)
    }

    /// The price of `asset` in `currency`, when the table has one.
    pub fn price(&self, currency: &str, asset: &str) -> Option<f64> {
        self.0.get(currency)?.get(asset).copied()
    }
}

/// A server's configuration.
#[derive(Debug, Clone)]
pub struct ApiConfig {
    /// The indexed network's identity.
    pub network: NetworkProfile,
    /// Largest request body, bytes.
    pub body_limit: usize,
    /// Longest a request may run.
    pub request_timeout: Duration,
    /// Accepted API keys. Empty: keys are not checked (any or none is fine); non-empty: a sent
    /// key must be one of these (401 otherwise), and no key is allowed unless
    /// `require_api_key`.
    pub api_keys: Vec<String>,
    /// Refuse requests without a configured key (401): API keys as access control. Needs
    /// `api_keys`.
    pub require_api_key: bool,
    /// Limit per API key; `None` = unlimited.
    pub key_rate_limit: Option<RateLimit>,
    /// Limit per client IP for requests without a key; `None` = unlimited.
    pub ip_rate_limit: Option<RateLimit>,
    /// Prices; empty = price fields are left out.
    pub prices: PriceTable,
    /// Token logos from the operator's token list; empty = `logoUri` is left out.
    pub token_logos: crate::TokenLogos,
    /// Connection limits and timeouts of the listeners.
    pub http: firn_http::ServeLimits,
    /// The key page tokens are signed with: the same secret on every process behind one load
    /// balancer, so each accepts the others' tokens (default: a random key of this process).
    pub page_token_key: crate::signing::TokenKey,
    /// The BTC.b token on chain 43114 whose mints and burns the Metrics API's
    /// `btcb/bridged:getAddresses` adds up (default: [`BTCB_MAINNET`]).
    pub btcb_token: Address,
    /// Bytes of rendered responses kept between commits ([`crate::cache`]); 0 renders every
    /// request.
    pub response_cache_bytes: usize,
    /// Webhook delivery.
    pub webhooks: crate::webhooks::WebhookConfig,
    /// Transaction exports.
    pub exports: crate::operations::ExportConfig,
}

/// BTC.b, the Avalanche Bridge's Bitcoin, on the Avalanche C-Chain (43114).
pub const BTCB_MAINNET: Address = Address::new([
    0x15, 0x2b, 0x9d, 0x0f, 0xdc, 0x40, 0xc0, 0x96, 0x75, 0x7f, 0x57, 0x0a, 0x51, 0xe4, 0x94, 0xbd,
    0x4b, 0x94, 0x3e, 0x50,
]);

impl Default for ApiConfig {
    fn default() -> Self {
        Self {
            network: NetworkProfile::fuji(),
            body_limit: 1024 * 1024,
            request_timeout: Duration::from_secs(30),
            api_keys: Vec::new(),
            require_api_key: false,
            key_rate_limit: None,
            ip_rate_limit: None,
            prices: PriceTable::default(),
            token_logos: crate::TokenLogos::default(),
            http: firn_http::ServeLimits::default(),
            page_token_key: crate::signing::TokenKey::random(),
            btcb_token: BTCB_MAINNET,
            response_cache_bytes: 64 * 1024 * 1024,
            webhooks: crate::webhooks::WebhookConfig::default(),
            exports: crate::operations::ExportConfig::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_have_their_ids() {
        assert_eq!(
            NetworkProfile::fuji().x_chain_id.to_string(),
            "2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm"
        );
        assert_eq!(
            NetworkProfile::mainnet().avax_asset_id.to_string(),
            "FvwEAhmxKfeiG8SnEvq42hc6whRyY3EFYAvebMqDNDGCgxN5Z"
        );
        assert!(NetworkProfile::fuji().accepts("testnet"));
        assert!(!NetworkProfile::fuji().accepts("mainnet"));
    }

    #[test]
    fn btcb_is_the_bridge_token() {
        assert_eq!(
            BTCB_MAINNET.to_checksum(None),
            "0x152b9d0FdC40C096757F570A51E494bd4b943E50"
        );
    }

    #[test]
    fn price_table_parses() {
        let t = PriceTable::from_toml("[usd]\nAVAX = 25.5\n[eur]\nAVAX = 23.0\n").unwrap();
        assert_eq!(t.price("usd", "AVAX"), Some(25.5));
        assert_eq!(t.price("jpy", "AVAX"), None);
    }
}
