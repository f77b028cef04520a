//! NFT metadata: the ERC-721 `tokenURI(id)` or ERC-1155 `uri(id)` of each newly minted token,
//! and the JSON document it points at. A commit only records the mint (the store queues a
//! row with status [`NftMetadata::URI_UNREAD`]); the [`MetadataWorker`](super::metadata::MetadataWorker) reads
//! the URI and fetches the document in the background, so that no contract or server can slow
//! indexing down. `data:` URIs (base64 or plain, percent-encoded) are decoded offline. The
//! outcome is one of the Data API's `NftTokenMetadataStatus` values.
//!
//! What is stored is bounded, whatever a contract or its server returns: a document of at
//! most [`MetadataLimits::max_document`] bytes, URIs of at most [`MAX_URI_BYTES`], names of
//! [`MAX_NAME_CHARS`], symbols of [`MAX_SYMBOL_CHARS`], descriptions of
//! [`MAX_DESCRIPTION_CHARS`] characters, attribute and property sets of
//! [`MAX_ATTRIBUTES_BYTES`] bytes of JSON (a longer one is left out, as a cut one would not
//! parse).

use std::time::Duration;

use base64::Engine;
use firn_store::rows::evm::{NftMetadata, TokenStandard};
use serde_json::Value;

use super::source::EvmSource;
use super::tokens::abi_string;
use super::web::{FetchError, WebClient};
use crate::error::Result;

const TOKEN_URI: [u8; 4] = [0xc8, 0x7b, 0x56, 0xdd];
const URI: [u8; 4] = [0x0e, 0x89, 0x34, 0x1c];

/// Longest URI stored (token URI, image, animation, external URL), bytes; a longer one is left
/// out (a `data:` token URI is still decoded).
pub const MAX_URI_BYTES: usize = 16 * 1024;
/// Longest name stored, characters (longer ones are cut).
pub const MAX_NAME_CHARS: usize = 256;
/// Longest symbol stored, characters.
pub const MAX_SYMBOL_CHARS: usize = 64;
/// Longest description stored, characters.
pub const MAX_DESCRIPTION_CHARS: usize = 4096;
/// Largest attribute or property set stored, bytes of JSON.
pub const MAX_ATTRIBUTES_BYTES: usize = 16 * 1024;

/// How metadata documents are fetched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MetadataLimits {
    /// Whether http(s) documents are fetched at all (off: they stay `UNINDEXED`).
    pub fetch: bool,
    /// Time for one request.
    pub timeout: Duration,
    /// Largest document read, bytes.
    pub max_document: usize,
    /// Whether URIs may point at loopback and private addresses (the devnet's own servers;
    /// never on a public chain).
    pub allow_private: bool,
}

impl Default for MetadataLimits {
    fn default() -> Self {
        Self {
            fetch: true,
            timeout: Duration::from_secs(10),
            max_document: 1 << 20,
            allow_private: false,
        }
    }
}

/// Reads token URIs and turns documents into metadata.
#[derive(Debug, Clone)]
pub struct MetadataFetcher {
    web: Option<WebClient>,
    limits: MetadataLimits,
}

impl MetadataFetcher {
    /// A fetcher within `limits`.
    pub fn new(limits: MetadataLimits) -> Self {
        let web = limits
            .fetch
            .then(|| WebClient::new(limits.timeout, limits.max_document, limits.allow_private).ok())
            .flatten();
        Self { web, limits }
    }

    /// Whether http(s) documents are fetched at all.
    pub fn fetches(&self) -> bool {
        self.web.is_some()
    }

    /// Reads the `tokenURI(id)` (ERC-721) or `uri(id)` (ERC-1155, `{id}` substituted) of `m`
    /// and, for a URI that needs no network, its document. A call that fails or reverts makes
    /// it `MISSING_TOKEN`; an http(s) URI leaves it `UNINDEXED`.
    pub async fn read_uri(
        &self,
        source: &EvmSource,
        standard: TokenStandard,
        m: &mut NftMetadata,
    ) -> Result<()> {
        let mut data = match standard {
            TokenStandard::Erc1155 => URI.to_vec(),
            _ => TOKEN_URI.to_vec(),
        };
        data.extend(m.token_id.to_be_bytes::<32>());
        let out = source.calls(&[(m.token, data)], None).await?;
        match out.first().and_then(Option::as_deref).and_then(abi_string) {
            None => m.index_status = "MISSING_TOKEN".to_owned(),
            Some(uri) => {
                let uri = match standard {
                    TokenStandard::Erc1155 => {
                        uri.replace("{id}", &hex::encode(m.token_id.to_be_bytes::<32>()))
                    }
                    _ => uri,
                };
                self.resolve_offline(m, &uri);
            }
        }
        Ok(())
    }

