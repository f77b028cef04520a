//! Webhooks: settings scoped to their owner, addresses, secrets, leases between processes,
//! matching against indexed activity, and the outbox.

use std::collections::BTreeSet;

use firn_store::rows::webhooks::{
    MatchedStep, NewEvent, NewWebhook, Retry, WebhookRecord, WebhookUpdate,
};
use firn_store::{EvmWriter, PageRequest, Store, StoreError, WebhookStore};

use crate::fixtures::{EvmHistory, activity_of, all_pages, evm_address, evm_chain};

const CHAIN: u64 = 43_113;

fn webhook(id: &str, owner: &str, created_at: u64) -> WebhookRecord {
    WebhookRecord {
        id: id.to_owned(),
        owner: owner.to_owned(),
        event_type: "address_activity".to_owned(),
        chain_id: CHAIN.to_string(),
        evm_chain_id: Some(CHAIN),
        url: "https://example.com/hook".to_owned(),
        name: format!("hook {id}"),
        description: String::new(),
        active: true,
        created_at,
        metadata: "{}".to_owned(),
        include_internal_txs: false,
        include_logs: true,
        matched_through: 0,
        failures: 0,
        inactive_reason: None,
        match_state: None,
        match_epoch: 0,
    }
}

fn step<'a>(
    from: u64,
    through: u64,
    events: &'a [NewEvent],
    state: Option<&'a str>,
) -> MatchedStep<'a> {
    MatchedStep {
        from,
        epoch: 0,
        through,
        events,
        state,
    }
}

fn event(n: u64) -> NewEvent {
    NewEvent {
        message_id: format!("m{n}"),
        body: format!("{{\"n\":{n}}}").into_bytes(),
    }
}

pub async fn webhook_settings_addresses_and_secrets(store: Store) {
    let (a, b) = (evm_address(1), evm_address(2));
    for (i, id) in [
        "00000000-0000-0000-0000-00000000000a",
        "00000000-0000-0000-0000-00000000000b",
    ]
    .iter()
    .enumerate()
    {
        let new = NewWebhook {
            webhook: webhook(id, "alice", 100 + i as u64),
            addresses: vec![a, b, a],
        };
        store.create_webhook(&new).await.unwrap();
    }
    let bobs = NewWebhook {
        webhook: webhook("00000000-0000-0000-0000-00000000000c", "bob", 50),
        addresses: vec![a],
    };
    store.create_webhook(&bobs).await.unwrap();
    let generation = store.generation();

    let id = "00000000-0000-0000-0000-00000000000a";
    let found = store.find_webhook("alice", id).await.unwrap().unwrap();
    assert_eq!(found, webhook(id, "alice", 100));
    assert!(
        store.find_webhook("bob", id).await.unwrap().is_none(),
        "another owner's webhook is not found"
    );
    let listed = all_pages(|after| {
        let store = &store;
        async move {
            let page = PageRequest { limit: 1, after };
            store.list_webhooks("alice", None, &page).await.unwrap()
        }
    })
    .await;
    let ids: Vec<&str> = listed.iter().map(|w| w.id.as_str()).collect();
    assert_eq!(
        ids,
        [id, "00000000-0000-0000-0000-00000000000b"],
        "oldest first, one per page"
    );

    // Updates: fields change, deactivation filters, reactivation resumes after the tip.
    let update = WebhookUpdate {
        name: Some("renamed".into()),
        url: Some("https://example.org/x".into()),
        active: Some(false),
        include_logs: Some(false),
        ..WebhookUpdate::default()
    };
    let w = store
        .update_webhook("alice", id, &update)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (w.name.as_str(), w.url.as_str(), w.active, w.include_logs),
        ("renamed", "https://example.org/x", false, false)
    );
    assert_eq!(store.find_webhook("alice", id).await.unwrap(), Some(w));
    let inactive = store
        .list_webhooks("alice", Some(false), &PageRequest::first(10))
        .await
        .unwrap();
    assert_eq!(inactive.items.len(), 1);
    assert_eq!(inactive.items[0].id, id);
    let on = WebhookUpdate {
        active: Some(true),
        resume_after: 77,
        ..WebhookUpdate::default()
    };
    let w = store
        .update_webhook("alice", id, &on)
        .await
        .unwrap()
        .unwrap();
    assert!(w.active);
    assert_eq!(w.matched_through, 77, "activity while off is not sent");
    assert!(
        store
            .update_webhook("bob", id, &on)
            .await
            .unwrap()
            .is_none()
    );

    // Addresses: duplicates kept once, in byte order, bounded.
    assert_eq!(store.count_webhook_addresses(id).await.unwrap(), 2);
    let c = evm_address(3);
    assert!(
        store
            .change_webhook_addresses("alice", id, &[c, a], true, 10)
            .await
            .unwrap()
    );
    let listed = all_pages(|after| {
        let store = &store;
        async move {
            let page = PageRequest { limit: 2, after };
            store.list_webhook_addresses(id, &page).await.unwrap()
        }
    })
    .await;
    let mut want = vec![a, b, c];
    want.sort();
    assert_eq!(listed, want);
    assert!(
        store
            .change_webhook_addresses("alice", id, &[b], false, 10)
            .await
            .unwrap()
    );
    assert_eq!(store.count_webhook_addresses(id).await.unwrap(), 2);
    assert!(
        !store
            .change_webhook_addresses("bob", id, &[b], true, 10)
            .await
            .unwrap(),
        "another owner's webhook is not changed"
    );
    let many: Vec<_> = (10..20).map(evm_address).collect();
    let err = store
        .change_webhook_addresses("alice", id, &many, true, 10)
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::LimitExceeded(_)), "{err}");
    assert_eq!(
        store.count_webhook_addresses(id).await.unwrap(),
        2,
        "a refused change leaves the addresses as they were"
    );

    // Secrets: the first stays unless replaced.
    assert_eq!(store.find_webhook_secret("alice").await.unwrap(), None);
    assert_eq!(
        store
            .put_webhook_secret("alice", "s1", false)
            .await
            .unwrap(),
        "s1"
    );
    assert_eq!(
        store
            .put_webhook_secret("alice", "s2", false)
            .await
            .unwrap(),
        "s1"
    );
    assert_eq!(
        store.put_webhook_secret("alice", "s3", true).await.unwrap(),
        "s3"
    );
    assert_eq!(
        store.find_webhook_secret("alice").await.unwrap().as_deref(),
        Some("s3")
    );
    assert_eq!(store.find_webhook_secret("bob").await.unwrap(), None);
    assert_eq!(
        store.generation(),
        generation,
        "webhook writes leave cached index pages alone"
    );
}

