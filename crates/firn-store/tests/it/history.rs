//! Token balances at a past block: the newest balances with the transfers since undone, on
//! both backends, against a fold of the generated history up to that block. The generator
//! lets holders overdraw ERC-20 tokens (the store ends them at zero); those pairs cannot be
//! replayed exactly and are left out of the ERC-20 comparison.

use std::collections::BTreeMap;

use firn_store::rows::evm::{BalanceMismatch, EvmBlockRows, TokenStandard};
use firn_store::types::{Address, U256};
use firn_store::{EvmReader, EvmWriter, PageRequest, Store};

use crate::fixtures::{
    EvmHistory, all_pages, erc20_balances, erc20_overdrawn, evm_address, evm_chain,
};

const CHAIN: u64 = 43115;

/// ERC-1155 balances a fold of `blocks` gives, by (holder, token, id); zeros left out.
fn erc1155_fold(blocks: &[EvmBlockRows]) -> BTreeMap<(Address, Address, U256), U256> {
    let mut held: BTreeMap<(Address, Address, U256), U256> = BTreeMap::new();
    for t in blocks.iter().flat_map(|b| &b.transfers) {
        let Some(id) = t.token_id.filter(|_| t.standard == TokenStandard::Erc1155) else {
            continue;
        };
        if t.from != Address::ZERO {
            let b = held.entry((t.from, t.token, id)).or_default();
            *b = b.saturating_sub(t.value);
        }
        if t.to != Address::ZERO {
            let b = held.entry((t.to, t.token, id)).or_default();
            *b = b.saturating_add(t.value);
        }
    }
    held.retain(|_, b| !b.is_zero());
    held
}

pub async fn evm_balances_at_past_blocks(store: Store) {
    store.upsert_evm_chain(&evm_chain(CHAIN)).await.unwrap();
    let mut h = EvmHistory::new(11, CHAIN, 6);
    let blocks: Vec<_> = (0..150).map(|_| h.next_block()).collect();
    for chunk in blocks.chunks(50) {
        store.commit_evm_blocks(chunk).await.unwrap();
    }
    let head = blocks.last().unwrap().block.number;
    let overdrawn = erc20_overdrawn(&blocks);
    let mut compared = 0;
    for at in [blocks[0].block.number, 40, 99, head - 1, head] {
        let upto: Vec<_> = blocks
            .iter()
            .filter(|b| b.block.number <= at)
            .cloned()
            .collect();
        let erc20 = erc20_balances(&upto);
        let erc1155 = erc1155_fold(&upto);
        for n in 0..6 {
            let owner = evm_address(n);
            // ERC-20, a page of one at a time.
            let store = &store;
            let pages = all_pages(|after| async move {
                let request = PageRequest { limit: 1, after };
                store
                    .list_erc20_balances_at(CHAIN, owner, at, &[], &request)
                    .await
                    .unwrap()
            })
            .await;
            let got: Vec<_> = pages
                .into_iter()
                .map(|b| (b.token, b.balance, b.token_info))
                .collect();
            let want: Vec<(Address, U256)> = erc20
                .get(&owner)
                .into_iter()
                .flatten()
                .map(|(t, b)| (*t, *b))
                .collect();
            let exact = |t: &Address| !overdrawn.contains(&(owner, *t));
            let got_exact: Vec<(Address, U256)> = got
                .iter()
                .filter(|(t, _, _)| exact(t))
                .map(|(t, b, _)| (*t, *b))
                .collect();
            let want_exact: Vec<_> = want.iter().filter(|(t, _)| exact(t)).cloned().collect();
            assert_eq!(
                got_exact, want_exact,
                "ERC-20 balances of {owner:#x} at {at}"
            );
            assert!(
                got.iter()
                    .all(|(_, b, info)| !b.is_zero() && info.is_some())
            );
            compared += want_exact.len();
            // Narrowed to one contract.
            if let Some((token, balance)) = want_exact.first() {
                let one = store
                    .list_erc20_balances_at(CHAIN, owner, at, &[*token], &PageRequest::first(5))
                    .await
                    .unwrap();
                assert_eq!(one.items.len(), 1);
                assert_eq!(one.items[0].balance, *balance);
            }
            // ERC-1155, two at a time.
            let pages = all_pages(|after| async move {
                let request = PageRequest { limit: 2, after };
                store
                    .list_erc1155_balances_at(CHAIN, owner, at, None, &request)
                    .await
                    .unwrap()
            })
            .await;
            let got: Vec<_> = pages
                .iter()
                .map(|c| (c.token, c.token_id, c.balance))
                .collect();
            let want: Vec<_> = erc1155
                .iter()
                .filter(|((o, _, _), _)| *o == owner)
                .map(|((_, t, id), b)| (*t, *id, *b))
                .collect();
            assert_eq!(got, want, "ERC-1155 balances of {owner:#x} at {at}");
            compared += want.len();
        }
    }
    assert!(compared > 50, "only {compared} balances compared");
    // A block the store has not reached is refused.
    let refused = store
        .list_erc20_balances_at(CHAIN, evm_address(1), head + 1, &[], &PageRequest::first(5))
        .await;
    assert!(refused.is_err());
}

