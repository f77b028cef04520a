//! The go-ethereum envelope, in process and over HTTP.

use std::sync::atomic::Ordering;

use axum::http::{Method, StatusCode};
use serde_json::json;

use crate::common::Harness;

const RPC: &str = "/ext/bc/C/rpc";

#[tokio::test]
async fn success_has_geth_key_order_and_newline() {
    for (h, _) in Harness::both().await {
        let r = h
            .post(
                RPC,
                r#"{"jsonrpc":"2.0","id":1,"method":"web3_clientVersion","params":[]}"#,
            )
            .await;
        assert_eq!(r.status, StatusCode::OK, "{}", h.name());
        assert_eq!(
            r.body,
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"firn/v0.1.0\"}\n"
        );
        assert_eq!(r.header("content-type"), Some("application/json"));
        // params may be absent or null
        let r = h
            .post(
                RPC,
                r#"{"jsonrpc":"2.0","id":"a","method":"web3_clientVersion","params":null}"#,
            )
            .await;
        assert_eq!(r.json()["result"], "firn/v0.1.0");
        let r = h
            .post(
                RPC,
                r#"{"jsonrpc":"2.0","id":2,"method":"web3_clientVersion"}"#,
            )
            .await;
        assert_eq!(r.json()["result"], "firn/v0.1.0");
    }
}

#[tokio::test]
async fn error_codes_and_messages_follow_geth() {
    let cases = [
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"eth_foo","params":[]}"#,
            -32601,
            "the method eth_foo does not exist/is not available",
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"test_add","params":["x"]}"#,
            -32602,
            "invalid argument 0: invalid type: string \"x\", expected u64",
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"test_add","params":[]}"#,
            -32602,
            "missing value for required argument 0",
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"test_add","params":[1,2,3]}"#,
            -32602,
            "too many arguments, want at most 2",
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"test_add","params":{"a":1}}"#,
            -32602,
            "non-array args",
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"test_fail","params":["boom <x>"]}"#,
            -32000,
            "boom <x>",
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}"#,
            -32601,
            "notifications not supported",
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"web3_clientVersion","params":[1]}"#,
            -32602,
            "too many arguments, want at most 0",
        ),
    ];
    for (h, _) in Harness::both().await {
        for (body, code, message) in cases {
            let r = h.post(RPC, body).await;
            let v = r.json();
            assert_eq!(v["error"]["code"], code, "{body} via {}", h.name());
            assert_eq!(v["error"]["message"], message, "{body}");
            assert_eq!(v["id"], 1);
            assert!(
                v["error"].get("data").is_none(),
                "no data unless the error has some"
            );
        }
        let r = h
            .post(
                RPC,
                r#"{"jsonrpc":"2.0","id":1,"method":"test_fail","params":["<&>"]}"#,
            )
            .await;
        assert_eq!(
            r.body,
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32000,\"message\":\"\\u003c\\u0026\\u003e\"}}\n",
            "geth's encoder escapes HTML"
        );
    }
}

#[tokio::test]
async fn revert_has_code_3_and_data() {
    for (h, _) in Harness::both().await {
        let r = h
            .post(
                RPC,
                r#"{"jsonrpc":"2.0","id":7,"method":"eth_call","params":[{"to":"0x00"},"latest"]}"#,
            )
            .await;
        assert_eq!(
            r.body,
            "{\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":3,\"message\":\"execution reverted: denied\",\"data\":\"0x08c379a0\"}}\n"
        );
    }
}

