//! [`RpcValidatorNetwork`]: the signature aggregator's [`ValidatorNetwork`] and
//! [`JustificationSource`] over a node's RPC, so that a process with no devnet in it (`firn serve`)
//! can aggregate.
//!
//! - The network ID comes from `info.getNetworkID`, read once by [`RpcValidatorNetwork::connect`];
//!   heights from `platform.getHeight`, the subnet of a chain from `platform.validatedBy`,
//!   validator sets from `platform.getValidatorsAt` (each key checked once, then kept).
//! - Txs come from `platform.getTx` (committed ones only, per `platform.getTxStatus`), L1
//!   validations from `platform.getL1Validator`, and how a validation was created from the
//!   accepted blocks (`platform.getBlockByHeight`), newest first, up to a bound.
//! - Signature requests go to `firn.requestWarpSignature` on `/ext/firn`, which `firn devnet`
//!   serves for its validators. AvalancheGo answers ACP-118 requests only over its p2p
//!   network: against such a node a request fails with [`NetworkError::Unsupported`], which
//!   names the problem and stops the aggregation; for a while after that, requests fail so
//!   at once, without asking.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use firn_aggregator::pchain::preimage_in_tx;
use firn_aggregator::{BoxFuture, JustificationSource, NetworkError, Validator, ValidatorNetwork};
use firn_core::codec;
use firn_core::encoding::hex_decode_checksummed;
use firn_core::ids::{Id, NodeId};
use firn_core::keys::bls;
use firn_core::network::P_CHAIN_ID;
use firn_core::pchain::tx::UnsignedTx;
use firn_core::pchain::{Block, Tx};
use firn_core::warp::acp118::{Preimage, SignatureRequest, SignatureResponse};
use tokio::sync::Semaphore;
use tracing::warn;

use super::{AvalancheClient, ClientConfig, ClientError};
use crate::methods::firn::{RequestWarpSignature, SignatureParams, SignatureReply};
use crate::methods::info::GetNetworkId;
use crate::methods::platform::{
    BlockchainIdParams, Encoded, GetBlockByHeight, GetBlockByHeightParams, GetHeight,
    GetL1Validator, GetTx, GetTxStatus, GetValidatorsAt, HeightParams, TxParams, TxStatus,
    ValidatedBy, ValidationIdParams,
};
use crate::methods::{Method, NoParams};

/// How an [`RpcValidatorNetwork`] talks to its node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RpcNetworkConfig {
    /// Longest wait for one read (heights, validator sets, txs, blocks), retries aside.
    pub read_timeout: Duration,
    /// Signature requests in flight at once; each holds one HTTP connection to the node.
    pub max_requests_in_flight: usize,
    /// How many accepted blocks, newest first, the search for how a validation was created
    /// reads before giving up.
    pub preimage_scan_blocks: u64,
    /// How long requests fail at once after the node was found not to serve signature
    /// requests, before it is asked again.
    pub unsupported_for: Duration,
}

impl Default for RpcNetworkConfig {
    fn default() -> Self {
        Self {
            read_timeout: Duration::from_secs(10),
            max_requests_in_flight: 256,
            preimage_scan_blocks: 100_000,
            unsupported_for: Duration::from_secs(30),
        }
    }
}

/// The method `firn devnet` answers signature requests with.
const SIGNING_METHOD: &str = RequestWarpSignature::NAME;
/// Blocks asked for at once while searching for how a validation was created.
const SCAN_WINDOW: u64 = 32;
/// How many parsed validator keys are kept before the memory starts over.
const MAX_PARSED_KEYS: usize = 100_000;

