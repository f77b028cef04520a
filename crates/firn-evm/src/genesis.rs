//! subnet-EVM genesis JSON: `config` (chain ID, `feeConfig`, precompile configs, upgrade
//! times), `alloc`, and the genesis header fields (`timestamp`, `gasLimit`, `extraData`, …).
//!
//! Numbers are read as go-ethereum's `HexOrDecimal` types read them: a JSON number, or a string
//! in decimal or `0x` hex. Alloc keys may leave out the `0x`.

use std::collections::BTreeMap;

use alloy_primitives::{Address, B256, Bytes, U256};
use serde_json::{Map, Value};

use crate::error::EvmError;
use crate::fee::{FeeConfig, FeeRules};

/// The precompile config keys subnet-EVM knows, with their addresses' last byte
/// (`0x0200000000000000000000000000000000000000` + n).
pub const PRECOMPILE_KEYS: [(&str, u8); 6] = [
    ("contractDeployerAllowListConfig", 0),
    ("contractNativeMinterConfig", 1),
    ("txAllowListConfig", 2),
    ("feeManagerConfig", 3),
    ("rewardManagerConfig", 4),
    ("warpConfig", 5),
];

/// Avalanche network upgrades, in order, with the keys of their activation times.
pub const UPGRADE_KEYS: [&str; 6] = [
    "subnetEVMTimestamp",
    "durangoTimestamp",
    "etnaTimestamp",
    "fortunaTimestamp",
    "graniteTimestamp",
    "heliconTimestamp",
];

/// The upgrades a devnet chain runs from genesis: everything up to Fortuna. (Granite's
/// millisecond headers and ACP-226 delays are not modelled.)
const DEVNET_UPGRADES: usize = 4;

/// The gas per second the devnet's C-Chain validators aim at (coreth's `gas-target`). Real
/// validators choose their own; the devnet picks room for bursts of 100,000 transfers, as a
/// local dev chain should take them. Its price still follows ACP-176 from 1 wei.
pub const C_CHAIN_GAS_TARGET: u64 = 100_000_000;

/// The Ethereum fork fields a chain config carries, all at block 0 on the devnet.
const ETH_FORK_BLOCKS: [&str; 9] = [
    "homesteadBlock",
    "eip150Block",
    "eip155Block",
    "eip158Block",
    "byzantiumBlock",
    "constantinopleBlock",
    "petersburgBlock",
    "istanbulBlock",
    "muirGlacierBlock",
];

/// One account of `alloc`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GenesisAccount {
    /// Balance in wei.
    pub balance: U256,
    /// Nonce.
    pub nonce: u64,
    /// Runtime code.
    pub code: Bytes,
    /// Storage slots.
    pub storage: BTreeMap<B256, B256>,
}

/// A precompile enabled in the chain config.
#[derive(Debug, Clone, PartialEq)]
pub struct PrecompileConfig {
    /// Its config key (`txAllowListConfig`).
    pub key: String,
    /// Its address.
    pub address: Address,
    /// The config as given (`adminAddresses`, `blockTimestamp`, …).
    pub config: Value,
}

impl PrecompileConfig {
    /// Addresses listed under `field` (`adminAddresses`, `managerAddresses`, `enabledAddresses`).
    pub fn addresses(&self, field: &str) -> Vec<Address> {
        self.config
            .get(field)
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(|v| v.as_str()?.parse().ok()).collect())
            .unwrap_or_default()
    }

    /// The activation time (`blockTimestamp`, default 0).
    pub fn timestamp(&self) -> u64 {
        self.config
            .get("blockTimestamp")
            .and_then(|v| number(v).ok())
            .unwrap_or(0)
    }
}

/// A chain's configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct ChainConfig {
    /// EVM chain ID.
    pub chain_id: u64,
    /// subnet-EVM's fee config (its defaults when the genesis has none); what
    /// `eth_getFeeConfig` and the fee manager report.
    pub fee_config: FeeConfig,
    /// How blocks are priced and sized: the fee config's window, or ACP-176 on the C-Chain.
    pub fee_rules: FeeRules,
    /// Whether block producers may name a fee recipient.
    pub allow_fee_recipients: bool,
    /// The precompiles the genesis enables.
    pub precompiles: Vec<PrecompileConfig>,
    /// The config object as `eth_getChainConfig` shows it.
    pub json: Map<String, Value>,
}

