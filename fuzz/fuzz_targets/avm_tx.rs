//! Decodes arbitrary bytes as a signed X-Chain tx and as an X-Chain UTXO; whatever decodes must
//! re-encode to exactly the input.
#![no_main]

use firn_core::codec;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(value) = codec::from_bytes::<firn_core::avm::Tx>(data) {
        assert_eq!(codec::to_bytes(&value), data);
    }
    if let Ok(value) = codec::from_bytes::<firn_core::avm::Utxo>(data) {
        assert_eq!(codec::to_bytes(&value), data);
    }
});
