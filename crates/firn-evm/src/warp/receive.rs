//! Receiving Warp messages (subnet-EVM's Warp predicater): a tx carries each signed message in
//! an access-list entry for the Warp precompile ([`firn_core::warp::predicate`]). Such an entry
//! costs the predicate's gas instead of the access-list price ([`predicate_gas`]), and the
//! block builder verifies it against the source subnet's validators at the P-Chain height the
//! block names ([`WarpReceiver::verify`]). A predicate that fails keeps its tx in the block;
//! the precompile answers `valid = false` for it.

use alloy_consensus::Transaction as _;
use alloy_eips::eip2930::AccessList;
use alloy_primitives::B256;
use firn_core::ids::Id;
use firn_core::network::{P_CHAIN_ID, PRIMARY_NETWORK_ID};
use firn_core::warp::payload::Payload;
use firn_core::warp::predicate::{BlockResults, Chunk, WarpGas, unpack};
use firn_core::warp::validators::CanonicalValidatorSet;
use firn_core::warp::{DEFAULT_QUORUM_NUM, Message, QUORUM_DEN};
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

use super::WARP_ADDRESS;
use crate::block::SignedTx;
use crate::chain::EvmChain;
use crate::genesis::ChainConfig;
use crate::precompiles::Precompiles;
use crate::stateful::WARP_GAS;

/// What an access-list entry costs (EIP-2930): the address, and each storage key.
const ACCESS_LIST_ADDRESS_GAS: u64 = 2_400;
const ACCESS_LIST_KEY_GAS: u64 = 1_900;

/// The P-Chain as a receiving chain sees it (the devnet implements it).
pub trait WarpBackend: Send + Sync {
    /// The P-Chain height a block built now names (proposervm's P-Chain height).
    fn p_chain_height(&self) -> u64;
    /// The subnet that validates `chain_id` (the primary network for its own chains).
    fn subnet_of(&self, chain_id: &Id) -> Option<Id>;
    /// The canonical validator set of `subnet_id` after P-Chain block `height`.
    fn validators_at(&self, subnet_id: &Id, height: u64) -> Result<CanonicalValidatorSet, String>;
}

/// The chunks of each Warp predicate in `list`, in order: predicate `i` is the `i`th entry
/// naming the Warp precompile.
pub fn warp_predicates(list: &AccessList) -> Vec<Vec<Chunk>> {
    list.iter()
        .filter(|item| item.address == WARP_ADDRESS)
        .map(|item| item.storage_keys.iter().map(|k| k.0).collect())
        .collect()
}

/// The intrinsic gas `predicates` add beyond the access-list price of their entries (which
/// revm charges): each costs [`WarpGas::predicate`] instead. Fails, with subnet-EVM's text,
/// for a predicate that does not hold a Warp message: such a tx is invalid.
pub fn predicate_gas(predicates: &[Vec<Chunk>], gas: &WarpGas) -> Result<u64, String> {
    let mut extra = 0u64;
    for chunks in predicates {
        let bytes = unpack(chunks).map_err(|e| format!("cannot unpack predicate bytes: {e}"))?;
        let message =
            Message::from_bytes(&bytes).map_err(|e| format!("cannot unpack warp message: {e}"))?;
        Payload::from_bytes(&message.unsigned.payload)
            .map_err(|e| format!("cannot unpack warp message payload: {e}"))?;
        let signers = message
            .signature
            .num_signers()
            .map_err(|e| format!("cannot fetch num signers from warp message: {e}"))?;
        let cost = gas.predicate(chunks.len(), signers).ok_or_else(|| {
            format!(
                "overflow calculating gas cost for {} warp message chunks",
                chunks.len()
            )
        })?;
        let listed = ACCESS_LIST_ADDRESS_GAS + ACCESS_LIST_KEY_GAS * chunks.len() as u64;
        extra = extra
            .checked_add(cost.saturating_sub(listed))
            .ok_or_else(|| "gas uint64 overflow".to_owned())?;
    }
    Ok(extra)
}

