//! AvalancheGo's index API, `index.*` at `/ext/index/P/block`, `/ext/index/X/block` and
//! `/ext/index/C/block`: each
//! chain's accepted blocks in acceptance order, the first block after genesis at index 0 (a node
//! indexing from its start, as `--index-enabled` on a fresh node).
//!
//! The containers are the chains' own blocks: firn's devnet has no proposervm layer, so they
//! come unwrapped, as a chain's blocks from before Apricot Phase 4 do. AvalancheGo's examples
//! and clients read both (`proposervm/block.Parse`, falling back to the bytes as given). The
//! X-Chain's `tx` and `vtx` indexes are not served (its history has no vertices here); other
//! chains are not indexed by AvalancheGo (404).

use std::sync::Arc;

use alloy_primitives::B256;
use firn_core::calendar::rfc3339;
use firn_core::encoding::Encoding;
use firn_core::ids::Id;
use firn_devnet::{PChain, XChain};
use firn_evm::EvmChain;
use firn_rpc::methods::index::{
    Container, ContainerByIndexParams, ContainerIdParams, ContainerRangeParams,
    ContainerRangeReply, EncodingParams, GetContainerById, GetContainerByIndex, GetContainerRange,
    GetIndex, GetLastAccepted, IndexReply, IsAccepted, IsAcceptedReply, MAX_FETCHED_BY_RANGE,
};
use firn_rpc::server::Endpoint;
use firn_rpc::{AvaServer, AvaService};

use super::{MethodError, encoding};

/// A chain's accepted blocks as the index sees them. Index `i` is the block at height `i + 1`.
pub trait AcceptedBlocks: Send + Sync + 'static {
    /// The last accepted height.
    fn height(&self) -> u64;
    /// The block at `height`: its ID, bytes and timestamp (Unix seconds).
    fn at_height(&self, height: u64) -> Option<(Id, Vec<u8>, u64)>;
    /// The height of the block with `id`.
    fn height_of(&self, id: &Id) -> Option<u64>;
}

impl AcceptedBlocks for PChain {
    fn height(&self) -> u64 {
        PChain::height(self)
    }

    fn at_height(&self, height: u64) -> Option<(Id, Vec<u8>, u64)> {
        let b = self.block_by_height(height)?.block;
        Some((b.id(), b.bytes(), b.time().unwrap_or_default()))
    }

    fn height_of(&self, id: &Id) -> Option<u64> {
        Some(self.block_by_id(id)?.block.height())
    }
}

impl AcceptedBlocks for XChain {
    fn height(&self) -> u64 {
        XChain::height(self)
    }

    fn at_height(&self, height: u64) -> Option<(Id, Vec<u8>, u64)> {
        let b = self.block_by_height(height)?.block;
        Some((b.id(), b.bytes(), b.time()))
    }

    fn height_of(&self, id: &Id) -> Option<u64> {
        Some(self.block_by_id(id)?.block.height())
    }
}

impl AcceptedBlocks for EvmChain {
    fn height(&self) -> u64 {
        EvmChain::height(self)
    }

    fn at_height(&self, height: u64) -> Option<(Id, Vec<u8>, u64)> {
        let b = self.block_by_number(height)?;
        Some((Id(b.hash.0), b.rlp(), b.header.timestamp))
    }

    fn height_of(&self, id: &Id) -> Option<u64> {
        Some(self.block_by_hash(&B256::from(id.0))?.header.number)
    }
}

type Blocks = Arc<dyn AcceptedBlocks>;

/// The `index` service over `blocks`.
pub fn endpoint(blocks: Blocks) -> Arc<dyn Endpoint> {
    Arc::new(
        AvaServer::new(blocks).service(
            AvaService::new("index")
                .handle::<GetLastAccepted, _, _, _>(get_last_accepted)
                .handle::<GetContainerByIndex, _, _, _>(get_container_by_index)
                .handle::<GetContainerRange, _, _, _>(get_container_range)
                .handle::<GetIndex, _, _, _>(get_index)
                .handle::<IsAccepted, _, _, _>(is_accepted)
                .handle::<GetContainerById, _, _, _>(get_container_by_id),
        ),
    )
}