impl ChainConfig {
    /// The precompile with config key `key`, if the genesis enables it.
    pub fn precompile(&self, key: &str) -> Option<&PrecompileConfig> {
        self.precompiles.iter().find(|p| p.key == key)
    }

    /// Whether the Avalanche upgrade `key` (from [`UPGRADE_KEYS`]) is active at `time`.
    pub fn is_active(&self, key: &str, time: u64) -> bool {
        self.json
            .get(key)
            .and_then(|v| number(v).ok())
            .is_some_and(|t| t <= time)
    }
}

/// A parsed genesis.
#[derive(Debug, Clone, PartialEq)]
pub struct EvmGenesis {
    /// Chain configuration.
    pub config: ChainConfig,
    /// Initial accounts.
    pub alloc: BTreeMap<Address, GenesisAccount>,
    /// Genesis timestamp, seconds.
    pub timestamp: u64,
    /// Genesis gas limit (0 → the fee config's).
    pub gas_limit: u64,
    /// Genesis extra data.
    pub extra_data: Bytes,
    /// Genesis difficulty.
    pub difficulty: U256,
    /// Genesis coinbase.
    pub coinbase: Address,
    /// Genesis mix hash.
    pub mix_hash: B256,
    /// Genesis nonce.
    pub nonce: u64,
    /// Genesis base fee (default: the fee config's minimum).
    pub base_fee: Option<u64>,
}

/// Reads a `HexOrDecimal64`.
pub(crate) fn number(v: &Value) -> Result<u64, String> {
    match v {
        Value::Number(n) => n.as_u64().ok_or_else(|| format!("invalid number {n}")),
        Value::String(s) => parse_u64(s),
        other => Err(format!("expected a number, got {other}")),
    }
}

fn parse_u64(s: &str) -> Result<u64, String> {
    let r = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some("") => Ok(0),
        Some(hex) => u64::from_str_radix(hex, 16),
        None => s.parse(),
    };
    r.map_err(|_| format!("invalid number {s:?}"))
}

/// Reads a `HexOrDecimal256`.
pub(crate) fn big(v: &Value) -> Result<U256, String> {
    match v {
        Value::Number(n) => n
            .as_u64()
            .map(U256::from)
            .ok_or_else(|| format!("invalid number {n}")),
        Value::String(s) => {
            let r = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
                Some("") => Ok(U256::ZERO),
                Some(hex) => U256::from_str_radix(hex, 16),
                None => U256::from_str_radix(s, 10),
            };
            r.map_err(|_| format!("invalid number {s:?}"))
        }
        other => Err(format!("expected a number, got {other}")),
    }
}

fn hex_bytes(v: &Value) -> Result<Bytes, String> {
    let s = v.as_str().ok_or_else(|| format!("expected hex, got {v}"))?;
    let h = s.strip_prefix("0x").unwrap_or(s);
    alloy_primitives::hex::decode(h)
        .map(Bytes::from)
        .map_err(|e| format!("invalid hex {s:?}: {e}"))
}

fn b256(v: &Value) -> Result<B256, String> {
    let b = hex_bytes(v)?;
    if b.len() > 32 {
        return Err(format!("hash longer than 32 bytes: {v}"));
    }
    Ok(B256::left_padding_from(&b))
}

fn address(s: &str) -> Result<Address, String> {
    let h = s.strip_prefix("0x").unwrap_or(s);
    h.parse::<Address>()
        .map_err(|e| format!("invalid address {s:?}: {e}"))
}

fn account(v: &Value) -> Result<GenesisAccount, String> {
    let mut a = GenesisAccount {
        balance: big(v.get("balance").unwrap_or(&Value::Null))
            .map_err(|e| format!("balance: {e}"))?,
        ..Default::default()
    };
    if let Some(n) = v.get("nonce") {
        a.nonce = number(n)?;
    }
    if let Some(c) = v.get("code").filter(|c| !c.is_null()) {
        a.code = hex_bytes(c)?;
    }
    if let Some(storage) = v.get("storage").and_then(Value::as_object) {
        for (k, val) in storage {
            a.storage
                .insert(b256(&Value::String(k.clone()))?, b256(val)?);
        }
    }
    Ok(a)
}

