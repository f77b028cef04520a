//! EVM: round trips, derived balances and deployments, atomicity, idempotence, transfer paging.

use std::collections::BTreeMap;

use firn_store::page::EventCursor;
use firn_store::rows::ChainKey;
use firn_store::rows::evm::{
    EvmBlockRows, EvmInternalTx, EvmLog, NftMetadata, Token, TokenStandard, TokenTransfer,
};
use firn_store::types::{Address, U256};
use firn_store::{
    CursorStore, EvmReader, EvmTxFilter, EvmWriter, MetricsReader, PageRequest, SortOrder, Store,
    StoreError, TransferFilter,
};

use crate::fixtures::{EvmHistory, b256, evm_address, evm_block, evm_chain, evm_tx};

const CHAIN: u64 = 43113;

fn hand_block() -> EvmBlockRows {
    let mut b = evm_block(CHAIN, 1, 1_700_000_000);
    let (alice, bob, factory) = (evm_address(1), evm_address(2), evm_address(3));
    let (erc20, nft, multi) = (evm_address(20), evm_address(721), evm_address(1155));
    let mut t0 = evm_tx(CHAIN, 1, 0, alice, None);
    t0.contract_address = Some(evm_address(100));
    t0.value = U256::MAX;
    t0.gas_price = U256::from(u64::MAX);
    let t1 = evm_tx(CHAIN, 1, 1, alice, Some(factory));
    let t2 = evm_tx(CHAIN, 1, 2, alice, Some(erc20));
    let t3 = evm_tx(CHAIN, 1, 3, bob, Some(nft));
    let t4 = evm_tx(CHAIN, 1, 4, bob, Some(multi));
    b.block.gas_used = [&t0, &t1, &t2, &t3, &t4].iter().map(|t| t.gas_used).sum();
    b.block.block_gas_cost = Some(U256::MAX);
    b.txs = vec![t0, t1, t2, t3, t4];
    b.internal_txs = vec![
        EvmInternalTx {
            tx_index: 1,
            trace_index: 0,
            from: factory,
            to: evm_address(101),
            call_type: "CREATE2".into(),
            value: U256::ZERO,
            gas_used: 1,
            gas_limit: 2,
            reverted: false,
        },
        EvmInternalTx {
            tx_index: 1,
            trace_index: 1,
            from: factory,
            to: evm_address(102),
            call_type: "CREATE".into(),
            value: U256::MAX,
            gas_used: 3,
            gas_limit: 4,
            reverted: true,
        },
    ];
    b.logs = vec![EvmLog {
        tx_index: 2,
        log_index: 0,
        address: erc20,
        topics: vec![b256(0xdd, 1), b256(0, 1), b256(0, 2)],
        data: U256::MAX.to_be_bytes::<32>().to_vec(),
    }];
    b.transfers = vec![
        TokenTransfer {
            tx_index: 2,
            log_index: 0,
            batch_index: 0,
            token: erc20,
            standard: TokenStandard::Erc20,
            from: alice,
            to: bob,
            token_id: None,
            value: U256::MAX,
        },
        TokenTransfer {
            tx_index: 3,
            log_index: 1,
            batch_index: 0,
            token: nft,
            standard: TokenStandard::Erc721,
            from: Address::ZERO,
            to: bob,
            token_id: Some(U256::MAX),
            value: U256::ONE,
        },
        TokenTransfer {
            tx_index: 4,
            log_index: 2,
            batch_index: 0,
            token: multi,
            standard: TokenStandard::Erc1155,
            from: Address::ZERO,
            to: bob,
            token_id: Some(U256::from(7u64)),
            value: U256::MAX,
        },
        TokenTransfer {
            tx_index: 4,
            log_index: 2,
            batch_index: 1,
            token: multi,
            standard: TokenStandard::Erc1155,
            from: Address::ZERO,
            to: alice,
            token_id: Some(U256::ONE),
            value: U256::from(5u64),
        },
    ];
    b.tokens = vec![
        Token {
            address: erc20,
            standard: TokenStandard::Erc20,
            name: "Twenty".into(),
            symbol: "TWE".into(),
            decimals: Some(6),
        },
        Token {
            address: nft,
            standard: TokenStandard::Erc721,
            // What a PostgreSQL array literal would misread if not quoted and escaped.
            name: "Se\"v,en} {\\x00 NULL ünï".into(),
            symbol: "NULL".into(),
            decimals: None,
        },
    ];
    b
}

