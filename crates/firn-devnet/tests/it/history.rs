use crate::common::*;
use firn_core::ids::{Id, NodeId};
use firn_devnet::genesis::derive_bls;
use firn_devnet::wallet::Wallet;
use std::collections::BTreeMap;

#[test]
fn validators_at_every_past_height_match_what_was_current_then() {
    let dir = temp_dir("history");
    let chain = open_in(dir.path(), config());
    let wallet = Wallet::new(&chain);
    let owner = chain.funded_addresses()[0];
    let mut seen = BTreeMap::new();
    seen.insert(0, chain.validators_at(&Id::ZERO, 0).unwrap());

    let mut record = |chain: &firn_devnet::PChain| {
        let h = chain.height();
        seen.insert(h, chain.validators_at(&Id::ZERO, h).unwrap());
    };
    for i in 0..24u32 {
        let now = chain.clock().now();
        let node = NodeId([0x60 + i as u8; 20]);
        let sk = derive_bls("history", "node", i).unwrap();
        let days = 2 + u64::from(i % 5) * 3;
        let tx = wallet
            .add_validator(
                node,
                &sk,
                (2_000 + u64::from(i) * 100) * AVAX,
                now + days * DAY,
                owner,
                20_000,
            )
            .unwrap();
        chain.issue_tx(tx).unwrap();
        chain.clock().advance(1);
        while chain.build_block().unwrap().is_some() {
            record(&chain);
        }
        if i % 3 == 0 {
            let end = chain.current_validators(Id::ZERO, &[node])[0]
                .validator
                .end_time;
            let tx = wallet
                .add_delegator(node, 50 * AVAX, end - 10, owner)
                .unwrap();
            chain.issue_tx(tx).unwrap();
            chain.clock().advance(1);
            while chain.build_block().unwrap().is_some() {
                record(&chain);
            }
        }
        // Let some stakers finish, block by block, recording each height.
        chain.clock().advance(DAY + 3600 * u64::from(i % 7));
        while chain.build_block().unwrap().is_some() {
            record(&chain);
        }
    }
    assert!(chain.height() > 60, "height {}", chain.height());
    for (h, set) in &seen {
        assert_eq!(
            &chain.validators_at(&Id::ZERO, *h).unwrap(),
            set,
            "height {h}"
        );
        let all = chain.all_validators_at(*h).unwrap();
        assert_eq!(all.get(&Id::ZERO), Some(set));
    }
    // Heights never recorded (between the ones seen) answer like the previous one.
    let heights: Vec<u64> = seen.keys().copied().collect();
    for w in heights.windows(2) {
        for h in w[0] + 1..w[1] {
            assert_eq!(
                chain.validators_at(&Id::ZERO, h).unwrap(),
                seen[&w[0]],
                "height {h}"
            );
        }
    }

    // And all of it survives a restart.
    drop(chain);
    let chain = open_in(dir.path(), config());
    for (h, set) in &seen {
        assert_eq!(
            &chain.validators_at(&Id::ZERO, *h).unwrap(),
            set,
            "height {h}"
        );
    }
}
