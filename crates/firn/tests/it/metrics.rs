//! The Metrics API over a month of devnet history: `firn up` generates 31 virtual days of EVM
//! activity, its indexer follows the node, and every point of every chain metric, at every
//! time interval, paged through to the end, must equal a direct computation from the blocks
//! the node serves (`eth_getBlockByNumber`, `eth_getBlockReceipts`, callTracer traces); so must
//! every rolling window, and the network-wide series and windows (`total`, `testnet`) combine
//! both chains'. Then `/v1/avg_tps` the same way, the L1 validator fees against the node
//! ([`crate::l1_fees`]), the AVAX supply against the node ([`crate::supply`]), native holders
//! of the composite query against `eth_getBalance` ([`crate::composite`]), and page tokens
//! expiring when the devnet's clock moves a day on.

use firn_core::atomic::{X2C_RATE, txs_from_ext_data};
use firn_core::ids::Id;
use firn_store::rows::metrics::Granularity;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};

use crate::devnet::{call, start_firn, stop, temp_dir};
use crate::up::{banner_value, get_json, wait_for};

/// One transaction as the metrics count it.
struct Tx {
    from: String,
    to: Option<String>,
    gas_used: u64,
    gas_price: u128,
    /// Contracts it created: itself (a creation tx) and CREATE/CREATE2 frames not reverted.
    deploys: u64,
}

struct Block {
    ts: u64,
    gas_used: u64,
    txs: Vec<Tx>,
    /// What its atomic txs burned of `avax` (their AVAX in less out), wei.
    atomic_burned: u128,
}

/// What the atomic txs in a block's `blockExtraData` burned of asset `avax`, wei.
fn atomic_burned(block: &Value, avax: Option<Id>) -> u128 {
    let (Some(extra), Some(avax)) = (block["blockExtraData"].as_str(), avax) else {
        return 0;
    };
    let bytes = hex::decode(extra.trim_start_matches("0x")).unwrap();
    txs_from_ext_data(&bytes, true)
        .unwrap()
        .iter()
        .map(|t| u128::from(t.unsigned().burned(avax)) * u128::from(X2C_RATE))
        .sum()
}

fn quantity(v: &Value) -> u128 {
    let s = v.as_str().unwrap_or_else(|| panic!("not a quantity: {v}"));
    u128::from_str_radix(s.trim_start_matches("0x"), 16).unwrap()
}

/// Creation frames under `frame` (its own included when `count_self`), skipping reverted
/// subtrees.
fn creations(frame: &Value, count_self: bool) -> u64 {
    if frame.get("error").is_some() {
        return 0;
    }
    let kind = frame["type"].as_str().unwrap_or_default();
    let own = u64::from(count_self && (kind == "CREATE" || kind == "CREATE2"));
    own + frame["calls"]
        .as_array()
        .map_or(0, |calls| calls.iter().map(|c| creations(c, true)).sum())
}

/// Every block of the chain at `path`, with what the metrics need of its txs.
/// `path`'s blocks; on the C-Chain (`avax`, the network's AVAX), with what their atomic txs
/// burned.
fn node_blocks(rpc: &str, path: &str, avax: Option<Id>) -> Vec<Block> {
    let eth = |method: &str, params: Value| call(rpc, path, method, params);
    let head = quantity(&eth("eth_blockNumber", json!([]))) as u64;
    (0..=head)
        .map(|n| {
            let tag = format!("0x{n:x}");
            let b = eth("eth_getBlockByNumber", json!([tag, true]));
            let txs = b["transactions"].as_array().unwrap();
            let mut out = Block {
                ts: quantity(&b["timestamp"]) as u64,
                gas_used: quantity(&b["gasUsed"]) as u64,
                txs: Vec::new(),
                atomic_burned: atomic_burned(&b, avax),
            };
            if txs.is_empty() {
                return out;
            }
            let receipts = eth("eth_getBlockReceipts", json!([tag]));
            let traces = eth(
                "debug_traceBlockByNumber",
                json!([tag, { "tracer": "callTracer" }]),
            );
            for ((tx, r), t) in txs
                .iter()
                .zip(receipts.as_array().unwrap())
                .zip(traces.as_array().unwrap())
            {
                let ok = quantity(&r["status"]) == 1;
                let frame = &t["result"];
                out.txs.push(Tx {
                    from: tx["from"].as_str().unwrap().to_lowercase(),
                    to: tx["to"].as_str().map(str::to_lowercase),
                    gas_used: quantity(&r["gasUsed"]) as u64,
                    gas_price: quantity(&r["effectiveGasPrice"]),
                    deploys: if ok {
                        u64::from(r["contractAddress"].is_string()) + creations(frame, false)
                    } else {
                        0
                    },
                });
            }
            out
        })
        .collect()
}

