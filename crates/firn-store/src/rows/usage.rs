//! Request logs: one row per request the Data API or the node RPC answered, and the filters
//! the usage routes read them with.

/// One served request, as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestLogRecord {
    /// When it arrived, Unix ms.
    pub time_ms: u64,
    /// Its ID (a UUID).
    pub log_id: String,
    /// Hex SHA-256 of the API key it sent; empty without one.
    pub api_key_id: String,
    /// `data` (Data API) or `rpc` (node RPC).
    pub request_type: String,
    /// The request path (capped by the recorder).
    pub path: String,
    /// The chain it addressed; empty when none.
    pub chain_id: String,
    /// The JSON-RPC method(s), comma-separated; empty for Data API requests.
    pub rpc_method: String,
    /// Node RPC to a primary-network endpoint (P, X, C, info, health, …).
    pub primary_network: bool,
    /// HTTP status answered.
    pub status: u16,
    /// Time to answer, ms.
    pub duration_ms: u64,
    /// Client IP address.
    pub ip: String,
    /// `Host` header.
    pub host: String,
    /// `User-Agent` header.
    pub user_agent: String,
}

/// Which request logs a usage read covers. `None` does not filter.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RequestLogFilter {
    /// Logs of this API key only (the usage routes always set it for Data API logs).
    pub api_key_id: Option<String>,
    /// Logs at or after, Unix ms.
    pub from_ms: u64,
    /// Logs before, Unix ms.
    pub to_ms: u64,
    /// `data` or `rpc`.
    pub request_type: Option<String>,
    /// This chain.
    pub chain_id: Option<String>,
    /// Only logs that name a chain.
    pub with_chain: bool,
    /// Only node RPC to the primary network (`Some(true)`) or to L1s (`Some(false)`).
    pub primary_network: Option<bool>,
    /// This HTTP status.
    pub status: Option<u16>,
    /// This exact path.
    pub path: Option<String>,
    /// This JSON-RPC method (as stored).
    pub rpc_method: Option<String>,
    /// This exact `User-Agent`.
    pub user_agent: Option<String>,
}

/// The column usage metrics are grouped by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum UsageGroup {
    /// No grouping: one group per time bucket.
    #[default]
    None,
    /// The request path.
    Path,
    /// The HTTP status.
    Status,
    /// The chain.
    ChainId,
    /// The API key.
    ApiKeyId,
    /// `data` or `rpc`.
    RequestType,
    /// The JSON-RPC method(s).
    RpcMethod,
    /// The `User-Agent`.
    UserAgent,
}

impl UsageGroup {
    /// The column's SQL expression (fixed text, never from a request).
    pub(crate) fn column(self) -> &'static str {
        match self {
            UsageGroup::None => "''",
            UsageGroup::Path => "path",
            UsageGroup::Status => "CAST(status AS TEXT)",
            UsageGroup::ChainId => "chain_id",
            UsageGroup::ApiKeyId => "api_key_id",
            UsageGroup::RequestType => "request_type",
            UsageGroup::RpcMethod => "rpc_method",
            UsageGroup::UserAgent => "user_agent",
        }
    }
}

/// What usage metrics need of one request log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageSample {
    /// When it arrived, Unix ms.
    pub time_ms: u64,
    /// The value of the grouping column, as text (empty without grouping).
    pub group: String,
    /// HTTP status answered.
    pub status: u16,
    /// Time to answer, ms.
    pub duration_ms: u64,
}
