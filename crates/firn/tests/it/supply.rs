//! `getAvaxSupply` checked against the devnet's node: every P-Chain block's transactions read
//! as JSON (what each burned: its inputs less its outputs, stakes and L1 validator balances;
//! what genesis created and still locks), `platform.getCurrentSupply`,
//! `platform.getCurrentValidators`, `platform.getBalance` of every address the chain paid,
//! the C-Chain's fees from its receipts, and the X-Chain's from its blocks.

use std::collections::BTreeSet;

use firn_core::calendar::rfc3339;
use serde_json::{Value, json};

use crate::devnet::call;
use crate::up::{get_json, wait_for};

const WEI_PER_NANO: u128 = 1_000_000_000;

fn u128_of(v: &Value) -> u128 {
    v.as_u64()
        .map(u128::from)
        .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
        .unwrap_or_else(|| panic!("not an amount: {v}"))
}

/// Wei of a decimal AVAX amount.
fn wei(v: &Value) -> u128 {
    let text = v.as_str().unwrap_or_else(|| panic!("not a string: {v}"));
    let (whole, frac) = text.split_once('.').unwrap_or((text, ""));
    assert!(frac.len() <= 18, "{text}");
    whole.parse::<u128>().unwrap() * 10u128.pow(18)
        + format!("{frac:0<18}").parse::<u128>().unwrap()
}

/// An output's amount, its lock's end (locktime or stakeable lock) and its owners.
fn output(o: &Value) -> (u128, u64, Vec<String>) {
    let out = &o["output"];
    // A stakeable lock wraps the transfer output: {"locktime", "output": {...}}.
    let (inner, stakeable) = match out.get("output") {
        Some(inner) => (inner, out["locktime"].as_u64().unwrap()),
        None => (out, 0),
    };
    let owners = inner["addresses"]
        .as_array()
        .map(|a| a.iter().map(|x| x.as_str().unwrap().to_owned()).collect())
        .unwrap_or_default();
    let locktime = inner["locktime"].as_u64().unwrap_or(0);
    (u128_of(&inner["amount"]), locktime.max(stakeable), owners)
}

fn input_amount(i: &Value) -> u128 {
    let input = &i["input"];
    u128_of(&input.get("input").unwrap_or(input)["amount"])
}

fn items<'a>(tx: &'a Value, field: &str) -> impl Iterator<Item = &'a Value> {
    tx[field].as_array().into_iter().flatten()
}

/// What the node's P-Chain blocks say.
#[derive(Default)]
struct PChain {
    /// Inputs less outputs, stakes and L1 validator balances, nAVAX.
    burned: u128,
    /// Block 0's outputs and stakes.
    genesis: u128,
    /// Block 0's outputs locked past the last block.
    genesis_locked: u128,
    /// Every address an output paid.
    owners: BTreeSet<String>,
    last_time: u64,
}

fn read_pchain(rpc: &str, height: u64, avax: &str) -> PChain {
    let mut p = PChain::default();
    let mut genesis_outputs = Vec::new();
    for h in 0..=height {
        let block = call(
            rpc,
            "/ext/bc/P",
            "platform.getBlockByHeight",
            json!({ "height": h.to_string(), "encoding": "json" }),
        )["block"]
            .clone();
        if let Some(t) = block["time"].as_u64() {
            p.last_time = t;
        }
        let txs: Vec<Value> = match (block.get("txs"), block.get("tx")) {
            (Some(list), _) => list.as_array().unwrap().clone(),
            (None, Some(tx)) => vec![tx.clone()],
            _ => Vec::new(),
        };
        for tx in &txs {
            let u = &tx["unsignedTx"];
            let avax_items = |field| items(u, field).filter(|x| x["assetID"] == avax);
            let consumed: u128 = avax_items("inputs")
                .chain(avax_items("importedInputs"))
                .map(input_amount)
                .sum();
            let mut produced = 0u128;
            for o in avax_items("outputs")
                .chain(avax_items("exportedOutputs"))
                .chain(avax_items("stake"))
            {
                let (amount, lock_end, owners) = output(o);
                produced += amount;
                p.owners.extend(owners);
                if h == 0 {
                    genesis_outputs.push((amount, lock_end));
                }
            }
            let balances: u128 = items(u, "validators")
                .map(|v| u128_of(&v["balance"]))
                .chain(u.get("balance").map(u128_of))
                .sum();
            p.burned += consumed.saturating_sub(produced + balances);
        }
    }
    p.genesis = genesis_outputs.iter().map(|(a, _)| a).sum();
    p.genesis_locked = genesis_outputs
        .iter()
        .filter(|(_, end)| *end > p.last_time)
        .map(|(a, _)| a)
        .sum();
    p
}

