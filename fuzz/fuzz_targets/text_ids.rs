//! Parses arbitrary text as IDs, node IDs, addresses and checksummed hex.
#![no_main]

use firn_core::address::ChainAddress;
use firn_core::encoding::{Encoding, cb58_decode};
use firn_core::ids::{Id, NodeId, ShortId};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(s) = std::str::from_utf8(data) else { return };
    if let Ok(id) = s.parse::<Id>() {
        assert_eq!(id.to_string(), s);
    }
    if let Ok(id) = s.parse::<ShortId>() {
        assert_eq!(id.to_string(), s);
    }
    if let Ok(id) = s.parse::<NodeId>() {
        assert_eq!(id.to_string(), s);
    }
    if let Ok(addr) = s.parse::<ChainAddress>() {
        assert_eq!(addr.to_string().to_lowercase(), s.to_lowercase());
    }
    let _ = cb58_decode(s);
    if let Ok(bytes) = Encoding::Hex.decode_bytes(s) {
        assert_eq!(Encoding::Hex.encode_bytes(&bytes).map(|e| e.to_lowercase()), Some(s.to_lowercase()));
    }
});
