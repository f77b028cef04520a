//! The X-Chain as the node's RPC shows it: heights, blocks (hex), and the genesis asset.

use firn_core::avm::{Block, Tx};
use firn_core::codec::{self, Decode, Reader};
use firn_core::ids::Id;
use firn_rpc::AvalancheClient;
use firn_rpc::methods::NoParams;
use firn_rpc::methods::avm::{
    AssetIdParams, GetAssetDescription, GetBlockByHeight, GetHeight, GetTx, TxParams,
};
use tracing::warn;

use crate::error::{IndexerError, Result};
use crate::fetch::{blocks_by_height, hex_bytes, wrong_height};

/// A fetched block: its header, the txs that decoded, and what did not.
#[derive(Debug, Clone)]
pub struct FetchedXBlock {
    /// Block ID (sha256 of its bytes).
    pub id: Id,
    /// Parent block ID.
    pub parent_id: Id,
    /// Height.
    pub height: u64,
    /// Block time.
    pub time: u64,
    /// Txs the block says it carries.
    pub tx_count: u64,
    /// The txs that decoded, in block order: all of them, or those before the first that
    /// did not (the rest cannot be found in the bytes without it).
    pub txs: Vec<Tx>,
    /// Encoded size in bytes.
    pub size: u64,
}

impl FetchedXBlock {
    /// Decodes a StandardBlock. When its txs do not all decode (chain bytes are hostile, or
    /// newer than this decoder), the header and the txs before the failing one are kept and
    /// the failure logged: one bad tx never stops indexing.
    pub fn decode(bytes: &[u8]) -> Result<Self> {
        let size = bytes.len() as u64;
        if let Ok(block) = codec::from_bytes::<Block>(bytes) {
            return Ok(Self {
                id: block.id(),
                parent_id: block.parent_id(),
                height: block.height(),
                time: block.time(),
                tx_count: block.txs().len() as u64,
                txs: block.txs().to_vec(),
                size,
            });
        }
        let bad = |e: codec::CodecError| IndexerError::decode("x-chain block header", e);
        let mut r = Reader::new(bytes);
        r.version().map_err(bad)?;
        let type_id = r.u32().map_err(bad)?;
        if type_id != firn_core::avm::type_id::STANDARD_BLOCK {
            return Err(IndexerError::decode(
                "x-chain block",
                format!("type {type_id} is not a StandardBlock"),
            ));
        }
        let parent_id = Id(r.array::<32>().map_err(bad)?);
        let height = r.u64().map_err(bad)?;
        let time = r.u64().map_err(bad)?;
        let _merkle_root = r.array::<32>().map_err(bad)?;
        let tx_count = r.u32().map_err(bad)?;
        let mut txs = Vec::new();
        for index in 0..tx_count {
            match Tx::decode(&mut r) {
                Ok(tx) => txs.push(tx),
                Err(error) => {
                    warn!(target: "indexer::xchain", height, index, skipped = tx_count - index, %error, "x-chain txs that do not decode are skipped");
                    break;
                }
            }
        }
        Ok(Self {
            id: Id::hash_of(bytes),
            parent_id,
            height,
            time,
            tx_count: u64::from(tx_count),
            txs,
            size,
        })
    }
}

/// The node's X-Chain RPC (`…/ext/bc/X`).
#[derive(Debug, Clone)]
pub struct XChainSource {
    client: AvalancheClient,
    concurrency: usize,
}

impl XChainSource {
    /// A source over `client`, keeping at most `concurrency` requests in flight.
    pub fn new(client: AvalancheClient, concurrency: usize) -> Self {
        Self {
            client,
            concurrency: concurrency.max(1),
        }
    }

    /// `avm.getHeight`: the last accepted height.
    pub async fn height(&self) -> Result<u64> {
        Ok(self.client.request::<GetHeight>(&NoParams {}).await?.height)
    }

