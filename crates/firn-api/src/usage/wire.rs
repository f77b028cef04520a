//! The usage routes' log shapes, as the official OpenAPI file names them (`LogsResponseDTO`,
//! `LogsFormat`, `LogsFormatMetadata`).

use firn_store::rows::usage::RequestLogRecord;
use serde::{Deserialize, Serialize};

/// `LogsResponseDTO`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LogsResponse {
    /// The next page's token, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// The caller's organization (its API key's digest).
    pub org_id: String,
    /// The logs, newest first.
    pub logs: Vec<LogsFormat>,
}

impl LogsResponse {
    pub(crate) fn new(org_id: String, logs: Vec<LogsFormat>, next: Option<String>) -> Self {
        Self {
            next_page_token: next,
            org_id,
            logs,
        }
    }
}

/// `LogsFormat`: one request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LogsFormat {
    /// The organization.
    pub org_id: String,
    /// The log's ID.
    pub log_id: String,
    /// When the request arrived, Unix ms.
    pub event_timestamp: u64,
    /// Digest of the API key sent; empty without one.
    pub api_key_id: String,
    /// firn keeps no key aliases: empty.
    pub api_key_alias: String,
    /// Always `local`: firn serves from where it runs.
    pub host_region: String,
    /// `data` or `rpc`.
    pub request_type: String,
    /// The path.
    pub request_path: String,
    /// One per request (see [`super::aggregate`]).
    pub api_credits_consumed: u64,
    /// Time to answer.
    pub request_duration_msecs: u64,
    /// HTTP status.
    pub response_code: u16,
    /// The chain, when the path names one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chain_id: Option<String>,
    /// The JSON-RPC method(s), for node RPC.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rpc_method: Option<String>,
    /// The client.
    pub metadata: LogsFormatMetadata,
}

/// `LogsFormatMetadata`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LogsFormatMetadata {
    /// Client IP address.
    pub ip_address: String,
    /// `Host` header.
    pub host: String,
    /// `User-Agent` header.
    pub user_agent: String,
}

fn non_empty(s: &str) -> Option<String> {
    (!s.is_empty()).then(|| s.to_owned())
}

impl LogsFormat {
    pub(crate) fn new(org_id: &str, l: &RequestLogRecord) -> Self {
        Self {
            org_id: org_id.to_owned(),
            log_id: l.log_id.clone(),
            event_timestamp: l.time_ms,
            api_key_id: l.api_key_id.clone(),
            api_key_alias: String::new(),
            host_region: "local".to_owned(),
            request_type: l.request_type.clone(),
            request_path: l.path.clone(),
            api_credits_consumed: 1,
            request_duration_msecs: l.duration_ms,
            response_code: l.status,
            chain_id: non_empty(&l.chain_id),
            rpc_method: non_empty(&l.rpc_method),
            metadata: LogsFormatMetadata {
                ip_address: l.ip.clone(),
                host: l.host.clone(),
                user_agent: l.user_agent.clone(),
            },
        }
    }
}
