//! The Metrics API's v2 routes: chain series for every interval checked against the blocks
//! written, rolling windows, the chain list, staking metrics, and error statuses.

use firn_core::ids::Id;
use firn_core::network::P_CHAIN_ID;
use firn_store::page::PageRequest;
use firn_store::rows::metrics::StakingMetrics;
use firn_store::{MetricsReader, SortOrder, Store};

use crate::fixtures::{CHAIN, evm_chain, seed};
use crate::harness::Api;
use crate::metrics_history::{DAY, History, assert_close, day_of, metrics_api};
use crate::schema::assert_valid;

/// Every point of a v2 series from `uri` (which has a `?`), following tokens.
async fn series(api: &Api, uri: &str) -> Vec<(u64, f64)> {
    api.all_pages(uri, "results", 6)
        .await
        .iter()
        .map(|p| {
            (
                p["timestamp"].as_u64().unwrap(),
                p["value"].as_f64().unwrap(),
            )
        })
        .collect()
}

/// Checks a daily series of `metric` against `want(day_start, day_end)`.
async fn check_daily(api: &Api, history: &History, metric: &str, want: impl Fn(u64, u64) -> f64) {
    let points = series(
        api,
        &format!("/v2/chains/{CHAIN}/metrics/{metric}?timeInterval=day"),
    )
    .await;
    let days = history.days_desc();
    assert_eq!(points.len(), days.len(), "{metric}: one point per day");
    for ((ts, value), day) in points.iter().zip(&days) {
        assert_eq!(ts, day, "{metric}: newest first");
        assert_close(*value, want(*day, day + DAY), &format!("{metric} on {day}"));
    }
}

pub async fn chain_metrics_match_the_blocks(store: Store) {
    let (api, h, _) = metrics_api(&store).await;
    check_daily(&api, &h, "txCount", |a, b| h.tx_count(a, b)).await;
    check_daily(&api, &h, "gasUsed", |a, b| h.gas_used(a, b)).await;
    check_daily(&api, &h, "feesPaid", |a, b| h.fees(a, b)).await;
    check_daily(&api, &h, "activeAddresses", |a, b| h.active_addresses(a, b)).await;
    check_daily(&api, &h, "avgTps", |a, b| h.avg_tps(a, b)).await;
    check_daily(&api, &h, "maxTps", |a, b| h.max_tps(a, b)).await;
    check_daily(&api, &h, "cumulativeTxCount", |_, b| h.cumulative_txs(b)).await;
    // The v2 twin of /v1/avg_tps.
    let v1 = api.ok(&format!("/v1/avg_tps/{CHAIN}")).await;
    let v2 = api
        .ok(&format!(
            "/v2/chains/{CHAIN}/metrics/avgTps?timeInterval=day"
        ))
        .await;
    assert_eq!(v1["results"], v2["results"]);
    // One chain indexed: the network-wide series are its own.
    for metric in ["txCount", "avgGasPrice", "maxTps", "cumulativeTxCount"] {
        let own = series(
            &api,
            &format!("/v2/chains/{CHAIN}/metrics/{metric}?timeInterval=day"),
        )
        .await;
        let total = series(
            &api,
            &format!("/v2/chains/total/metrics/{metric}?timeInterval=day"),
        )
        .await;
        assert_eq!(total, own, "total {metric}");
    }
    assert_eq!(
        api.ok("/v1/avg_tps/testnet").await["results"],
        v1["results"]
    );
}

