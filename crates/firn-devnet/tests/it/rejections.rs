use crate::common::*;
use firn_core::ids::Id;
use firn_core::pchain::block::{Block, BlockKind};
use firn_core::pchain::fx::Output;
use firn_core::pchain::tx::{Tx, UnsignedTx};
use firn_devnet::error::DevnetError;
use firn_devnet::store::{AcceptedBlock, BlockStore};
use firn_devnet::vm::PChain;
use firn_devnet::wallet::Wallet;

/// What a rejected tx must not change.
fn snapshot(chain: &PChain) -> (u64, u64, usize, u64, usize) {
    (
        chain.height(),
        chain.current_supply(),
        chain.with_state(|s| s.utxo_count()),
        chain.balance(chain.funded_addresses()).total,
        chain.mempool_len(),
    )
}

fn base_of(tx: &Tx) -> firn_core::pchain::tx::BaseTx {
    match tx.unsigned() {
        UnsignedTx::Base(b) => b.clone(),
        _ => unreachable!(),
    }
}

fn setup(name: &str) -> (TempDir, PChain) {
    let dir = temp_dir(name);
    let chain = open_in(dir.path(), config());
    (dir, chain)
}

#[test]
fn malformed_unsigned_and_wrongly_signed_txs_are_refused_without_effect() {
    let (_dir, chain) = setup("reject-sig");
    let key = chain.config().funded_key(0);
    let other = chain.config().funded_key(1);
    let wallet = Wallet::with_keys(&chain, vec![chain.config().funded_key(0)]);
    let to = chain.funded_addresses()[4];
    let before = snapshot(&chain);

    let err = chain.issue_tx_bytes(&[0, 0, 0, 0, 0, 34, 1]).unwrap_err();
    assert!(err.to_string().starts_with("couldn't parse tx:"), "{err}");

    let good = wallet.send(to, AVAX).unwrap();
    let unsigned = Tx::new(good.unsigned().clone(), Vec::new());
    assert_eq!(
        chain.issue_tx(unsigned).unwrap_err().to_string(),
        "wrong number of credentials: 1 inputs != 0 credentials"
    );

    let wrong = resign(good.unsigned().clone(), &other);
    let err = chain.issue_tx(wrong).unwrap_err().to_string();
    assert_eq!(
        err,
        format!(
            "failed to verify transfer: wrong signature: expected signature from {} but got from {}",
            key.public_key().short_id(),
            other.public_key().short_id()
        )
    );

    let mut b = base_of(&good);
    b.network_id = 1;
    assert_eq!(
        chain
            .issue_tx(resign(UnsignedTx::Base(b), &key))
            .unwrap_err()
            .to_string(),
        "metadata failed verification: tx has wrong network ID"
    );
    let mut b = base_of(&good);
    b.memo = vec![1, 2, 3].into();
    assert_eq!(
        chain
            .issue_tx(resign(UnsignedTx::Base(b), &key))
            .unwrap_err()
            .to_string(),
        "memo exceeds maximum length: 3 > 0"
    );
    let mut b = base_of(&good);
    b.outputs.reverse();
    if b.outputs.len() > 1 {
        assert_eq!(
            chain
                .issue_tx(resign(UnsignedTx::Base(b), &key))
                .unwrap_err()
                .to_string(),
            "outputs not sorted"
        );
    }
    assert_eq!(snapshot(&chain), before);
    assert_eq!(chain.build_block().unwrap(), None);
}

#[test]
fn underfunded_tx_is_refused_with_the_flow_check_text() {
    let (_dir, chain) = setup("reject-funds");
    let key = chain.config().funded_key(0);
    let wallet = Wallet::with_keys(&chain, vec![chain.config().funded_key(0)]);
    let good = wallet.send(chain.funded_addresses()[4], AVAX).unwrap();
    let before = snapshot(&chain);
    let mut b = base_of(&good);
    // Raise the payment by 7 AVAX without adding inputs.
    for o in &mut b.outputs {
        if o.output.amount() == AVAX
            && let Output::Transfer(t) = &mut o.output
        {
            t.amount += 7 * AVAX;
        }
    }
    let err = chain
        .issue_tx(resign(UnsignedTx::Base(b), &key))
        .unwrap_err();
    let avax = chain.network().avax_asset_id;
    assert_eq!(
        err.to_string(),
        format!(
            "insufficient unlocked funds: needs {} more {avax}",
            7 * AVAX
        )
    );
    assert_eq!(snapshot(&chain), before);

    // The wallet itself refuses to overspend.
    let all = chain.balance(&[key.public_key().short_id()]).unlocked;
    assert!(wallet.send(chain.funded_addresses()[4], all).is_err());
}

