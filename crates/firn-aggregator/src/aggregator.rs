//! [`Aggregator`]: collects a quorum of verified BLS signatures for one Warp message.
//!
//! 1. The signing subnet is the one given, or the one validating the message's source chain.
//! 2. Its validators at the P-Chain height (the last accepted one unless the request names
//!    one) become the canonical set (merged by key, sorted by uncompressed key), whose
//!    indices the signer bitset uses. Sets are kept by (subnet, height): they never change.
//! 3. Signatures already verified for this message ID are taken from the cache.
//! 4. The rest are requested heaviest first, in parallel, each with its own timeout: just
//!    enough validators to reach the target (quorum + buffer) if all answer; each failure
//!    (unreachable, refusal, timeout, bad signature) launches the next heaviest.
//! 5. Answers are verified in batches (see [`crate::verify`]) before they count; a batch is
//!    checked as soon as it could reach the target, or when nothing else is in flight.
//! 6. Collection stops at the target or when nobody is left to ask (or at once when the
//!    network cannot carry requests at all); the message is built if the quorum is met,
//!    with the signers in canonical order and the sum of the verified batches' sums.

use crate::cache::{PreparedSet, SetCache, SignatureCache, SignerSet};
use crate::error::AggregateError;
use crate::network::{NetworkError, ValidatorNetwork};
use crate::quorum::Quorum;
use crate::verify::{self, Candidate, split_valid};
use firn_core::ids::{Id, NodeId};
use firn_core::keys::bls;
use firn_core::warp::acp118::SignatureRequest;
use firn_core::warp::validators::CanonicalValidatorSet;
use firn_core::warp::{BitSetSignature, Message, UnsignedMessage, WarpError, bitset};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::task::JoinSet;
use tokio::time::{Instant, timeout, timeout_at};
use tracing::{debug, warn};

/// Timeouts and cache size.
#[derive(Debug, Clone)]
pub struct AggregatorConfig {
    /// How long one validator may take to answer.
    pub request_timeout: Duration,
    /// How long one aggregation may take in all.
    pub overall_timeout: Duration,
    /// How many messages' signatures the cache keeps.
    pub cache_capacity: usize,
}

impl Default for AggregatorConfig {
    fn default() -> Self {
        Self {
            request_timeout: Duration::from_secs(5),
            overall_timeout: Duration::from_secs(30),
            cache_capacity: 16_384,
        }
    }
}

/// What to aggregate.
#[derive(Debug, Clone)]
pub struct AggregationRequest {
    /// The message validators sign.
    pub message: UnsignedMessage,
    /// Why they should sign it (ACP-118); empty when the message needs none.
    pub justification: Vec<u8>,
    /// The subnet whose validators sign; `None` for the subnet of the source chain.
    pub signing_subnet: Option<Id>,
    /// The weight required, and the extra collected when possible.
    pub quorum: Quorum,
    /// The P-Chain height of the validator set; `None` for the current height.
    pub pchain_height: Option<u64>,
}

impl AggregationRequest {
    /// A request with the defaults: no justification, the source chain's subnet, 67 %
    /// quorum with no buffer, the current P-Chain height.
    pub fn new(message: UnsignedMessage) -> Self {
        Self {
            message,
            justification: Vec::new(),
            signing_subnet: None,
            quorum: Quorum::default(),
            pchain_height: None,
        }
    }
}

/// A signed message and how it was obtained.
#[derive(Debug, Clone)]
pub struct Aggregated {
    /// The signed message.
    pub message: Message,
    /// The signing subnet.
    pub subnet_id: Id,
    /// The P-Chain height of the validator set.
    pub height: u64,
    /// The weight of the signers.
    pub signed_weight: u64,
    /// The weight of the whole set.
    pub total_weight: u64,
    /// How many canonical validators signed.
    pub signers: usize,
    /// How many canonical validators were asked over the network (cache hits are not).
    pub asked: usize,
}

/// How many canonical sets (by subnet and P-Chain height) the aggregator keeps.
const SET_CACHE_CAPACITY: usize = 64;

