//! Decodes arbitrary bytes as a C-Chain block's extra data, both before Apricot Phase 5 (one
//! atomic tx) and since (a list); whatever decodes must re-encode to exactly the input.
#![no_main]

use firn_core::atomic::{ext_data_from_txs, txs_from_ext_data};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for apricot_phase5 in [false, true] {
        if let Ok(txs) = txs_from_ext_data(data, apricot_phase5) {
            assert_eq!(ext_data_from_txs(&txs, apricot_phase5), data);
        }
    }
});
