//! ICM messages joined from two chains' blocks: each side fills its part, whichever chain
//! commits first; lists page and filter newest first; a rollback takes back exactly what the
//! chain's blocks showed.

use firn_core::ids::Id;
use firn_store::page::{CreatedCursor, PageRequest};
use firn_store::rows::evm::{EvmBlockRows, Token, TokenStandard};
use firn_store::rows::icm::{
    FeeInfo, IcmFilter, IcmLog, IcmSide, IcmStatus, Receipt, TeleporterEvent, TeleporterMessage,
};
use firn_store::types::{Address, U256};
use firn_store::{EvmWriter, IcmReader, Store};

use crate::fixtures::{evm_block, evm_chain, evm_tx};

const A: u64 = 11;
const B: u64 = 12;
const MESSENGER: Address = Address::repeat_byte(0x25);
const FEE_TOKEN: Address = Address::repeat_byte(0xfe);

fn chain_id(chain: u64) -> Id {
    evm_chain(chain).blockchain_id
}

fn message(nonce: u64, destination: Id, sender: u8) -> TeleporterMessage {
    TeleporterMessage {
        nonce: U256::from(nonce),
        origin_sender: Address::repeat_byte(sender),
        destination_blockchain_id: destination,
        destination_address: Address::repeat_byte(0xdd),
        required_gas_limit: U256::from(100_000),
        allowed_relayers: Vec::new(),
        receipts: vec![Receipt {
            received_message_nonce: U256::from(nonce + 100),
            relayer_reward_address: Address::repeat_byte(0x77),
        }],
        message: vec![nonce as u8; 3],
    }
}

/// Block `number` of `chain` at `ts` whose tx `i` emits `events[i]`.
fn block(chain: u64, number: u64, ts: u64, events: Vec<Vec<TeleporterEvent>>) -> EvmBlockRows {
    let mut b = evm_block(chain, number, ts);
    for (i, list) in events.into_iter().enumerate() {
        let i = i as u32;
        b.txs.push(evm_tx(
            chain,
            number,
            i,
            Address::repeat_byte(1),
            Some(MESSENGER),
        ));
        b.icm.extend(list.into_iter().map(|event| IcmLog {
            tx_index: i,
            contract: MESSENGER,
            event,
        }));
    }
    b
}

fn fee(amount: u64) -> FeeInfo {
    FeeInfo {
        token: FEE_TOKEN,
        amount: U256::from(amount),
    }
}

fn page(limit: u32, after: Option<CreatedCursor>) -> PageRequest<CreatedCursor> {
    PageRequest { limit, after }
}

async fn ids(store: &Store, filter: IcmFilter) -> Vec<Id> {
    let page = store
        .list_icm_messages(&filter, &page(100, None))
        .await
        .unwrap();
    page.items.iter().map(|m| m.message_id).collect()
}