/// The aggregator's view of the validators through one node's RPC. Share it in an `Arc`.
#[derive(Debug)]
pub struct RpcValidatorNetwork {
    url: String,
    network_id: u32,
    config: RpcNetworkConfig,
    platform: AvalancheClient,
    firn: AvalancheClient,
    in_flight: Semaphore,
    parsed_keys: Mutex<HashMap<[u8; bls::PUBLIC_KEY_LEN], bls::PublicKey>>,
    unsupported_since: Mutex<Option<Instant>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl RpcValidatorNetwork {
    /// Connects to the node at `url` (`http://host:9650`): reads its network ID, retrying
    /// as every read does.
    pub async fn connect(url: &str, config: RpcNetworkConfig) -> Result<Self, ClientError> {
        let base = url.trim_end_matches('/');
        let reads = ClientConfig {
            timeout: config.read_timeout,
            ..ClientConfig::default()
        };
        // The aggregator bounds each signature request with its own timeout; the client's
        // only catches a node that never answers, and a retry would ask twice.
        let requests = ClientConfig {
            timeout: Duration::from_secs(120),
            max_retries: 0,
            ..ClientConfig::default()
        };
        let info = AvalancheClient::new(&format!("{base}/ext/info"), reads.clone())?;
        let reply = info.request::<GetNetworkId>(&NoParams {}).await?;
        Ok(Self {
            url: super::redact_url(base),
            network_id: reply.network_id,
            platform: AvalancheClient::new(&format!("{base}/ext/bc/P"), reads)?,
            firn: AvalancheClient::new(&format!("{base}/ext/firn"), requests)?,
            in_flight: Semaphore::new(config.max_requests_in_flight.max(1)),
            parsed_keys: Mutex::new(HashMap::new()),
            unsupported_since: Mutex::new(None),
            config,
        })
    }

    /// The node's base URL.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// A P-Chain read; any failure is a [`NetworkError::Other`] naming the method and node.
    async fn read<M: Method>(&self, params: &M::Params) -> Result<M::Reply, NetworkError> {
        self.platform
            .request::<M>(params)
            .await
            .map_err(|e| self.read_error(M::NAME, &e))
    }

    fn read_error(&self, method: &str, e: &dyn std::fmt::Display) -> NetworkError {
        NetworkError::Other(format!("{method} on the node at {} failed: {e}", self.url))
    }

    /// `bytes` as a validated key, checked once.
    fn public_key(&self, bytes: &[u8]) -> Result<bls::PublicKey, NetworkError> {
        let invalid = |e: &dyn std::fmt::Display| {
            NetworkError::Other(format!(
                "the node at {} sent an invalid BLS key: {e}",
                self.url
            ))
        };
        let key: [u8; bls::PUBLIC_KEY_LEN] = bytes
            .try_into()
            .map_err(|_| invalid(&format!("{} bytes", bytes.len())))?;
        if let Some(pk) = lock(&self.parsed_keys).get(&key) {
            return Ok(pk.clone());
        }
        let pk = bls::PublicKey::from_bytes(&key).map_err(|e| invalid(&e))?;
        let mut keys = lock(&self.parsed_keys);
        if keys.len() >= MAX_PARSED_KEYS {
            keys.clear();
        }
        keys.insert(key, pk.clone());
        Ok(pk)
    }

    fn unsupported(&self) -> NetworkError {
        NetworkError::Unsupported(format!(
            "no validator can be asked: the node at {} does not answer ACP-118 signature \
             requests over RPC ({SIGNING_METHOD}, which `firn devnet` and `firn up` serve); \
             AvalancheGo nodes answer them only over their p2p network",
            self.url
        ))
    }

    /// Whether a failed request says the node has no signing method at all: AvalancheGo
    /// answers 404 for `/ext/firn`, a firn node without signers names the method unknown.
    fn lacks_signing_method(e: &ClientError) -> bool {
        match e {
            ClientError::Http { status: 404, .. } => true,
            ClientError::Rpc(err) => {
                err.message.starts_with("rpc: can't find method")
                    || err.message.starts_with("rpc: can't find service")
            }
            _ => false,
        }
    }

    async fn ask(
        &self,
        node_id: NodeId,
        request: &SignatureRequest,
    ) -> Result<SignatureResponse, NetworkError> {
        if let Some(since) = *lock(&self.unsupported_since)
            && since.elapsed() < self.config.unsupported_for
        {
            return Err(self.unsupported());
        }
        let _permit = self
            .in_flight
            .acquire()
            .await
            .map_err(|e| NetworkError::Other(e.to_string()))?;
        let params = SignatureParams {
            node_id,
            request: request.bytes(),
        };
        let reply = match self.firn.request::<RequestWarpSignature>(&params).await {
            Ok(reply) => reply,
            Err(e) if Self::lacks_signing_method(&e) => {
                *lock(&self.unsupported_since) = Some(Instant::now());
                return Err(self.unsupported());
            }
            Err(e) => {
                return Err(NetworkError::Other(format!(
                    "{node_id}: {SIGNING_METHOD} on the node at {} failed: {e}",
                    self.url
                )));
            }
        };
        *lock(&self.unsupported_since) = None;
        match reply {
            SignatureReply::Response(bytes) => SignatureResponse::from_bytes(&bytes).map_err(|e| {
                NetworkError::Other(format!("{node_id} sent an unreadable response: {e}"))
            }),
            SignatureReply::AppError(error) => Err(NetworkError::Refused {
                node_id,
                error: firn_aggregator::AppError {
                    code: error.code,
                    message: error.message,
                },
            }),
            SignatureReply::Unreachable(_) => Err(NetworkError::Unreachable(node_id)),
        }
    }

    /// Searches the accepted blocks, newest first, for the tx that created `validation_id`.
    async fn find_preimage(&self, validation_id: Id) -> Result<Option<Preimage>, NetworkError> {
        let tip = self.height().await?;
        let lowest = tip.saturating_sub(self.config.preimage_scan_blocks.saturating_sub(1));
        let mut top = tip;
        loop {
            let bottom = top.saturating_sub(SCAN_WINDOW - 1).max(lowest);
            let params: Vec<GetBlockByHeightParams> = (bottom..=top)
                .rev()
                .map(|height| GetBlockByHeightParams {
                    height,
                    encoding: Some("hex".to_owned()),
                })
                .collect();
            let replies = self
                .platform
                .request_many::<GetBlockByHeight>(params, 8)
                .await;
            for reply in replies {
                let reply = reply.map_err(|e| self.read_error(GetBlockByHeight::NAME, &e))?;
                let block: Block = decode_hex(&reply.block, "block")
                    .map_err(|e| self.read_error(GetBlockByHeight::NAME, &e))?;
                if let Some(found) = block
                    .txs()
                    .find_map(|tx| preimage_in_tx(tx.unsigned(), &validation_id))
                {
                    return Ok(Some(found));
                }
            }
            if bottom <= lowest {
                if lowest > 0 {
                    warn!(%validation_id, blocks = self.config.preimage_scan_blocks,
                        "no tx creating the validation in the newest blocks; not searching further");
                }
                return Ok(None);
            }
            top = bottom - 1;
        }
    }

    async fn height(&self) -> Result<u64, NetworkError> {
        Ok(self.read::<GetHeight>(&NoParams {}).await?.height)
    }
}

/// `0x`-hex bytes (`types.JSONByteSlice`).
fn decode_hex0x(hex: &str) -> Result<Vec<u8>, String> {
    let digits = hex.strip_prefix("0x").ok_or("missing 0x prefix")?;
    hex::decode(digits).map_err(|e| e.to_string())
}

/// Decodes AvalancheGo's checksummed hex of a `what`.
fn decode_hex<T: codec::Decode>(encoded: &Encoded, what: &str) -> Result<T, String> {
    let Encoded::Text(hex) = encoded else {
        return Err(format!("{what} came as JSON where hex was asked for"));
    };
    let bytes =
        hex_decode_checksummed(hex).map_err(|e| format!("{what} is not checksummed hex: {e}"))?;
    codec::from_bytes(&bytes).map_err(|e| format!("{what} does not decode: {e}"))
}

impl ValidatorNetwork for RpcValidatorNetwork {
    fn network_id(&self) -> u32 {
        self.network_id
    }

