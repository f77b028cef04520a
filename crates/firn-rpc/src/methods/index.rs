//! `index.*` on `/ext/index/<chain>/block` (AvalancheGo's `indexer` service): the chain's
//! accepted containers by the order they were accepted, the first after genesis at index 0.

use firn_core::ids::Id;
use serde::{Deserialize, Serialize};

use super::methods;
use crate::avajson::u64_string;

methods! {
    /// The last accepted container.
    GetLastAccepted = "index.getLastAccepted" (EncodingParams) -> Container;
    /// The container accepted `index`-th.
    GetContainerByIndex = "index.getContainerByIndex" (ContainerByIndexParams) -> Container;
    /// Up to `numToFetch` (1 to [`MAX_FETCHED_BY_RANGE`]) containers from `startIndex`.
    GetContainerRange = "index.getContainerRange" (ContainerRangeParams) -> ContainerRangeReply;
    /// The index a container was accepted at.
    GetIndex = "index.getIndex" (ContainerIdParams) -> IndexReply;
    /// Whether a container was accepted.
    IsAccepted = "index.isAccepted" (ContainerIdParams) -> IsAcceptedReply;
    /// A container by its ID.
    GetContainerById = "index.getContainerByID" (ContainerIdParams) -> Container;
}

/// The most containers one `index.getContainerRange` returns, as AvalancheGo's.
pub const MAX_FETCHED_BY_RANGE: u64 = 1024;

/// `{encoding}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct EncodingParams {
    /// `hex` (default), `hexc` or `hexnc`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub encoding: Option<String>,
}

/// `{index, encoding}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ContainerByIndexParams {
    /// The acceptance index.
    #[serde(with = "u64_string")]
    pub index: u64,
    /// `hex` (default), `hexc` or `hexnc`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub encoding: Option<String>,
}

/// `{startIndex, numToFetch, encoding}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ContainerRangeParams {
    /// The first index.
    #[serde(with = "u64_string")]
    pub start_index: u64,
    /// How many, 1 to [`MAX_FETCHED_BY_RANGE`].
    #[serde(with = "u64_string")]
    pub num_to_fetch: u64,
    /// `hex` (default), `hexc` or `hexnc`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub encoding: Option<String>,
}

/// `{id, encoding}` (`index.getIndex` and `index.isAccepted` ignore the encoding).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ContainerIdParams {
    /// The container's ID.
    pub id: Id,
    /// `hex` (default), `hexc` or `hexnc`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub encoding: Option<String>,
}

/// `{id, bytes, timestamp, encoding, index}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Container {
    /// The container's ID.
    pub id: Id,
    /// Its bytes in `encoding`.
    pub bytes: String,
    /// When it was accepted, RFC 3339.
    pub timestamp: String,
    /// The encoding of `bytes`.
    pub encoding: String,
    /// Its acceptance index.
    #[serde(with = "u64_string")]
    pub index: u64,
}

/// `{containers}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContainerRangeReply {
    /// The containers, in index order.
    pub containers: Vec<Container>,
}

/// `{index}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexReply {
    /// The acceptance index.
    #[serde(with = "u64_string")]
    pub index: u64,
}

/// `{isAccepted}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IsAcceptedReply {
    /// Whether the container was accepted.
    pub is_accepted: bool,
}