pub async fn hours_weeks_months_and_time_range(store: Store) {
    let (api, h, _) = metrics_api(&store).await;
    // Hours of three days in the middle of the history.
    let from = h.first_day() + 20 * DAY;
    let to = from + 3 * DAY - 1;
    let points = series(
        &api,
        &format!(
            "/v2/chains/{CHAIN}/metrics/txCount?timeInterval=hour&startTimestamp={from}&endTimestamp={to}"
        ),
    )
    .await;
    assert_eq!(points.len(), 72);
    for (ts, value) in &points {
        assert_eq!(ts % 3_600, 0);
        assert_close(*value, h.tx_count(*ts, ts + 3_600), &format!("hour {ts}"));
    }
    // Weeks start on Monday; the first and last cover only part of the history.
    let weeks = series(
        &api,
        &format!("/v2/chains/{CHAIN}/metrics/txCount?timeInterval=week"),
    )
    .await;
    let total: f64 = weeks.iter().map(|p| p.1).sum();
    assert_close(total, h.tx_count(0, u64::MAX), "weeks add up");
    for (ts, value) in &weeks {
        assert_eq!((ts / DAY + 3) % 7, 0, "{ts} is a Monday");
        assert_close(*value, h.tx_count(*ts, ts + 7 * DAY), &format!("week {ts}"));
        let avg = h.avg_tps(*ts, ts + 7 * DAY);
        let got = api
            .ok(&format!(
                "/v2/chains/{CHAIN}/metrics/avgTps?timeInterval=week&startTimestamp={ts}&endTimestamp={ts}"
            ))
            .await;
        assert_close(
            got["results"][0]["value"].as_f64().unwrap(),
            avg,
            "weekly avgTps",
        );
    }
    // Distinct counts are exact per week and month too (not the sum of the days).
    let active = series(
        &api,
        &format!("/v2/chains/{CHAIN}/metrics/activeAddresses?timeInterval=week"),
    )
    .await;
    assert_eq!(active.len(), weeks.len());
    let daily_sum = |from: u64| -> f64 {
        (0..7)
            .map(|d| h.active_addresses(from + d * DAY, from + (d + 1) * DAY))
            .sum()
    };
    let mut fewer_than_the_days = 0;
    for (ts, value) in &active {
        let want = h.active_addresses(*ts, ts + 7 * DAY);
        assert_close(*value, want, &format!("active addresses in week {ts}"));
        fewer_than_the_days += usize::from(want < daily_sum(*ts));
    }
    assert!(
        fewer_than_the_days > 0,
        "an address active on two days of a week counts once"
    );
    for (interval, span) in [("month", 0), ("week", 7 * DAY)] {
        let senders = series(
            &api,
            &format!("/v2/chains/{CHAIN}/metrics/activeSenders?timeInterval={interval}"),
        )
        .await;
        for (ts, value) in &senders {
            let end = if span == 0 {
                month_after(*ts)
            } else {
                ts + span
            };
            assert_close(
                *value,
                h.active_senders(*ts, end),
                &format!("senders {interval} {ts}"),
            );
        }
    }
    // 2023-11-01, 2023-12-01: the history crosses one month boundary.
    let months = series(
        &api,
        &format!("/v2/chains/{CHAIN}/metrics/gasUsed?timeInterval=month"),
    )
    .await;
    assert_eq!(
        months.iter().map(|p| p.0).collect::<Vec<_>>(),
        [1_701_388_800, 1_698_796_800]
    );
    assert_close(months[0].1, h.gas_used(1_701_388_800, u64::MAX), "December");
    assert_close(months[1].1, h.gas_used(0, 1_701_388_800), "November");
    // A time range picks whole days.
    let mid = h.first_day() + 5 * DAY + 7;
    let days = series(
        &api,
        &format!(
            "/v2/chains/{CHAIN}/metrics/txCount?startTimestamp={mid}&endTimestamp={}",
            mid + 2 * DAY
        ),
    )
    .await;
    assert_eq!(
        days.iter().map(|p| p.0).collect::<Vec<_>>(),
        [day_of(mid) + 2 * DAY, day_of(mid) + DAY, day_of(mid)]
    );
}

