use crate::common::*;
use firn_core::ids::{Id, NodeId};
use firn_core::pchain::block::BlockKind;
use firn_devnet::genesis::derive_bls;
use firn_devnet::math;
use firn_devnet::state::RewardKind;
use firn_devnet::vm::TxStatus;
use firn_devnet::wallet::Wallet;

#[test]
fn validator_and_delegator_are_rewarded_and_get_their_stake_back() {
    let dir = temp_dir("staking");
    let chain = open_in(dir.path(), config());
    let wallet = Wallet::new(&chain);
    let keys = chain.funded_addresses().to_vec();
    let (validator_reward_to, delegator_reward_to) = (keys[5], keys[6]);
    let supply0 = chain.current_supply();
    let node = NodeId([7; 20]);
    let sk = derive_bls("test", "node", 0).unwrap();

    // A plain transfer burns its dynamic fee: its gas at the price (1 nAVAX at genesis).
    let send = wallet.send(keys[9], 5 * AVAX).unwrap();
    let base_fee = chain.fee_of(send.unsigned()).unwrap();
    let (_, price) = chain.fee_state();
    assert_eq!(price, 1);
    // One input with one signature and two outputs (AvalancheGo's BaseTx complexity):
    // bandwidth (the tx's length), 1 read, 3 writes, 200 compute.
    let len = send.bytes().len() as u64;
    assert_eq!(base_fee, len + 1_000 + 3 * 1_000 + 4 * 200);
    issue_and_build(&chain, send);
    // As in AvalancheGo, the current supply is an upper bound that keeps burnt fees.
    assert_eq!(chain.current_supply(), supply0);
    assert_eq!(chain.burned_fees(), base_fee);
    assert_eq!(chain.circulating_supply(), supply0 - base_fee);

    let now = chain.timestamp();
    let vtx = wallet
        .add_validator(
            node,
            &sk,
            10_000 * AVAX,
            now + 30 * DAY,
            validator_reward_to,
            20_000,
        )
        .unwrap();
    // The stake comes from stakeable-locked funds first.
    let locked_stake = match vtx.unsigned() {
        firn_core::pchain::tx::UnsignedTx::AddPermissionlessValidator(t) => {
            t.stake.iter().all(|o| o.output.stakeable_locktime() > 0)
        }
        _ => false,
    };
    assert!(
        locked_stake,
        "validator stake should use stakeable-locked UTXOs"
    );
    let vtx_id = issue_and_build(&chain, vtx);
    let info = chain.current_validators(Id::ZERO, &[node]);
    assert_eq!(info.len(), 1);
    let v = info[0].validator.clone();
    assert_eq!(v.weight, 10_000 * AVAX);
    assert!(v.potential_reward > 0);
    assert_eq!(chain.current_supply(), supply0 + v.potential_reward);

    let dtx = wallet
        .add_delegator(
            node,
            2_000 * AVAX,
            chain.timestamp() + 20 * DAY,
            delegator_reward_to,
        )
        .unwrap();
    let dtx_id = issue_and_build(&chain, dtx);
    let d = chain.current_validators(Id::ZERO, &[node])[0].delegators[0].clone();
    assert!(d.potential_reward > 0);
    let set = chain.validators_at(&Id::ZERO, chain.height()).unwrap();
    assert_eq!(set[&node].weight, 12_000 * AVAX);
    assert_eq!(set[&node].public_key, Some(sk.public_key().to_bytes()));

    let before_validator = chain.balance(&[validator_reward_to]);
    let before_delegator = chain.balance(&[delegator_reward_to]);

    // Past both end times: as AvalancheGo's builder does, each reward proposal itself
    // moves the chain time to the staker's end (no standard block before it), then its
    // commit follows.
    chain.clock().advance(31 * DAY);
    let blocks = chain.build_until_idle().unwrap();
    let kinds: Vec<&str> = blocks.iter().map(|b| b.block.type_name()).collect();
    assert_eq!(
        kinds,
        [
            "BanffProposalBlock",
            "BanffCommitBlock",
            "BanffProposalBlock",
            "BanffCommitBlock"
        ]
    );
    assert!(
        matches!(blocks[0].block.kind(), BlockKind::BanffProposal { time, txs, .. } if *time == d.end_time && txs.is_empty())
    );
    assert!(
        matches!(blocks[2].block.kind(), BlockKind::BanffProposal { time, .. } if *time == v.end_time)
    );
    assert_eq!(chain.tx_status(&dtx_id), TxStatus::Committed);
    assert!(chain.current_validators(Id::ZERO, &[node]).is_empty());

    let (fee_part, delegator_part) = math::split(d.potential_reward, 20_000);
    let d_rewards = chain.reward_utxos(&dtx_id);
    assert_eq!(d_rewards.len(), 1);
    assert_eq!(d_rewards[0].kind, RewardKind::Delegator);
    assert_eq!(d_rewards[0].utxo.output.amount(), delegator_part);
    let v_rewards = chain.reward_utxos(&vtx_id);
    let kinds: Vec<(RewardKind, u64)> = v_rewards
        .iter()
        .map(|r| (r.kind, r.utxo.output.amount()))
        .collect();
    assert_eq!(
        kinds,
        [
            (RewardKind::Validator, v.potential_reward),
            (RewardKind::ValidatorFee, fee_part)
        ]
    );

    // Rewards reached their owners; the stake came back to the staker's keys.
    let after_validator = chain.balance(&[validator_reward_to]);
    let after_delegator = chain.balance(&[delegator_reward_to]);
    assert_eq!(
        after_validator.total - before_validator.total,
        v.potential_reward + fee_part
    );
    assert_eq!(
        after_delegator.total - before_delegator.total,
        delegator_part
    );
    let returned = chain.with_state(|s| s.utxo(&vtx_id.prefix(v.outputs_len as u64)).cloned());
    let returned = returned.expect("returned stake UTXO");
    assert_eq!(returned.output.amount(), v.stake[0].output.amount());

    // Supply: genesis supply + both rewards minted; net of fees, minus the burnt fees (the
    // staking txs pay dynamic fees too).
    assert_eq!(
        chain.current_supply(),
        supply0 + v.potential_reward + d.potential_reward
    );
    assert!(chain.burned_fees() > base_fee);
    assert_eq!(
        chain.circulating_supply(),
        supply0 + v.potential_reward + d.potential_reward - chain.burned_fees()
    );

    // Each block names a proposer among the primary network validators of its parent.
    for b in &blocks {
        let parent_set = chain
            .validators_at(&Id::ZERO, b.block.height() - 1)
            .unwrap();
        assert!(parent_set.contains_key(&b.proposer));
    }
}

