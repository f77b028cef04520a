//! Decodes arbitrary bytes as `abi.encode(TeleporterMessage)`; whatever decodes must re-encode
//! to exactly the input.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Some(message) = firn_core::teleporter::TeleporterMessage::decode(data) {
        assert_eq!(message.encode(), data);
    }
});