#[tokio::test]
async fn invalid_requests_and_parse_errors() {
    for (h, _) in Harness::both().await {
        let r = h.post(RPC, "{oops").await;
        assert_eq!(
            r.body,
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}"#,
            "{}",
            h.name()
        );
        for (body, id) in [
            (
                r#"{"jsonrpc":"1.0","id":3,"method":"web3_clientVersion"}"#,
                json!(3),
            ),
            (r#"{"jsonrpc":"2.0","id":3}"#, json!(3)),
            (r#"{"jsonrpc":"2.0","id":3,"method":5}"#, json!(3)),
            (
                r#"{"jsonrpc":"2.0","id":[3],"method":"web3_clientVersion"}"#,
                json!(null),
            ),
            ("5", json!(null)),
        ] {
            let v = h.post(RPC, body).await.json();
            assert_eq!(
                v,
                json!({"jsonrpc":"2.0","id":id,"error":{"code":-32600,"message":"invalid request"}}),
                "{body}"
            );
        }
        // an empty body gets nothing; a response sent to the server is dropped
        assert_eq!(h.post(RPC, "").await.body, "");
        assert_eq!(
            h.post(RPC, r#"{"jsonrpc":"2.0","id":1,"result":"0x1"}"#)
                .await
                .body,
            ""
        );
    }
}

#[tokio::test]
async fn notifications_run_without_response() {
    for (h, state) in Harness::both().await {
        let r = h
            .post(
                RPC,
                r#"{"jsonrpc":"2.0","method":"test_add","params":[1,2]}"#,
            )
            .await;
        assert_eq!(
            (r.status, r.body.as_str()),
            (StatusCode::OK, ""),
            "{}",
            h.name()
        );
        assert_eq!(state.calls.load(Ordering::SeqCst), 1);
        // `"id": null` is a call in geth, not a notification
        let r = h
            .post(
                RPC,
                r#"{"jsonrpc":"2.0","id":null,"method":"test_add","params":[1,2]}"#,
            )
            .await;
        assert_eq!(r.body, "{\"jsonrpc\":\"2.0\",\"id\":null,\"result\":3}\n");
    }
}

#[tokio::test]
async fn batches_keep_order_mix_errors_and_skip_notifications() {
    for (h, state) in Harness::both().await {
        let body = r#"[
            {"jsonrpc":"2.0","id":1,"method":"test_add","params":[1,2]},
            {"jsonrpc":"2.0","method":"test_add","params":[5]},
            {"jsonrpc":"2.0","id":"b","method":"nope_x"},
            7,
            {"jsonrpc":"2.0","id":3,"method":"test_add","params":[40,2]}
        ]"#;
        let r = h.post(RPC, body).await;
        assert!(r.body.ends_with("]\n"), "{:?}", r.body);
        assert_eq!(
            r.json(),
            json!([
                {"jsonrpc":"2.0","id":1,"result":3},
                {"jsonrpc":"2.0","id":"b","error":{"code":-32601,"message":"the method nope_x does not exist/is not available"}},
                {"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request"}},
                {"jsonrpc":"2.0","id":3,"result":42}
            ]),
            "{}",
            h.name()
        );
        assert_eq!(
            state.calls.load(Ordering::SeqCst),
            3,
            "the notification ran too"
        );
        // only notifications: no body
        let r = h
            .post(
                RPC,
                r#"[{"jsonrpc":"2.0","method":"test_add","params":[1]}]"#,
            )
            .await;
        assert_eq!(r.body, "");
    }
}

#[tokio::test]
async fn empty_and_oversized_batches() {
    for (h, _) in Harness::both().await {
        let r = h.post(RPC, " [ ] ").await;
        assert_eq!(
            r.body,
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"empty batch"}}"#,
            "{}",
            h.name()
        );
        let call = r#"{"jsonrpc":"2.0","method":"test_add","params":[1]}"#;
        let first_call = r#"{"jsonrpc":"2.0","id":"first","method":"test_add","params":[1]}"#;
        let body = format!("[{call},{first_call},{call},{call},{call},{call}]");
        let r = h.post(RPC, &body).await;
        assert_eq!(
            r.body,
            r#"[{"jsonrpc":"2.0","id":"first","error":{"code":-32600,"message":"batch too large"}}]"#
        );
    }
}

