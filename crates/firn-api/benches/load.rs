//! The Data API under load, at scale: a store of ≥1 M P-Chain txs and ≥5 M ERC-20 transfers
//! (built once per backend and cached, see `load/fixture.rs`), served on loopback, driven by a
//! keep-alive HTTP/1.1 load generator (`load/client.rs`). Prints requests/s, p50 and p99 per
//! endpoint at moderate load, then for a mixed run over every endpoint.
//!
//! `cargo bench --workspace --bench load [-- <endpoint filter>]`. Environment:
//! - `FIRN_LOAD_BACKENDS`: `sqlite`, `postgres` or `sqlite,postgres` (default `sqlite`);
//!   `FIRN_LOAD_POSTGRES_URL`: the server and an existing database to administer from
//!   (default `postgres://postgres@127.0.0.1:5432/test`; the store goes in `firn_load_p…_t…`).
//! - `FIRN_LOAD_P_TXS` (1,000,000), `FIRN_LOAD_TRANSFERS` (5,000,000): fixture sizes.
//! - `FIRN_LOAD_CONNS` (4) connections per endpoint, `FIRN_LOAD_MIXED_CONNS` (16) in the mixed
//!   run, `FIRN_LOAD_SECONDS` (5) per run; `FIRN_LOAD_BUILD_ONLY=1` builds fixtures and stops.
//! - `FIRN_LOAD_READERS`: the store's reader connections (default: `StoreOptions`' default).
//! - `FIRN_LOAD_RESPONSE_CACHE_MIB`: the API's cache of rendered pages (default: `ApiConfig`'s,
//!   64 MiB); `0` renders every request from the store.
//!
//! The native balances (`balances:getNative` and the token-balance lists) are read from a devnet
//! node the bench starts, as `firn serve` reads them from each chain's node.
//!
//! The load generator runs in the same process and tokio runtime as the server: on a 2-core
//! machine the figures are for server and client sharing both cores.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use firn_api::{ApiConfig, AppState};

// The allocator `firn` itself runs with, so the figures are a deployment's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[path = "../tests/it/fixtures.rs"]
mod fixtures;

#[path = "load/client.rs"]
mod client;
#[path = "load/fixture.rs"]
mod fixture;

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.replace('_', "").parse().ok())
        .unwrap_or(default)
}

/// One measured endpoint: a name and the paths its requests cycle through.
struct Endpoint {
    name: &'static str,
    paths: Vec<String>,
}

const P: &str = "/v1/networks/fuji/blockchains/p-chain";

