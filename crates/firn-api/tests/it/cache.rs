//! The response cache: a store-only page is rendered once per store generation (a repeat reads
//! nothing from the store), tagged with an `ETag` that `If-None-Match` turns into a 304, and
//! gives way to a fresh render as soon as a commit lands.

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use firn_store::testing::{count_reads, record_reads};
use firn_store::{PChainWriter, Store};

use crate::fixtures::seed;
use crate::harness::Api;

const P: &str = "/v1/networks/fuji/blockchains/p-chain";

pub async fn pages_are_rendered_once_per_commit(store: Store) {
    let mut world = seed(&store, 20, 5).await;
    let api = Api::new(store.clone());
    let uri = format!("{P}/transactions?pageSize=5&sortOrder=desc");

    record_reads(&store);
    let first = api.get(&uri).await;
    assert_eq!(first.status, StatusCode::OK, "{}", first.json);
    assert!(count_reads(&store) > 0, "the first request renders");
    let etag = first.headers[header::ETAG].clone();
    assert_eq!(first.headers[header::CACHE_CONTROL], "no-cache");
    assert_eq!(first.headers[header::CONTENT_TYPE], "application/json");

    record_reads(&store);
    let again = api.get(&uri).await;
    assert_eq!(
        count_reads(&store),
        0,
        "a repeat is answered from the cache"
    );
    assert_eq!(again.json, first.json);
    assert_eq!(again.headers[header::ETAG], etag);
    assert_eq!(again.headers[header::CONTENT_TYPE], "application/json");

    // The tag names the body: a client holding it gets a 304 without one.
    let conditional = Request::get(&uri)
        .header(header::IF_NONE_MATCH, etag.clone())
        .body(Body::empty())
        .unwrap();
    let not_modified = api.request(conditional).await;
    assert_eq!(not_modified.status, StatusCode::NOT_MODIFIED);
    assert_eq!(not_modified.json, serde_json::Value::Null, "no body");
    assert_eq!(not_modified.headers[header::ETAG], etag);

    // A commit: the next request renders the new head, with another tag.
    let block = world.p.next_block();
    store.commit_pchain_blocks(&[block]).await.unwrap();
    record_reads(&store);
    let after = api.get(&uri).await;
    assert!(count_reads(&store) > 0, "rendered again after the commit");
    assert_ne!(after.json, first.json, "the new block's txs come first");
    assert_ne!(after.headers[header::ETAG], etag);
    let conditional = Request::get(&uri)
        .header(header::IF_NONE_MATCH, etag)
        .body(Body::empty())
        .unwrap();
    assert_eq!(api.request(conditional).await.status, StatusCode::OK);

    // Errors are not kept or tagged, and node-backed or live routes are not cached.
    let bad = api.get(&format!("{P}/transactions?pageSize=0")).await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST);
    assert!(bad.headers.get(header::ETAG).is_none());
    let health = api.get("/v1/health-check").await;
    assert!(
        health.headers.get(header::ETAG).is_none(),
        "{:?}",
        health.headers
    );
}