pub async fn evm_round_trip(store: Store) {
    firn_store::testing::record_reads(&store);
    store.upsert_evm_chain(&evm_chain(CHAIN)).await.unwrap();
    let b = hand_block();
    store
        .commit_evm_blocks(std::slice::from_ref(&b))
        .await
        .unwrap();
    assert_eq!(
        store.find_cursor(ChainKey::Evm(CHAIN)).await.unwrap(),
        Some(1)
    );

    let rec = store.find_evm_block(CHAIN, 1).await.unwrap().unwrap();
    assert_eq!(rec.block, b.block);
    assert_eq!((rec.tx_count, rec.cumulative_txs), (5, 5));
    let mut fees = U256::ZERO;
    for t in &b.txs {
        fees = fees
            .checked_add(t.gas_price.checked_mul(U256::from(t.gas_used)).unwrap())
            .unwrap();
    }
    assert_eq!(rec.fees_spent, fees);
    assert_eq!(
        store
            .find_evm_block_by_hash(CHAIN, b.block.hash)
            .await
            .unwrap(),
        Some(rec.clone())
    );
    assert_eq!(store.find_evm_block(CHAIN, 2).await.unwrap(), None);
    assert_eq!(
        store
            .list_evm_blocks(CHAIN, &PageRequest::first(5))
            .await
            .unwrap()
            .items,
        vec![rec]
    );

    for t in &b.txs {
        let got = store.find_evm_tx(CHAIN, t.hash).await.unwrap().unwrap();
        assert_eq!(&got.tx, t);
        assert_eq!(
            (got.block_number, got.block_hash, got.timestamp),
            (1, b.block.hash, b.block.timestamp)
        );
    }
    let txs = store.list_evm_block_txs(CHAIN, 1).await.unwrap();
    assert_eq!(txs.into_iter().map(|t| t.tx).collect::<Vec<_>>(), b.txs);
    assert_eq!(
        store.list_evm_tx_logs(CHAIN, b.txs[2].hash).await.unwrap(),
        b.logs
    );
    assert_eq!(
        store
            .list_evm_internal_txs(CHAIN, b.txs[1].hash)
            .await
            .unwrap(),
        b.internal_txs
    );
    let in_tx = store
        .list_evm_tx_transfers(CHAIN, b.txs[4].hash)
        .await
        .unwrap();
    assert_eq!(
        in_tx.iter().map(|t| t.transfer.clone()).collect::<Vec<_>>(),
        b.transfers[2..].to_vec()
    );
    assert_eq!(
        in_tx[0].token, None,
        "no metadata for the ERC-1155 contract"
    );

    // uint256 max round-trips in values and token IDs; token metadata rides along.
    let bob_20 = store
        .list_transfers(
            &TransferFilter {
                chain_id: CHAIN,
                address: evm_address(2),
                standard: TokenStandard::Erc20,
                start_block: None,
                end_block: None,
            },
            &PageRequest::first(10),
        )
        .await
        .unwrap();
    assert_eq!(bob_20.items.len(), 1);
    assert_eq!(bob_20.items[0].transfer.value, U256::MAX);
    assert_eq!(bob_20.items[0].token, Some(b.tokens[0].clone()));
    assert_eq!(bob_20.items[0].tx_hash, b.txs[2].hash);
    assert_eq!(
        store.find_token(CHAIN, evm_address(721)).await.unwrap(),
        Some(b.tokens[1].clone())
    );
    // Several at once: only the tokens among them, none for an empty list, a bounded list.
    let mut found = store
        .find_tokens(
            CHAIN,
            &[evm_address(2), evm_address(721), b.tokens[0].address],
        )
        .await
        .unwrap();
    found.sort_by_key(|t| t.address);
    let mut want = vec![b.tokens[0].clone(), b.tokens[1].clone()];
    want.sort_by_key(|t| t.address);
    assert_eq!(found, want);
    assert!(
        store
            .find_tokens(CHAIN + 1, &[evm_address(721)])
            .await
            .unwrap()
            .is_empty()
    );
    assert!(store.find_tokens(CHAIN, &[]).await.unwrap().is_empty());
    let too_many = vec![evm_address(2); firn_store::MAX_TOKEN_LOOKUP + 1];
    assert!(store.find_tokens(CHAIN, &too_many).await.is_err());

    // Deployments: direct and CREATE2; the reverted CREATE is not a contract.
    let direct = store
        .find_contract_deployment(CHAIN, evm_address(100))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (
            direct.deployer,
            direct.tx_hash,
            direct.trace_index,
            direct.kind.as_str()
        ),
        (evm_address(1), b.txs[0].hash, None, "CREATE")
    );
    let inner = store
        .find_contract_deployment(CHAIN, evm_address(101))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (
            inner.deployer,
            inner.tx_hash,
            inner.trace_index,
            inner.kind.as_str()
        ),
        (evm_address(3), b.txs[1].hash, Some(0), "CREATE2")
    );
    assert_eq!(
        store
            .find_contract_deployment(CHAIN, evm_address(102))
            .await
            .unwrap(),
        None
    );

    // Collectibles, with metadata once fetched.
    let meta = NftMetadata {
        token: evm_address(721),
        token_id: U256::MAX,
        token_uri: "ipfs://x/1".into(),
        index_status: "INDEXED".into(),
        updated_at: Some(1_700_000_100),
        name: Some("One".into()),
        attributes: Some("[]".into()),
        ..Default::default()
    };
    store.upsert_nft_metadata(CHAIN, &meta).await.unwrap();
    assert_eq!(
        store
            .find_nft_metadata(CHAIN, evm_address(721), U256::MAX)
            .await
            .unwrap(),
        Some(meta.clone())
    );
    let held = store
        .list_collectibles(CHAIN, evm_address(2), None, None, &PageRequest::first(10))
        .await
        .unwrap();
    assert_eq!(held.items.len(), 2);
    assert_eq!(
        (
            held.items[0].token,
            held.items[0].token_id,
            held.items[0].balance
        ),
        (evm_address(721), U256::MAX, U256::ONE)
    );
    assert_eq!(held.items[0].metadata, Some(meta));
    assert_eq!(held.items[0].token_info, Some(b.tokens[1].clone()));
    assert_eq!(
        (held.items[1].token, held.items[1].balance),
        (evm_address(1155), U256::MAX)
    );
    // Minted in this history and not read yet: queued by the commit.
    assert_eq!(
        held.items[1]
            .metadata
            .as_ref()
            .map(|m| m.index_status.as_str()),
        Some(NftMetadata::URI_UNREAD)
    );
    let only = store
        .list_collectibles(
            CHAIN,
            evm_address(2),
            None,
            Some(evm_address(1155)),
            &PageRequest::first(10),
        )
        .await
        .unwrap();
    assert_eq!(only.items.len(), 1);
    firn_store::testing::assert_reads_use_indexes(&store).await;
}

