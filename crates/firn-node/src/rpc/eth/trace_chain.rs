//! `debug_subscribe ["traceChain", start, end, config?]` over WebSocket: every block after
//! `start` up to `end` traced with any of the tracers `debug_traceBlockByNumber` takes, one
//! notification a block (`{block, hash, traces}`), as geth's `debug_traceChain`. The blocks are
//! traced one at a time as the client reads them; a block that cannot be traced (its state
//! is past the kept history) ends the subscription, as in geth.

use std::sync::Arc;

use firn_rpc::ErrorObject;
use firn_rpc::error::{INVALID_PARAMS, METHOD_NOT_FOUND};
use firn_rpc::methods::debug::ChainTrace;
use firn_rpc::methods::eth::Quantity;
use firn_rpc::ws::Notifications;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use tokio::sync::mpsc;

use super::State;
use super::blocks::height_of;
use super::debug::{Tracer, trace_block};
use super::params::{BlockTag, TraceConfig};

/// Traced blocks waiting for the client.
const BUFFER: usize = 4;

fn arg<T: DeserializeOwned>(params: &[Box<RawValue>], i: usize) -> Result<Option<T>, ErrorObject> {
    params
        .get(i)
        .map(|p| firn_rpc::params::from_str(p.get()))
        .transpose()
        .map_err(|e| ErrorObject::new(INVALID_PARAMS, format!("invalid argument {i}: {e}")))
}

fn required<T: DeserializeOwned>(params: &[Box<RawValue>], i: usize) -> Result<T, ErrorObject> {
    arg(params, i)?.ok_or_else(|| {
        ErrorObject::new(
            INVALID_PARAMS,
            format!("missing value for required argument {i}"),
        )
    })
}

/// Starts a `debug` namespace subscription: `traceChain` is the only one.
pub fn subscribe(node: State, params: Vec<Box<RawValue>>) -> Result<Notifications, ErrorObject> {
    let name: String = required(&params, 0)?;
    if name != "traceChain" {
        return Err(ErrorObject::new(
            METHOD_NOT_FOUND,
            format!("no {name:?} subscription in debug namespace"),
        ));
    }
    let start: BlockTag = required(&params, 1)?;
    let end: BlockTag = required(&params, 2)?;
    let config: Option<TraceConfig> = arg(&params, 3)?;
    let tracer = Tracer::of(config.as_ref()).map_err(|e| e.0)?;
    let (from, to) = (height_of(&node, start), height_of(&node, end));
    for n in [from, to] {
        if node.chain.block_by_number(n).is_none() {
            return Err(ErrorObject::server(format!("block #{n} not found")));
        }
    }
    if from >= to {
        return Err(ErrorObject::server(format!(
            "end block (#{to}) needs to come after start block (#{from})"
        )));
    }
    let (tx, rx) = mpsc::channel::<Arc<str>>(BUFFER);
    tokio::spawn(async move {
        for n in from + 1..=to {
            let Some(block) = node.chain.block_by_number(n) else {
                break;
            };
            let hash = block.hash;
            let traces = match trace_block(node.clone(), block, tracer).await {
                Ok(t) => t,
                Err(e) => {
                    tracing::debug!(block = n, error = %e.0, "traceChain stopped");
                    break;
                }
            };
            let payload = ChainTrace {
                block: Quantity(n),
                hash,
                traces,
            };
            let text = serde_json::to_string(&payload).unwrap_or_else(|_| "null".to_owned());
            if tx.send(Arc::from(text)).await.is_err() {
                break;
            }
        }
    });
    Ok(rx)
}
