use crate::common::*;
use firn_core::ids::{Id, NodeId};
use firn_devnet::genesis::{derive_bls, single_owner};
use firn_devnet::store::BLOCK_FILE;
use firn_devnet::vm::PChain;
use firn_devnet::wallet::Wallet;
use std::io::Write;

/// Everything a restart must preserve.
#[derive(Debug, PartialEq)]
struct View {
    height: u64,
    block_ids: Vec<Id>,
    proposers: Vec<NodeId>,
    balances: Vec<u64>,
    supply: u64,
    timestamp: u64,
    validators: Vec<(NodeId, u64, u64)>,
    subnets: Vec<Id>,
    sets: Vec<usize>,
    burned: u64,
    fee_state: (u64, u64, u64),
    mempool: usize,
}

fn view(chain: &PChain) -> View {
    let height = chain.height();
    View {
        height,
        block_ids: (0..=height)
            .map(|h| chain.block_by_height(h).unwrap().block.id())
            .collect(),
        proposers: (0..=height)
            .map(|h| chain.block_by_height(h).unwrap().proposer)
            .collect(),
        balances: chain
            .funded_addresses()
            .iter()
            .map(|a| chain.balance(&[*a]).total)
            .collect(),
        supply: chain.current_supply(),
        timestamp: chain.timestamp(),
        validators: chain
            .current_validators(Id::ZERO, &[])
            .iter()
            .map(|v| {
                (
                    v.validator.node_id,
                    v.validator.weight,
                    v.validator.potential_reward,
                )
            })
            .collect(),
        subnets: chain.subnets().iter().map(|s| s.id).collect(),
        sets: (0..=height)
            .map(|h| chain.validators_at(&Id::ZERO, h).unwrap().len())
            .collect(),
        burned: chain.burned_fees(),
        fee_state: {
            let (s, price) = chain.fee_state();
            (s.capacity, s.excess, price)
        },
        mempool: chain.mempool_len(),
    }
}

/// Sends, stakes, creates a subnet and lets a validator finish.
fn activity(chain: &PChain) -> (u64, NodeId) {
    let wallet = Wallet::new(chain);
    let keys = chain.funded_addresses().to_vec();
    issue_and_build(chain, wallet.send(keys[3], 12 * AVAX).unwrap());
    issue_and_build(chain, wallet.create_subnet(single_owner(keys[0])).unwrap());
    let node = NodeId([0x42; 20]);
    let sk = derive_bls("restart", "node", 0).unwrap();
    let end = chain.timestamp() + 2 * DAY;
    issue_and_build(
        chain,
        wallet
            .add_validator(node, &sk, 3_000 * AVAX, end, keys[2], 30_000)
            .unwrap(),
    );
    let added_at = chain.height();
    chain.clock().advance(3 * DAY);
    chain.build_until_idle().unwrap();
    (added_at, node)
}

#[test]
fn reopening_the_same_directory_continues_the_same_chain() {
    let dir = temp_dir("restart");
    let (before, added_at, node) = {
        let chain = open_in(dir.path(), config());
        let (added_at, node) = activity(&chain);
        (view(&chain), added_at, node)
    };
    assert!(before.height >= 5);
    let chain = open_in(dir.path(), config());
    assert_eq!(view(&chain), before);

    // Past validator sets come back too: the finished validator is in the set at the height
    // it was added, not before and not now.
    assert!(
        chain
            .validators_at(&Id::ZERO, added_at)
            .unwrap()
            .contains_key(&node)
    );
    assert!(
        !chain
            .validators_at(&Id::ZERO, added_at - 1)
            .unwrap()
            .contains_key(&node)
    );
    assert!(
        !chain
            .validators_at(&Id::ZERO, chain.height())
            .unwrap()
            .contains_key(&node)
    );
    assert!(chain.validators_at(&Id::ZERO, chain.height() + 1).is_none());

    // The chain continues from where it was.
    let wallet = Wallet::new(&chain);
    issue_and_build(
        &chain,
        wallet.send(chain.funded_addresses()[7], AVAX).unwrap(),
    );
    assert_eq!(chain.height(), before.height + 1);
    assert_eq!(
        chain
            .block_by_height(before.height + 1)
            .unwrap()
            .block
            .parent_id(),
        *before.block_ids.last().unwrap()
    );
    let after = view(&chain);
    drop(chain);
    assert_eq!(view(&open_in(dir.path(), config())), after);
}

