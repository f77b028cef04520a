//! The go-ethereum envelope over WebSocket (what AvalancheGo serves at `/ext/bc/<chain>/ws`):
//! every call an [`EthServer`] answers over HTTP, plus `<namespace>_subscribe` (`eth_subscribe`,
//! `debug_subscribe`) and `_unsubscribe` when it has a [`SubscribeFn`].
//!
//! A subscription is a channel of notification results that the endpoint fills; each one
//! reaches the client as geth writes it:
//! `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":ID,"result":…}}`
//! (`debug_subscription` for `debug_subscribe`'s).
//! Bounded, so that no client can make a server hold without limit what it does not read:
//! - a process holds at most [`MAX_SOCKETS`] connections, each at most [`MAX_SUBSCRIPTIONS`];
//! - notifications wait in a queue of [`OUTBOX`] messages; a full queue makes the
//!   subscriptions wait (their producers block, and read what they missed when they resume);
//! - a frame the client does not take within [`WRITE_TIMEOUT`] closes the connection, and so
//!   does a message larger than the router's body limit;
//! - the server pings every [`PING_INTERVAL`].
//!
//! Calls are answered in order, one at a time per connection. Subscriptions inside a batch are
//! refused as over HTTP ("notifications not supported").

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::{Message, Utf8Bytes, WebSocket};
use serde::Deserialize;
use serde_json::value::RawValue;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tracing::debug;

use crate::error::{ErrorObject, INVALID_REQUEST, METHOD_NOT_FOUND};
use crate::eth::{EthServer, new_id};
use crate::server::Limits;

/// WebSocket connections open at once in one process (an upgraded connection no longer counts
/// against the HTTP server's connection limit); more are refused with a 503.
pub const MAX_SOCKETS: usize = 4_096;
/// Subscriptions one connection holds at most.
pub const MAX_SUBSCRIPTIONS: usize = 1_000;
/// Notifications queued for one connection at most.
pub const OUTBOX: usize = 1_024;
/// Time a frame may wait for the client to take it.
pub const WRITE_TIMEOUT: Duration = Duration::from_secs(10);
/// Time between the server's pings.
pub const PING_INTERVAL: Duration = Duration::from_secs(30);

/// What an endpoint's subscription sends: each item is one notification's `result`, as JSON
/// text (shared: one block's header can go to every subscriber without a copy per client).
pub type Notifications = mpsc::Receiver<Arc<str>>;

/// Starts a subscription from the state, the namespace (`eth` for `eth_subscribe`, `debug`
/// for `debug_subscribe`) and the params (`["newHeads"]`, `["logs", {…}]`, …): its
/// notifications, or the error to answer. The endpoint stops producing when the receiver is
/// dropped (the client unsubscribed or left).
pub type SubscribeFn<S> =
    Arc<dyn Fn(S, &str, Vec<Box<RawValue>>) -> Result<Notifications, ErrorObject> + Send + Sync>;

/// The error every transport without subscriptions answers them with (geth's).
pub(crate) fn notifications_unsupported() -> ErrorObject {
    ErrorObject::new(METHOD_NOT_FOUND, "notifications not supported")
}

/// Whether `method` starts or ends a subscription.
pub(crate) fn is_subscription_call(method: &str) -> bool {
    method.ends_with("_subscribe") || method.ends_with("_unsubscribe")
}

/// The parts of a single call a subscription needs.
#[derive(Deserialize)]
struct Call<'a> {
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(default)]
    method: String,
    #[serde(borrow, default)]
    params: Option<&'a RawValue>,
}

fn reply(id: Option<&RawValue>, outcome: Result<String, ErrorObject>) -> String {
    let id = id.map_or("null", RawValue::get);
    match outcome {
        Ok(result) => format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#),
        Err(e) => {
            let error = serde_json::to_string(&e).unwrap_or_else(|_| "{}".to_owned());
            format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{error}}}"#)
        }
    }
}

/// One connection's subscriptions: their forwarding tasks by ID.
struct Session<S> {
    server: Arc<EthServer<S>>,
    limits: Limits,
    subscriptions: HashMap<String, JoinHandle<()>>,
    outbox: mpsc::Sender<String>,
}

