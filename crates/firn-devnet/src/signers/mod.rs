//! The devnet's validators as Warp signers: [`DevnetSigners`] answers ACP-118 signature
//! requests the way AvalancheGo nodes do, and is the devnet side of
//! [`firn_aggregator::ValidatorNetwork`] (and of [`firn_aggregator::JustificationSource`]).
//!
//! - Every node with a known BLS key (the genesis validators' keys derive from the seed;
//!   others are added with [`DevnetSigners::add_key`]) signs with its own key.
//! - What a node agrees to sign depends on the message's source chain: the P-Chain's rules
//!   are [`PChainRules`]; any other chain signs only through a [`WarpVerifier`] registered
//!   for it with [`DevnetSigners::register_chain`] (an EVM chain's rules live with the EVM
//!   chains, in `firn-node`).
//! - Each node can be made [`SignerBehaviour::Slow`], [`SignerBehaviour::Offline`] or
//!   [`SignerBehaviour::BadSignature`], from the devnet config (`warp_signers`) or at run
//!   time ([`DevnetSigners::set_behaviour`]).
//! - As AvalancheGo's handler does, a node remembers what it signed by message ID and
//!   answers again from that memory without re-checking.

mod pchain_rules;
mod reader;

pub use crate::genesis::SignerBehaviour;
pub use pchain_rules::PChainRules;

use crate::error::DevnetError;
use crate::vm::PChain;
use firn_aggregator::{AppError, BoxFuture, NetworkError, Validator, ValidatorNetwork};
use firn_core::ids::{Id, NodeId};
use firn_core::keys::bls;
use firn_core::network::P_CHAIN_ID;
use firn_core::warp::UnsignedMessage;
use firn_core::warp::acp118::{SignatureRequest, SignatureResponse};
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

/// AvalancheGo's `p2p.ErrUnexpected` code, for requests that fail before any verifier.
const ERR_UNEXPECTED: i32 = -1;
/// How many (node, message) signatures nodes remember.
const SIGNED_MEMORY: usize = 1 << 16;

/// Decides whether a chain's validators sign a message: AvalancheGo's `acp118.Verifier`.
/// The network ID and source chain are checked before it is called.
pub trait WarpVerifier: Send + Sync + std::fmt::Debug {
    /// `Ok` to sign; otherwise why not.
    fn verify(&self, message: &UnsignedMessage, justification: &[u8]) -> Result<(), AppError>;
}

/// The devnet's validators answering ACP-118 requests. Share it in an `Arc`.
#[derive(Debug)]
pub struct DevnetSigners {
    chain: Arc<PChain>,
    network_id: u32,
    pchain_rules: PChainRules,
    keys: RwLock<HashMap<NodeId, Arc<bls::SecretKey>>>,
    behaviours: RwLock<HashMap<NodeId, SignerBehaviour>>,
    chains: RwLock<HashMap<Id, Arc<dyn WarpVerifier>>>,
    signed: Mutex<SignedMemory>,
    /// Validator keys already parsed: checking a key costs a subgroup check, and sets are
    /// read on every aggregation.
    parsed_keys: RwLock<HashMap<[u8; bls::PUBLIC_KEY_LEN], bls::PublicKey>>,
}

/// Signatures nodes already gave, by (node, message ID); oldest forgotten first.
#[derive(Debug, Default)]
struct SignedMemory {
    by_key: HashMap<(NodeId, Id), Vec<u8>>,
    order: VecDeque<(NodeId, Id)>,
}

impl SignedMemory {
    fn get(&self, key: &(NodeId, Id)) -> Option<Vec<u8>> {
        self.by_key.get(key).cloned()
    }

    fn put(&mut self, key: (NodeId, Id), sig: Vec<u8>) {
        if self.by_key.insert(key, sig).is_none() {
            self.order.push_back(key);
            while self.order.len() > SIGNED_MEMORY {
                if let Some(old) = self.order.pop_front() {
                    self.by_key.remove(&old);
                }
            }
        }
    }
}

fn lock_read<T>(l: &RwLock<T>) -> std::sync::RwLockReadGuard<'_, T> {
    l.read().unwrap_or_else(|e| e.into_inner())
}

fn lock_write<T>(l: &RwLock<T>) -> std::sync::RwLockWriteGuard<'_, T> {
    l.write().unwrap_or_else(|e| e.into_inner())
}

impl DevnetSigners {
    /// The signers of `chain`: its genesis validators' keys, and the behaviours its config
    /// lists under `warp_signers`.
    pub fn new(chain: Arc<PChain>) -> Result<Self, DevnetError> {
        let config = chain.config();
        let mut keys = HashMap::new();
        for i in 0..config.initial_validators {
            keys.insert(
                config.validator_node_id(i),
                Arc::new(config.validator_bls_key(i)?),
            );
        }
        Ok(Self {
            network_id: chain.network().network_id,
            pchain_rules: PChainRules::new(chain.clone()),
            chain,
            keys: RwLock::new(keys),
            behaviours: RwLock::new(config.warp_signers.into_iter().collect()),
            chains: RwLock::new(HashMap::new()),
            signed: Mutex::new(SignedMemory::default()),
            parsed_keys: RwLock::new(HashMap::new()),
        })
    }

    /// The chain the signers read.
    pub fn chain(&self) -> &Arc<PChain> {
        &self.chain
    }

    /// Gives `node_id` a BLS key (validators added after genesis, L1 validators).
    pub fn add_key(&self, node_id: NodeId, key: impl Into<Arc<bls::SecretKey>>) {
        lock_write(&self.keys).insert(node_id, key.into());
    }

