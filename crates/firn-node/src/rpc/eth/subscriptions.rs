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

use std::sync::Arc;

use firn_evm::{Block, LogFilter};
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

/// What a subscription reports.
enum Kind {
    Heads,
    Logs(Box<FilterArgs>),
    Pending { full: bool },
    Accepted { full: bool },
}

/// Starts the subscription `params` ask for.
pub fn subscribe(node: State, params: Vec<Box<RawValue>>) -> Result<Notifications, ErrorObject> {
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
async fn send(tx: &mpsc::Sender<Box<RawValue>>, value: &impl Serialize) -> bool {
    match serde_json::value::to_raw_value(value) {
        Ok(raw) => tx.send(raw).await.is_ok(),
        Err(_) => true,
    }
}

/// Follows the accepted blocks from the next one on.
async fn blocks(node: &EvmNode, kind: &Kind, tx: &mpsc::Sender<Box<RawValue>>) {
    let mut head = node.chain.watch_head();
    let mut next = node.chain.height() + 1;
    loop {
        tokio::select! {
            () = tx.closed() => return,
            changed = head.changed() => if changed.is_err() { return },
        }
        while next <= node.chain.height() {
            let Some(block) = node.chain.block_by_number(next) else {
                break;
            };
            if !block_notifications(kind, &block, tx).await {
                return;
            }
            next += 1;
        }
    }
}

/// Sends what `block` holds for the subscription; false once the client is gone.
async fn block_notifications(
    kind: &Kind,
    block: &Arc<Block>,
    tx: &mpsc::Sender<Box<RawValue>>,
) -> bool {
    match kind {
        Kind::Heads => send(tx, &header_json(block)).await,
        Kind::Logs(criteria) => {
            let filter = LogFilter {
                from: block.header.number,
                to: block.header.number,
                addresses: criteria.addresses.clone(),
                topics: criteria.topics.clone(),
            };
            for log in firn_evm::block_logs(block, Some(&filter)) {
                if !send(tx, &log_json(&log)).await {
                    return false;
                }
            }
            true
        }
        Kind::Accepted { full } => {
            for (i, t) in block.txs.iter().enumerate() {
                let sent = if *full {
                    send(tx, &tx_json(t, Some((block, i)))).await
                } else {
                    send(tx, &t.hash).await
                };
                if !sent {
                    return false;
                }
            }
            true
        }
        // Pool arrivals are not in blocks: `pending` follows them.
        Kind::Pending { .. } => true,
    }
}

/// Follows the pool's arrivals from now on.
async fn pending(node: &EvmNode, full: bool, tx: &mpsc::Sender<Box<RawValue>>) {
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
