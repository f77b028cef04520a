//! Validators (`listValidators`, `getSingleValidatorDetails`) and pending rewards against what
//! the fixtures wrote, worked out here from the world, and the official schema.

use firn_core::ids::Id;
use firn_core::network::P_CHAIN_ID;
use firn_store::Store;
use firn_store::rows::pchain::NewStaker;
use serde_json::{Value, json};

use crate::fixtures::{SUPPLY, World, fuji, node, seed, short};
use crate::harness::Api;
use crate::schema::{assert_valid, official};

const NET: &str = "/v1/networks/fuji";
const AVAX: u64 = 1_000_000_000;

/// One validation as the world wrote it, with what the API must derive.
#[derive(Debug, Clone)]
struct Want {
    hash: Id,
    staker: NewStaker,
    status: &'static str,
    /// Open delegations (count, stake).
    delegations: (u64, u64),
}

fn wanted(world: &World) -> Vec<Want> {
    let mut out: Vec<Want> = world
        .stakers
        .iter()
        .filter(|(_, s, _)| !s.is_delegator)
        .map(|(hash, s, _)| {
            let open = world.stakers.iter().filter(|(_, d, rewarded)| {
                d.is_delegator
                    && !rewarded
                    && d.node_id == s.node_id
                    && d.start_ts >= s.start_ts
                    && d.end_ts <= s.end_ts
            });
            Want {
                hash: *hash,
                staker: s.clone(),
                status: "active",
                delegations: open.fold((0, 0), |(n, w), (_, d, _)| (n + 1, w + d.weight)),
            }
        })
        .collect();
    for (i, (hash, s)) in world.subnet_validators.iter().enumerate() {
        out.push(Want {
            hash: *hash,
            staker: s.clone(),
            status: ["active", "removed", "completed"][i],
            delegations: (0, 0),
        });
    }
    // Newest first: the subnet validators came after the primary network's.
    out.reverse();
    out
}

/// The last six characters of `s` (the fixtures' node IDs differ at the end).
fn tail(s: &str) -> &str {
    &s[s.len() - 6..]
}

fn hashes(items: &[Value]) -> Vec<String> {
    items
        .iter()
        .map(|v| v["txHash"].as_str().unwrap().to_owned())
        .collect()
}

fn of(want: &[Want], keep: &(dyn Fn(&Want) -> bool + Send + Sync)) -> Vec<String> {
    want.iter()
        .filter(|w| keep(w))
        .map(|w| w.hash.to_string())
        .collect()
}

