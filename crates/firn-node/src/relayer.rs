//! An ICM relayer inside the node, as icm-services' relayer works on public networks: it reads
//! each accepted block of every EVM chain for Teleporter messages (`sendWarpMessage` calls from
//! the messenger's address), asks the source subnet's validators to sign each with firn's
//! aggregator, and delivers it on the destination chain with `receiveCrossChainMessage`, the
//! signed message carried as a Warp predicate. A message it may not deliver (another chain, a
//! relayer list without it) is skipped; one whose signing or delivery fails is tried again
//! with backoff, up to [`MAX_ATTEMPTS`] times. Fees the messages pay accrue to its own address
//! as receipts come back.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use alloy_eips::eip2930::{AccessList, AccessListItem};
use alloy_primitives::{Address, B256, U256};
use firn_aggregator::{AggregationRequest, Aggregator};
use firn_core::ids::Id;
use firn_core::keys::secp256k1::PrivateKey;
use firn_core::teleporter::TeleporterMessage;
use firn_core::warp::UnsignedMessage;
use firn_core::warp::payload::Payload;
use firn_core::warp::predicate::pack;
use firn_evm::{EvmChain, WARP_ADDRESS, sent_messages};
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tracing::{debug, info, warn};

use crate::evm_chains::EvmChainsHandle;
use crate::history::evm_tx::{Arg, address_of, calldata, send_with_access_list};

/// How often chains are read for new blocks.
const POLL: Duration = Duration::from_millis(100);
/// Tries per message before it is given up (logged).
pub const MAX_ATTEMPTS: u32 = 12;

/// A message waiting to be delivered.
struct Pending {
    message: UnsignedMessage,
    destination: Id,
    attempts: u32,
    due: tokio::time::Instant,
}

/// The relayer: started by [`spawn`], stopped with [`Relayer::stop`] or on drop.
#[derive(Debug)]
pub struct Relayer {
    stop: watch::Sender<bool>,
    task: JoinHandle<()>,
}

impl Relayer {
    /// Stops relaying, and waits until the relayer has let go of the chains.
    pub async fn stop(mut self) {
        let _ = self.stop.send(true);
        let task = std::mem::replace(&mut self.task, tokio::spawn(async {}));
        let _ = task.await;
    }
}

impl Drop for Relayer {
    fn drop(&mut self) {
        let _ = self.stop.send(true);
    }
}

/// Relays Teleporter messages between `evm`'s chains from blocks accepted from now on (and
/// every block of chains booted later), signing with `aggregator` and paying with `key`.
pub fn spawn(evm: Arc<EvmChainsHandle>, aggregator: Arc<Aggregator>, key: PrivateKey) -> Relayer {
    let (stop, mut stopped) = watch::channel(false);
    let mut seen: HashMap<B256, u64> = evm
        .served()
        .iter()
        .map(|c| (c.blockchain_id(), c.height()))
        .collect();
    let teleporter = Address::from(firn_devnet::teleporter::TELEPORTER_MESSENGER);
    let me = address_of(&key);
    info!(relayer = %me, "ICM relayer started");
    let task = tokio::spawn(async move {
        let mut pending: Vec<Pending> = Vec::new();
        loop {
            for chain in evm.served() {
                let from = seen.entry(chain.blockchain_id()).or_insert(0);
                let head = chain.height();
                for number in *from + 1..=head {
                    let Some(block) = chain.block_by_number(number) else {
                        break;
                    };
                    pending.extend(messages_in(&block, teleporter, me, &evm));
                }
                *from = head;
            }
            let now = tokio::time::Instant::now();
            let mut waiting = Vec::with_capacity(pending.len());
            for mut p in std::mem::take(&mut pending) {
                if p.due > now {
                    waiting.push(p);
                    continue;
                }
                match deliver(&evm, &aggregator, &key, &p).await {
                    Ok(hash) => {
                        debug!(message = %p.message.id(), %hash, "ICM message delivered")
                    }
                    Err(error) if p.attempts + 1 >= MAX_ATTEMPTS => {
                        warn!(message = %p.message.id(), %error, "ICM message given up")
                    }
                    Err(error) => {
                        debug!(message = %p.message.id(), %error, "ICM delivery to try again");
                        p.attempts += 1;
                        p.due = now + POLL * 2u32.pow(p.attempts.min(6));
                        waiting.push(p);
                    }
                }
            }
            pending = waiting;
            tokio::select! {
                _ = tokio::time::sleep(POLL) => {}
                _ = stopped.changed() => return,
            }
        }
    });
    Relayer { stop, task }
}

/// The Teleporter messages `block` sent that relayer `me` may deliver to a chain it serves.
fn messages_in(
    block: &firn_evm::Block,
    teleporter: Address,
    me: Address,
    evm: &EvmChainsHandle,
) -> Vec<Pending> {
    let mut out = Vec::new();
    for (_, bytes) in sent_messages(block) {
        let Ok(message) = UnsignedMessage::from_bytes(&bytes) else {
            continue;
        };
        let Ok(Payload::AddressedCall(call)) = Payload::from_bytes(&message.payload) else {
            continue;
        };
        if call.source_address != teleporter.as_slice() {
            continue;
        }
        let Some(sent) = TeleporterMessage::decode(&call.payload) else {
            continue;
        };
        let allowed = &sent.allowed_relayers;
        if evm.chain(&sent.destination_blockchain_id).is_none()
            || !(allowed.is_empty() || allowed.contains(&me))
        {
            continue;
        }
        out.push(Pending {
            message,
            destination: sent.destination_blockchain_id,
            attempts: 0,
            due: tokio::time::Instant::now(),
        });
    }
    out
}

/// Signs `p`'s message and submits its delivery; the delivery tx's hash.
async fn deliver(
    evm: &EvmChainsHandle,
    aggregator: &Aggregator,
    key: &PrivateKey,
    p: &Pending,
) -> Result<B256, String> {
    let chain: Arc<EvmChain> = evm
        .chain(&p.destination)
        .ok_or_else(|| format!("chain {} is not served", p.destination))?;
    let signed = aggregator
        .aggregate(AggregationRequest::new(p.message.clone()))
        .await
        .map_err(|e| e.to_string())?;
    submit_delivery(&chain, key, &signed.message)
}

/// Pools `receiveCrossChainMessage(0, relayer)` on `chain` from `key`, the signed Warp
/// message carried as its predicate; the tx's hash.
pub(crate) fn submit_delivery(
    chain: &EvmChain,
    key: &PrivateKey,
    signed: &firn_core::warp::Message,
) -> Result<B256, String> {
    let list = AccessList(vec![AccessListItem {
        address: WARP_ADDRESS,
        storage_keys: pack(&signed.bytes()).into_iter().map(B256::from).collect(),
    }]);
    let input = calldata(
        "receiveCrossChainMessage(uint32,address)",
        &[Arg::Uint(U256::ZERO), Arg::Addr(address_of(key))],
    );
    let teleporter = Address::from(firn_devnet::teleporter::TELEPORTER_MESSENGER);
    send_with_access_list(chain, key, Some(teleporter), U256::ZERO, input, list)
}