impl EvmGenesis {
    /// Parses subnet-EVM genesis JSON bytes (the CreateChainTx's genesis data).
    pub fn from_json(bytes: &[u8]) -> Result<Self, EvmError> {
        let bad = |m: String| EvmError::Genesis(m);
        let root: Value =
            serde_json::from_slice(bytes).map_err(|e| bad(format!("invalid JSON: {e}")))?;
        let config = root
            .get("config")
            .and_then(Value::as_object)
            .ok_or_else(|| bad("missing config".into()))?;
        let chain_config = Self::chain_config(config).map_err(bad)?;
        let mut alloc = BTreeMap::new();
        if let Some(accounts) = root.get("alloc").and_then(Value::as_object) {
            for (k, v) in accounts {
                let addr = address(k).map_err(bad)?;
                alloc.insert(
                    addr,
                    account(v).map_err(|e| bad(format!("alloc {k}: {e}")))?,
                );
            }
        }
        let field = |k: &str| root.get(k).filter(|v| !v.is_null());
        let num = |k: &str| {
            field(k)
                .map(number)
                .transpose()
                .map_err(|e| bad(format!("{k}: {e}")))
        };
        Ok(Self {
            config: chain_config,
            alloc,
            timestamp: num("timestamp")?.unwrap_or(0),
            gas_limit: num("gasLimit")?.unwrap_or(0),
            extra_data: field("extraData")
                .map(hex_bytes)
                .transpose()
                .map_err(bad)?
                .unwrap_or_default(),
            difficulty: field("difficulty")
                .map(big)
                .transpose()
                .map_err(bad)?
                .unwrap_or_default(),
            coinbase: field("coinbase")
                .and_then(Value::as_str)
                .map(address)
                .transpose()
                .map_err(bad)?
                .unwrap_or_default(),
            mix_hash: field("mixHash")
                .map(b256)
                .transpose()
                .map_err(bad)?
                .unwrap_or_default(),
            nonce: num("nonce")?.unwrap_or(0),
            base_fee: num("baseFeePerGas")?,
        })
    }

    fn chain_config(config: &Map<String, Value>) -> Result<ChainConfig, String> {
        let chain_id = number(config.get("chainId").ok_or("missing config.chainId")?)
            .map_err(|e| format!("chainId: {e}"))?;
        let fee_config = match config.get("feeConfig") {
            Some(v) => {
                let mut merged =
                    serde_json::to_value(FeeConfig::default()).map_err(|e| e.to_string())?;
                if let (Some(m), Some(given)) = (merged.as_object_mut(), v.as_object()) {
                    for (k, val) in given {
                        m.insert(k.clone(), Value::from(number(val)?));
                    }
                }
                serde_json::from_value(merged).map_err(|e| format!("feeConfig: {e}"))?
            }
            None => FeeConfig::default(),
        };
        fee_config.verify()?;
        let mut precompiles = Vec::new();
        for (key, last) in PRECOMPILE_KEYS {
            if let Some(v) = config.get(key).filter(|v| v.is_object()) {
                if v.get("disable").and_then(Value::as_bool) == Some(true) {
                    continue;
                }
                let mut addr = [0u8; 20];
                addr[0] = 2;
                addr[19] = last;
                precompiles.push(PrecompileConfig {
                    key: key.to_owned(),
                    address: Address::from(addr),
                    config: crate::precompile_json::canonical(key, v)?,
                });
            }
        }
        let mut json = config.clone();
        for p in &precompiles {
            json.insert(p.key.clone(), p.config.clone());
        }
        for key in ETH_FORK_BLOCKS {
            json.entry(key).or_insert(Value::from(0));
        }
        json.insert(
            "feeConfig".into(),
            serde_json::to_value(fee_config).map_err(|e| e.to_string())?,
        );
        for key in &UPGRADE_KEYS[..DEVNET_UPGRADES] {
            json.entry(*key).or_insert(Value::from(0));
        }
        Ok(ChainConfig {
            chain_id,
            fee_config,
            fee_rules: FeeRules::Window(fee_config),
            allow_fee_recipients: config
                .get("allowFeeRecipients")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            precompiles,
            json,
        })
    }

    /// Turns the Warp precompile on from genesis (as coreth has on the C-Chain since Durango),
    /// at the default quorum.
    pub fn with_warp(mut self) -> Self {
        if self.config.precompile("warpConfig").is_none() {
            self.config.precompiles.push(PrecompileConfig {
                key: "warpConfig".into(),
                address: crate::warp::WARP_ADDRESS,
                config: serde_json::json!({ "blockTimestamp": 0, "quorumNumerator": 0 }),
            });
        }
        self
    }

