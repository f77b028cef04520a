//! The X-Chain's DAG vertices from before Cortina (`XChainVertex`) and their lists.

use firn_store::rows::xchain::XVertexRecord;
use serde::Serialize;
use utoipa::ToSchema;

use crate::wire::pchain::PrimaryNetworkChainInfo;

/// A DAG vertex (`XChainVertex`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct XChainVertex {
    /// Vertex ID.
    pub vertex_hash: String,
    /// Parent vertex IDs.
    pub parent_hashes: Vec<String>,
    /// Height in the DAG.
    pub vertex_height: u64,
    /// Acceptance index: how many vertices the node accepted before it.
    pub vertex_index: u64,
    /// When it was accepted, Unix seconds.
    pub vertex_timestamp: u64,
    /// Txs it carries.
    pub tx_count: u64,
    /// Their IDs, in order.
    pub transactions: Vec<String>,
    /// Encoded size in bytes.
    pub vertex_size_bytes: u64,
}

impl From<&XVertexRecord> for XChainVertex {
    fn from(v: &XVertexRecord) -> Self {
        Self {
            vertex_hash: v.vertex_id.to_string(),
            parent_hashes: v.parent_ids.iter().map(ToString::to_string).collect(),
            vertex_height: v.height,
            vertex_index: v.index,
            vertex_timestamp: v.timestamp,
            tx_count: v.tx_count,
            transactions: v.tx_ids.iter().map(ToString::to_string).collect(),
            vertex_size_bytes: v.size_bytes,
        }
    }
}

/// A page of vertices (`ListXChainVerticesResponse`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListXChainVerticesResponse {
    /// Token of the next page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// The vertices.
    pub vertices: Vec<XChainVertex>,
    /// The chain and network.
    pub chain_info: PrimaryNetworkChainInfo,
}
