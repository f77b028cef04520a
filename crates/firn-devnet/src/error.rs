//! The errors of the devnet: [`DevnetError`] for opening, building and storage, [`TxError`]
//! for a tx the VM rejects. Where AvalancheGo has an error text for the same failure,
//! [`TxError`]'s message is that text (with AvalancheGo's `%w:` wrapping), so clients that
//! match on AvalancheGo's messages keep working.

use firn_core::ids::{Id, NodeId};

/// Why the devnet could not open, build a block or persist it.
#[derive(Debug, thiserror::Error)]
pub enum DevnetError {
    /// A configuration value the devnet cannot run with.
    #[error("invalid config field {field}: {reason}")]
    InvalidConfig {
        /// The field.
        field: &'static str,
        /// What is wrong.
        reason: &'static str,
    },
    /// A key could not be derived.
    #[error("key derivation failed: {0}")]
    Key(String),
    /// The data directory could not be read or written.
    #[error("data directory {path}: {source}")]
    Io {
        /// The file or directory.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A stored block is unreadable or does not follow the chain.
    #[error("stored block {height} is corrupt: {reason}")]
    Corrupt {
        /// The block's height (its index in the file).
        height: u64,
        /// What is wrong.
        reason: String,
    },
    /// The data directory holds a chain with another genesis.
    #[error("data directory holds genesis {stored}, but the config gives genesis {configured}")]
    GenesisMismatch {
        /// The stored genesis block ID.
        stored: Id,
        /// The configured genesis block ID.
        configured: Id,
    },
    /// A block failed to execute (during replay or building).
    #[error("block {height} is invalid: {source}")]
    InvalidBlock {
        /// The block height.
        height: u64,
        /// The tx error.
        source: TxError,
    },
}

/// Why a tx was rejected. Messages follow AvalancheGo's texts.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TxError {
    /// The tx bytes do not decode.
    #[error("couldn't parse tx: {0}")]
    Malformed(String),
    /// The tx is already in the mempool or accepted.
    #[error("duplicate tx")]
    Duplicate,
    /// The tx spends a UTXO a mempool tx spends.
    #[error("tx conflicts with other tx")]
    ConflictsWithOtherTx,
    /// The tx type is not accepted by this VM after Etna.
    #[error("{0}")]
    Unsupported(&'static str),
    /// Wrong network ID.
    #[error("metadata failed verification: tx has wrong network ID")]
    WrongNetworkId,
    /// Wrong blockchain ID.
    #[error("metadata failed verification: tx has wrong chain ID")]
    WrongChainId,
    /// A memo after Durango.
    #[error("memo exceeds maximum length: {0} > 0")]
    MemoTooLarge(usize),
    /// An output fails its own checks.
    #[error("output failed verification: {0}")]
    InvalidOutput(&'static str),
    /// An input fails its own checks.
    #[error("input failed verification: {0}")]
    InvalidInput(&'static str),
    /// Outputs are not in canonical order.
    #[error("outputs not sorted")]
    OutputsNotSorted,
    /// Inputs are not sorted by UTXO or repeat one.
    #[error("inputs not sorted and unique")]
    InputsNotSortedUnique,
    /// A tx-specific syntactic rule.
    #[error("{0}")]
    Syntax(&'static str),
    /// An input spends a UTXO that does not exist (never did, or already spent).
    #[error("failed to read consumed UTXO {tx_id}:{output_index} due to: not found")]
    MissingUtxo {
        /// The UTXO's tx ID.
        tx_id: Id,
        /// The UTXO's output index.
        output_index: u32,
    },
    /// Inputs and credentials differ in number.
    #[error("wrong number of credentials: {inputs} inputs != {credentials} credentials")]
    WrongNumberOfCredentials {
        /// Inputs.
        inputs: usize,
        /// Credentials.
        credentials: usize,
    },
    /// No credential for a subnet or disable authorisation.
    #[error("should have the same number of credentials as inputs")]
    MissingAuthCredential,
    /// An input's asset differs from its UTXO's.
    #[error("input asset ID does not match UTXO asset ID: {claimed} != {actual}")]
    AssetMismatch {
        /// The input's asset.
        claimed: Id,
        /// The UTXO's asset.
        actual: Id,
    },
    /// A stakeable-lock input's locktime differs from its UTXO's.
    #[error("input locktime does not match UTXO locktime: {input} != {utxo}")]
    LocktimeMismatch {
        /// The input's locktime.
        input: u64,
        /// The UTXO's locktime.
        utxo: u64,
    },
    /// A stakeable-locked UTXO spent by a plain input.
    #[error("locked funds not marked as locked")]
    LockedFundsNotMarkedAsLocked,
    /// The secp256k1fx transfer check failed.
    #[error("failed to verify transfer: {0}")]
    Transfer(FxError),
    /// Not enough unlocked funds for outputs, stake and fee.
    #[error("insufficient unlocked funds: needs {needed} more {asset}")]
    InsufficientUnlockedFunds {
        /// The shortfall.
        needed: u64,
        /// The asset.
        asset: Id,
    },
    /// Not enough locked funds for locked outputs.
    #[error(
        "insufficient locked funds: {owner} needs {needed} more {asset} for locktime {locktime}"
    )]
    InsufficientLockedFunds {
        /// sha256 of the owner's bytes.
        owner: Id,
        /// The shortfall.
        needed: u64,
        /// The asset.
        asset: Id,
        /// The locktime.
        locktime: u64,
    },
    /// An amount sum overflows u64.
    #[error("overflow")]
    Overflow,
    /// The tx's dynamic fee could not be computed (AvalancheGo's fee calculator errors).
    #[error("{0}")]
    Fee(String),
    /// A block's txs need more gas than the chain has.
    #[error(transparent)]
    Capacity(#[from] crate::fee::InsufficientCapacity),
    /// A staker tx's flow check failed.
    #[error("flow check failed: {0}")]
    FlowCheckFailed(Box<TxError>),
    /// The subnet authorisation did not verify.
    #[error("unauthorized modification: {0}")]
    Unauthorized(FxError),
    /// The subnet does not exist.
    #[error("subnet {0} not found")]
    SubnetNotFound(Id),
    /// The subnet was converted to an L1 and takes no permissioned changes.
    #[error("\"{0}\" is immutable")]
    Immutable(Id),
    /// A staking rule; the text is AvalancheGo's.
    #[error("{0}")]
    Staking(&'static str),
    /// The staked asset is not AVAX.
    #[error("incorrect staked assetID: {expected} != {actual}")]
    WrongStakedAsset {
        /// AVAX.
        expected: Id,
        /// The staked asset.
        actual: Id,
    },
    /// The node already validates the subnet.
    #[error("duplicate validator: {node_id} on {subnet_id}")]
    DuplicateValidator {
        /// The node.
        node_id: NodeId,
        /// The subnet.
        subnet_id: Id,
    },
    /// The node does not validate the subnet.
    #[error("{node_id} isn't a current or pending validator of {of}")]
    NotValidator {
        /// The node.
        node_id: NodeId,
        /// `the primary network`, or the subnet ID and the lookup error.
        of: String,
    },
    /// A delegator names a node that is not a primary network validator.
    #[error("failed to fetch the primary network validator for {0}: not found")]
    PrimaryValidatorNotFound(NodeId),
    /// The BLS proof of possession does not verify.
    #[error("invalid proof of possession")]
    InvalidProofOfPossession,
    /// A Warp message or L1 rule; the text is AvalancheGo's.
    #[error("{0}")]
    L1(&'static str),
    /// The Warp message failed to decode or verify.
    #[error("{0}")]
    Warp(String),
    /// The L1 validator does not exist.
    #[error("could not load L1 validator: {0}")]
    L1ValidatorNotFound(Id),
    /// The staker to reward is not the next one.
    #[error("attempting to remove wrong staker")]
    RemoveWrongStaker,
    /// The chain name has a bad character or length.
    #[error("{0}")]
    ChainName(&'static str),
    /// A rule whose AvalancheGo text carries values or wrapping (most X-Chain rules).
    #[error("{0}")]
    Rule(String),
    /// An imported UTXO is not in shared memory (never exported, or imported already).
    #[error("failed to get shared memory: not found")]
    MissingAtomicUtxo,
}

/// Why secp256k1fx rejected an input or authorisation (AvalancheGo's `secp256k1fx` texts).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FxError {
    /// The input amount differs from the UTXO's.
    #[error("utxo amount and input amount are not equal: {utxo} != {input}")]
    MismatchedAmounts {
        /// The UTXO's amount.
        utxo: u64,
        /// The input's amount.
        input: u64,
    },
    /// The owners' locktime has not passed.
    #[error("output is time locked")]
    Timelocked,
    /// More signature indices than the threshold.
    #[error("input has more signers than expected")]
    TooManySigners,
    /// Fewer signature indices than the threshold.
    #[error("input has less signers than expected")]
    TooFewSigners,
    /// The credential has a different number of signatures than the input has indices.
    #[error("input expected a different number of signers than provided in the credential")]
    SignersMismatch,
    /// A signature index past the owners' addresses.
    #[error("input referenced a nonexistent address in the output")]
    IndexOutOfBounds,
    /// A signature that does not recover to a public key.
    #[error("invalid signature: {0}")]
    BadSignature(String),
    /// A signature from the wrong key.
    #[error("wrong signature: expected signature from {expected} but got from {actual}")]
    WrongSig {
        /// The owner address expected, cb58.
        expected: String,
        /// The address recovered, cb58.
        actual: String,
    },
    /// The signature indices are not sorted and unique.
    #[error("address indices not sorted and unique")]
    IndicesNotSortedUnique,
}
