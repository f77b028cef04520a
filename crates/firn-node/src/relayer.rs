//! An ICM relayer inside the node, as icm-services' relayer works on public networks: it reads
//! each accepted block of every EVM chain for Teleporter messages (`sendWarpMessage` calls from
//! the messenger's address), asks the source subnet's validators to sign each with firn's
//! aggregator, and delivers it on the destination chain with `receiveCrossChainMessage`, the
//! signed message carried as a Warp predicate. A message it may not deliver (another chain, a
//! relayer list without it) is skipped; one whose signing or delivery fails, or whose delivery
//! does not land, is tried again with backoff (after [`MAX_ATTEMPTS`], every [`MAX_BACKOFF`])
//! until the destination has received it. Where it has read each chain up to is kept in the
//! data dir ([`CURSOR_FILE`]), never past a message still waiting, so a restart relays what
//! was sent while the node was down. Fees the messages pay accrue to its own address as
//! receipts come back.

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
use firn_core::warp::payload::{AddressedCall, Payload};
use firn_core::warp::predicate::pack;
use firn_evm::{EvmChain, WARP_ADDRESS, sent_messages};
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tracing::{debug, info, warn};

use crate::evm_chains::EvmChainsHandle;
use crate::history::evm_tx::{Arg, address_of, calldata, send_with_access_list};

/// How often chains are read for new blocks.
const POLL: Duration = Duration::from_millis(100);
/// Tries per message with a growing backoff; after them a message is tried every
/// [`MAX_BACKOFF`] for as long as the node runs (a fee spike or a signer down passes).
pub const MAX_ATTEMPTS: u32 = 12;
/// The longest wait between two tries of one message.
pub const MAX_BACKOFF: Duration = Duration::from_secs(30);
/// How long after a delivery is pooled it is checked for having landed.
const LANDING: Duration = Duration::from_secs(2);
/// Messages waiting at most; beyond, the oldest is dropped (logged), so a flood of messages
/// that cannot be delivered does not grow memory.
pub const MAX_PENDING: usize = 10_000;
/// The file in the data dir that keeps, per chain, the block the relayer has read up to.
pub const CURSOR_FILE: &str = "relayer.json";

/// A message waiting to be delivered.
struct Pending {
    message: UnsignedMessage,
    /// Its Teleporter message ID, to ask the destination whether it arrived.
    id: B256,
    source: B256,
    /// The source block that sent it: the cursor does not pass it while it waits.
    block: u64,
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

/// Where the relayer has read each chain up to (by blockchain ID), kept in `path` between runs.
#[derive(Debug)]
struct Cursor {
    path: std::path::PathBuf,
    heights: HashMap<B256, u64>,
    saved: HashMap<B256, u64>,
}

impl Cursor {
    /// The saved cursor; chains it does not name start at their head (their earlier messages
    /// were never this relayer's).
    fn load(path: std::path::PathBuf, evm: &EvmChainsHandle) -> Self {
        let saved: HashMap<B256, u64> = std::fs::read(&path)
            .ok()
            .and_then(|bytes| serde_json::from_slice::<HashMap<String, u64>>(&bytes).ok())
            .map(|m| {
                m.into_iter()
                    .filter_map(|(k, v)| Some((k.parse::<B256>().ok()?, v)))
                    .collect()
            })
            .unwrap_or_default();
        let mut heights = saved.clone();
        for c in evm.served() {
            heights
                .entry(c.blockchain_id())
                .or_insert_with(|| c.height());
        }
        Self {
            path,
            heights,
            saved,
        }
    }

