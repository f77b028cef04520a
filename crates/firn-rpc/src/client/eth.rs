//! The go-ethereum-style client: positional params and batches.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;

use super::{ClientConfig, ClientError, ResponseObject, Transport, decode_deep};
use crate::error::ErrorObject;

/// A client for one go-ethereum-style endpoint (`http://node:9650/ext/bc/C/rpc`).
///
/// Cheap to clone; clones share the connection pool and the request id counter.
#[derive(Debug, Clone)]
pub struct EthClient {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    transport: Transport,
    next_id: AtomicU64,
}

#[derive(Serialize)]
struct Request<'a> {
    jsonrpc: &'static str,
    id: u64,
    method: &'a str,
    params: &'a RawValue,
}

/// Encodes params as a JSON array (`()` → `[]`, a tuple → its elements).
fn encode_params<P: Serialize>(method: &str, params: &P) -> Result<Box<RawValue>, ClientError> {
    let value = serde_json::to_value(params).map_err(|source| ClientError::Encode {
        method: method.to_owned(),
        source,
    })?;
    let value = match value {
        serde_json::Value::Null => serde_json::Value::Array(Vec::new()),
        serde_json::Value::Array(a) => serde_json::Value::Array(a),
        other => serde_json::Value::Array(vec![other]),
    };
    serde_json::value::to_raw_value(&value).map_err(|source| ClientError::Encode {
        method: method.to_owned(),
        source,
    })
}

impl EthClient {
    /// A client for the endpoint at `url`.
    pub fn new(url: &str, config: ClientConfig) -> Result<Self, ClientError> {
        Ok(Self {
            inner: Arc::new(Inner {
                transport: Transport::new(url, config)?,
                next_id: AtomicU64::new(1),
            }),
        })
    }

    /// The endpoint URL.
    pub fn url(&self) -> &str {
        self.inner.transport.url()
    }

    /// Calls `method` with positional `params` (`()`, a tuple or a `Vec`; a single other value
    /// is sent as a one-element array) and decodes the result as `R`.
    pub async fn call<P: Serialize, R: DeserializeOwned>(
        &self,
        method: &str,
        params: P,
    ) -> Result<R, ClientError> {
        self.request(method, &params).await?.into_result(method)
    }

    /// As [`EthClient::call`], for a result nested deeper than serde_json's recursion limit
    /// allows (128 levels: a `callTracer` tree only ~60 calls deep): decoded on a stack that
    /// grows as needed. `R` itself must bound the depth it accepts (as
    /// [`crate::methods::eth::CallFrame`] does), or a hostile node could nest without end.
    pub async fn call_deep<P: Serialize, R: DeserializeOwned>(
        &self,
        method: &str,
        params: P,
    ) -> Result<R, ClientError> {
        self.request(method, &params)
            .await?
            .into_deep_result(method)
    }

    async fn request<P: Serialize>(
        &self,
        method: &str,
        params: &P,
    ) -> Result<ResponseObject, ClientError> {
        let params = encode_params(method, params)?;
        let id = self.inner.next_id.fetch_add(1, Ordering::Relaxed);
        let body = serde_json::to_vec(&Request {
            jsonrpc: "2.0",
            id,
            method,
            params: &params,
        })
        .map_err(|source| ClientError::Encode {
            method: method.to_owned(),
            source,
        })?;
        let transport = &self.inner.transport;
        let bytes = transport.post(body).await?;
        serde_json::from_slice(&bytes)
            .map_err(|e| transport.invalid(format!("not a JSON-RPC response: {e}")))
    }

    /// Starts a batch; add calls, then [`BatchRequest::send`] them in one HTTP request.
    pub fn batch(&self) -> BatchRequest<'_> {
        BatchRequest {
            client: self,
            calls: Vec::new(),
        }
    }
}

/// Calls collected for one batch request.
#[derive(Debug)]
pub struct BatchRequest<'a> {
    client: &'a EthClient,
    calls: Vec<(u64, String, Box<RawValue>)>,
}

