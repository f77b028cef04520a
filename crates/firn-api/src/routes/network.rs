//! Resolving `{network}` and `{blockchainId}` of primary-network paths.

use firn_core::ids::Id;
use firn_core::network::P_CHAIN_ID;

use crate::config::NetworkProfile;
use crate::error::ApiError;
use crate::params::Query;

/// The `{network}` values of the official enum.
pub const NETWORKS: [&str; 3] = ["mainnet", "fuji", "testnet"];

/// Checks `{network}`: a bad value is a 400, a valid network this server does not index a 404.
pub fn check_network(profile: &NetworkProfile, network: &str) -> Result<(), ApiError> {
    if !NETWORKS.contains(&network) {
        return Err(ApiError::bad(format!(
            "network must be one of the following values: {}",
            NETWORKS.join(", ")
        )));
    }
    if !profile.accepts(network) {
        return Err(ApiError::not_found(format!(
            "network {network} is not indexed by this server: it serves {} (a local firn network)",
            profile.wire_name()
        )));
    }
    Ok(())
}

/// A primary-network chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrimaryChain {
    /// The P-Chain.
    P,
    /// The X-Chain.
    X,
    /// The C-Chain.
    C,
}

impl PrimaryChain {
    /// The `chainInfo.chainName` of the chain.
    pub fn wire_name(self) -> &'static str {
        match self {
            PrimaryChain::P => "p-chain",
            PrimaryChain::X => "x-chain",
            PrimaryChain::C => "c-chain",
        }
    }
}

/// Resolves `{blockchainId}` (an alias or this network's chain ID) or records a 400.
pub fn primary_chain(
    profile: &NetworkProfile,
    query: &mut Query,
    blockchain_id: &str,
) -> Option<PrimaryChain> {
    let chain = match blockchain_id {
        "p-chain" => Some(PrimaryChain::P),
        "x-chain" => Some(PrimaryChain::X),
        "c-chain" => Some(PrimaryChain::C),
        other => match other.parse::<Id>() {
            Ok(id) if id == P_CHAIN_ID => Some(PrimaryChain::P),
            Ok(id) if id == profile.x_chain_id => Some(PrimaryChain::X),
            Ok(id) if id == profile.c_chain_id => Some(PrimaryChain::C),
            _ => None,
        },
    };
    if chain.is_none() {
        query.error(format!(
            "blockchainId must be one of the following values: {P_CHAIN_ID}, {}, {}, p-chain, x-chain, c-chain",
            profile.x_chain_id, profile.c_chain_id
        ));
    }
    chain
}

/// The P-Chain, or the 404 of a primary-network chain firn does not index (`what` is what was
/// asked for, e.g. "UTXOs"). Call after [`Query::finish`]: `None` left its 400 there.
pub(crate) fn p_chain_only(chain: Option<PrimaryChain>, what: &str) -> Result<(), ApiError> {
    match chain {
        Some(PrimaryChain::P) | None => Ok(()),
        Some(other) => Err(ApiError::not_found(format!(
            "{} {what} are not indexed by this firn server",
            other.wire_name()
        ))),
    }
}