pub async fn evm_failed_block_leaves_nothing(store: Store) {
    store.upsert_evm_chain(&evm_chain(CHAIN)).await.unwrap();
    let good = hand_block();
    // A block whose time does not fit the store's signed 64-bit column fails its batch.
    let mut bad = evm_block(CHAIN, 2, u64::MAX);
    bad.txs = vec![evm_tx(CHAIN, 2, 0, evm_address(1), Some(evm_address(1155)))];
    bad.transfers = vec![TokenTransfer {
        tx_index: 0,
        log_index: 0,
        batch_index: 0,
        token: evm_address(1155),
        standard: TokenStandard::Erc1155,
        from: evm_address(1),
        to: evm_address(2),
        token_id: Some(U256::ONE),
        value: U256::from(2u64),
    }];
    let err = store
        .commit_evm_blocks(&[good.clone(), bad.clone()])
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::OutOfRange { .. }), "{err}");
    // Nothing of the batch is there, the good block included.
    assert_eq!(store.find_cursor(ChainKey::Evm(CHAIN)).await.unwrap(), None);
    assert_eq!(store.find_evm_block(CHAIN, 1).await.unwrap(), None);
    assert!(
        store
            .list_collectibles(CHAIN, evm_address(2), None, None, &PageRequest::first(10))
            .await
            .unwrap()
            .items
            .is_empty()
    );
    assert!(
        store
            .list_chain_metrics(
                CHAIN,
                firn_store::rows::metrics::Granularity::Day,
                None,
                None,
                SortOrder::Asc,
                &PageRequest::first(10)
            )
            .await
            .unwrap()
            .items
            .is_empty()
    );
    store.commit_evm_blocks(&[good]).await.unwrap();
    assert_eq!(store.find_evm_block(CHAIN, 2).await.unwrap(), None);
}

