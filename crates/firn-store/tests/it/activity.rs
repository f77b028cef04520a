//! An address's whole activity, its internal transactions, a token's transfers, a deployer's
//! contracts and blocks by time, each walked page by page against a model of the generated
//! history, with every read on an index.

use firn_store::page::{DeploymentCursor, EventCursor, TxCursor};
use firn_store::rows::evm::{EvmBlockRows, TokenStandard};
use firn_store::testing::StoreUrl;
use firn_store::types::{Address, U256};
use firn_store::{
    AddressFilter, EvmReader, EvmTxFilter, EvmWriter, PageRequest, SortOrder, Store, TxParties,
};

use crate::fixtures::{
    ERC20, ERC721, ERC1155, EvmHistory, FACTORY, activity_of, evm_address, evm_chain, minted_ids,
    moves_of,
};
use crate::upgraded::undo_and_reopen;

const CHAIN: u64 = 43114;
const RARE: u64 = 900_100;

/// Every page of a list, 3 rows at a time: `walk!(p => store.list_…(…, &p))`.
macro_rules! walk {
    ($p:ident => $fetch:expr) => {{
        let mut out = Vec::new();
        let mut after = None;
        loop {
            let $p = PageRequest { limit: 3, after };
            let page = $fetch.await.unwrap();
            out.extend(page.items);
            match page.next {
                Some(c) => after = Some(c),
                None => break out,
            }
        }
    }};
}

/// The transactions `a` took part in within `range` (blocks), oldest first.
fn model_activity(blocks: &[EvmBlockRows], a: Address, range: (u64, u64)) -> Vec<(u64, u32)> {
    let within: Vec<EvmBlockRows> = blocks
        .iter()
        .filter(|b| (range.0..range.1).contains(&b.block.number))
        .cloned()
        .collect();
    activity_of(&within, a)
}

