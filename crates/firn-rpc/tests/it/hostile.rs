//! Hostile bodies: the envelopes never panic and always answer valid JSON (or nothing).

use proptest::prelude::*;

use crate::common::{TestState, ava_server, eth_server};

/// JSON-ish text built from the tokens requests are made of, so that many cases get past the
/// parser and into the envelope's rules.
fn jsonish() -> impl Strategy<Value = String> {
    let token = prop::sample::select(vec![
        "{",
        "}",
        "[",
        "]",
        ",",
        ":",
        "\"jsonrpc\"",
        "\"2.0\"",
        "\"method\"",
        "\"params\"",
        "\"id\"",
        "\"ID\"",
        "\"info.getNetworkID\"",
        "\"store.put\"",
        "\"test.getBlockByHeight\"",
        "\"test_add\"",
        "\"web3_clientVersion\"",
        "\"key\"",
        "\"height\"",
        "1",
        "-1",
        "1e400",
        "\"18446744073709551616\"",
        "null",
        "true",
        "\"<&>\"",
        "\"\\u2028\"",
        " ",
        "\"a.B.c\"",
    ]);
    prop::collection::vec(token, 0..40).prop_map(|t| t.concat())
}

fn check(out: Option<Vec<u8>>) -> Result<(), TestCaseError> {
    if let Some(body) = out {
        let parsed: Result<serde_json::Value, _> = serde_json::from_slice(&body);
        prop_assert!(
            parsed.is_ok(),
            "not JSON: {:?}",
            String::from_utf8_lossy(&body)
        );
        prop_assert!(
            !body.iter().any(|b| matches!(b, b'<' | b'>' | b'&')),
            "unescaped HTML"
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn envelopes_survive_jsonish_text(text in jsonish()) {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let ava = ava_server(TestState::default());
        let eth = eth_server(TestState::default());
        check(rt.block_on(ava.call_raw(text.as_bytes(), None)))?;
        check(rt.block_on(eth.call_raw(text.as_bytes(), None)))?;
    }

    #[test]
    fn envelopes_survive_random_bytes(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let ava = ava_server(TestState::default());
        let eth = eth_server(TestState::default());
        check(rt.block_on(ava.call_raw(&bytes, None)))?;
        check(rt.block_on(eth.call_raw(&bytes, None)))?;
    }
}
