//! `KeyedNetwork`: validators that each hold a BLS key and sign whatever they are asked,
//! unless told to stay silent, lie or dawdle. Real keys, real signatures, real timeouts.

use firn_aggregator::{BoxFuture, NetworkError, Validator, ValidatorNetwork};
use firn_core::ids::{Id, NodeId};
use firn_core::keys::bls;
use firn_core::warp::UnsignedMessage;
use firn_core::warp::acp118::{SignatureRequest, SignatureResponse};
use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Honest,
    Offline,
    Lying,
    Slow(Duration),
    /// The network has no way to ask anyone (a node RPC without the signing method).
    NoSigningMethod,
}

#[derive(Debug)]
pub struct Member {
    pub node_id: NodeId,
    pub key: Option<bls::SecretKey>,
    pub weight: u64,
}

#[derive(Debug)]
pub struct KeyedNetwork {
    pub network_id: u32,
    pub subnet_id: Id,
    pub members: Vec<Member>,
    modes: Mutex<HashMap<NodeId, Mode>>,
    pub requests: AtomicUsize,
    /// How many times a validator set was read.
    pub set_reads: AtomicUsize,
    /// The height `current_height` reports.
    pub height: AtomicU64,
}

impl KeyedNetwork {
    pub fn new(network_id: u32, subnet_id: Id, members: Vec<Member>) -> Self {
        Self {
            network_id,
            subnet_id,
            members,
            modes: Mutex::new(HashMap::new()),
            requests: AtomicUsize::new(0),
            set_reads: AtomicUsize::new(0),
            height: AtomicU64::new(1),
        }
    }

    /// `n` members with keys from seeds `1..=n` and the given weights.
    pub fn with_weights(weights: &[u64]) -> Self {
        let members = weights
            .iter()
            .enumerate()
            .map(|(i, &weight)| Member {
                node_id: NodeId([i as u8 + 1; 20]),
                key: Some(bls::SecretKey::from_seed(&[i as u8 + 1; 32]).unwrap()),
                weight,
            })
            .collect();
        Self::new(5, Id([7; 32]), members)
    }

    pub fn set_mode(&self, node_id: NodeId, mode: Mode) {
        self.modes.lock().unwrap().insert(node_id, mode);
    }

    fn mode(&self, node_id: &NodeId) -> Mode {
        *self
            .modes
            .lock()
            .unwrap()
            .get(node_id)
            .unwrap_or(&Mode::Honest)
    }

    pub fn node(&self, i: usize) -> NodeId {
        self.members[i].node_id
    }
}

impl ValidatorNetwork for KeyedNetwork {
    fn network_id(&self) -> u32 {
        self.network_id
    }

    fn subnet_of_chain(&self, _chain_id: Id) -> BoxFuture<'_, Result<Id, NetworkError>> {
        Box::pin(async move { Ok(self.subnet_id) })
    }

    fn current_height(&self) -> BoxFuture<'_, Result<u64, NetworkError>> {
        Box::pin(async move { Ok(self.height.load(Ordering::SeqCst)) })
    }

    fn validators_at(
        &self,
        _subnet_id: Id,
        _height: u64,
    ) -> BoxFuture<'_, Result<Vec<Validator>, NetworkError>> {
        Box::pin(async move {
            self.set_reads.fetch_add(1, Ordering::SeqCst);
            Ok(self
                .members
                .iter()
                .map(|m| Validator {
                    node_id: m.node_id,
                    public_key: m.key.as_ref().map(bls::SecretKey::public_key),
                    weight: m.weight,
                })
                .collect())
        })
    }

    fn request_signature<'a>(
        &'a self,
        node_id: NodeId,
        request: &'a SignatureRequest,
    ) -> BoxFuture<'a, Result<SignatureResponse, NetworkError>> {
        Box::pin(async move {
            self.requests.fetch_add(1, Ordering::SeqCst);
            let member = self
                .members
                .iter()
                .find(|m| m.node_id == node_id)
                .ok_or(NetworkError::Unreachable(node_id))?;
            let key = member
                .key
                .as_ref()
                .ok_or(NetworkError::Unreachable(node_id))?;
            UnsignedMessage::from_bytes(&request.message)
                .map_err(|e| NetworkError::Other(e.to_string()))?;
            let signed: &[u8] = match self.mode(&node_id) {
                Mode::Offline => return Err(NetworkError::Unreachable(node_id)),
                Mode::NoSigningMethod => {
                    return Err(NetworkError::Unsupported(
                        "this node does not answer signature requests".into(),
                    ));
                }
                Mode::Lying => b"not the message",
                Mode::Slow(d) => {
                    tokio::time::sleep(d).await;
                    &request.message
                }
                Mode::Honest => &request.message,
            };
            Ok(SignatureResponse {
                signature: key.sign(signed).to_bytes().to_vec(),
            })
        })
    }
}