/// The endpoints, each with varied parameters (addresses, blocks, sort orders) so that a run is
/// not one cached query; `page2` entries follow a first page's `nextPageToken`.
async fn endpoints(host: &str, built: fixture::Built) -> Vec<Endpoint> {
    let c = fixtures::CHAIN;
    let spread = |n: u64, k: u64| n * 7 % k;
    let p_addr = |n: u64| fixtures::fuji(spread(n, fixture::P_ADDRESSES));
    let e_addr = |n: u64| fixtures::evm_address(spread(n, 1_000));
    let sort = |n: u64| if n.is_multiple_of(2) { "desc" } else { "asc" };
    let vary = |f: &dyn Fn(u64) -> String| (0..64).map(f).collect::<Vec<_>>();
    let token = fixtures::evm_address(1_000_000);
    let mut list = vec![
        Endpoint {
            name: "p_txs_latest",
            paths: vary(&|n| format!("{P}/transactions?pageSize=10&sortOrder={}", sort(n))),
        },
        Endpoint {
            name: "p_txs_by_address",
            paths: vary(&|n| {
                format!(
                    "{P}/transactions?addresses={}&pageSize=10&sortOrder={}",
                    p_addr(n),
                    sort(n)
                )
            }),
        },
        Endpoint {
            name: "p_txs_by_2_addresses_types",
            paths: vary(&|n| {
                format!(
                    "{P}/transactions?addresses={},{}&txTypes=ImportTx,ExportTx&pageSize=25",
                    p_addr(n),
                    p_addr(n + 1)
                )
            }),
        },
        Endpoint {
            name: "p_txs_by_address_time",
            paths: vary(&|n| {
                let from = 1_700_000_000 + built.p_height * 60 * (n % 8) / 8;
                format!(
                    "{P}/transactions?addresses={}&startTimestamp={from}&endTimestamp={}&pageSize=10",
                    p_addr(n),
                    from + 3_600 * 24 * 7
                )
            }),
        },
        Endpoint {
            name: "p_utxos_by_address",
            paths: vary(&|n| {
                format!(
                    "{P}/utxos?addresses={}&pageSize=10&sortOrder={}",
                    p_addr(n),
                    sort(n)
                )
            }),
        },
        Endpoint {
            name: "p_utxos_by_2_addresses_amount",
            paths: vary(&|n| {
                format!(
                    "{P}/utxos?addresses={},{}&sortBy=amount&includeSpent=true&pageSize=25",
                    p_addr(n),
                    p_addr(n + 1)
                )
            }),
        },
        Endpoint {
            name: "p_balances_by_address",
            paths: vary(&|n| format!("{P}/balances?addresses={}", p_addr(n))),
        },
        Endpoint {
            name: "p_last_activity_by_address",
            paths: vary(&|n| {
                format!(
                    "{P}/lastActivityTimestampByAddresses?addresses={}",
                    p_addr(n)
                )
            }),
        },
        Endpoint {
            name: "p_staking_txs_by_address",
            paths: vary(&|n| format!("{P}/transactions:listStaking?addresses={}", p_addr(n))),
        },
        Endpoint {
            name: "p_blocks",
            paths: vary(&|n| format!("{P}/blocks?pageSize=10&sortOrder={}", sort(n))),
        },
        Endpoint {
            name: "p_blocks_by_node",
            paths: vary(&|n| {
                format!(
                    "{P}/nodes/{}/blocks?pageSize=10&sortOrder={}",
                    fixtures::node(n % 3),
                    sort(n)
                )
            }),
        },
        Endpoint {
            name: "chain_ids",
            paths: vary(&|n| {
                format!(
                    "/v1/networks/fuji/addresses:listChainIds?addresses={}",
                    p_addr(n)
                )
            }),
        },
        Endpoint {
            name: "rewards_by_address",
            paths: vary(&|n| format!("/v1/networks/fuji/rewards?addresses={}", p_addr(n))),
        },
        Endpoint {
            name: "delegators",
            paths: vec!["/v1/networks/fuji/delegators?pageSize=10".to_owned()],
        },
        Endpoint {
            name: "validators",
            paths: vary(&|n| {
                format!(
                    "/v1/networks/fuji/validators?pageSize=10&sortOrder={}",
                    sort(n)
                )
            }),
        },
        Endpoint {
            name: "validators_by_capacity",
            paths: vary(&|n| {
                format!(
                    "/v1/networks/fuji/validators?validationStatus=active&sortBy=delegationCapacity&sortOrder={}",
                    sort(n)
                )
            }),
        },
        Endpoint {
            name: "pending_rewards",
            paths: vary(&|n| {
                format!(
                    "/v1/networks/fuji/rewards:listPending?addresses={}",
                    fixtures::fuji(100 + n % 2)
                )
            }),
        },
        Endpoint {
            name: "evm_blocks",
            paths: vary(&|n| format!("/v1/chains/{c}/blocks?pageSize=10&sortOrder={}", sort(n))),
        },
        Endpoint {
            name: "evm_block_by_number",
            paths: vary(&|n| {
                format!(
                    "/v1/chains/{c}/blocks/{}",
                    1 + n * 7919 % built.evm_blocks.max(1)
                )
            }),
        },
        Endpoint {
            name: "erc20_by_address",
            paths: vary(&|n| {
                format!(
                    "/v1/chains/{c}/addresses/{:#x}/transactions:listErc20?pageSize=10",
                    e_addr(n)
                )
            }),
        },
        Endpoint {
            name: "erc20_by_address_blocks",
            paths: vary(&|n| {
                let start = 1 + built.evm_blocks * (n % 8) / 8;
                format!(
                    "/v1/chains/{c}/addresses/{:#x}/transactions:listErc20?startBlock={start}&endBlock={}&pageSize=10",
                    e_addr(n),
                    start + 5_000
                )
            }),
        },
        Endpoint {
            name: "collectibles",
            paths: vary(&|n| {
                format!(
                    "/v1/chains/{c}/addresses/{:#x}/balances:listCollectibles?pageSize=10",
                    e_addr(n)
                )
            }),
        },
        Endpoint {
            name: "chains",
            paths: vec!["/v1/chains".to_owned(), format!("/v1/chains/{c}")],
        },
        Endpoint {
            name: "evm_activity_by_address",
            paths: vary(&|n| {
                format!(
                    "/v1/chains/{c}/addresses/{:#x}/transactions?pageSize=10",
                    e_addr(n)
                )
            }),
        },
        Endpoint {
            name: "evm_internal_by_address",
            paths: vary(&|n| {
                format!(
                    "/v1/chains/{c}/addresses/{:#x}/transactions:listInternals?pageSize=10",
                    e_addr(n)
                )
            }),
        },
        Endpoint {
            name: "token_transfers",
            paths: vary(&|n| {
                let start = 1 + built.evm_blocks * (n % 8) / 8;
                format!(
                    "/v1/chains/{c}/tokens/{token:#x}/transfers?startBlock={start}&endBlock={}&pageSize=10",
                    start + 5_000
                )
            }),
        },
        Endpoint {
            name: "evm_latest_txs",
            paths: vec![
                format!("/v1/chains/{c}/transactions?pageSize=10"),
                "/v1/transactions?network=testnet&pageSize=10".to_owned(),
            ],
        },
        Endpoint {
            // Index rows plus one eth_getBalance on the devnet node per request.
            name: "erc20_balances",
            paths: vary(&|n| {
                format!(
                    "/v1/chains/{c}/addresses/{:#x}/balances:listErc20?pageSize=10",
                    e_addr(n)
                )
            }),
        },
        Endpoint {
            name: "p_block_by_height",
            paths: vary(&|n| format!("{P}/blocks/{}", 1 + built.p_height * n / 64)),
        },
        Endpoint {
            name: "blockchains",
            paths: vary(&|n| {
                format!(
                    "/v1/networks/fuji/blockchains?pageSize=10&sortOrder={}",
                    sort(n)
                )
            }),
        },
        Endpoint {
            name: "subnets",
            paths: vary(&|n| {
                format!(
                    "/v1/networks/fuji/subnets?pageSize=10&sortOrder={}",
                    sort(n)
                )
            }),
        },
        Endpoint {
            name: "native_balance_only",
            paths: vary(&|n| {
                format!(
                    "/v1/chains/{c}/addresses/{:#x}/balances:getNative",
                    e_addr(n)
                )
            }),
        },
    ];
    for (name, from) in [
        ("p_txs_by_address_page2", "p_txs_by_address"),
        ("erc20_by_address_page2", "erc20_by_address"),
    ] {
        let first = &list.iter().find(|e| e.name == from).unwrap().paths;
        let mut paths = Vec::new();
        for path in first {
            let (status, body) = client::fetch(host, path).await;
            assert_eq!(status, 200, "{path}: {body}");
            let json: serde_json::Value = serde_json::from_str(&body).unwrap();
            if let Some(token) = json["nextPageToken"].as_str() {
                let token: String = form_urlencoded::byte_serialize(token.as_bytes()).collect();
                paths.push(format!("{path}&pageToken={token}"));
            }
        }
        assert!(!paths.is_empty(), "{from}: no second pages");
        list.push(Endpoint { name, paths });
    }
    // One transaction, and one block by ID, of those the latest lists show.
    for (name, list_path, field, id, prefix) in [
        (
            "p_tx_by_hash",
            "transactions",
            "transactions",
            "txHash",
            "transactions",
        ),
        ("p_block_by_hash", "blocks", "blocks", "blockHash", "blocks"),
    ] {
        let (status, body) = client::fetch(host, &format!("{P}/{list_path}?pageSize=64")).await;
        assert_eq!(status, 200, "{list_path}: {body}");
        let json: serde_json::Value = serde_json::from_str(&body).unwrap();
        let paths: Vec<String> = json[field]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|x| Some(format!("{P}/{prefix}/{}", x[id].as_str()?)))
            .collect();
        assert!(!paths.is_empty(), "{name}: nothing listed");
        list.push(Endpoint { name, paths });
    }
    list
}

