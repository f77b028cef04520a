//! Checks a store against the node: every block, every address's UTXO set and balance, the
//! validator and delegator sets, rewards, subnets, chains and L1 validators.

use std::collections::{BTreeMap, BTreeSet};

use firn_core::address::ChainAddress;
use firn_core::encoding::hex_decode_checksummed;
use firn_core::ids::{Id, NodeId, ShortId};
use firn_core::network::P_CHAIN_ID;
use firn_store::rows::pchain::{PTxRecord, StakerStatus};
use firn_store::{
    PChainReader, PTxFilter, PageRequest, RewardFilter, SortOrder, StakerFilter, Store,
};
use serde_json::{Value, json};

use crate::devnet::{Devnet, Script};

/// JSON-RPC against the devnet's node.
pub struct NodeRpc {
    url: String,
    http: reqwest::Client,
}

impl NodeRpc {
    pub fn new(devnet: &Devnet) -> Self {
        Self {
            url: format!("{}/ext/bc/P", devnet.url),
            http: reqwest::Client::new(),
        }
    }

    pub async fn call(&self, method: &str, params: Value) -> Value {
        let body = json!({ "jsonrpc": "2.0", "method": method, "params": params, "id": 1 });
        let r: Value = self
            .http
            .post(&self.url)
            .json(&body)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert!(r.get("error").is_none(), "{method} failed: {r}");
        r["result"].clone()
    }
}

fn dec(v: &Value) -> u64 {
    v.as_str()
        .unwrap_or_else(|| panic!("{v} is not a string"))
        .parse()
        .unwrap()
}

/// Every tx of the store touching `address`, oldest first.
async fn txs_of(store: &Store, address: ShortId) -> Vec<PTxRecord> {
    let filter = PTxFilter {
        addresses: vec![address],
        ..Default::default()
    };
    let mut out = Vec::new();
    let mut page = PageRequest::first(100);
    loop {
        let got = store
            .list_pchain_txs(&filter, SortOrder::Asc, &page)
            .await
            .unwrap();
        out.extend(got.items);
        match got.next {
            Some(n) => page = PageRequest::after(100, n),
            None => return out,
        }
    }
}

/// The UTXOs of `address` that the store says are spendable now: created, not consumed, and
/// not locked in a stake that has not ended.
async fn stored_utxos(store: &Store, address: ShortId) -> BTreeMap<Id, u64> {
    let mut out = BTreeMap::new();
    for tx in txs_of(store, address).await {
        for u in &tx.emitted {
            if u.consumed.is_some() || !u.utxo.addresses.contains(&address) {
                continue;
            }
            if u.utxo.staked {
                let staker = store.find_staker(u.utxo.tx_hash).await.unwrap().unwrap();
                if staker.ended_by.is_none() {
                    continue;
                }
            }
            out.insert(u.utxo.utxo_id, u.utxo.amount);
        }
    }
    out
}

/// The node's UTXOs of `address`.
async fn node_utxos(rpc: &NodeRpc, network_id: u32, address: ShortId) -> BTreeMap<Id, u64> {
    let a = ChainAddress::new("P", network_id, address).to_string();
    let r = rpc
        .call(
            "platform.getUTXOs",
            json!({ "addresses": [a], "encoding": "hex", "limit": 1024 }),
        )
        .await;
    r["utxos"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            let bytes = hex_decode_checksummed(h.as_str().unwrap()).unwrap();
            let tx_id = Id(bytes[2..34].try_into().unwrap());
            let index = u32::from_be_bytes(bytes[34..38].try_into().unwrap());
            // version, tx, index, asset, then the output's type ID; the amount follows the
            // stakeable lock (type 22: locktime, inner type ID) or directly (type 7).
            let mut at = 70;
            let type_id = u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
            at += 4;
            if type_id == 22 {
                at += 12;
            }
            let amount = u64::from_be_bytes(bytes[at..at + 8].try_into().unwrap());
            (tx_id.prefix(u64::from(index)), amount)
        })
        .collect()
}

