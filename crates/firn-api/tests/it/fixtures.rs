//! A small deterministic world for the API tests: P-Chain transfers (the store's generator),
//! stakers with rewards, a created EVM chain and EVM traffic with tokens and deployments.
#![allow(dead_code)]

use firn_core::ids::Id;
use firn_core::network::P_CHAIN_ID;
use firn_store::rows::pchain::{
    L1Observation, L1Validator, NewBlockchain, NewReward, NewStaker, Owner, PChainBlockRows,
    RewardType, SubnetChange, SupplyReading, ValidatorObservation,
};
use firn_store::{EvmWriter, PChainWriter, Store};

#[path = "../../../firn-store/tests/it/fixtures.rs"]
mod store_fixtures;
pub use store_fixtures::*;

/// The current supply the world's node reported, nAVAX.
pub const SUPPLY: u64 = 400_000_000_000_000_000;

/// The EVM chain ID the world registers (Fuji's C-Chain ID, so SDK enums accept it).
pub const CHAIN: u64 = 43113;

/// What [`seed`] wrote.
#[derive(Debug)]
pub struct World {
    pub p: PHistory,
    pub evm: EvmHistory,
    /// Staking txs: (hash, staker, rewarded).
    pub stakers: Vec<(Id, NewStaker, bool)>,
    /// Reward txs with their rewards.
    pub rewards: Vec<(Id, NewReward)>,
    /// Validators of [`World::subnet`] (AddSubnetValidatorTx): node 0's current, node 1's
    /// removed by [`World::removal_tx`], node 2's expired.
    pub subnet_validators: Vec<(Id, NewStaker)>,
    /// The `RemoveSubnetValidatorTx`.
    pub removal_tx: Id,
    /// The blockchain created on the P-Chain.
    pub blockchain: Id,
    /// The subnet it runs on, converted to an L1 by [`World::conversion_tx`].
    pub subnet: Id,
    /// The subnet's `ConvertSubnetToL1Tx`.
    pub conversion_tx: Id,
}

/// bech32 of a fixture address on Fuji.
pub fn fuji(n: u64) -> String {
    firn_core::address::bech32_encode("fuji", &short(n)).unwrap()
}