fn ms(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn print(label: &str, s: &client::Stats) {
    println!(
        "{label:<30} {:>9.0} {:>8.2} {:>8.2} {:>9} {:>6}",
        s.rps,
        ms(s.p50),
        ms(s.p99),
        s.requests,
        s.errors
    );
    if let Some(e) = &s.first_error {
        println!(
            "    first error: {}",
            e.chars().take(300).collect::<String>()
        );
    }
}

async fn run_backend(backend: &str, filter: Option<&str>) {
    let sizes = fixture::Sizes {
        p_txs: env_u64("FIRN_LOAD_P_TXS", 1_000_000),
        transfers: env_u64("FIRN_LOAD_TRANSFERS", 5_000_000),
    };
    let (store, built) = match backend {
        "sqlite" => fixture::sqlite(sizes).await,
        "postgres" => {
            let url = std::env::var("FIRN_LOAD_POSTGRES_URL")
                .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".to_owned());
            fixture::postgres(&url, sizes).await
        }
        other => panic!("unknown backend {other}"),
    };
    println!(
        "\n== {backend}: ≥{} P-Chain txs ({} blocks), {} ERC-20 transfers ({} EVM blocks)",
        sizes.p_txs,
        built.p_height,
        built.evm_blocks * u64::from(fixture::TRANSFERS_PER_BLOCK),
        built.evm_blocks
    );
    if std::env::var("FIRN_LOAD_BUILD_ONLY").is_ok_and(|v| v == "1") {
        store.close().await;
        return;
    }
    // Native balances (alone and on the token-balance lists) come from a node: a devnet's.
    let node = firn_node::spawn(firn_node::NodeConfig::test().with_evm())
        .await
        .unwrap();
    let mut chain = fixtures::evm_chain(fixtures::CHAIN);
    chain.rpc_url = node.url_of("/ext/bc/C/rpc");
    firn_store::EvmWriter::upsert_evm_chain(&store, &chain)
        .await
        .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let host = listener.local_addr().unwrap().to_string();
    let mut config = ApiConfig::default();
    let cache_mib = env_u64(
        "FIRN_LOAD_RESPONSE_CACHE_MIB",
        (config.response_cache_bytes >> 20) as u64,
    );
    config.response_cache_bytes = (cache_mib as usize) << 20;
    println!("response cache: {cache_mib} MiB");
    let state = AppState::new(store.clone(), config);
    let server = tokio::spawn(firn_api::serve(listener, state, std::future::pending()));
    let all = endpoints(&host, built).await;
    let conns = env_u64("FIRN_LOAD_CONNS", 4) as usize;
    let mixed_conns = env_u64("FIRN_LOAD_MIXED_CONNS", 16) as usize;
    let seconds = env_u64("FIRN_LOAD_SECONDS", 5) as f64;
    println!(
        "{:<30} {:>9} {:>8} {:>8} {:>9} {:>6}   ({conns} connections, {seconds} s each)",
        "endpoint", "req/s", "p50 ms", "p99 ms", "requests", "errors"
    );
    let chosen: Vec<&Endpoint> = all
        .iter()
        .filter(|e| filter.is_none_or(|f| e.name.contains(f)))
        .collect();
    for e in &chosen {
        // A short warm-up so the first run does not pay for cold caches alone.
        client::drive(&host, &e.paths, conns, 0.3).await;
        let s = client::drive(&host, &e.paths, conns, seconds).await;
        print(e.name, &s);
    }
    // Mixed: every chosen endpoint's paths interleaved, more connections.
    let longest = chosen.iter().map(|e| e.paths.len()).max().unwrap_or(0);
    let mut mixed = Vec::new();
    for i in 0..longest {
        for e in &chosen {
            mixed.push(e.paths[i % e.paths.len()].clone());
        }
    }
    if !mixed.is_empty() {
        let s = client::drive(&host, &mixed, mixed_conns, seconds).await;
        print(&format!("mixed ({mixed_conns} connections)"), &s);
    }
    server.abort();
    node.shutdown().await;
    store.close().await;
}

fn main() {
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let backends = std::env::var("FIRN_LOAD_BACKENDS").unwrap_or_else(|_| "sqlite".to_owned());
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        for backend in backends.split(',').map(str::trim) {
            run_backend(backend, filter.as_deref()).await;
        }
    });
}
