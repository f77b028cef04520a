//! The X-Chain's vertex index as AvalancheGo's index API serves it (`/ext/index/X/vtx`, with
//! `--index-enabled`): `index.getLastAccepted` for the last acceptance index,
//! `index.getContainerRange` for the vertices, hex with a checksum.
//!
//! Every container is hostile until decoded: its hex is refused unread past what the largest
//! vertex takes, and a container that does not decode (bytes, timestamp) is logged and
//! skipped, never an error that would stop the backfill.

use std::ops::Range;

use firn_core::avm::Vertex;
use firn_core::avm::vertex::MAX_VERTEX_SIZE;
use firn_core::calendar::unix_from_rfc3339;
use firn_core::encoding::hex_decode_checksummed;
use firn_rpc::methods::index::{
    Container, ContainerRangeParams, EncodingParams, GetContainerRange, GetLastAccepted,
    MAX_FETCHED_BY_RANGE,
};
use firn_rpc::{AvalancheClient, ClientError};
use tracing::warn;

use crate::error::{IndexerError, Result};

/// The longest `bytes` a vertex container can have: `0x`, the hex of the largest vertex and
/// of its 4-byte checksum.
const MAX_HEX_LEN: usize = 2 + 2 * (MAX_VERTEX_SIZE + 4);

/// A vertex as the index served it.
#[derive(Debug, Clone)]
pub struct FetchedVertex {
    /// The acceptance index.
    pub index: u64,
    /// The decoded vertex (its ID is sha256 of its bytes).
    pub vertex: Vertex,
    /// When the node accepted it, Unix seconds.
    pub timestamp: u64,
    /// Encoded size in bytes.
    pub size: u64,
}

/// What `index.getLastAccepted` said of the vertex index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LastVertex {
    /// The node does not serve it (404, no such service or method): it runs without
    /// `--index-enabled`, or is not AvalancheGo.
    NotServed,
    /// Served, but no vertex was accepted (a network that started after Cortina).
    Empty,
    /// The last vertex's acceptance index.
    At(u64),
}

/// The node's vertex index (`…/ext/index/X/vtx`).
#[derive(Debug, Clone)]
pub struct VertexSource {
    client: AvalancheClient,
}

impl VertexSource {
    /// A source over `client`, whose URL is the index endpoint (`http://node:9650/ext/index/X/vtx`).
    pub fn new(client: AvalancheClient) -> Self {
        Self { client }
    }

    /// `index.getLastAccepted`.
    pub async fn last_accepted(&self) -> Result<LastVertex> {
        let params = EncodingParams {
            encoding: Some("hex".to_owned()),
        };
        match self.client.request::<GetLastAccepted>(&params).await {
            Ok(c) => Ok(LastVertex::At(c.index)),
            Err(ClientError::Rpc(e)) if e.message == "no containers have been accepted" => {
                Ok(LastVertex::Empty)
            }
            Err(e) if not_served(&e) => Ok(LastVertex::NotServed),
            Err(e) => Err(e.into()),
        }
    }

    /// `index.getContainerRange` over `indices`, at most [`MAX_FETCHED_BY_RANGE`] a call: the
    /// vertices that decoded, in index order (the others are logged and left out).
    pub async fn vertices(&self, indices: Range<u64>) -> Result<Vec<FetchedVertex>> {
        let mut out = Vec::new();
        let mut start = indices.start;
        while start < indices.end {
            let num = (indices.end - start).min(MAX_FETCHED_BY_RANGE);
            let params = ContainerRangeParams {
                start_index: start,
                num_to_fetch: num,
                encoding: Some("hex".to_owned()),
            };
            let reply = self.client.request::<GetContainerRange>(&params).await?;
            if reply.containers.is_empty() {
                return Err(IndexerError::Missing {
                    what: "x-chain vertex",
                    key: start.to_string(),
                });
            }
            let mut expected = start;
            for c in reply
                .containers
                .iter()
                .take(usize::try_from(num).unwrap_or(usize::MAX))
            {
                if c.index != expected {
                    return Err(IndexerError::decode(
                        format!("x-chain vertex {expected}"),
                        format!("the node sent vertex {} instead", c.index),
                    ));
                }
                out.extend(decode_container(c));
                expected += 1;
            }
            start = expected;
        }
        Ok(out)
    }
}

/// Whether a failed call says the node serves no vertex index at all: AvalancheGo answers
/// 404 for an index it does not run, and names an unknown service or method.
fn not_served(e: &ClientError) -> bool {
    match e {
        ClientError::Http { status: 404, .. } => true,
        ClientError::Rpc(err) => {
            err.code == -32601
                || err.message.starts_with("rpc: can't find")
                || err.message.contains("no index")
        }
        _ => false,
    }
}

/// The vertex in `c`, or `None` (logged) when its bytes or timestamp do not decode.
pub(crate) fn decode_container(c: &Container) -> Option<FetchedVertex> {
    let index = c.index;
    let skip = |reason: &dyn std::fmt::Display| {
        warn!(target: "indexer::xchain", vertex_index = index, %reason, "an x-chain vertex that does not decode is skipped");
        None
    };
    if c.bytes.len() > MAX_HEX_LEN {
        return skip(&format!(
            "{} hex digits, more than a vertex can have",
            c.bytes.len()
        ));
    }
    let bytes = match hex_decode_checksummed(&c.bytes) {
        Ok(b) => b,
        Err(e) => return skip(&e),
    };
    let vertex = match Vertex::from_bytes(&bytes) {
        Ok(v) => v,
        Err(e) => return skip(&e),
    };
    let Some(timestamp) = unix_from_rfc3339(&c.timestamp) else {
        return skip(&format!("timestamp {:?} is not RFC 3339", c.timestamp));
    };
    if vertex.id() != c.id {
        // The bytes are what was accepted; the ID they hash to is the vertex's.
        warn!(target: "indexer::xchain", vertex_index = index, sent = %c.id, id = %vertex.id(), "the node named an x-chain vertex with another ID than its bytes'");
    }
    Some(FetchedVertex {
        index,
        vertex,
        timestamp,
        size: bytes.len() as u64,
    })
}
