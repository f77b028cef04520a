//! Warp signature aggregation: ask a subnet's validators for ACP-118 signatures of a
//! message, verify them, and aggregate a quorum into a signed Warp message, as
//! icm-services' signature aggregator and the Data API's `signatureAggregator` do.
//!
//! The key types:
//! - [`ValidatorNetwork`]: the one narrow interface to validators — the subnet of a chain,
//!   a subnet's validators at a P-Chain height, and one ACP-118 request to one node. The
//!   devnet implements it in process (`firn_devnet::signers`), `firn_rpc` over a node's RPC
//!   (`RpcValidatorNetwork`); nothing here does I/O.
//! - [`Aggregator`]: builds the canonical set, requests heaviest first in parallel with
//!   per-request timeouts, verifies answers in batches (one pairing per batch, bisecting to
//!   exclude bad signatures), stops at quorum + buffer, and caches verified signatures by
//!   message ID.
//! - [`pchain::message_for_tx`]: the P-Chain message a ConvertSubnetToL1Tx,
//!   RegisterL1ValidatorTx or SetL1ValidatorWeightTx justifies, read through
//!   [`JustificationSource`].
//!
//! Data flows: [`AggregationRequest`] → [`Aggregator::aggregate`] → (network: subnet, set,
//! signature requests) → [`Aggregated`] holding the signed [`firn_core::warp::Message`];
//! or an [`AggregateError`] whose [`kind`](AggregateError::kind) says whether the caller
//! (bad quorum, wrong network, unknown chain) or the validators (`signature weight is
//! insufficient: …`, the text clients retry on) are at fault.
//!
//! ```
//! use firn_aggregator::{AggregateError, Quorum};
//!
//! let q = Quorum::new(67, 0).unwrap();
//! assert_eq!(q.required(1_000), 670);
//! assert!(matches!(Quorum::new(90, 20), Err(AggregateError::InvalidQuorum(_))));
//! ```

pub mod aggregator;
pub mod cache;
pub mod error;
pub mod network;
pub mod pchain;
pub mod quorum;
pub mod verify;

pub use aggregator::{Aggregated, AggregationRequest, Aggregator, AggregatorConfig};
pub use error::{AggregateError, ErrorKind};
pub use network::{
    AppError, BoxFuture, JustificationSource, NetworkError, Validator, ValidatorNetwork,
};
pub use quorum::{DEFAULT_QUORUM_PERCENTAGE, Quorum};