/// Blocks: same IDs, parents, times and txs at every height.
pub async fn blocks(devnet: &Devnet, store: &Store) {
    let tip = devnet.chain.height();
    for h in 0..=tip {
        let want = devnet.chain.block_by_height(h).unwrap().block;
        let got = store
            .find_pchain_block(h)
            .await
            .unwrap()
            .unwrap_or_else(|| panic!("block {h} not stored"));
        assert_eq!(got.block.hash, want.id(), "block {h}");
        assert_eq!(got.block.parent_hash, want.parent_id(), "block {h}");
        assert_eq!(got.block.timestamp, want.time().unwrap(), "block {h}");
        assert_eq!(got.block.block_type, want.type_name(), "block {h}");
        let ids: Vec<Id> = want.txs().map(|t| t.id()).collect();
        assert_eq!(got.tx_hashes, ids, "block {h}");
    }
    assert!(store.find_pchain_block(tip + 1).await.unwrap().is_none());
}

/// UTXO sets and balances of every address the script used.
pub async fn balances(devnet: &Devnet, store: &Store, script: &Script) {
    let rpc = NodeRpc::new(devnet);
    let network_id = devnet.chain.network().network_id;
    for a in &script.addresses {
        let want = node_utxos(&rpc, network_id, *a).await;
        let got = stored_utxos(store, *a).await;
        assert_eq!(got, want, "UTXOs of {a}");
        let addr = ChainAddress::new("P", network_id, *a).to_string();
        let balance = rpc
            .call("platform.getBalance", json!({ "addresses": [addr] }))
            .await;
        let total: u64 = got.values().sum();
        assert_eq!(total, dec(&balance["balance"]), "balance of {a}");
        let chains = store.list_address_chains(&[*a]).await.unwrap();
        assert!(chains[0].1.contains(&P_CHAIN_ID), "chains of {a}");
    }
}

