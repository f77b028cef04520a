//! `eth_subscribe` over WebSocket: `newHeads` (each accepted block's header), `logs` (each
//! matching log of each accepted block), `newPendingTransactions` (each tx entering the pool;
//! the whole tx with `true`) and coreth's `newAcceptedTransactions` (each tx of each accepted
//! block; the whole tx with `true`).
//!
//! A subscription is a task that waits on the chain's head or pool, reads what is new from the
//! chain itself and sends it, one notification at a time, into a small channel. A client that
//! reads slowly makes the task wait; it then goes on from where it stopped (blocks are read by
//! number, so none is skipped; pool arrivals are remembered for a while). The task ends when
//! the client unsubscribes or leaves.
//!
//! A block's notifications are serialized once, by the first subscription that needs them, and
//! shared by every other ([`Payloads`], the last [`RECENT_BLOCKS`] blocks): a thousand
//! `newHeads` subscribers cost one header's JSON a block, not a thousand.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, OnceLock};

use firn_evm::{Block, LogEntry, LogFilter};
use firn_rpc::ErrorObject;
use firn_rpc::error::{INVALID_PARAMS, METHOD_NOT_FOUND};
use firn_rpc::ws::Notifications;
use serde::Serialize;
use serde_json::value::RawValue;
use tokio::sync::mpsc;

use super::params::FilterArgs;
use super::shapes::{header_json, log_json, tx_json};
use super::{EvmNode, State};

/// Notifications a subscription has ready before it waits for the client.
const BUFFER: usize = 64;
/// Blocks whose serialized notifications are kept for the subscriptions still sending them.
pub const RECENT_BLOCKS: usize = 32;

/// One accepted block's notifications, each serialized on first use.
struct BlockPayloads {
    block: Arc<Block>,
    header: OnceLock<Arc<str>>,
    logs: OnceLock<Vec<(LogEntry, Arc<str>)>>,
    tx_hashes: OnceLock<Vec<Arc<str>>>,
    txs: OnceLock<Vec<Arc<str>>>,
}

fn json(value: &impl Serialize) -> Arc<str> {
    serde_json::to_string(value).map_or_else(|_| Arc::from("null"), Arc::from)
}

impl BlockPayloads {
    fn header(&self) -> &Arc<str> {
        self.header.get_or_init(|| json(&header_json(&self.block)))
    }

    fn logs(&self) -> &[(LogEntry, Arc<str>)] {
        self.logs.get_or_init(|| {
            firn_evm::block_logs(&self.block, None)
                .into_iter()
                .map(|l| {
                    let text = json(&log_json(&l));
                    (l, text)
                })
                .collect()
        })
    }

    fn txs(&self, full: bool) -> &[Arc<str>] {
        let b = &self.block;
        if full {
            self.txs.get_or_init(|| {
                b.txs
                    .iter()
                    .enumerate()
                    .map(|(i, t)| json(&tx_json(t, Some((b, i)))))
                    .collect()
            })
        } else {
            self.tx_hashes
                .get_or_init(|| b.txs.iter().map(|t| json(&t.hash)).collect())
        }
    }
}

/// The notifications of the last [`RECENT_BLOCKS`] blocks, shared by every subscription.
#[derive(Default)]
pub struct Payloads {
    recent: Mutex<VecDeque<Arc<BlockPayloads>>>,
}

impl std::fmt::Debug for Payloads {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Payloads").finish_non_exhaustive()
    }
}

impl Payloads {
    /// Block `number`'s payloads (`None` when the chain has no such block).
    fn of(&self, node: &EvmNode, number: u64) -> Option<Arc<BlockPayloads>> {
        let mut recent = self.recent.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(p) = recent.iter().find(|p| p.block.header.number == number) {
            return Some(p.clone());
        }
        let block = node.chain.block_by_number(number)?;
        let p = Arc::new(BlockPayloads {
            block,
            header: OnceLock::new(),
            logs: OnceLock::new(),
            tx_hashes: OnceLock::new(),
            txs: OnceLock::new(),
        });
        if recent.len() == RECENT_BLOCKS {
            recent.pop_front();
        }
        recent.push_back(p.clone());
        Some(p)
    }
}

/// What a subscription reports.
enum Kind {
    Heads,
    Logs(Box<FilterArgs>),
    Pending { full: bool },
    Accepted { full: bool },
}

/// Starts the subscription `params` ask for: `eth_subscribe`'s here, `debug_subscribe`'s in
/// [`super::trace_chain`].
pub fn subscribe(
    node: State,
    namespace: &str,
    params: Vec<Box<RawValue>>,
) -> Result<Notifications, ErrorObject> {
    match namespace {
        "eth" => {}
        "debug" => return super::trace_chain::subscribe(node, params),
        other => {
            return Err(ErrorObject::new(
                METHOD_NOT_FOUND,
                format!("the method {other}_subscribe does not exist/is not available"),
            ));
        }
    }
    let kind = kind(&params)?;
    let (tx, rx) = mpsc::channel(BUFFER);
    tokio::spawn(async move {
        match kind {
            Kind::Pending { full } => pending(&node, full, &tx).await,
            kind => blocks(&node, &kind, &tx).await,
        }
    });
    Ok(rx)
}

