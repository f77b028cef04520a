//! Every validation rule and error status, in the official error format.

use std::time::Duration;

use axum::body::Body;
use axum::http::Request;
use firn_api::{ApiConfig, RateLimit};
use firn_store::Store;

use crate::fixtures::{CHAIN, evm_address, fuji, seed};
use crate::harness::Api;

const P: &str = "/v1/networks/fuji/blockchains/p-chain";

pub async fn bad_parameters_are_400_naming_the_parameter(store: Store) {
    seed(&store, 10, 10).await;
    let api = Api::new(store);
    let a = fuji(1);
    let cases: Vec<(String, &str)> = vec![
        (
            format!("{P}/transactions?pageSize=0"),
            "pageSize must not be less than 1",
        ),
        (
            format!("{P}/transactions?pageSize=101"),
            "pageSize must not be greater than 100",
        ),
        (
            format!("{P}/transactions?pageSize=ten"),
            "pageSize must be an integer",
        ),
        (
            format!("{P}/transactions?sortOrder=up"),
            "sortOrder must be one of",
        ),
        (
            format!("{P}/transactions?addresses={a}&startTimestamp=-1"),
            "startTimestamp must not be less than 0",
        ),
        (
            format!("{P}/transactions?addresses={a}&endTimestamp=x"),
            "endTimestamp must be an integer",
        ),
        (
            format!("{P}/transactions?addresses={a}&startTimestamp=9&endTimestamp=1"),
            "startTimestamp must be less than or equal",
        ),
        (
            format!("{P}/transactions?addresses={a}&txTypes=Nope"),
            "txTypes must be one of",
        ),
        (format!("{P}/transactions?txTypes=BaseTx"), "need addresses"),
        (
            format!("{P}/transactions?startTimestamp=1"),
            "need addresses",
        ),
        (
            format!("{P}/transactions?addresses=avax1xyz"),
            "addresses holds an invalid address",
        ),
        (
            format!("{P}/transactions?addresses=0x12"),
            "addresses holds an invalid address",
        ),
        (
            format!("{P}/transactions?addresses=0x{}", "ab".repeat(20)),
            "expected a fuji1… bech32 address, optionally prefixed",
        ),
        (
            "/v1/networks/fuji/blockchains/c-chain/transactions?addresses=0x12".to_owned(),
            "or an EVM 0x address",
        ),
        (
            format!("{P}/transactions?l1ValidationId=zz"),
            "l1ValidationId must be a cb58 ID",
        ),
        (
            format!("{P}/transactions?pageToken=%21%21"),
            "pageToken must be at most 512",
        ),
        (
            format!("{P}/transactions?pageToken=AAAA"),
            "pageToken is invalid",
        ),
        (
            format!("{P}/transactions?pageToken={}", "a".repeat(513)),
            "pageToken must be at most 512",
        ),
        (
            "/v1/networks/fuji/blockchains/q-chain/transactions".to_owned(),
            "blockchainId must be one of",
        ),
        (
            "/v1/networks/devnet/blockchains/p-chain/transactions".to_owned(),
            "network must be one of",
        ),
        (
            "/v1/networks/fuji/blockchains/x-chain/transactions:listStaking".to_owned(),
            "blockchainId must be the P-Chain",
        ),
        (
            format!("{P}/nodes/NodeID-bad/blocks"),
            "nodeId must be a node ID",
        ),
        (
            format!("{P}/blocks?startTimestamp=1.5"),
            "startTimestamp must be an integer",
        ),
        (
            "/v1/networks/fuji/addresses:listChainIds".to_owned(),
            "addresses should not be empty",
        ),
        (
            "/v1/networks/fuji/addresses:listChainIds?addresses=nope".to_owned(),
            "invalid address",
        ),
        (
            "/v1/networks/fuji/blockchains/not-an-id".to_owned(),
            "blockchainId must be a cb58",
        ),
        (
            "/v1/networks/fuji/rewards".to_owned(),
            "addresses or nodeIds is required",
        ),
        (
            "/v1/chains/18446744073709551615".to_owned(),
            "chain id 18446744073709551615 is out of range",
        ),
        (
            "/v1/networks/fuji/rewards?addresses=,".to_owned(),
            "addresses or nodeIds is required",
        ),
        (
            "/v1/networks/fuji/rewards?addresses=,&nodeIds=,,".to_owned(),
            "addresses or nodeIds is required",
        ),
        (
            format!("/v1/networks/fuji/rewards?addresses={a}&currency=btc"),
            "currency must be one of",
        ),
        (
            "/v1/networks/fuji/rewards?nodeIds=NodeID-x".to_owned(),
            "nodeIds holds an invalid node ID",
        ),
        (
            "/v1/networks/fuji/delegators?delegationStatus=done".to_owned(),
            "delegationStatus must be one of",
        ),
        (
            "/v1/networks/fuji/delegators?rewardAddresses=x".to_owned(),
            "rewardAddresses holds an invalid address",
        ),
        (
            "/v1/chains?network=devnet".to_owned(),
            "network must be one of",
        ),
        ("/v1/chains?feature=x".to_owned(), "feature must be one of"),
        (
            "/v1/chains/c-chainz/blocks".to_owned(),
            "chainId must be an EVM chain ID",
        ),
        (
            format!("/v1/chains/{CHAIN}/blocks?pageSize=1000"),
            "pageSize must not be greater than 100",
        ),
        (
            format!("/v1/chains/{CHAIN}/blocks/0xzz"),
            "blockId must be a block number or a block hash",
        ),
        (
            format!("/v1/chains/{CHAIN}/addresses/0x12/transactions:listErc20"),
            "address must be an EVM address",
        ),
        (
            format!(
                "/v1/chains/{CHAIN}/addresses/{:#x}/transactions:listErc20?startBlock=-1",
                evm_address(1)
            ),
            "startBlock must not be less than 0",
        ),
        (
            format!(
                "/v1/chains/{CHAIN}/addresses/{:#x}/transactions:listErc721?startBlock=5&endBlock=2",
                evm_address(1)
            ),
            "startBlock must be less than or equal to endBlock",
        ),
        (
            format!(
                "/v1/chains/{CHAIN}/addresses/{:#x}/balances:listCollectibles?pageSize=501",
                evm_address(1)
            ),
            "pageSize must not be greater than 500",
        ),
        (
            format!(
                "/v1/chains/{CHAIN}/addresses/{:#x}/balances:listCollectibles?contractAddress=0x1",
                evm_address(1)
            ),
            "contractAddress must be an EVM address",
        ),
        (
            format!(
                "/v1/chains/{CHAIN}/contracts/{:#x}/transactions:getDeployment?currency=xyz",
                evm_address(1)
            ),
            "currency must be one of",
        ),
        (
            format!(
                "/v1/chains/{CHAIN}/addresses/{:#x}/transactions?sortOrder=up",
                evm_address(1)
            ),
            "sortOrder must be one of",
        ),
        (
            format!(
                "/v2/chains/{CHAIN}/addresses/{:#x}/transactions?filterSpamTokens=yes",
                evm_address(1)
            ),
            "filterSpamTokens must be one of",
        ),
        (
            format!(
                "/v1/chains/{CHAIN}/addresses/{:#x}/transactions:listInternals?endBlock=x",
                evm_address(1)
            ),
            "endBlock",
        ),
        (
            format!("/v1/chains/{CHAIN}/tokens/0xabc/transfers"),
            "address must be an EVM address",
        ),
        (
            format!("/v1/chains/{CHAIN}/contracts/nope/deployments?pageSize=0"),
            "address must be an EVM address",
        ),
        (
            "/v1/transactions?network=devnet".to_owned(),
            "network must be one of",
        ),
        (
            "/v1/blocks?pageSize=101".to_owned(),
            "pageSize must not be greater than 100",
        ),
        ("/v1/blocks?pageToken=forged".to_owned(), "pageToken"),
    ];
    for (uri, needle) in cases {
        let r = api.get(&uri).await;
        assert_eq!(r.status.as_u16(), 400, "{uri}: {}", r.json);
        assert!(r.json["message"].is_array(), "{uri}: {}", r.json);
        r.assert_error(400, needle);
    }
    // Several problems are reported together.
    let r = api
        .get(&format!("{P}/transactions?pageSize=0&sortOrder=x"))
        .await;
    assert_eq!(r.json["message"].as_array().unwrap().len(), 2, "{}", r.json);
    // A collectibles page of 500 is fine.
    api.ok(&format!(
        "/v1/chains/{CHAIN}/addresses/{:#x}/balances:listCollectibles?pageSize=500",
        evm_address(1)
    ))
    .await;
}