pub async fn evm_address_activity(store: Store) {
    firn_store::testing::record_reads(&store);
    store.upsert_evm_chain(&evm_chain(CHAIN)).await.unwrap();
    let mut h = EvmHistory::new(21, CHAIN, 6);
    let mut blocks: Vec<_> = (0..90).map(|_| h.next_block()).collect();
    // A rare token: a few ERC-20 transfers move it instead, so that walking its transfers
    // must seek (a common token's walk may pass over others on a small table).
    let mut rare_transfers = 0;
    for b in blocks.iter_mut().step_by(9) {
        if let Some(t) = b
            .transfers
            .iter_mut()
            .find(|t| t.standard == TokenStandard::Erc20)
        {
            t.token = evm_address(RARE);
            rare_transfers += 1;
        }
    }
    assert!(rare_transfers > 3);
    store.commit_evm_blocks(&blocks).await.unwrap();
    firn_store::testing::analyze(&store).await;
    let everything = (0, u64::MAX);

    // Whole activity, both orders and a block range; effects name only the address's part.
    let mut only_indirect = 0;
    for (a, order, range) in [
        (evm_address(2), SortOrder::Desc, everything),
        (evm_address(4), SortOrder::Asc, everything),
        (evm_address(1), SortOrder::Desc, (20, 61)),
        (evm_address(FACTORY), SortOrder::Desc, everything),
        (Address::ZERO, SortOrder::Asc, everything),
    ] {
        let filter = EvmTxFilter {
            chain_id: CHAIN,
            address: Some(a),
            parties: TxParties::Any,
            start_block: (range.0 > 0).then_some(range.0),
            end_block: (range.1 < u64::MAX).then_some(range.1),
            order,
            ..EvmTxFilter::default()
        };
        let got = walk!(p => store.list_evm_txs(&filter, &p));
        let mut want = model_activity(&blocks, a, range);
        if order == SortOrder::Desc {
            want.reverse();
        }
        let positions: Vec<TxCursor> = got
            .iter()
            .map(|t| TxCursor {
                height: t.block_number,
                index: t.tx.index,
            })
            .collect();
        assert_eq!(
            positions
                .iter()
                .map(|p| (p.height, p.index))
                .collect::<Vec<_>>(),
            want,
            "{filter:?}"
        );
        let effects = store
            .list_evm_tx_effects(CHAIN, &positions, a)
            .await
            .unwrap();
        assert_eq!(effects.len(), positions.len());
        for (p, e) in positions.iter().zip(&effects) {
            let b = &blocks[(p.height - 1) as usize];
            let transfers: Vec<_> = b
                .transfers
                .iter()
                .filter(|t| t.tx_index == p.index && (t.from == a || t.to == a))
                .cloned()
                .collect();
            let internal: Vec<_> = b
                .internal_txs
                .iter()
                .filter(|i| i.tx_index == p.index && (i.from == a || i.to == a) && i.moves_value())
                .cloned()
                .collect();
            let got: Vec<_> = e.transfers.iter().map(|t| t.transfer.clone()).collect();
            assert_eq!(got, transfers, "{p:?}");
            assert_eq!(e.internal_txs, internal, "{p:?}");
            let tx = &b.txs[p.index as usize];
            if tx.from != a && tx.to != Some(a) && tx.contract_address != Some(a) {
                only_indirect += 1;
                assert!(!e.transfers.is_empty() || !e.internal_txs.is_empty());
            }
        }
    }
    assert!(
        only_indirect > 10,
        "the history lists transactions only through transfers and calls"
    );

    // Internal transactions that move value, by caller or callee.
    check_internal_txs(&store, &blocks, evm_address(3), everything).await;
    // Contracts by deployer: a factory's (internal, not reverted) and a sender's (direct).
    for deployer in [evm_address(FACTORY), evm_address(0), evm_address(3)] {
        let got: Vec<DeploymentCursor> = walk!(p => store.list_contracts(CHAIN, deployer, &p))
            .iter()
            .map(|c| {
                let tx_from = blocks[(c.deployment.block_number - 1) as usize].txs
                    [c.deployment.tx_index as usize]
                    .from;
                assert_eq!(c.tx_from, tx_from);
                DeploymentCursor {
                    height: c.deployment.block_number,
                    index: c.deployment.tx_index,
                    address: c.deployment.address,
                }
            })
            .collect();
        let mut want = Vec::new();
        for b in &blocks {
            for t in b.txs.iter().filter(|t| t.success) {
                if let (true, Some(c)) = (t.from == deployer, t.contract_address) {
                    want.push(DeploymentCursor {
                        height: b.block.number,
                        index: t.index,
                        address: c,
                    });
                }
                let created = b.internal_txs.iter().filter(|i| {
                    i.tx_index == t.index
                        && i.from == deployer
                        && !i.reverted
                        && (i.call_type == "CREATE" || i.call_type == "CREATE2")
                });
                want.extend(created.map(|i| DeploymentCursor {
                    height: b.block.number,
                    index: t.index,
                    address: i.to,
                }));
            }
        }
        want.sort();
        want.reverse();
        assert_eq!(got, want, "{deployer:?}");
    }
    let token = store
        .find_contract(CHAIN, evm_address(ERC20))
        .await
        .unwrap();
    assert!(token.is_none(), "the fixture's tokens were never deployed");
    let factory_made = store
        .list_contracts(CHAIN, evm_address(FACTORY), &PageRequest::first(1))
        .await
        .unwrap()
        .items
        .remove(0);
    let found = store
        .find_contract(CHAIN, factory_made.deployment.address)
        .await
        .unwrap();
    assert_eq!(found, Some(factory_made));

    // The chains an address took part on: a second chain where only some addresses appear.
    const OTHER: u64 = CHAIN + 1;
    store.upsert_evm_chain(&evm_chain(OTHER)).await.unwrap();
    let mut other = EvmHistory::new(4, OTHER, 3);
    let other_blocks: Vec<_> = (0..6).map(|_| other.next_block()).collect();
    store.commit_evm_blocks(&other_blocks).await.unwrap();
    let mut both = 0;
    for a in (0..6).map(evm_address).chain([evm_address(999)]) {
        let mut want = Vec::new();
        if !model_activity(&blocks, a, everything).is_empty() {
            want.push(CHAIN);
        }
        if !model_activity(&other_blocks, a, everything).is_empty() {
            want.push(OTHER);
        }
        both += usize::from(want.len() == 2);
        let got: Vec<u64> = store
            .list_address_evm_chains(a)
            .await
            .unwrap()
            .iter()
            .map(|c| c.chain_id)
            .collect();
        assert_eq!(got, want, "{a:?}");
    }
    assert!(
        both > 0 && both < 6,
        "some addresses are on both chains, some on one"
    );

    // A collection's tokens: every ID minted, once, by ID.
    for token in [ERC721, ERC1155] {
        let token = evm_address(token);
        let got: Vec<U256> = walk!(p => store.list_nft_tokens(CHAIN, token, &p))
            .iter()
            .map(|m| m.token_id)
            .collect();
        let minted = minted_ids(&blocks, token);
        assert!(minted.len() > 3);
        assert_eq!(got, minted.into_iter().collect::<Vec<_>>());
    }

    // Blocks by time: the last block strictly before a moment.
    for b in blocks.iter().step_by(7) {
        let ts = b.block.timestamp;
        let want = blocks
            .iter()
            .filter(|x| x.block.timestamp < ts)
            .map(|x| x.block.number)
            .max();
        assert_eq!(
            store.find_last_evm_block_before(CHAIN, ts).await.unwrap(),
            want
        );
    }
    assert_eq!(
        store.find_last_evm_block_before(CHAIN, 0).await.unwrap(),
        None
    );
    check_token_transfers(&store, &blocks, RARE, everything).await;
    check_token_transfers(&store, &blocks, 999, everything).await;
    firn_store::testing::assert_reads_use_indexes(&store).await;
    // Once reads are no longer checked: walks of many rows in a small table, where
    // PostgreSQL rightly prefers the primary key and a filter (a block range, a common token).
    check_internal_txs(&store, &blocks, evm_address(5), (10, 50)).await;
    for (token, range) in [
        (ERC20, everything),
        (ERC721, (30, 70)),
        (ERC1155, everything),
    ] {
        check_token_transfers(&store, &blocks, token, range).await;
    }
}

