//! [`AggregateError`]: every way an aggregation can fail, with a [`kind`](AggregateError::kind)
//! that tells an API layer whether the caller or the network is at fault.

use crate::network::NetworkError;
use firn_core::ids::Id;
use firn_core::warp::WarpError;

/// Why an aggregation failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AggregateError {
    /// Quorum numbers outside `1..=100`, or a sum past 100.
    #[error("invalid quorum: {0}")]
    InvalidQuorum(&'static str),
    /// The message is for another network.
    #[error("message is for network {actual}, but this network is {expected}")]
    WrongNetwork {
        /// This network's ID.
        expected: u32,
        /// The message's network ID.
        actual: u32,
    },
    /// The signing subnet has no validator with a BLS key at the height.
    #[error("subnet {subnet_id} has no validators with a BLS key at P-Chain height {height}")]
    NoValidators {
        /// The signing subnet.
        subnet_id: Id,
        /// The P-Chain height.
        height: u64,
    },
    /// Not enough weight answered with a valid signature. Clients retry on this text.
    #[error(
        "signature weight is insufficient: {obtained} obtained, {required} required of total \
         {total} ({signers} of {asked} validators asked signed)"
    )]
    InsufficientWeight {
        /// Weight of the validators whose signatures verified.
        obtained: u64,
        /// The least weight that meets the quorum.
        required: u64,
        /// The weight of the whole set.
        total: u64,
        /// How many canonical validators signed (cached signatures included).
        signers: usize,
        /// How many canonical validators were asked.
        asked: usize,
    },
    /// Reading the network failed.
    #[error(transparent)]
    Network(#[from] NetworkError),
    /// The validator set or the signatures could not be turned into a Warp message.
    #[error("warp: {0}")]
    Warp(#[from] WarpError),
}

/// Who is at fault, for mapping to a status code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The request is wrong: fixing it, not retrying, helps (HTTP 400).
    BadRequest,
    /// Validators did not produce enough weight: a retry may succeed (HTTP 503).
    Unavailable,
    /// The backend failed (HTTP 500/502).
    Internal,
}

impl AggregateError {
    /// Who is at fault.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::InvalidQuorum(_) | Self::WrongNetwork { .. } | Self::NoValidators { .. } => {
                ErrorKind::BadRequest
            }
            Self::InsufficientWeight { .. } => ErrorKind::Unavailable,
            Self::Network(
                NetworkError::UnknownChain(_) | NetworkError::HeightNotAccepted { .. },
            ) => ErrorKind::BadRequest,
            Self::Network(_) | Self::Warp(_) => ErrorKind::Internal,
        }
    }
}