pub async fn unknown_things_are_404(store: Store) {
    seed(&store, 5, 5).await;
    let api = Api::new(store);
    let cases: Vec<(String, &str)> = vec![
        ("/v1/nope".to_owned(), "Cannot GET /v1/nope"),
        ("/".to_owned(), "Cannot GET /"),
        (
            "/v1/networks/mainnet/blockchains/p-chain/blocks".to_owned(),
            "network mainnet is not indexed",
        ),
        (
            format!(
                "/v1/networks/fuji/blockchains/x-chain/transactions/{}",
                firn_core::ids::Id([9; 32])
            ),
            "not found",
        ),
        (
            "/v1/networks/fuji/blockchains/c-chain/nodes/NodeID-111111111111111111116DBWJs/blocks"
                .to_owned(),
            "not indexed by proposer",
        ),
        (
            "/v1/networks/fuji/blockchains/x-chain/nodes/NodeID-111111111111111111116DBWJs/blocks"
                .to_owned(),
            "not indexed by proposer",
        ),
        (
            format!(
                "/v1/networks/fuji/blockchains/x-chain/vertices/{}",
                firn_core::ids::Id([9; 32])
            ),
            "not found",
        ),
        (
            format!(
                "/v1/networks/fuji/blockchains/x-chain/assets/{}",
                firn_core::ids::Id([9; 32])
            ),
            "not found",
        ),
        (
            format!("/v1/icm/messages/{}", "ab".repeat(32)),
            "ICM message abab",
        ),
        (
            format!(
                "/v1/networks/fuji/blockchains/{}",
                firn_core::ids::Id([9; 32])
            ),
            "not found",
        ),
        ("/v1/chains/99999".to_owned(), "chain 99999 is not indexed"),
        (
            "/v1/chains/99999/blocks".to_owned(),
            "chain 99999 is not indexed",
        ),
        (
            format!("/v1/chains/{CHAIN}/blocks/100000"),
            "block 100000 not found",
        ),
        (
            format!("/v1/chains/{CHAIN}/blocks/0x{}", "ab".repeat(32)),
            "not found",
        ),
        (
            format!(
                "/v1/chains/{CHAIN}/contracts/{:#x}/transactions:getDeployment",
                evm_address(424242)
            ),
            "no deployment",
        ),
        (
            format!(
                "/v1/chains/99999/addresses/{:#x}/transactions",
                evm_address(1)
            ),
            "chain 99999 is not indexed",
        ),
        (
            format!("/v1/chains/{CHAIN}/addresses/{:#x}", evm_address(424242)),
            "no contract known",
        ),
    ];
    for (uri, needle) in cases {
        api.get(&uri).await.assert_error(404, needle);
    }
    // A wrong method is a 404 in the same format, as the official API answers.
    let r = api
        .request(Request::delete("/v1/chains").body(Body::empty()).unwrap())
        .await;
    r.assert_error(404, "Cannot DELETE /v1/chains");
}

