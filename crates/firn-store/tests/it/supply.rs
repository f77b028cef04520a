//! The parts of the supply the index holds: burns and rewards kept with every commit (never
//! twice for a block committed again), rewards minted and not paid yet, UTXOs locked at a
//! moment, genesis outputs still locked.

use firn_core::ids::Id;
use firn_core::network::P_CHAIN_ID;
use firn_store::rows::pchain::{
    AssetAmount, NewReward, NewStaker, PChainBlockRows, PUtxo, RewardType, SupplyTotals,
};
use firn_store::testing::StoreUrl;
use firn_store::{PChainReader, PChainWriter, Store};

use crate::fixtures::{avax, id, node, pblock, ptx, short, utxo};
use crate::pchain::T;
use crate::staking::staking_history;
use crate::upgraded::undo_and_reopen;

const GENESIS_TS: u64 = T - 1_000;
const LATER_TS: u64 = T + 30_000;

fn other_asset() -> Id {
    id(9, 2)
}

fn locked(mut u: PUtxo, locktime: u64, stakeable: Option<u64>) -> PUtxo {
    u.locktime = locktime;
    u.stakeable_locktime = stakeable;
    u
}

fn burned(asset: Id, amount: u64) -> AssetAmount {
    AssetAmount {
        asset_id: asset,
        amount,
    }
}

/// A validator on node 9 and a delegator inside its period (fee 2 %), then the delegator's
/// reward: 490 of its 500 to it, the validator's 10 accrued until its own reward.
fn delegation_blocks(first_height: u64) -> Vec<PChainBlockRows> {
    let staker = |is_delegator, end_ts, estimated| NewStaker {
        node_id: node(9),
        subnet_id: P_CHAIN_ID,
        start_ts: LATER_TS + 10,
        end_ts,
        weight: 2_000,
        is_delegator,
        delegation_fee: 20_000,
        reward_addresses: vec![short(5)],
        estimated_reward: Some(estimated),
    };
    let (v, d) = (id(0x42, 1), id(0x42, 2));
    let mut validator = ptx(v, "AddPermissionlessValidatorTx");
    validator.staker = Some(staker(false, LATER_TS + 10_000, 1_000));
    let mut delegator = ptx(d, "AddPermissionlessDelegatorTx");
    delegator.staker = Some(staker(true, LATER_TS + 5_000, 500));
    let mut reward = ptx(id(0x42, 3), "RewardValidatorTx");
    reward.core.ends_staker = Some(d);
    reward.rewards.push(NewReward {
        utxo_id: id(0x78, 1),
        output_index: 0,
        reward_type: RewardType::Delegator,
        staking_tx_hash: d,
        asset_id: avax(),
        amount: 490,
        addresses: vec![short(5)],
    });
    vec![
        pblock(first_height, LATER_TS + 10, vec![validator, delegator]),
        pblock(first_height + 1, LATER_TS + 5_000, vec![reward]),
    ]
}

/// Block 0 as firn's devnet writes it: a genesis tx whose outputs, some locked, spend
/// nothing.
fn genesis() -> (PChainBlockRows, Vec<PUtxo>) {
    let g = id(0x40, 0);
    let outputs = vec![
        utxo(g, 0, short(1), 1_000),
        locked(utxo(g, 1, short(1), 500), 0, Some(GENESIS_TS + 100_000)),
        locked(utxo(g, 2, short(2), 300), GENESIS_TS + 10, None),
        locked(
            PUtxo {
                asset_id: other_asset(),
                ..utxo(g, 3, short(2), 9)
            },
            GENESIS_TS + 100_000,
            None,
        ),
    ];
    let mut tx = ptx(g, "BaseTx");
    tx.emitted = outputs.clone();
    tx.addresses = vec![short(1), short(2)];
    (pblock(0, GENESIS_TS, vec![tx]), outputs)
}

/// Blocks after the staking history: a transfer that burns and locks (one lock past 2^63, as
/// a hostile chain may write), a stake output still staking, then the spending of the
/// genesis' stakeable-locked output.
fn later_blocks(first_height: u64, genesis: &[PUtxo]) -> Vec<PChainBlockRows> {
    let a = id(0x41, 1);
    let mut tx = ptx(a, "BaseTx");
    tx.consumed = vec![genesis[0].utxo_id];
    tx.emitted = vec![
        utxo(a, 0, short(3), 980),
        locked(utxo(a, 1, short(3), 7), u64::MAX, None),
        PUtxo {
            staked: true,
            end_ts: Some(LATER_TS + 100),
            ..locked(utxo(a, 2, short(3), 50), 0, Some(LATER_TS + 2_000))
        },
    ];
    tx.core.amount_burned = vec![burned(avax(), 10), burned(other_asset(), 5)];
    let b = id(0x41, 2);
    let mut spend = ptx(b, "BaseTx");
    spend.consumed = vec![genesis[1].utxo_id];
    spend.emitted = vec![utxo(b, 0, short(4), 499)];
    spend.core.amount_burned = vec![burned(avax(), 1)];
    vec![
        pblock(first_height, LATER_TS, vec![tx]),
        pblock(first_height + 1, LATER_TS + 1, vec![spend]),
    ]
}

