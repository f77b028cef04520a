//! The P-Chain as the node's RPC shows it: heights, blocks (hex), txs, reward UTXOs and the
//! current stakers' potential rewards, uptime and connection, and the current supply.

use firn_core::address::ChainAddress;
use firn_core::codec::{self, Decode, Reader};
use firn_core::encoding::hex_decode_checksummed;
use firn_core::ids::{Id, NodeId, ShortId};
use firn_core::pchain::fx::Output;
use firn_core::pchain::validator_fee::L1FeeConfig;
use firn_core::pchain::{Block, Tx};
use firn_rpc::AvalancheClient;
use firn_rpc::error::METHOD_NOT_FOUND;
use firn_rpc::methods::platform::{
    CurrentValidator, GetBlockByHeight, GetCurrentSupply, GetCurrentValidators, GetHeight,
    GetRewardUtxos, GetTx, GetUtxos, GetUtxosParams, GetValidatorFeeConfig, SubnetParams, TxParams,
    ValidatorsParams,
};
use firn_rpc::methods::{Method, NoParams};

use firn_core::network::P_CHAIN_ID;
use firn_store::rows::pchain::{L1Observation, SupplyReading, ValidatorObservation};

use crate::error::{IndexerError, Result};
use crate::fetch::{blocks_by_height, hex_bytes, wrong_height};

/// Validators one reading of the current set keeps (mainnet has under 2,000).
pub const MAX_OBSERVED_VALIDATORS: usize = 100_000;

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

