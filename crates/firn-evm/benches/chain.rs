//! Chain throughput without HTTP: signed transactions pooled with `submit_raw_tx` and mined
//! with `build_until_idle`. Signing happens before the timer starts. The end-to-end figure
//! through `eth_sendRawTransaction` is in `crates/firn-rpc/benches/eth.rs`.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use alloy_consensus::{SignableTransaction, TxEip1559, TxEnvelope};
use alloy_eips::eip2718::Encodable2718;
use alloy_primitives::{Address, B256, Bytes, TxKind, U256};
use alloy_signer::SignerSync;
use alloy_signer_local::PrivateKeySigner;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use firn_evm::{EvmChain, EvmChainConfig, EvmGenesis};

const CHAIN_ID: u64 = 43113;
const BATCH: u64 = 1000;

fn sign(k: &PrivateKeySigner, nonce: u64, to: Option<Address>, input: Bytes, gas: u64) -> Bytes {
    let tx = TxEip1559 {
        chain_id: CHAIN_ID,
        nonce,
        gas_limit: gas,
        max_fee_per_gas: 1_000_000_000_000,
        max_priority_fee_per_gas: 1,
        to: to.map_or(TxKind::Create, TxKind::Call),
        value: U256::from(1),
        access_list: Default::default(),
        input,
    };
    let sig = k.sign_hash_sync(&tx.signature_hash()).unwrap();
    let env: TxEnvelope = tx.into_signed(sig).into();
    Bytes::from(env.encoded_2718())
}

fn token_code() -> Bytes {
    let path = format!(
        "{}/../../contracts/artifacts/FirnToken.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut code = hex::decode(v["bytecode"].as_str().unwrap().trim_start_matches("0x")).unwrap();
    let word = |n: u64| U256::from(n).to_be_bytes::<32>();
    code.extend(word(128));
    code.extend(word(192));
    code.extend(word(18));
    code.extend(U256::MAX.to_be_bytes::<32>());
    for s in ["Bench", "BNCH"] {
        code.extend(word(s.len() as u64));
        let mut b = s.as_bytes().to_vec();
        b.resize(32, 0);
        code.extend(b);
    }
    Bytes::from(code)
}

fn transfer_data(to: Address) -> Bytes {
    let mut d = vec![0xa9, 0x05, 0x9c, 0xbb];
    d.extend([0u8; 12]);
    d.extend(to.as_slice());
    d.extend(U256::from(1).to_be_bytes::<32>());
    Bytes::from(d)
}

fn chain(k: &PrivateKeySigner) -> EvmChain {
    let funds = U256::from(10u64).pow(U256::from(30));
    let genesis = EvmGenesis::c_chain(CHAIN_ID, 0, &[(k.address(), funds)]);
    let mut genesis = genesis;
    // Room for a whole batch of token transfers in one block.
    genesis.config.fee_config.gas_limit = 100_000_000;
    genesis.gas_limit = 100_000_000;
    EvmChain::open(EvmChainConfig {
        genesis,
        blockchain_id: B256::ZERO,
        network_id: 5,
        data_dir: None,
        now: Arc::new(|| 1_700_000_000),
    })
    .unwrap()
}

fn run(chain: &EvmChain, txs: &[Bytes]) -> Duration {
    let start = Instant::now();
    for raw in txs {
        chain.submit_raw_tx(raw).unwrap();
    }
    chain.build_until_idle().unwrap();
    start.elapsed()
}

fn benches(c: &mut Criterion) {
    let k = PrivateKeySigner::from_bytes(&B256::repeat_byte(1)).unwrap();
    let mut group = c.benchmark_group("evm_chain");
    group.throughput(Throughput::Elements(BATCH));
    group.sample_size(10);

    let plain = chain(&k);
    let mut nonce = 0u64;
    group.bench_function("plain_transfers", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let txs: Vec<Bytes> = (0..BATCH)
                    .map(|i| {
                        sign(
                            &k,
                            nonce + i,
                            Some(Address::repeat_byte(7)),
                            Bytes::new(),
                            21_000,
                        )
                    })
                    .collect();
                nonce += BATCH;
                total += run(&plain, &txs);
            }
            total
        })
    });

    let erc20 = chain(&k);
    erc20
        .submit_raw_tx(&sign(&k, 0, None, token_code(), 5_000_000))
        .unwrap();
    let token = erc20.build_block().unwrap().unwrap().receipts[0]
        .contract_address
        .unwrap();
    let mut nonce = 1u64;
    group.bench_function("erc20_transfers", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let txs: Vec<Bytes> = (0..BATCH)
                    .map(|i| {
                        let to = Address::from_word(B256::from(U256::from(nonce + i)));
                        sign(&k, nonce + i, Some(token), transfer_data(to), 60_000)
                    })
                    .collect();
                nonce += BATCH;
                total += run(&erc20, &txs);
            }
            total
        })
    });
    group.finish();
}

criterion_group!(chain_benches, benches);
criterion_main!(chain_benches);
