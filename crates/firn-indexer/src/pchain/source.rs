//! The P-Chain as the node's RPC shows it: heights, blocks (hex), txs, reward UTXOs and the
//! current stakers' potential rewards.

use firn_core::address::Address;
use firn_core::codec::{self, Decode, Reader};
use firn_core::encoding::hex_decode_checksummed;
use firn_core::ids::{Id, NodeId, ShortId};
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

/// What the node says of a current primary-network staker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CurrentStaker {
    /// The reward it earns if its stake period ends well (`potentialReward`): for a delegator,
    /// before its validator's fee is taken.
    pub potential_reward: u64,
    /// The delegation fee of the validator it is or delegates to, in millionths.
    pub validator_shares: u32,
}

#[derive(Deserialize)]
struct ValidatorsReply {
    validators: Vec<CurrentValidatorReply>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CurrentValidatorReply {
    #[serde(rename = "txID")]
    tx_id: String,
    potential_reward: Option<String>,
    delegation_fee: Option<String>,
    #[serde(default)]
    delegators: Vec<CurrentDelegatorReply>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CurrentDelegatorReply {
    #[serde(rename = "txID")]
    tx_id: String,
    potential_reward: Option<String>,
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

    /// The staker `tx_id` adds on `node_id`, as `platform.getCurrentValidators` shows it
    /// (`nodeIDs` names one node, so its delegators are listed too); `None` when the node no
    /// longer (or not yet) lists it.
    pub async fn current_staker(
        &self,
        node_id: NodeId,
        tx_id: Id,
    ) -> Result<Option<CurrentStaker>> {
        const METHOD: &str = "platform.getCurrentValidators";
        let r: ValidatorsReply = self
            .client
            .call(METHOD, &json!({ "nodeIDs": [node_id.to_string()] }))
            .await?;
        let tx = tx_id.to_string();
        let number = |what: &str, v: Option<&String>| -> Result<u64> {
            v.ok_or_else(|| IndexerError::decode(METHOD, format!("{what} missing for {tx}")))?
                .parse()
                .map_err(|e| IndexerError::decode(METHOD, format!("{what} of {tx}: {e}")))
        };
        for v in &r.validators {
            let shares = match &v.delegation_fee {
                Some(fee) => percent_to_shares(fee).ok_or_else(|| {
                    IndexerError::decode(METHOD, format!("delegationFee {fee:?}"))
                })?,
                None => 0,
            };
            let potential = if v.tx_id == tx {
                Some(number("potentialReward", v.potential_reward.as_ref())?)
            } else if let Some(d) = v.delegators.iter().find(|d| d.tx_id == tx) {
                Some(number("potentialReward", d.potential_reward.as_ref())?)
            } else {
                None
            };
            if let Some(potential_reward) = potential {
                return Ok(Some(CurrentStaker {
                    potential_reward,
                    validator_shares: shares,
                }));
            }
        }
        Ok(None)
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

/// AvalancheGo's delegation fee percentage (`"2.0000"`) in millionths (`20000`).
fn percent_to_shares(percent: &str) -> Option<u32> {
    let (whole, frac) = percent.split_once('.').unwrap_or((percent, ""));
    if frac.len() > 4 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let whole: u32 = whole.parse().ok()?;
    let frac: u32 = if frac.is_empty() {
        0
    } else {
        format!("{frac:0<4}").parse().ok()?
    };
    whole.checked_mul(10_000)?.checked_add(frac)
}

fn decode_utxos(hex: &[String]) -> Result<Vec<RawUtxo>> {
    hex.iter()
        .map(|s| {
            let bytes = hex_decode_checksummed(s).map_err(|e| IndexerError::decode("utxo", e))?;
            RawUtxo::decode(&bytes)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::percent_to_shares;

    #[test]
    fn delegation_fee_percentages_read_as_millionths() {
        assert_eq!(percent_to_shares("2.0000"), Some(20_000));
        assert_eq!(percent_to_shares("100.0000"), Some(1_000_000));
        assert_eq!(percent_to_shares("2.5"), Some(25_000));
        assert_eq!(percent_to_shares("0"), Some(0));
        assert_eq!(percent_to_shares("1.23456"), None);
        assert_eq!(percent_to_shares("x"), None);
        assert_eq!(percent_to_shares("1.-5"), None);
    }
}