fn kind(params: &[Box<RawValue>]) -> Result<Kind, ErrorObject> {
    let arg = |i: usize| params.get(i).map(|p| p.get());
    let name: String = arg(0)
        .map(firn_rpc::params::from_str)
        .transpose()
        .map_err(|e| ErrorObject::new(INVALID_PARAMS, format!("invalid argument 0: {e}")))?
        .ok_or_else(|| ErrorObject::new(INVALID_PARAMS, "missing value for required argument 0"))?;
    let full = || -> Result<bool, ErrorObject> {
        arg(1)
            .map(firn_rpc::params::from_str::<Option<bool>>)
            .transpose()
            .map(|f| f.flatten().unwrap_or(false))
            .map_err(|e| ErrorObject::new(INVALID_PARAMS, format!("invalid argument 1: {e}")))
    };
    Ok(match name.as_str() {
        "newHeads" => Kind::Heads,
        "logs" => {
            let criteria: FilterArgs = match arg(1) {
                Some(raw) => firn_rpc::params::from_str(raw).map_err(|e| {
                    ErrorObject::new(INVALID_PARAMS, format!("invalid argument 1: {e}"))
                })?,
                None => FilterArgs::default(),
            };
            if criteria.block_hash.is_some() || criteria.from.is_some() || criteria.to.is_some() {
                return Err(ErrorObject::server(
                    "a logs subscription takes addresses and topics only: it reports the logs \
                     of blocks accepted from now on",
                ));
            }
            Kind::Logs(Box::new(criteria))
        }
        "newPendingTransactions" => Kind::Pending { full: full()? },
        "newAcceptedTransactions" => Kind::Accepted { full: full()? },
        other => {
            return Err(ErrorObject::new(
                METHOD_NOT_FOUND,
                format!("no {other:?} subscription in eth namespace"),
            ));
        }
    })
}

/// Sends `value`; false once the client is gone.
async fn send(tx: &mpsc::Sender<Arc<str>>, value: &impl Serialize) -> bool {
    tx.send(json(value)).await.is_ok()
}

/// Follows the accepted blocks from the next one on.
async fn blocks(node: &EvmNode, kind: &Kind, tx: &mpsc::Sender<Arc<str>>) {
    let mut head = node.chain.watch_head();
    let mut next = node.chain.height() + 1;
    let filter = match kind {
        Kind::Logs(c) => Some(LogFilter {
            from: 0,
            to: u64::MAX,
            addresses: c.addresses.clone(),
            topics: c.topics.clone(),
        }),
        _ => None,
    };
    loop {
        tokio::select! {
            () = tx.closed() => return,
            changed = head.changed() => if changed.is_err() { return },
        }
        while next <= node.chain.height() {
            let Some(block) = node.payloads.of(node, next) else {
                break;
            };
            let sent = match (kind, &filter) {
                (Kind::Heads, _) => send_all(tx, std::iter::once(block.header())).await,
                (Kind::Logs(_), Some(f)) => {
                    let matching = block.logs().iter().filter(|(l, _)| f.matches(&l.log));
                    send_all(tx, matching.map(|(_, text)| text)).await
                }
                (Kind::Accepted { full }, _) => send_all(tx, block.txs(*full).iter()).await,
                // Pool arrivals are not in blocks: `pending` follows them.
                _ => true,
            };
            if !sent {
                return;
            }
            next += 1;
        }
    }
}

/// Sends each of `items`; false once the client is gone.
async fn send_all<'a>(
    tx: &mpsc::Sender<Arc<str>>,
    items: impl Iterator<Item = &'a Arc<str>>,
) -> bool {
    for item in items {
        if tx.send(item.clone()).await.is_err() {
            return false;
        }
    }
    true
}

/// Follows the pool's arrivals from now on.
async fn pending(node: &EvmNode, full: bool, tx: &mpsc::Sender<Arc<str>>) {
    let mut pool = node.chain.watch_pool();
    let mut next = node.chain.pool_arrivals();
    loop {
        tokio::select! {
            () = tx.closed() => return,
            changed = pool.changed() => if changed.is_err() { return },
        }
        let (hashes, after) = node.chain.pooled_since(next);
        next = after;
        for hash in hashes {
            let sent = if full {
                match node.chain.transaction(&hash) {
                    Some(found) => {
                        let at = found.block.as_ref().map(|(b, i)| (&**b, *i));
                        send(tx, &tx_json(&found.tx, at)).await
                    }
                    None => true,
                }
            } else {
                send(tx, &hash).await
            };
            if !sent {
                return;
            }
        }
    }
}