/// What the node says of a current primary-network staker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CurrentStaker {
    /// The reward it earns if its stake period ends well (`potentialReward`): for a delegator,
    /// before its validator's fee is taken.
    pub potential_reward: u64,
    /// The delegation fee of the validator it is or delegates to, in millionths.
    pub validator_shares: u32,
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
        Ok(self.client.request::<GetHeight>(&NoParams {}).await?.height)
    }

    /// `platform.getBlockByHeight` for each height in `heights` (hex), in parallel within the
    /// concurrency bound; blocks come back in the order asked.
    pub async fn blocks(&self, heights: std::ops::Range<u64>) -> Result<Vec<FetchedBlock>> {
        let fetched =
            blocks_by_height::<GetBlockByHeight>(&self.client, heights, self.concurrency).await?;
        let mut out = Vec::with_capacity(fetched.len());
        for (height, bytes) in fetched {
            let block: Block = codec::from_bytes(&bytes)
                .map_err(|e| IndexerError::decode(format!("block {height}"), e))?;
            if block.height() != height {
                return Err(wrong_height(height, block.height()));
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
        let r = self.client.request::<GetTx>(&hex_tx(tx_id)).await?;
        let bytes = hex_bytes(&r.tx, || format!("tx {tx_id}"))?;
        codec::from_bytes(&bytes).map_err(|e| IndexerError::decode(format!("tx {tx_id}"), e))
    }

    /// `platform.getRewardUTXOs` of the staker added by `tx_id`.
    pub async fn reward_utxos(&self, tx_id: Id) -> Result<Vec<RawUtxo>> {
        let r = self
            .client
            .request::<GetRewardUtxos>(&hex_tx(tx_id))
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
        let params = ValidatorsParams {
            node_ids: vec![node_id],
            ..ValidatorsParams::default()
        };
        let r = self.client.request::<GetCurrentValidators>(&params).await?;
        for v in &r.validators {
            let CurrentValidator::Primary(v) = v else {
                continue;
            };
            let shares = percent_to_shares(v.delegation_fee).ok_or_else(|| {
                IndexerError::decode(
                    GetCurrentValidators::NAME,
                    format!("delegationFee {}", v.delegation_fee),
                )
            })?;
            let delegators = v.delegators.as_deref().unwrap_or_default();
            let potential = if v.staker.tx_id == tx_id {
                Some(v.potential_reward)
            } else {
                delegators
                    .iter()
                    .find(|d| d.staker.tx_id == tx_id)
                    .map(|d| d.potential_reward)
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

    /// What the node says of every current primary-network validator (at most
    /// [`MAX_OBSERVED_VALIDATORS`]): its uptime, percent × 10,000, and whether it is
    /// connected, observed now.
    pub async fn validator_health(&self) -> Result<Vec<ValidatorObservation>> {
        let r = self
            .client
            .request::<GetCurrentValidators>(&ValidatorsParams::default())
            .await?;
        let observed_at = unix_now();
        Ok(r.validators
            .iter()
            .filter_map(|v| match v {
                CurrentValidator::Primary(v) => Some(ValidatorObservation {
                    node_id: v.staker.node_id,
                    // Four decimals, as the node writes them; clamped to 0..=100 %.
                    uptime: (f64::from(v.uptime) * 10_000.0)
                        .round()
                        .clamp(0.0, 1_000_000.0) as u32,
                    connected: v.connected,
                    observed_at,
                }),
                _ => None,
            })
            .take(MAX_OBSERVED_VALIDATORS)
            .collect())
    }

    /// The remaining balance of each current validator of L1 `subnet_id` (at most
    /// [`MAX_OBSERVED_VALIDATORS`]), at the node's last accepted height; `None` when a block was
    /// accepted while reading, so that the height is unknown (the next round reads again).
    pub async fn l1_balances(&self, subnet_id: Id) -> Result<Option<Vec<L1Observation>>> {
        let before = self.height().await?;
        let r = self
            .client
            .request::<GetCurrentValidators>(&ValidatorsParams {
                subnet_id,
                node_ids: Vec::new(),
            })
            .await?;
        if self.height().await? != before {
            return Ok(None);
        }
        let observed_at = unix_now();
        Ok(Some(
            r.validators
                .iter()
                .filter_map(|v| match v {
                    CurrentValidator::L1(v) => Some(L1Observation {
                        validation_id: v.validation_id,
                        balance: v.balance,
                        height: before,
                        observed_at,
                    }),
                    _ => None,
                })
                .take(MAX_OBSERVED_VALIDATORS)
                .collect(),
        ))
    }

    /// The primary network's current supply as the node reports it, read now.
    pub async fn current_supply(&self) -> Result<SupplyReading> {
        let r = self
            .client
            .request::<GetCurrentSupply>(&SubnetParams {
                subnet_id: P_CHAIN_ID,
            })
            .await?;
        Ok(SupplyReading {
            subnet_id: P_CHAIN_ID,
            supply: r.supply,
            height: r.height,
            observed_at: unix_now(),
        })
    }

    /// The L1 validator fee configuration (`platform.getValidatorFeeConfig`); `None` when the
    /// node answers that it has no such method (a node from before Etna).
    pub async fn validator_fee_config(&self) -> Result<Option<L1FeeConfig>> {
        match self
            .client
            .request::<GetValidatorFeeConfig>(&NoParams {})
            .await
        {
            Ok(r) => Ok(Some(L1FeeConfig {
                capacity: r.capacity,
                target: r.target,
                min_price: r.min_price,
                excess_conversion_constant: r.excess_conversion_constant,
            })),
            Err(firn_rpc::ClientError::Rpc(e)) if e.code == METHOD_NOT_FOUND => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// `platform.getUTXOs` of `addresses` (first page), on network `network_id`.
    pub async fn utxos(&self, network_id: u32, addresses: &[ShortId]) -> Result<Vec<RawUtxo>> {
        let addresses: Vec<String> = addresses
            .iter()
            .map(|a| ChainAddress::new("P", network_id, *a).to_string())
            .collect();
        let params = GetUtxosParams {
            addresses,
            encoding: Some("hex".to_owned()),
            ..GetUtxosParams::default()
        };
        let r = self.client.request::<GetUtxos>(&params).await?;
        decode_utxos(&r.utxos)
    }
}

/// The wall clock, Unix seconds (when a reading was taken).
fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// `{txID, encoding: hex}`.
fn hex_tx(tx_id: Id) -> TxParams {
    TxParams {
        tx_id,
        encoding: Some("hex".to_owned()),
    }
}

/// AvalancheGo's delegation fee percentage (`2.0000`, four decimals of an `f32`) in millionths
/// (`20000`); `None` when it is not a percentage.
fn percent_to_shares(percent: f32) -> Option<u32> {
    let shares = (f64::from(percent) * 10_000.0).round();
    (0.0..=1_000_000.0)
        .contains(&shares)
        .then_some(shares as u32)
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
        assert_eq!(percent_to_shares(2.0), Some(20_000));
        assert_eq!(percent_to_shares(100.0), Some(1_000_000));
        assert_eq!(percent_to_shares(2.5), Some(25_000));
        assert_eq!(percent_to_shares(0.0), Some(0));
        // Every four-decimal percentage survives f32, as AvalancheGo writes them.
        for shares in [1, 12_345, 123_457, 999_999] {
            let percent: f32 = format!("{:.4}", shares as f64 / 10_000.0).parse().unwrap();
            assert_eq!(percent_to_shares(percent), Some(shares));
        }
        assert_eq!(percent_to_shares(100.5), None);
        assert_eq!(percent_to_shares(-1.0), None);
        assert_eq!(percent_to_shares(f32::NAN), None);
    }
}