/// Transfer events are anyone's to emit: one moving what its sender does not hold is
/// committed (the sender stays at zero), never a failed batch that would stop indexing.
pub async fn evm_forged_collectible_transfers_never_fail_a_commit(store: Store) {
    store.upsert_evm_chain(&evm_chain(CHAIN)).await.unwrap();
    store.commit_evm_blocks(&[hand_block()]).await.unwrap();
    let mut forged = evm_block(CHAIN, 2, 1_700_000_010);
    forged.txs = vec![evm_tx(CHAIN, 2, 0, evm_address(9), Some(evm_address(1155)))];
    let transfer = |standard, token: u64, id: U256, value: U256, log_index| TokenTransfer {
        tx_index: 0,
        log_index,
        batch_index: 0,
        token: evm_address(token),
        standard,
        from: evm_address(1),
        to: evm_address(3),
        token_id: Some(id),
        value,
    };
    forged.transfers = vec![
        // Alice holds 5 of id 1: a transfer of 6 leaves her at zero, and Carol gets 6.
        transfer(TokenStandard::Erc1155, 1155, U256::ONE, U256::from(6u64), 0),
        // An ERC-721 moved by someone who never held it, and an amount at the very top.
        transfer(TokenStandard::Erc721, 721, U256::from(77u64), U256::ONE, 1),
        transfer(TokenStandard::Erc1155, 1155, U256::from(9u64), U256::MAX, 2),
        transfer(TokenStandard::Erc1155, 1155, U256::from(9u64), U256::MAX, 3),
    ];
    store.commit_evm_blocks(&[forged]).await.unwrap();
    assert_eq!(
        store.find_cursor(ChainKey::Evm(CHAIN)).await.unwrap(),
        Some(2)
    );
    let alice = store
        .list_collectibles(
            CHAIN,
            evm_address(1),
            None,
            Some(evm_address(1155)),
            &PageRequest::first(10),
        )
        .await
        .unwrap();
    assert!(
        alice.items.iter().all(|c| c.token_id != U256::ONE),
        "no negative or leftover balance: {:?}",
        alice.items
    );
    let carol = store
        .list_collectibles(CHAIN, evm_address(3), None, None, &PageRequest::first(10))
        .await
        .unwrap();
    let got: Vec<_> = carol
        .items
        .iter()
        .map(|c| (c.token, c.token_id, c.balance))
        .collect();
    assert!(
        got.contains(&(evm_address(1155), U256::ONE, U256::from(6u64))),
        "{got:?}"
    );
    assert!(
        got.contains(&(evm_address(721), U256::from(77u64), U256::ONE)),
        "{got:?}"
    );
    assert!(
        got.contains(&(evm_address(1155), U256::from(9u64), U256::MAX)),
        "{got:?}"
    );
}