    /// Sets `m`'s URI and, for a URI that needs no network, its document and status; an
    /// http(s) one is left `UNINDEXED`.
    fn resolve_offline(&self, m: &mut NftMetadata, uri: &str) {
        let uri = uri.trim();
        m.token_uri = bounded_uri(uri).unwrap_or_default();
        let doc = if uri.is_empty() {
            Err("INVALID_TOKEN_URI")
        } else if let Some(rest) = uri.strip_prefix("data:") {
            decode_data_uri(rest).ok_or("INVALID_TOKEN_URI")
        } else if uri.starts_with("http://") || uri.starts_with("https://") {
            // One too long to store cannot be fetched later either.
            if m.token_uri.is_empty() {
                Err("INVALID_TOKEN_URI")
            } else {
                Err(NftMetadata::UNINDEXED)
            }
        } else {
            Err("INVALID_TOKEN_URI_SCHEME")
        };
        self.finish(m, doc);
    }

    /// Fetches the document of an `UNINDEXED` `m` and fills it; `Err` with a retryable
    /// failure leaves it `UNINDEXED` for another try.
    pub async fn resolve_remote(&self, m: &mut NftMetadata) -> Result<(), FetchError> {
        let Some(web) = &self.web else {
            return Ok(());
        };
        match web.get(m.token_uri.trim()).await {
            Ok(doc) => {
                self.finish(m, Ok(doc));
                Ok(())
            }
            Err(e) if e.retryable() => Err(e),
            Err(e) => {
                self.finish(m, Err(e.status()));
                Ok(())
            }
        }
    }

    /// The final status, and the fields of a document that parses.
    fn finish(&self, m: &mut NftMetadata, doc: Result<Vec<u8>, &'static str>) {
        let status = doc.and_then(|bytes| {
            if bytes.len() > self.limits.max_document {
                return Err("METADATA_CONTENT_TOO_LARGE");
            }
            let v: Value = serde_json::from_slice(&bytes).map_err(|_| "INVALID_METADATA_JSON")?;
            let obj = v.as_object().ok_or("INVALID_METADATA")?;
            fill(m, obj);
            Ok("INDEXED")
        });
        m.index_status = match status {
            Ok(s) | Err(s) => s.to_owned(),
        };
    }
}

/// `uri` if it is short enough to store.
fn bounded_uri(uri: &str) -> Option<String> {
    (uri.len() <= MAX_URI_BYTES).then(|| uri.to_owned())
}

/// `s` cut to `max` characters.
pub(crate) fn bounded_text(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((cut, _)) => s[..cut].to_owned(),
        None => s.to_owned(),
    }
}

/// The bytes of a `data:` URI (without the scheme): `[mediatype][;base64],payload`.
pub fn decode_data_uri(rest: &str) -> Option<Vec<u8>> {
    let (meta, payload) = rest.split_once(',')?;
    if meta.split(';').any(|p| p.eq_ignore_ascii_case("base64")) {
        base64::engine::general_purpose::STANDARD
            .decode(payload.trim())
            .ok()
    } else {
        percent_decode(payload)
    }
}

/// Percent-decodes `s`; a `%` not followed by two hex digits stays as it is.
fn percent_decode(s: &str) -> Option<Vec<u8>> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let escaped = (b[i] == b'%')
            .then(|| b.get(i + 1..i + 3))
            .flatten()
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match escaped {
            Some(v) => {
                out.push(v);
                i += 3;
            }
            None => {
                out.push(b[i]);
                i += 1;
            }
        }
    }
    Some(out)
}