impl<S: Clone + Send + Sync + 'static> Session<S> {
    /// The reply to one incoming message (`None`: nothing is owed).
    async fn answer(&mut self, text: &str) -> Option<String> {
        let call = serde_json::from_str::<Call<'_>>(text)
            .ok()
            .filter(|c| is_subscription_call(&c.method));
        let Some(call) = call else {
            let out = self
                .server
                .call_raw(text.as_bytes(), self.limits.request_timeout)
                .await?;
            return Some(String::from_utf8_lossy(&out).into_owned());
        };
        let params: Vec<Box<RawValue>> = match call.params {
            None => Vec::new(),
            Some(p) => match serde_json::from_str(p.get()) {
                Ok(list) => list,
                Err(_) => {
                    return Some(reply(
                        call.id,
                        Err(ErrorObject::new(
                            INVALID_REQUEST,
                            "invalid request: params must be an array",
                        )),
                    ));
                }
            },
        };
        let method = call.method.as_str();
        let outcome = match (
            method.strip_suffix("_subscribe"),
            method.strip_suffix("_unsubscribe"),
        ) {
            (Some(namespace), _) => self.subscribe(namespace, params),
            (_, Some(_)) => self.unsubscribe(&params),
            _ => Err(ErrorObject::new(
                METHOD_NOT_FOUND,
                format!("the method {method} does not exist/is not available"),
            )),
        };
        Some(reply(call.id, outcome))
    }

    fn subscribe(
        &mut self,
        namespace: &str,
        params: Vec<Box<RawValue>>,
    ) -> Result<String, ErrorObject> {
        let Some(start) = self.server.subscriber() else {
            return Err(notifications_unsupported());
        };
        if self.subscriptions.len() >= MAX_SUBSCRIPTIONS {
            return Err(ErrorObject::server(format!(
                "too many subscriptions on this connection ({MAX_SUBSCRIPTIONS}): unsubscribe \
                 some first"
            )));
        }
        let mut notifications = start(self.server.state().clone(), namespace, params)?;
        let id = new_id();
        let out = self.outbox.clone();
        let sub = id.clone();
        let method = format!("{namespace}_subscription");
        let task = tokio::spawn(async move {
            while let Some(result) = notifications.recv().await {
                let message = format!(
                    r#"{{"jsonrpc":"2.0","method":"{method}","params":{{"subscription":"{sub}","result":{result}}}}}"#
                );
                if out.send(message).await.is_err() {
                    break;
                }
            }
        });
        self.subscriptions.insert(id.clone(), task);
        Ok(format!("\"{id}\""))
    }

    /// `eth_unsubscribe [id]`: `true`, or geth's error for an ID it never gave.
    fn unsubscribe(&mut self, params: &[Box<RawValue>]) -> Result<String, ErrorObject> {
        let id = params
            .first()
            .and_then(|p| serde_json::from_str::<String>(p.get()).ok());
        match id.and_then(|id| self.subscriptions.remove(&id)) {
            Some(task) => {
                task.abort();
                Ok("true".to_owned())
            }
            None => Err(ErrorObject::server("subscription not found")),
        }
    }
}

impl<S> Drop for Session<S> {
    fn drop(&mut self) {
        for task in self.subscriptions.values() {
            task.abort();
        }
    }
}

static SOCKETS: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(MAX_SOCKETS);

/// WebSocket connections open now, in this process.
pub fn open_sockets() -> usize {
    MAX_SOCKETS - SOCKETS.available_permits()
}

/// A place for one more connection, or `None` when [`MAX_SOCKETS`] are open.
pub(crate) fn socket_slot() -> Option<tokio::sync::SemaphorePermit<'static>> {
    SOCKETS.try_acquire().ok()
}

/// Sends `message` within [`WRITE_TIMEOUT`]; false when the connection is to close.
async fn send(socket: &mut WebSocket, message: Message) -> bool {
    matches!(
        tokio::time::timeout(WRITE_TIMEOUT, socket.send(message)).await,
        Ok(Ok(()))
    )
}

/// Serves one upgraded connection until the client leaves or stops reading.
pub(crate) async fn serve_socket<S: Clone + Send + Sync + 'static>(
    server: Arc<EthServer<S>>,
    mut socket: WebSocket,
    limits: Limits,
    _slot: tokio::sync::SemaphorePermit<'static>,
) {
    let (outbox, mut queued) = mpsc::channel::<String>(OUTBOX);
    let mut session = Session {
        server,
        limits,
        subscriptions: HashMap::new(),
        outbox,
    };
    let mut ping = tokio::time::interval(PING_INTERVAL);
    ping.tick().await;
    loop {
        let open = tokio::select! {
            incoming = socket.recv() => {
                let text = match incoming {
                    Some(Ok(Message::Text(t))) => t.to_string(),
                    Some(Ok(Message::Binary(b))) => String::from_utf8_lossy(&b).into_owned(),
                    Some(Ok(Message::Ping(_) | Message::Pong(_))) => continue,
                    Some(Ok(Message::Close(_))) => {
                        // Complete the closing handshake the client started.
                        let _ = send(&mut socket, Message::Close(None)).await;
                        break;
                    }
                    Some(Err(_)) | None => break,
                };
                match session.answer(&text).await {
                    Some(out) => send(&mut socket, Message::Text(Utf8Bytes::from(out))).await,
                    None => true,
                }
            }
            Some(out) = queued.recv() => send(&mut socket, Message::Text(Utf8Bytes::from(out))).await,
            _ = ping.tick() => send(&mut socket, Message::Ping(Default::default())).await,
        };
        if !open {
            debug!(target: "rpc", "closing a websocket that stopped taking frames");
            break;
        }
    }
}
