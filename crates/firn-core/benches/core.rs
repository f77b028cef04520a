//! Criterion benchmarks for firn-core. Run with `cargo bench -p firn-core`.
#![allow(missing_docs, clippy::unwrap_used)]

use criterion::{criterion_group, criterion_main};

mod codec;
mod keys;

criterion_group!(benches, codec::benches, codec::hash_baseline, keys::benches);
criterion_main!(benches);