/// The metrics that are not running totals, over the blocks `idx` (consecutive indexes into
/// `blocks`, possibly none): a period's or a rolling window's values.
fn values_over(blocks: &[Block], idx: &[usize]) -> Vec<(&'static str, f64)> {
    let txs: Vec<&Tx> = idx.iter().flat_map(|&i| &blocks[i].txs).collect();
    let n = txs.len() as f64;
    let gas: u64 = idx.iter().map(|&i| blocks[i].gas_used).sum();
    let active: BTreeSet<&str> = txs
        .iter()
        .flat_map(|t| std::iter::once(t.from.as_str()).chain(t.to.as_deref()))
        .collect();
    let senders: BTreeSet<&str> = txs.iter().map(|t| t.from.as_str()).collect();
    let deployers: BTreeSet<&str> = txs
        .iter()
        .filter(|t| t.deploys > 0)
        .map(|t| t.from.as_str())
        .collect();
    let contracts: u64 = txs.iter().map(|t| t.deploys).sum();
    // Per block: seconds since the previous block (at least one).
    let dt = |i: usize| {
        let prev = if i == 0 {
            blocks[0].ts
        } else {
            blocks[i - 1].ts
        };
        blocks[i].ts.saturating_sub(prev).max(1) as f64
    };
    let max_of = |f: &dyn Fn(usize) -> f64| idx.iter().map(|&i| f(i)).fold(0.0, f64::max);
    // Averages run from the last block before the period to the period's last block.
    let span = idx.last().map_or(1.0, |&l| {
        let before = idx[0].checked_sub(1).map_or(blocks[0].ts, |p| blocks[p].ts);
        blocks[l].ts.saturating_sub(before).max(1) as f64
    });
    let avg = |total: f64| if idx.is_empty() { 0.0 } else { total / span };
    let prices = txs.iter().map(|t| t.gas_price as f64);
    vec![
        ("txCount", n),
        ("gasUsed", gas as f64),
        (
            "feesPaid",
            txs.iter()
                .map(|t| (t.gas_price * u128::from(t.gas_used)) as f64)
                .sum(),
        ),
        ("activeAddresses", active.len() as f64),
        ("activeSenders", senders.len() as f64),
        ("contracts", contracts as f64),
        ("deployers", deployers.len() as f64),
        ("avgTps", avg(n)),
        ("avgGps", avg(gas as f64)),
        ("maxTps", max_of(&|i| blocks[i].txs.len() as f64 / dt(i))),
        ("maxGps", max_of(&|i| blocks[i].gas_used as f64 / dt(i))),
        (
            "avgGasPrice",
            if txs.is_empty() {
                0.0
            } else {
                prices.clone().sum::<f64>() / n
            },
        ),
        ("maxGasPrice", prices.fold(0.0, f64::max)),
    ]
}

