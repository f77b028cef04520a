//! Names arbitrary calldata (a transaction's input, which anyone chooses) against firn's ABIs
//! and 4byte.directory's signatures. The check: no panic, and a name, when given, is a
//! signature whose selector is the calldata's first four bytes.
#![no_main]

use alloy_json_abi::Function;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    firn_selectors::load_directory_now();
    if let Some(name) = firn_selectors::method_name(data) {
        let f = Function::parse(name).expect("a returned name parses");
        assert_eq!(f.selector().as_slice(), &data[..4]);
    }
});
