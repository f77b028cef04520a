//! [`NodeError`]: why the node could not open its chains, generate history or start serving.
//! Errors of single RPC methods are [`crate::rpc::MethodError`]; they go to the client, not here.

use std::net::SocketAddr;
use std::path::PathBuf;

use firn_core::ids::Id;
use firn_devnet::DevnetError;
use firn_evm::EvmError;

/// An error opening, running or serving the node.
#[derive(Debug, thiserror::Error)]
pub enum NodeError {
    /// The P-Chain's data directory could not be opened or replayed.
    #[error("couldn't open the chain in {}: {source}", dir.display())]
    OpenPChain {
        /// The chain's directory.
        dir: PathBuf,
        /// Why.
        source: DevnetError,
    },
    /// The X-Chain's data directory could not be opened or replayed.
    #[error("couldn't open the X-Chain in {}: {source}", dir.display())]
    OpenXChain {
        /// The chain's directory.
        dir: PathBuf,
        /// Why.
        source: DevnetError,
    },
    /// An EVM chain could not be opened or replayed.
    #[error("couldn't open EVM chain {chain}: {source}")]
    OpenEvmChain {
        /// Its blockchain ID.
        chain: Id,
        /// Why.
        source: EvmError,
    },
    /// A temporary data directory could not be made.
    #[error("couldn't make a temporary data directory: {0}")]
    TempDir(std::io::Error),
    /// A `warp_off_chain_messages` entry is not a message the chains could sign.
    #[error(
        "{0}; give each off-chain message as the hex of an unsigned Warp message of this network carrying an AddressedCall"
    )]
    OffChainMessages(String),
    /// The validators' BLS keys could not be derived.
    #[error("couldn't derive the validators' signing keys: {0}")]
    SigningKeys(DevnetError),
    /// The P-Chain refused a step of generated history.
    #[error("couldn't generate P-Chain history: {0}")]
    PChainHistory(#[from] DevnetError),
    /// The X-Chain failed during generated history.
    #[error("couldn't generate X-Chain history: {0}")]
    XChainHistory(DevnetError),
    /// An EVM chain failed during generated history.
    #[error("couldn't generate EVM history: {0}")]
    EvmHistory(EvmError),
    /// The RPC listener could not be bound.
    #[error("couldn't listen on {addr}: {source}")]
    Bind {
        /// The address asked for.
        addr: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// The routes did not build (a bug: paths are fixed).
    #[error("couldn't build the RPC routes: {0}")]
    Routes(#[from] firn_rpc::RouteError),
    /// The RPC server failed.
    #[error("the RPC server failed: {0}")]
    Serve(std::io::Error),
}
