//! Decodes arbitrary bytes as a pre-Cortina X-Chain vertex; whatever decodes must re-encode to
//! exactly the input.
#![no_main]

use firn_core::avm::Vertex;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(value) = Vertex::from_bytes(data) {
        assert_eq!(value.bytes(), data);
    }
});