pub async fn evm_recommit_is_a_noop(store: Store) {
    store.upsert_evm_chain(&evm_chain(CHAIN)).await.unwrap();
    let mut h = EvmHistory::new(3, CHAIN, 4);
    let blocks: Vec<_> = (0..30).map(|_| h.next_block()).collect();
    store.commit_evm_blocks(&blocks[..20]).await.unwrap();
    let metrics_before = store
        .list_chain_metrics(
            CHAIN,
            firn_store::rows::metrics::Granularity::Hour,
            None,
            None,
            SortOrder::Asc,
            &PageRequest::first(1_000),
        )
        .await
        .unwrap();
    let again = store.commit_evm_blocks(&blocks[..20]).await.unwrap();
    assert_eq!((again.committed, again.skipped), (0, 20));
    let metrics_after = store
        .list_chain_metrics(
            CHAIN,
            firn_store::rows::metrics::Granularity::Hour,
            None,
            None,
            SortOrder::Asc,
            &PageRequest::first(1_000),
        )
        .await
        .unwrap();
    assert_eq!(metrics_before, metrics_after);
    let rest = store.commit_evm_blocks(&blocks[15..]).await.unwrap();
    assert_eq!((rest.committed, rest.skipped), (10, 5));
    assert_eq!(
        store.find_cursor(ChainKey::Evm(CHAIN)).await.unwrap(),
        Some(30)
    );
    let tip = store.find_evm_block(CHAIN, 30).await.unwrap().unwrap();
    let txs: usize = blocks.iter().map(|b| b.txs.len()).sum();
    assert_eq!(tip.cumulative_txs, txs as u64);
    let mut other = blocks[3].clone();
    other.block.hash = b256(9, 9);
    let err = store.commit_evm_blocks(&[other]).await.unwrap_err();
    assert!(
        matches!(err, StoreError::ConflictingBlock { height: 4, .. }),
        "{err}"
    );
    let err = store
        .commit_evm_blocks(&[evm_block(CHAIN, 40, 1_800_000_000)])
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            StoreError::OutOfOrder {
                cursor: 30,
                height: 40,
                ..
            }
        ),
        "{err}"
    );
    // Collectible balances were applied once.
    check_collectibles(&store, &h).await;
}

fn expected_transfers(blocks: &[EvmBlockRows], f: &TransferFilter) -> Vec<(u64, u32, u32)> {
    let mut out: Vec<(u64, u32, u32)> = blocks
        .iter()
        .filter(|b| {
            f.start_block.is_none_or(|s| b.block.number >= s)
                && f.end_block.is_none_or(|e| b.block.number < e)
        })
        .flat_map(|b| {
            b.transfers
                .iter()
                .filter(|t| t.standard == f.standard && (t.from == f.address || t.to == f.address))
                .map(move |t| (b.block.number, t.log_index, t.batch_index))
        })
        .collect();
    out.reverse();
    out
}

async fn walk_transfers(store: &Store, f: &TransferFilter, limit: u32) -> Vec<(u64, u32, u32)> {
    let mut out = Vec::new();
    let mut after: Option<EventCursor> = None;
    loop {
        let page = store
            .list_transfers(f, &PageRequest { limit, after })
            .await
            .unwrap();
        out.extend(
            page.items
                .iter()
                .map(|t| (t.block_number, t.transfer.log_index, t.transfer.batch_index)),
        );
        match page.next {
            Some(c) => after = Some(c),
            None => return out,
        }
    }
}

