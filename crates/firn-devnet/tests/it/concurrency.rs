use crate::common::*;
use firn_core::ids::Id;
use firn_devnet::clock::Clock;
use firn_devnet::vm::PChain;
use firn_devnet::wallet::Wallet;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

#[test]
fn readers_see_consistent_state_while_blocks_are_built() {
    let dir = temp_dir("concurrency");
    let cfg = config().starting_now();
    let chain =
        Arc::new(PChain::open(cfg.clone(), dir.path(), Clock::live(cfg.genesis_time)).unwrap());
    let total = chain.balance(chain.funded_addresses()).total;
    let done = Arc::new(AtomicBool::new(false));
    let readers: Vec<_> = (0..3)
        .map(|_| {
            let chain = Arc::clone(&chain);
            let done = Arc::clone(&done);
            std::thread::spawn(move || {
                let mut reads = 0u32;
                while !done.load(Ordering::SeqCst) {
                    // Transfers between funded keys only burn fees: the total never grows,
                    // and each read sees a whole block's effect or none of it.
                    let height = chain.height();
                    assert!(chain.block_by_height(height).is_some());
                    let (now, burned) = chain.with_state(|s| {
                        let held: u64 = chain
                            .funded_addresses()
                            .iter()
                            .filter_map(|a| s.utxo_ids_of(a))
                            .flatten()
                            .filter_map(|id| s.utxo(id))
                            .map(|u| u.output.amount())
                            .sum();
                        (held, s.burned())
                    });
                    assert_eq!(total - now, burned);
                    assert_eq!(chain.current_validators(Id::ZERO, &[]).len(), 5);
                    reads += 1;
                }
                reads
            })
        })
        .collect();
    let wallet = Wallet::new(&chain);
    let keys = chain.funded_addresses().to_vec();
    for i in 0..20 {
        chain
            .issue_tx(wallet.send(keys[i % keys.len()], AVAX).unwrap())
            .unwrap();
        chain.build_until_idle().unwrap();
    }
    done.store(true, Ordering::SeqCst);
    for r in readers {
        assert!(r.join().unwrap() > 0);
    }
    assert_eq!(chain.height(), 20);
    assert_eq!(
        chain.balance(chain.funded_addresses()).total,
        total - chain.burned_fees()
    );
    assert!(chain.burned_fees() > 0);
}