    /// Saves, per chain, the block before the oldest message still waiting (or the head read),
    /// if that moved; a failure is logged and tried again next round.
    fn save(&mut self, pending: &[Pending]) {
        let mut keep = self.heights.clone();
        for p in pending {
            if let Some(h) = keep.get_mut(&p.source) {
                *h = (*h).min(p.block.saturating_sub(1));
            }
        }
        if keep == self.saved {
            return;
        }
        let text: HashMap<String, u64> = keep.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        let tmp = self.path.with_extension("json.tmp");
        let written = serde_json::to_vec(&text)
            .map_err(std::io::Error::other)
            .and_then(|bytes| std::fs::write(&tmp, bytes))
            .and_then(|()| std::fs::rename(&tmp, &self.path));
        match written {
            Ok(()) => self.saved = keep,
            Err(error) => warn!(%error, path = %self.path.display(), "saving the relayer's cursor"),
        }
    }
}

/// Relays Teleporter messages between `evm`'s chains, signing with `aggregator` and paying
/// with `key`: from where `cursor_file` says it stopped (messages sent while the node was down
/// are relayed on restart), or from the head for chains it does not name, and every block of
/// chains booted later.
pub fn spawn(
    evm: Arc<EvmChainsHandle>,
    aggregator: Arc<Aggregator>,
    key: PrivateKey,
    cursor_file: std::path::PathBuf,
) -> Relayer {
    let (stop, mut stopped) = watch::channel(false);
    let mut cursor = Cursor::load(cursor_file, &evm);
    let teleporter = Address::from(firn_devnet::teleporter::TELEPORTER_MESSENGER);
    let me = address_of(&key);
    info!(relayer = %me, "ICM relayer started");
    let task = tokio::spawn(async move {
        let mut pending: std::collections::VecDeque<Pending> = Default::default();
        loop {
            for chain in evm.served() {
                let from = cursor.heights.entry(chain.blockchain_id()).or_insert(0);
                let head = chain.height();
                for number in *from + 1..=head {
                    let Some(block) = chain.block_by_number(number) else {
                        break;
                    };
                    pending.extend(messages_in(&block, teleporter, me, &evm));
                    *from = number;
                }
            }
            while pending.len() > MAX_PENDING {
                if let Some(dropped) = pending.pop_front() {
                    warn!(message = %dropped.message.id(), "ICM message dropped: too many waiting");
                }
            }
            let now = tokio::time::Instant::now();
            let mut waiting = std::collections::VecDeque::with_capacity(pending.len());
            for mut p in std::mem::take(&mut pending) {
                if p.due > now {
                    waiting.push_back(p);
                    continue;
                }
                if arrived(&evm, &p) {
                    debug!(message = %p.message.id(), "ICM message delivered");
                    continue;
                }
                match deliver(&evm, &aggregator, &key, &p).await {
                    Ok(hash) => {
                        debug!(message = %p.message.id(), %hash, "ICM delivery pooled");
                        p.due = now + LANDING;
                    }
                    Err(error) => {
                        p.attempts += 1;
                        if p.attempts == MAX_ATTEMPTS {
                            warn!(message = %p.message.id(), %error, "ICM delivery keeps failing: trying every 30 s");
                        } else {
                            debug!(message = %p.message.id(), %error, "ICM delivery to try again");
                        }
                        p.due = now + (POLL * 2u32.pow(p.attempts.min(9))).min(MAX_BACKOFF);
                    }
                }
                waiting.push_back(p);
            }
            pending = waiting;
            cursor.save(pending.make_contiguous());
            tokio::select! {
                _ = tokio::time::sleep(POLL) => {}
                _ = stopped.changed() => return,
            }
        }
    });
    Relayer { stop, task }
}

/// Whether `p`'s destination has received it (Teleporter's `messageReceived`).
fn arrived(evm: &EvmChainsHandle, p: &Pending) -> bool {
    let Some(chain) = evm.chain(&p.destination) else {
        return false;
    };
    let teleporter = Address::from(firn_devnet::teleporter::TELEPORTER_MESSENGER);
    let input = calldata("messageReceived(bytes32)", &[Arg::Word(p.id)]);
    crate::history::evm_tx::call_uint(&chain, teleporter, input) == U256::from(1)
}

/// The Warp messages the messenger sent in `block`, with the Teleporter message each carries.
pub(crate) fn teleporter_messages(
    block: &firn_evm::Block,
) -> Vec<(UnsignedMessage, TeleporterMessage)> {
    let messenger = firn_devnet::teleporter::TELEPORTER_MESSENGER;
    calls_from(block, &messenger)
        .into_iter()
        .filter_map(|(unsigned, call)| Some((unsigned, TeleporterMessage::decode(&call.payload)?)))
        .collect()
}

/// The Warp messages `block` sent from the contract at `source`, with the `AddressedCall`
/// each carries.
pub(crate) fn calls_from(
    block: &firn_evm::Block,
    source: &[u8],
) -> Vec<(UnsignedMessage, AddressedCall)> {
    sent_messages(block)
        .into_iter()
        .filter_map(|(_, bytes)| {
            let unsigned = UnsignedMessage::from_bytes(&bytes).ok()?;
            let Ok(Payload::AddressedCall(call)) = Payload::from_bytes(&unsigned.payload) else {
                return None;
            };
            (call.source_address == source).then_some((unsigned, call))
        })
        .collect()
}

/// The Teleporter messages `block` sent that relayer `me` may deliver to a chain it serves.
fn messages_in(
    block: &firn_evm::Block,
    teleporter: Address,
    me: Address,
    evm: &EvmChainsHandle,
) -> Vec<Pending> {
    let mut out = Vec::new();
    for (message, sent) in teleporter_messages(block) {
        let allowed = &sent.allowed_relayers;
        if evm.chain(&sent.destination_blockchain_id).is_none()
            || !(allowed.is_empty() || allowed.contains(&me))
        {
            continue;
        }
        let source = Id(message.source_chain_id.0);
        let id = sent.id(teleporter, source);
        out.push(Pending {
            message,
            id: B256::new(id.0),
            source: B256::new(source.0),
            block: block.header.number,
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
    let input = calldata(
        "receiveCrossChainMessage(uint32,address)",
        &[Arg::Uint(U256::ZERO), Arg::Addr(address_of(key))],
    );
    let teleporter = Address::from(firn_devnet::teleporter::TELEPORTER_MESSENGER);
    send_with_predicate(chain, key, teleporter, input, signed)
}

/// Sends `input` to `to` from `key` with `signed` as the tx's only Warp predicate (message
/// index 0); returns the tx's hash, or why it was not sent.
pub(crate) fn send_with_predicate(
    chain: &EvmChain,
    key: &PrivateKey,
    to: Address,
    input: Vec<u8>,
    signed: &firn_core::warp::Message,
) -> Result<B256, String> {
    let list = AccessList(vec![AccessListItem {
        address: WARP_ADDRESS,
        storage_keys: pack(&signed.bytes()).into_iter().map(B256::from).collect(),
    }]);
    send_with_access_list(chain, key, Some(to), U256::ZERO, input, list)
}
