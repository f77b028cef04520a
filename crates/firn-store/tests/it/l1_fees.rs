//! The L1 validator fee ledger: committed with blocks, resumed, summed per day by scope.

use firn_core::calendar::DAY;
use firn_store::rows::l1_fees::{
    L1FeeActive, L1FeeChanges, L1FeeDay, L1FeeDayTotal, L1FeeScope, LedgerState,
};
use firn_store::{MetricsReader, PChainReader, PChainWriter, Store};

use firn_store::rows::pchain::{L1Validator, Owner};

use crate::fixtures::{id, node, pblock, ptx};

fn active(v: u64, subnet: u64, n: u64, end: u64) -> L1FeeActive {
    L1FeeActive {
        validation_id: id(30, v),
        subnet_id: id(31, subnet),
        node_id: node(n),
        end_accrued: end,
    }
}

fn paid(a: &L1FeeActive, day: u64, fee: u64) -> L1FeeDay {
    L1FeeDay {
        validation_id: a.validation_id,
        subnet_id: a.subnet_id,
        node_id: a.node_id,
        day: day * DAY,
        fee,
    }
}

fn total(day: u64, fees: u64, paying: u64) -> L1FeeDayTotal {
    L1FeeDayTotal {
        day: day * DAY,
        fees,
        paying,
    }
}

pub async fn l1_fee_ledger_and_daily_fees(store: Store) {
    assert_eq!(store.find_l1_fee_ledger().await.unwrap(), None);
    assert!(
        store
            .list_l1_fee_days(L1FeeScope::All, 0, u64::MAX)
            .await
            .unwrap()
            .is_empty()
    );
    // Validations 1 and 2 on L1 1 (node 1 runs 1, node 2 runs 2), 3 on L1 2 (node 1).
    let (v1, v2, v3) = (
        active(1, 1, 1, 1_000),
        active(2, 1, 2, 500),
        active(3, 2, 1, 900),
    );
    // 2's row, as the conversion wrote it: active.
    let mut conversion = ptx(id(32, 1), "ConvertSubnetToL1Tx");
    conversion.l1_validators.push(L1Validator {
        validation_id: v2.validation_id,
        subnet_id: v2.subnet_id,
        node_id: v2.node_id,
        weight: 10,
        balance: 500,
        bls_public_key: vec![1; 48],
        active: true,
        remaining_balance_owner: Owner::default(),
        deactivation_owner: Owner::default(),
    });
    let mut first = pblock(1, 10 * DAY, vec![conversion]);
    first.l1_fees = Some(L1FeeChanges {
        state: LedgerState {
            time: 10 * DAY,
            excess: 7,
            accrued: 0,
        },
        active: vec![v1, v2, v3],
        inactive: Vec::new(),
        days: Vec::new(),
    });
    // Two blocks in one commit, the second carrying both's changes: day 10 paid by all three,
    // day 11 by 1 and 3 (2 ran out).
    let quiet = pblock(2, 10 * DAY + 60, Vec::new());
    let mut second = pblock(3, 11 * DAY + 60, Vec::new());
    second.l1_fees = Some(L1FeeChanges {
        state: LedgerState {
            time: 11 * DAY + 60,
            excess: 3,
            accrued: 600,
        },
        active: Vec::new(),
        inactive: vec![v2.validation_id],
        days: vec![
            paid(&v1, 10, 100),
            paid(&v2, 10, 100),
            paid(&v3, 10, 100),
            paid(&v1, 11, 50),
            paid(&v3, 11, 50),
        ],
    });
    store.commit_pchain_blocks(&[first]).await.unwrap();
    store
        .commit_pchain_blocks(&[quiet, second.clone()])
        .await
        .unwrap();
    // A later block adds to day 11 and tops 3 up.
    let mut third = pblock(4, 11 * DAY + 120, Vec::new());
    let topped = active(3, 2, 1, 2_000);
    third.l1_fees = Some(L1FeeChanges {
        state: LedgerState {
            time: 11 * DAY + 120,
            excess: 2,
            accrued: 620,
        },
        active: vec![topped],
        inactive: Vec::new(),
        days: vec![paid(&v1, 11, 10), paid(&v3, 11, 10)],
    });
    store.commit_pchain_blocks(&[third]).await.unwrap();
    // Committing an already stored block again adds nothing.
    store.commit_pchain_blocks(&[second]).await.unwrap();

    let ledger = store.find_l1_fee_ledger().await.unwrap().unwrap();
    assert_eq!(ledger.height, 4);
    assert_eq!(
        ledger.state,
        LedgerState {
            time: 11 * DAY + 120,
            excess: 2,
            accrued: 620,
        }
    );
    let mut expected = vec![v1, topped];
    expected.sort_by_key(|a| a.validation_id);
    assert_eq!(ledger.active, expected, "2 ran out, 3 topped up");
    let ran_out = store
        .find_l1_validator(v2.validation_id)
        .await
        .unwrap()
        .unwrap();
    assert!(!ran_out.validator.active, "ran out: inactive");
    assert_eq!(ran_out.validator.balance, 0);
    assert_eq!(ran_out.updated_height, 3);

    firn_store::testing::record_reads(&store);
    let days = |scope| {
        let store = store.clone();
        async move { store.list_l1_fee_days(scope, 0, u64::MAX).await.unwrap() }
    };
    assert_eq!(
        days(L1FeeScope::All).await,
        vec![total(10, 300, 3), total(11, 120, 2)]
    );
    assert_eq!(
        days(L1FeeScope::Subnet(id(31, 1))).await,
        vec![total(10, 200, 2), total(11, 60, 1)]
    );
    assert_eq!(
        days(L1FeeScope::Node(node(1))).await,
        vec![total(10, 200, 2), total(11, 120, 2)]
    );
    assert_eq!(
        days(L1FeeScope::Validation(v2.validation_id)).await,
        vec![total(10, 100, 1)]
    );
    assert!(days(L1FeeScope::Subnet(id(31, 9))).await.is_empty());
    assert_eq!(
        store
            .list_l1_fee_days(L1FeeScope::All, 11 * DAY, 11 * DAY)
            .await
            .unwrap(),
        vec![total(11, 120, 2)],
        "the range is inclusive"
    );
    firn_store::testing::assert_reads_use_indexes(&store).await;
}