pub async fn evm_transfer_filters_and_paging(store: Store) {
    firn_store::testing::record_reads(&store);
    store.upsert_evm_chain(&evm_chain(CHAIN)).await.unwrap();
    let mut h = EvmHistory::new(5, CHAIN, 6);
    let blocks: Vec<_> = (0..200).map(|_| h.next_block()).collect();
    for chunk in blocks.chunks(40) {
        store.commit_evm_blocks(chunk).await.unwrap();
    }
    for address in [
        evm_address(0),
        evm_address(3),
        Address::ZERO,
        evm_address(77),
    ] {
        for standard in [
            TokenStandard::Erc20,
            TokenStandard::Erc721,
            TokenStandard::Erc1155,
        ] {
            for (start_block, end_block) in [
                (None, None),
                (Some(50), None),
                (None, Some(120)),
                (Some(60), Some(61)),
                (Some(100), Some(150)),
            ] {
                let f = TransferFilter {
                    chain_id: CHAIN,
                    address,
                    standard,
                    start_block,
                    end_block,
                };
                let want = expected_transfers(&blocks, &f);
                for limit in [4, 1_000] {
                    assert_eq!(
                        walk_transfers(&store, &f, limit).await,
                        want,
                        "{f:?} limit {limit}"
                    );
                }
            }
        }
    }
    // New blocks landing between pages neither repeat nor skip rows of the walk.
    let f = TransferFilter {
        chain_id: CHAIN,
        address: evm_address(1),
        standard: TokenStandard::Erc20,
        start_block: None,
        end_block: None,
    };
    let snapshot = expected_transfers(&h.blocks, &f);
    let mut got = Vec::new();
    let mut after = None;
    loop {
        let page = store
            .list_transfers(&f, &PageRequest { limit: 3, after })
            .await
            .unwrap();
        got.extend(
            page.items
                .iter()
                .map(|t| (t.block_number, t.transfer.log_index, t.transfer.batch_index)),
        );
        let more: Vec<_> = (0..4).map(|_| h.next_block()).collect();
        store.commit_evm_blocks(&more).await.unwrap();
        match page.next {
            Some(c) => after = Some(c),
            None => break,
        }
    }
    assert_eq!(got, snapshot);
    check_collectibles(&store, &h).await;
    firn_store::testing::assert_reads_use_indexes(&store).await;
}

async fn check_collectibles(store: &Store, h: &EvmHistory) {
    let mut by_owner: BTreeMap<Address, Vec<(Address, U256, U256)>> = BTreeMap::new();
    for ((owner, token, id), balance) in &h.holdings {
        by_owner
            .entry(*owner)
            .or_default()
            .push((*token, *id, *balance));
    }
    for n in 0..8 {
        let owner = evm_address(n);
        let want = by_owner.get(&owner).cloned().unwrap_or_default();
        let (store, chain_id) = (&store, h.chain_id);
        let pages = crate::fixtures::all_pages(|after| async move {
            let request = PageRequest { limit: 2, after };
            store
                .list_collectibles(chain_id, owner, None, None, &request)
                .await
                .unwrap()
        })
        .await;
        let got: Vec<_> = pages
            .iter()
            .map(|c| (c.token, c.token_id, c.balance))
            .collect();
        assert_eq!(got, want, "holdings of {owner:#x}");
        let nft = crate::fixtures::evm_address(crate::fixtures::ERC721);
        let only = store
            .list_collectibles(h.chain_id, owner, None, Some(nft), &PageRequest::first(500))
            .await
            .unwrap();
        let want_nft: Vec<_> = want.iter().filter(|(t, _, _)| *t == nft).cloned().collect();
        assert_eq!(
            only.items
                .iter()
                .map(|c| (c.token, c.token_id, c.balance))
                .collect::<Vec<_>>(),
            want_nft
        );
        let multi = crate::fixtures::evm_address(crate::fixtures::ERC1155);
        let only = store
            .list_collectibles(
                h.chain_id,
                owner,
                Some(TokenStandard::Erc1155),
                None,
                &PageRequest::first(500),
            )
            .await
            .unwrap();
        let want_multi: Vec<_> = want
            .iter()
            .filter(|(t, _, _)| *t == multi)
            .cloned()
            .collect();
        assert_eq!(
            only.items
                .iter()
                .map(|c| (c.token, c.token_id, c.balance))
                .collect::<Vec<_>>(),
            want_multi
        );
    }
    check_erc20_balances(store, h).await;
}

