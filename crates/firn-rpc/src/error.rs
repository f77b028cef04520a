//! The JSON-RPC error object shared by both envelopes and the client.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Invalid JSON was received (`-32700`).
pub const PARSE_ERROR: i64 = -32700;
/// The JSON sent is not a valid request object (`-32600`).
pub const INVALID_REQUEST: i64 = -32600;
/// The method does not exist (`-32601`).
pub const METHOD_NOT_FOUND: i64 = -32601;
/// Invalid method parameters (`-32602`).
pub const INVALID_PARAMS: i64 = -32602;
/// Internal error, e.g. a result that could not be serialised (`-32603`).
pub const INTERNAL_ERROR: i64 = -32603;
/// Any error a handler returns, unless it says otherwise (`-32000`).
pub const SERVER_ERROR: i64 = -32000;
/// go-ethereum's code for a call that ran past its deadline (`-32002`).
pub const TIMEOUT_ERROR: i64 = -32002;
/// go-ethereum's code for a batch whose results grew past the limit (`-32003`).
pub const RESPONSE_TOO_LARGE: i64 = -32003;
/// The EVM's code for a reverted call; `data` holds the revert bytes (`3`).
pub const REVERT_ERROR: i64 = 3;

/// A JSON-RPC error object: `{"code":…,"message":…,"data":…}`.
///
/// Handlers of the go-ethereum envelope return anything that converts into one; handlers of the
/// AvalancheGo envelope only give a message (their code is always `-32000`, as in AvalancheGo).
/// The client returns the server's object unchanged inside [`crate::ClientError::Rpc`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, thiserror::Error)]
#[error("{message} (code {code})")]
pub struct ErrorObject {
    /// The error code.
    pub code: i64,
    /// The error message, exactly as the server wrote it.
    pub message: String,
    /// Extra data, e.g. the revert bytes of a failed `eth_call`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl ErrorObject {
    /// An error with this code and message and no data.
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// A handler error: code `-32000`.
    pub fn server(message: impl Into<String>) -> Self {
        Self::new(SERVER_ERROR, message)
    }

    /// Bad parameters: code `-32602`.
    pub fn invalid_params(message: impl Into<String>) -> Self {
        Self::new(INVALID_PARAMS, message)
    }

    /// A reverted EVM call as go-ethereum reports it: code `3`, message
    /// `execution reverted[: reason]`, `data` = `0x`-hex revert bytes.
    pub fn revert(reason: Option<&str>, revert_data: &[u8]) -> Self {
        let message = match reason {
            Some(r) if !r.is_empty() => format!("execution reverted: {r}"),
            _ => "execution reverted".to_owned(),
        };
        Self {
            code: REVERT_ERROR,
            message,
            data: Some(Value::String(format!("0x{}", hex::encode(revert_data)))),
        }
    }

    /// The same error with `data` attached.
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }
}

impl From<String> for ErrorObject {
    fn from(message: String) -> Self {
        Self::server(message)
    }
}

impl From<&str> for ErrorObject {
    fn from(message: &str) -> Self {
        Self::server(message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn revert_has_code_3_and_hex_data() {
        let e = ErrorObject::revert(Some("nope"), &[0xde, 0xad]);
        assert_eq!(e.code, 3);
        assert_eq!(e.message, "execution reverted: nope");
        assert_eq!(e.data, Some(Value::String("0xdead".into())));
        assert_eq!(ErrorObject::revert(None, &[]).message, "execution reverted");
    }

    #[test]
    fn data_is_omitted_when_absent() {
        let s = serde_json::to_string(&ErrorObject::server("boom")).unwrap();
        assert_eq!(s, r#"{"code":-32000,"message":"boom"}"#);
    }
}