pub async fn validators_match_the_store(store: Store) {
    let world = seed(&store, 3, 0).await;
    let api = Api::new(store);
    let doc = official();
    let validate = |path: &str, body: &Value| match &doc {
        Some(doc) => assert_valid(doc, "get", path, body),
        None => eprintln!("SKIPPED schema check: shared/openapi/data-api.openapi.json not found"),
    };
    let now = world.p.ts;
    let want = wanted(&world);
    let list = format!("{NET}/validators");

    // Every validation, newest first, two a page; each page valid against the official file.
    let all = api.all_pages(&format!("{list}?"), "validators", 2).await;
    assert_eq!(hashes(&all), of(&want, &|_| true));
    for page in [
        "?pageSize=3",
        "?pageSize=3&sortOrder=asc",
        "?validationStatus=removed",
    ] {
        validate(
            "/v1/networks/{network}/validators",
            &api.ok(&format!("{list}{page}")).await,
        );
    }
    let active_stake: u64 = want
        .iter()
        .filter(|w| w.status == "active" && w.staker.subnet_id == P_CHAIN_ID)
        .map(|w| w.staker.weight)
        .sum();
    for (v, w) in all.iter().zip(&want) {
        let s = &w.staker;
        let primary = s.subnet_id == P_CHAIN_ID;
        assert_eq!(v["validationStatus"], w.status, "{}", w.hash);
        assert_eq!(v["nodeId"], s.node_id.to_string());
        assert_eq!(v["amountStaked"], s.weight.to_string());
        assert_eq!(
            (v["startTimestamp"].as_u64(), v["endTimestamp"].as_u64()),
            (Some(s.start_ts), Some(s.end_ts))
        );
        // Uptime is the node's: 99.5 % and connected for node 0, 0 and disconnected for node
        // 1, never observed (0) for node 2; subnet validations share their node's.
        let (uptime, reachable) = match s.node_id {
            n if n == node(0) => (99.5, 100.0),
            _ => (0.0, 0.0),
        };
        match w.status {
            "active" => {
                assert_eq!(v["uptimePerformance"], uptime, "{v}");
                assert_eq!(v["validatorHealth"]["reachabilityPercent"], reachable);
                assert_eq!(v["geolocation"], Value::Null);
                assert!(v.as_object().unwrap().contains_key("geolocation"));
                assert_eq!(v["delegatorCount"], w.delegations.0);
                assert_eq!(v["amountDelegated"], w.delegations.1.to_string());
                assert_eq!(
                    v["potentialRewards"]["validationRewardAmount"],
                    s.estimated_reward.unwrap_or(0).to_string()
                );
                if primary {
                    assert_eq!(v["delegationFee"], "2");
                    let most = (s.weight * 5).min(3_000_000 * AVAX);
                    let capacity = most.saturating_sub(s.weight + w.delegations.1);
                    assert_eq!(v["delegationCapacity"], capacity.to_string());
                    let share = s.weight as f64 * 100.0 / active_stake as f64;
                    assert!((v["stakePercentage"].as_f64().unwrap() - share).abs() < 1e-9);
                } else {
                    assert_eq!(v.get("delegationFee"), None);
                    assert_eq!(v.get("delegationCapacity"), None);
                    assert_eq!(v["stakePercentage"], 100.0, "the subnet's only active one");
                }
            }
            "removed" => {
                assert_eq!(v["removeTxHash"], world.removal_tx.to_string());
                assert!(v["removeTimestamp"].as_u64().unwrap() > s.start_ts);
                assert_eq!(v.get("uptimePerformance"), None);
            }
            "completed" => {
                assert_eq!(
                    v["rewards"],
                    json!({"validationRewardAmount": "0", "delegationRewardAmount": "0", "rewardAddresses": []})
                );
                assert_eq!(v["delegatorCount"], 0);
            }
            other => panic!("unexpected status {other}"),
        }
    }
    // Node 0's primary validation has open delegations worth checking against.
    assert!(want.iter().any(|w| w.delegations.0 > 0), "{want:?}");

    // Filters on stored values.
    let subnet = world.subnet;
    type Keep = Box<dyn Fn(&Want) -> bool + Send + Sync>;
    let filters: Vec<(String, Keep)> = vec![
        (
            "validationStatus=removed".into(),
            Box::new(|w| w.status == "removed"),
        ),
        (
            "validationStatus=completed".into(),
            Box::new(|w| w.status == "completed"),
        ),
        (
            "validationStatus=active".into(),
            Box::new(|w| w.status == "active"),
        ),
        ("validationStatus=pending".into(), Box::new(|_| false)),
        (
            "subnetId=11111111111111111111111111111111LpoYY".into(),
            Box::new(|w| w.staker.subnet_id == P_CHAIN_ID),
        ),
        (
            format!("subnetId={subnet}"),
            Box::new(move |w| w.staker.subnet_id == subnet),
        ),
        (
            format!("nodeIds={}", node(0)),
            Box::new(|w| w.staker.node_id == node(0)),
        ),
        // Part of a node ID matches as a substring.
        (
            format!("nodeIds={}", tail(&node(1).to_string())),
            Box::new(|w| w.staker.node_id == node(1)),
        ),
        (
            "minUptimePerformance=50".into(),
            Box::new(|w| w.status == "active" && w.staker.node_id == node(0)),
        ),
        (
            "minFeePercentage=2".into(),
            Box::new(|w| w.staker.subnet_id == P_CHAIN_ID),
        ),
        (
            "minDelegationCapacity=1".into(),
            Box::new(|w| w.staker.subnet_id == P_CHAIN_ID && w.status == "active"),
        ),
        (
            "maxTimeRemaining=0".into(),
            Box::new(|w| w.status != "active"),
        ),
    ];
    for (query, keep) in &filters {
        let got = api
            .all_pages(&format!("{list}?{query}"), "validators", 2)
            .await;
        assert_eq!(hashes(&got), of(&want, keep), "{query}");
    }

    // Sorted by derived values: the key, then the staking position, in either direction,
    // one row a page.
    let position = |h: &str| {
        want.iter()
            .rev()
            .position(|w| w.hash.to_string() == h)
            .unwrap()
    };
    for (sort, key) in [
        ("uptimePerformance", "uptimePerformance"),
        ("delegationCapacity", "delegationCapacity"),
        ("timeRemaining", "endTimestamp"),
    ] {
        for order in ["asc", "desc"] {
            let got = api
                .all_pages(
                    &format!("{list}?sortBy={sort}&sortOrder={order}&validationStatus=active"),
                    "validators",
                    1,
                )
                .await;
            let value = |v: &Value| -> f64 {
                match &v[key] {
                    Value::String(s) => s.parse().unwrap(),
                    Value::Number(n) => n.as_f64().unwrap(),
                    _ => 0.0,
                }
            };
            let mut sorted = got.clone();
            sorted.sort_by(|a, b| {
                value(a).partial_cmp(&value(b)).unwrap().then(
                    position(a["txHash"].as_str().unwrap())
                        .cmp(&position(b["txHash"].as_str().unwrap())),
                )
            });
            if order == "desc" {
                sorted.reverse();
            }
            assert_eq!(hashes(&got), hashes(&sorted), "{sort} {order}");
            assert_eq!(
                got.len(),
                want.iter().filter(|w| w.status == "active").count()
            );
        }
    }

    // One node's validations, on every subnet.
    let one = api
        .all_pages(&format!("{list}/{}?", node(1)), "validators", 1)
        .await;
    validate(
        "/v1/networks/{network}/validators/{nodeId}",
        &api.ok(&format!("{list}/{}", node(1))).await,
    );
    assert_eq!(hashes(&one), of(&want, &|w| w.staker.node_id == node(1)));
    let removed = api
        .ok(&format!("{list}/{}?validationStatus=removed", node(1)))
        .await;
    assert_eq!(removed["validators"].as_array().unwrap().len(), 1);

    // Bad parameters.
    for (query, says) in [
        ("validationStatus=done", "validationStatus"),
        ("sortBy=stake", "sortBy"),
        ("minFeePercentage=1", "minFeePercentage"),
        ("maxUptimePerformance=101", "maxUptimePerformance"),
        ("minDelegationCapacity=-1", "minDelegationCapacity"),
        ("nodeIds=%21%21", "nodeIds"),
        ("subnetId=nope", "subnetId"),
    ] {
        api.get(&format!("{list}?{query}"))
            .await
            .assert_error(400, says);
    }
    api.get(&format!("{list}/NodeID-nope"))
        .await
        .assert_error(400, "node ID");

    // Pending rewards: stakers not yet rewarded, by reward address or node.
    let pending = format!("{NET}/rewards:listPending");
    let by_owner = api
        .all_pages(
            &format!("{pending}?addresses={}", fuji(100)),
            "pendingRewards",
            2,
        )
        .await;
    validate(
        "/v1/networks/{network}/rewards:listPending",
        &api.ok(&format!("{pending}?nodeIds={}", node(1))).await,
    );
    let unrewarded = |keep: &(dyn Fn(&NewStaker) -> bool + Send + Sync)| -> Vec<String> {
        world
            .stakers
            .iter()
            .rev()
            .filter(|(_, s, rewarded)| !rewarded && keep(s))
            .map(|(h, _, _)| h.to_string())
            .collect()
    };
    assert_eq!(
        hashes(&by_owner),
        unrewarded(&|s| s.reward_addresses.contains(&short(100)))
    );
    assert!(!by_owner.is_empty());
    for r in &by_owner {
        let (_, s, _) = world
            .stakers
            .iter()
            .find(|(h, _, _)| h.to_string() == r["txHash"])
            .unwrap();
        assert_eq!(
            r["rewardType"],
            if s.is_delegator {
                "DELEGATOR"
            } else {
                "VALIDATOR"
            }
        );
        // Delegators pay their validator no fee in the fixtures: they keep it all.
        assert_eq!(
            r["estimatedReward"]["amount"],
            s.estimated_reward.unwrap().to_string()
        );
        assert_eq!(r["estimatedReward"]["symbol"], "AVAX");
        let elapsed = now.saturating_sub(s.start_ts).min(s.end_ts - s.start_ts);
        let progress = elapsed as f64 * 100.0 / (s.end_ts - s.start_ts) as f64;
        assert!((r["progress"].as_f64().unwrap() - progress).abs() < 1e-9);
    }
    let by_node = api
        .all_pages(
            &format!("{pending}?nodeIds={}&sortOrder=asc", node(1)),
            "pendingRewards",
            3,
        )
        .await;
    let mut want_node = unrewarded(&|s| s.node_id == node(1) && s.subnet_id == P_CHAIN_ID);
    want_node.reverse();
    assert_eq!(hashes(&by_node), want_node);
    api.get(&pending)
        .await
        .assert_error(400, "addresses or nodeIds");
}

