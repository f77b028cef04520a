//! What naming one transaction's method costs, per source: a function of firn's own contracts
//! (a map lookup), one only 4byte.directory knows (each candidate parsed and fitted to the
//! calldata), and a selector nobody knows. Run with `cargo bench -p firn-selectors`.
#![allow(missing_docs, clippy::unwrap_used)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};

/// `selector` followed by `words` 32-byte words holding small numbers.
fn call(selector: [u8; 4], words: u64) -> Vec<u8> {
    let mut input = selector.to_vec();
    for n in 0..words {
        let mut w = [0u8; 32];
        w[24..].copy_from_slice(&(n + 1).to_be_bytes());
        input.extend(w);
    }
    input
}

fn method_names(c: &mut Criterion) {
    let started = std::time::Instant::now();
    firn_selectors::load_directory_now();
    eprintln!("4byte.directory loaded in {:?}", started.elapsed());
    let mut g = c.benchmark_group("method_name");
    // FirnToken's transfer(address,uint256).
    let shipped = call([0xa9, 0x05, 0x9c, 0xbb], 2);
    // Uniswap V2's swapExactTokensForTokens(uint256,uint256,address[],address,uint256).
    let mut swap = call([0x38, 0xed, 0x17, 0x39], 0);
    for w in [1u64, 2, 160, 0xdead, 9_999_999_999, 2, 7, 8] {
        let mut word = [0u8; 32];
        word[24..].copy_from_slice(&w.to_be_bytes());
        swap.extend(word);
    }
    let unknown = call([0xde, 0xad, 0xbe, 0xef], 3);
    assert!(firn_selectors::method_name(&swap).is_some());
    g.bench_function("shipped_abi", |b| {
        b.iter(|| firn_selectors::method_name(black_box(&shipped)))
    });
    g.bench_function("directory", |b| {
        b.iter(|| firn_selectors::method_name(black_box(&swap)))
    });
    g.bench_function("unknown", |b| {
        b.iter(|| firn_selectors::method_name(black_box(&unknown)))
    });
    g.finish();
}

criterion_group!(benches, method_names);
criterion_main!(benches);
