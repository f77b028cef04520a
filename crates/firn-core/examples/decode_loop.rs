//! Decodes the mainnet block vector N times (default 100,000): a steady workload for profilers
//! such as `valgrind --tool=callgrind`, whose instruction counts do not depend on machine load.
//!
//! `cargo run --release -p firn-core --example decode_loop -- 100000 [ids]`
#![allow(clippy::unwrap_used, clippy::expect_used)]

use firn_core::codec;
use firn_core::pchain::Block;
use std::hint::black_box;

fn main() {
    let hex = include_str!("../tests/vectors/pchain/blocks/mainnet-height-1000001.block.hex");
    let bytes = hex::decode(hex.trim()).expect("vector is hex");
    let mut args = std::env::args().skip(1);
    let n: usize = args
        .next()
        .map(|s| s.parse().expect("N is a number"))
        .unwrap_or(100_000);
    let with_ids = args.next().as_deref() == Some("ids");
    let start = std::time::Instant::now();
    for _ in 0..n {
        let block: Block = codec::from_bytes(black_box(&bytes)).unwrap();
        if with_ids {
            black_box(block.id());
            block.txs().for_each(|tx| {
                black_box(tx.id());
            });
        }
        black_box(&block);
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{n} decodes of {} bytes{}: {:.0} ns each, {:.0} MB/s",
        bytes.len(),
        if with_ids { " with IDs" } else { "" },
        secs * 1e9 / n as f64,
        (bytes.len() * n) as f64 / secs / 1e6
    );
}