pub async fn page_tokens_are_bound_to_their_query(store: Store) {
    seed(&store, 40, 5).await;
    let api = Api::new(store);
    let a = fuji(3);
    let first = api
        .get(&format!("{P}/transactions?addresses={a}&pageSize=2"))
        .await;
    let token = first.next_token().expect("more than one page");
    assert!(token.len() <= 512);
    assert!(
        token
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"+/=_-:.".contains(&b))
    );
    // Same filters, another page size: fine.
    api.ok(&format!(
        "{P}/transactions?addresses={a}&pageSize=3&pageToken={token}"
    ))
    .await;
    // Other filters, another path, another sort order: 400.
    for uri in [
        format!("{P}/transactions?addresses={}&pageToken={token}", fuji(4)),
        format!("{P}/transactions?pageToken={token}"),
        format!("{P}/transactions?addresses={a}&sortOrder=asc&pageToken={token}"),
        format!("{P}/transactions:listStaking?addresses={a}&pageToken={token}"),
    ] {
        api.get(&uri)
            .await
            .assert_error(400, "pageToken was issued for a different query");
    }
}

pub async fn api_keys_and_rate_limits(store: Store) {
    let limit = RateLimit {
        requests: 2,
        window: Duration::from_secs(3600),
    };
    let config = ApiConfig {
        api_keys: vec!["good-key".to_owned()],
        key_rate_limit: Some(RateLimit {
            requests: 3,
            ..limit
        }),
        ip_rate_limit: Some(limit),
        ..ApiConfig::default()
    };
    let api = Api::with_config(store, config);
    let get = |key: Option<(&'static str, &'static str)>| {
        let mut b = Request::get("/v1/live-check");
        if let Some((h, v)) = key {
            b = b.header(h, v);
        }
        b.body(Body::empty()).unwrap()
    };
    // A wrong key is 401 on either header.
    api.request(get(Some(("x-glacier-api-key", "bad"))))
        .await
        .assert_error(401, "Invalid API key");
    api.request(get(Some(("x-service-api-key", "bad"))))
        .await
        .assert_error(401, "Invalid API key");
    // Without a key: the per-IP limit of 2.
    for remaining in ["1", "0"] {
        let r = api.request(get(None)).await;
        assert_eq!(r.status, 200);
        assert_eq!(r.headers["ratelimit-limit"], "2");
        assert_eq!(r.headers["ratelimit-remaining"], remaining);
        assert_eq!(r.headers["ratelimit-policy"], "2;w=3600");
    }
    let r = api.request(get(None)).await;
    r.assert_error(429, "Too Many Requests");
    assert!(
        r.headers["retry-after"]
            .to_str()
            .unwrap()
            .parse::<u64>()
            .unwrap()
            > 0
    );
    assert!(r.headers.contains_key("ratelimit-reset"));
    // A good key has its own window of 3, on either header.
    for h in [
        "x-glacier-api-key",
        "x-service-api-key",
        "x-glacier-api-key",
    ] {
        let r = api.request(get(Some((h, "good-key")))).await;
        assert_eq!(r.status, 200, "{h}");
        assert_eq!(r.headers["ratelimit-limit"], "3");
    }
    api.request(get(Some(("x-glacier-api-key", "good-key"))))
        .await
        .assert_error(429, "Too Many Requests");
}