/// Collects and aggregates Warp signatures over a [`ValidatorNetwork`]. Cheap to share
/// (`Arc`), safe to use from many tasks at once.
#[derive(Debug)]
pub struct Aggregator {
    network: Arc<dyn ValidatorNetwork>,
    config: AggregatorConfig,
    signatures: Mutex<SignatureCache>,
    sets: Mutex<SetCache>,
}

/// The verified signers gathered so far, by canonical index, and their summed signature
/// (checked sums all the way: the subgroup check of each sum is the last line of defence
/// against colluding signers).
struct Collected {
    signed: Vec<bool>,
    signers: usize,
    weight: u64,
    sum: Option<bls::Signature>,
}

impl Collected {
    fn new(validators: usize) -> Self {
        Self {
            signed: vec![false; validators],
            signers: 0,
            weight: 0,
            sum: None,
        }
    }

    /// Counts validator `index` as signed; its signature goes into the sum separately
    /// ([`Collected::add_sum`]), a batch at a time.
    fn accept(&mut self, index: usize, weight: u64) {
        if let Some(slot) = self.signed.get_mut(index)
            && !*slot
        {
            *slot = true;
            self.signers += 1;
            self.weight = self.weight.saturating_add(weight);
        }
    }

    fn add_sum(&mut self, sum: bls::Signature) {
        self.sum = Some(verify::add(self.sum.take(), sum));
    }

    /// The canonical indices of the signers, ascending: the bitset's order.
    fn indices(&self) -> Vec<usize> {
        self.signed
            .iter()
            .enumerate()
            .filter_map(|(i, signed)| signed.then_some(i))
            .collect()
    }
}

/// Why a validator gave no signature.
enum Failure {
    /// This validator failed (unreachable, refused, timed out, malformed): ask the next.
    Skipped(String),
    /// Nobody can be asked over this network: stop.
    Fatal(NetworkError),
}