/// A byte encoding: `json` is refused, as AvalancheGo's `formatting.Encode` refuses it.
fn byte_encoding(arg: Option<&str>) -> Result<Encoding, MethodError> {
    match encoding(arg)? {
        Encoding::Json => Err(MethodError::UnsupportedEncodingInMethod),
        enc => Ok(enc),
    }
}

/// The container at `index`, if accepted.
fn container(blocks: &Blocks, index: u64, enc: Encoding) -> Option<Container> {
    let (id, bytes, time) = blocks.at_height(index.checked_add(1)?)?;
    Some(Container {
        id,
        bytes: enc.encode_bytes(&bytes).unwrap_or_default(),
        timestamp: rfc3339(time),
        encoding: enc.as_str().to_owned(),
        index,
    })
}

/// The index of the container with `id`; genesis is not indexed.
fn index_of(blocks: &Blocks, id: &Id) -> Option<u64> {
    blocks.height_of(id)?.checked_sub(1)
}

/// `index.getLastAccepted` `{encoding}` → the last container.
async fn get_last_accepted(blocks: Blocks, args: EncodingParams) -> Result<Container, MethodError> {
    let enc = byte_encoding(args.encoding.as_deref())?;
    let last = blocks
        .height()
        .checked_sub(1)
        .ok_or(MethodError::NoneAccepted)?;
    container(&blocks, last, enc).ok_or(MethodError::NoneAccepted)
}

/// `index.getContainerByIndex` `{index, encoding}` → that container.
async fn get_container_by_index(
    blocks: Blocks,
    args: ContainerByIndexParams,
) -> Result<Container, MethodError> {
    let enc = byte_encoding(args.encoding.as_deref())?;
    container(&blocks, args.index, enc).ok_or(MethodError::NoContainerAtIndex(args.index))
}

/// `index.getContainerRange` `{startIndex, numToFetch, encoding}` → `{containers}`, fewer when
/// the range runs past the last accepted.
async fn get_container_range(
    blocks: Blocks,
    args: ContainerRangeParams,
) -> Result<ContainerRangeReply, MethodError> {
    let enc = byte_encoding(args.encoding.as_deref())?;
    let n = args.num_to_fetch;
    if n == 0 || n > MAX_FETCHED_BY_RANGE {
        return Err(MethodError::NumToFetchInvalid(n));
    }
    let last = blocks
        .height()
        .checked_sub(1)
        .ok_or(MethodError::NoneAccepted)?;
    if args.start_index > last {
        return Err(MethodError::StartIndexPastLast {
            start: args.start_index,
            last,
        });
    }
    let end = args.start_index.saturating_add(n - 1).min(last);
    let containers = (args.start_index..=end)
        .map(|i| container(&blocks, i, enc).ok_or(MethodError::NoContainerAtIndex(i)))
        .collect::<Result<_, _>>()?;
    Ok(ContainerRangeReply { containers })
}

/// `index.getIndex` `{id}` → `{index}`; "not found" for a container not accepted.
async fn get_index(blocks: Blocks, args: ContainerIdParams) -> Result<IndexReply, MethodError> {
    let index = index_of(&blocks, &args.id).ok_or(MethodError::ContainerNotFound)?;
    Ok(IndexReply { index })
}

/// `index.isAccepted` `{id}` → `{isAccepted}`.
async fn is_accepted(
    blocks: Blocks,
    args: ContainerIdParams,
) -> Result<IsAcceptedReply, MethodError> {
    Ok(IsAcceptedReply {
        is_accepted: index_of(&blocks, &args.id).is_some(),
    })
}

/// `index.getContainerByID` `{id, encoding}` → that container.
async fn get_container_by_id(
    blocks: Blocks,
    args: ContainerIdParams,
) -> Result<Container, MethodError> {
    let enc = byte_encoding(args.encoding.as_deref())?;
    index_of(&blocks, &args.id)
        .and_then(|i| container(&blocks, i, enc))
        .ok_or(MethodError::ContainerNotFound)
}
