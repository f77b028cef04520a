//! Webhooks: their settings, what they watch, and the events waiting to be delivered.

use crate::types::Address;

/// A webhook as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookRecord {
    /// Its ID (a UUID).
    pub id: String,
    /// Digest of the API key that created it; empty for requests without a key.
    pub owner: String,
    /// `address_activity`, `primary_network_address_activity` or `validator_activity`.
    pub event_type: String,
    /// The chain as the request named it (`43113`, `p-chain`, …).
    pub chain_id: String,
    /// The EVM chain ID, for `address_activity`.
    pub evm_chain_id: Option<u64>,
    /// Where events are posted.
    pub url: String,
    /// Name.
    pub name: String,
    /// Description.
    pub description: String,
    /// Whether events are delivered.
    pub active: bool,
    /// Creation time, Unix seconds.
    pub created_at: u64,
    /// The request's `metadata` other than addresses, as JSON text.
    pub metadata: String,
    /// Whether payloads carry internal transactions.
    pub include_internal_txs: bool,
    /// Whether payloads carry logs.
    pub include_logs: bool,
    /// The last block the matcher read.
    pub matched_through: u64,
    /// Consecutive failed delivery attempts.
    pub failures: u32,
    /// Why delivery stopped, when it stopped by itself.
    pub inactive_reason: Option<String>,
    /// What the matcher remembers between steps (JSON, its own format), written with
    /// `matched_through`; `None`: nothing.
    pub match_state: Option<String>,
    /// Rollbacks of its chain so far; a matcher's write must name the current one.
    pub match_epoch: u64,
}

/// A webhook to create.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewWebhook {
    /// The webhook (`active`, `failures` and `inactive_reason` are ignored: it starts active).
    pub webhook: WebhookRecord,
    /// The addresses it watches.
    pub addresses: Vec<Address>,
}

/// Changes to a webhook; `None` keeps a field.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WebhookUpdate {
    /// New name.
    pub name: Option<String>,
    /// New description.
    pub description: Option<String>,
    /// New URL.
    pub url: Option<String>,
    /// Activate (matching resumes after `resume_after`) or deactivate.
    pub active: Option<bool>,
    /// Where matching resumes when the webhook is activated: the last block already indexed.
    pub resume_after: u64,
    /// New `includeInternalTxs`.
    pub include_internal_txs: Option<bool>,
    /// New `includeLogs`.
    pub include_logs: Option<bool>,
}

/// An event waiting in a webhook's outbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutboxEvent {
    /// Position in the webhook's outbox: events go out in this order.
    pub seq: u64,
    /// The ID receivers de-duplicate on.
    pub message_id: String,
    /// The body, unsigned.
    pub body: Vec<u8>,
    /// Attempts so far.
    pub attempts: u32,
    /// Not before this time, Unix ms.
    pub next_attempt_at: u64,
    /// When it was found, Unix ms.
    pub enqueued_at: u64,
}

/// An event to put in a webhook's outbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewEvent {
    /// The ID receivers de-duplicate on.
    pub message_id: String,
    /// The body, unsigned.
    pub body: Vec<u8>,
}

/// What one matching step found: the events to append to a webhook's outbox, with the
/// cursor and match state that go with them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MatchedStep<'a> {
    /// The cursor the step started from; the write is refused if it moved since.
    pub from: u64,
    /// The match epoch the step started from; the write is refused if a rollback bumped it.
    pub epoch: u64,
    /// The block matched through.
    pub through: u64,
    /// The events, in order.
    pub events: &'a [NewEvent],
    /// The new match state; `None` keeps the stored one.
    pub state: Option<&'a str>,
}

/// What a failed attempt leads to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Retry {
    /// Try again at this time, Unix ms.
    At(u64),
    /// Stop: deactivate the webhook, saying why (the event stays in the outbox).
    GiveUp(String),
}