fn staking_blocks(
    p: &mut PHistory,
    stakers: &mut Vec<(Id, NewStaker, bool)>,
    rewards: &mut Vec<(Id, NewReward)>,
    subnet_validators: &mut Vec<(Id, NewStaker)>,
) -> Vec<PChainBlockRows> {
    let mut blocks = Vec::new();
    let start = p.ts;
    for n in 0..12u64 {
        p.height += 1;
        p.ts += 10;
        let hash = id(5, n);
        let delegator = n >= 3;
        let s = NewStaker {
            node_id: node(n % 3),
            subnet_id: P_CHAIN_ID,
            // Some start after the chain's last block: pending.
            start_ts: start + n * 40,
            // Delegations end inside their validator's period, as the P-Chain requires.
            end_ts: if delegator {
                start + 100_000 - n
            } else {
                start + 100_000 + n
            },
            weight: 2_000 + n,
            is_delegator: delegator,
            delegation_fee: if delegator { 0 } else { 20_000 },
            reward_addresses: vec![short(100 + n % 2)],
            estimated_reward: Some(50 + n),
        };
        let mut t = ptx(
            hash,
            if delegator {
                "AddPermissionlessDelegatorTx"
            } else {
                "AddPermissionlessValidatorTx"
            },
        );
        t.core.node_id = Some(s.node_id);
        t.core.start_ts = Some(s.start_ts);
        t.core.end_ts = Some(s.end_ts);
        t.staker = Some(s.clone());
        t.addresses = s.reward_addresses.clone();
        blocks.push(pblock(p.height, p.ts, vec![t]));
        stakers.push((hash, s, false));
    }
    // Reward delegators 3, 5, 7.
    for n in [3u64, 5, 7] {
        p.height += 1;
        p.ts += 10;
        let staking = id(5, n);
        let reward_tx = id(6, n);
        let mut t = ptx(reward_tx, "RewardValidatorTx");
        t.core.ends_staker = Some(staking);
        let owner = stakers[n as usize].1.reward_addresses[0];
        for (seq, (kind, amount, to)) in [
            (RewardType::Delegator, 90 + n, owner),
            (RewardType::ValidatorFee, 10, short(200)),
        ]
        .into_iter()
        .enumerate()
        {
            let r = NewReward {
                utxo_id: id(0x77, n * 10 + seq as u64),
                output_index: seq as u32,
                reward_type: kind,
                staking_tx_hash: staking,
                asset_id: avax(),
                amount,
                addresses: vec![to],
            };
            t.rewards.push(r.clone());
            rewards.push((reward_tx, r));
        }
        t.addresses = vec![owner, short(200)];
        blocks.push(pblock(p.height, p.ts, vec![t]));
        stakers[n as usize].2 = true;
    }
    // A subnet, a chain on it, and the subnet's conversion to an L1 managed from that chain.
    p.height += 1;
    p.ts += 10;
    let subnet = id(6, 1);
    let mut t = ptx(subnet, "CreateSubnetTx");
    let owner = Owner {
        locktime: 0,
        threshold: 1,
        addresses: vec![short(300)],
    };
    t.core.subnet_id = Some(subnet);
    t.core.details.subnet_owner = Some(owner.clone());
    t.addresses = owner.addresses.clone();
    t.subnet = Some(SubnetChange::Created {
        subnet_id: subnet,
        owner,
    });
    blocks.push(pblock(p.height, p.ts, vec![t]));
    // The subnet's validators: node 0's current, node 1's removed, node 2's expired.
    for n in 0..3u64 {
        p.height += 1;
        p.ts += 10;
        let hash = id(0x58, n);
        let s = NewStaker {
            node_id: node(n),
            subnet_id: subnet,
            start_ts: p.ts,
            end_ts: if n == 2 { p.ts + 5 } else { p.ts + 50_000 },
            weight: 100 + n,
            is_delegator: false,
            delegation_fee: 0,
            reward_addresses: Vec::new(),
            estimated_reward: None,
        };
        let mut t = ptx(hash, "AddSubnetValidatorTx");
        t.core.node_id = Some(s.node_id);
        t.core.subnet_id = Some(subnet);
        t.staker = Some(s.clone());
        blocks.push(pblock(p.height, p.ts, vec![t]));
        subnet_validators.push((hash, s));
    }
    p.height += 1;
    p.ts += 10;
    let mut t = ptx(id(0x59, 1), "RemoveSubnetValidatorTx");
    t.core.ends_staker = Some(id(0x58, 1));
    t.core.subnet_id = Some(subnet);
    blocks.push(pblock(p.height, p.ts, vec![t]));
    p.height += 1;
    p.ts += 10;
    let chain_tx = id(0x33, 1);
    let mut t = ptx(chain_tx, "CreateChainTx");
    t.blockchain = Some(NewBlockchain {
        blockchain_id: chain_tx,
        subnet_id: id(6, 1),
        name: "dexchain".to_owned(),
        vm_id: id(0x44, 1),
        genesis: br#"{"config":{"chainId":777}}"#.to_vec(),
        evm_chain_id: Some(777),
    });
    blocks.push(pblock(p.height, p.ts, vec![t]));
    p.height += 1;
    p.ts += 10;
    let mut t = ptx(id(0x66, 1), "ConvertSubnetToL1Tx");
    t.core.subnet_id = Some(subnet);
    t.subnet = Some(SubnetChange::Converted {
        subnet_id: subnet,
        conversion_id: id(0x55, 1),
        manager_chain: chain_tx,
        manager_address: vec![0xaa; 20],
    });
    t.l1_validators = l1_validators(subnet);
    t.l1_validation_ids = t.l1_validators.iter().map(|v| v.validation_id).collect();
    // Another transaction in the same block, before it.
    blocks.push(pblock(p.height, p.ts, vec![ptx(id(0x67, 1), "BaseTx"), t]));
    blocks
}

