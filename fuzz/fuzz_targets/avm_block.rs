//! Decodes arbitrary bytes as an X-Chain block; whatever decodes must re-encode to exactly the input.
#![no_main]

use firn_core::codec;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(value) = codec::from_bytes::<firn_core::avm::Block>(data) {
        assert_eq!(codec::to_bytes(&value), data);
    }
});
