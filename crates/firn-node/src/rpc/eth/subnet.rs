//! subnet-EVM's own methods: `eth_feeConfig`, `eth_getChainConfig`,
//! `eth_getActivePrecompilesAt`, `eth_getActiveRulesAt` (shapes in node-rpc-facts §2).

use serde_json::{Map, Value, json};

use super::blocks::find_block;
use super::params::BlockId;
use super::{EthError, State};

/// A reply that is a chain config's own JSON (Go's `map[string]interface{}`).
type EthResult = Result<Value, EthError>;
use firn_rpc::EthServer;

/// Registers this module's methods; `eth_feeConfig` only where the chain has a fee config
/// (coreth, the C-Chain under ACP-176, has none and no such method).
pub fn register(s: EthServer<State>, has_fee_config: bool) -> EthServer<State> {
    let s = if has_fee_config {
        s.method("eth_feeConfig", fee_config)
    } else {
        s
    };
    s.method("eth_getChainConfig", get_chain_config)
        .method("eth_getActivePrecompilesAt", get_active_precompiles_at)
        .method("eth_getActiveRulesAt", get_active_rules_at)
}

/// `eth_feeConfig [blockNrOrHash?]` → `{feeConfig, lastChangedAt}`; the fee config never
/// changes on the devnet, so `lastChangedAt` is 0.
async fn fee_config(node: State, (id,): (Option<BlockId>,)) -> EthResult {
    if let Some(id) = id {
        find_block(&node, id).ok_or_else(|| EthError::server("header not found"))?;
    }
    let fc = node.chain.genesis().config.fee_config;
    let fee = serde_json::to_value(fc).map_err(|e| EthError::server(e.to_string()))?;
    Ok(json!({"feeConfig": fee, "lastChangedAt": 0}))
}

/// `eth_getChainConfig []` → the chain config with `upgrades`.
async fn get_chain_config(node: State, (): ()) -> EthResult {
    let mut config = node.chain.genesis().config.json.clone();
    config.insert("upgrades".into(), json!({}));
    Ok(Value::Object(config))
}

fn at(node: &State, timestamp: Option<u64>) -> u64 {
    timestamp.unwrap_or_else(|| node.chain.head().header.timestamp)
}

/// `eth_getActivePrecompilesAt [timestamp?]` → configs of the precompiles active then.
async fn get_active_precompiles_at(node: State, (timestamp,): (Option<u64>,)) -> EthResult {
    let t = at(&node, timestamp);
    let mut out = Map::new();
    for p in &node.chain.genesis().config.precompiles {
        if p.timestamp() <= t {
            out.insert(p.key.clone(), p.config.clone());
        }
    }
    Ok(Value::Object(out))
}

/// `eth_getActiveRulesAt [timestamp?]` → `{ethRules, avalancheRules, precompiles}`.
async fn get_active_rules_at(node: State, (timestamp,): (Option<u64>,)) -> EthResult {
    let t = at(&node, timestamp);
    let config = &node.chain.genesis().config;
    let upgrade = |k: &str| config.is_active(k, t);
    let durango = upgrade("durangoTimestamp");
    let etna = upgrade("etnaTimestamp");
    let eth_rules = json!({
        "ChainID": config.chain_id,
        "IsHomestead": true, "IsEIP150": true, "IsEIP155": true, "IsEIP158": true,
        "IsByzantium": true, "IsConstantinople": true, "IsPetersburg": true,
        "IsIstanbul": true, "IsBerlin": true, "IsLondon": true, "IsMerge": false,
        "IsShanghai": durango, "IsCancun": etna, "IsPrague": false, "IsVerkle": false,
    });
    let avalanche_rules = json!({
        "IsSubnetEVM": upgrade("subnetEVMTimestamp"),
        "IsDurango": durango,
        "IsEtna": etna,
        "IsFortuna": upgrade("fortunaTimestamp"),
        "IsGranite": upgrade("graniteTimestamp"),
        "IsHelicon": upgrade("heliconTimestamp"),
    });
    let mut precompiles = Map::new();
    for p in &config.precompiles {
        if p.timestamp() <= t {
            precompiles.insert(p.key.clone(), json!({"timestamp": p.timestamp()}));
        }
    }
    Ok(json!({
        "ethRules": eth_rules,
        "avalancheRules": avalanche_rules,
        "precompiles": precompiles,
    }))
}