/// The L1's validators, as its conversion made them: nodes 10 to 12, the last without a
/// balance (inactive).
pub fn l1_validators(subnet: Id) -> Vec<L1Validator> {
    (0..3u64)
        .map(|i| L1Validator {
            validation_id: id(0x68, i),
            subnet_id: subnet,
            node_id: node(10 + i),
            weight: 100 * (i + 1),
            balance: if i == 2 { 0 } else { 1_000_000_000 * (i + 1) },
            bls_public_key: vec![0xb0 + i as u8; 48],
            active: i != 2,
            remaining_balance_owner: Owner {
                locktime: 0,
                threshold: 1,
                addresses: vec![short(i)],
            },
            deactivation_owner: Owner {
                locktime: 0,
                threshold: 1,
                addresses: vec![short(i + 1)],
            },
        })
        .collect()
}

/// Writes the world: `p_blocks` transfer blocks, the staking story, and `evm_blocks` EVM
/// blocks on [`CHAIN`].
pub async fn seed(store: &Store, p_blocks: u64, evm_blocks: u64) -> World {
    let mut p = PHistory::new(1, 20);
    let blocks: Vec<_> = (0..p_blocks).map(|_| p.next_block()).collect();
    store.commit_pchain_blocks(&blocks).await.unwrap();
    let mut stakers = Vec::new();
    let mut rewards = Vec::new();
    let mut subnet_validators = Vec::new();
    let blocks = staking_blocks(&mut p, &mut stakers, &mut rewards, &mut subnet_validators);
    store.commit_pchain_blocks(&blocks).await.unwrap();
    // What the node said of nodes 0 and 1 (node 2 was never observed).
    let seen = |n: u64, uptime: u32, connected: bool| ValidatorObservation {
        node_id: node(n),
        uptime,
        connected,
        observed_at: p.ts,
    };
    store
        .record_validator_observations(&[seen(0, 995_000, true), seen(1, 0, false)])
        .await
        .unwrap();
    store
        .record_l1_observations(&[L1Observation {
            validation_id: id(0x68, 0),
            balance: 999_000_000,
            height: p.height,
            observed_at: p.ts,
        }])
        .await
        .unwrap();
    store
        .record_supply(&SupplyReading {
            subnet_id: P_CHAIN_ID,
            supply: SUPPLY,
            height: p.height,
            observed_at: p.ts,
        })
        .await
        .unwrap();

    store.upsert_evm_chain(&evm_chain(CHAIN)).await.unwrap();
    let mut evm = EvmHistory::new(2, CHAIN, 12);
    let blocks: Vec<_> = (0..evm_blocks).map(|_| evm.next_block()).collect();
    store.commit_evm_blocks(&blocks).await.unwrap();
    World {
        p,
        evm,
        stakers,
        rewards,
        subnet_validators,
        removal_tx: id(0x59, 1),
        blockchain: id(0x33, 1),
        subnet: id(6, 1),
        conversion_tx: id(0x66, 1),
    }
}

/// The hash of the first transaction in `blocks` with an ERC-1155 batch transfer (sent to the
/// ERC-1155 contract itself).
pub fn erc1155_batch_tx(blocks: &[firn_store::rows::evm::EvmBlockRows]) -> firn_store::types::B256 {
    blocks
        .iter()
        .flat_map(|b| b.transfers.iter().map(move |x| (b, x)))
        .find(|(_, x)| {
            x.standard == firn_store::rows::evm::TokenStandard::Erc1155 && x.batch_index == 1
        })
        .map(|(b, x)| b.txs[x.tx_index as usize].hash)
        .expect("an ERC-1155 batch")
}
