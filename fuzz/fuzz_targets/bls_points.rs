//! Decodes arbitrary bytes as BLS public keys and signatures; what decodes re-encodes exactly.
#![no_main]

use firn_core::keys::bls::{PublicKey, Signature};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(pk) = PublicKey::from_bytes(data) {
        assert_eq!(pk.to_bytes().as_slice(), data);
    }
    if let Ok(sig) = Signature::from_bytes(data) {
        assert_eq!(sig.to_bytes().as_slice(), data);
    }
});
