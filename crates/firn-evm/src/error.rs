//! Errors: [`TxError`] (why a tx is refused or a call fails, in go-ethereum's words, so that
//! clients recognise them) and [`EvmError`] (the chain itself: genesis, disk, corruption).

use alloy_primitives::{Address, Bytes};

/// Why a transaction is refused by the pool, or a call fails; texts follow go-ethereum's
/// `core` and `txpool` errors.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TxError {
    /// Bytes that are not a transaction.
    #[error("{0}")]
    Decode(String),
    /// Type 3 (blob) and 4 (set-code) and unknown types.
    #[error("transaction type not supported")]
    TypeNotSupported,
    /// Bad signature, or signed for another chain.
    #[error("invalid sender: {0}")]
    InvalidSender(String),
    /// The same transaction is already pooled or mined.
    #[error("already known")]
    AlreadyKnown,
    /// The sender has already used this nonce.
    #[error("nonce too low: next nonce {next}, tx nonce {tx}")]
    NonceTooLow {
        /// The sender's next nonce.
        next: u64,
        /// The tx's nonce.
        tx: u64,
    },
    /// Balance below `gas * price + value`.
    #[error(
        "insufficient funds for gas * price + value: balance {balance}, tx cost {cost}, overshot {overshot}"
    )]
    InsufficientFunds {
        /// The sender's balance.
        balance: String,
        /// What the tx may cost.
        cost: String,
        /// How much is missing.
        overshot: String,
    },
    /// Gas limit below the intrinsic gas.
    #[error("intrinsic gas too low: gas {gas}, minimum needed {needed}")]
    IntrinsicGas {
        /// The tx's gas limit.
        gas: u64,
        /// Its intrinsic gas.
        needed: u64,
    },
    /// Gas limit above the block's.
    #[error("exceeds block gas limit")]
    GasLimit,
    /// A fee cap under the pool's minimum (coreth's and subnet-EVM's `ErrUnderpriced`).
    #[error(
        "transaction underpriced: address {address} have gas fee cap ({max_fee}) < pool minimum fee cap ({minimum})"
    )]
    Underpriced {
        /// The sender.
        address: Address,
        /// The tx's fee cap.
        max_fee: u128,
        /// The pool's minimum.
        minimum: u64,
    },
    /// `maxPriorityFeePerGas` above `maxFeePerGas`.
    #[error(
        "max priority fee per gas higher than max fee per gas: address {address}, maxPriorityFeePerGas: {tip}, maxFeePerGas: {max_fee}"
    )]
    TipAboveFeeCap {
        /// The sender.
        address: Address,
        /// The tip.
        tip: u128,
        /// The fee cap.
        max_fee: u128,
    },
    /// A pooled tx with the same nonce pays at least as much.
    #[error("replacement transaction underpriced")]
    ReplaceUnderpriced,
    /// The encoded tx is larger than the pool takes.
    #[error("oversized data: transaction size {size}, limit {limit}")]
    OversizedData {
        /// Its size.
        size: usize,
        /// The limit.
        limit: usize,
    },
    /// The pool is full.
    #[error("txpool is full")]
    PoolFull,
    /// Init code larger than EIP-3860 allows.
    #[error("max initcode size exceeded: code size {size} limit {limit}")]
    InitCodeTooLarge {
        /// Its size.
        size: usize,
        /// The limit.
        limit: usize,
    },
    /// A tx allow list refuses the sender.
    #[error("cannot issue transaction from non-allow listed address: {0}")]
    NotAllowListed(Address),
    /// A call reverted (`eth_call`, `eth_estimateGas`); `data` is the revert data.
    #[error("{message}")]
    Reverted {
        /// `execution reverted` or `execution reverted: <reason>`.
        message: String,
        /// The raw revert data.
        data: Bytes,
    },
    /// A call halted (out of gas, invalid opcode, …).
    #[error("{0}")]
    Halted(String),
    /// `eth_estimateGas` found no gas limit that works.
    #[error("gas required exceeds allowance ({0})")]
    GasExceedsAllowance(u64),
    /// Anything else the EVM refused.
    #[error("{0}")]
    Other(String),
}

/// Errors of the chain itself.
#[derive(Debug, thiserror::Error)]
pub enum EvmError {
    /// The genesis JSON is unusable.
    #[error("invalid genesis: {0}")]
    Genesis(String),
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The block file does not replay to the chain it recorded.
    #[error("block file corrupt at height {height}: {reason}")]
    Corrupt {
        /// The first bad height.
        height: u64,
        /// Why.
        reason: String,
    },
    /// The database behind the EVM failed (never for the in-memory state).
    #[error("state: {0}")]
    State(String),
    /// A dev-loop request the chain cannot carry out (`evm_mine` before the head's time, code
    /// too large to set).
    #[error("{0}")]
    Dev(String),
}
