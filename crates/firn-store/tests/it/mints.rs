//! A token's mints and burns by address (what the Metrics API's bridged amounts add up), its
//! transfers in chain order and the addresses active on a chain (what the composite query
//! replays and reads).

use firn_store::rows::evm::EvmBlockRows;
use firn_store::rows::metrics::NetMint;
use firn_store::types::{Address, U256};
use firn_store::{EvmWriter, MetricsReader, PageRequest, Store};

use crate::fixtures::{erc20_transfers_block, evm_address, evm_chain};

const CHAIN: u64 = 43_114;

/// A block on [`CHAIN`] with the given ERC-20 transfers.
fn block(number: u64, transfers: &[(Address, Address, Address, u64)]) -> EvmBlockRows {
    erc20_transfers_block(CHAIN, number, transfers)
}

pub async fn token_mints_and_burns_by_address(store: Store) {
    store.upsert_evm_chain(&evm_chain(CHAIN)).await.unwrap();
    let (token, other) = (evm_address(500), evm_address(501));
    let (a, b) = (evm_address(1), evm_address(2));
    let zero = Address::ZERO;
    assert_eq!(
        store.list_net_mints(CHAIN, token, 10).await.unwrap(),
        Some(Vec::new())
    );
    store
        .commit_evm_blocks(&[
            block(1, &[(token, zero, a, 100), (token, zero, b, 30)]),
            block(
                2,
                &[
                    (token, a, b, 7),
                    (other, zero, a, 1_000),
                    (token, zero, a, 50),
                ],
            ),
            block(3, &[(token, a, zero, 20), (token, b, zero, 40)]),
        ])
        .await
        .unwrap();
    firn_store::testing::record_reads(&store);
    let sums = store.list_net_mints(CHAIN, token, 5).await.unwrap();
    let want = vec![
        NetMint {
            address: a,
            minted: U256::from(150),
            burned: U256::from(20),
        },
        NetMint {
            address: b,
            minted: U256::from(30),
            burned: U256::from(40),
        },
    ];
    assert_eq!(
        sums,
        Some(want.clone()),
        "by address; transfers between holders left out"
    );
    assert_eq!(want[0].net(), U256::from(130));
    assert_eq!(want[1].net(), U256::ZERO, "burned more than minted to it");
    assert_eq!(
        store.list_net_mints(CHAIN, token, 4).await.unwrap(),
        None,
        "five mints and burns are more than four"
    );
    assert_eq!(
        store.list_net_mints(CHAIN + 1, token, 5).await.unwrap(),
        Some(Vec::new())
    );
    firn_store::testing::assert_reads_use_indexes(&store).await;
}

/// A token's transfers in chain order, page by page and up to a block, for holder replays;
/// and the addresses active on a chain, by address.
pub async fn token_moves_and_chain_addresses(store: Store) {
    store.upsert_evm_chain(&evm_chain(CHAIN)).await.unwrap();
    let (token, other) = (evm_address(500), evm_address(501));
    let zero = Address::ZERO;
    let blocks: Vec<EvmBlockRows> = (1..=6u64)
        .map(|n| {
            block(
                n,
                &[
                    (token, zero, evm_address(n), n * 10),
                    (other, zero, evm_address(n), 1),
                    (token, evm_address(n), evm_address(n + 1), n),
                ],
            )
        })
        .collect();
    store.commit_evm_blocks(&blocks).await.unwrap();
    firn_store::testing::record_reads(&store);
    // Up to block 5, three per page.
    let mut page = PageRequest::first(3);
    let mut got = Vec::new();
    loop {
        let moves = store
            .list_token_moves(CHAIN, token, 5, &page)
            .await
            .unwrap();
        got.extend(moves.iter().map(|m| (m.key.number, m.from, m.to, m.value)));
        match moves.last() {
            Some(last) if moves.len() == 3 => page = PageRequest::after(3, last.key),
            _ => break,
        }
    }
    let want: Vec<_> = blocks[..5]
        .iter()
        .flat_map(|b| {
            b.transfers
                .iter()
                .filter(|t| t.token == token)
                .map(|t| (b.block.number, t.from, t.to, t.value))
        })
        .collect();
    assert_eq!(got, want, "the token's transfers up to block 5, in order");
    assert!(
        store
            .list_token_moves(CHAIN + 1, token, 5, &PageRequest::first(3))
            .await
            .unwrap()
            .is_empty()
    );

    // The senders of the blocks' transactions (the fixture's transfers are sent by their
    // `from`, to the token).
    let mut page = PageRequest::first(2);
    let mut seen = Vec::new();
    loop {
        let read = store.list_chain_addresses(CHAIN, &page).await.unwrap();
        seen.extend(read.iter().copied());
        match read.last() {
            Some(last) if read.len() == 2 => page = PageRequest::after(2, *last),
            _ => break,
        }
    }
    let mut want: Vec<Address> = blocks
        .iter()
        .flat_map(|b| b.txs.iter().flat_map(|t| [Some(t.from), t.to]))
        .flatten()
        .collect();
    want.sort();
    want.dedup();
    assert_eq!(seen, want);
    firn_store::testing::assert_reads_use_indexes(&store).await;
}
