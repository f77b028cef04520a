//! The AvalancheGo-style client: object params, one call per HTTP request.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio::task::JoinSet;

use super::{ClientConfig, ClientError, ResponseObject, Transport};

/// A client for one AvalancheGo-style endpoint (`http://node:9650/ext/bc/P`, `/ext/info`, …).
///
/// Cheap to clone; clones share the connection pool and the request id counter.
#[derive(Debug, Clone)]
pub struct AvalancheClient {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    transport: Transport,
    next_id: AtomicU64,
}

#[derive(Serialize)]
struct Request<'a, P: ?Sized> {
    jsonrpc: &'static str,
    method: &'a str,
    params: &'a P,
    id: u64,
}

impl AvalancheClient {
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

    /// Calls the declared method `M` ([`crate::methods`]) with its params; its typed reply.
    pub async fn request<M: crate::methods::Method>(
        &self,
        params: &M::Params,
    ) -> Result<M::Reply, ClientError> {
        self.call(M::NAME, params).await
    }

    /// Calls `method` (`platform.getHeight`) with `params` (an object; `()` is sent as `{}`)
    /// and decodes the result as `R`.
    pub async fn call<P, R>(&self, method: &str, params: &P) -> Result<R, ClientError>
    where
        P: Serialize + ?Sized,
        R: DeserializeOwned,
    {
        let id = self.inner.next_id.fetch_add(1, Ordering::Relaxed);
        let mut params_json =
            serde_json::to_value(params).map_err(|source| ClientError::Encode {
                method: method.to_owned(),
                source,
            })?;
        if params_json.is_null() {
            params_json = serde_json::Value::Object(serde_json::Map::new());
        }
        let body = serde_json::to_vec(&Request {
            jsonrpc: "2.0",
            method,
            params: &params_json,
            id,
        })
        .map_err(|source| ClientError::Encode {
            method: method.to_owned(),
            source,
        })?;
        let transport = &self.inner.transport;
        let bytes = transport.post(body).await?;
        let response: ResponseObject = serde_json::from_slice(&bytes)
            .map_err(|e| transport.invalid(format!("not a JSON-RPC response: {e}")))?;
        response.into_result(method)
    }

    /// [`AvalancheClient::call_many`] for the declared method `M`.
    pub async fn request_many<M: crate::methods::Method>(
        &self,
        params: Vec<M::Params>,
        concurrency: usize,
    ) -> Vec<Result<M::Reply, ClientError>>
    where
        M::Params: Sync,
    {
        self.call_many(M::NAME, params, concurrency).await
    }

    /// Calls `method` once per element of `params`, at most `concurrency` requests in flight
    /// (AvalancheGo has no batches); results come back in the order of `params`.
    pub async fn call_many<P, R>(
        &self,
        method: &str,
        params: Vec<P>,
        concurrency: usize,
    ) -> Vec<Result<R, ClientError>>
    where
        P: Serialize + Send + Sync + 'static,
        R: DeserializeOwned + Send + 'static,
    {
        let total = params.len();
        let mut results: Vec<Option<Result<R, ClientError>>> = (0..total).map(|_| None).collect();
        let mut pending = params.into_iter().enumerate();
        let mut set = JoinSet::new();
        let concurrency = concurrency.max(1);
        loop {
            while set.len() < concurrency {
                let Some((i, p)) = pending.next() else { break };
                let client = self.clone();
                let method = method.to_owned();
                set.spawn(async move { (i, client.call::<P, R>(&method, &p).await) });
            }
            match set.join_next().await {
                Some(Ok((i, r))) => {
                    if let Some(slot) = results.get_mut(i) {
                        *slot = Some(r);
                    }
                }
                Some(Err(join)) => {
                    tracing::error!(error = %join, "rpc call task failed");
                }
                None => break,
            }
        }
        results
            .into_iter()
            .map(|r| {
                r.unwrap_or_else(|| {
                    Err(ClientError::InvalidResponse {
                        url: self.url().to_owned(),
                        reason: "call task did not finish".to_owned(),
                    })
                })
            })
            .collect()
    }
}