    /// Places contract `code` at `address` (nonce 1, as a deployment leaves it).
    pub fn with_contract(mut self, address: Address, code: Bytes) -> Self {
        let account = self.alloc.entry(address).or_default();
        account.code = code;
        account.nonce = 1;
        self
    }

    /// Sets `slots` (slot, value) in the storage of the account at `address`.
    pub fn with_storage(
        mut self,
        address: Address,
        slots: impl IntoIterator<Item = ([u8; 32], [u8; 32])>,
    ) -> Self {
        let account = self.alloc.entry(address).or_default();
        account.storage.extend(
            slots
                .into_iter()
                .map(|(slot, value)| (B256::from(slot), B256::from(value))),
        );
        self
    }

    /// A genesis for the C-Chain: `chain_id`, ACP-176 fees aiming at
    /// [`C_CHAIN_GAS_TARGET`], `alloc` funded, no precompiles.
    pub fn c_chain(chain_id: u64, timestamp: u64, alloc: &[(Address, U256)]) -> Self {
        let fee_config = FeeConfig::c_chain();
        let mut json = Map::new();
        json.insert("chainId".into(), Value::from(chain_id));
        for key in ETH_FORK_BLOCKS {
            json.insert(key.into(), Value::from(0));
        }
        for key in &UPGRADE_KEYS[..DEVNET_UPGRADES] {
            json.insert((*key).into(), Value::from(0));
        }
        Self {
            config: ChainConfig {
                chain_id,
                fee_config,
                fee_rules: FeeRules::acp176(C_CHAIN_GAS_TARGET),
                allow_fee_recipients: false,
                precompiles: Vec::new(),
                json,
            },
            alloc: alloc
                .iter()
                .map(|(a, b)| {
                    (
                        *a,
                        GenesisAccount {
                            balance: *b,
                            ..Default::default()
                        },
                    )
                })
                .collect(),
            timestamp,
            gas_limit: 0,
            extra_data: Bytes::new(),
            difficulty: U256::ZERO,
            coinbase: Address::ZERO,
            mix_hash: B256::ZERO,
            nonce: 0,
            base_fee: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_subnet_evm_genesis() {
        let json = br#"{"config":{"chainId":99999,"feeConfig":{"gasLimit":20000000,"minBaseFee":1000000000,"targetGas":100000000,"baseFeeChangeDenominator":48,"minBlockGasCost":0,"maxBlockGasCost":10000000,"targetBlockRate":2,"blockGasCostStep":500000},
          "txAllowListConfig":{"blockTimestamp":0,"adminAddresses":["0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC"]},"warpConfig":{"blockTimestamp":0,"quorumNumerator":67}},
          "alloc":{"8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC":{"balance":"0x52B7D2DCC80CD2E4000000"}},
          "nonce":"0x0","timestamp":"0x5","extraData":"0x00","gasLimit":"0x1312D00","difficulty":"0x0",
          "mixHash":"0x0000000000000000000000000000000000000000000000000000000000000000","coinbase":"0x0000000000000000000000000000000000000000"}"#;
        let g = EvmGenesis::from_json(json).unwrap();
        assert_eq!(g.config.chain_id, 99999);
        assert_eq!(g.config.fee_config.min_base_fee, 1_000_000_000);
        assert_eq!(g.timestamp, 5);
        assert_eq!(g.gas_limit, 20_000_000);
        assert_eq!(g.alloc.len(), 1);
        let allow = g.config.precompile("txAllowListConfig").unwrap();
        assert_eq!(allow.addresses("adminAddresses").len(), 1);
        assert_eq!(
            allow.address.to_string(),
            "0x0200000000000000000000000000000000000002"
        );
        assert!(g.config.precompile("warpConfig").is_some());
    }

    #[test]
    fn rejects_bad_fee_config() {
        let json = br#"{"config":{"chainId":1,"feeConfig":{"targetBlockRate":0}},"alloc":{}}"#;
        let err = EvmGenesis::from_json(json).unwrap_err().to_string();
        assert!(
            err.contains("targetBlockRate cannot be less than or equal to 0"),
            "{err}"
        );
    }
}