fn fill(m: &mut NftMetadata, obj: &serde_json::Map<String, Value>) {
    let text = |k: &str| obj.get(k).and_then(Value::as_str);
    let cut = |k: &str, max| text(k).map(|s| bounded_text(s, max));
    let uri = |k: &str| text(k).and_then(bounded_uri);
    let json = |k: &str| {
        obj.get(k)
            .map(Value::to_string)
            .filter(|j| j.len() <= MAX_ATTRIBUTES_BYTES)
    };
    m.name = cut("name", MAX_NAME_CHARS);
    m.symbol = cut("symbol", MAX_SYMBOL_CHARS);
    m.image_uri = uri("image").or_else(|| uri("image_url"));
    m.description = cut("description", MAX_DESCRIPTION_CHARS);
    m.animation_uri = uri("animation_url");
    m.external_url = uri("external_url");
    m.background = cut("background_color", MAX_SYMBOL_CHARS);
    m.attributes = json("attributes");
    m.properties = json("properties");
    m.decimals = obj
        .get("decimals")
        .and_then(Value::as_u64)
        .and_then(|d| u8::try_from(d).ok());
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn status_of(uri: &str) -> NftMetadata {
        let f = MetadataFetcher::new(MetadataLimits {
            fetch: false,
            max_document: 64,
            ..MetadataLimits::default()
        });
        let mut m = NftMetadata::default();
        f.resolve_offline(&mut m, uri);
        m
    }

    #[tokio::test]
    async fn data_uris_decode_offline_with_the_official_statuses() {
        let b64 = base64::engine::general_purpose::STANDARD.encode(r#"{"name":"A","image":"x"}"#);
        let m = status_of(&format!("data:application/json;base64,{b64}")).await;
        assert_eq!(
            (m.index_status.as_str(), m.name.as_deref()),
            ("INDEXED", Some("A"))
        );
        assert_eq!(m.image_uri.as_deref(), Some("x"));
        let m = status_of("data:application/json,%7B%22name%22%3A%22B%22%7D").await;
        assert_eq!(
            (m.index_status.as_str(), m.name.as_deref()),
            ("INDEXED", Some("B"))
        );
        assert_eq!(
            status_of("data:application/json,nope").await.index_status,
            "INVALID_METADATA_JSON"
        );
        assert_eq!(
            status_of("data:application/json,[1]").await.index_status,
            "INVALID_METADATA"
        );
        assert_eq!(
            status_of("ipfs://Qm").await.index_status,
            "INVALID_TOKEN_URI_SCHEME"
        );
        assert_eq!(status_of("").await.index_status, "INVALID_TOKEN_URI");
        let big = format!("data:,{{\"name\":\"{}\"}}", "x".repeat(100));
        assert_eq!(
            status_of(&big).await.index_status,
            "METADATA_CONTENT_TOO_LARGE"
        );
        let remote = status_of("https://example.com/1.json").await;
        assert_eq!(
            (remote.index_status.as_str(), remote.token_uri.as_str()),
            ("UNINDEXED", "https://example.com/1.json")
        );
        // Too long to store, so never fetched.
        let long = status_of(&format!(
            "https://example.com/{}",
            "a".repeat(MAX_URI_BYTES)
        ))
        .await;
        assert_eq!(
            (long.index_status.as_str(), long.token_uri.as_str()),
            ("INVALID_TOKEN_URI", "")
        );
    }

    #[test]
    fn what_a_document_says_is_stored_within_bounds() {
        let mut m = NftMetadata::default();
        let long = "n".repeat(10_000);
        let doc = serde_json::json!({
            "name": long,
            "symbol": long,
            "description": long,
            "image": format!("data:image/svg+xml;base64,{}", "A".repeat(MAX_URI_BYTES)),
            "attributes": (0..5_000).map(|i| serde_json::json!({"trait_type": i})).collect::<Vec<_>>(),
            "properties": {"ok": true},
        });
        fill(&mut m, doc.as_object().unwrap());
        assert_eq!(
            m.name.as_ref().map(|s| s.chars().count()),
            Some(MAX_NAME_CHARS)
        );
        assert_eq!(
            m.symbol.as_ref().map(|s| s.chars().count()),
            Some(MAX_SYMBOL_CHARS)
        );
        assert_eq!(
            m.description.as_ref().map(|s| s.chars().count()),
            Some(MAX_DESCRIPTION_CHARS)
        );
        assert_eq!(m.image_uri, None, "a URI too long is left out");
        assert_eq!(m.attributes, None, "an attribute set too large is left out");
        assert_eq!(m.properties.as_deref(), Some(r#"{"ok":true}"#));
        assert_eq!(bounded_text("héllo", 2), "hé");
    }
}
