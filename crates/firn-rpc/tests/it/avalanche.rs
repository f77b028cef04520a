//! The AvalancheGo envelope (`node-rpc-facts.md` §1.1), in process and over HTTP.

use std::sync::atomic::Ordering;

use axum::http::{Method, StatusCode};

use crate::common::Harness;

const INVALID_ARG: &str = "couldn't unmarshal an argument. Ensure arguments are valid and properly formatted. See documentation for example calls";

#[tokio::test]
async fn success_has_go_shape_and_headers() {
    for (h, _) in Harness::both().await {
        let r = h
            .post(
                "/ext/info",
                r#"{"jsonrpc":"2.0","method":"info.getNetworkID","params":{},"id":1}"#,
            )
            .await;
        assert_eq!(r.status, StatusCode::OK, "{}", h.name());
        assert_eq!(
            r.body,
            "{\"jsonrpc\":\"2.0\",\"result\":{\"networkID\":\"5\"},\"id\":1}\n"
        );
        assert_eq!(
            r.header("content-type"),
            Some("application/json; charset=utf-8")
        );
        assert_eq!(r.header("x-content-type-options"), Some("nosniff"));
    }
}

#[tokio::test]
async fn only_post_is_allowed() {
    for (h, _) in Harness::both().await {
        for method in [Method::GET, Method::PUT, Method::DELETE] {
            let r = h
                .send(method.clone(), "/ext/bc/P", Some("application/json"), "")
                .await;
            assert_eq!(r.status, StatusCode::METHOD_NOT_ALLOWED, "{}", h.name());
            assert_eq!(
                r.body,
                format!("rpc: POST method required, received {method}")
            );
            assert_eq!(r.header("content-type"), Some("text/plain; charset=utf-8"));
        }
    }
}