/// Every chain metric's value per period of `g`, from the chain's first period with a
/// transaction (the L1's genesis is dated 1970) to its last, oldest first: what the Metrics
/// API must serve.
fn direct(blocks: &[Block], g: Granularity) -> BTreeMap<&'static str, Vec<(u64, f64)>> {
    let mut by_period: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
    for (i, b) in blocks.iter().enumerate() {
        by_period.entry(g.start_of(b.ts)).or_default().push(i);
    }
    let first_tx = blocks.iter().find(|b| !b.txs.is_empty()).unwrap();
    let first = g.start_of(first_tx.ts);
    let last = *by_period.keys().last().unwrap();
    let mut out: BTreeMap<&'static str, Vec<(u64, f64)>> = BTreeMap::new();
    let (mut all_active, mut all_deployers) = (BTreeSet::new(), BTreeSet::new());
    let (mut cum_txs, mut cum_contracts) = (0u64, 0u64);
    let mut start = first;
    while start <= last {
        let idx = by_period.get(&start).cloned().unwrap_or_default();
        for t in idx.iter().flat_map(|&i| &blocks[i].txs) {
            cum_txs += 1;
            cum_contracts += t.deploys;
            all_active.insert(t.from.clone());
            all_active.extend(t.to.clone());
            if t.deploys > 0 {
                all_deployers.insert(t.from.clone());
            }
        }
        let cumulative = [
            ("cumulativeTxCount", cum_txs as f64),
            ("cumulativeAddresses", all_active.len() as f64),
            ("cumulativeContracts", cum_contracts as f64),
            ("cumulativeDeployers", all_deployers.len() as f64),
        ];
        for (name, v) in values_over(blocks, &idx).into_iter().chain(cumulative) {
            out.entry(name).or_default().push((start, v));
        }
        start = g.next(start);
    }
    out
}

/// The rolling windows the API serves, shortest first: how far back each reaches before the
/// tip and the period its start is rounded down to.
const WINDOWS: [(&str, u64, Granularity); 6] = [
    ("lastHour", 3_600, Granularity::Hour),
    ("lastDay", 86_400, Granularity::Hour),
    ("lastWeek", 7 * 86_400, Granularity::Hour),
    ("lastMonth", 30 * 86_400, Granularity::Day),
    ("last90Days", 90 * 86_400, Granularity::Day),
    ("lastYear", 365 * 86_400, Granularity::Day),
];

/// Every rolling-window metric of a chain, per window ending at `tip` (then all time).
fn direct_windows(blocks: &[Block], tip: u64) -> BTreeMap<&'static str, Vec<(&'static str, f64)>> {
    let mut out: BTreeMap<&'static str, Vec<(&'static str, f64)>> = BTreeMap::new();
    let windows = WINDOWS
        .iter()
        .map(|&(field, secs, g)| (field, g.start_of(tip.saturating_sub(secs - 1))))
        .chain([("allTime", 0)]);
    for (field, from) in windows {
        let idx: Vec<usize> = (0..blocks.len())
            .filter(|&i| blocks[i].ts >= from)
            .collect();
        for (name, v) in values_over(blocks, &idx) {
            out.entry(name).or_default().push((field, v));
        }
    }
    out
}

/// The network-wide value of chains whose values are `values` with `txs` transactions each:
/// maxima the highest, the average gas price weighted by transactions, the rest added up.
fn across(metric: &str, values: &[f64], txs: &[f64]) -> f64 {
    match metric {
        "maxTps" | "maxGps" | "maxGasPrice" => values.iter().copied().fold(0.0, f64::max),
        "avgGasPrice" => {
            let n: f64 = txs.iter().sum();
            if n == 0.0 {
                0.0
            } else {
                values.iter().zip(txs).map(|(v, t)| v * t).sum::<f64>() / n
            }
        }
        _ => values.iter().sum(),
    }
}

