//! The dispatcher: leases webhooks, matches newly indexed activity into their outboxes and
//! posts the outboxes in order.
//!
//! One task per webhook this process holds. Each turn it (1) reads the chain's indexed tip and,
//! if the webhook is behind, turns the matching transactions of the next blocks into events
//! and appends them to the outbox while moving the webhook's cursor, in one transaction (a step
//! that finds nothing moves the cursor in memory and writes it now and then: finding nothing
//! again after a crash is harmless); (2) posts the outbox's due events in order, acknowledging
//! delivered ones in batches (a crash redelivers at most a batch, with the same `messageId`s);
//! a failure schedules the retry and stops the turn, so later events wait behind it.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use firn_store::rows::ChainKey;
use firn_store::rows::evm::{ChainRef, EvmChainRecord};
use firn_store::rows::webhooks::{MatchedStep, NewEvent, OutboxEvent, Retry, WebhookRecord};
use firn_store::{CursorStore, EvmReader, Store, StoreError, WebhookStore};
use hmac::digest::KeyInit;
use hmac::{Hmac, Mac};
use sha2::Sha256;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::pchain::{self, StepOutcome};
use super::{WebhookConfig, payload};
use crate::config::NetworkProfile;
use crate::metrics_api::clock::unix_ms as now_ms;

/// Webhooks one process holds at most.
const MAX_HELD: u32 = 4096;
/// Blocks one matching step reads at most.
const MAX_BLOCKS_PER_STEP: u64 = 10_000;
/// Transactions one matching step turns into events (more in one block are taken whole, up to
/// [`MAX_PER_BLOCK`]).
const MAX_EVENTS_PER_STEP: u32 = 500;
/// Matching transactions of one block taken at most (more are a forged or absurd block; the
/// rest are skipped and logged).
const MAX_PER_BLOCK: u32 = 20_000;
/// Events waiting in one outbox past which matching pauses until deliveries catch up.
const MAX_OUTBOX: u64 = 10_000;
/// Events read from the outbox per turn.
const DELIVERY_BATCH: u32 = 200;

/// `x-signature` of `body`: base64 of HMAC-SHA256 keyed with the secret's UTF-8 bytes.
pub fn signature(secret: &str, body: &[u8]) -> String {
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(secret.as_bytes())
        .unwrap_or_else(|_| unreachable!("HMAC takes keys of any length"));
    mac.update(body);
    STANDARD.encode(mac.finalize().into_bytes())
}

/// What one process's tasks share.
struct Shared {
    store: Store,
    network: NetworkProfile,
    /// cb58 of the network's AVAX asset ID, as P-Chain transactions print it.
    avax_asset_cb58: String,
    config: WebhookConfig,
    http: reqwest::Client,
    worker: String,
}

/// Runs the dispatcher over `store` (indexing `network`) until `shutdown` completes, then gives
/// up its leases.
pub async fn run(
    store: Store,
    network: NetworkProfile,
    config: WebhookConfig,
    shutdown: impl Future<Output = ()>,
) {
    let http = match firn_http::outbound::guarded_client(
        config.request_timeout,
        config.allow_private_targets,
        0,
    )
    .build()
    {
        Ok(http) => http,
        Err(e) => {
            tracing::error!(target: "webhooks", error = %e, "cannot build the delivery client: webhooks are not delivered");
            return;
        }
    };
    let shared = Arc::new(Shared {
        store,
        avax_asset_cb58: network.avax_asset_id.to_string(),
        network,
        http,
        worker: uuid::Uuid::new_v4().to_string(),
        config,
    });
    // The store's generation, read once per poll for every task: a task looks for activity
    // only when it moved.
    let (moved, generation) = watch::channel(shared.store.generation());
    let ticker = {
        let shared = shared.clone();
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(shared.config.poll).await;
                if let Ok(g) = shared.store.refresh_generation().await {
                    moved.send_if_modified(|seen| std::mem::replace(seen, g) != g);
                }
            }
        })
    };
    let mut tasks: HashMap<String, (watch::Sender<WebhookRecord>, JoinHandle<()>)> = HashMap::new();
    let mut renew = tokio::time::interval(shared.config.lease / 3);
    renew.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            () = &mut shutdown => break,
            _ = renew.tick() => {}
        }
        let now = now_ms();
        let until = now.saturating_add(shared.config.lease.as_millis() as u64);
        let held = match shared
            .store
            .lease_webhooks(&shared.worker, now, until, MAX_HELD)
            .await
        {
            Ok(held) => held,
            Err(e) => {
                tracing::warn!(target: "webhooks", error = %e, "renewing webhook leases failed; retrying");
                continue;
            }
        };
        let ids: std::collections::HashSet<&str> = held.iter().map(|w| w.id.as_str()).collect();
        tasks.retain(|id, (_, task)| {
            let keep = ids.contains(id.as_str()) && !task.is_finished();
            if !keep {
                task.abort();
            }
            keep
        });
        for w in held {
            match tasks.get(&w.id) {
                Some((settings, _)) => {
                    settings.send_replace(w);
                }
                None => {
                    let id = w.id.clone();
                    let (tx, rx) = watch::channel(w);
                    let task = tokio::spawn(drive(shared.clone(), rx, generation.clone()));
                    tasks.insert(id, (tx, task));
                }
            }
        }
    }
    ticker.abort();
    for (_, (_, task)) in tasks {
        task.abort();
    }
    if let Err(e) = shared.store.release_webhooks(&shared.worker).await {
        tracing::warn!(target: "webhooks", error = %e, "releasing webhook leases failed; they lapse by themselves");
    }
}