#[test]
fn a_torn_final_record_is_dropped_and_earlier_blocks_survive() {
    let dir = temp_dir("torn");
    let before = {
        let chain = open_in(dir.path(), config());
        activity(&chain);
        view(&chain)
    };
    let file = dir.path().join(BLOCK_FILE);

    // A crash in the middle of appending: half a header and some payload bytes.
    let clean_len = std::fs::metadata(&file).unwrap().len();
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&file)
        .unwrap();
    f.write_all(&[0, 0, 1, 0, 9, 9, 9, 9, 9, 9, 9, 9, 1, 2, 3])
        .unwrap();
    drop(f);
    let chain = open_in(dir.path(), config());
    assert_eq!(view(&chain), before);
    assert_eq!(
        std::fs::metadata(&file).unwrap().len(),
        clean_len,
        "torn bytes truncated"
    );
    drop(chain);

    // A last record cut short: the last block is lost, every earlier one is intact.
    let bytes = std::fs::read(&file).unwrap();
    std::fs::write(&file, &bytes[..bytes.len() - 7]).unwrap();
    let chain = open_in(dir.path(), config());
    assert_eq!(chain.height(), before.height - 1);
    assert_eq!(
        chain.last_accepted().unwrap().block.id(),
        before.block_ids[before.block_ids.len() - 2]
    );
    // And the chain goes on from there.
    chain.build_until_idle().unwrap();
    let wallet = Wallet::new(&chain);
    issue_and_build(
        &chain,
        wallet.send(chain.funded_addresses()[1], AVAX).unwrap(),
    );
    let after = view(&chain);
    drop(chain);
    assert_eq!(view(&open_in(dir.path(), config())), after);
}

#[test]
fn a_different_config_is_refused_for_an_existing_directory() {
    let dir = temp_dir("mismatch");
    drop(open_in(dir.path(), config()));
    let mut other = config();
    other.seed = "something else".into();
    let err = PChain::open(other, dir.path(), firn_devnet::clock::Clock::frozen(0)).unwrap_err();
    assert!(
        err.to_string().contains("but the config gives genesis"),
        "{err}"
    );
}

#[test]
fn a_restart_between_a_reward_proposal_and_its_commit_resumes_with_the_commit() {
    let dir = temp_dir("restart-proposal");
    let (before, node) = {
        let chain = open_in(dir.path(), config());
        let wallet = Wallet::new(&chain);
        let keys = chain.funded_addresses().to_vec();
        let node = NodeId([0x43; 20]);
        let sk = derive_bls("restart", "node", 1).unwrap();
        let end = chain.timestamp() + 2 * DAY;
        issue_and_build(
            &chain,
            wallet
                .add_validator(node, &sk, 3_000 * AVAX, end, keys[2], 30_000)
                .unwrap(),
        );
        // Mid-activity: the clock passes the end, and the devnet stops right after the
        // reward proposal, before its commit.
        chain.clock().advance(3 * DAY);
        let proposal = chain.build_block().unwrap().expect("a proposal block");
        assert_eq!(proposal.block.type_name(), "BanffProposalBlock");
        (view(&chain), node)
    };
    let chain = open_in(dir.path(), config());
    assert_eq!(view(&chain), before);
    assert_eq!(chain.current_validators(Id::ZERO, &[node]).len(), 1);

    // The next block is the proposal's commit, which pays the validator and removes it.
    let commit = chain.build_block().unwrap().expect("the commit block");
    assert_eq!(commit.block.type_name(), "BanffCommitBlock");
    assert_eq!(commit.block.parent_id(), *before.block_ids.last().unwrap());
    assert!(chain.current_validators(Id::ZERO, &[node]).is_empty());
    let after = view(&chain);
    drop(chain);
    assert_eq!(view(&open_in(dir.path(), config())), after);
}