/// One canonical validator's answer: a parsed signature, or why there is none.
type Answer = (usize, Result<bls::UncheckedSignature, Failure>);

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Aggregator {
    /// An aggregator over `network`.
    pub fn new(network: Arc<dyn ValidatorNetwork>, config: AggregatorConfig) -> Self {
        Self {
            signatures: Mutex::new(SignatureCache::new(config.cache_capacity)),
            sets: Mutex::new(SetCache::new(SET_CACHE_CAPACITY)),
            network,
            config,
        }
    }

    /// The network it asks.
    pub fn network(&self) -> &Arc<dyn ValidatorNetwork> {
        &self.network
    }

    /// Forgets every cached signature and validator set.
    pub fn clear_cache(&self) {
        self.clear_signature_cache();
        lock(&self.sets).clear();
    }

    /// Forgets every cached signature; validator sets stay.
    pub fn clear_signature_cache(&self) {
        lock(&self.signatures).clear();
    }

    /// Collects signatures for `req` until its quorum (plus buffer) is met and returns the
    /// signed message.
    pub async fn aggregate(&self, req: AggregationRequest) -> Result<Aggregated, AggregateError> {
        let expected = self.network.network_id();
        if req.message.network_id != expected {
            return Err(AggregateError::WrongNetwork {
                expected,
                actual: req.message.network_id,
            });
        }
        let subnet_id = match req.signing_subnet {
            Some(id) => id,
            None => {
                self.network
                    .subnet_of_chain(req.message.source_chain_id)
                    .await?
            }
        };
        let height = match req.pchain_height {
            Some(height) => height,
            None => self.network.current_height().await?,
        };
        let set = self.prepared_set(subnet_id, height).await?;
        let canonical = &set.canonical;
        if canonical.is_empty() {
            return Err(AggregateError::NoValidators { subnet_id, height });
        }
        let total = canonical.total_weight;
        let required = req.quorum.required(total);
        let target = req.quorum.target(total);
        let message_id = req.message.id();

        let set_id = (subnet_id, height);
        let mut collected = Collected::new(canonical.len());
        self.take_cached(set_id, canonical, &message_id, &mut collected)?;
        let mut asked = 0;
        if collected.weight < target {
            let request = Arc::new(SignatureRequest {
                message: req.message.bytes(),
                justification: req.justification,
            });
            asked = self
                .collect(&set, request, message_id, target, &mut collected)
                .await?;
        }
        if collected.weight < required {
            return Err(AggregateError::InsufficientWeight {
                obtained: collected.weight,
                required,
                total,
                signers: collected.signers,
                asked,
            });
        }
        let signers: SignerSet = (set_id, collected.indices());
        let sum = collected.sum.ok_or(WarpError::NoSigners)?;
        let message = Message::new(
            req.message,
            BitSetSignature {
                signers: bitset::from_indices(&signers.1),
                signature: sum.to_bytes(),
            },
        );
        lock(&self.signatures).remember_aggregate(message_id, signers, sum);
        Ok(Aggregated {
            message,
            subnet_id,
            height,
            signed_weight: collected.weight,
            total_weight: total,
            signers: collected.signers,
            asked,
        })
    }

    /// The canonical set of `subnet_id` at `height`, read and prepared once.
    async fn prepared_set(
        &self,
        subnet_id: Id,
        height: u64,
    ) -> Result<Arc<PreparedSet>, AggregateError> {
        if let Some(set) = lock(&self.sets).get(subnet_id, height) {
            return Ok(set);
        }
        let validators = self.network.validators_at(subnet_id, height).await?;
        let canonical = CanonicalValidatorSet::new(
            validators
                .into_iter()
                .map(|v| (v.node_id, v.public_key, v.weight)),
        )?;
        let set = Arc::new(PreparedSet::new(canonical));
        lock(&self.sets).insert(subnet_id, height, set.clone());
        Ok(set)
    }

    /// Counts the signatures of the message already verified, and sums them (or takes the
    /// message's last aggregate when it has exactly these signers).
    fn take_cached(
        &self,
        set_id: (Id, u64),
        canonical: &CanonicalValidatorSet,
        message_id: &Id,
        collected: &mut Collected,
    ) -> Result<(), AggregateError> {
        let sigs = {
            let cache = lock(&self.signatures);
            if cache.len_of(message_id) == 0 {
                return Ok(());
            }
            let mut sigs = Vec::new();
            for (i, v) in canonical.validators.iter().enumerate() {
                if let Some(sig) = cache.get(message_id, &v.public_key) {
                    collected.accept(i, v.weight);
                    sigs.push(sig);
                }
            }
            if sigs.is_empty() {
                return Ok(());
            }
            if let Some(sum) = cache.aggregate_of(message_id, &(set_id, collected.indices())) {
                collected.add_sum(sum.clone());
                return Ok(());
            }
            sigs.into_iter().cloned().collect::<Vec<_>>()
        };
        let refs: Vec<&bls::UncheckedSignature> = sigs.iter().collect();
        let sum = bls::aggregate_unchecked(&refs).map_err(|e| WarpError::Bls(e.to_string()))?;
        collected.add_sum(sum);
        Ok(())
    }

    /// Asks validators heaviest first until `collected` reaches `target` or nobody is left.
    /// Returns how many canonical validators were asked.
    async fn collect(
        &self,
        set: &PreparedSet,
        request: Arc<SignatureRequest>,
        message_id: Id,
        target: u64,
        collected: &mut Collected,
    ) -> Result<usize, AggregateError> {
        let canonical = &set.canonical;
        let weight = |i: usize| canonical.validators[i].weight;
        let order: Vec<usize> = set
            .heaviest_first
            .iter()
            .copied()
            .filter(|&i| !collected.signed[i])
            .collect();

        let deadline = Instant::now() + self.config.overall_timeout;
        let mut tasks: JoinSet<Answer> = JoinSet::new();
        let mut task_index = HashMap::new();
        let mut next = 0;
        let mut in_flight = 0u64;
        let mut pending: Vec<Candidate> = Vec::new();
        let mut pending_weight = 0u64;
        loop {
            while collected.weight + pending_weight + in_flight < target && next < order.len() {
                let i = order[next];
                next += 1;
                in_flight += weight(i);
                let handle = tasks.spawn(ask(
                    self.network.clone(),
                    canonical.validators[i].node_ids.clone(),
                    request.clone(),
                    i,
                    self.config.request_timeout,
                ));
                task_index.insert(handle.id(), i);
            }
            if collected.weight >= target {
                break;
            }
            if !pending.is_empty()
                && (collected.weight + pending_weight >= target || tasks.is_empty())
            {
                self.verify_pending(
                    canonical,
                    &request.message,
                    message_id,
                    &mut pending,
                    collected,
                );
                pending_weight = 0;
                continue;
            }
            if tasks.is_empty() {
                break;
            }
            let (i, answer) = match timeout_at(deadline, tasks.join_next_with_id()).await {
                Err(_) => {
                    debug!(target: "aggregator", "overall timeout reached");
                    break;
                }
                Ok(None) => continue,
                Ok(Some(Ok((id, answer)))) => {
                    task_index.remove(&id);
                    answer
                }
                Ok(Some(Err(e))) => match task_index.remove(&e.id()) {
                    Some(i) => (
                        i,
                        Err(Failure::Skipped(format!("request task failed: {e}"))),
                    ),
                    None => continue,
                },
            };
            in_flight -= weight(i);
            match answer {
                Ok(signature) => {
                    pending_weight += weight(i);
                    pending.push(Candidate {
                        index: i,
                        public_key: canonical.validators[i].public_key.clone(),
                        signature,
                    });
                }
                Err(Failure::Skipped(error)) => {
                    debug!(target: "aggregator", index = i, %error, "no signature");
                }
                Err(Failure::Fatal(error)) => {
                    tasks.abort_all();
                    return Err(error.into());
                }
            }
        }
        if !pending.is_empty() {
            self.verify_pending(
                canonical,
                &request.message,
                message_id,
                &mut pending,
                collected,
            );
        }
        tasks.abort_all();
        Ok(next)
    }

    /// Verifies the pending answers; the valid ones count, go into the sum and are cached.
    fn verify_pending(
        &self,
        canonical: &CanonicalValidatorSet,
        message: &[u8],
        message_id: Id,
        pending: &mut Vec<Candidate>,
        collected: &mut Collected,
    ) {
        let checked = split_valid(message, std::mem::take(pending));
        for index in checked.bad {
            warn!(target: "aggregator", index, "validator returned an invalid signature");
        }
        for c in &checked.good {
            collected.accept(c.index, canonical.validators[c.index].weight);
        }
        if let Some(sum) = checked.sum {
            collected.add_sum(sum);
        }
        lock(&self.signatures).insert_all(
            message_id,
            checked
                .good
                .into_iter()
                .map(|c| (c.public_key.to_bytes(), c.signature)),
        );
    }
}

