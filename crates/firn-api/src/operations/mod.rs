//! Operations: the official Data API's transaction export jobs, and the worker that runs them.
//!
//! - [`routes`]: `POST /v1/operations/transactions:export` validates a request ([`request`]),
//!   stores it as a running job owned by the API key that sent it (the webhooks' owner: the
//!   SHA-256 of the key) and answers 201; `GET /v1/operations/{operationId}` reports it;
//!   `GET /v1/operations/{operationId}/file` serves its CSV, to the same owner, until it expires.
//! - The worker ([`run`]) runs beside the server. It leases one running job at a time (so
//!   several `firn serve` processes on one PostgreSQL share the work, and a job a dead process
//!   held is taken over, from the start, when its lease runs out), pages through the same store
//!   reads the list endpoints use, and appends the CSV ([`csv`]) to the store in pieces, so every
//!   process serves the download. It also deletes expired jobs and their files.
//! - An export is bounded ([`ExportConfig::max_rows`]): past it the job completes with a
//!   warning (`WarnTruncatedExport`) and `nextDate`, the day to export again from.

pub mod csv;
pub mod request;
pub mod routes;
mod worker;

use std::time::Duration;

pub use worker::run;

/// How exports are run.
#[derive(Debug, Clone)]
pub struct ExportConfig {
    /// Run the worker in this server process.
    pub run: bool,
    /// Rows one file holds at most; past it the export is truncated.
    pub max_rows: u64,
    /// Days one request covers at most.
    pub max_days: u64,
    /// Addresses one request names at most.
    pub max_addresses: usize,
    /// How long a job and its file are kept after it ends.
    pub keep: Duration,
    /// How long a process holds a job without writing to it; another takes over after.
    pub lease: Duration,
    /// How often an idle worker looks for work.
    pub poll: Duration,
    /// The server's public URL (`https://data.example.com`), which download URLs start with;
    /// `None` builds them from the request's `Host` header.
    pub public_url: Option<String>,
}

impl Default for ExportConfig {
    fn default() -> Self {
        Self {
            run: true,
            max_rows: 100_000,
            max_days: 366,
            max_addresses: 64,
            keep: Duration::from_secs(24 * 3600),
            lease: Duration::from_secs(60),
            poll: Duration::from_millis(200),
            public_url: None,
        }
    }
}