#[tokio::test]
async fn content_type_is_cut_at_semicolon_and_lowercased() {
    let body = r#"{"jsonrpc":"2.0","method":"info.getNetworkID","id":1}"#;
    for (h, _) in Harness::both().await {
        for ct in [
            "application/json; charset=utf-8",
            "Application/JSON;charset=UTF-8",
            "application/json",
        ] {
            let r = h.send(Method::POST, "/ext/info", Some(ct), body).await;
            assert_eq!(r.status, StatusCode::OK, "{ct} via {}", h.name());
        }
        let r = h.send(Method::POST, "/ext/info", None, body).await;
        assert_eq!(r.status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
        assert_eq!(r.body, "rpc: unrecognized Content-Type: ");
        let r = h
            .send(Method::POST, "/ext/info", Some("text/plain; x=y"), body)
            .await;
        assert_eq!(r.status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
        assert_eq!(r.body, "rpc: unrecognized Content-Type: text/plain");
    }
}

#[tokio::test]
async fn method_lookup_errors_use_gorilla_texts() {
    let cases = [
        (
            "info.GetNetworkID",
            "method must start with a non-uppercase letter",
        ),
        ("info.getFoo", r#"rpc: can't find method "info.GetFoo""#),
        ("foo.bar", r#"rpc: can't find service "foo.Bar""#),
        ("foo", r#"rpc: service/method request ill-formed: "foo""#),
        (
            "a.b.c",
            r#"rpc: service/method request ill-formed: "a.B.c""#,
        ),
        ("info.", r#"rpc: can't find method "info.""#),
    ];
    for (h, _) in Harness::both().await {
        for (method, message) in cases {
            let body = format!(r#"{{"jsonrpc":"2.0","method":"{method}","params":{{}},"id":"x"}}"#);
            let r = h.post("/ext/info", &body).await;
            assert_eq!(r.status, StatusCode::OK, "errors are HTTP 200");
            let expected = serde_json::json!({
                "jsonrpc": "2.0",
                "error": {"code": -32000, "message": message, "data": null},
                "id": "x"
            });
            assert_eq!(r.json(), expected, "{method} via {}", h.name());
            assert_eq!(
                r.header("x-content-type-options"),
                None,
                "lookup errors come before the handler"
            );
        }
    }
}

#[tokio::test]
async fn handler_errors_are_32000_and_html_escaped() {
    for (h, _) in Harness::both().await {
        let r = h
            .post(
                "/ext/info",
                r#"{"jsonrpc":"2.0","method":"test.fail","id":2}"#,
            )
            .await;
        assert_eq!(
            r.body,
            "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32000,\"message\":\"couldn't get block \\u003cb\\u003e \\u0026 co\",\"data\":null},\"id\":2}\n"
        );
        assert_eq!(r.header("x-content-type-options"), Some("nosniff"));
        let r = h
            .post(
                "/ext/info",
                r#"{"jsonrpc":"2.0","method":"store.get","params":{"key":"k"},"id":3}"#,
            )
            .await;
        assert_eq!(r.json()["error"]["message"], "key k not found");
    }
}

#[tokio::test]
async fn params_match_keys_case_insensitively() {
    for (h, state) in Harness::both().await {
        let r = h
            .post(
                "/ext/info",
                r#"{"jsonrpc":"2.0","method":"store.put","params":{"KEY":"a","Value":"1"},"id":1}"#,
            )
            .await;
        assert_eq!(r.json()["result"], serde_json::json!({}), "{}", h.name());
        assert_eq!(
            state.kv.lock().unwrap().get("a").map(String::as_str),
            Some("1")
        );
        let r = h
            .post(
                "/ext/info",
                r#"{"jsonrpc":"2.0","method":"store.get","params":{"kEy":"a"},"id":2}"#,
            )
            .await;
        assert_eq!(r.json()["result"]["value"], "1");
    }
}

#[tokio::test]
async fn u64_params_accept_number_and_string_and_reply_as_string() {
    for (h, _) in Harness::both().await {
        for height in ["1000001", "\"1000001\""] {
            let body = format!(
                r#"{{"jsonrpc":"2.0","method":"test.getBlockByHeight","params":{{"height":{height}}},"id":1}}"#
            );
            let r = h.post("/ext/bc/P", &body).await;
            assert_eq!(
                r.json()["result"]["height"],
                "1000001",
                "{height} via {}",
                h.name()
            );
        }
        for bad in [
            "-1",
            "1.5",
            "\"+1\"",
            "\"0x10\"",
            "18446744073709551616",
            "true",
        ] {
            let body = format!(
                r#"{{"jsonrpc":"2.0","method":"test.getBlockByHeight","params":{{"height":{bad}}},"id":1}}"#
            );
            let r = h.post("/ext/bc/P", &body).await;
            assert_eq!(r.json()["error"]["message"], INVALID_ARG, "{bad}");
            assert_eq!(r.json()["error"]["code"], -32000);
        }
    }
}

#[tokio::test]
async fn params_forms_absent_null_array_and_bad() {
    for (h, _) in Harness::both().await {
        let send = |params: &'static str| {
            let body =
                format!(r#"{{"jsonrpc":"2.0","method":"test.getBlockByHeight",{params}"id":1}}"#);
            let h = &h;
            async move { h.post("/ext/bc/P", &body).await.json() }
        };
        let zero = serde_json::json!({"height": "0", "blockId": ""});
        assert_eq!(
            send("").await["result"],
            zero,
            "absent params = zero values"
        );
        assert_eq!(send(r#""params":null,"#).await["result"], zero);
        assert_eq!(send(r#""params":[],"#).await["result"], zero);
        assert_eq!(
            send(r#""params":[{"height":9,"blockID":"x"}],"#).await["result"],
            serde_json::json!({"height": "9", "blockId": "x"}),
            "array form, key folded"
        );
        for bad in [
            r#""params":"x","#,
            r#""params":5,"#,
            r#""params":[5],"#,
            r#""params":{"blockId":7},"#,
        ] {
            assert_eq!(send(bad).await["error"]["message"], INVALID_ARG, "{bad}");
        }
    }
}

#[tokio::test]
async fn parse_errors_are_32700_with_empty_request_data() {
    let empty = serde_json::json!({"jsonrpc": "", "method": "", "params": null, "id": null});
    let cases = [
        (
            "[1,2]",
            "json: cannot unmarshal array into Go value of type json2.serverRequest",
        ),
        (
            "\"x\"",
            "json: cannot unmarshal string into Go value of type json2.serverRequest",
        ),
        ("{\"jsonrpc\":\"2.0\",", "unexpected EOF"),
        ("", "EOF"),
        (
            "nope",
            "invalid character 'o' looking for beginning of value",
        ),
    ];
    for (h, _) in Harness::both().await {
        for (body, message) in cases {
            let r = h.post("/ext/bc/P", body).await;
            assert_eq!(r.status, StatusCode::OK);
            let expected = serde_json::json!({
                "jsonrpc": "2.0",
                "error": {"code": -32700, "message": message, "data": empty},
                "id": null
            });
            assert_eq!(r.json(), expected, "{body:?} via {}", h.name());
        }
    }
}

#[tokio::test]
async fn wrong_field_types_are_parse_errors_that_keep_the_id() {
    for (h, _) in Harness::both().await {
        let r = h
            .post("/ext/bc/P", r#"{"jsonrpc":"2.0","method":5,"id":9}"#)
            .await;
        let v = r.json();
        assert_eq!(v["error"]["code"], -32700);
        assert_eq!(
            v["error"]["message"],
            "json: cannot unmarshal number into Go struct field serverRequest.method of type string"
        );
        assert_eq!(v["error"]["data"]["jsonrpc"], "2.0");
        assert_eq!(v["id"], 9);
    }
}

#[tokio::test]
async fn version_must_be_2_0() {
    for (h, _) in Harness::both().await {
        let r = h
            .post(
                "/ext/bc/P",
                r#"{"jsonrpc":"1.0","method":"info.getNetworkID","params":{"a": 1},"id":4}"#,
            )
            .await;
        let expected = serde_json::json!({
            "jsonrpc": "2.0",
            "error": {
                "code": -32600,
                "message": "jsonrpc must be 2.0",
                "data": {"jsonrpc": "1.0", "method": "info.getNetworkID", "params": {"a": 1}, "id": 4}
            },
            "id": 4
        });
        assert_eq!(r.json(), expected, "{}", h.name());
    }
}

#[tokio::test]
async fn notifications_run_but_get_no_body() {
    for (h, state) in Harness::both().await {
        let r = h
            .post(
                "/ext/bc/P",
                r#"{"jsonrpc":"2.0","method":"store.put","params":{"key":"n","value":"v"}}"#,
            )
            .await;
        assert_eq!(
            (r.status, r.body.as_str()),
            (StatusCode::OK, ""),
            "{}",
            h.name()
        );
        assert_eq!(state.calls.load(Ordering::SeqCst), 1, "the handler ran");
        assert_eq!(
            state.kv.lock().unwrap().get("n").map(String::as_str),
            Some("v")
        );
        // `"id": null` is a notification too (json2 decodes it to a nil id).
        let r = h
            .post(
                "/ext/bc/P",
                r#"{"jsonrpc":"2.0","method":"info.getFoo","id":null}"#,
            )
            .await;
        assert_eq!(r.body, "");
        // …but a parse error is always answered.
        let r = h
            .post("/ext/bc/P", r#"{"jsonrpc":"2.0","method":[]}"#)
            .await;
        assert_eq!(r.json()["error"]["code"], -32700);
    }
}

#[tokio::test]
async fn ids_are_echoed_verbatim_and_keys_fold() {
    for (h, _) in Harness::both().await {
        let r = h
            .post("/ext/bc/P", r#"{"JSONRPC":"2.0","Method":"info.getNetworkID","ID":{"a": [1.50, "x"]}} trailing"#)
            .await;
        assert_eq!(
            r.body,
            "{\"jsonrpc\":\"2.0\",\"result\":{\"networkID\":\"5\"},\"id\":{\"a\":[1.50,\"x\"]}}\n",
            "{}",
            h.name()
        );
    }
}

#[tokio::test]
async fn aliases_and_unknown_paths() {
    for (h, _) in Harness::both().await {
        let r = h
            .post(
                "/ext/P",
                r#"{"jsonrpc":"2.0","method":"info.getNetworkID","id":1}"#,
            )
            .await;
        assert_eq!(
            r.json()["result"]["networkID"],
            "5",
            "alias via {}",
            h.name()
        );
        let r = h.post("/ext/nope", "{}").await;
        assert_eq!(
            (r.status, r.body.as_str()),
            (StatusCode::NOT_FOUND, "404 page not found\n")
        );
    }
}

#[tokio::test]
async fn body_limit_and_timeout() {
    for (h, _) in Harness::both().await {
        let big = format!(
            r#"{{"jsonrpc":"2.0","method":"store.put","params":{{"key":"{}"}},"id":1}}"#,
            "k".repeat(70_000)
        );
        let r = h.post("/ext/bc/P", &big).await;
        assert_eq!(r.status, StatusCode::PAYLOAD_TOO_LARGE, "{}", h.name());
        let r = h
            .post(
                "/ext/bc/P",
                r#"{"jsonrpc":"2.0","method":"test.sleep","params":{"ms":2000},"id":1}"#,
            )
            .await;
        assert_eq!(r.json()["error"]["message"], "request timed out");
        assert_eq!(r.json()["error"]["code"], -32000);
    }
}

#[tokio::test]
async fn per_chain_validators_endpoint() {
    for (h, _) in Harness::both().await {
        let body = r#"{"jsonrpc":"2.0","method":"validators.getCurrentValidators","params":{"nodeids":["NodeID-a"]},"id":1}"#;
        let r = h.post("/ext/bc/C/validators", body).await;
        assert_eq!(
            r.body,
            "{\"jsonrpc\":\"2.0\",\"result\":{\"validators\":[{\"nodeID\":\"NodeID-a\",\"weight\":20,\"isActive\":true}]},\"id\":1}\n",
            "{}",
            h.name()
        );
        let r = h.post("/ext/bc/P/validators", body).await;
        assert_eq!(r.status, StatusCode::NOT_FOUND, "unknown chain");
        let r = h
            .post(
                "/ext/bc/C/validators",
                r#"{"jsonrpc":"2.0","method":"platform.getHeight","id":1}"#,
            )
            .await;
        assert_eq!(
            r.json()["error"]["message"],
            r#"rpc: can't find service "platform.GetHeight""#
        );
    }
}
