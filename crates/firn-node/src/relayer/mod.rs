//! An ICM relayer, as icm-services' relayer works on public networks: it reads each block of
//! every chain it serves for Teleporter messages (`sendWarpMessage` calls from the messenger's
//! address), asks the source subnet's validators to sign each with firn's aggregator, and
//! delivers it on the destination chain with `receiveCrossChainMessage`, the signed message
//! carried as a Warp predicate. A message it may not deliver (another chain, a relayer list
//! without it) is skipped; one whose signing or delivery fails, or whose delivery does not land,
//! is tried again with backoff (after [`MAX_ATTEMPTS`], every [`MAX_BACKOFF`]) until the
//! destination has received it. Where it has read each chain up to is kept in a file
//! ([`CURSOR_FILE`] in the node's data dir), never past a message still waiting, so a restart
//! relays what was sent while it was down. Fees the messages pay accrue to its own address as
//! receipts come back.
//!
//! One loop ([`run`]) over two kinds of chains ([`RelayChain`]):
//! - [`node`]: the node's own EVM chains, read and written in process (`firn up`, `firn devnet`);
//! - [`rpc`]: any nodes' chains over their JSON-RPC (`firn relay`), signed through a node's
//!   validators with firn's aggregator, or by a Data API's `aggregateSignatures`.
//!
//! Whatever signs is a [`WarpSigner`]: firn's [`Aggregator`] over some validators, or (in the
//! `firn` binary) a Data API.

pub mod node;
pub mod rpc;

use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use alloy_primitives::{Address, B256};
use firn_aggregator::{AggregationRequest, Aggregator, BoxFuture};
use firn_core::ids::Id;
use firn_core::keys::secp256k1::PrivateKey;
use firn_core::teleporter::TeleporterMessage;
use firn_core::warp::{Message, UnsignedMessage};
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tracing::{debug, warn};

pub use node::spawn;
pub(crate) use node::{calls_from, send_with_predicate, submit_delivery, teleporter_messages};

/// How often chains are read for new blocks.
const POLL: Duration = Duration::from_millis(100);
/// Tries per message with a growing backoff; after them a message is tried every
/// [`MAX_BACKOFF`] for as long as the relayer runs (a fee spike or a signer down passes).
pub const MAX_ATTEMPTS: u32 = 12;
/// The longest wait between two tries of one message.
pub const MAX_BACKOFF: Duration = Duration::from_secs(30);
/// How long after a delivery is pooled it is checked for having landed.
const LANDING: Duration = Duration::from_secs(2);
/// Messages waiting at most; beyond, the oldest is dropped (logged), so a flood of messages
/// that cannot be delivered does not grow memory.
pub const MAX_PENDING: usize = 10_000;
/// Blocks of one chain read in one round at most, so one chain far behind does not starve the
/// others (nor ask a node for an unbounded log range).
const MAX_BLOCKS_PER_ROUND: u64 = 1_000;
/// The file in the data dir that keeps, per chain, the block the relayer has read up to.
pub const CURSOR_FILE: &str = "relayer.json";

/// Gets a Warp message signed by its source subnet's validators.
pub trait WarpSigner: Send + Sync + 'static {
    /// `message` signed by a quorum of its source's validators, or why not.
    fn sign<'a>(&'a self, message: &'a UnsignedMessage) -> BoxFuture<'a, Result<Message, String>>;
}

impl WarpSigner for Aggregator {
    fn sign<'a>(&'a self, message: &'a UnsignedMessage) -> BoxFuture<'a, Result<Message, String>> {
        Box::pin(async move {
            self.aggregate(AggregationRequest::new(message.clone()))
                .await
                .map(|signed| signed.message)
                .map_err(|e| e.to_string())
        })
    }
}

/// A Teleporter message one block sent.
#[derive(Debug)]
pub struct Sent {
    /// The block that sent it.
    pub block: u64,
    /// The Warp message carrying it.
    pub unsigned: UnsignedMessage,
    /// The Teleporter message.
    pub message: TeleporterMessage,
}