#[test]
fn offline_validator_is_aborted_and_gets_only_its_stake() {
    let dir = temp_dir("offline");
    let node = NodeId([8; 20]);
    let mut cfg = config();
    cfg.offline_validators = vec![node];
    let chain = open_in(dir.path(), cfg);
    let wallet = Wallet::new(&chain);
    let owner = chain.funded_addresses()[3];
    let sk = derive_bls("test", "node", 1).unwrap();
    let supply0 = chain.current_supply();
    let wallet_total = chain.balance(chain.funded_addresses()).total;
    let vtx = wallet
        .add_validator(
            node,
            &sk,
            5_000 * AVAX,
            chain.timestamp() + 2 * DAY,
            owner,
            20_000,
        )
        .unwrap();
    let fee = chain.fee_of(vtx.unsigned()).unwrap();
    let id = issue_and_build(&chain, vtx);
    assert!(chain.current_supply() > supply0);
    assert_eq!(chain.burned_fees(), fee);
    assert_eq!(
        chain.balance(chain.funded_addresses()).total,
        wallet_total - 5_000 * AVAX - fee
    );
    chain.clock().advance(3 * DAY);
    let blocks = chain.build_until_idle().unwrap();
    assert_eq!(blocks.last().unwrap().block.type_name(), "BanffAbortBlock");
    let reward_tx = blocks[blocks.len() - 2].block.txs().next().unwrap().id();
    assert_eq!(chain.tx_status(&reward_tx), TxStatus::Aborted);
    assert!(chain.reward_utxos(&id).is_empty());
    assert_eq!(chain.current_supply(), supply0);
    // The stake came back to the wallet, without reward; only the fee is gone.
    assert_eq!(
        chain.balance(chain.funded_addresses()).total,
        wallet_total - fee
    );
}