pub async fn webhook_leases_matches_and_outbox(store: Store) {
    store.upsert_evm_chain(&evm_chain(CHAIN)).await.unwrap();
    let mut h = EvmHistory::new(5, CHAIN, 6);
    let blocks: Vec<_> = (0..40).map(|_| h.next_block()).collect();
    store.commit_evm_blocks(&blocks).await.unwrap();
    let (a, b) = (evm_address(2), evm_address(5));
    let id = "00000000-0000-0000-0000-000000000001";
    store
        .create_webhook(&NewWebhook {
            webhook: webhook(id, "", 1),
            addresses: vec![a, b],
        })
        .await
        .unwrap();

    // Leases: one holder at a time; a lapsed lease passes on; released leases at once.
    let held = store.lease_webhooks("w1", 1_000, 11_000, 10).await.unwrap();
    assert_eq!(held.len(), 1);
    assert!(
        store
            .lease_webhooks("w2", 2_000, 12_000, 10)
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        store
            .lease_webhooks("w1", 5_000, 15_000, 10)
            .await
            .unwrap()
            .len(),
        1
    );
    assert_eq!(
        store
            .lease_webhooks("w2", 16_000, 26_000, 10)
            .await
            .unwrap()
            .len(),
        1,
        "w1's lease ran out"
    );
    assert!(
        !store
            .enqueue_webhook_events(id, "w1", &step(0, 5, &[event(0)], None), 16_000)
            .await
            .unwrap(),
        "a process that lost the lease writes nothing"
    );
    store.release_webhooks("w2").await.unwrap();
    assert_eq!(
        store
            .lease_webhooks("w1", 17_000, 27_000, 10)
            .await
            .unwrap()
            .len(),
        1
    );

    // Matches: the transactions either address took part in, within the range, in order.
    let first = blocks[0].block.number;
    let last = blocks[39].block.number;
    let mut want: BTreeSet<(u64, u32)> = activity_of(&blocks, a).into_iter().collect();
    want.extend(activity_of(&blocks, b));
    let want: Vec<_> = want.into_iter().collect();
    assert!(want.len() > 10, "the history gives the addresses activity");
    let got = store
        .list_webhook_matches(id, CHAIN, first, last, 10_000)
        .await
        .unwrap();
    assert_eq!(got, want);
    let mid = blocks[20].block.number;
    let part = store
        .list_webhook_matches(id, CHAIN, mid, last, 3)
        .await
        .unwrap();
    let want_part: Vec<_> = want
        .iter()
        .copied()
        .filter(|m| m.0 >= mid)
        .take(3)
        .collect();
    assert_eq!(part, want_part);
    assert!(
        store
            .list_webhook_matches(id, CHAIN + 1, first, last, 10)
            .await
            .unwrap()
            .is_empty()
    );

    // The outbox: in order, numbered on; the cursor moves with it, once.
    let events: Vec<_> = (0..3).map(event).collect();
    assert!(
        store
            .enqueue_webhook_events(id, "w1", &step(0, 10, &events, Some("[\"below\"]")), 20_000)
            .await
            .unwrap()
    );
    assert!(
        !store
            .enqueue_webhook_events(id, "w1", &step(0, 10, &events, Some("[]")), 20_000)
            .await
            .unwrap(),
        "the same range twice is refused"
    );
    assert!(
        store
            .enqueue_webhook_events(id, "w1", &step(10, 12, &[event(3)], None), 21_000)
            .await
            .unwrap()
    );
    let w = store.find_webhook("", id).await.unwrap().unwrap();
    assert_eq!(w.matched_through, 12);
    // The match state moves with the cursor; no state given keeps the stored one.
    assert_eq!(w.match_state.as_deref(), Some("[\"below\"]"));
    let out = store.list_webhook_outbox(id, 10).await.unwrap();
    let seqs: Vec<(u64, &str)> = out.iter().map(|e| (e.seq, e.message_id.as_str())).collect();
    assert_eq!(seqs, [(0, "m0"), (1, "m1"), (2, "m2"), (3, "m3")]);
    assert_eq!(out[0].body, b"{\"n\":0}");
    assert_eq!((out[0].attempts, out[0].enqueued_at), (0, 20_000));

    store
        .fail_webhook_event(id, 0, &Retry::At(30_000))
        .await
        .unwrap();
    let head = &store.list_webhook_outbox(id, 1).await.unwrap()[0];
    assert_eq!(
        (head.seq, head.attempts, head.next_attempt_at),
        (0, 1, 30_000)
    );
    assert_eq!(
        store.find_webhook("", id).await.unwrap().unwrap().failures,
        1
    );
    store.ack_webhook_events(id, 1).await.unwrap();
    assert_eq!(store.count_webhook_outbox(id).await.unwrap(), 2);
    assert_eq!(
        store.find_webhook("", id).await.unwrap().unwrap().failures,
        0
    );

    store
        .fail_webhook_event(
            id,
            2,
            &Retry::GiveUp("the receiver answered 500 eight times".into()),
        )
        .await
        .unwrap();
    let w = store.find_webhook("", id).await.unwrap().unwrap();
    assert!(!w.active);
    assert_eq!(
        w.inactive_reason.as_deref(),
        Some("the receiver answered 500 eight times")
    );
    assert_eq!(
        store.count_webhook_outbox(id).await.unwrap(),
        2,
        "a deactivated webhook's events are kept"
    );
    assert!(
        store.list_webhook_outbox(id, 10).await.unwrap().is_empty(),
        "nothing is listed for posting while the webhook is inactive"
    );
    assert!(
        store
            .lease_webhooks("w1", 40_000, 50_000, 10)
            .await
            .unwrap()
            .is_empty(),
        "inactive webhooks are not leased"
    );
}