/// Every chain metric per period of `g` over several chains, from the oldest chain's first
/// period to the newest one's last, oldest first.
fn direct_network(chains: &[&[Block]], g: Granularity) -> BTreeMap<&'static str, Vec<(u64, f64)>> {
    let per_chain: Vec<_> = chains.iter().map(|b| direct(b, g)).collect();
    let first = per_chain.iter().map(|d| d["txCount"][0].0).min().unwrap();
    let last = per_chain
        .iter()
        .map(|d| d["txCount"].last().unwrap().0)
        .max()
        .unwrap();
    // A chain's value in the period starting at `start`: zero outside its own periods, but a
    // running total keeps its last value after them.
    let at = |d: &BTreeMap<&'static str, Vec<(u64, f64)>>, metric: &str, start: u64| {
        let points = &d[metric];
        match points.iter().find(|p| p.0 == start) {
            Some(p) => p.1,
            None if start > points.last().unwrap().0 && metric.starts_with("cumulative") => {
                points.last().unwrap().1
            }
            None => 0.0,
        }
    };
    let mut out: BTreeMap<&'static str, Vec<(u64, f64)>> = BTreeMap::new();
    let mut start = first;
    while start <= last {
        for &metric in per_chain[0].keys() {
            let values: Vec<f64> = per_chain.iter().map(|d| at(d, metric, start)).collect();
            let txs: Vec<f64> = per_chain.iter().map(|d| at(d, "txCount", start)).collect();
            out.entry(metric)
                .or_default()
                .push((start, across(metric, &values, &txs)));
        }
        start = g.next(start);
    }
    out
}

/// GET `url`: the status and the JSON body.
fn get(url: &str) -> (u16, Value) {
    let rest = url.strip_prefix("http://").unwrap();
    let (host, path) = rest.split_at(rest.find('/').unwrap());
    let (status, body) = crate::data_api::get(&format!("http://{host}"), path);
    (status[9..12].parse().unwrap(), body)
}

/// Every point of a series, following `nextPageToken` to the end; the pages it took.
fn all_points(first: &str) -> (Vec<(u64, f64)>, usize) {
    let mut points = Vec::new();
    let mut url = first.to_owned();
    for pages in 1.. {
        let (status, body) = get(&url);
        assert_eq!(status, 200, "{url}: {body}");
        for p in body["results"].as_array().unwrap() {
            points.push((
                p["timestamp"].as_u64().unwrap(),
                p["value"].as_f64().unwrap(),
            ));
        }
        match body["nextPageToken"].as_str() {
            Some(t) => url = format!("{first}&pageToken={t}"),
            None => return (points, pages),
        }
    }
    unreachable!()
}

#[track_caller]
fn assert_close(got: f64, want: f64, what: &str) {
    let tolerance = 1e-9 * want.abs().max(1.0);
    assert!(
        (got - want).abs() <= tolerance,
        "{what}: got {got}, want {want}"
    );
}

/// Compares every metric at every interval of `scope` (an EVM chain ID, `total`, `mainnet` or
/// `testnet`) with `want`, the direct computation per interval.
fn check_series(
    metrics: &str,
    scope: &str,
    want: impl Fn(Granularity) -> BTreeMap<&'static str, Vec<(u64, f64)>>,
) {
    let page_sizes = [
        (Granularity::Hour, "hour", 200),
        (Granularity::Day, "day", 7),
        (Granularity::Week, "week", 2),
        (Granularity::Month, "month", 1),
    ];
    for (g, interval, size) in page_sizes {
        let want = want(g);
        let periods = want["txCount"].len();
        assert!(
            periods >= 2,
            "{interval}: the history spans {periods} periods"
        );
        for (metric, points) in &want {
            let (got, pages) = all_points(&format!(
                "{metrics}/v2/chains/{scope}/metrics/{metric}?timeInterval={interval}&pageSize={size}"
            ));
            assert_eq!(
                pages,
                periods.div_ceil(size),
                "{scope} {metric} per {interval}: pages"
            );
            let got_times: Vec<u64> = got.iter().map(|p| p.0).collect();
            let want_times: Vec<u64> = points.iter().rev().map(|p| p.0).collect();
            assert_eq!(
                got_times, want_times,
                "{scope} {metric} per {interval}: periods, newest first"
            );
            for ((ts, value), (_, expected)) in got.iter().zip(points.iter().rev()) {
                assert_close(
                    *value,
                    *expected,
                    &format!("{scope} {metric} per {interval} at {ts}"),
                );
            }
        }
    }
}