/// Every holder's ERC-20 balances, page by page and narrowed to contracts, against a fold
/// of the history's transfers (a sender short of the amount ends at zero, as in the store).
async fn check_erc20_balances(store: &Store, h: &EvmHistory) {
    let want = crate::fixtures::erc20_balances(&h.blocks);
    let mut holders = 0;
    for n in 0..8 {
        let owner = evm_address(n);
        let want: Vec<_> = want
            .get(&owner)
            .into_iter()
            .flatten()
            .map(|(t, b)| (*t, *b))
            .collect();
        holders += usize::from(!want.is_empty());
        let mut got = Vec::new();
        let mut after = None;
        loop {
            let page = store
                .list_erc20_balances(h.chain_id, owner, &[], &PageRequest { limit: 1, after })
                .await
                .unwrap();
            got.extend(page.items.iter().map(|b| (b.token, b.balance)));
            match page.next {
                Some(c) => after = Some(c),
                None => break,
            }
        }
        assert_eq!(got, want, "ERC-20 balances of {owner:#x}");
        let twenty = crate::fixtures::evm_address(crate::fixtures::ERC20);
        let narrowed = store
            .list_erc20_balances(
                h.chain_id,
                owner,
                &[twenty, evm_address(404)],
                &PageRequest::first(10),
            )
            .await
            .unwrap();
        let names: Vec<_> = narrowed
            .items
            .iter()
            .map(|b| b.token_info.as_ref().map(|t| t.symbol.as_str()))
            .collect();
        assert_eq!(
            names.len(),
            want.iter().filter(|(t, _)| *t == twenty).count()
        );
        assert!(names.iter().all(|s| *s == Some("TWE")), "{names:?}");
    }
    assert!(holders > 1, "the history leaves several ERC-20 holders");
    let too_many = vec![evm_address(1); firn_store::MAX_LISTED_CONTRACTS + 1];
    assert!(
        store
            .list_erc20_balances(
                h.chain_id,
                evm_address(1),
                &too_many,
                &PageRequest::first(10)
            )
            .await
            .is_err()
    );
}

/// A block big enough that its rows take several multi-row statements.
pub async fn evm_large_block_round_trip(store: Store) {
    store.upsert_evm_chain(&evm_chain(CHAIN)).await.unwrap();
    let block = crate::fixtures::erc20_block(CHAIN, 1, 1_700_000_000, 3_000);
    store
        .commit_evm_blocks(std::slice::from_ref(&block))
        .await
        .unwrap();
    let rec = store.find_evm_block(CHAIN, 1).await.unwrap().unwrap();
    assert_eq!(rec.tx_count, 3_000);
    let token = evm_address(1_000_000);
    let f = TransferFilter {
        chain_id: CHAIN,
        address: token,
        standard: TokenStandard::Erc20,
        start_block: None,
        end_block: None,
    };
    assert!(
        walk_transfers(&store, &f, 1_000).await.is_empty(),
        "the token contract is not a party"
    );
    let want: usize = block
        .transfers
        .iter()
        .filter(|t| t.from == evm_address(7) || t.to == evm_address(7))
        .count();
    let f = TransferFilter {
        address: evm_address(7),
        ..f
    };
    assert!(want > 1);
    assert_eq!(walk_transfers(&store, &f, 1_000).await.len(), want);
    let day = store
        .list_chain_metrics(
            CHAIN,
            firn_store::rows::metrics::Granularity::Day,
            None,
            None,
            SortOrder::Asc,
            &PageRequest::first(10),
        )
        .await
        .unwrap();
    let senders: std::collections::BTreeSet<Address> = block.txs.iter().map(|t| t.from).collect();
    assert_eq!(day.items[0].active_senders, senders.len() as u64);
    assert_eq!(day.items[0].tx_count, 3_000);
}