/// Current validators and delegators, ended stakers and their rewards.
pub async fn staking(devnet: &Devnet, store: &Store, script: &Script) {
    let rpc = NodeRpc::new(devnet);
    let now = devnet.chain.timestamp();
    let current = rpc.call("platform.getCurrentValidators", json!({})).await;
    let want: BTreeSet<String> = current["validators"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["txID"].as_str().unwrap().to_owned())
        .collect();
    let active = all_stakers(store, Some(false), now).await;
    let got: BTreeSet<String> = active
        .iter()
        .filter(|s| s.staker.subnet_id == P_CHAIN_ID && s.status(now) == StakerStatus::Active)
        .map(|s| s.tx_hash.to_string())
        .collect();
    assert_eq!(got, want, "current primary validators");
    // The node's word on each (read when the backfill reached the tip) and the delegations
    // it counts.
    let validators: Vec<Id> = want.iter().map(|t| t.parse().unwrap()).collect();
    let nodes: Vec<NodeId> = current["validators"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["nodeID"].as_str().unwrap().parse().unwrap())
        .collect();
    let observed = store.list_validator_observations(&nodes).await.unwrap();
    let delegations = store.list_delegation_totals(&validators).await.unwrap();
    assert_eq!(
        observed.len(),
        nodes.len(),
        "every current validator observed"
    );
    for v in current["validators"].as_array().unwrap() {
        let tx: Id = v["txID"].as_str().unwrap().parse().unwrap();
        let node: NodeId = v["nodeID"].as_str().unwrap().parse().unwrap();
        let o = observed.iter().find(|o| o.node_id == node).unwrap();
        let uptime = (v["uptime"].as_str().unwrap().parse::<f64>().unwrap() * 10_000.0).round();
        assert_eq!(f64::from(o.uptime), uptime, "uptime of {tx}");
        assert_eq!(
            o.connected,
            v["connected"].as_bool().unwrap(),
            "connection of {tx}"
        );
        let d = delegations.iter().find(|d| d.validator == tx).unwrap();
        assert_eq!(
            d.open_count,
            dec(&v["delegatorCount"]),
            "delegators of {tx}"
        );
        assert_eq!(
            d.open_amount,
            u128::from(dec(&v["delegatorWeight"])),
            "delegated to {tx}"
        );
    }
    for v in current["validators"].as_array().unwrap() {
        let node: NodeId = v["nodeID"].as_str().unwrap().parse().unwrap();
        let one = rpc
            .call(
                "platform.getCurrentValidators",
                json!({ "nodeIDs": [node.to_string()] }),
            )
            .await;
        let want: BTreeSet<String> = one["validators"][0]["delegators"]
            .as_array()
            .map(|ds| {
                ds.iter()
                    .map(|d| d["txID"].as_str().unwrap().to_owned())
                    .collect()
            })
            .unwrap_or_default();
        let got: BTreeSet<String> = all_stakers(store, Some(true), now)
            .await
            .iter()
            .filter(|s| s.staker.node_id == node && s.status(now) == StakerStatus::Active)
            .map(|s| s.tx_hash.to_string())
            .collect();
        assert_eq!(got, want, "delegators of {node}");
        // Each current staker's potential reward, and each delegator's fee rate (its
        // validator's), as the node gives them.
        let validator = &one["validators"][0];
        let shares = (validator["delegationFee"]
            .as_str()
            .unwrap()
            .parse::<f64>()
            .unwrap()
            * 10_000.0)
            .round() as u32;
        let stakers = std::iter::once(validator)
            .chain(validator["delegators"].as_array().into_iter().flatten());
        for n in stakers {
            let tx: Id = n["txID"].as_str().unwrap().parse().unwrap();
            let rec = store.find_staker(tx).await.unwrap().unwrap();
            assert_eq!(
                rec.staker.estimated_reward,
                Some(dec(&n["potentialReward"])),
                "potential reward of {tx}"
            );
            assert_eq!(rec.staker.delegation_fee, shares, "fee rate of {tx}");
        }
    }

    // Ended stakers: their rewards are exactly the node's reward UTXOs.
    for staker in [script.validator, script.delegator] {
        let rec = store.find_staker(staker).await.unwrap().unwrap();
        assert_eq!(rec.status(now), StakerStatus::Completed, "{staker}");
        let r = rpc
            .call(
                "platform.getRewardUTXOs",
                json!({ "txID": staker.to_string(), "encoding": "hex" }),
            )
            .await;
        let want = r["utxos"].as_array().unwrap().len();
        assert!(want > 0, "staker {staker} was paid");
        let rewards = store
            .list_rewards(
                &RewardFilter {
                    node_ids: vec![rec.staker.node_id],
                    addresses: vec![],
                },
                SortOrder::Asc,
                &PageRequest::first(100),
            )
            .await
            .unwrap();
        let mine: Vec<_> = rewards
            .items
            .iter()
            .filter(|r| r.reward.staking_tx_hash == staker)
            .collect();
        assert_eq!(mine.len(), want, "rewards of {staker}");
        let kinds: BTreeSet<&str> = mine.iter().map(|r| r.reward.reward_type.as_str()).collect();
        if rec.staker.is_delegator {
            assert_eq!(kinds, BTreeSet::from(["DELEGATOR"]));
            assert_eq!(rec.net_reward, rec.gross_reward);
        } else {
            assert_eq!(kinds, BTreeSet::from(["VALIDATOR", "VALIDATOR_FEE"]));
            assert!(rec.gross_reward > rec.net_reward);
        }
        assert!(rec.net_reward > 0);
    }
    for staker in [script.long_validator, script.active_delegator] {
        let rec = store.find_staker(staker).await.unwrap().unwrap();
        assert_eq!(rec.status(now), StakerStatus::Active, "{staker}");
        assert_eq!(rec.gross_reward, 0);
    }
    let sv = store
        .find_staker(script.subnet_validator)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(sv.staker.subnet_id, script.subnet);
    assert_eq!(sv.status(now), StakerStatus::Removed);
}

async fn all_stakers(
    store: &Store,
    delegators: Option<bool>,
    now: u64,
) -> Vec<firn_store::rows::pchain::StakerRecord> {
    let filter = StakerFilter {
        delegators,
        now,
        ..Default::default()
    };
    let mut out = Vec::new();
    let mut page = PageRequest::first(100);
    loop {
        let got = store
            .list_stakers(&filter, SortOrder::Asc, &page)
            .await
            .unwrap();
        out.extend(got.items);
        match got.next {
            Some(n) => page = PageRequest::after(100, n),
            None => return out,
        }
    }
}