    /// `avm.getBlockByHeight` for each height in `heights` (hex), in parallel within the
    /// concurrency bound; blocks come back in the order asked.
    pub async fn blocks(&self, heights: std::ops::Range<u64>) -> Result<Vec<FetchedXBlock>> {
        let fetched =
            blocks_by_height::<GetBlockByHeight>(&self.client, heights, self.concurrency).await?;
        let mut out = Vec::with_capacity(fetched.len());
        for (height, bytes) in fetched {
            let block = FetchedXBlock::decode(&bytes)?;
            if block.height != height {
                return Err(wrong_height(height, block.height));
            }
            out.push(block);
        }
        Ok(out)
    }

    /// The genesis asset: AVAX's ID (`avm.getAssetDescription` of `AVAX`) and its
    /// CreateAssetTx (`avm.getTx` of that ID, which is in no block); the tx is `None` when it
    /// does not decode (logged).
    pub async fn genesis(&self) -> Result<(Id, Option<Tx>)> {
        let asset = self
            .client
            .request::<GetAssetDescription>(&AssetIdParams {
                asset_id: "AVAX".to_owned(),
            })
            .await?
            .asset_id;
        let reply = self
            .client
            .request::<GetTx>(&TxParams {
                tx_id: asset,
                encoding: Some("hex".to_owned()),
            })
            .await?;
        let bytes = hex_bytes(&reply.tx, || format!("x-chain genesis tx {asset}"))?;
        match codec::from_bytes::<Tx>(&bytes) {
            Ok(tx) => Ok((asset, Some(tx))),
            Err(error) => {
                warn!(target: "indexer::xchain", %asset, %error, "the genesis asset's tx does not decode; it is skipped");
                Ok((asset, None))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use firn_core::avm::{Block, Tx, UnsignedTx};
    use firn_core::ids::Id;

    use super::FetchedXBlock;

    fn block(txs: usize) -> Block {
        let tx = |i: u8| {
            let base = firn_core::avm::tx::BaseTx {
                memo: firn_core::codec::Bytes(vec![i]),
                ..Default::default()
            };
            Tx::new(UnsignedTx::Base(base), Vec::new())
        };
        Block::new(
            Id([7; 32]),
            9,
            1_700_000_000,
            Id::ZERO,
            (0..txs).map(|i| tx(i as u8)).collect(),
        )
    }

    #[test]
    fn a_block_decodes_whole() {
        let b = block(2);
        let got = FetchedXBlock::decode(&b.bytes()).unwrap();
        assert_eq!(
            (got.id, got.parent_id, got.height),
            (b.id(), Id([7; 32]), 9)
        );
        assert_eq!((got.tx_count, got.txs.len()), (2, 2));
        assert_eq!(got.txs[1].id(), b.txs()[1].id());
    }

    #[test]
    fn txs_after_one_that_does_not_decode_are_skipped_and_the_block_kept() {
        // One good tx, then the count says two and junk follows.
        let mut bytes = block(1).bytes();
        let count_at = 2 + 4 + 32 + 8 + 8 + 32;
        bytes[count_at..count_at + 4].copy_from_slice(&2u32.to_be_bytes());
        bytes.extend_from_slice(&[0xff; 12]);
        let got = FetchedXBlock::decode(&bytes).unwrap();
        assert_eq!(got.id, Id::hash_of(&bytes));
        assert_eq!(
            (got.height, got.time, got.size),
            (9, 1_700_000_000, bytes.len() as u64)
        );
        assert_eq!((got.tx_count, got.txs.len()), (2, 1));
        assert_eq!(got.txs[0].id(), block(1).txs()[0].id());
        // Not a StandardBlock, or cut short in the header: an error (retried), not a guess.
        assert!(FetchedXBlock::decode(&bytes[..40]).is_err());
        let mut other = bytes.clone();
        other[5] = 21;
        assert!(FetchedXBlock::decode(&other).is_err());
    }
}