pub async fn rolling_windows_and_chains(store: Store) {
    let (api, h, _) = metrics_api(&store).await;
    let tip = h.last_ts();
    let r = api
        .ok(&format!("/v2/chains/{CHAIN}/rollingWindowMetrics/txCount"))
        .await;
    let w = &r["result"];
    assert_close(
        w["allTime"].as_f64().unwrap(),
        h.tx_count(0, u64::MAX),
        "allTime",
    );
    let hour_start = |secs: u64| {
        let t = tip - (secs - 1);
        t - t % 3_600
    };
    assert_close(
        w["lastHour"].as_f64().unwrap(),
        h.tx_count(hour_start(3_600), u64::MAX),
        "lastHour",
    );
    assert_close(
        w["lastDay"].as_f64().unwrap(),
        h.tx_count(hour_start(DAY), u64::MAX),
        "lastDay",
    );
    assert_close(
        w["lastMonth"].as_f64().unwrap(),
        h.tx_count(day_of(tip - (30 * DAY - 1)), u64::MAX),
        "lastMonth",
    );
    let r = api
        .ok(&format!(
            "/v2/chains/{CHAIN}/rollingWindowMetrics/activeAddresses"
        ))
        .await;
    assert_close(
        r["result"]["allTime"].as_f64().unwrap(),
        h.active_addresses(0, u64::MAX),
        "distinct addresses ever",
    );
    // Distinct counts: every window counts its own set of addresses.
    type Count = fn(&History, u64, u64) -> f64;
    let distinct: [(&str, Count); 2] = [
        ("activeAddresses", History::active_addresses),
        ("activeSenders", History::active_senders),
    ];
    for (metric, count) in distinct {
        let w = api
            .ok(&format!("/v2/chains/{CHAIN}/rollingWindowMetrics/{metric}"))
            .await["result"]
            .clone();
        let windows = [
            ("lastHour", hour_start(3_600)),
            ("lastDay", hour_start(DAY)),
            ("lastWeek", hour_start(7 * DAY)),
            ("lastMonth", day_of(tip - (30 * DAY - 1))),
            ("last90Days", day_of(tip.saturating_sub(90 * DAY - 1))),
            ("lastYear", day_of(tip.saturating_sub(365 * DAY - 1))),
            ("allTime", 0),
        ];
        for (field, from) in windows {
            assert_close(
                w[field].as_f64().unwrap(),
                count(&h, from, u64::MAX),
                &format!("{metric} {field}"),
            );
        }
        assert!(
            w["lastHour"].as_f64() < w["lastMonth"].as_f64(),
            "{metric}: {w}"
        );
        // One chain indexed: the network-wide windows are its own.
        for network in ["total", "testnet"] {
            let all = api
                .ok(&format!(
                    "/v2/chains/{network}/rollingWindowMetrics/{metric}"
                ))
                .await;
            assert_eq!(all["result"], w, "{network} {metric}");
        }
    }
    api.get("/v2/chains/mainnet/rollingWindowMetrics/txCount")
        .await
        .assert_error(404, "no mainnet chain is indexed");
    api.get(&format!(
        "/v2/chains/{CHAIN}/rollingWindowMetrics/cumulativeTxCount"
    ))
    .await
    .assert_error(400, "metric must be one of");

    let chain = evm_chain(CHAIN);
    let want = serde_json::json!({
        "evmChainId": CHAIN,
        "chainName": chain.name,
        "blockchainId": chain.blockchain_id.to_string(),
        "subnetId": chain.subnet_id.to_string(),
        "network": "testnet",
    });
    assert_eq!(
        api.ok("/v2/chains").await,
        serde_json::json!({ "chains": [want.clone()] })
    );
    assert_eq!(
        api.ok("/v2/chains?network=fuji").await["chains"],
        serde_json::json!([want.clone()])
    );
    assert_eq!(
        api.ok("/v2/chains?network=mainnet").await["chains"],
        serde_json::json!([])
    );
    assert_eq!(api.ok(&format!("/v2/chains/{CHAIN}")).await, want);
    api.get("/v2/chains/1")
        .await
        .assert_error(404, "not indexed");
    api.get("/v2/chains?network=moon")
        .await
        .assert_error(400, "network");
}

pub async fn v2_error_statuses(store: Store) {
    let (api, _, clock) = metrics_api(&store).await;
    let base = format!("/v2/chains/{CHAIN}/metrics");
    api.get(&format!("{base}/tps"))
        .await
        .assert_error(400, "metric must be one of");
    api.get(&format!("{base}/txCount?timeInterval=year"))
        .await
        .assert_error(400, "timeInterval must be one of");
    api.get(&format!("{base}/txCount?startTimestamp=10&endTimestamp=5"))
        .await
        .assert_error(400, "startTimestamp");
    api.get(&format!("{base}/txCount?pageSize=2161"))
        .await
        .assert_error(400, "pageSize must not be greater than 2160");
    api.get("/v2/chains/12345/metrics/txCount")
        .await
        .assert_error(404, "not indexed");
    api.get("/v2/chains/abc/metrics/txCount")
        .await
        .assert_error(400, "chainId");
    api.get("/v2/chains/totals/metrics/txCount")
        .await
        .assert_error(400, "or one of total, mainnet, testnet");
    api.get("/v2/chains/mainnet/metrics/txCount")
        .await
        .assert_error(404, "no mainnet chain is indexed");
    api.get("/v2/chains/total")
        .await
        .assert_error(400, "chainId");
    let first = api.get(&format!("{base}/txCount?pageSize=3")).await;
    let token = first.next_token().unwrap();
    api.get(&format!("{base}/gasUsed?pageSize=3&pageToken={token}"))
        .await
        .assert_error(400, "different query");
    clock.advance(DAY);
    api.get(&format!("{base}/txCount?pageSize=3&pageToken={token}"))
        .await
        .assert_error(400, "expired");
}

