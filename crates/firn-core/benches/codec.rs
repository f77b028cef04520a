//! Decode throughput of P-Chain blocks.

use criterion::{BenchmarkId, Criterion, Throughput};
use firn_core::codec;
use firn_core::ids::{Id, ShortId};
use firn_core::pchain::block::BlockKind;
use firn_core::pchain::fx::{
    Credential, Input, Output, OutputOwners, TransferInput, TransferOutput, TransferableInput,
    TransferableOutput,
};
use firn_core::pchain::tx::BaseTx;
use firn_core::pchain::{Block, Tx, UnsignedTx};
use std::hint::black_box;

const MAINNET_BLOCK_HEX: &str =
    include_str!("../tests/vectors/pchain/blocks/mainnet-height-1000001.block.hex");

/// A Banff standard block of `n` two-input, two-output signed transfers.
fn transfer_block(n: usize) -> Vec<u8> {
    let asset = Id([7; 32]);
    let txs = (0..n)
        .map(|i| {
            let owners = |a: u8| OutputOwners {
                locktime: 0,
                threshold: 1,
                addresses: vec![ShortId([a; 20])],
            };
            let output = |a: u8| TransferableOutput {
                asset_id: asset,
                output: Output::Transfer(TransferOutput {
                    amount: 1_000_000 + i as u64,
                    owners: owners(a),
                }),
            };
            let input = |k: u32| TransferableInput {
                tx_id: Id([(i % 251) as u8; 32]),
                output_index: k,
                asset_id: asset,
                input: Input::Transfer(TransferInput {
                    amount: 2_000_000,
                    sig_indices: vec![0],
                }),
            };
            let base = BaseTx {
                network_id: 5,
                blockchain_id: Id::ZERO,
                outputs: vec![output(1), output(2)],
                inputs: vec![input(0), input(1)],
                memo: Default::default(),
            };
            let cred = || Credential {
                signatures: vec![[9u8; 65]],
            };
            Tx::new(UnsignedTx::Base(base), vec![cred(), cred()])
        })
        .collect();
    Block::new(
        Id([1; 32]),
        42,
        BlockKind::BanffStandard {
            time: 1_700_000_000,
            txs,
        },
    )
    .bytes()
}

pub fn benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("codec/decode_block");
    let mainnet = hex::decode(MAINNET_BLOCK_HEX.trim()).unwrap();
    let large = transfer_block(200);
    for (name, bytes) in [
        ("mainnet_1000001", &mainnet),
        ("banff_200_transfers", &large),
    ] {
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_with_input(BenchmarkId::from_parameter(name), bytes, |b, bytes| {
            b.iter_with_large_drop(|| codec::from_bytes::<Block>(black_box(bytes)).unwrap())
        });
    }
    group.finish();

    // What an indexer pays per block: decode, then the block ID and every tx ID.
    let mut group = c.benchmark_group("codec/decode_block_with_ids");
    for (name, bytes) in [
        ("mainnet_1000001", &mainnet),
        ("banff_200_transfers", &large),
    ] {
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_with_input(BenchmarkId::from_parameter(name), bytes, |b, bytes| {
            b.iter_with_large_drop(|| {
                let block = codec::from_bytes::<Block>(black_box(bytes)).unwrap();
                black_box(block.id());
                block.txs().for_each(|tx| {
                    black_box(tx.id());
                });
                block
            })
        });
    }
    group.finish();

    let block: Block = codec::from_bytes(&large).unwrap();
    let mut group = c.benchmark_group("codec/encode_block");
    group.throughput(Throughput::Bytes(large.len() as u64));
    group.bench_function("banff_200_transfers", |b| {
        b.iter(|| black_box(&block).bytes())
    });
    group.finish();
}

pub fn hash_baseline(c: &mut Criterion) {
    let mainnet = hex::decode(MAINNET_BLOCK_HEX.trim()).unwrap();
    let mut group = c.benchmark_group("codec/sha256");
    group.throughput(Throughput::Bytes(mainnet.len() as u64));
    group.bench_function("mainnet_1000001", |b| {
        b.iter(|| Id::hash_of(black_box(&mainnet)))
    });
    group.finish();
}
