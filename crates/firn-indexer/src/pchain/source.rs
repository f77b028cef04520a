//! The P-Chain as the node's RPC shows it: heights, blocks (hex), txs and reward UTXOs.

use firn_core::address::Address;
use firn_core::codec::{self, Decode, Reader};
use firn_core::encoding::hex_decode_checksummed;
use firn_core::ids::{Id, ShortId};
use firn_core::pchain::fx::Output;
use firn_core::pchain::{Block, Tx};
use firn_rpc::AvalancheClient;
use serde::Deserialize;
use serde_json::json;

use crate::error::{IndexerError, Result};

/// A UTXO as the node encodes it (`platform.getUTXOs`, `platform.getRewardUTXOs`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawUtxo {
    /// Creating tx.
    pub tx_id: Id,
    /// Output index.
    pub output_index: u32,
    /// Asset.
    pub asset_id: Id,
    /// The output.
    pub output: Output,
    /// The encoded UTXO.
    pub bytes: Vec<u8>,
}

impl RawUtxo {
    /// The UTXO ID.
    pub fn id(&self) -> Id {
        self.tx_id.prefix(u64::from(self.output_index))
    }

    /// Decodes the node's UTXO bytes: codec version, tx ID, index, asset, output.
    pub fn decode(bytes: &[u8]) -> Result<Self> {
        let bad = |e: codec::CodecError| IndexerError::decode("utxo", e);
        let mut r = Reader::new(bytes);
        r.version().map_err(bad)?;
        let tx_id = Id(r.array::<32>().map_err(bad)?);
        let output_index = r.u32().map_err(bad)?;
        let asset_id = Id(r.array::<32>().map_err(bad)?);
        let output = Output::decode(&mut r).map_err(bad)?;
        r.finish().map_err(bad)?;
        Ok(Self {
            tx_id,
            output_index,
            asset_id,
            output,
            bytes: bytes.to_vec(),
        })
    }
}

/// A fetched block: its height, decoded form and encoded size.
#[derive(Debug, Clone)]
pub struct FetchedBlock {
    /// The decoded block.
    pub block: Block,
    /// Its size in bytes.
    pub size: u64,
}

#[derive(Deserialize)]
struct HeightReply {
    height: String,
}

#[derive(Deserialize)]
struct BlockReply {
    block: String,
}

#[derive(Deserialize)]
struct TxReply {
    tx: String,
}

#[derive(Deserialize)]
struct UtxosReply {
    #[serde(default)]
    utxos: Vec<String>,
}

/// The node's P-Chain RPC (`…/ext/bc/P`).
#[derive(Debug, Clone)]
pub struct PChainSource {
    client: AvalancheClient,
    concurrency: usize,
}

impl PChainSource {
    /// A source over `client`, keeping at most `concurrency` requests in flight.
    pub fn new(client: AvalancheClient, concurrency: usize) -> Self {
        Self {
            client,
            concurrency: concurrency.max(1),
        }
    }

    /// `platform.getHeight`: the last accepted height.
    pub async fn height(&self) -> Result<u64> {
        let r: HeightReply = self.client.call("platform.getHeight", &json!({})).await?;
        r.height
            .parse()
            .map_err(|e| IndexerError::decode("platform.getHeight", e))
    }

    /// `platform.getBlockByHeight` for each height in `heights` (hex), in parallel within the
    /// concurrency bound; blocks come back in the order asked.
    pub async fn blocks(&self, heights: std::ops::Range<u64>) -> Result<Vec<FetchedBlock>> {
        let params: Vec<serde_json::Value> = heights
            .clone()
            .map(|h| json!({ "height": h.to_string(), "encoding": "hex" }))
            .collect();
        let replies = self
            .client
            .call_many::<_, BlockReply>("platform.getBlockByHeight", params, self.concurrency)
            .await;
        let mut out = Vec::with_capacity(replies.len());
        for (height, reply) in heights.zip(replies) {
            let reply = reply?;
            let bytes = hex_decode_checksummed(&reply.block)
                .map_err(|e| IndexerError::decode(format!("block {height}"), e))?;
            let block: Block = codec::from_bytes(&bytes)
                .map_err(|e| IndexerError::decode(format!("block {height}"), e))?;
            if block.height() != height {
                return Err(IndexerError::decode(
                    format!("block {height}"),
                    format!("the node sent block {} instead", block.height()),
                ));
            }
            out.push(FetchedBlock {
                block,
                size: bytes.len() as u64,
            });
        }
        Ok(out)
    }

    /// `platform.getTx` (hex), decoded.
    pub async fn tx(&self, tx_id: Id) -> Result<Tx> {
        let r: TxReply = self
            .client
            .call(
                "platform.getTx",
                &json!({ "txID": tx_id.to_string(), "encoding": "hex" }),
            )
            .await?;
        let bytes = hex_decode_checksummed(&r.tx).map_err(|e| IndexerError::decode("tx", e))?;
        codec::from_bytes(&bytes).map_err(|e| IndexerError::decode(format!("tx {tx_id}"), e))
    }

    /// `platform.getRewardUTXOs` of the staker added by `tx_id`.
    pub async fn reward_utxos(&self, tx_id: Id) -> Result<Vec<RawUtxo>> {
        let r: UtxosReply = self
            .client
            .call(
                "platform.getRewardUTXOs",
                &json!({ "txID": tx_id.to_string(), "encoding": "hex" }),
            )
            .await?;
        decode_utxos(&r.utxos)
    }

    /// `platform.getUTXOs` of `addresses` (first page), on network `network_id`.
    pub async fn utxos(&self, network_id: u32, addresses: &[ShortId]) -> Result<Vec<RawUtxo>> {
        let addresses: Vec<String> = addresses
            .iter()
            .map(|a| Address::new("P", network_id, *a).to_string())
            .collect();
        let r: UtxosReply = self
            .client
            .call(
                "platform.getUTXOs",
                &json!({ "addresses": addresses, "encoding": "hex" }),
            )
            .await?;
        decode_utxos(&r.utxos)
    }
}

fn decode_utxos(hex: &[String]) -> Result<Vec<RawUtxo>> {
    hex.iter()
        .map(|s| {
            let bytes = hex_decode_checksummed(s).map_err(|e| IndexerError::decode("utxo", e))?;
            RawUtxo::decode(&bytes)
        })
        .collect()
}
