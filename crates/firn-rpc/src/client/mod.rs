//! JSON-RPC clients over HTTP: [`AvalancheClient`] (object params, one call per request, many
//! calls in flight) and [`EthClient`] (positional params, batches); and over them
//! [`RpcValidatorNetwork`], the signature aggregator's way to a node's validators.
//!
//! Both share one transport: a per-request timeout, retries with exponential backoff on
//! connection errors, timeouts and HTTP 5xx (never on a JSON-RPC error, which is an answer), and a
//! bound on the response size. JSON-RPC errors come back as [`ClientError::Rpc`] with the
//! server's code, message and data.

mod avalanche;
mod eth;
mod warp;

use std::time::Duration;

use axum::http::header;
use serde::Deserialize;
use serde_json::value::RawValue;
use tracing::warn;

pub use avalanche::AvalancheClient;
pub use eth::{BatchRequest, BatchResponse, EthClient};
pub use warp::{RpcNetworkConfig, RpcValidatorNetwork};

use crate::error::ErrorObject;

/// Client settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientConfig {
    /// Time allowed for one HTTP exchange, body included.
    pub timeout: Duration,
    /// Retries after the first attempt, for retryable failures only.
    pub max_retries: u32,
    /// Wait before the first retry; doubled after each one.
    pub initial_backoff: Duration,
    /// Longest wait between retries.
    pub max_backoff: Duration,
    /// Largest response body accepted, in bytes.
    pub max_response_bytes: usize,
}

impl Default for ClientConfig {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(30),
            max_retries: 5,
            initial_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_secs(10),
            max_response_bytes: 128 * 1024 * 1024,
        }
    }
}

/// Everything a call can fail with.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The server answered with a JSON-RPC error.
    #[error("rpc error {}: {}", .0.code, .0.message)]
    Rpc(ErrorObject),
    /// The server answered with a non-2xx status (after retries, for 5xx).
    #[error("http status {status} from {url}: {body}")]
    Http {
        /// The URL called.
        url: String,
        /// The HTTP status.
        status: u16,
        /// The start of the response body.
        body: String,
    },
    /// No answer within the configured timeout (after retries).
    #[error("request to {url} timed out")]
    Timeout {
        /// The URL called.
        url: String,
    },
    /// The connection could not be made or broke (after retries).
    #[error("request to {url} failed: {source}")]
    Transport {
        /// The URL called.
        url: String,
        /// The underlying error.
        source: reqwest::Error,
    },
    /// The response body was larger than [`ClientConfig::max_response_bytes`].
    #[error("response from {url} is larger than {limit} bytes")]
    ResponseTooLarge {
        /// The URL called.
        url: String,
        /// The configured limit.
        limit: usize,
    },
    /// The response was not a JSON-RPC response.
    #[error("invalid response from {url}: {reason}")]
    InvalidResponse {
        /// The URL called.
        url: String,
        /// What was wrong.
        reason: String,
    },
    /// The result did not decode into the requested type.
    #[error("cannot decode the result of {method}: {source}")]
    Decode {
        /// The method called.
        method: String,
        /// The decoding error.
        source: serde_json::Error,
    },
    /// The params did not encode.
    #[error("cannot encode the params of {method}: {source}")]
    Encode {
        /// The method called.
        method: String,
        /// The encoding error.
        source: serde_json::Error,
    },
    /// A batch response had no entry for this request id.
    #[error("no response for batch request id {id}")]
    MissingResponse {
        /// The request id.
        id: u64,
    },
    /// The URL did not parse.
    #[error("invalid url {url:?}: {reason}")]
    InvalidUrl {
        /// The URL given.
        url: String,
        /// Why it was refused.
        reason: String,
    },
    /// The HTTP client could not be built.
    #[error("cannot build the http client: {0}")]
    Build(reqwest::Error),
}

impl ClientError {
    /// The JSON-RPC error code, for [`ClientError::Rpc`].
    pub fn rpc_code(&self) -> Option<i64> {
        match self {
            Self::Rpc(e) => Some(e.code),
            _ => None,
        }
    }

    /// Whether the transport retries after this error: connection failures, timeouts, 5xx.
    pub fn is_retryable(&self) -> bool {
        match self {
            Self::Http { status, .. } => *status >= 500,
            Self::Timeout { .. } | Self::Transport { .. } => true,
            _ => false,
        }
    }
}

/// A JSON-RPC response object, either style.
#[derive(Debug, Deserialize)]
pub(crate) struct ResponseObject {
    #[serde(default)]
    pub(crate) id: Option<Box<RawValue>>,
    #[serde(default)]
    pub(crate) result: Option<Box<RawValue>>,
    #[serde(default)]
    pub(crate) error: Option<ErrorObject>,
}

impl ResponseObject {
    /// The result decoded as `R` (`null` when absent), or the error.
    pub(crate) fn into_result<R: serde::de::DeserializeOwned>(
        self,
        method: &str,
    ) -> Result<R, ClientError> {
        if let Some(error) = self.error {
            return Err(ClientError::Rpc(error));
        }
        let text = self.result.as_deref().map_or("null", RawValue::get);
        serde_json::from_str(text).map_err(|source| ClientError::Decode {
            method: method.to_owned(),
            source,
        })
    }

    /// As [`ResponseObject::into_result`], decoded by [`decode_deep`].
    pub(crate) fn into_deep_result<R: serde::de::DeserializeOwned>(
        self,
        method: &str,
    ) -> Result<R, ClientError> {
        if let Some(error) = self.error {
            return Err(ClientError::Rpc(error));
        }
        decode_deep(method, self.result.as_deref())
    }
}

