//! NFT metadata: the ERC-721 `tokenURI(id)` or ERC-1155 `uri(id)` of each newly minted token,
//! and the JSON document it points at. `data:` URIs (base64 or plain, percent-encoded) are
//! decoded offline; `http(s)` ones are fetched with a timeout and a size cap. The outcome is
//! one of the Data API's `NftTokenMetadataStatus` values.

use std::collections::BTreeMap;
use std::time::Duration;

use base64::Engine;
use firn_store::rows::evm::{NftMetadata, TokenStandard, TokenTransfer};
use firn_store::types::{Address, U256};
use serde_json::Value;

use super::source::EvmSource;
use super::tokens::abi_string;
use crate::error::Result;

const TOKEN_URI: [u8; 4] = [0xc8, 0x7b, 0x56, 0xdd];
const URI: [u8; 4] = [0x0e, 0x89, 0x34, 0x1c];

/// How metadata documents are fetched.
#[derive(Debug, Clone)]
pub struct MetadataFetcher {
    http: Option<reqwest::Client>,
    /// Largest document accepted, in bytes.
    pub max_bytes: usize,
}

impl MetadataFetcher {
    /// A fetcher with a per-request `timeout` and a `max_bytes` cap; `http: false` never goes
    /// online (http(s) URIs are left `UNINDEXED`).
    pub fn new(http: bool, timeout: Duration, max_bytes: usize) -> Self {
        let http = http
            .then(|| reqwest::Client::builder().timeout(timeout).build().ok())
            .flatten();
        Self { http, max_bytes }
    }

    /// The metadata of every NFT minted in `transfers` (first mint per token and ID), each
    /// stamped with the minting block's time so a re-run writes the same row.
    pub async fn minted(
        &self,
        source: &EvmSource,
        transfers: &[(&TokenTransfer, u64)],
    ) -> Result<Vec<NftMetadata>> {
        let mut minted: BTreeMap<(Address, U256), (TokenStandard, u64)> = BTreeMap::new();
        for (t, ts) in transfers {
            let (Some(id), true) = (t.token_id, t.from == Address::ZERO) else {
                continue;
            };
            if t.standard != TokenStandard::Erc20 {
                minted.entry((t.token, id)).or_insert((t.standard, *ts));
            }
        }
        if minted.is_empty() {
            return Ok(Vec::new());
        }
        let calls: Vec<(Address, Vec<u8>)> = minted
            .iter()
            .map(|((token, id), (standard, _))| {
                let mut data = match standard {
                    TokenStandard::Erc1155 => URI.to_vec(),
                    _ => TOKEN_URI.to_vec(),
                };
                data.extend(id.to_be_bytes());
                (*token, data)
            })
            .collect();
        let uris = source.calls(&calls).await?;
        let mut out = Vec::with_capacity(minted.len());
        for (((token, id), (standard, ts)), uri) in minted.into_iter().zip(uris) {
            let mut m = NftMetadata {
                token,
                token_id: id,
                updated_at: Some(ts),
                ..NftMetadata::default()
            };
            match uri.as_deref().and_then(abi_string) {
                None => m.index_status = "MISSING_TOKEN".to_owned(),
                Some(uri) => {
                    let uri = match standard {
                        TokenStandard::Erc1155 => {
                            uri.replace("{id}", &hex::encode(id.to_be_bytes()))
                        }
                        _ => uri,
                    };
                    m.token_uri = uri;
                    self.resolve(&mut m).await;
                }
            }
            out.push(m);
        }
        Ok(out)
    }

    /// Fills `m` from the document at `m.token_uri` and sets its status.
    async fn resolve(&self, m: &mut NftMetadata) {
        let uri = m.token_uri.trim().to_owned();
        let doc = if uri.is_empty() {
            Err("INVALID_TOKEN_URI")
        } else if let Some(rest) = uri.strip_prefix("data:") {
            decode_data_uri(rest).ok_or("INVALID_TOKEN_URI")
        } else if uri.starts_with("http://") || uri.starts_with("https://") {
            match &self.http {
                Some(http) => self.fetch(http, &uri).await,
                None => Err("UNINDEXED"),
            }
        } else {
            Err("INVALID_TOKEN_URI_SCHEME")
        };
        let status = doc.and_then(|bytes| {
            if bytes.len() > self.max_bytes {
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

    async fn fetch(&self, http: &reqwest::Client, uri: &str) -> Result<Vec<u8>, &'static str> {
        let mut resp = http
            .get(uri)
            .send()
            .await
            .map_err(|_| "UNREACHABLE_TOKEN_URI")?;
        match resp.status().as_u16() {
            429 => return Err("THROTTLED_TOKEN_URI"),
            s if !(200..300).contains(&s) => return Err("UNREACHABLE_TOKEN_URI"),
            _ => {}
        }
        if resp
            .content_length()
            .is_some_and(|n| n > self.max_bytes as u64)
        {
            return Err("METADATA_CONTENT_TOO_LARGE");
        }
        let mut body = Vec::new();
        while let Some(chunk) = resp.chunk().await.map_err(|_| "UNREACHABLE_TOKEN_URI")? {
            body.extend_from_slice(&chunk);
            if body.len() > self.max_bytes {
                return Err("METADATA_CONTENT_TOO_LARGE");
            }
        }
        Ok(body)
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
    let text = |k: &str| obj.get(k).and_then(Value::as_str).map(str::to_owned);
    m.name = text("name");
    m.symbol = text("symbol");
    m.image_uri = text("image").or_else(|| text("image_url"));
    m.description = text("description");
    m.animation_uri = text("animation_url");
    m.external_url = text("external_url");
    m.background = text("background_color");
    m.attributes = obj.get("attributes").map(Value::to_string);
    m.properties = obj.get("properties").map(Value::to_string);
    m.decimals = obj
        .get("decimals")
        .and_then(Value::as_u64)
        .and_then(|d| u8::try_from(d).ok());
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn status_of(uri: &str) -> NftMetadata {
        let f = MetadataFetcher::new(false, Duration::from_secs(1), 64);
        let mut m = NftMetadata {
            token_uri: uri.to_owned(),
            ..NftMetadata::default()
        };
        f.resolve(&mut m).await;
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
    }
}