/// How a receiving chain verifies predicates: its `warpConfig` and identity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WarpRules {
    /// The chain's Avalanche network ID.
    pub network_id: u32,
    /// The chain's blockchain ID.
    pub chain_id: Id,
    /// `quorumNumerator` (0: the default, 67).
    pub quorum_num: u64,
    /// `requirePrimaryNetworkSigners`: messages from the primary network's chains (other
    /// than the P-Chain) need the primary network's signatures, not this chain's subnet's.
    pub require_primary_network_signers: bool,
}

impl WarpRules {
    /// The rules of a chain with `config`'s `warpConfig`.
    pub fn from_config(config: &ChainConfig, network_id: u32, blockchain_id: B256) -> Self {
        let warp = config.precompile("warpConfig").map(|p| &p.config);
        Self {
            network_id,
            chain_id: Id(blockchain_id.0),
            quorum_num: warp
                .and_then(|c| c.get("quorumNumerator"))
                .and_then(serde_json::Value::as_u64)
                .unwrap_or(0),
            require_primary_network_signers: warp
                .and_then(|c| c.get("requirePrimaryNetworkSigners"))
                .and_then(serde_json::Value::as_bool)
                .unwrap_or(false),
        }
    }

    /// The verifier of these rules on `backend`.
    pub fn receiver<'a>(&'a self, backend: &'a dyn WarpBackend) -> WarpReceiver<'a> {
        WarpReceiver {
            rules: self,
            backend,
            height: backend.p_chain_height(),
            sets: RefCell::new(HashMap::new()),
        }
    }
}

/// Verifies predicates for one block, at the P-Chain height read when it was made.
#[allow(missing_debug_implementations)]
pub struct WarpReceiver<'a> {
    rules: &'a WarpRules,
    backend: &'a dyn WarpBackend,
    height: u64,
    /// Each subnet's canonical set at `height`, read once per block (reading one checks
    /// every validator's key).
    sets: RefCell<HashMap<Id, Result<Rc<CanonicalValidatorSet>, String>>>,
}

impl WarpReceiver<'_> {
    /// subnet-EVM's `VerifyPredicate`: the predicate's message must be signed by at least the
    /// quorum of its source subnet's weight at the block's P-Chain height. Messages from the
    /// primary network (the P-Chain always) are verified against this chain's own subnet.
    pub fn verify(&self, chunks: &[Chunk]) -> Result<(), String> {
        let bytes = unpack(chunks).map_err(|e| format!("cannot unpack predicate bytes: {e}"))?;
        let message =
            Message::from_bytes(&bytes).map_err(|e| format!("cannot parse warp message: {e}"))?;
        let source = message.unsigned.source_chain_id;
        let mut subnet = self.backend.subnet_of(&source).ok_or_else(|| {
            format!("cannot retrieve validator set: no subnet validates chain {source}")
        })?;
        if subnet == PRIMARY_NETWORK_ID
            && (!self.rules.require_primary_network_signers || source == P_CHAIN_ID)
        {
            subnet = self
                .backend
                .subnet_of(&self.rules.chain_id)
                .ok_or_else(|| {
                    "cannot retrieve validator set: this chain's subnet is unknown".to_owned()
                })?;
        }
        let validators = self
            .sets
            .borrow_mut()
            .entry(subnet)
            .or_insert_with(|| {
                self.backend
                    .validators_at(&subnet, self.height)
                    .map(Rc::new)
            })
            .clone()
            .map_err(|e| format!("cannot retrieve validator set: {e}"))?;
        let quorum = match self.rules.quorum_num {
            0 => DEFAULT_QUORUM_NUM,
            q => q,
        };
        validators
            .verify(&message, self.rules.network_id, quorum, QUORUM_DEN)
            .map_err(|e| format!("cannot verify warp signature: {e}"))
    }

    /// The indices of `predicates` that fail [`verify`](Self::verify), each failure logged.
    pub fn failed(&self, tx: &B256, predicates: &[Vec<Chunk>]) -> Vec<usize> {
        let mut failed = Vec::new();
        for (i, chunks) in predicates.iter().enumerate() {
            if let Err(error) = self.verify(chunks) {
                tracing::debug!(target: "evm", %tx, index = i, %error, "warp predicate failed");
                failed.push(i);
            }
        }
        failed
    }
}