/// A webhook's matching position: what the store holds, and how far steps that found
/// nothing got since, with the match state they left.
struct Position {
    stored: u64,
    reached: u64,
    state: Option<String>,
    written_at: Instant,
    /// The cursor in the settings last looked at: only a change there is news.
    seen: u64,
    /// The rollbacks of the chain the stored cursor is from.
    epoch: u64,
}

impl Position {
    /// Where the store says the webhook is.
    fn of(webhook: &WebhookRecord) -> Self {
        Self {
            stored: webhook.matched_through,
            reached: webhook.matched_through,
            state: webhook.match_state.clone(),
            written_at: Instant::now(),
            seen: webhook.matched_through,
            epoch: webhook.match_epoch,
        }
    }
}

/// Matches and delivers one webhook, turn after turn, until its task is aborted. Idle, it
/// waits for the store to move (a commit), its settings to change or a retry to fall due: a
/// quiet webhook costs no reads.
async fn drive(
    shared: Arc<Shared>,
    mut settings: watch::Receiver<WebhookRecord>,
    mut generation: watch::Receiver<u64>,
) {
    let mut position = Position::of(&settings.borrow());
    let mut chain: Option<EvmChainRecord> = None;
    // Whether the outbox may hold events: unknown at first.
    let mut pending = true;
    loop {
        let webhook = settings.borrow_and_update().clone();
        generation.borrow_and_update();
        let matched = match step_match(&shared, &webhook, &mut chain, &mut position).await {
            Ok(m) => m,
            Err(e) => {
                tracing::warn!(target: "webhooks", webhook = %webhook.id, error = %e, "matching activity failed; retrying");
                Matched::default()
            }
        };
        pending |= matched.added;
        let wait = if pending {
            match step_deliver(&shared, &webhook).await {
                Ok(Delivery::Idle) => None,
                Ok(Delivery::WaitFor(pause)) => Some(pause),
                // Settings read before the deactivation must not post again: the task ends,
                // and a webhook turned back on is leased anew.
                Ok(Delivery::GaveUp) => return,
                Err(e) => {
                    tracing::warn!(target: "webhooks", webhook = %webhook.id, error = %e, "delivering failed; retrying");
                    Some(shared.config.poll)
                }
            }
        } else {
            None
        };
        pending = wait.is_some();
        if matched.behind {
            continue;
        }
        let retry = async {
            match wait {
                Some(pause) => tokio::time::sleep(pause.max(Duration::from_millis(1))).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            () = retry => {}
            changed = generation.changed() => if changed.is_err() { return },
            changed = settings.changed() => {
                if changed.is_err() {
                    return;
                }
                // Turned back on, or changed: look at the outbox again.
                pending = true;
            }
        }
    }
}

/// What a matching step did.
#[derive(Debug, Clone, Copy, Default)]
struct Matched {
    /// The webhook is still behind the indexed tip.
    behind: bool,
    /// Events were added to the outbox.
    added: bool,
}

/// One matching step.
async fn step_match(
    shared: &Shared,
    webhook: &WebhookRecord,
    chain: &mut Option<EvmChainRecord>,
    position: &mut Position,
) -> Result<Matched, StoreError> {
    let store = &shared.store;
    // Moved on by an update, or back by a rollback of the chain: the store's word wins.
    let moved_on =
        webhook.matched_through != position.seen && webhook.matched_through > position.stored;
    if moved_on || webhook.match_epoch > position.epoch {
        *position = Position::of(webhook);
    }
    position.seen = webhook.matched_through;
    let followed = match webhook.evm_chain_id {
        Some(chain_id) => ChainKey::Evm(chain_id),
        None => ChainKey::PChain,
    };
    let tip = store.find_cursor(followed).await?.unwrap_or(0);
    if tip <= position.reached {
        return Ok(Matched::default());
    }
    if store.count_webhook_outbox(&webhook.id).await? >= MAX_OUTBOX {
        // Paused until deliveries catch up; they are pending.
        return Ok(Matched {
            behind: false,
            added: true,
        });
    }
    let step = match webhook.evm_chain_id {
        Some(chain_id) => {
            let (events, through) =
                evm_step(store, webhook, chain_id, chain, position.reached, tip).await?;
            StepOutcome {
                events,
                through,
                state: None,
            }
        }
        None => {
            pchain::step(
                store,
                &shared.network,
                &shared.avax_asset_cb58,
                webhook,
                (position.reached, tip),
                position.state.as_deref(),
            )
            .await?
        }
    };
    let through = step.through;
    // A changed match state is written at once, as events are: it decides later events.
    let state_moved = step.state.is_some() && step.state != position.state;
    let quiet = position.written_at.elapsed() < shared.config.quiet_cursor_write;
    if step.events.is_empty() && !state_moved && quiet {
        position.reached = through;
        return Ok(Matched {
            behind: through < tip,
            added: false,
        });
    }
    let moved = store
        .enqueue_webhook_events(
            &webhook.id,
            &shared.worker,
            &MatchedStep {
                from: position.stored,
                epoch: position.epoch,
                through,
                events: &step.events,
                state: step.state.as_deref(),
            },
            now_ms(),
        )
        .await?;
    if moved {
        *position = Position {
            stored: through,
            reached: through,
            state: step.state,
            written_at: Instant::now(),
            seen: position.seen,
            epoch: position.epoch,
        };
        return Ok(Matched {
            behind: through < tip,
            added: !step.events.is_empty(),
        });
    }
    // Someone moved it (an update, or another process): start again from the store's word.
    if let Some(stored) = store.find_webhook(&webhook.owner, &webhook.id).await? {
        *position = Position::of(&stored);
    }
    Ok(Matched::default())
}

/// The events of an EVM webhook's next blocks after `after` (up to `tip`), and the block
/// matched through.
async fn evm_step(
    store: &Store,
    webhook: &WebhookRecord,
    chain_id: u64,
    chain: &mut Option<EvmChainRecord>,
    after: u64,
    tip: u64,
) -> Result<(Vec<NewEvent>, u64), StoreError> {
    let from = after + 1;
    let to = tip.min(after.saturating_add(MAX_BLOCKS_PER_STEP));
    let mut matches = store
        .list_webhook_matches(&webhook.id, chain_id, from, to, MAX_EVENTS_PER_STEP + 1)
        .await?;
    let through = if matches.len() > MAX_EVENTS_PER_STEP as usize {
        let last = matches[MAX_EVENTS_PER_STEP as usize].0;
        if matches[0].0 == last {
            matches = store
                .list_webhook_matches(&webhook.id, chain_id, last, last, MAX_PER_BLOCK)
                .await?;
            if matches.len() == MAX_PER_BLOCK as usize {
                tracing::warn!(target: "webhooks", webhook = %webhook.id, block = last, "a block holds more matching transactions than a webhook takes; the rest are skipped");
            }
            last
        } else {
            matches.retain(|m| m.0 < last);
            last - 1
        }
    } else {
        to
    };
    if matches.is_empty() {
        return Ok((Vec::new(), through));
    }
    if chain.is_none() {
        *chain = store.find_evm_chain(ChainRef::Evm(chain_id)).await?;
    }
    let Some(c) = chain.as_ref() else {
        return Ok((Vec::new(), after));
    };
    Ok((payload::build(store, c, webhook, &matches).await?, through))
}

/// What a delivery step left.
enum Delivery {
    /// The outbox is empty.
    Idle,
    /// Its head falls due after this long (zero: more wait behind a full batch).
    WaitFor(Duration),
    /// The webhook was deactivated.
    GaveUp,
}

/// Posts the outbox's due events in order.
async fn step_deliver(shared: &Shared, webhook: &WebhookRecord) -> Result<Delivery, StoreError> {
    let store = &shared.store;
    let due = store
        .list_webhook_outbox(&webhook.id, DELIVERY_BATCH)
        .await?;
    if due.is_empty() {
        return Ok(Delivery::Idle);
    }
    let Some(secret) = store.find_webhook_secret(&webhook.owner).await? else {
        // Every owner with a webhook has a secret; a store edited by hand may not.
        return Ok(Delivery::WaitFor(shared.config.poll));
    };
    let mut delivered = None;
    // A full batch delivered: more may wait behind it.
    let mut next = if due.len() == DELIVERY_BATCH as usize {
        Delivery::WaitFor(Duration::ZERO)
    } else {
        Delivery::Idle
    };
    for event in &due {
        let now = now_ms();
        if event.next_attempt_at > now {
            next = Delivery::WaitFor(Duration::from_millis(event.next_attempt_at - now));
            break;
        }
        match post(shared, webhook, &secret, event).await {
            Ok(()) => delivered = Some(event.seq),
            Err(why) => {
                if let Some(seq) = delivered.take() {
                    store.ack_webhook_events(&webhook.id, seq).await?;
                }
                let retry = retry(&shared.config, webhook, event, &why);
                tracing::info!(target: "webhooks", webhook = %webhook.id, message = %event.message_id, attempt = event.attempts + 1, reason = %why, "delivery failed");
                store
                    .fail_webhook_event(&webhook.id, event.seq, &retry)
                    .await?;
                next = match retry {
                    Retry::At(at) => {
                        Delivery::WaitFor(Duration::from_millis(at.saturating_sub(now_ms())))
                    }
                    Retry::GiveUp(_) => Delivery::GaveUp,
                };
                break;
            }
        }
    }
    if let Some(seq) = delivered {
        store.ack_webhook_events(&webhook.id, seq).await?;
    }
    Ok(next)
}

/// What follows a failed attempt at `event`: a later retry, or deactivation.
fn retry(config: &WebhookConfig, webhook: &WebhookRecord, event: &OutboxEvent, why: &str) -> Retry {
    let attempts = event.attempts.saturating_add(1);
    if attempts >= config.max_attempts {
        return Retry::GiveUp(format!(
            "delivery to {} failed {attempts} times in a row (last: {why}); fix the receiver and \
             set status to active to resume",
            webhook.url
        ));
    }
    let backoff = config
        .first_retry
        .saturating_mul(1u32 << (attempts - 1).min(20))
        .min(config.max_retry);
    Retry::At(now_ms().saturating_add(backoff.as_millis() as u64))
}

/// One POST of `event`; `Err` says why it did not count as delivered.
async fn post(
    shared: &Shared,
    webhook: &WebhookRecord,
    secret: &str,
    event: &OutboxEvent,
) -> Result<(), String> {
    let url = reqwest::Url::parse(&webhook.url).map_err(|e| format!("invalid URL: {e}"))?;
    if !firn_http::outbound::allowed_url(&url, shared.config.allow_private_targets) {
        return Err("the URL points at a loopback or private address".to_owned());
    }
    let response = shared
        .http
        .post(url)
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .header("x-signature", signature(secret, &event.body))
        .body(event.body.clone())
        .send()
        .await
        .map_err(|e| {
            if e.is_timeout() {
                format!(
                    "no answer within {} ms",
                    shared.config.request_timeout.as_millis()
                )
            } else {
                format!("could not connect: {e}")
            }
        })?;
    let status = response.status();
    if status.is_success() {
        Ok(())
    } else {
        Err(format!("the receiver answered {status}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_are_base64_hmac_sha256_of_the_body() {
        // RFC 4231 test case 2: key "Jefe".
        let sig = signature("Jefe", b"what do ya want for nothing?");
        let raw = STANDARD.decode(sig).unwrap();
        assert_eq!(
            hex::encode(raw),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[test]
    fn retries_back_off_then_give_up() {
        let config = WebhookConfig {
            max_attempts: 4,
            first_retry: Duration::from_secs(2),
            max_retry: Duration::from_secs(5),
            ..WebhookConfig::default()
        };
        let webhook = WebhookRecord {
            id: "w".into(),
            owner: String::new(),
            event_type: "address_activity".into(),
            chain_id: "1".into(),
            evm_chain_id: Some(1),
            url: "https://example.com".into(),
            name: String::new(),
            description: String::new(),
            active: true,
            created_at: 0,
            metadata: "{}".into(),
            include_internal_txs: false,
            include_logs: false,
            matched_through: 0,
            failures: 0,
            inactive_reason: None,
            match_state: None,
            match_epoch: 0,
        };
        let event = |attempts| OutboxEvent {
            seq: 0,
            message_id: "m".into(),
            body: Vec::new(),
            attempts,
            next_attempt_at: 0,
            enqueued_at: 0,
        };
        let waits: Vec<u64> = (0..3)
            .map(|a| match retry(&config, &webhook, &event(a), "x") {
                Retry::At(at) => (at.saturating_sub(now_ms()) + 500) / 1000,
                Retry::GiveUp(_) => u64::MAX,
            })
            .collect();
        assert_eq!(waits, [2, 4, 5], "doubling, capped");
        match retry(&config, &webhook, &event(3), "the receiver answered 500") {
            Retry::GiveUp(why) => assert!(why.contains("4 times") && why.contains("500"), "{why}"),
            Retry::At(_) => panic!("the fourth failure gives up"),
        }
    }
}