pub async fn supply_totals_follow_commits(store: Store) {
    firn_store::testing::record_reads(&store);
    assert_eq!(
        store.find_supply_totals(avax(), T).await.unwrap(),
        SupplyTotals::default(),
        "an empty store"
    );
    let (genesis, outputs) = genesis();
    let (staking, stakers, rewards) = staking_history();
    let rewarded: u64 = rewards.iter().map(|(_, r, _, _)| r.amount).sum();
    // Every staker of the history has started by then; those not rewarded count.
    let pending: u64 = stakers
        .iter()
        .filter(|(_, _, rewarded)| !rewarded)
        .map(|(_, s, _)| s.estimated_reward.unwrap())
        .sum();
    let later = later_blocks(staking.len() as u64 + 1, &outputs);
    store.commit_pchain_blocks(&[genesis]).await.unwrap();
    store.commit_pchain_blocks(&staking).await.unwrap();
    store.commit_pchain_blocks(&later[..1]).await.unwrap();

    // Before the genesis' stakeable-locked output is spent.
    let at = |now| store.find_supply_totals(avax(), now);
    let want = SupplyTotals {
        burned: 10,
        rewarded,
        pending_rewards: pending,
        // 500 stakeable-locked in genesis, 7 locked for ever; the stake is still staking.
        locked: 507,
        genesis_locked: 500,
    };
    assert_eq!(at(LATER_TS).await.unwrap(), want);
    // Once the stake's period ends, its stakeable lock still holds it.
    assert_eq!(at(LATER_TS + 100).await.unwrap().locked, 557);

    // The second block comes with the first again: the first is skipped, not counted twice.
    let outcome = store.commit_pchain_blocks(&later).await.unwrap();
    assert_eq!((outcome.committed, outcome.skipped), (1, 1));
    let got = at(LATER_TS + 100).await.unwrap();
    assert_eq!(
        got,
        SupplyTotals {
            burned: 11,
            // The genesis output is spent, but genesis still locked it.
            locked: 57,
            ..want
        }
    );
    // Every lock but the one past 2^63 over; genesis' locks too.
    let late = at(GENESIS_TS + 200_000).await.unwrap();
    assert_eq!((late.locked, late.genesis_locked), (7, 0));
    // Each asset apart.
    // A delegator's reward leaves its validator's fee minted and unpaid.
    let n = (staking.len() + later.len()) as u64 + 1;
    let delegation = delegation_blocks(n);
    store.commit_pchain_blocks(&delegation[..1]).await.unwrap();
    let got = at(LATER_TS + 10).await.unwrap();
    assert_eq!(got.pending_rewards, pending + 1_500, "both staking");
    store.commit_pchain_blocks(&delegation[1..]).await.unwrap();
    let got = at(LATER_TS + 5_000).await.unwrap();
    assert_eq!(
        (got.rewarded, got.pending_rewards),
        (rewarded + 490, pending + 1_000 + 10),
        "the delegator rewarded, its fee accrued"
    );
    let other = store
        .find_supply_totals(other_asset(), LATER_TS)
        .await
        .unwrap();
    assert_eq!(
        other,
        SupplyTotals {
            burned: 5,
            rewarded: 0,
            // Staking rewards are AVAX's: any asset's query counts the stakers started
            // by then (node 9's had not).
            pending_rewards: pending,
            locked: 9,
            genesis_locked: 9,
        }
    );
    firn_store::testing::assert_reads_use_indexes(&store).await;
}

/// A store made before version 19 gets its totals and its validators' accrued fees derived
/// from what it holds: the same answers as a store that kept them from the start.
pub async fn older_store_gets_supply_totals(url: StoreUrl) {
    let (genesis, outputs) = genesis();
    let (staking, _, _) = staking_history();
    let later = later_blocks(staking.len() as u64 + 1, &outputs);
    let delegation = delegation_blocks((staking.len() + later.len()) as u64 + 1);
    let store = url.open().await;
    for blocks in [&[genesis][..], &staking, &later, &delegation] {
        store.commit_pchain_blocks(blocks).await.unwrap();
    }
    let answers = async |store: &Store| {
        let mut out = Vec::new();
        for asset in [avax(), other_asset()] {
            for now in [LATER_TS, LATER_TS + 5_000, GENESIS_TS + 200_000] {
                out.push(store.find_supply_totals(asset, now).await.unwrap());
            }
        }
        out
    };
    let fresh = answers(&store).await;
    assert!(fresh[1].pending_rewards > 0 && fresh[1].rewarded > 0 && fresh[1].burned > 0);
    let undo = [
        "DROP TABLE p_asset_totals",
        "DROP INDEX p_utxos_locked",
        "DROP INDEX p_stakers_open_validators",
        "ALTER TABLE p_stakers DROP COLUMN accrued_fees",
        "DELETE FROM store_upgrades",
        "DELETE FROM _sqlx_migrations WHERE version = 19",
    ];
    let store = undo_and_reopen(&url, store, &undo).await;
    assert_eq!(answers(&store).await, fresh);
    store.close().await;
}
