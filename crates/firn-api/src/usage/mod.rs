//! The official Data API's "Data API Usage Metrics" group, over firn's own request logs.
//!
//! - Recording: the [`record`] middleware (a layer of [`crate::app`]) builds one
//!   [`firn_http::usage::RequestLog`] per Data API request and hands it to the process's
//!   [`firn_http::usage::UsageRecorder`]; the node RPC records into the same recorder (`firn
//!   up` gives both one). Nothing waits: the queue is bounded and a full one drops.
//! - [`Flusher`] takes the queue in batches into the store ([`firn_store::UsageStore`]) and
//!   deletes logs past the [`Retention`]; [`start`] runs one.
//! - Routes: `/v1/apiLogs` and `/v1/apiUsageMetrics` show the caller's own Data API requests
//!   (its API key's digest is its `orgId`); `/v1/subnetRpcUsageMetrics` and
//!   `/v1/primaryNetworkRpcUsageMetrics` show the node RPC logged by this deployment. Metrics
//!   are computed per request from the stored logs (at most [`routes::MAX_AGGREGATED`] per
//!   request), bucketed by `timeInterval` and grouped by `groupBy` ([`aggregate`]).

mod aggregate;
mod flusher;
mod record;
pub mod routes;
pub mod wire;

pub use aggregate::{Bucket, UsageValue};
pub use firn_http::usage::{RequestLog, UsageQueue, UsageRecorder};
pub use flusher::{Flusher, PRUNE_EVERY, QUEUE_CAPACITY, Retention, start};
pub(crate) use record::record;
pub(crate) use routes::router;