    fn subnet_of_chain(&self, chain_id: Id) -> BoxFuture<'_, Result<Id, NetworkError>> {
        Box::pin(async move {
            // The P-Chain is no created chain: `validatedBy` does not know it.
            if chain_id == P_CHAIN_ID {
                return Ok(Id::ZERO);
            }
            let params = BlockchainIdParams {
                blockchain_id: chain_id,
            };
            match self.platform.request::<ValidatedBy>(&params).await {
                Ok(reply) => Ok(reply.subnet_id),
                Err(ClientError::Rpc(e)) if e.message.contains("not found") => {
                    Err(NetworkError::UnknownChain(chain_id))
                }
                Err(e) => Err(self.read_error(ValidatedBy::NAME, &e)),
            }
        })
    }

    fn current_height(&self) -> BoxFuture<'_, Result<u64, NetworkError>> {
        Box::pin(self.height())
    }

    fn validators_at(
        &self,
        subnet_id: Id,
        height: u64,
    ) -> BoxFuture<'_, Result<Vec<Validator>, NetworkError>> {
        Box::pin(async move {
            let params = HeightParams {
                height: Some(height.to_string().into()),
                subnet_id,
            };
            let set = match self.platform.request::<GetValidatorsAt>(&params).await {
                Ok(set) => set,
                Err(ClientError::Rpc(e)) if e.message.contains("unfinalized height") => {
                    return Err(NetworkError::HeightNotAccepted {
                        requested: height,
                        last_accepted: self.height().await?,
                    });
                }
                Err(e) => return Err(self.read_error(GetValidatorsAt::NAME, &e)),
            };
            set.into_iter()
                .map(|(node_id, entry)| {
                    let public_key = match entry.public_key.as_deref() {
                        Some(hex) if !hex.is_empty() && hex != "0x" => {
                            let bytes = decode_hex0x(hex).map_err(|e| {
                                NetworkError::Other(format!(
                                    "the node at {} sent an invalid BLS key {hex:?}: {e}",
                                    self.url
                                ))
                            })?;
                            Some(self.public_key(&bytes)?)
                        }
                        _ => None,
                    };
                    Ok(Validator {
                        node_id,
                        public_key,
                        weight: entry.weight,
                    })
                })
                .collect()
        })
    }

    fn request_signature<'a>(
        &'a self,
        node_id: NodeId,
        request: &'a SignatureRequest,
    ) -> BoxFuture<'a, Result<SignatureResponse, NetworkError>> {
        Box::pin(self.ask(node_id, request))
    }
}