/// A chain the relayer reads sends from and delivers to.
pub trait RelayChain: Send + Sync + 'static {
    /// Its blockchain ID.
    fn blockchain_id(&self) -> B256;
    /// Its newest block's number.
    fn head(&self) -> impl Future<Output = Result<u64, String>> + Send;
    /// The Teleporter messages blocks `from..=to` sent.
    fn sent(&self, from: u64, to: u64) -> impl Future<Output = Result<Vec<Sent>, String>> + Send;
    /// Whether the message with Teleporter ID `id` was received here.
    fn received(&self, id: B256) -> impl Future<Output = bool> + Send;
    /// Whether the tx `hash` waits in the pool (known, not yet in a block).
    fn pooled(&self, hash: B256) -> impl Future<Output = bool> + Send;
    /// Delivers `signed` with `receiveCrossChainMessage` from `key`; the tx's hash.
    fn deliver(
        &self,
        key: &PrivateKey,
        signed: &Message,
    ) -> impl Future<Output = Result<B256, String>> + Send;
}

/// The chains a relayer serves, read again every round (a node boots chains as it goes).
pub trait RelayChains: Send + Sync + 'static {
    /// The chain type.
    type Chain: RelayChain;
    /// The chains served now.
    fn chains(&self) -> Vec<Arc<Self::Chain>>;
}

/// A message waiting to be delivered.
struct Pending {
    message: UnsignedMessage,
    /// Its Teleporter message ID, to ask the destination whether it arrived.
    id: B256,
    source: B256,
    /// The source block that sent it: the cursor does not pass it while it waits.
    block: u64,
    destination: B256,
    attempts: u32,
    due: tokio::time::Instant,
    /// The last delivery pooled, and since when: while it waits in the pool (a fee spike), no
    /// other is sent, up to [`MAX_BACKOFF`].
    delivery: Option<(B256, tokio::time::Instant)>,
}

/// A running relayer: stopped with [`Relayer::stop`] or on drop.
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
    path: PathBuf,
    heights: HashMap<B256, u64>,
    saved: HashMap<B256, u64>,
}

impl Cursor {
    /// The cursor saved in `path`, if any.
    fn load(path: PathBuf) -> Self {
        let saved: HashMap<B256, u64> = std::fs::read(&path)
            .ok()
            .and_then(|bytes| serde_json::from_slice::<HashMap<String, u64>>(&bytes).ok())
            .map(|m| {
                m.into_iter()
                    .filter_map(|(k, v)| Some((k.parse::<B256>().ok()?, v)))
                    .collect()
            })
            .unwrap_or_default();
        Self {
            path,
            heights: saved.clone(),
            saved,
        }
    }

