//! `/ext/metrics`: Prometheus' text format with the requests the node answered (by route
//! pattern and status) and what its chains hold now.

use firn_node::NodeConfig;
use serde_json::json;

use crate::common::*;

/// The value of the sample named exactly `series` (name and labels), if present.
fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
}

#[tokio::test]
async fn requests_chains_and_validators() {
    let d = Devnet::spawn(NodeConfig::test().with_evm()).await;
    let http = reqwest::Client::new();
    let scrape = || async {
        let resp = http
            .get(format!("{}/ext/metrics", d.url))
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 200);
        assert_eq!(
            resp.headers()["content-type"],
            "text/plain; version=0.0.4; charset=utf-8"
        );
        resp.text().await.unwrap()
    };

    d.p("platform.getHeight", json!({})).await;
    d.p("platform.getHeight", json!({})).await;
    let c_height = d
        .call_at("/ext/bc/C/rpc", "eth_blockNumber", json!([]))
        .await;
    let missing = http
        .post(format!("{}/ext/nowhere", d.url))
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status(), 404);

    let text = scrape().await;
    assert_eq!(
        sample(
            &text,
            r#"firn_node_requests_total{route="/ext/bc/P",status="200"}"#
        ),
        Some(2.0),
        "{text}"
    );
    assert_eq!(
        sample(
            &text,
            r#"firn_node_requests_total{route="/ext/bc/{chain}/rpc",status="200"}"#
        ),
        Some(1.0)
    );
    assert_eq!(
        sample(
            &text,
            r#"firn_node_errors_total{route="unmatched",status="404"}"#
        ),
        Some(1.0)
    );
    assert_eq!(
        sample(
            &text,
            r#"firn_node_request_duration_seconds_count{route="/ext/bc/P"}"#
        ),
        Some(2.0)
    );
    assert_eq!(
        sample(&text, r#"firn_node_chain_height{chain="P"}"#),
        Some(d.height().await as f64)
    );
    assert_eq!(
        sample(&text, r#"firn_node_chain_height{chain="C"}"#),
        Some(
            u64::from_str_radix(c_height.as_str().unwrap().trim_start_matches("0x"), 16).unwrap()
                as f64
        )
    );
    assert_eq!(
        sample(&text, r#"firn_node_mempool_txs{chain="C"}"#),
        Some(0.0)
    );
    assert!(
        sample(&text, r#"firn_node_evm_next_base_fee_wei{chain="C"}"#).unwrap() > 0.0,
        "{text}"
    );
    assert!(text.contains(&format!(
        "firn_node_info{{version=\"{}\",network_id=\"{}\"}} 1",
        env!("CARGO_PKG_VERSION"),
        d.chain.network().network_id
    )));

    // The primary network's validators as platform.getCurrentValidators lists them.
    let current = d.p("platform.getCurrentValidators", json!({})).await;
    let validators = current["validators"].as_array().unwrap();
    let weight: u64 = validators.iter().map(|v| dec(&v["weight"])).sum();
    let primary = r#"{subnet="11111111111111111111111111111111LpoYY"}"#;
    assert_eq!(
        sample(&text, &format!("firn_node_validators{primary}")),
        Some(validators.len() as f64)
    );
    let delegated: u64 = validators
        .iter()
        .filter_map(|v| v.get("delegatorWeight"))
        .map(dec)
        .sum();
    assert_eq!(
        sample(&text, &format!("firn_node_validator_weight{primary}")),
        Some((weight + delegated) as f64)
    );

    // Scrapes are counted too, and any method is served, as AvalancheGo's handler does.
    let posted = http
        .post(format!("{}/ext/metrics", d.url))
        .send()
        .await
        .unwrap();
    assert_eq!(posted.status(), 200);
    let again = posted.text().await.unwrap();
    assert_eq!(
        sample(
            &again,
            r#"firn_node_requests_total{route="/ext/metrics",status="200"}"#
        ),
        Some(1.0)
    );
}