pub async fn network_details_match_the_store(store: Store) {
    // Before the indexer has read the supply: a 503 that says so.
    let empty = Api::new(store.clone());
    empty.get(NET).await.assert_error(503, "current supply");

    let world = seed(&store, 3, 0).await;
    let api = Api::new(store);
    let got = api.ok(NET).await;
    if let Some(doc) = official() {
        assert_valid(&doc, "get", "/v1/networks/{network}", &got);
    }
    let now = world.p.ts;
    let active: Vec<&NewStaker> = world
        .stakers
        .iter()
        .filter(|(_, s, rewarded)| !rewarded && s.start_ts <= now && s.end_ts > now)
        .map(|(_, s, _)| s)
        .collect();
    let of = |delegators: bool| active.iter().filter(move |s| s.is_delegator == delegators);
    let stake = |delegators: bool| of(delegators).map(|s| s.weight).sum::<u64>();
    let potential: u64 = active.iter().map(|s| s.estimated_reward.unwrap()).sum();
    let v = &got["validatorDetails"];
    assert_eq!(v["validatorCount"], of(false).count());
    assert_eq!(v["totalAmountStaked"], stake(false).to_string());
    assert_eq!(v["estimatedAnnualStakingReward"], potential.to_string());
    assert_eq!(v["stakingDistributionByVersion"], json!([]));
    let ratio: f64 = v["stakingRatio"].as_str().unwrap().parse().unwrap();
    let want = (stake(false) + stake(true)) as f64 / SUPPLY as f64;
    assert!((ratio - want).abs() < 1e-15, "{ratio} != {want}");
    let d = &got["delegatorDetails"];
    assert_eq!(d["delegatorCount"], of(true).count());
    assert_eq!(d["totalAmountStaked"], stake(true).to_string());
    assert!(of(true).count() > 0 && of(false).count() > 0);
    api.get("/v1/networks/mainnet")
        .await
        .assert_error(404, "not indexed");
}