#[test]
fn staking_rules_are_enforced_with_avalanchego_texts() {
    let dir = temp_dir("staking-rules");
    let chain = open_in(dir.path(), config());
    let cfg = chain.config();
    let wallet = Wallet::with_keys(&chain, vec![cfg.funded_key(0)]);
    let me = wallet.change_address();
    let now = chain.timestamp();
    let sk = derive_bls("test", "rules", 0).unwrap();
    let node = NodeId([0x51; 20]);
    let reject = |tx| chain.issue_tx(tx).unwrap_err().to_string();

    assert_eq!(
        reject(
            wallet
                .add_validator(node, &sk, 100 * AVAX, now + 30 * DAY, me, 20_000)
                .unwrap()
        ),
        "weight of this validator is too low"
    );
    assert_eq!(
        reject(
            wallet
                .add_validator(node, &sk, 5_000 * AVAX, now + 30 * DAY, me, 100)
                .unwrap()
        ),
        "staker charges an insufficient delegation fee"
    );
    assert_eq!(
        reject(
            wallet
                .add_validator(node, &sk, 5_000 * AVAX, now + 3600, me, 20_000)
                .unwrap()
        ),
        "staking period is too short"
    );
    assert_eq!(
        reject(
            wallet
                .add_validator(
                    cfg.validator_node_id(0),
                    &sk,
                    5_000 * AVAX,
                    now + 30 * DAY,
                    me,
                    20_000
                )
                .unwrap()
        ),
        format!(
            "duplicate validator: {} on {}",
            cfg.validator_node_id(0),
            Id::ZERO
        )
    );
    // A proof of possession by another key.
    let other = derive_bls("test", "rules", 1).unwrap();
    let tx = wallet
        .add_validator(node, &sk, 5_000 * AVAX, now + 30 * DAY, me, 20_000)
        .unwrap();
    let mut unsigned = tx.unsigned().clone();
    if let firn_core::pchain::tx::UnsignedTx::AddPermissionlessValidator(t) = &mut unsigned
        && let firn_core::pchain::fx::Signer::ProofOfPossession(p) = &mut t.signer
    {
        p.proof_of_possession = other.sign_proof_of_possession().to_bytes();
    }
    assert_eq!(
        reject(resign(unsigned, &cfg.funded_key(0))),
        "invalid proof of possession"
    );

    issue_and_build(
        &chain,
        wallet
            .add_validator(node, &sk, 10_000 * AVAX, now + 30 * DAY, me, 20_000)
            .unwrap(),
    );
    let now = chain.timestamp();
    assert_eq!(
        reject(
            wallet
                .add_delegator(NodeId([0x52; 20]), 100 * AVAX, now + 10 * DAY, me)
                .unwrap()
        ),
        format!(
            "failed to fetch the primary network validator for {}: not found",
            NodeId([0x52; 20])
        )
    );
    assert_eq!(
        reject(
            wallet
                .add_delegator(node, 100 * AVAX, now + 40 * DAY, me)
                .unwrap()
        ),
        "proposed staking period is not inside dependent staking period"
    );
    assert_eq!(
        reject(
            wallet
                .add_delegator(node, 45_000 * AVAX, now + 10 * DAY, me)
                .unwrap()
        ),
        "validator would be over delegated"
    );
    assert_eq!(
        reject(
            wallet
                .add_delegator(node, AVAX, now + 10 * DAY, me)
                .unwrap()
        ),
        "weight of this validator is too low"
    );
    // Exactly at the cap (5× the validator's stake) is fine.
    issue_and_build(
        &chain,
        wallet
            .add_delegator(node, 40_000 * AVAX, now + 10 * DAY, me)
            .unwrap(),
    );
}

#[test]
fn a_reward_proposal_moves_time_and_carries_the_mempool_txs() {
    // AvalancheGo's builder packs the mempool before deciding the block kind: when a staker
    // ends at the new block time, its BanffProposalBlock holds the decision txs too.
    let dir = temp_dir("proposal-txs");
    let chain = open_in(dir.path(), config());
    let wallet = Wallet::new(&chain);
    let keys = chain.funded_addresses().to_vec();
    let node = NodeId([0x19; 20]);
    let sk = derive_bls("test", "node", 9).unwrap();
    let end = chain.timestamp() + 2 * DAY;
    let vtx = wallet
        .add_validator(node, &sk, 2_000 * AVAX, end, keys[4], 20_000)
        .unwrap();
    let vtx_id = issue_and_build(&chain, vtx);
    let parent_time = chain.timestamp();

    let to_before = chain.balance(&[keys[8]]).total;
    let send = Wallet::with_keys(&chain, vec![chain.config().funded_key(1)])
        .send(keys[8], 3 * AVAX)
        .unwrap();
    let send_id = chain.issue_tx(send).unwrap();
    chain.clock().advance(3 * DAY);
    let proposal = chain.build_block().unwrap().expect("a block");
    match proposal.block.kind() {
        BlockKind::BanffProposal { time, txs, tx } => {
            assert_eq!(*time, end);
            assert!(*time > parent_time);
            assert_eq!(txs.len(), 1);
            assert_eq!(txs[0].id(), send_id);
            assert!(matches!(
                tx.unsigned(),
                firn_core::pchain::tx::UnsignedTx::RewardValidator(r) if r.tx_id == vtx_id
            ));
        }
        other => panic!("expected a proposal, got {other:?}"),
    }
    // Decided with the proposal's option block, like the reward itself.
    assert_eq!(chain.tx_status(&send_id), TxStatus::Processing);
    let commit = chain.build_block().unwrap().expect("the commit");
    assert_eq!(commit.block.type_name(), "BanffCommitBlock");
    assert_eq!(chain.tx_status(&send_id), TxStatus::Committed);
    assert!(chain.current_validators(Id::ZERO, &[node]).is_empty());
    assert_eq!(chain.balance(&[keys[8]]).total, to_before + 3 * AVAX);
}