pub async fn icm_messages_join_both_sides_and_roll_back(store: Store) {
    for c in [A, B] {
        store.upsert_evm_chain(&evm_chain(c)).await.unwrap();
    }
    let (a, b, elsewhere) = (chain_id(A), chain_id(B), Id([0x99; 32]));
    let (m1, m2, m3) = (Id([1; 32]), Id([2; 32]), Id([3; 32]));
    let deliverer = Address::repeat_byte(0xde);
    let redeemer = Address::repeat_byte(0xee);

    // Chain B delivers first: M1 (from A, executed), and M3 (from a chain not indexed, whose
    // execution fails). A delivery of a message to another chain is not B's to record.
    let received = |id, source, m: TeleporterMessage| TeleporterEvent::Received {
        message_id: id,
        source_blockchain_id: source,
        deliverer,
        reward_redeemer: redeemer,
        message: m,
    };
    let mut b1 = block(
        B,
        1,
        1_010,
        vec![
            vec![
                received(m1, a, message(1, b, 0x51)),
                TeleporterEvent::Executed {
                    message_id: m1,
                    source_blockchain_id: a,
                },
            ],
            vec![
                received(m3, elsewhere, message(7, b, 0x53)),
                TeleporterEvent::ExecutionFailed {
                    message_id: m3,
                    source_blockchain_id: elsewhere,
                    message: message(7, b, 0x53),
                },
            ],
            vec![received(Id([4; 32]), a, message(9, a, 0x54))],
        ],
    );
    b1.tokens.clear();
    store.commit_evm_blocks(&[b1.clone()]).await.unwrap();
    let m1_delivered = store.find_icm_message(m1).await.unwrap().unwrap();
    assert_eq!(m1_delivered.status(), IcmStatus::DeliveredSourceNotIndexed);
    assert_eq!(m1_delivered.sort_ts, 1_010);
    assert!(store.find_icm_message(Id([4; 32])).await.unwrap().is_none());

    // Chain A: the sends (M1 with a fee in a token A's index knows), then M1's receipt and a
    // fee added to M2. A delivery A shows of B's message M2 is ignored.
    let mut a1 = block(
        A,
        1,
        1_000,
        vec![
            vec![TeleporterEvent::Sent {
                message_id: m1,
                message: message(1, b, 0x51),
                fee: fee(300),
            }],
            vec![TeleporterEvent::Sent {
                message_id: m2,
                message: message(2, b, 0x52),
                fee: fee(100),
            }],
        ],
    );
    a1.tokens.push(Token {
        address: FEE_TOKEN,
        standard: TokenStandard::Erc20,
        name: "Fee Token".to_owned(),
        symbol: "FEE".to_owned(),
        decimals: Some(6),
    });
    let a2 = block(
        A,
        2,
        1_020,
        vec![
            vec![TeleporterEvent::ReceiptReceived {
                message_id: m1,
                destination_blockchain_id: b,
                relayer_reward_address: redeemer,
                fee: fee(300),
            }],
            vec![
                TeleporterEvent::FeeAdded {
                    message_id: m2,
                    fee: fee(500),
                },
                received(m2, a, message(2, b, 0x52)),
            ],
        ],
    );
    // Committed one by one: a rollback takes back whole batches.
    for block in [&a1, &a2] {
        store
            .commit_evm_blocks(std::slice::from_ref(block))
            .await
            .unwrap();
    }
    let b2 = block(
        B,
        2,
        1_030,
        vec![vec![TeleporterEvent::Executed {
            message_id: m3,
            source_blockchain_id: elsewhere,
        }]],
    );
    store.commit_evm_blocks(&[b2]).await.unwrap();

    let got1 = store.find_icm_message(m1).await.unwrap().unwrap();
    assert_eq!(got1.status(), IcmStatus::Delivered);
    assert_eq!(
        (got1.source_blockchain_id, got1.destination_blockchain_id),
        (a, b)
    );
    assert_eq!(
        (got1.source_evm_chain_id, got1.destination_evm_chain_id),
        (Some(A), Some(B))
    );
    assert_eq!(got1.sort_ts, 1_000, "sorted by the send once it is known");
    assert!(got1.executed && got1.receipt_delivered);
    assert_eq!(got1.nonce, U256::from(1));
    assert_eq!(got1.sender, Address::repeat_byte(0x51));
    assert_eq!(got1.payload, vec![1; 3]);
    assert_eq!(got1.receipts, message(1, b, 0).receipts);
    let source = got1.source.clone().unwrap();
    assert_eq!((source.chain_id, source.tx_hash), (A, a1.txs[0].hash));
    assert_eq!(
        (source.timestamp, source.gas_used),
        (1_000, a1.txs[0].gas_used)
    );
    let destination = got1.destination.clone().unwrap();
    assert_eq!(
        (destination.chain_id, destination.tx_hash),
        (B, b1.txs[0].hash)
    );
    assert_eq!(
        (destination.deliverer, destination.reward_redeemer),
        (deliverer, redeemer)
    );
    let fee1 = got1.fee.clone().unwrap();
    assert_eq!(fee1.fee, fee(300));
    assert_eq!(
        (fee1.name.as_deref(), fee1.symbol.as_deref(), fee1.decimals),
        (Some("Fee Token"), Some("FEE"), Some(6))
    );

    let got2 = store.find_icm_message(m2).await.unwrap().unwrap();
    assert_eq!(got2.status(), IcmStatus::Pending);
    assert_eq!(got2.fee.unwrap().fee, fee(500));
    assert!(!got2.receipt_delivered);

    let got3 = store.find_icm_message(m3).await.unwrap().unwrap();
    assert_eq!(got3.status(), IcmStatus::DeliveredSourceNotIndexed);
    assert!(got3.executed, "the retry executed it");
    assert_eq!((got3.source_evm_chain_id, got3.fee), (None, None));

    // Newest first, ties by ID; pages of one walk the same order.
    assert_eq!(ids(&store, IcmFilter::default()).await, vec![m3, m2, m1]);
    let mut walked = Vec::new();
    let mut after = None;
    loop {
        let p = store
            .list_icm_messages(&IcmFilter::default(), &page(1, after))
            .await
            .unwrap();
        walked.extend(p.items.iter().map(|m| m.message_id));
        match p.next {
            Some(next) => after = Some(next),
            None => break,
        }
    }
    assert_eq!(walked, vec![m3, m2, m1]);
    let f = |f: fn(&mut IcmFilter)| {
        let mut filter = IcmFilter::default();
        f(&mut filter);
        filter
    };
    assert_eq!(
        ids(&store, f(|f| f.source = Some(Id([0x99; 32])))).await,
        vec![m3]
    );
    assert_eq!(
        ids(&store, f(|f| f.destination = Some(chain_id(B)))).await,
        vec![m3, m2, m1]
    );
    assert_eq!(
        ids(&store, f(|f| f.either_chain = Some(chain_id(A)))).await,
        vec![m2, m1]
    );
    assert_eq!(
        ids(&store, f(|f| f.sender = Some(Address::repeat_byte(0x52)))).await,
        vec![m2]
    );
    assert_eq!(
        ids(
            &store,
            f(|f| f.recipient = Some(Address::repeat_byte(0xdd)))
        )
        .await,
        vec![m3, m2, m1]
    );
    assert_eq!(
        ids(&store, f(|f| f.party = Some(Address::repeat_byte(0x51)))).await,
        vec![m1]
    );
    let both = f(|f| {
        f.either_chain = Some(chain_id(A));
        f.party = Some(Address::repeat_byte(0xdd));
    });
    assert_eq!(ids(&store, both).await, vec![m2, m1]);

    // The txs' sides.
    let sent = store.list_icm_tx_messages(A, a1.txs[1].hash).await.unwrap();
    assert_eq!(sent.len(), 1);
    assert_eq!((sent[0].message_id, sent[0].side), (m2, IcmSide::Source));
    assert_eq!(
        (sent[0].peer_blockchain_id, sent[0].peer_evm_chain_id),
        (b, Some(B))
    );
    let delivered = store.list_icm_tx_messages(B, b1.txs[1].hash).await.unwrap();
    assert_eq!(
        (delivered[0].message_id, delivered[0].side),
        (m3, IcmSide::Destination)
    );
    assert_eq!(delivered[0].peer_evm_chain_id, None);
    assert!(
        store
            .list_icm_tx_messages(A, b1.txs[1].hash)
            .await
            .unwrap()
            .is_empty()
    );

    // Counts by day and pair, and the time range.
    let counts = store
        .count_icm_messages(None, None, 0, 10_000, 86_400)
        .await
        .unwrap();
    let mut pairs: Vec<_> = counts
        .iter()
        .map(|c| (c.start_ts, c.source, c.count))
        .collect();
    pairs.sort();
    assert_eq!(pairs, vec![(0, a, 2), (0, Id([0x99; 32]), 1)]);
    assert_eq!(
        store.find_icm_time_range(Some(a), None).await.unwrap(),
        Some((1_000, 1_000))
    );
    assert_eq!(
        store.find_icm_time_range(None, Some(b)).await.unwrap(),
        Some((1_000, 1_010))
    );
    assert_eq!(
        store.find_icm_time_range(Some(b), None).await.unwrap(),
        None
    );

    // A second fee added to M2 at block 3; rolling A back to block 2 goes back to the first
    // addition, not to the sent fee.
    let m2_fee = |store: Store| async move {
        let m = store.find_icm_message(m2).await.unwrap().unwrap();
        m.fee.unwrap().fee
    };
    let a3 = block(
        A,
        3,
        1_040,
        vec![vec![TeleporterEvent::FeeAdded {
            message_id: m2,
            fee: fee(800),
        }]],
    );
    store.commit_evm_blocks(&[a3]).await.unwrap();
    assert_eq!(m2_fee(store.clone()).await, fee(800));
    store.rollback_evm_chain(A, 2).await.unwrap();
    assert_eq!(m2_fee(store.clone()).await, fee(500));

    // Rolling A back to block 1 takes back the receipt and the added fee.
    store.rollback_evm_chain(A, 1).await.unwrap();
    let got1 = store.find_icm_message(m1).await.unwrap().unwrap();
    assert!(!got1.receipt_delivered && got1.executed);
    assert_eq!(
        store
            .find_icm_message(m2)
            .await
            .unwrap()
            .unwrap()
            .fee
            .unwrap()
            .fee,
        fee(100)
    );
    // Rolling B back to nothing: M3 is gone, M1 is pending again.
    store.rollback_evm_chain(B, 0).await.unwrap();
    assert!(store.find_icm_message(m3).await.unwrap().is_none());
    let got1 = store.find_icm_message(m1).await.unwrap().unwrap();
    assert_eq!(got1.status(), IcmStatus::Pending);
    assert!(!got1.executed);
    // And A to nothing: nothing is left.
    store.rollback_evm_chain(A, 0).await.unwrap();
    assert_eq!(ids(&store, IcmFilter::default()).await, Vec::<Id>::new());
}