/// What the X-Chain's txs paid: `avm.getTxFee`'s fee of each one's kind, over every block.
fn x_fees(rpc: &str) -> u128 {
    let x_call = |method: &str, params: Value| call(rpc, "/ext/bc/X", method, params);
    let fees = x_call("avm.getTxFee", json!({}));
    let (tx_fee, create_fee) = (u128_of(&fees["txFee"]), u128_of(&fees["createAssetTxFee"]));
    let height = u128_of(&x_call("avm.getHeight", json!({}))["height"]) as u64;
    (0..=height)
        .flat_map(|h| {
            let b = x_call(
                "avm.getBlockByHeight",
                json!({"height": h.to_string(), "encoding": "json"}),
            );
            b["block"]["txs"].as_array().cloned().unwrap_or_default()
        })
        .map(|t| match t["unsignedTx"].get("initialStates") {
            Some(_) => create_fee,
            None => tx_fee,
        })
        .sum()
}

/// Checks `GET /v1/avax/supply` against the node once the indexer has its last P-Chain block:
/// `c_fees_wei` is what the C-Chain's receipts paid, `l1_fees` what the L1 validators paid
/// (nAVAX, checked against the node by [`crate::l1_fees`]).
pub fn supply_matches_the_node(rpc: &str, api: &str, c_fees_wei: u128, l1_fees: u128) {
    let p_call = |method: &str, params: Value| call(rpc, "/ext/bc/P", method, params);
    let height = u128_of(&p_call("platform.getHeight", json!({}))["height"]) as u64;
    let supply = u128_of(&p_call("platform.getCurrentSupply", json!({}))["supply"]);
    let avax = p_call("platform.getStakingAssetID", json!({}))["assetID"]
        .as_str()
        .unwrap()
        .to_owned();
    let p = read_pchain(rpc, height, &avax);
    let current = p_call("platform.getCurrentValidators", json!({}));
    // Each validator's own stake and its delegators' (listed only for a single node).
    let staked: u128 = current["validators"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| u128_of(&v["weight"]) + u128_of(&v["delegatorWeight"]))
        .sum();
    let owners: Vec<&String> = p.owners.iter().collect();
    let balance = p_call("platform.getBalance", json!({ "addresses": owners }));
    let locked = u128_of(&balance["lockedStakeable"]) + u128_of(&balance["lockedNotStakeable"]);

    let x_fees = x_fees(rpc);

    // The indexer has the last block and has read the supply at it, and has the X-Chain's.
    let got = wait_for(|| {
        let s = get_json(&format!("{api}/v1/avax/supply"))?;
        (s["lastUpdated"] == rfc3339(p.last_time)
            && wei(&s["totalRewards"]) > 0
            && wei(&s["totalXBurned"]) == x_fees * WEI_PER_NANO)
            .then_some(s)
    });
    let n = |v: u128| v * WEI_PER_NANO;
    let p_burned = p.burned + l1_fees;
    assert!(p.burned > 0 && l1_fees > 0 && c_fees_wei > 0 && locked > 0 && p.genesis_locked > 0);
    assert_eq!(wei(&got["totalPBurned"]), n(p_burned), "{got}");
    assert_eq!(wei(&got["l1ValidatorFees"]), n(l1_fees), "{got}");
    assert_eq!(wei(&got["totalCBurned"]), c_fees_wei, "{got}");
    assert!(x_fees > 0, "the history has X-Chain txs");
    assert_eq!(
        wei(&got["totalStaked"]),
        n(staked),
        "{got} (getCurrentValidators)"
    );
    assert_eq!(
        wei(&got["totalLocked"]),
        n(locked),
        "{got} (getBalance {balance})"
    );
    // The node's supply is genesis plus the rewards minted.
    assert_eq!(
        wei(&got["totalRewards"]),
        n(supply - p.genesis),
        "{got} (getCurrentSupply {supply}, genesis {})",
        p.genesis
    );
    assert_eq!(
        wei(&got["genesisUnlock"]),
        n(p.genesis - p.genesis_locked),
        "{got}"
    );
    let total = n(supply) - n(p_burned) - c_fees_wei - n(x_fees);
    assert_eq!(wei(&got["totalSupply"]), total, "{got}");
    assert_eq!(
        wei(&got["circulatingSupply"]),
        total - n(p.genesis_locked),
        "{got}"
    );
}