/// Walks a token's transfers against the model.
async fn check_token_transfers(
    store: &Store,
    blocks: &[EvmBlockRows],
    token: u64,
    range: (u64, u64),
) {
    let filter = AddressFilter {
        chain_id: CHAIN,
        address: evm_address(token),
        start_block: (range.0 > 0).then_some(range.0),
        end_block: (range.1 < u64::MAX).then_some(range.1),
    };
    let got: Vec<EventCursor> = walk!(p => store.list_token_transfers(&filter, &p))
        .iter()
        .map(|t| EventCursor {
            height: t.block_number,
            index: t.transfer.log_index,
            sub: t.transfer.batch_index,
        })
        .collect();
    let mut want: Vec<EventCursor> = blocks
        .iter()
        .filter(|b| (range.0..range.1).contains(&b.block.number))
        .flat_map(|b| {
            b.transfers
                .iter()
                .filter(|t| t.token == filter.address)
                .map(|t| EventCursor {
                    height: b.block.number,
                    index: t.log_index,
                    sub: t.batch_index,
                })
        })
        .collect();
    want.reverse();
    assert_eq!(got, want, "{filter:?}");
}

/// Walks the internal transactions of `a` that move value against the model.
async fn check_internal_txs(store: &Store, blocks: &[EvmBlockRows], a: Address, range: (u64, u64)) {
    let filter = AddressFilter {
        chain_id: CHAIN,
        address: a,
        start_block: (range.0 > 0).then_some(range.0),
        end_block: (range.1 < u64::MAX).then_some(range.1),
    };
    let got = walk!(p => store.list_address_internal_txs(&filter, &p));
    let mut want: Vec<_> = moves_of(blocks, a)
        .into_iter()
        .filter(|(b, _)| (range.0..range.1).contains(&b.block.number))
        .map(|(b, i)| (b.block.number, i.clone(), b.txs[i.tx_index as usize].hash))
        .collect();
    want.reverse();
    assert!(
        want.len() > 3,
        "{a:?} has internal transactions to page through"
    );
    let got: Vec<_> = got
        .into_iter()
        .map(|r| {
            assert_eq!(
                r.block_hash,
                blocks[(r.block_number - 1) as usize].block.hash
            );
            (r.block_number, r.internal, r.tx_hash)
        })
        .collect();
    assert_eq!(got, want, "{filter:?}");
}