impl BatchRequest<'_> {
    /// Adds a call; returns its index in the [`BatchResponse`].
    pub fn add<P: Serialize>(&mut self, method: &str, params: P) -> Result<usize, ClientError> {
        let params = encode_params(method, &params)?;
        let id = self.client.inner.next_id.fetch_add(1, Ordering::Relaxed);
        self.calls.push((id, method.to_owned(), params));
        Ok(self.calls.len() - 1)
    }

    /// How many calls were added.
    pub fn len(&self) -> usize {
        self.calls.len()
    }

    /// Whether no call was added.
    pub fn is_empty(&self) -> bool {
        self.calls.is_empty()
    }

    /// Sends the batch. The whole batch fails on transport errors and when the server refuses
    /// it as a whole (e.g. `batch too large`); otherwise each call has its own outcome, in the
    /// order the calls were added, whatever order the server answered in.
    pub async fn send(self) -> Result<BatchResponse, ClientError> {
        if self.calls.is_empty() {
            return Ok(BatchResponse { items: Vec::new() });
        }
        let requests: Vec<Request<'_>> = self
            .calls
            .iter()
            .map(|(id, method, params)| Request {
                jsonrpc: "2.0",
                id: *id,
                method,
                params,
            })
            .collect();
        let body = serde_json::to_vec(&requests).map_err(|source| ClientError::Encode {
            method: "batch".to_owned(),
            source,
        })?;
        let transport = &self.client.inner.transport;
        let bytes = transport.post(body).await?;
        // Parsed straight into responses whose results stay raw text: each is decoded once,
        // into its own type, by `BatchResponse::get` (no intermediate `Value` tree).
        let is_array = bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[');
        if !is_array {
            let single: ResponseObject = serde_json::from_slice(&bytes)
                .map_err(|e| transport.invalid(format!("not a JSON-RPC response: {e}")))?;
            return Err(match single.error {
                Some(e) => ClientError::Rpc(e),
                None => transport.invalid("a single response to a batch"),
            });
        }
        let responses: Vec<ResponseObject> = serde_json::from_slice(&bytes)
            .map_err(|e| transport.invalid(format!("not a batch response: {e}")))?;
        // geth answers an oversized batch with one error for the whole batch.
        if responses.len() == 1
            && self.calls.len() > 1
            && let Some(error) = responses.first().and_then(|r| r.error.clone())
            && error.code == crate::error::INVALID_REQUEST
        {
            return Err(ClientError::Rpc(error));
        }
        let mut by_id: HashMap<u64, ResponseObject> = HashMap::with_capacity(responses.len());
        for r in responses {
            let id =
                r.id.as_deref()
                    .and_then(|raw| serde_json::from_str::<u64>(raw.get()).ok());
            if let Some(id) = id {
                by_id.insert(id, r);
            }
        }
        let items = self
            .calls
            .iter()
            .map(|(id, method, _)| match by_id.remove(id) {
                Some(r) => match r.error {
                    Some(e) => Item::Error(e),
                    None => Item::Result {
                        method: method.clone(),
                        raw: r.result,
                    },
                },
                None => Item::Missing(*id),
            })
            .collect();
        Ok(BatchResponse { items })
    }
}

#[derive(Debug)]
enum Item {
    Result {
        method: String,
        raw: Option<Box<RawValue>>,
    },
    Error(ErrorObject),
    Missing(u64),
}

/// The outcomes of a batch, in the order the calls were added.
#[derive(Debug)]
pub struct BatchResponse {
    items: Vec<Item>,
}

impl BatchResponse {
    /// How many calls the batch had.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether the batch was empty.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The outcome of call `index` decoded as `R`.
    pub fn get<R: DeserializeOwned>(&self, index: usize) -> Result<R, ClientError> {
        match self.items.get(index) {
            Some(Item::Result { method, raw }) => {
                let text = raw.as_deref().map_or("null", RawValue::get);
                serde_json::from_str(text).map_err(|source| ClientError::Decode {
                    method: method.clone(),
                    source,
                })
            }
            Some(Item::Error(e)) => Err(ClientError::Rpc(e.clone())),
            Some(Item::Missing(id)) => Err(ClientError::MissingResponse { id: *id }),
            None => Err(ClientError::MissingResponse { id: index as u64 }),
        }
    }

    /// As [`BatchResponse::get`], for results nested deeper than serde_json's recursion limit
    /// (see [`EthClient::call_deep`]).
    pub fn get_deep<R: DeserializeOwned>(&self, index: usize) -> Result<R, ClientError> {
        match self.items.get(index) {
            Some(Item::Result { method, raw }) => decode_deep(method, raw.as_deref()),
            _ => self.get(index),
        }
    }

    /// Every outcome as raw JSON, in order.
    pub fn into_raw(self) -> Vec<Result<Box<RawValue>, ClientError>> {
        self.items
            .into_iter()
            .map(|item| match item {
                Item::Result { raw, .. } => Ok(raw.unwrap_or_else(null_raw)),
                Item::Error(e) => Err(ClientError::Rpc(e)),
                Item::Missing(id) => Err(ClientError::MissingResponse { id }),
            })
            .collect()
    }
}

fn null_raw() -> Box<RawValue> {
    RawValue::NULL.to_owned()
}
