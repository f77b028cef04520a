//! Fetching documents whose URLs come from chain data (NFT metadata), which anyone can point
//! anywhere: at the indexer's own loopback, a cloud metadata service, the operator's LAN.
//!
//! A [`WebClient`] connects only to public addresses unless the operator allows private ones
//! (the devnet's own servers): the check is on the resolved IP of every connection (a custom
//! resolver, so a name that resolves to a private address is refused even after a redirect)
//! and on IP literals, first and at every redirect hop. It follows at most
//! [`MAX_REDIRECTS`] redirects, only to http(s), ignores proxy settings from the environment
//! (they would route around these checks), gives each request a timeout and reads at most
//! `max_bytes` of a body. The checks are `firn_http::outbound`'s, which webhook deliveries
//! share.

use std::sync::Arc;
use std::time::Duration;

pub use firn_http::outbound::is_public;
use firn_http::outbound::{self, allowed_url};

/// Redirects followed at most.
pub const MAX_REDIRECTS: usize = 3;

/// Why a document could not be had, as the Data API's metadata statuses name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FetchError {
    /// Not reachable: refused, timed out, a non-2xx status, a private address.
    Unreachable,
    /// The server answered 429.
    Throttled,
    /// Larger than allowed.
    TooLarge,
}

impl FetchError {
    /// The `NftTokenMetadataStatus` value.
    pub fn status(self) -> &'static str {
        match self {
            Self::Unreachable => "UNREACHABLE_TOKEN_URI",
            Self::Throttled => "THROTTLED_TOKEN_URI",
            Self::TooLarge => "METADATA_CONTENT_TOO_LARGE",
        }
    }

    /// Whether asking again later may succeed.
    pub fn retryable(self) -> bool {
        matches!(self, Self::Unreachable | Self::Throttled)
    }
}

/// An HTTP client for URLs from chain data.
#[derive(Debug, Clone)]
pub struct WebClient {
    http: Arc<reqwest::Client>,
    allow_private: bool,
    max_bytes: usize,
}

impl WebClient {
    /// A client with a per-request `timeout`, reading at most `max_bytes` of a body, that
    /// connects to private addresses only if `allow_private`.
    pub fn new(
        timeout: Duration,
        max_bytes: usize,
        allow_private: bool,
    ) -> Result<Self, reqwest::Error> {
        let http = outbound::guarded_client(timeout, allow_private, MAX_REDIRECTS).build()?;
        Ok(Self {
            http: Arc::new(http),
            allow_private,
            max_bytes,
        })
    }

    /// The body at `url`, at most `max_bytes` of it.
    pub async fn get(&self, url: &str) -> Result<Vec<u8>, FetchError> {
        let parsed = reqwest::Url::parse(url).map_err(|_| FetchError::Unreachable)?;
        if !allowed_url(&parsed, self.allow_private) {
            return Err(FetchError::Unreachable);
        }
        let mut resp = self
            .http
            .get(parsed)
            .send()
            .await
            .map_err(|_| FetchError::Unreachable)?;
        match resp.status().as_u16() {
            429 => return Err(FetchError::Throttled),
            s if !(200..300).contains(&s) => return Err(FetchError::Unreachable),
            _ => {}
        }
        if resp
            .content_length()
            .is_some_and(|n| n > self.max_bytes as u64)
        {
            return Err(FetchError::TooLarge);
        }
        let mut body = Vec::new();
        while let Some(chunk) = resp.chunk().await.map_err(|_| FetchError::Unreachable)? {
            if body.len() + chunk.len() > self.max_bytes {
                return Err(FetchError::TooLarge);
            }
            body.extend_from_slice(&chunk);
        }
        Ok(body)
    }
}
