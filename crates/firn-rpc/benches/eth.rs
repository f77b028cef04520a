//! EVM throughput end to end over loopback HTTP. Run with `cargo bench -p firn-rpc --bench eth`.
//!
//! - `eth/erc20_transfers`, `eth/plain_transfers`: signed transactions (signed before the
//!   timer) sent with `eth_sendRawTransaction`, 100 calls per JSON-RPC batch over 2 keep-alive
//!   connections, timed until the last one is mined by the chain's block producer;
//! - `eth/getBlockReceipts`: `eth_getBlockReceipts` of a 100-transaction ERC-20 block.
#![allow(missing_docs, clippy::unwrap_used)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use alloy_consensus::{SignableTransaction, TxEip1559, TxEnvelope};
use alloy_eips::eip2718::Encodable2718;
use alloy_primitives::{Address, B256, Bytes, TxKind, U256};
use alloy_signer::SignerSync;
use alloy_signer_local::PrivateKeySigner;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use firn_evm::{EvmChain, EvmChainConfig, EvmGenesis, Producer};
use firn_rpc::node::eth::{EvmChains, EvmNode};
use firn_rpc::{RpcRouter, loopback, spawn};

const CHAIN_ID: u64 = 43113;
const BATCH: u64 = 2000;
const PER_REQUEST: usize = 100;

fn sign(k: &PrivateKeySigner, nonce: u64, to: Option<Address>, input: Bytes, gas: u64) -> Bytes {
    let tx = TxEip1559 {
        chain_id: CHAIN_ID,
        nonce,
        gas_limit: gas,
        max_fee_per_gas: 1_000_000_000_000,
        max_priority_fee_per_gas: 1,
        to: to.map_or(TxKind::Create, TxKind::Call),
        value: U256::ZERO,
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

struct Bench {
    chain: Arc<EvmChain>,
    url: String,
    http: reqwest::Client,
}

impl Bench {
    /// Sends `txs` in batches over two concurrent connections; waits until `last` is mined.
    async fn send(&self, txs: &[Bytes], last: B256) -> Duration {
        let bodies: Vec<String> = txs
            .chunks(PER_REQUEST)
            .map(|chunk| {
                let calls: Vec<String> = chunk
                    .iter()
                    .enumerate()
                    .map(|(i, raw)| {
                        format!(
                            r#"{{"jsonrpc":"2.0","id":{i},"method":"eth_sendRawTransaction","params":["0x{}"]}}"#,
                            hex::encode(raw)
                        )
                    })
                    .collect();
                format!("[{}]", calls.join(","))
            })
            .collect();
        let start = Instant::now();
        let (a, b): (Vec<_>, Vec<_>) = bodies
            .into_iter()
            .enumerate()
            .partition(|(i, _)| i % 2 == 0);
        let post = |part: Vec<(usize, String)>| {
            let http = self.http.clone();
            let url = self.url.clone();
            async move {
                for (_, body) in part {
                    let r = http
                        .post(&url)
                        .header("content-type", "application/json")
                        .body(body)
                        .send()
                        .await
                        .unwrap();
                    let text = r.text().await.unwrap();
                    assert!(
                        !text.contains("\"error\""),
                        "{}",
                        &text[..text.len().min(300)]
                    );
                }
            }
        };
        tokio::join!(post(a), post(b));
        while self.chain.mined(&last).is_none() {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        start.elapsed()
    }
}

fn benches(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let k = PrivateKeySigner::from_bytes(&B256::repeat_byte(1)).unwrap();
    let funds = U256::from(10u64).pow(U256::from(30));
    let mut genesis = EvmGenesis::c_chain(CHAIN_ID, 0, &[(k.address(), funds)]);
    genesis.config.fee_config.gas_limit = 200_000_000;
    let chain = Arc::new(
        EvmChain::open(EvmChainConfig {
            genesis,
            blockchain_id: B256::ZERO,
            network_id: 5,
            data_dir: None,
            now: Arc::new(|| 1_700_000_000),
        })
        .unwrap(),
    );
    chain
        .submit_raw_tx(&sign(&k, 0, None, token_code(), 5_000_000))
        .unwrap();
    let token = chain.build_block().unwrap().unwrap().receipts[0]
        .contract_address
        .unwrap();
    let (server, producer, bench) = rt.block_on(async {
        let producer = Producer::spawn(chain.clone(), None);
        let chains = Arc::new(EvmChains::new());
        chains.add(
            &["C".into()],
            Arc::new(EvmNode::new(chain.clone(), Some(producer.waker()))),
        );
        let router = chains.mount(RpcRouter::new()).build().unwrap();
        let server = spawn(loopback(0), router).await.unwrap();
        let url = format!("{}/ext/bc/C/rpc", server.url());
        let bench = Bench {
            chain: chain.clone(),
            url,
            http: reqwest::Client::new(),
        };
        (server, producer, bench)
    });

    let mut g = c.benchmark_group("eth");
    g.sample_size(10);
    g.throughput(Throughput::Elements(BATCH));
    let mut nonce = 1u64;
    g.bench_function("erc20_transfers", |b| {
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
                let last = alloy_primitives::keccak256(txs.last().unwrap());
                total += rt.block_on(bench.send(&txs, last));
            }
            total
        })
    });
    g.bench_function("plain_transfers", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let txs: Vec<Bytes> = (0..BATCH)
                    .map(|i| {
                        sign(
                            &k,
                            nonce + i,
                            Some(Address::repeat_byte(9)),
                            Bytes::new(),
                            21_000,
                        )
                    })
                    .collect();
                nonce += BATCH;
                let last = alloy_primitives::keccak256(txs.last().unwrap());
                total += rt.block_on(bench.send(&txs, last));
            }
            total
        })
    });

    // A block of 100 ERC-20 transfers for the receipts call.
    for i in 0..100 {
        let to = Address::from_word(B256::from(U256::from(10_000_000 + i)));
        chain
            .submit_raw_tx(&sign(&k, nonce, Some(token), transfer_data(to), 60_000))
            .unwrap();
        nonce += 1;
    }
    rt.block_on(async { tokio::time::sleep(Duration::from_millis(200)).await });
    chain.build_until_idle().unwrap();
    let height = chain.height();
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"eth_getBlockReceipts","params":["{height:#x}"]}}"#
    );
    g.throughput(Throughput::Elements(1));
    g.sample_size(30);
    g.bench_function("getBlockReceipts", |b| {
        b.iter(|| {
            rt.block_on(async {
                let r = bench
                    .http
                    .post(&bench.url)
                    .header("content-type", "application/json")
                    .body(body.clone())
                    .send()
                    .await
                    .unwrap();
                let text = r.bytes().await.unwrap();
                assert!(text.len() > 10_000);
            })
        })
    });
    g.finish();
    rt.block_on(async {
        producer.shutdown().await;
        server.shutdown().await.unwrap();
    });
}

criterion_group!(eth_benches, benches);
criterion_main!(eth_benches);