/// Messages of megabytes: a page stops at the payload budget (the first message whatever its
/// size) and the next page goes on, every payload whole.
pub async fn icm_pages_stop_at_a_payload_budget(store: Store) {
    store.upsert_evm_chain(&evm_chain(A)).await.unwrap();
    let big = 3 * 1024 * 1024;
    for n in 1..=3u64 {
        let mut m = message(n, chain_id(B), 0x51);
        m.message = vec![n as u8; big];
        let b = block(
            A,
            n,
            1_000 + n,
            vec![vec![TeleporterEvent::Sent {
                message_id: Id([n as u8; 32]),
                message: m,
                fee: fee(0),
            }]],
        );
        store.commit_evm_blocks(&[b]).await.unwrap();
    }
    let mut walked = Vec::new();
    let mut after = None;
    loop {
        let p = store
            .list_icm_messages(&IcmFilter::default(), &page(10, after))
            .await
            .unwrap();
        assert_eq!(
            p.items.len(),
            1,
            "3 MiB each: one a page under a 4 MiB budget"
        );
        for m in &p.items {
            assert_eq!(m.payload.len(), big);
            assert!(m.payload.iter().all(|b| *b == m.nonce.to::<u8>()));
        }
        walked.extend(p.items.iter().map(|m| m.message_id));
        match p.next {
            Some(next) => after = Some(next),
            None => break,
        }
    }
    assert_eq!(walked, vec![Id([3; 32]), Id([2; 32]), Id([1; 32])]);
    // One by ID comes whole.
    let found = store.find_icm_message(Id([2; 32])).await.unwrap().unwrap();
    assert_eq!(found.payload.len(), big);
}
