//! The history generator: valid, deterministic, resumable weeks of activity.
use crate::common::*;
use firn_core::ids::Id;
use firn_core::network::SUBNET_EVM_VM_ID;
use firn_devnet::genesis::DevnetConfig;
use firn_devnet::history::{HistoryGenerator, HistoryPlan};

fn plan(days: u32) -> HistoryPlan {
    HistoryPlan {
        days,
        transfers_per_day: 30,
        blocks_per_day: 4,
        l1_evm_chain_id: 99_999,
    }
}

fn config_for(plan: &HistoryPlan) -> DevnetConfig {
    let mut config = config();
    config.genesis_time = plan.genesis_time(1_767_225_600 + 12 * 3600); // 2026-01-01 12:00 UTC
    config
}

/// Generates `plan` in `dir` and returns the last block ID, txs accepted and txs skipped.
fn generate(dir: &std::path::Path, plan: &HistoryPlan, stop_after: Option<u32>) -> (Id, u64, u64) {
    let chain = open_in(dir, config_for(plan));
    let mut generator = HistoryGenerator::new(&chain, plan.clone());
    let (mut txs, mut skipped) = (0, 0);
    for day in generator.next_day()..stop_after.unwrap_or(plan.days) {
        let report = generator.generate_day(day).unwrap();
        txs += report.txs;
        skipped += report.skipped;
    }
    (chain.last_accepted().unwrap().block.id(), txs, skipped)
}

#[test]
fn subnet_evm_vm_id_is_avalanchegos() {
    assert_eq!(
        SUBNET_EVM_VM_ID.to_string(),
        "srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy"
    );
}

#[test]
fn a_month_of_history_covers_every_activity_without_a_refused_tx() {
    let dir = temp_dir("generated");
    let plan = HistoryPlan {
        transfers_per_day: 10,
        blocks_per_day: 2,
        ..plan(31)
    };
    let chain = open_in(dir.path(), config_for(&plan));
    let supply_at_genesis = chain.current_supply();
    let mut generator = HistoryGenerator::new(&chain, plan.clone());
    let mut days = Vec::new();
    generator.run(|r| days.push(r)).unwrap();

    assert_eq!(days.len(), 31);
    assert!(days.iter().all(|d| d.skipped == 0), "{days:?}");
    assert!(days.iter().all(|d| d.txs >= 10), "{days:?}");
    // The last day ends within the plan's last day.
    let end = chain.config().genesis_time + 31 * DAY;
    assert!(chain.timestamp() > end - DAY && chain.timestamp() < end);

    // Validators joined and some finished with rewards, which grew the supply.
    let validators = chain.current_validators(Id::ZERO, &[]);
    assert!(validators.len() > chain.config().initial_validators as usize);
    assert!(validators.iter().any(|v| !v.delegators.is_empty()));
    assert!(chain.current_supply() > supply_at_genesis);

    // The L1: a converted subnet with a subnet-EVM chain whose genesis names its EVM chain ID.
    let l1 = generator.l1().expect("the L1 was created").clone();
    let evm = chain
        .blockchains()
        .into_iter()
        .find(|c| c.id == l1.chain_id)
        .unwrap();
    assert_eq!(evm.vm_id, SUBNET_EVM_VM_ID);
    let genesis: serde_json::Value = serde_json::from_slice(&evm.genesis).unwrap();
    assert_eq!(genesis["config"]["chainId"], 99_999);
    // The funded keys, the relayer's, Teleporter's messenger and registry, and the validator
    // manager, owned by the L1's owner key.
    assert_eq!(genesis["alloc"].as_object().unwrap().len(), 24);
    let messenger = &genesis["alloc"][hex::encode(firn_devnet::teleporter::TELEPORTER_MESSENGER)];
    assert!(messenger["code"].as_str().unwrap().len() > 2_000);
    let registry = &genesis["alloc"][hex::encode(firn_devnet::teleporter::TELEPORTER_REGISTRY)];
    assert!(registry["code"].as_str().unwrap().len() > 2_000);
    // latestVersion (slot 0) is 1.
    assert_eq!(
        registry["storage"][format!("0x{}", "0".repeat(64))],
        format!("0x{}1", "0".repeat(63))
    );
    let manager = &genesis["alloc"][hex::encode(firn_devnet::validator_manager::VALIDATOR_MANAGER)];
    assert!(manager["code"].as_str().unwrap().len() > 2_000);
    let owner = hex::encode(generator.owner_key().public_key().eth_address());
    assert_eq!(
        manager["storage"][format!("0x{}", "0".repeat(64))],
        format!("0x{}{owner}", "0".repeat(24))
    );
    let subnet = chain
        .subnets()
        .into_iter()
        .find(|s| s.id == l1.subnet_id)
        .unwrap();
    assert_eq!(subnet.conversion.unwrap().chain_id, l1.chain_id);

    // Registered on days 1, 11 and 21, each disabled eight days later; the first validator
    // reweighed on days 2, 6, 12, 16, 22 and 26.
    let l1_validators = chain.l1_validators(l1.subnet_id);
    assert_eq!(l1_validators.len(), 5, "{l1_validators:?}");
    assert_eq!(l1.validator_keys.len(), 5);
    let registered: Vec<_> = l1_validators
        .iter()
        .map(|v| &v.validator)
        .filter(|v| {
            v.validation_id != l1.subnet_id.append(0) && v.validation_id != l1.subnet_id.append(1)
        })
        .collect();
    assert_eq!(registered.len(), 3);
    assert!(registered.iter().all(|v| !v.is_active()));
    let first = chain.l1_validator(&l1.subnet_id.append(0)).unwrap();
    assert_eq!(first.validator.weight, 1_000 + 26 * 5);
    assert_eq!(first.validator.min_nonce, 6);
}

#[test]
fn history_is_deterministic_and_resumes_where_it_stopped() {
    let plan = plan(7);
    let whole = temp_dir("generated-whole");
    let (whole_tip, whole_txs, _) = generate(whole.path(), &plan, None);

    let again = temp_dir("generated-again");
    assert_eq!(generate(again.path(), &plan, None).0, whole_tip);

    // Cut off after day 3, reopened: the generator picks up at day 4 and ends on the same tip.
    let cut = temp_dir("generated-cut");
    let (_, first_txs, _) = generate(cut.path(), &plan, Some(4));
    let (resumed_tip, rest_txs, _) = generate(cut.path(), &plan, None);
    assert_eq!(resumed_tip, whole_tip);
    assert_eq!(first_txs + rest_txs, whole_txs);
}
