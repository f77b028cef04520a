//! Token balances at a past block: the newest balances with the transfers since undone, on
//! both backends, against a fold of the generated history up to that block. The generator
//! lets holders overdraw ERC-20 tokens (the store ends them at zero); those pairs cannot be
//! replayed exactly and are left out of the ERC-20 comparison.

use std::collections::BTreeMap;

use firn_store::rows::evm::{EvmBlockRows, TokenStandard};
use firn_store::types::{Address, U256};
use firn_store::{EvmReader, EvmWriter, PageRequest, Store};

use crate::fixtures::{EvmHistory, erc20_balances, erc20_overdrawn, evm_address, evm_chain};

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
            let mut got = Vec::new();
            let mut after = None;
            loop {
                let request = PageRequest { limit: 1, after };
                let page = store
                    .list_erc20_balances_at(CHAIN, owner, at, &[], &request)
                    .await
                    .unwrap();
                got.extend(
                    page.items
                        .iter()
                        .map(|b| (b.token, b.balance, b.token_info.clone())),
                );
                match page.next {
                    Some(c) => after = Some(c),
                    None => break,
                }
            }
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
            let mut got = Vec::new();
            let mut after = None;
            loop {
                let request = PageRequest { limit: 2, after };
                let page = store
                    .list_erc1155_balances_at(CHAIN, owner, at, None, &request)
                    .await
                    .unwrap();
                got.extend(page.items.iter().map(|c| (c.token, c.token_id, c.balance)));
                match page.next {
                    Some(c) => after = Some(c),
                    None => break,
                }
            }
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