#[tokio::test]
async fn batch_response_size_limit() {
    for (h, _) in Harness::both().await {
        // limit is 1000 bytes of results: the second result crosses it, the rest fail
        let body = r#"[
            {"jsonrpc":"2.0","id":1,"method":"test_blob","params":[600]},
            {"jsonrpc":"2.0","id":2,"method":"test_blob","params":[600]},
            {"jsonrpc":"2.0","id":3,"method":"test_blob","params":[1]},
            {"jsonrpc":"2.0","method":"test_blob","params":[1]}
        ]"#;
        let v = h.post(RPC, body).await.json();
        let items = v.as_array().unwrap();
        assert_eq!(items.len(), 3, "{}", h.name());
        assert_eq!(items[0]["result"].as_str().map(str::len), Some(600));
        assert_eq!(items[1]["result"].as_str().map(str::len), Some(600));
        assert_eq!(
            items[2],
            json!({"jsonrpc":"2.0","id":3,"error":{"code":-32003,"message":"response too large"}})
        );
    }
}

#[tokio::test]
async fn timeouts_answer_32002() {
    for (h, _) in Harness::both().await {
        let r = h
            .post(
                RPC,
                r#"{"jsonrpc":"2.0","id":1,"method":"test_sleep","params":[2000]}"#,
            )
            .await;
        assert_eq!(
            r.body,
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32002,"message":"request timed out"}}"#,
            "{}",
            h.name()
        );
        let body = r#"[
            {"jsonrpc":"2.0","id":1,"method":"test_sleep","params":[10]},
            {"jsonrpc":"2.0","id":2,"method":"test_sleep","params":[2000]},
            {"jsonrpc":"2.0","id":3,"method":"test_sleep","params":[10]}
        ]"#;
        let v = h.post(RPC, body).await.json();
        assert_eq!(
            v,
            json!([
                {"jsonrpc":"2.0","id":1,"result":10},
                {"jsonrpc":"2.0","id":2,"error":{"code":-32002,"message":"request timed out"}},
                {"jsonrpc":"2.0","id":3,"error":{"code":-32002,"message":"request timed out"}}
            ])
        );
    }
}

#[tokio::test]
async fn http_rules() {
    let call = r#"{"jsonrpc":"2.0","id":1,"method":"web3_clientVersion"}"#;
    for (h, _) in Harness::both().await {
        let r = h.send(Method::GET, RPC, None, "").await;
        assert_eq!(
            (r.status, r.body.as_str()),
            (StatusCode::OK, ""),
            "bare GET is a health check via {}",
            h.name()
        );
        for m in [Method::PUT, Method::DELETE] {
            let r = h.send(m, RPC, Some("application/json"), call).await;
            assert_eq!(
                (r.status, r.body.as_str()),
                (StatusCode::METHOD_NOT_ALLOWED, "method not allowed\n")
            );
        }
        for ct in [
            None,
            Some("text/plain"),
            Some("application/x-www-form-urlencoded"),
        ] {
            let r = h.send(Method::POST, RPC, ct, call).await;
            assert_eq!(r.status, StatusCode::UNSUPPORTED_MEDIA_TYPE, "{ct:?}");
            assert_eq!(
                r.body,
                "invalid content type, only application/json is supported\n"
            );
        }
        for ct in [
            "application/json-rpc",
            "application/jsonrequest",
            "application/json; charset=UTF-8",
        ] {
            let r = h.send(Method::POST, RPC, Some(ct), call).await;
            assert_eq!(r.json()["result"], "firn/v0.1.0", "{ct}");
        }
        let big = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"test_fail","params":["{}"]}}"#,
            "x".repeat(70_000)
        );
        let r = h.post(RPC, &big).await;
        assert_eq!(r.status, StatusCode::PAYLOAD_TOO_LARGE);
        assert_eq!(
            r.body,
            format!("content length too large ({}>65536)\n", big.len())
        );
        // chains the resolver does not know are 404
        let r = h.post("/ext/bc/X/rpc", call).await;
        assert_eq!(r.status, StatusCode::NOT_FOUND);
    }
}

#[tokio::test]
async fn rpc_modules_lists_namespaces() {
    for (h, _) in Harness::both().await {
        let r = h
            .post(RPC, r#"{"jsonrpc":"2.0","id":1,"method":"rpc_modules"}"#)
            .await;
        assert_eq!(
            r.json()["result"],
            json!({"eth":"1.0","rpc":"1.0","test":"1.0","web3":"1.0"})
        );
    }
}