/// Subnets, chains and L1 validators.
pub async fn subnets_and_l1(devnet: &Devnet, store: &Store, script: &Script) {
    let rpc = NodeRpc::new(devnet);
    let network_id = devnet.chain.network().network_id;
    for subnet in [script.subnet, script.other_subnet] {
        let want = rpc
            .call(
                "platform.getSubnet",
                json!({ "subnetID": subnet.to_string() }),
            )
            .await;
        let got = store.find_subnet(subnet).await.unwrap().unwrap();
        let keys: Vec<String> = got
            .owner
            .addresses
            .iter()
            .map(|a| ChainAddress::new("P", network_id, *a).to_string())
            .collect();
        assert_eq!(json!(keys), want["controlKeys"], "owner of {subnet}");
        assert_eq!(got.owner.threshold, dec(&want["threshold"]) as u32);
        match &got.conversion {
            Some(c) => {
                assert_eq!(want["isPermissioned"], json!(false));
                assert_eq!(
                    c.conversion_id.to_string(),
                    want["conversionID"].as_str().unwrap()
                );
                assert_eq!(
                    c.manager_chain.to_string(),
                    want["managerChainID"].as_str().unwrap()
                );
            }
            None => assert_eq!(want["isPermissioned"], json!(true), "{subnet}"),
        }
    }
    let chains = rpc.call("platform.getBlockchains", json!({})).await;
    for c in chains["blockchains"].as_array().unwrap() {
        if c["subnetID"].as_str().unwrap() == Id::ZERO.to_string() {
            continue;
        }
        let id: Id = c["id"].as_str().unwrap().parse().unwrap();
        let got = store.find_blockchain(id).await.unwrap().unwrap();
        assert_eq!(got.chain.name, c["name"].as_str().unwrap());
        assert_eq!(got.chain.vm_id.to_string(), c["vmID"].as_str().unwrap());
        assert_eq!(
            got.chain.subnet_id.to_string(),
            c["subnetID"].as_str().unwrap()
        );
    }
    let evm = store
        .find_blockchain(script.evm_chain)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(evm.chain.evm_chain_id, Some(777001));

    for v in &script.l1_validators {
        let want = rpc
            .call(
                "platform.getL1Validator",
                json!({ "validationID": v.to_string() }),
            )
            .await;
        let got = store.find_l1_validator(*v).await.unwrap().unwrap();
        assert_eq!(
            got.validator.node_id.to_string(),
            want["nodeID"].as_str().unwrap()
        );
        assert_eq!(got.validator.weight, dec(&want["weight"]), "weight of {v}");
        assert_eq!(
            got.validator.subnet_id.to_string(),
            want["subnetID"].as_str().unwrap()
        );
        // The node's balance is what is left after the continuous fee; the store keeps the
        // balance as of the validator's last tx.
        let balance = dec(&want["balance"]);
        assert!(got.validator.balance >= balance, "balance of {v}");
        assert_eq!(got.validator.active, balance > 0, "active {v}");
        // The owners, as the transaction that made it named them.
        for (owner, key) in [
            (
                &got.validator.remaining_balance_owner,
                "remainingBalanceOwner",
            ),
            (&got.validator.deactivation_owner, "deactivationOwner"),
        ] {
            let want_addresses: Vec<_> = want[key]["addresses"]
                .as_array()
                .map(|l| {
                    l.iter()
                        .map(|a| {
                            let bare = a.as_str().unwrap().trim_start_matches("P-");
                            firn_core::address::bech32_decode(bare).unwrap().1
                        })
                        .collect()
                })
                .unwrap_or_default();
            assert!(!want_addresses.is_empty(), "{key} of {v} names no address");
            assert_eq!(owner.addresses, want_addresses, "{key} of {v}");
            assert_eq!(
                owner.threshold,
                dec(&want[key]["threshold"]) as u32,
                "{key} of {v}"
            );
        }
        let txs = store
            .list_pchain_txs(
                &PTxFilter {
                    l1_validation_id: Some(*v),
                    ..Default::default()
                },
                SortOrder::Asc,
                &PageRequest::first(50),
            )
            .await
            .unwrap();
        assert!(!txs.items.is_empty(), "txs of {v}");
    }
}