pub async fn evm_tx_lists(store: Store) {
    firn_store::testing::record_reads(&store);
    store.upsert_evm_chain(&evm_chain(CHAIN)).await.unwrap();
    let mut h = EvmHistory::new(9, CHAIN, 5);
    let blocks: Vec<_> = (0..80).map(|_| h.next_block()).collect();
    store.commit_evm_blocks(&blocks).await.unwrap();
    let chain = |address: Option<u64>, start_block, end_block| EvmTxFilter {
        chain_id: CHAIN,
        address: address.map(evm_address),
        start_block,
        end_block,
        ..EvmTxFilter::default()
    };
    let filters = [
        chain(None, None, None),
        chain(None, Some(10), Some(30)),
        chain(Some(2), None, None),
        chain(Some(crate::fixtures::ERC20), Some(40), None),
        chain(Some(500_000 + 3 * 10), None, None),
        EvmTxFilter {
            chain_id: CHAIN + 1,
            ..EvmTxFilter::default()
        },
        // Oldest first, over everything and over one address and block.
        EvmTxFilter {
            order: SortOrder::Asc,
            ..chain(None, None, None)
        },
        EvmTxFilter {
            order: SortOrder::Asc,
            ..chain(Some(2), Some(5), Some(70))
        },
        EvmTxFilter {
            order: SortOrder::Asc,
            ..chain(None, Some(7), Some(8))
        },
        // By receipt status, either order.
        EvmTxFilter {
            success: Some(false),
            ..chain(None, None, None)
        },
        EvmTxFilter {
            success: Some(false),
            order: SortOrder::Asc,
            ..chain(None, Some(20), None)
        },
        EvmTxFilter {
            success: Some(true),
            ..chain(None, None, Some(60))
        },
    ];
    for f in &filters {
        let mut want: Vec<(u64, u32)> = blocks
            .iter()
            .filter(|b| b.chain_id == f.chain_id)
            .filter(|b| {
                f.start_block.is_none_or(|s| b.block.number >= s)
                    && f.end_block.is_none_or(|e| b.block.number < e)
            })
            .flat_map(|b| {
                b.txs
                    .iter()
                    .filter(|t| {
                        f.address.is_none_or(|a| {
                            t.from == a || t.to == Some(a) || t.contract_address == Some(a)
                        }) && f.success.is_none_or(|s| t.success == s)
                    })
                    .map(move |t| (b.block.number, t.index))
            })
            .collect();
        if f.order == SortOrder::Desc {
            want.reverse();
        }
        let mut got = Vec::new();
        let mut after = None;
        loop {
            let page = store
                .list_evm_txs(f, &PageRequest { limit: 4, after })
                .await
                .unwrap();
            for t in &page.items {
                assert_eq!(
                    t.block_hash,
                    blocks[(t.block_number - 1) as usize].block.hash
                );
            }
            got.extend(page.items.iter().map(|t| (t.block_number, t.tx.index)));
            match page.next {
                Some(c) => after = Some(c),
                None => break,
            }
        }
        assert_eq!(got, want, "{f:?}");
    }
    let failed = filters[9].clone();
    let page = store
        .list_evm_txs(&failed, &PageRequest::first(100))
        .await
        .unwrap();
    assert!(page.items.len() > 2, "the history has failed transactions");
    let with_address = EvmTxFilter {
        address: Some(evm_address(2)),
        ..failed
    };
    let refused = store
        .list_evm_txs(&with_address, &PageRequest::first(10))
        .await;
    assert!(
        matches!(refused, Err(firn_store::StoreError::UnsupportedFilter(_))),
        "{refused:?}"
    );
    firn_store::testing::assert_reads_use_indexes(&store).await;
}
