//! The Metrics API's response bodies, field for field as the official OpenAPI document has
//! them.

use serde::Serialize;

/// `MetricsValue`: one point.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MetricsValue {
    /// The bucket's value.
    pub value: f64,
    /// Start of the bucket, Unix seconds.
    pub timestamp: u64,
}

impl MetricsValue {
    pub(super) fn list(points: &[(u64, f64)]) -> Vec<Self> {
        points
            .iter()
            .map(|&(timestamp, value)| Self { value, timestamp })
            .collect()
    }
}

/// `MetricsApiResponse`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MetricsApiResponse {
    /// Present only when more points exist.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// Points, newest first.
    pub results: Vec<MetricsValue>,
}

/// The v1 average-TPS series.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AvgTpsResponse {
    /// Daily points, newest first.
    pub results: Vec<MetricsValue>,
    /// The HTTP status, echoed.
    pub status: u16,
    /// Time of the data's last update (the chain's last counted block).
    pub last_run: u64,
    /// Present only when more points exist.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// Legacy paging: the `startKey` of the next page (only for requests that sent `startKey`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_start_key: Option<String>,
}

/// `Chain`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Chain {
    /// EVM chain ID.
    pub evm_chain_id: u64,
    /// Chain alias.
    pub chain_name: String,
    /// Blockchain ID (cb58).
    pub blockchain_id: String,
    /// Subnet ID (cb58).
    pub subnet_id: String,
    /// `mainnet` or `testnet`.
    pub network: &'static str,
}

impl From<&firn_store::rows::evm::EvmChainRecord> for Chain {
    fn from(c: &firn_store::rows::evm::EvmChainRecord) -> Self {
        Self {
            evm_chain_id: c.chain_id,
            chain_name: c.name.clone(),
            blockchain_id: c.blockchain_id.to_string(),
            subnet_id: c.subnet_id.to_string(),
            network: if c.is_testnet { "testnet" } else { "mainnet" },
        }
    }
}

/// `ListChainsResponse`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ListChainsResponse {
    /// Never set: every chain fits one page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// The indexed chains.
    pub chains: Vec<Chain>,
}

/// `ChainRollingWindowMetricsValue`: windows ending at the chain's last block.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RollingWindowValue {
    /// Last hour.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_hour: Option<f64>,
    /// Last 24 hours.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_day: Option<f64>,
    /// Last 7 days.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_week: Option<f64>,
    /// Last 30 days.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_month: Option<f64>,
    /// Last 90 days.
    #[serde(rename = "last90Days", skip_serializing_if = "Option::is_none")]
    pub last_90_days: Option<f64>,
    /// Last 365 days.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_year: Option<f64>,
    /// Since genesis.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub all_time: Option<f64>,
}

/// `RollingWindowMetricsApiResponse`.
#[derive(Debug, Clone, Serialize)]
pub struct RollingWindowResponse {
    /// The windows.
    pub result: RollingWindowValue,
}

/// `PChainAddressDetails`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PChainAddressDetails {
    /// The reward owner's addresses (bech32 without a chain prefix).
    pub addresses: Vec<String>,
    /// The validation's start time, Unix seconds, as text.
    pub sort_key: String,
}

/// `PChainLookingGlassResponse`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PChainLookingGlassResponse {
    /// Present only when more entries may follow.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// One entry per validator.
    pub addresses: Vec<PChainAddressDetails>,
}

/// `AddressDetails`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AddressDetails {
    /// An EVM address, checksummed.
    pub address: String,
    /// The route's value for it (the net amount bridged), as text.
    pub sort_key: String,
}

/// `LookingGlassResponse`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LookingGlassResponse {
    /// Present only when more entries may follow.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// The addresses that match.
    pub addresses: Vec<AddressDetails>,
}

/// `CompositeQueryResponse`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompositeQueryResponse {
    /// Present only when more addresses follow.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// How many addresses each subquery found, by its ID.
    pub sub_query_counts: std::collections::BTreeMap<String, u64>,
    /// How many addresses the combined query found.
    pub total_count: u64,
    /// A page of them, by address.
    pub addresses: Vec<String>,
}