#[test]
fn double_spends_are_refused_in_the_mempool_and_against_spent_utxos() {
    let (_dir, chain) = setup("reject-double");
    let wallet = Wallet::with_keys(&chain, vec![chain.config().funded_key(0)]);
    let first = wallet.send(chain.funded_addresses()[4], AVAX).unwrap();
    let second = wallet.send(chain.funded_addresses()[5], 2 * AVAX).unwrap();
    let spent = base_of(&first).inputs[0].clone();
    assert_eq!(
        base_of(&second).inputs[0],
        spent,
        "both spend the same UTXO"
    );

    chain.issue_tx(first.clone()).unwrap();
    assert_eq!(
        chain.issue_tx(first.clone()).unwrap_err().to_string(),
        "duplicate tx"
    );
    let before = snapshot(&chain);
    assert_eq!(
        chain.issue_tx(second.clone()).unwrap_err().to_string(),
        "tx conflicts with other tx"
    );
    assert_eq!(snapshot(&chain), before);
    chain.clock().advance(1);
    chain.build_until_idle().unwrap();

    let before = snapshot(&chain);
    assert_eq!(
        chain.issue_tx(second).unwrap_err().to_string(),
        format!(
            "failed to read consumed UTXO {}:{} due to: not found",
            spent.tx_id, spent.output_index
        )
    );
    assert_eq!(
        chain.issue_tx(first).unwrap_err().to_string(),
        "duplicate tx"
    );
    assert_eq!(snapshot(&chain), before);
}

#[test]
fn a_stored_block_with_a_double_spend_is_rejected_on_replay() {
    let dir = temp_dir("reject-block");
    let (first, second, genesis_id, time) = {
        let chain = open_in(dir.path(), config());
        let key = chain.config().funded_key(0);
        let wallet = Wallet::with_keys(&chain, vec![key]);
        let a = wallet.send(chain.funded_addresses()[4], AVAX).unwrap();
        let b = wallet.send(chain.funded_addresses()[5], 2 * AVAX).unwrap();
        (
            a,
            b,
            chain.last_accepted().unwrap().block.id(),
            chain.timestamp(),
        )
    };
    // Append, by hand, a block spending one UTXO twice.
    {
        let (mut store, blocks) = BlockStore::open(dir.path()).unwrap();
        assert_eq!(blocks.len(), 1);
        let block = Block::new(
            genesis_id,
            1,
            BlockKind::BanffStandard {
                time: time + 1,
                txs: vec![first, second],
            },
        );
        store
            .append(&AcceptedBlock {
                block,
                proposer: blocks[0].proposer,
            })
            .unwrap();
    }
    let err = PChain::open(
        config(),
        dir.path(),
        firn_devnet::clock::Clock::frozen(time),
    )
    .unwrap_err();
    match err {
        DevnetError::InvalidBlock { height, source } => {
            assert_eq!(height, 1);
            assert!(
                source
                    .to_string()
                    .starts_with("failed to read consumed UTXO"),
                "{source}"
            );
        }
        other => panic!("unexpected error {other}"),
    }
    let _ = Id::ZERO;
}

#[test]
fn a_tx_that_turns_invalid_before_its_block_is_dropped_with_the_reason() {
    let (_dir, chain) = setup("reject-dropped");
    let cfg = chain.config();
    let wallet = Wallet::with_keys(&chain, vec![cfg.funded_key(0)]);
    let node = cfg.validator_node_id(0);
    // Exactly the minimum duration now; one second too short once the clock moves on.
    let end = chain.timestamp() + cfg.staking.min_stake_duration_secs;
    let tx = wallet
        .add_delegator(node, 100 * AVAX, end, wallet.change_address())
        .unwrap();
    let id = chain.issue_tx(tx).unwrap();
    assert_eq!(chain.tx_status(&id), firn_devnet::vm::TxStatus::Processing);
    let before = snapshot(&chain);
    chain.clock().advance(1);
    assert_eq!(chain.build_block().unwrap(), None);
    assert_eq!(
        chain.tx_status(&id),
        firn_devnet::vm::TxStatus::Dropped("staking period is too short".into())
    );
    assert_eq!(chain.mempool_len(), 0);
    assert_eq!(snapshot(&chain).0, before.0);
    assert_eq!(chain.with_state(|s| s.utxo_count()), before.2);
}
