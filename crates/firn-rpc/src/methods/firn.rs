//! `firn.*` on `/ext/firn`: firn's own methods for tests and tooling (the devnet's clock and
//! block building) and the Warp signature requests that AvalancheGo answers only over p2p.

use firn_core::ids::NodeId;
use serde::{Deserialize, Serialize};

use super::{NoParams, methods};
use crate::avajson::{Uint64, hex_bytes, u64_string};

methods! {
    /// The clock, the chain time and the height.
    GetTime = "firn.getTime" (NoParams) -> TimeReply;
    /// Moves the clock forward and builds what is due.
    AdvanceTime = "firn.advanceTime" (SecondsParams) -> ClockMovedReply;
    /// Moves the clock to a Unix time (never back) and builds what is due.
    SetTime = "firn.setTime" (TimeParams) -> ClockMovedReply;
    /// Builds every block due at the clock's time.
    BuildBlock = "firn.buildBlock" (NoParams) -> HeightsReply;
    /// One ACP-118 signature request to one devnet validator.
    RequestWarpSignature = "firn.requestWarpSignature" (SignatureParams) -> SignatureReply;
}

/// `{seconds}`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SecondsParams {
    /// How far.
    #[serde(with = "u64_string")]
    pub seconds: u64,
}

/// `{time}`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct TimeParams {
    /// Unix seconds.
    #[serde(with = "u64_string")]
    pub time: u64,
}

/// `{nodeID, request}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignatureParams {
    /// The validator asked.
    #[serde(rename = "nodeID")]
    pub node_id: NodeId,
    /// The ACP-118 `SignatureRequest` protobuf, `0x`-hex.
    #[serde(with = "hex_bytes")]
    pub request: Vec<u8>,
}

/// `{time, chainTime, height}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TimeReply {
    /// The clock.
    #[serde(with = "u64_string")]
    pub time: u64,
    /// The last block's time.
    #[serde(with = "u64_string")]
    pub chain_time: u64,
    /// The last accepted height.
    #[serde(with = "u64_string")]
    pub height: u64,
}

/// `{time, heights}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockMovedReply {
    /// The clock after the move.
    #[serde(with = "u64_string")]
    pub time: u64,
    /// The blocks built.
    pub heights: Vec<Uint64>,
}

/// `{heights}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeightsReply {
    /// The blocks built.
    pub heights: Vec<Uint64>,
}

/// A validator's refusal: AvalancheGo's `AppError`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AppErrorReply {
    /// The code (subnet-evm: 1 parse, 2 verify; AvalancheGo: -1 unexpected).
    pub code: i32,
    /// Why.
    pub message: String,
}

/// Exactly one of `{response}` (signed), `{appError}` (refused), `{unreachable}` (offline or
/// unknown here).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum SignatureReply {
    /// The ACP-118 `SignatureResponse` protobuf, `0x`-hex.
    #[serde(rename = "response", with = "hex_bytes")]
    Response(Vec<u8>),
    /// The validator refused.
    #[serde(rename = "appError")]
    AppError(AppErrorReply),
    /// The validator cannot be reached.
    #[serde(rename = "unreachable")]
    Unreachable(String),
}