    /// Changes how `node_id` answers.
    pub fn set_behaviour(&self, node_id: NodeId, behaviour: SignerBehaviour) {
        lock_write(&self.behaviours).insert(node_id, behaviour);
    }

    /// Makes every node forget what it signed, so that the next request for a message is
    /// checked and signed again (as after a restart).
    pub fn forget_signed(&self) {
        *self.memory() = SignedMemory::default();
    }

    /// Lets nodes sign messages from `chain_id` when `verifier` agrees (EVM chains).
    pub fn register_chain(&self, chain_id: Id, verifier: Arc<dyn WarpVerifier>) {
        lock_write(&self.chains).insert(chain_id, verifier);
    }

    /// `bytes` as a validated key, parsed once.
    fn public_key(&self, bytes: &[u8; bls::PUBLIC_KEY_LEN]) -> Option<bls::PublicKey> {
        if let Some(pk) = lock_read(&self.parsed_keys).get(bytes) {
            return Some(pk.clone());
        }
        let pk = bls::PublicKey::from_bytes(bytes).ok()?;
        lock_write(&self.parsed_keys).insert(*bytes, pk.clone());
        Some(pk)
    }

    fn behaviour(&self, node_id: &NodeId) -> SignerBehaviour {
        lock_read(&self.behaviours)
            .get(node_id)
            .copied()
            .unwrap_or_default()
    }

    /// What an honest `node_id` answers to `request` (AvalancheGo's `acp118.Handler`).
    pub fn answer(
        &self,
        node_id: NodeId,
        request: &SignatureRequest,
    ) -> Result<SignatureResponse, NetworkError> {
        let key = lock_read(&self.keys)
            .get(&node_id)
            .cloned()
            .ok_or(NetworkError::Unreachable(node_id))?;
        let refused = |code, message: String| NetworkError::Refused {
            node_id,
            error: AppError { code, message },
        };
        let message = UnsignedMessage::from_bytes(&request.message).map_err(|e| {
            refused(
                ERR_UNEXPECTED,
                format!("failed to parse warp unsigned message: {e}"),
            )
        })?;
        let memory_key = (node_id, message.id());
        if let Some(signature) = self.memory().get(&memory_key) {
            return Ok(SignatureResponse { signature });
        }
        if message.network_id != self.network_id {
            return Err(refused(
                ERR_UNEXPECTED,
                format!(
                    "failed to sign message: network ID {} is not {}",
                    message.network_id, self.network_id
                ),
            ));
        }
        let verdict = if message.source_chain_id == P_CHAIN_ID {
            self.pchain_rules.verify(&message, &request.justification)
        } else {
            let verifier = lock_read(&self.chains)
                .get(&message.source_chain_id)
                .cloned();
            match verifier {
                Some(v) => v.verify(&message, &request.justification),
                None => Err(AppError {
                    code: ERR_UNEXPECTED,
                    message: format!(
                        "chain {} does not sign warp messages on this devnet",
                        message.source_chain_id
                    ),
                }),
            }
        };
        verdict.map_err(|error| NetworkError::Refused { node_id, error })?;
        let signature = key.sign(&request.message).to_bytes().to_vec();
        self.memory().put(memory_key, signature.clone());
        Ok(SignatureResponse { signature })
    }

    fn memory(&self) -> std::sync::MutexGuard<'_, SignedMemory> {
        self.signed.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl ValidatorNetwork for DevnetSigners {
    fn network_id(&self) -> u32 {
        self.network_id
    }

    fn subnet_of_chain(&self, chain_id: Id) -> BoxFuture<'_, Result<Id, NetworkError>> {
        Box::pin(async move {
            self.chain
                .validated_by(&chain_id)
                .ok_or(NetworkError::UnknownChain(chain_id))
        })
    }

    fn current_height(&self) -> BoxFuture<'_, Result<u64, NetworkError>> {
        Box::pin(async move { Ok(self.chain.height()) })
    }

    fn validators_at(
        &self,
        subnet_id: Id,
        height: u64,
    ) -> BoxFuture<'_, Result<Vec<Validator>, NetworkError>> {
        Box::pin(async move {
            let set = self
                .chain
                .validators_at(&subnet_id, height)
                .ok_or_else(|| NetworkError::HeightNotAccepted {
                    requested: height,
                    last_accepted: self.chain.height(),
                })?;
            Ok(set
                .into_iter()
                .map(|(node_id, entry)| Validator {
                    node_id,
                    public_key: entry.public_key.and_then(|pk| self.public_key(&pk)),
                    weight: entry.weight,
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
            match self.behaviour(&node_id) {
                SignerBehaviour::Offline => Err(NetworkError::Unreachable(node_id)),
                SignerBehaviour::Honest => self.answer(node_id, request),
                SignerBehaviour::Slow { delay_ms } => {
                    tokio::time::sleep(Duration::from_millis(delay_ms)).await;
                    self.answer(node_id, request)
                }
                SignerBehaviour::BadSignature => {
                    self.answer(node_id, request)?;
                    let key = lock_read(&self.keys)
                        .get(&node_id)
                        .cloned()
                        .ok_or(NetworkError::Unreachable(node_id))?;
                    Ok(SignatureResponse {
                        signature: key
                            .sign(b"firn devnet: a lying validator")
                            .to_bytes()
                            .to_vec(),
                    })
                }
            }
        })
    }
}
