//! `proposervm.*` on `/ext/bc/<chain>/proposervm` (AvalancheGo's `vms/proposervm` JSON-RPC
//! service): the P-Chain height a chain's next block would reference, and its ACP-181 epoch.

use serde::{Deserialize, Serialize};

use super::platform::HeightReply;
use super::{NoParams, methods};
use crate::avajson::u64_string;

methods! {
    /// The P-Chain height the chain's next block would reference.
    GetProposedHeight = "proposervm.getProposedHeight" (NoParams) -> HeightReply;
    /// The chain's current ACP-181 epoch (all zero before Granite).
    GetCurrentEpoch = "proposervm.getCurrentEpoch" (NoParams) -> EpochReply;
}

/// `{number, startTime, pChainHeight}`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EpochReply {
    /// The epoch's number (0: epochs have not started).
    #[serde(with = "u64_string")]
    pub number: u64,
    /// When it started, Unix seconds.
    #[serde(with = "u64_string")]
    pub start_time: u64,
    /// The P-Chain height it views validators at.
    #[serde(with = "u64_string")]
    pub p_chain_height: u64,
}
