//! Decodes arbitrary bytes as an unsigned Warp message; whatever decodes must re-encode to exactly the input.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(value) = firn_core::warp::UnsignedMessage::from_bytes(data) {
        assert_eq!(value.bytes(), data);
    }
});