/// A store made before versions 8 and 9 gets its activity table and its ERC-20 balances
/// derived from what it holds: the same lists as a store that had them from the start.
pub async fn older_store_gets_address_activity(url: StoreUrl) {
    let mut h = EvmHistory::new(33, CHAIN, 5);
    // Enough that a token's transfers take several of the ERC-20 upgrade's reads.
    let blocks: Vec<_> = (0..2_500).map(|_| h.next_block()).collect();
    let twenty = evm_address(crate::fixtures::ERC20);
    let moves = blocks
        .iter()
        .flat_map(|b| &b.transfers)
        .filter(|t| t.token == twenty);
    assert!(
        moves.count() > 1_000,
        "more transfers than one upgrade read"
    );
    let store = url.open().await;
    store.upsert_evm_chain(&evm_chain(CHAIN)).await.unwrap();
    store.commit_evm_blocks(&blocks).await.unwrap();
    let lists = async |store: &Store| {
        let mut out: Vec<Vec<String>> = Vec::new();
        for a in (0..5)
            .map(evm_address)
            .chain([Address::ZERO, evm_address(FACTORY)])
        {
            let filter = EvmTxFilter {
                chain_id: CHAIN,
                address: Some(a),
                parties: TxParties::Any,
                ..EvmTxFilter::default()
            };
            let page = store
                .list_evm_txs(&filter, &PageRequest::first(1_000))
                .await
                .unwrap();
            out.push(
                page.items
                    .iter()
                    .map(|t| format!("{:#x}", t.tx.hash))
                    .collect(),
            );
            let balances = store
                .list_erc20_balances(CHAIN, a, &[], &PageRequest::first(1_000))
                .await
                .unwrap();
            out.push(
                balances
                    .items
                    .iter()
                    .map(|b| format!("{:#x}={}", b.token, b.balance))
                    .collect(),
            );
        }
        out
    };
    let fresh = lists(&store).await;
    assert!(fresh.iter().step_by(2).all(|l| !l.is_empty()));
    assert!(fresh.iter().skip(1).step_by(2).any(|l| !l.is_empty()));
    let undo = [
        "DROP TABLE evm_address_activity",
        "DROP INDEX evm_internal_txs_by_from",
        "DROP INDEX evm_internal_txs_by_to",
        "DROP INDEX evm_transfers_by_token",
        "DROP INDEX evm_contracts_by_deployer",
        "DROP INDEX evm_blocks_by_time",
        "DELETE FROM _sqlx_migrations WHERE version = 8",
        "DROP TABLE evm_erc20_balances",
        "DROP INDEX evm_collectibles_by_standard",
        "DELETE FROM store_upgrades",
        "DELETE FROM _sqlx_migrations WHERE version = 9",
    ];
    let store = undo_and_reopen(&url, store, &undo).await;
    assert_eq!(lists(&store).await, fresh);
    store.close().await;
}