impl JustificationSource for RpcValidatorNetwork {
    fn tx(&self, tx_id: Id) -> BoxFuture<'_, Result<Option<UnsignedTx>, NetworkError>> {
        Box::pin(async move {
            let status = self
                .read::<GetTxStatus>(&TxParams {
                    tx_id,
                    encoding: None,
                })
                .await?;
            if status.status != TxStatus::Committed {
                return Ok(None);
            }
            let reply = self
                .read::<GetTx>(&TxParams {
                    tx_id,
                    encoding: Some("hex".to_owned()),
                })
                .await?;
            let tx: Tx =
                decode_hex(&reply.tx, "tx").map_err(|e| self.read_error(GetTx::NAME, &e))?;
            Ok(Some(tx.unsigned().clone()))
        })
    }

    fn l1_validation_exists(&self, validation_id: Id) -> BoxFuture<'_, Result<bool, NetworkError>> {
        Box::pin(async move {
            let params = ValidationIdParams { validation_id };
            match self.platform.request::<GetL1Validator>(&params).await {
                Ok(_) => Ok(true),
                Err(ClientError::Rpc(e)) if e.message.ends_with("not found") => Ok(false),
                Err(e) => Err(self.read_error(GetL1Validator::NAME, &e)),
            }
        })
    }

    fn registration_preimage(
        &self,
        validation_id: Id,
    ) -> BoxFuture<'_, Result<Option<Preimage>, NetworkError>> {
        Box::pin(self.find_preimage(validation_id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorObject;

    #[test]
    fn a_missing_path_or_method_means_no_signing_method_and_nothing_else_does() {
        let http = |status| ClientError::Http {
            url: "http://node/ext/firn".into(),
            status,
            body: "404 page not found".into(),
        };
        let rpc = |message: &str| {
            ClientError::Rpc(ErrorObject {
                code: -32000,
                message: message.into(),
                data: None,
            })
        };
        assert!(RpcValidatorNetwork::lacks_signing_method(&http(404)));
        assert!(RpcValidatorNetwork::lacks_signing_method(&rpc(
            "rpc: can't find method \"firn.requestWarpSignature\""
        )));
        assert!(RpcValidatorNetwork::lacks_signing_method(&rpc(
            "rpc: can't find service \"firn.requestWarpSignature\""
        )));
        assert!(!RpcValidatorNetwork::lacks_signing_method(&http(502)));
        assert!(!RpcValidatorNetwork::lacks_signing_method(&rpc(
            "couldn't ask for a signature: boom"
        )));
    }
}
