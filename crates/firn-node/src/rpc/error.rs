//! [`MethodError`]: every error the node services answer, with AvalancheGo's exact texts. The
//! envelope sends its `Display` text as the `-32000` message; this is the one place the texts
//! live.

use firn_core::ids::Id;
use firn_devnet::TxError;
use thiserror::Error;

use firn_rpc::avalanche::INVALID_ARG_MESSAGE;

/// An error of a node RPC method.
#[derive(Debug, Error)]
pub enum MethodError {
    /// An argument that decoded but is not valid (an unknown encoding, a bad height).
    #[error("{}", INVALID_ARG_MESSAGE)]
    InvalidArgument,
    /// `platform.getBlockByHeight` past the tip.
    #[error("couldn't get block at height {0}: not found")]
    BlockAtHeightNotFound(u64),
    /// `platform.getBlock` of an unknown ID.
    #[error("couldn't get block with id {0}: not found")]
    BlockNotFound(Id),
    /// `platform.getTx` of an unknown ID.
    #[error("couldn't get tx: not found")]
    TxNotFound,
    /// An empty `addresses` list.
    #[error("no addresses provided")]
    NoAddresses,
    /// More addresses than one page.
    #[error("number of addresses given, {given}, exceeds maximum, {max}")]
    TooManyAddresses {
        /// How many were given.
        given: usize,
        /// The limit.
        max: usize,
    },
    /// `platform.getStake` with more addresses than it takes.
    #[error("{given} addresses provided but this method can take at most {max}")]
    TooManyStakeAddresses {
        /// How many were given.
        given: usize,
        /// The limit.
        max: usize,
    },
    /// `platform.sampleValidators` of a subnet without validators, or of more weight than
    /// the set has.
    #[error("sampling {subnet} errored with {reason}")]
    Sampling {
        /// The subnet sampled.
        subnet: Id,
        /// AvalancheGo's sampler error.
        reason: &'static str,
    },
    /// An address that is not `P-<this network's hrp>1…`.
    #[error("couldn't parse address {address:?}: {reason}")]
    BadAddress {
        /// The address as given.
        address: String,
        /// Why it was refused.
        reason: String,
    },
    /// A `startIndex.address` that does not parse.
    #[error("couldn't parse start index address {address:?}: {reason}")]
    BadStartAddress {
        /// The address as given.
        address: String,
        /// Why it was refused.
        reason: String,
    },
    /// A `startIndex.utxo` that is not cb58.
    #[error("couldn't parse start index utxo: {0}")]
    BadStartUtxo(String),
    /// A `sourceChain` that names no chain.
    #[error("problem parsing source chainID {0:?}: there is no chain with alias/ID '{0}'")]
    UnknownSourceChain(String),
    /// An alias or chain ID that names no chain.
    #[error("there is no chain with alias/ID '{0}'")]
    UnknownChain(String),
    /// UTXOs asked for in the `json` encoding.
    #[error("couldn't encode {0} as json: unsupported encoding")]
    JsonNotSupported(&'static str),
    /// `issueTx` bytes that are not valid in the given encoding.
    #[error("problem decoding transaction: {0}")]
    TxDecoding(String),
    /// `issueTx` of a tx the VM refused (its text is AvalancheGo's).
    #[error("{}", issue_text(.0))]
    Issue(TxError),
    /// A subnet without a transformation (the devnet never has one).
    #[error("failed fetching subnet transformation for {0}: not found")]
    NoTransformation(Id),
    /// `getSubnet` of the primary network.
    #[error("the primary network isn't a subnet")]
    PrimaryNetworkIsNotASubnet,
    /// `getSubnet` of an unknown subnet (AvalancheGo forwards the database's text).
    #[error("not found")]
    SubnetNotFound(Id),
    /// `validates` of an unknown subnet.
    #[error("\"{0}\" is not a subnet")]
    NotASubnet(Id),
    /// A validator set asked for above the last accepted height.
    #[error(
        "failed to get validator set at {0}: failed to fetch validator set at unfinalized height"
    )]
    UnfinalizedHeight(u64),
    /// Validator sets asked for above the last accepted height.
    #[error(
        "failed to get validator sets at {0}: failed to fetch validator set at unfinalized height"
    )]
    UnfinalizedHeightAll(u64),
    /// A validator set that has no canonical form.
    #[error("failed to get validator sets at {height}: {reason}")]
    Canonical {
        /// The height asked for.
        height: u64,
        /// Why.
        reason: String,
    },
    /// `getL1Validator` of an unknown validation ID.
    #[error("fetching L1 validator \"{0}\" failed: not found")]
    L1ValidatorNotFound(Id),
    /// `getBlockchainStatus` without `blockchainID`.
    #[error("argument 'blockchainID' not given")]
    MissingBlockchainId,
    /// A `blockchainID` that is neither an alias nor cb58.
    #[error("problem parsing blockchainID {id:?}: {reason}")]
    BadBlockchainId {
        /// The argument as given.
        id: String,
        /// Why.
        reason: String,
    },
    /// `validatedBy` of an unknown chain.
    #[error("problem retrieving blockchain: not found")]
    BlockchainNotFound(Id),
    /// `info.isBootstrapped` without `chain`.
    #[error("argument 'chain' not given")]
    MissingChain,
    /// Building blocks failed.
    #[error("couldn't build blocks: {0}")]
    Build(String),
    /// `firn.requestWarpSignature` with request bytes that are not an ACP-118 request.
    #[error("request is not an ACP-118 SignatureRequest: {0}")]
    BadSignatureRequest(String),
    /// `firn.requestWarpSignature` failed before any validator could answer.
    #[error("couldn't ask for a signature: {0}")]
    Signing(String),
    /// `firn.setTime` to a time before the clock's.
    #[error("time {requested} is before the clock's time {now}: the clock only moves forward")]
    ClockBackwards {
        /// The time asked for.
        requested: u64,
        /// The clock's time.
        now: u64,
    },
    /// `index.*` asked for `json`, which is not a byte encoding.
    #[error("unsupported encoding in method")]
    UnsupportedEncodingInMethod,
    /// `index.*` on a chain that has accepted nothing since genesis.
    #[error("no containers have been accepted")]
    NoneAccepted,
    /// `index.getContainerByIndex` past the last accepted.
    #[error("no container at index {0}")]
    NoContainerAtIndex(u64),
    /// `index.getContainerRange` asked for none or too many.
    #[error("numToFetch must be in [1,{max}] but is {0}", max = firn_rpc::methods::index::MAX_FETCHED_BY_RANGE)]
    NumToFetchInvalid(u64),
    /// `index.getContainerRange` from past the last accepted.
    #[error("start index ({start}) > last accepted index ({last})")]
    StartIndexPastLast {
        /// The index asked for.
        start: u64,
        /// The last accepted index.
        last: u64,
    },
    /// `index.getIndex` or `index.getContainerByID` of a container not accepted.
    #[error("not found")]
    ContainerNotFound,
    /// A tx ID argument left empty.
    #[error("nil transaction ID")]
    NilTxId,
    /// A tx or block the X-Chain does not have.
    #[error("not found")]
    NotFound,
    /// `getAssetDescription` of a tx that is not a CreateAssetTx.
    #[error("transaction doesn't create an asset")]
    NotAnAsset,
    /// An asset argument that is neither an alias nor an ID.
    #[error("asset '{0}' not found")]
    AssetNotFound(String),
    /// The `address` argument of `avm.getBalance` and `avm.getAllBalances`.
    #[error("problem parsing address '{address}': {reason}")]
    BadAddressArgument {
        /// The address given.
        address: String,
        /// Why it does not parse.
        reason: String,
    },
    /// A tx the X-Chain refused: the AVM answers with the verifier's text alone.
    #[error("{0}")]
    XChainRejected(TxError),
    /// `avax.getUTXOs` without `sourceChain` (the C-Chain lists only atomic UTXOs).
    #[error("no source chain provided")]
    NoSourceChain,
    /// `avax.issueTx` bytes that are not an atomic tx.
    #[error("problem parsing transaction: {0}")]
    AtomicTxParse(String),
    /// An atomic tx the C-Chain refused, with coreth's text.
    #[error("{0}")]
    AtomicTxRejected(String),
    /// `avax.getAtomicTx` of a tx the C-Chain never saw.
    #[error("could not find tx {0}")]
    AtomicTxNotFound(Id),
}

/// AvalancheGo wraps issuing errors in `couldn't issue tx: `; parse errors already say
/// `couldn't parse tx: `.
fn issue_text(e: &TxError) -> String {
    match e {
        TxError::Malformed(_) => e.to_string(),
        other => format!("couldn't issue tx: {other}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn issue_errors_keep_the_vm_text_with_avalanchego_prefix() {
        assert_eq!(
            MethodError::Issue(TxError::Duplicate).to_string(),
            "couldn't issue tx: duplicate tx"
        );
        assert_eq!(
            MethodError::Issue(TxError::Malformed("bad bytes".into())).to_string(),
            "couldn't parse tx: bad bytes"
        );
        assert_eq!(
            MethodError::InvalidArgument.to_string(),
            INVALID_ARG_MESSAGE
        );
        assert_eq!(
            MethodError::NotASubnet(Id::ZERO).to_string(),
            "\"11111111111111111111111111111111LpoYY\" is not a subnet"
        );
    }
}