/// `raw` (`null` when absent) decoded as `R` without serde_json's recursion limit, on a stack
/// that grows as needed: for results nested deeper than 128 levels (a `callTracer` tree only
/// ~60 calls deep). `R` itself must bound the depth it accepts (as
/// [`crate::methods::eth::CallFrame`] does), or a hostile node could nest without end.
pub(crate) fn decode_deep<R: serde::de::DeserializeOwned>(
    method: &str,
    raw: Option<&RawValue>,
) -> Result<R, ClientError> {
    let text = raw.map_or("null", RawValue::get);
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    R::deserialize(serde_stacker::Deserializer::new(&mut de))
        .and_then(|v| de.end().map(|()| v))
        .map_err(|source| ClientError::Decode {
            method: method.to_owned(),
            source,
        })
}

/// `url` fit for logs and error messages: a password and query values (where API keys and
/// tokens travel) are replaced by `***`. Text that is not a URL (a file path) comes back as is.
///
/// ```
/// use firn_rpc::client::redact_url;
///
/// assert_eq!(
///     redact_url("https://user:secret@node.example/ext/bc/C/rpc?token=abc&x=1"),
///     "https://user:***@node.example/ext/bc/C/rpc?token=***&x=***"
/// );
/// assert_eq!(redact_url("http://127.0.0.1:9650"), "http://127.0.0.1:9650/");
/// assert_eq!(redact_url("./firn.db"), "./firn.db");
/// ```
pub fn redact_url(url: &str) -> String {
    let Ok(mut parsed) = reqwest::Url::parse(url) else {
        return url.to_owned();
    };
    if parsed.password().is_some() {
        let _ = parsed.set_password(Some("***"));
    }
    if parsed.query().is_some() {
        let names: Vec<String> = parsed.query_pairs().map(|(k, _)| k.into_owned()).collect();
        parsed
            .query_pairs_mut()
            .clear()
            .extend_pairs(names.iter().map(|k| (k.as_str(), "***")));
    }
    // `***` is written percent-encoded in a query; readers want it plain.
    parsed.to_string().replace("%2A%2A%2A", "***")
}

/// POSTs JSON bodies to one URL with timeout, retries and a response bound.
#[derive(Debug, Clone)]
pub(crate) struct Transport {
    http: reqwest::Client,
    url: reqwest::Url,
    /// The URL as logs and errors show it ([`redact_url`]).
    shown: String,
    config: ClientConfig,
}

impl Transport {
    pub(crate) fn new(url: &str, config: ClientConfig) -> Result<Self, ClientError> {
        let parsed = reqwest::Url::parse(url).map_err(|e| ClientError::InvalidUrl {
            url: redact_url(url),
            reason: e.to_string(),
        })?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(ClientError::InvalidUrl {
                url: redact_url(url),
                reason: "scheme must be http or https".to_owned(),
            });
        }
        let http = reqwest::Client::builder()
            .build()
            .map_err(ClientError::Build)?;
        Ok(Self {
            http,
            shown: redact_url(parsed.as_str()),
            url: parsed,
            config,
        })
    }

    /// The URL as logs and errors show it, secrets redacted.
    pub(crate) fn url(&self) -> &str {
        &self.shown
    }

    /// Sends `body`, retrying retryable failures with exponential backoff.
    pub(crate) async fn post(&self, body: Vec<u8>) -> Result<Vec<u8>, ClientError> {
        let body = axum::body::Bytes::from(body);
        let mut backoff = self.config.initial_backoff;
        let mut attempt: u32 = 0;
        loop {
            match self.post_once(body.clone()).await {
                Ok(bytes) => return Ok(bytes),
                Err(err) if err.is_retryable() && attempt < self.config.max_retries => {
                    attempt += 1;
                    warn!(url = %self.shown, attempt, error = %err, backoff_ms = backoff.as_millis() as u64, "rpc request failed, retrying");
                    tokio::time::sleep(backoff).await;
                    backoff = backoff.saturating_mul(2).min(self.config.max_backoff);
                }
                Err(err) => return Err(err),
            }
        }
    }

    fn transport_error(&self, source: reqwest::Error) -> ClientError {
        if source.is_timeout() {
            ClientError::Timeout {
                url: self.shown.clone(),
            }
        } else {
            ClientError::Transport {
                url: self.shown.clone(),
                source,
            }
        }
    }

    async fn post_once(&self, body: axum::body::Bytes) -> Result<Vec<u8>, ClientError> {
        let mut response = self
            .http
            .post(self.url.clone())
            .header(header::CONTENT_TYPE, "application/json")
            .timeout(self.config.timeout)
            .body(body)
            .send()
            .await
            .map_err(|e| self.transport_error(e))?;
        let limit = self.config.max_response_bytes;
        let too_large = || ClientError::ResponseTooLarge {
            url: self.shown.clone(),
            limit,
        };
        if response
            .content_length()
            .is_some_and(|len| len > limit as u64)
        {
            return Err(too_large());
        }
        let mut buf = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| self.transport_error(e))?
        {
            if buf.len() + chunk.len() > limit {
                return Err(too_large());
            }
            buf.extend_from_slice(&chunk);
        }
        let status = response.status();
        if !status.is_success() {
            let text = String::from_utf8_lossy(&buf[..buf.len().min(512)]).into_owned();
            return Err(ClientError::Http {
                url: self.shown.clone(),
                status: status.as_u16(),
                body: text,
            });
        }
        Ok(buf)
    }

    pub(crate) fn invalid(&self, reason: impl Into<String>) -> ClientError {
        ClientError::InvalidResponse {
            url: self.shown.clone(),
            reason: reason.into(),
        }
    }
}
