//! `eth_getProof`'s proofs: at the head and at every kept block, each account's and each
//! slot's proof verifies (with alloy-trie's verifier) against that block's header state root,
//! for accounts that exist, accounts that did not yet, slots set, changed and never written.

use alloy_primitives::{Address, B256, U256, keccak256};
use alloy_trie::{Nibbles, TrieAccount, proof::verify_proof};
use firn_evm::testing::{chain, deploy_token, erc20_transfers, key, mapping_slot, plain_transfers};
use firn_evm::{AccountProof, EvmChain};

/// Checks `p` against block `n`'s header and the chain's own answers; returns how many of its
/// slots hold a value.
fn check(c: &EvmChain, address: Address, p: &AccountProof, n: u64) -> usize {
    let root = c.block_by_number(n).unwrap().header.state_root;
    let exists = c.nonce_at(&address, n).unwrap() > 0
        || !c.balance_at(&address, n).unwrap().is_zero()
        || !c.code_at(&address, n).unwrap().is_empty();
    let leaf = exists.then(|| {
        alloy_rlp::encode(TrieAccount {
            nonce: p.nonce,
            balance: p.balance,
            storage_root: p.storage_root,
            code_hash: p.code_hash,
        })
    });
    verify_proof(
        root,
        Nibbles::unpack(keccak256(address)),
        leaf,
        &p.account_proof,
    )
    .unwrap_or_else(|e| panic!("{address} at {n}: {e:?}"));
    assert_eq!(p.balance, c.balance_at(&address, n).unwrap());
    assert_eq!(p.nonce, c.nonce_at(&address, n).unwrap());
    if !exists {
        assert_eq!((p.code_hash, p.storage_root), (B256::ZERO, B256::ZERO));
    }
    let mut set = 0;
    for s in &p.storage {
        let value = c
            .storage_at(&address, U256::from_be_bytes(s.slot.0), n)
            .unwrap();
        assert_eq!(s.value, value);
        let leaf = (!value.is_zero()).then(|| alloy_rlp::encode(value));
        set += usize::from(leaf.is_some());
        if p.storage_root == alloy_trie::EMPTY_ROOT_HASH || !exists {
            assert!(s.proof.is_empty());
            continue;
        }
        verify_proof(
            p.storage_root,
            Nibbles::unpack(keccak256(s.slot)),
            leaf,
            &s.proof,
        )
        .unwrap_or_else(|e| panic!("{address} slot {} at {n}: {e:?}", s.slot));
    }
    set
}

#[test]
fn proofs_verify_against_every_kept_blocks_state_root() {
    let c = chain(2, 30_000_000);
    let (a, b) = (key(0), key(1));
    let recipient = Address::repeat_byte(0x42);
    let token = deploy_token(&c, &a, 0);
    let deployed_at = c.height();
    let mut nonce_a = 1;
    for round in 0..5u64 {
        for raw in erc20_transfers(&a, token, nonce_a, 4) {
            c.submit_raw_tx(&raw).unwrap();
        }
        nonce_a += 4;
        for raw in plain_transfers(&b, recipient, U256::from(round + 1), round, 1) {
            c.submit_raw_tx(&raw).unwrap();
        }
        c.build_block().unwrap().unwrap();
    }
    // Balance slots of the holders (FirnToken keeps `balanceOf` at slot 4) and their neighbours.
    let holders = [
        a.address(),
        b.address(),
        recipient,
        Address::repeat_byte(0x99),
    ];
    let slots: Vec<B256> = holders
        .iter()
        .flat_map(|h| (3..6).map(|i| mapping_slot(*h, i)))
        .chain([B256::ZERO, B256::with_last_byte(2)])
        .collect();
    let mut slots_with_values = 0;
    for n in 0..=c.height() {
        for address in [
            a.address(),
            b.address(),
            recipient,
            token,
            Address::repeat_byte(0x77),
        ] {
            let p = c.proof_at(&address, &slots, n).unwrap();
            let set = check(&c, address, &p, n);
            if address == token && n >= deployed_at {
                slots_with_values += set;
            }
        }
    }
    assert!(slots_with_values > 0, "some proved slots hold balances");
    let before_token = c.proof_at(&token, &slots, deployed_at - 1).unwrap();
    assert_eq!(
        before_token.code_hash,
        B256::ZERO,
        "the token did not exist yet"
    );
    assert!(
        c.proof_at(&token, &[], c.height() + 1).is_none(),
        "no such block"
    );
}

#[test]
fn intermediate_roots_end_at_each_blocks_state_root() {
    let c = chain(2, 30_000_000);
    let (a, b) = (key(0), key(1));
    let recipient = Address::repeat_byte(0x42);
    let token = deploy_token(&c, &a, 0);
    // A block that creates a second token between transfers of the first, and one with a
    // failing transfer (b holds no tokens) among plain ones.
    let init = firn_evm::testing::token_init_code("Two", "TWO", U256::from(1000));
    let mut raws = erc20_transfers(&a, token, 1, 2);
    raws.push(firn_evm::testing::sign(
        &a,
        3,
        None,
        U256::ZERO,
        init,
        3_000_000,
    ));
    raws.extend(erc20_transfers(&a, token, 4, 2));
    raws.extend(plain_transfers(&b, recipient, U256::from(7), 0, 2));
    for raw in &raws {
        c.submit_raw_tx(raw).unwrap();
    }
    c.build_block().unwrap().unwrap();
    let data = firn_evm::testing::transfer_data(recipient, U256::from(1));
    let failing = firn_evm::testing::sign(&b, 2, Some(token), U256::ZERO, data, 100_000);
    c.submit_raw_tx(&failing).unwrap();
    for raw in plain_transfers(&b, recipient, U256::from(1), 3, 2) {
        c.submit_raw_tx(&raw).unwrap();
    }
    c.build_block().unwrap().unwrap();
    for n in 1..=c.height() {
        let block = c.block_by_number(n).unwrap();
        let roots = c.intermediate_roots(n).unwrap();
        assert_eq!(roots.len(), block.txs.len(), "block {n}");
        assert_eq!(roots.last(), Some(&block.header.state_root), "block {n}");
        let parent = c.block_by_number(n - 1).unwrap().header.state_root;
        let distinct: std::collections::HashSet<_> = roots.iter().chain([&parent]).collect();
        assert_eq!(
            distinct.len(),
            roots.len() + 1,
            "every tx changes the state"
        );
    }
    assert!(
        c.intermediate_roots(0).is_err(),
        "genesis has no transactions to re-run"
    );
}