/// A tx's Warp predicates as a block runs it.
pub(crate) struct TxPredicates {
    /// How many it carries.
    count: usize,
    /// The intrinsic gas they add beyond their access-list price.
    pub(crate) gas: u64,
    /// Those that did not verify, by index.
    pub(crate) failed: Vec<usize>,
}

impl TxPredicates {
    /// `tx`'s predicates in the block being built (checked by `receiver`, all failing
    /// without one) or replayed (as `recorded`). Fails for a tx whose predicates hold no Warp
    /// message.
    pub(crate) fn of(
        precompiles: &Precompiles,
        tx: &SignedTx,
        recorded: Option<&BlockResults>,
        receiver: Option<&WarpReceiver<'_>>,
    ) -> Result<Self, String> {
        let predicates = precompiles.warp_predicates(tx.envelope.access_list());
        if predicates.is_empty() {
            return Ok(Self {
                count: 0,
                gas: 0,
                failed: Vec::new(),
            });
        }
        let gas = predicate_gas(&predicates, &WARP_GAS)?;
        let failed = match (recorded, receiver) {
            (Some(recorded), _) => recorded.failed_indices(&tx.hash.0, &WARP_ADDRESS.0.0),
            (None, Some(receiver)) => receiver.failed(&tx.hash, &predicates),
            (None, None) => (0..predicates.len()).collect(),
        };
        Ok(Self {
            count: predicates.len(),
            gas,
            failed,
        })
    }

    /// Adds `tx`'s results to the block's (a tx without predicates has none).
    pub(crate) fn record(&self, results: &mut BlockResults, tx: &SignedTx) {
        if self.count > 0 {
            results.set(
                tx.hash.0,
                BTreeMap::from([(WARP_ADDRESS.0.0, self.failed.clone())]),
            );
        }
    }
}

impl EvmChain {
    /// The verifier of the next block's predicates: `None` on a chain that receives no Warp
    /// messages or has no P-Chain to verify them against.
    pub(crate) fn warp_receiver(&self) -> Option<WarpReceiver<'_>> {
        let rules = self.warp_rules.as_ref()?;
        let backend = self.config.warp.as_deref()?;
        Some(rules.receiver(backend))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_eips::eip2930::AccessListItem;
    use alloy_primitives::Address;
    use firn_core::warp::predicate::pack;

    #[test]
    fn only_warp_entries_are_predicates_and_their_gas_replaces_the_list_price() {
        let message = Message::new(
            firn_core::warp::UnsignedMessage::new(
                1,
                Id([1; 32]),
                Payload::Hash(Id([2; 32])).bytes(),
            ),
            firn_core::warp::BitSetSignature {
                signers: vec![0b101],
                signature: [0; 96],
            },
        );
        let chunks = pack(&message.bytes());
        let item = |address, keys: &[Chunk]| AccessListItem {
            address,
            storage_keys: keys.iter().map(|k| B256::from(*k)).collect(),
        };
        let list = AccessList(vec![
            item(Address::repeat_byte(7), &[[1; 32]]),
            item(WARP_ADDRESS, &chunks),
        ]);
        let predicates = warp_predicates(&list);
        assert_eq!(predicates, vec![chunks.clone()]);
        let gas = WarpGas::PRE_GRANITE;
        let full = gas.predicate(chunks.len(), 2).unwrap();
        assert_eq!(
            predicate_gas(&predicates, &gas).unwrap(),
            full - 2_400 - 1_900 * chunks.len() as u64
        );
        let bad = vec![vec![[0u8; 32]]];
        assert!(
            predicate_gas(&bad, &gas)
                .unwrap_err()
                .starts_with("cannot unpack predicate bytes: no delimiter found")
        );
        let not_a_message = vec![pack(b"hello")];
        assert!(
            predicate_gas(&not_a_message, &gas)
                .unwrap_err()
                .starts_with("cannot unpack warp message")
        );
    }
}
