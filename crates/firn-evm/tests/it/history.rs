//! The state at recent blocks: after every block of transfers, token transfers and
//! deployments, what the chain answers for each earlier block equals what it answered at that
//! block's head; calls run on an earlier block's state; blocks older than the kept history
//! are not answered; a restarted chain rebuilds the history by replaying.

use alloy_primitives::{Address, Bytes, U256};
use firn_evm::history::STATE_HISTORY;
use firn_evm::testing::{
    chain, deploy_token, erc20_transfers, key, plain_transfers, sign, transfer_data,
};
use firn_evm::{CallRequest, EvmChain};

/// What the chain says of `addresses` (and slot 0..4 of each) at its head.
fn snapshot(c: &EvmChain, addresses: &[Address]) -> Vec<(U256, u64, Bytes, Vec<U256>)> {
    addresses
        .iter()
        .map(|a| {
            let slots = (0..4u64).map(|s| c.storage(a, U256::from(s))).collect();
            (c.balance(a), c.nonce(a), c.code(a), slots)
        })
        .collect()
}

/// What the chain says of them at block `n`.
fn snapshot_at(c: &EvmChain, addresses: &[Address], n: u64) -> Vec<(U256, u64, Bytes, Vec<U256>)> {
    addresses
        .iter()
        .map(|a| {
            let slots = (0..4u64)
                .map(|s| c.storage_at(a, U256::from(s), n).unwrap())
                .collect();
            (
                c.balance_at(a, n).unwrap(),
                c.nonce_at(a, n).unwrap(),
                c.code_at(a, n).unwrap(),
                slots,
            )
        })
        .collect()
}

fn balance_of(token: Address, owner: Address) -> CallRequest {
    let mut data = vec![0x70, 0xa0, 0x82, 0x31];
    data.extend([0u8; 12]);
    data.extend(owner.as_slice());
    CallRequest {
        to: Some(token),
        input: Some(Bytes::from(data)),
        ..CallRequest::default()
    }
}

#[test]
fn earlier_blocks_read_as_they_were() {
    let c = chain(2, 30_000_000);
    let (a, b) = (key(0), key(1));
    let recipient = Address::repeat_byte(0x42);
    let mut watched = vec![a.address(), b.address(), recipient];
    let mut seen = vec![(0u64, snapshot(&c, &watched))];
    let token = deploy_token(&c, &a, 0);
    watched.push(token);
    // Token transfers from a (new slots each), plain transfers from b, a second deployment.
    let mut nonce_a = 1;
    for round in 0..6u64 {
        for raw in erc20_transfers(&a, token, nonce_a, 3) {
            c.submit_raw_tx(&raw).unwrap();
        }
        nonce_a += 3;
        for raw in plain_transfers(&b, recipient, U256::from(round + 1), round, 1) {
            c.submit_raw_tx(&raw).unwrap();
        }
        if round == 3 {
            let data = transfer_data(recipient, U256::from(77));
            let raw = sign(&a, nonce_a, Some(token), U256::ZERO, data, 100_000);
            c.submit_raw_tx(&raw).unwrap();
            nonce_a += 1;
        }
        c.build_block().unwrap().unwrap();
        seen.push((c.height(), snapshot(&c, &watched)));
    }
    let head = c.height();
    for (n, want) in &seen {
        if *n == 0 {
            // Before the token existed.
            let got = snapshot_at(&c, &watched[..3], *n);
            assert_eq!(got, want[..3], "block {n}");
            continue;
        }
        assert_eq!(&snapshot_at(&c, &watched, *n), want, "block {n}");
        let old = c.call_at(&balance_of(token, recipient), Some(*n)).unwrap();
        let now = c.call(&balance_of(token, recipient)).unwrap();
        if *n == head {
            assert_eq!(old, now);
        }
    }
    // The recipient got 77 in the round-3 block: before it, balanceOf said 0.
    let before = c
        .call_at(&balance_of(token, recipient), Some(seen[3].0))
        .unwrap();
    assert_eq!(U256::from_be_slice(&before), U256::ZERO);
    let after = c
        .call_at(&balance_of(token, recipient), Some(seen[4].0))
        .unwrap();
    assert_eq!(U256::from_be_slice(&after), U256::from(77));
    assert!(
        c.balance_at(&recipient, head + 1).is_none(),
        "no such block"
    );
}

#[test]
fn only_the_last_blocks_are_kept() {
    let c = chain(1, 30_000_000);
    let k = key(0);
    let to = Address::repeat_byte(7);
    let blocks = STATE_HISTORY as u64 + 5;
    for nonce in 0..blocks {
        for raw in plain_transfers(&k, to, U256::from(1), nonce, 1) {
            c.submit_raw_tx(&raw).unwrap();
        }
        c.build_block().unwrap().unwrap();
    }
    let head = c.height();
    assert_eq!(head, blocks);
    let oldest = head - STATE_HISTORY as u64;
    assert_eq!(c.balance_at(&to, oldest), Some(U256::from(oldest)));
    assert_eq!(c.balance_at(&to, oldest - 1), None);
    assert!(c.has_state_at(head) && !c.has_state_at(0));
    assert!(
        c.call_at(&CallRequest::default(), Some(oldest - 1))
            .unwrap_err()
            .to_string()
            .contains("historical state")
    );
}
