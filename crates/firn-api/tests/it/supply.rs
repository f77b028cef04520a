//! `getAvaxSupply` against what the world wrote: the node's supply split into genesis and
//! rewards, the C-Chain's fees burned, the active stake, and the official schema.

use firn_api::ApiConfig;
use firn_core::calendar::rfc3339;
use firn_core::network::{FUJI, P_CHAIN_ID};
use firn_store::rows::evm::EvmChainRecord;
use firn_store::{EvmWriter, Store};
use serde_json::Value;

use crate::fixtures::{CHAIN, SUPPLY, avax, evm_chain, seed};
use crate::harness::Api;
use crate::schema::{assert_valid, official};

const SUPPLY_PATH: &str = "/v1/avax/supply";
const WEI_PER_NANO: u128 = 1_000_000_000;

/// Wei of a decimal AVAX amount (at most 18 decimals).
fn wei(v: &Value) -> u128 {
    let text = v.as_str().unwrap_or_else(|| panic!("not a string: {v}"));
    let (whole, frac) = text.split_once('.').unwrap_or((text, ""));
    assert!(frac.len() <= 18 && !frac.ends_with('0'), "{text}");
    let whole: u128 = whole.parse().unwrap();
    let frac: u128 = format!("{frac:0<18}").parse().unwrap();
    whole * 10u128.pow(18) + frac
}

/// Wei of nAVAX.
fn nano(n: u128) -> u128 {
    n * WEI_PER_NANO
}

pub async fn avax_supply_adds_up(store: Store) {
    // Before the indexer has read the supply: a 503 that says so.
    Api::new(store.clone())
        .get(SUPPLY_PATH)
        .await
        .assert_error(503, "current supply");

    let world = seed(&store, 3, 24).await;
    // The world's EVM chain is this network's C-Chain.
    store
        .upsert_evm_chain(&EvmChainRecord {
            blockchain_id: FUJI.c_chain_id,
            ..evm_chain(CHAIN)
        })
        .await
        .unwrap();
    // The world pays its rewards in the fixtures' asset.
    let mut config = ApiConfig::default();
    config.network.avax_asset_id = avax();
    let api = Api::with_config(store, config);
    let got = api.ok(SUPPLY_PATH).await;
    if let Some(doc) = official() {
        assert_valid(&doc, "get", SUPPLY_PATH, &got);
    }

    let now = world.p.ts;
    let active = world
        .stakers
        .iter()
        .filter(|(_, s, rewarded)| {
            !rewarded && s.subnet_id == P_CHAIN_ID && s.start_ts <= now && s.end_ts > now
        })
        .map(|(_, s, _)| s);
    let staked: u128 = active.clone().map(|s| u128::from(s.weight)).sum();
    let pending: u128 = active
        .map(|s| u128::from(s.estimated_reward.unwrap()))
        .sum();
    let paid: u128 = world
        .rewards
        .iter()
        .map(|(_, r)| u128::from(r.amount))
        .sum();
    let c_burned: u128 = world
        .evm
        .blocks
        .iter()
        .flat_map(|b| &b.txs)
        .map(|t| u128::from(t.gas_used) * u128::try_from(t.gas_price).unwrap())
        .sum();
    assert!(paid > 0 && pending > 0 && c_burned > 0);
    let rewards = nano(paid + pending);
    let supply = nano(u128::from(SUPPLY));

    assert_eq!(wei(&got["totalRewards"]), rewards, "{got}");
    assert_eq!(wei(&got["genesisUnlock"]), supply - rewards, "{got}");
    assert_eq!(wei(&got["totalStaked"]), nano(staked), "{got}");
    assert_eq!(wei(&got["totalCBurned"]), c_burned, "{got}");
    // The world's P-Chain burns nothing, locks nothing and has no L1 validator fees; the
    // X-Chain is not indexed.
    for zero in [
        "totalPBurned",
        "totalXBurned",
        "totalLocked",
        "l1ValidatorFees",
    ] {
        assert_eq!(got[zero], "0", "{zero}: {got}");
    }
    assert_eq!(wei(&got["totalSupply"]), supply - c_burned, "{got}");
    assert_eq!(got["circulatingSupply"], got["totalSupply"], "{got}");
    assert_eq!(got["lastUpdated"], rfc3339(now), "{got}");
}
