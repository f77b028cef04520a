//! Request logs: batches written without moving the generation, newest-first pages scoped to
//! an API key, filters, metric samples grouped by a column, and retention.

use firn_store::page::LogCursor;
use firn_store::rows::usage::{RequestLogFilter, RequestLogRecord, UsageGroup};
use firn_store::{PageRequest, Store, UsageStore};

fn log(n: u64, key: &str, path: &str, status: u16) -> RequestLogRecord {
    RequestLogRecord {
        time_ms: 1_000 + n,
        log_id: format!("00000000-0000-0000-0000-{n:012}"),
        api_key_id: key.to_owned(),
        request_type: "data".to_owned(),
        path: path.to_owned(),
        chain_id: if path.starts_with("/v1/chains/43113") {
            "43113".to_owned()
        } else {
            String::new()
        },
        rpc_method: String::new(),
        primary_network: false,
        status,
        duration_ms: n,
        ip: "127.0.0.1".to_owned(),
        host: "localhost".to_owned(),
        user_agent: "test".to_owned(),
    }
}

fn all(key: &str) -> RequestLogFilter {
    RequestLogFilter {
        api_key_id: Some(key.to_owned()),
        from_ms: 0,
        to_ms: u64::MAX >> 2,
        ..RequestLogFilter::default()
    }
}

pub async fn request_logs_page_filter_and_prune(store: Store) {
    let generation = store.generation();
    let mut logs = Vec::new();
    for n in 0..7 {
        let path = if n % 2 == 0 {
            "/v1/chains/43113/blocks"
        } else {
            "/v1/health-check"
        };
        logs.push(log(n, "a", path, if n == 3 { 404 } else { 200 }));
    }
    logs.push(log(7, "b", "/v1/health-check", 200));
    store.record_requests(&logs).await.unwrap();
    // The same batch again (a retried flush) stores nothing twice.
    store.record_requests(&logs).await.unwrap();
    assert_eq!(store.generation(), generation, "logs are not index data");

    // Key a's logs, newest first, three to a page.
    let mut seen = Vec::new();
    let mut page = PageRequest::<LogCursor>::first(3);
    loop {
        let p = store.list_request_logs(&all("a"), &page).await.unwrap();
        seen.extend(p.items.iter().map(|l| l.time_ms - 1_000));
        match p.next {
            Some(c) => page = PageRequest::after(3, c),
            None => break,
        }
    }
    assert_eq!(seen, vec![6, 5, 4, 3, 2, 1, 0]);
    let b = store
        .list_request_logs(&all("b"), &PageRequest::first(10))
        .await
        .unwrap();
    assert_eq!(b.items, vec![logs[7].clone()]);

    // Filters.
    let chain = RequestLogFilter {
        chain_id: Some("43113".to_owned()),
        ..all("a")
    };
    let p = store
        .list_request_logs(&chain, &PageRequest::first(10))
        .await
        .unwrap();
    assert_eq!(p.items.len(), 4);
    let failed = RequestLogFilter {
        status: Some(404),
        ..all("a")
    };
    let p = store
        .list_request_logs(&failed, &PageRequest::first(10))
        .await
        .unwrap();
    assert_eq!(p.items, vec![logs[3].clone()]);
    let window = RequestLogFilter {
        from_ms: 1_002,
        to_ms: 1_004,
        ..all("a")
    };
    let p = store
        .list_request_logs(&window, &PageRequest::first(10))
        .await
        .unwrap();
    assert_eq!(p.items.len(), 2);

    // Samples grouped by status, oldest first, limited.
    let s = store
        .list_usage_samples(&all("a"), UsageGroup::Status, 100)
        .await
        .unwrap();
    let groups: Vec<&str> = s.iter().map(|s| s.group.as_str()).collect();
    assert_eq!(groups, ["200", "200", "200", "404", "200", "200", "200"]);
    assert_eq!(s[3].duration_ms, 3);
    let s = store
        .list_usage_samples(&all("a"), UsageGroup::Path, 2)
        .await
        .unwrap();
    assert_eq!(s.len(), 2);
    assert_eq!(s[1].group, "/v1/health-check");

    // Retention: by age, then by count.
    assert_eq!(store.prune_request_logs(1_002, 100).await.unwrap(), 2);
    assert_eq!(store.prune_request_logs(0, 3).await.unwrap(), 3);
    let left = RequestLogFilter {
        api_key_id: None,
        ..all("")
    };
    let p = store
        .list_request_logs(&left, &PageRequest::first(10))
        .await
        .unwrap();
    let times: Vec<u64> = p.items.iter().map(|l| l.time_ms - 1_000).collect();
    assert_eq!(times, vec![7, 6, 5]);
}