    /// Saves, per chain, the block before the oldest message still waiting (or the head read),
    /// if that moved; a failure is logged and tried again next round.
    fn save(&mut self, pending: &VecDeque<Pending>) {
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

/// Relays between `chains` from `cursor_file`'s positions, signing with `signer` and paying
/// with `key`, until stopped. A chain the cursor does not name starts at its head in `heads`
/// (read before the caller reports the relayer running: its earlier messages were never this
/// relayer's); a chain that appears later is read from its first block.
pub fn run<C: RelayChains>(
    chains: C,
    heads: Vec<(B256, u64)>,
    signer: Arc<dyn WarpSigner>,
    key: PrivateKey,
    cursor_file: PathBuf,
) -> Relayer {
    let (stop, mut stopped) = watch::channel(false);
    let teleporter = Address::from(firn_devnet::teleporter::TELEPORTER_MESSENGER);
    let me = Address::from(key.public_key().eth_address());
    tracing::info!(relayer = %me, "ICM relayer started");
    let task = tokio::spawn(async move {
        let mut cursor = Cursor::load(cursor_file);
        for (chain, head) in heads {
            cursor.heights.entry(chain).or_insert(head);
        }
        let mut pending: VecDeque<Pending> = VecDeque::new();
        loop {
            let served = chains.chains();
            for chain in &served {
                read_new_blocks(
                    chain.as_ref(),
                    &served,
                    &mut cursor,
                    teleporter,
                    me,
                    &mut pending,
                )
                .await;
            }
            while pending.len() > MAX_PENDING {
                if let Some(dropped) = pending.pop_front() {
                    warn!(message = %dropped.message.id(), "ICM message dropped: too many waiting");
                }
            }
            pending = try_deliveries(pending, &served, signer.as_ref(), &key).await;
            cursor.save(&pending);
            tokio::select! {
                _ = tokio::time::sleep(POLL) => {}
                _ = stopped.changed() => return,
            }
        }
    });
    Relayer { stop, task }
}

/// Reads `chain`'s blocks past the cursor (at most [`MAX_BLOCKS_PER_ROUND`]) into `pending`.
async fn read_new_blocks<R: RelayChain>(
    chain: &R,
    served: &[Arc<R>],
    cursor: &mut Cursor,
    teleporter: Address,
    me: Address,
    pending: &mut VecDeque<Pending>,
) {
    let head = match chain.head().await {
        Ok(head) => head,
        Err(error) => {
            debug!(chain = %chain.blockchain_id(), %error, "reading a chain's head");
            return;
        }
    };
    let from = *cursor.heights.entry(chain.blockchain_id()).or_insert(0);
    if head <= from {
        return;
    }
    let to = head.min(from + MAX_BLOCKS_PER_ROUND);
    let sent = match chain.sent(from + 1, to).await {
        Ok(sent) => sent,
        Err(error) => {
            debug!(chain = %chain.blockchain_id(), %error, "reading a chain's sends");
            return;
        }
    };
    for s in sent {
        let allowed = &s.message.allowed_relayers;
        let destination = B256::from(s.message.destination_blockchain_id.0);
        if !served.iter().any(|c| c.blockchain_id() == destination)
            || !(allowed.is_empty() || allowed.contains(&me))
        {
            continue;
        }
        let source = Id(s.unsigned.source_chain_id.0);
        let id = s.message.id(teleporter, source);
        pending.push_back(Pending {
            message: s.unsigned,
            id: B256::new(id.0),
            source: B256::new(source.0),
            block: s.block,
            destination,
            attempts: 0,
            due: tokio::time::Instant::now(),
            delivery: None,
        });
    }
    cursor.heights.insert(chain.blockchain_id(), to);
}

/// Tries every due message in `pending`; returns those still waiting.
async fn try_deliveries<R: RelayChain>(
    pending: VecDeque<Pending>,
    served: &[Arc<R>],
    signer: &dyn WarpSigner,
    key: &PrivateKey,
) -> VecDeque<Pending> {
    let now = tokio::time::Instant::now();
    let mut waiting = VecDeque::with_capacity(pending.len());
    for mut p in pending {
        if p.due > now {
            waiting.push_back(p);
            continue;
        }
        let Some(chain) = served.iter().find(|c| c.blockchain_id() == p.destination) else {
            waiting.push_back(p);
            continue;
        };
        if chain.received(p.id).await {
            debug!(message = %p.message.id(), "ICM message delivered");
            continue;
        }
        if let Some((hash, since)) = p.delivery
            && now.duration_since(since) < MAX_BACKOFF
            && chain.pooled(hash).await
        {
            p.due = now + LANDING;
            waiting.push_back(p);
            continue;
        }
        let delivered = match signer.sign(&p.message).await {
            Ok(signed) if signed.unsigned == p.message => chain.deliver(key, &signed).await,
            Ok(_) => Err("the signer signed another message".to_owned()),
            Err(e) => Err(e),
        };
        match delivered {
            Ok(hash) => {
                debug!(message = %p.message.id(), %hash, "ICM delivery pooled");
                p.due = now + LANDING;
                p.delivery = Some((hash, now));
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
    waiting
}
