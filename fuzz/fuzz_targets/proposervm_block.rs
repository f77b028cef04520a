//! Parses arbitrary bytes as a proposervm block; whatever parses must re-encode to exactly the input.
#![no_main]

use firn_core::proposervm::Block;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(block) = Block::parse(data) {
        assert_eq!(block.bytes(), data);
        let _ = (block.id(), block.proposer());
    }
});