/// Asks the nodes of one canonical validator in turn (each within `per_node`) until one
/// returns a well-formed signature.
async fn ask(
    network: Arc<dyn ValidatorNetwork>,
    node_ids: Vec<NodeId>,
    request: Arc<SignatureRequest>,
    index: usize,
    per_node: Duration,
) -> Answer {
    let mut last = String::from("no node to ask");
    for node_id in node_ids {
        match timeout(per_node, network.request_signature(node_id, &request)).await {
            Err(_) => last = format!("{node_id} timed out"),
            Ok(Err(e @ NetworkError::Unsupported(_))) => return (index, Err(Failure::Fatal(e))),
            Ok(Err(e)) => last = e.to_string(),
            Ok(Ok(response)) if response.signature.is_empty() => {
                last = NetworkError::Refused {
                    node_id,
                    error: crate::network::AppError {
                        code: 0,
                        message: "empty signature".into(),
                    },
                }
                .to_string();
            }
            // Decompressing is the costly part of an answer: done here, on the task, so that
            // it runs in parallel across the runtime's threads. The subgroup is checked on
            // the batch sum.
            Ok(Ok(response)) => match bls::UncheckedSignature::from_bytes(&response.signature) {
                Ok(sig) => return (index, Ok(sig)),
                Err(e) => last = format!("{node_id} returned a malformed signature: {e}"),
            },
        }
    }
    (index, Err(Failure::Skipped(last)))
}
