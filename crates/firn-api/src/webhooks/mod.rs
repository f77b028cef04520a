//! Webhooks: the official Data API's webhook routes, and the dispatcher that delivers their
//! events.
//!
//! - [`routes`]: create, list, get, update and deactivate webhooks, their addresses and the
//!   shared secret, scoped to the API key that sends the request (its SHA-256 digest is the
//!   owner; requests without a key share the owner `""`).
//! - The dispatcher ([`run`]) runs beside the server. It holds a lease on each webhook it
//!   delivers (so several `firn serve` processes on one PostgreSQL deliver each event once, and
//!   take over within one lease when a process dies). Per webhook it matches newly indexed
//!   activity (the store's per-address activity index) into the store's outbox, in the same
//!   transaction that moves the webhook's cursor, then posts the outbox in order: nothing is
//!   lost across a crash, and a redelivery carries the same `messageId`.
//! - A delivery is an HTTP POST of the event as canonical JSON ([`canonical`], RFC 8785) with
//!   `x-signature`: base64 of HMAC-SHA256 over the body keyed with the owner's shared secret,
//!   as `@avalanche-sdk/chainkit`'s `validateWebhook` checks. A failed attempt is retried with
//!   exponential backoff; after [`WebhookConfig::max_attempts`] in a row the webhook is
//!   deactivated with the reason (`inactiveReason`), its events kept for when it is turned back
//!   on.
//! - [`pchain`] matches P-Chain activity (`primary_network_address_activity`,
//!   `validator_activity`); [`thresholds`] adds the balance-threshold sub-events, which fire
//!   once per crossing below and keep what is below in the webhook's match state.
//! - Targets on loopback or private networks are refused, at creation and at every connection,
//!   unless [`WebhookConfig::allow_private_targets`] (the devnet's `firn up` allows them).

mod canonical;
mod dispatch;
mod payload;
pub mod pchain;
mod pchain_target;
pub mod routes;
pub mod thresholds;
pub mod wire;

use std::time::Duration;

pub use canonical::to_vec as canonical_json;
pub use dispatch::{run, signature};

/// How webhooks are delivered.
#[derive(Debug, Clone)]
pub struct WebhookConfig {
    /// Run the dispatcher in this server process.
    pub deliver: bool,
    /// Deliver to loopback and private addresses (refused by default).
    pub allow_private_targets: bool,
    /// Addresses one webhook may watch.
    pub max_addresses: u64,
    /// Failed attempts in a row after which a webhook is deactivated.
    pub max_attempts: u32,
    /// Wait before the first retry; each next one waits twice as long.
    pub first_retry: Duration,
    /// Longest wait between retries.
    pub max_retry: Duration,
    /// Time limit of one delivery (connect and answer).
    pub request_timeout: Duration,
    /// How long a process holds a webhook without renewing it; another takes over after.
    pub lease: Duration,
    /// How often each webhook looks for newly indexed activity.
    pub poll: Duration,
    /// How often a webhook whose steps find nothing writes how far it got (matching again
    /// from an older position after a restart costs reads, never events).
    pub quiet_cursor_write: Duration,
}

impl Default for WebhookConfig {
    fn default() -> Self {
        Self {
            deliver: true,
            allow_private_targets: false,
            max_addresses: 50_000,
            max_attempts: 10,
            first_retry: Duration::from_secs(1),
            max_retry: Duration::from_secs(600),
            request_timeout: Duration::from_secs(10),
            lease: Duration::from_secs(5),
            poll: Duration::from_millis(50),
            quiet_cursor_write: Duration::from_secs(5),
        }
    }
}
