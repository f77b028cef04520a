//! The one narrow interface through which the aggregator reaches validators
//! ([`ValidatorNetwork`]), and the P-Chain reads the `aggregateSignatures/{txHash}` route
//! needs ([`JustificationSource`]; the store's own `firn_store::PChainReader` reads indexed
//! history, not a node).
//!
//! Both are object-safe (`Arc<dyn …>`) and return boxed futures, so an implementation can
//! answer in process (the devnet), over node RPC, or over the Avalanche p2p network.

use firn_core::ids::{Id, NodeId};
use firn_core::keys::bls;
use firn_core::pchain::tx::UnsignedTx;
use firn_core::warp::acp118::{Preimage, SignatureRequest, SignatureResponse};
use std::future::Future;
use std::pin::Pin;

/// A boxed, sendable future: what the traits here return.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// One validator of a subnet at a P-Chain height.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Validator {
    /// The node.
    pub node_id: NodeId,
    /// Its BLS key; validators without one add weight but can never sign.
    pub public_key: Option<bls::PublicKey>,
    /// Its weight.
    pub weight: u64,
}

/// Why a validator refused to sign: AvalancheGo's `common.AppError`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppError {
    /// The verifier's error code (e.g. `ErrConversionDoesNotExist` = 6 on the P-Chain).
    pub code: i32,
    /// What it said.
    pub message: String,
}

impl std::fmt::Display for AppError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (code {})", self.message, self.code)
    }
}

/// What can go wrong talking to the network.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NetworkError {
    /// No subnet is known to validate the chain.
    #[error("unknown blockchain {0}: no subnet validates it")]
    UnknownChain(Id),
    /// The P-Chain has not reached the height asked for.
    #[error(
        "P-Chain height {requested} is not accepted yet (last accepted height {last_accepted})"
    )]
    HeightNotAccepted {
        /// The height asked for.
        requested: u64,
        /// The last accepted height.
        last_accepted: u64,
    },
    /// The node could not be reached (not connected, or it did not answer).
    #[error("{0} is unreachable")]
    Unreachable(NodeId),
    /// The node answered with an error instead of a signature.
    #[error("{node_id} refused to sign: {error}")]
    Refused {
        /// The node.
        node_id: NodeId,
        /// Its error.
        error: AppError,
    },
    /// The network cannot carry signature requests at all (say, a node's RPC without
    /// firn's signing method): nobody can be asked, so the aggregation stops at once.
    #[error("{0}")]
    Unsupported(String),
    /// Anything else (a transport or backend failure).
    #[error("{0}")]
    Other(String),
}

/// How the aggregator reaches validators.
pub trait ValidatorNetwork: Send + Sync + std::fmt::Debug {
    /// The network ID messages must carry.
    fn network_id(&self) -> u32;

    /// The subnet that validates `chain_id` (the primary network, `Id::ZERO`, for the
    /// P-, X- and C-Chains).
    fn subnet_of_chain(&self, chain_id: Id) -> BoxFuture<'_, Result<Id, NetworkError>>;

    /// The P-Chain height a request that names none reads validator sets at: the last
    /// accepted height.
    fn current_height(&self) -> BoxFuture<'_, Result<u64, NetworkError>>;

    /// The validators of `subnet_id` at P-Chain `height`, in any order. The set at an
    /// accepted height never changes: the aggregator keeps it by (subnet, height).
    fn validators_at(
        &self,
        subnet_id: Id,
        height: u64,
    ) -> BoxFuture<'_, Result<Vec<Validator>, NetworkError>>;

    /// Sends one ACP-118 signature request to `node_id` (on the message's source chain) and
    /// waits for its answer. The caller bounds the wait with its own timeout.
    fn request_signature<'a>(
        &'a self,
        node_id: NodeId,
        request: &'a SignatureRequest,
    ) -> BoxFuture<'a, Result<SignatureResponse, NetworkError>>;
}

/// Where the P-Chain facts come from that turn an L1 tx into the Warp message it justifies
/// (see [`crate::pchain::message_for_tx`]): accepted txs and L1 validations, read from a node.
pub trait JustificationSource: Send + Sync + std::fmt::Debug {
    /// An accepted P-Chain tx, `None` if unknown.
    fn tx(&self, tx_id: Id) -> BoxFuture<'_, Result<Option<UnsignedTx>, NetworkError>>;

    /// True while the validation is an L1 validator in the current P-Chain state.
    fn l1_validation_exists(&self, validation_id: Id) -> BoxFuture<'_, Result<bool, NetworkError>>;

    /// How a validation ID came to be: the conversion that listed it (subnet and index) or
    /// the bytes of the `RegisterL1Validator` message that registered it. `None` if the
    /// P-Chain never saw it.
    fn registration_preimage(
        &self,
        validation_id: Id,
    ) -> BoxFuture<'_, Result<Option<Preimage>, NetworkError>>;
}