/// Evidence of a token whose `balanceOf` disagrees with its transfers: the first is kept, a
/// lookup finds the tokens that have it, and a rollback below its block forgets it.
pub async fn evm_balance_mismatches(store: Store) {
    store.upsert_evm_chain(&evm_chain(CHAIN)).await.unwrap();
    let mut h = EvmHistory::new(12, CHAIN, 4);
    let blocks: Vec<_> = (0..20).map(|_| h.next_block()).collect();
    store.commit_evm_blocks(&blocks[..10]).await.unwrap();
    store.commit_evm_blocks(&blocks[10..]).await.unwrap();
    let (early, late) = (blocks[5].block.number, blocks[15].block.number);
    let token = |n: u8| Address::repeat_byte(n);
    let evidence = |t: u8, block_number: u64, reported: u64| BalanceMismatch {
        token: token(t),
        block_number,
        holder: evm_address(1),
        derived: U256::from(100u64),
        reported: U256::from(reported),
    };
    assert!(
        store
            .add_balance_mismatch(CHAIN, &evidence(1, early, 110))
            .await
            .unwrap()
    );
    assert!(
        !store
            .add_balance_mismatch(CHAIN, &evidence(1, late, 120))
            .await
            .unwrap()
    );
    assert!(
        store
            .add_balance_mismatch(CHAIN, &evidence(2, late, 90))
            .await
            .unwrap()
    );
    let mut found = store
        .list_balance_mismatches(CHAIN, &[token(1), token(2), token(3)])
        .await
        .unwrap();
    found.sort_by_key(|m| m.token);
    assert_eq!(found, vec![evidence(1, early, 110), evidence(2, late, 90)]);
    // Another chain knows nothing of them.
    let other = store
        .list_balance_mismatches(CHAIN + 1, &[token(1)])
        .await
        .unwrap();
    assert!(other.is_empty());
    // Too many tokens at once is an error, not a huge query.
    let many: Vec<Address> = (0..=firn_store::MAX_TOKEN_LOOKUP as u32)
        .map(|i| Address::left_padding_from(&i.to_be_bytes()))
        .collect();
    assert!(store.list_balance_mismatches(CHAIN, &many).await.is_err());
    // Rolled back below the later evidence: only the earlier remains.
    store
        .rollback_evm_chain(CHAIN, blocks[9].block.number)
        .await
        .unwrap();
    let found = store
        .list_balance_mismatches(CHAIN, &[token(1), token(2)])
        .await
        .unwrap();
    assert_eq!(found, vec![evidence(1, early, 110)]);
}