/// Compares every rolling window of every metric of `scope` with `want`.
fn check_windows(
    metrics: &str,
    scope: &str,
    want: &BTreeMap<&'static str, Vec<(&'static str, f64)>>,
) {
    assert_eq!(want.len(), 13, "every ChainRollingWindowMetric");
    for (metric, windows) in want {
        let (status, body) = get(&format!(
            "{metrics}/v2/chains/{scope}/rollingWindowMetrics/{metric}"
        ));
        assert_eq!(status, 200, "{body}");
        for (field, expected) in windows {
            let got = body["result"][field]
                .as_f64()
                .unwrap_or_else(|| panic!("{scope} {metric}: no {field} in {body}"));
            assert_close(got, *expected, &format!("{scope} {metric} {field}"));
        }
    }
}

/// Compares every metric at every interval and every rolling window of the chain `chain_id`
/// with the direct computation, and the legacy `/v1/avg_tps`.
fn check_chain(metrics: &str, chain_id: u64, blocks: &[Block]) {
    check_series(metrics, &chain_id.to_string(), |g| direct(blocks, g));
    let tip = blocks.last().unwrap().ts;
    check_windows(metrics, &chain_id.to_string(), &direct_windows(blocks, tip));
    // The legacy daily average TPS, by UUID token and by startKey, equals the v2 series.
    let days = direct(blocks, Granularity::Day);
    let want: Vec<(u64, f64)> = days["avgTps"].iter().rev().copied().collect();
    let (by_token, _) = all_points(&format!("{metrics}/v1/avg_tps/{chain_id}?pageSize=5"));
    assert_eq!(by_token.len(), want.len());
    for ((ts, v), (wts, w)) in by_token.iter().zip(&want) {
        assert_eq!(ts, wts);
        assert_close(*v, *w, &format!("/v1/avg_tps {ts}"));
    }
    // The legacy keys: start at the newest day, follow `nextPageStartKey`.
    let mut by_key = Vec::new();
    let mut key = Some(want[0].0.to_string());
    while let Some(k) = key {
        let (status, body) = get(&format!(
            "{metrics}/v1/avg_tps/{chain_id}?pageSize=5&startKey={k}"
        ));
        assert_eq!(status, 200, "{body}");
        by_key.extend(
            body["results"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p["timestamp"].as_u64().unwrap()),
        );
        key = body["nextPageStartKey"].as_str().map(str::to_owned);
    }
    assert_eq!(
        by_key,
        want.iter().map(|p| p.0).collect::<Vec<_>>(),
        "/v1/avg_tps by startKey"
    );
}