pub async fn staking_metrics_follow_the_store(store: Store) {
    seed(&store, 3, 0).await;
    let api = Api::metrics(store.clone());
    let want = store
        .list_staking_metrics(
            P_CHAIN_ID,
            None,
            None,
            SortOrder::Desc,
            &PageRequest::first(2_160),
        )
        .await
        .unwrap()
        .items;
    assert!(!want.is_empty());
    for (metric, pick) in [
        (
            "validatorCount",
            (|m| m.validator_count as f64) as fn(&StakingMetrics) -> f64,
        ),
        ("validatorWeight", |m| m.validator_weight as f64),
        ("delegatorCount", |m| m.delegator_count as f64),
        ("delegatorWeight", |m| m.delegator_weight as f64),
    ] {
        let got: Vec<(u64, f64)> = api
            .all_pages(
                &format!("/v2/networks/fuji/metrics/{metric}?"),
                "results",
                1,
            )
            .await
            .iter()
            .map(|p| {
                (
                    p["timestamp"].as_u64().unwrap(),
                    p["value"].as_f64().unwrap(),
                )
            })
            .collect();
        let expected: Vec<(u64, f64)> = want.iter().map(|m| (m.day, pick(m))).collect();
        assert_eq!(got, expected, "{metric}");
    }
    assert!(want[0].validator_count > 0 && want[0].delegator_count > 0);
    let other = Id([9; 32]);
    assert_eq!(
        api.ok(&format!(
            "/v2/networks/testnet/metrics/validatorCount?subnetId={other}"
        ))
        .await["results"],
        serde_json::json!([])
    );
    api.get("/v2/networks/mainnet/metrics/validatorCount")
        .await
        .assert_error(404, "not the network");
    api.get("/v2/networks/moon/metrics/validatorCount")
        .await
        .assert_error(400, "network must be one of");
    api.get("/v2/networks/fuji/metrics/stake")
        .await
        .assert_error(400, "metric must be one of");
    api.get("/v2/networks/fuji/metrics/validatorCount?subnetId=zzz")
        .await
        .assert_error(400, "subnetId");
}

/// The official Metrics API document, or `None` (the caller prints that it skipped).
pub fn official_metrics_doc() -> Option<serde_json::Value> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/openapi/metrics-api.openapi.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()
}

pub async fn responses_match_the_official_schemas(store: Store) {
    let Some(doc) = official_metrics_doc() else {
        eprintln!("SKIPPED responses_match_the_official_schemas: no metrics-api.openapi.json");
        return;
    };
    let (api, _, _) = metrics_api(&store).await;
    seed(&store, 2, 0).await;
    let check = async |uri: String, path: &str| {
        let value = api.ok(&uri).await;
        assert_valid(&doc, "get", path, &value);
    };
    check("/v2/chains".into(), "/v2/chains").await;
    check("/v2/health-check".into(), "/v2/health-check").await;
    check("/v2/live-check".into(), "/v2/live-check").await;
    check(format!("/v2/chains/{CHAIN}"), "/v2/chains/{chainId}").await;
    for metric in ["txCount", "avgTps", "maxGasPrice", "cumulativeContracts"] {
        check(
            format!("/v2/chains/{CHAIN}/metrics/{metric}?pageSize=3"),
            "/v2/chains/{chainId}/metrics/{metric}",
        )
        .await;
    }
    check(
        format!("/v2/chains/{CHAIN}/rollingWindowMetrics/avgGps"),
        "/v2/chains/{chainId}/rollingWindowMetrics/{metric}",
    )
    .await;
    check(
        "/v2/networks/fuji/metrics/delegatorWeight?pageSize=1".into(),
        "/v2/networks/{network}/metrics/{metric}",
    )
    .await;
}

/// 2023-11-01 → 2023-12-01, 2023-12-01 → 2024-01-01 (the history's months).
fn month_after(start: u64) -> u64 {
    match start {
        1_698_796_800 => 1_701_388_800,
        1_701_388_800 => 1_704_067_200,
        other => panic!("the history has no month starting {other}"),
    }
}
