//! The Metrics API's `GET /v1/avg_tps/{chainId}`: values against the blocks written, paging by
//! token and by the legacy `startKey`, token expiry on a virtual clock, and error statuses.

use firn_store::Store;

use crate::fixtures::CHAIN;
use crate::harness::Api;
use crate::metrics_history::{DAY, History, assert_close, metrics_api};

/// Follows `nextPageToken` from `uri` and returns every point, checking each response.
async fn all_points(api: &Api, uri: &str, history: &History) -> Vec<serde_json::Value> {
    let mut points = Vec::new();
    let mut token: Option<String> = None;
    loop {
        let url = match &token {
            Some(t) => format!("{uri}&pageToken={t}"),
            None => uri.to_owned(),
        };
        let r = api.get(&url).await;
        assert_eq!(r.status, 200, "{url}: {}", r.json);
        assert_eq!(r.json["status"], 200);
        assert_eq!(r.json["lastRun"], history.last_ts());
        points.extend(r.json["results"].as_array().unwrap().clone());
        match r.next_token() {
            Some(t) => {
                // Opaque, and within what the official clients accept (data-api-facts).
                assert!(t.len() <= 512, "{t}");
                assert!(
                    t.bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b"-_".contains(&b))
                );
                token = Some(t);
            }
            None => return points,
        }
    }
}

pub async fn avg_tps_matches_the_blocks(store: Store) {
    let (api, history, _) = metrics_api(&store).await;
    let days = history.days_desc();
    assert!(days.len() >= 30, "history spans {} days", days.len());
    let points = all_points(&api, &format!("/v1/avg_tps/{CHAIN}?pageSize=7"), &history).await;
    assert_eq!(
        points.len(),
        days.len(),
        "one point per day, empty days too"
    );
    let mut zero_days = 0;
    for (point, day) in points.iter().zip(&days) {
        assert_eq!(point["timestamp"], *day, "newest first, day-sized steps");
        let want = history.avg_tps(*day, day + DAY);
        if want == 0.0 {
            zero_days += 1;
        }
        assert_close(
            point["value"].as_f64().unwrap(),
            want,
            &format!("day {day}"),
        );
    }
    assert!(zero_days >= 2, "the history has empty days");
    // The default page holds every day of this history.
    let r = api.get(&format!("/v1/avg_tps/{CHAIN}")).await;
    assert_eq!(r.json["results"].as_array().unwrap().len(), days.len());
    assert!(r.json.get("nextPageToken").is_none(), "{}", r.json);
}

pub async fn avg_tps_legacy_start_key(store: Store) {
    let (api, history, _) = metrics_api(&store).await;
    let mut got = Vec::new();
    let mut key = history.last_ts().to_string();
    loop {
        let r = api
            .get(&format!("/v1/avg_tps/{CHAIN}?pageSize=10&startKey={key}"))
            .await;
        assert_eq!(r.status, 200, "{}", r.json);
        assert!(r.json.get("nextPageToken").is_none());
        got.extend(r.json["results"].as_array().unwrap().clone());
        match r.json.get("nextPageStartKey") {
            Some(k) => key = k.as_str().unwrap().to_owned(),
            None => break,
        }
    }
    let by_token = all_points(&api, &format!("/v1/avg_tps/{CHAIN}?pageSize=9"), &history).await;
    assert_eq!(got, by_token);
}

pub async fn avg_tps_tokens_expire_after_24_hours(store: Store) {
    let (api, _, clock) = metrics_api(&store).await;
    let first = api.get(&format!("/v1/avg_tps/{CHAIN}?pageSize=5")).await;
    let token = first.next_token().expect("more than five days");
    let next = format!("/v1/avg_tps/{CHAIN}?pageSize=5&pageToken={token}");
    clock.advance(DAY - 1);
    let page2 = api.get(&next).await;
    assert_eq!(page2.status, 200, "{}", page2.json);
    assert_eq!(page2.json["results"].as_array().unwrap().len(), 5);
    // A token cannot page another query.
    api.get(&format!("/v1/avg_tps/{CHAIN}?pageSize=6&pageToken={token}"))
        .await
        .assert_error(400, "different query");
    clock.advance(1);
    api.get(&next).await.assert_error(400, "expired");
    // Altered (or forged): its signature no longer checks.
    let mut altered = token.clone().into_bytes();
    altered[20] = if altered[20] == b'A' { b'B' } else { b'A' };
    let altered = String::from_utf8(altered).unwrap();
    api.get(&format!(
        "/v1/avg_tps/{CHAIN}?pageSize=5&pageToken={altered}"
    ))
    .await
    .assert_error(400, "unknown");
    api.get(&format!("/v1/avg_tps/{CHAIN}?pageToken=not-a-token"))
        .await
        .assert_error(400, "not a page token");
}

pub async fn avg_tps_error_statuses(store: Store) {
    let (api, _, _) = metrics_api(&store).await;
    api.get("/v1/avg_tps/99999")
        .await
        .assert_error(404, "not indexed");
    api.get("/v1/avg_tps/c-chain")
        .await
        .assert_error(400, "chainId");
    api.get("/v1/avg_tps/-1").await.assert_error(400, "chainId");
    api.get(&format!("/v1/avg_tps/{CHAIN}?pageSize=0"))
        .await
        .assert_error(400, "pageSize");
    api.get(&format!("/v1/avg_tps/{CHAIN}?startKey=x"))
        .await
        .assert_error(400, "startKey");
    api.get("/v1/nope")
        .await
        .assert_error(404, "Cannot GET /v1/nope");
}