#[test]
fn metrics_match_a_month_of_devnet_blocks_and_tokens_expire_on_its_clock() {
    let dir = temp_dir("metrics");
    let up = start_firn(
        "up",
        dir.path(),
        &[
            "--days",
            "31",
            "--transfers-per-day",
            "2",
            "--evm-txs-per-day",
            "16",
            "--seed",
            "firn-metrics",
            "--quiet-chain",
            "--api-addr",
            "127.0.0.1:0",
            "--metrics-addr",
            "127.0.0.1:0",
        ],
    );
    let api = banner_value(&up.banner, "Data API     ");
    let metrics = banner_value(&up.banner, "Metrics API  ");
    let chains = [
        (43113u64, "/ext/bc/C/rpc".to_owned()),
        (99999, {
            // The indexer lists the L1 once it has found it on the P-Chain.
            let l1 = wait_for(|| get_json(&format!("{api}/v1/chains/99999")));
            format!("/ext/bc/{}/rpc", l1["platformChainId"].as_str().unwrap())
        }),
    ];
    let avax: Id = call(
        &up.url,
        "/ext/bc/P",
        "platform.getStakingAssetID",
        json!({}),
    )["assetID"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let mut all_blocks = Vec::new();
    for (chain_id, path) in &chains {
        let head = quantity(&call(&up.url, path, "eth_blockNumber", json!([])));
        // Indexed up to the node's head.
        wait_for(|| {
            let b = get_json(&format!("{api}/v1/chains/{chain_id}/blocks?pageSize=1"))?;
            (b["blocks"][0]["blockNumber"].as_str()? == head.to_string()).then_some(())
        });
        let blocks = node_blocks(&up.url, path, (*chain_id == 43113).then_some(avax));
        let days = (blocks.last().unwrap().ts - blocks[0].ts) / 86_400;
        assert!(days >= 30, "chain {chain_id}: {days} days of blocks");
        check_chain(&metrics, *chain_id, &blocks);
        let active: BTreeSet<String> = blocks
            .iter()
            .flat_map(|b| &b.txs)
            .flat_map(|t| std::iter::once(t.from.clone()).chain(t.to.clone()))
            .collect();
        crate::composite::native_holders_match_the_node(
            &up.url, &metrics, *chain_id, path, &active,
        );
        all_blocks.push(blocks);
    }

    // Network-wide: both chains are the devnet's (testnet), none is mainnet.
    let histories: Vec<&[Block]> = all_blocks.iter().map(Vec::as_slice).collect();
    check_series(&metrics, "total", |g| direct_network(&histories, g));
    let tip = histories
        .iter()
        .map(|b| b.last().unwrap().ts)
        .max()
        .unwrap();
    let per_chain: Vec<_> = histories.iter().map(|b| direct_windows(b, tip)).collect();
    let mut want: BTreeMap<&'static str, Vec<(&'static str, f64)>> = BTreeMap::new();
    for (&metric, windows) in &per_chain[0] {
        for (i, (field, _)) in windows.iter().enumerate() {
            let values: Vec<f64> = per_chain.iter().map(|w| w[metric][i].1).collect();
            let txs: Vec<f64> = per_chain.iter().map(|w| w["txCount"][i].1).collect();
            want.entry(metric)
                .or_default()
                .push((field, across(metric, &values, &txs)));
        }
    }
    check_windows(&metrics, "total", &want);
    check_windows(&metrics, "testnet", &want);
    let (status, body) = get(&format!(
        "{metrics}/v2/chains/mainnet/metrics/txCount?timeInterval=day"
    ));
    assert_eq!(status, 404, "{body}");

    let l1_fees = crate::l1_fees::l1_fees_match_the_node(&up.url, &api, &metrics);
    let atomic_burned: u128 = all_blocks[0].iter().map(|b| b.atomic_burned).sum();
    assert!(atomic_burned > 0, "the history's atomic txs pay fees");
    let c_fees: u128 = all_blocks[0]
        .iter()
        .flat_map(|b| &b.txs)
        .map(|t| u128::from(t.gas_used) * t.gas_price)
        .sum::<u128>()
        + atomic_burned;
    crate::supply::supply_matches_the_node(&up.url, &api, c_fees, l1_fees.into());

    // A page token is valid for 24 hours of the devnet's clock.
    let first = format!("{metrics}/v2/chains/43113/metrics/txCount?timeInterval=day&pageSize=3");
    let (_, page) = get(&first);
    let token = page["nextPageToken"].as_str().unwrap().to_owned();
    let next = format!("{first}&pageToken={token}");
    assert_eq!(get(&next).0, 200, "fresh token");
    call(
        &up.url,
        "/ext/firn",
        "firn.advanceTime",
        json!({ "seconds": 86_401 }),
    );
    let (status, body) = get(&next);
    assert_eq!(status, 400, "{body}");
    assert!(body["message"].to_string().contains("expired"), "{body}");
    stop(up);
}