pub async fn rollbacks_rewind_webhooks(store: Store) {
    store.upsert_evm_chain(&evm_chain(CHAIN)).await.unwrap();
    let mut history = EvmHistory::new(3, CHAIN, 6);
    let blocks: Vec<_> = (0..20).map(|_| history.next_block()).collect();
    for part in blocks.chunks(5) {
        store.commit_evm_blocks(part).await.unwrap();
    }
    let (behind, ahead) = (
        "00000000-0000-0000-0000-0000000000b1",
        "00000000-0000-0000-0000-0000000000a1",
    );
    for id in [behind, ahead] {
        let new = NewWebhook {
            webhook: webhook(id, "", 1),
            addresses: vec![evm_address(1)],
        };
        store.create_webhook(&new).await.unwrap();
    }
    assert_eq!(
        store
            .lease_webhooks("w", 0, 60_000, 10)
            .await
            .unwrap()
            .len(),
        2
    );
    let moved = |from, through| step(from, through, &[], None);
    assert!(
        store
            .enqueue_webhook_events(behind, "w", &moved(0, 8), 1)
            .await
            .unwrap()
    );
    assert!(
        store
            .enqueue_webhook_events(ahead, "w", &moved(0, 18), 1)
            .await
            .unwrap()
    );

    // Back to block 12: the commit of 11..=15 goes whole.
    assert_eq!(store.rollback_evm_chain(CHAIN, 12).await.unwrap(), Some(10));
    let store = &store;
    let found = |id| async move { store.find_webhook("", id).await.unwrap().unwrap() };
    let (b, a) = (found(behind).await, found(ahead).await);
    assert_eq!(
        (b.matched_through, b.match_epoch),
        (8, 1),
        "behind the rollback: stays"
    );
    assert_eq!(
        (a.matched_through, a.match_epoch),
        (10, 1),
        "past it: back to the new tip"
    );
    // A step begun before the rollback writes nothing; one from the new epoch does.
    let stale = step(8, 12, &[], None);
    assert!(
        !store
            .enqueue_webhook_events(behind, "w", &stale, 2)
            .await
            .unwrap()
    );
    let fresh = MatchedStep { epoch: 1, ..stale };
    assert!(
        store
            .enqueue_webhook_events(behind, "w", &fresh, 2)
            .await
            .unwrap()
    );
    assert_eq!(found(behind).await.matched_through, 12);
}