/// With `require_api_key` the keys are access control: no key or a wrong one is 401, and a
/// client guessing keys is slowed to 429 before it gets far.
pub async fn required_keys_refuse_and_slow_down_guessing(store: Store) {
    let config = ApiConfig {
        api_keys: vec!["good-key".to_owned()],
        require_api_key: true,
        ..ApiConfig::default()
    };
    let api = Api::with_config(store, config);
    let get = |key: Option<String>| {
        let mut b = Request::get("/v1/live-check");
        if let Some(k) = key {
            b = b.header("x-glacier-api-key", k);
        }
        b.body(Body::empty()).unwrap()
    };
    api.request(get(None))
        .await
        .assert_error(401, "An API key is required");
    assert_eq!(api.request(get(Some("good-key".into()))).await.status, 200);
    let mut statuses = Vec::new();
    for i in 0..40 {
        statuses.push(
            api.request(get(Some(format!("guess-{i}"))))
                .await
                .status
                .as_u16(),
        );
    }
    // 30 wrong tries a minute (the missing key above counted as one), then 429s.
    assert_eq!(statuses.iter().filter(|s| **s == 401).count(), 29);
    assert_eq!(statuses.iter().filter(|s| **s == 429).count(), 11);
    // The good key still works: guessing did not lock its owner out.
    assert_eq!(api.request(get(Some("good-key".into()))).await.status, 200);
}

pub async fn no_limits_by_default_and_body_limit(store: Store) {
    let config = ApiConfig {
        body_limit: 16,
        ..ApiConfig::default()
    };
    let api = Api::with_config(store, config);
    for _ in 0..20 {
        let r = api.get("/v1/live-check").await;
        assert_eq!(r.status, 200);
        assert!(!r.headers.contains_key("ratelimit-limit"));
    }
    let big = Request::post("/v1/chains")
        .header("content-type", "application/json")
        .header("content-length", "100")
        .body(Body::from(vec![b' '; 100]))
        .unwrap();
    api.request(big)
        .await
        .assert_error(413, "larger than 16 bytes");
}
