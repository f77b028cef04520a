//! `firn serve` end to end: a store the test fills, the binary serving it, and the official
//! SDKs (node, `tests/js/data-api`) calling every endpoint with response validation on.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

#[path = "../../../firn-api/tests/it/fixtures.rs"]
mod fixtures;

use fixtures::{CHAIN, ERC20, evm_address, fuji, node, short};

pub(crate) struct Served {
    child: Child,
    pub(crate) url: String,
    pub(crate) metrics_url: String,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-INT", &self.child.id().to_string()])
            .status();
        let _ = self.child.wait();
    }
}

/// `firn serve` on loopback ports the system picks, over the store at `database`.
fn serve_command(database: &Path, extra: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_firn"));
    command
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--metrics-listen",
            "127.0.0.1:0",
            "--database",
        ])
        .arg(database)
        .args(extra);
    command
}

pub(crate) fn serve(database: &Path, extra: &[&str]) -> Served {
    let mut child = serve_command(database, extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("running firn serve");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut metrics_url = String::new();
    let url = loop {
        let Some(line) = lines.next() else {
            let mut err = String::new();
            child
                .stderr
                .take()
                .unwrap()
                .read_to_string(&mut err)
                .unwrap();
            panic!("firn serve exited before listening: {err}");
        };
        let line = line.unwrap();
        if let Some(url) = line.strip_prefix("Metrics API: ") {
            metrics_url = url.to_owned();
        }
        if let Some(url) = line.strip_prefix("Listening on ") {
            break url.to_owned();
        }
    };
    Served {
        child,
        url,
        metrics_url,
    }
}

/// One GET over a plain HTTP/1.1 connection: status line and JSON body.
pub fn get(url: &str, path: &str) -> (String, Value) {
    let host = url.strip_prefix("http://").unwrap();
    let mut s = TcpStream::connect(host).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut resp = String::new();
    s.read_to_string(&mut resp).unwrap();
    let (head, body) = resp.split_once("\r\n\r\n").unwrap();
    let status = head.lines().next().unwrap().to_owned();
    let body = serde_json::from_str(body.trim()).unwrap_or(Value::String(body.to_owned()));
    (status, body)
}

/// Fills a SQLite store at `path` with the API tests' world, its EVM chain's node at `rpc`
/// (native balances are read from it); returns what the SDK suite checks.
fn fill(path: &Path, rpc: &str) -> Value {
    use firn_store::EvmWriter;
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let store = firn_store::open(path.to_str().unwrap()).await.unwrap();
        let world = fixtures::seed(&store, 40, 120).await;
        let mut chain = fixtures::evm_chain(CHAIN);
        chain.rpc_url = rpc.to_owned();
        store.upsert_evm_chain(&chain).await.unwrap();
        store.close().await;
        let p_address = short(1);
        let tx_count = world.p.facts.iter().filter(|f| f.addresses.contains(&p_address)).count();
        let evm_address_1 = evm_address(1);
        let erc20 = world
            .evm
            .blocks
            .iter()
            .flat_map(|b| b.transfers.iter())
            .filter(|t| {
                t.standard == firn_store::rows::evm::TokenStandard::Erc20
                    && (t.from == evm_address_1 || t.to == evm_address_1)
            })
            .count();
        let erc721_address = world
            .evm
            .blocks
            .iter()
            .flat_map(|b| b.transfers.iter())
            .filter(|t| t.standard == firn_store::rows::evm::TokenStandard::Erc721 && t.to != firn_store::types::Address::ZERO)
            .map(|t| t.to)
            .max_by_key(|a| {
                world.evm.blocks.iter().flat_map(|b| b.transfers.iter()).filter(|t| t.standard == firn_store::rows::evm::TokenStandard::Erc721 && (t.from == *a || t.to == *a)).count()
            })
            .unwrap();
        // The owner of the most collectibles (of `token`, or of any), and how many.
        let busiest_of = |token: Option<u64>| {
            let mut by_owner = std::collections::BTreeMap::<_, usize>::new();
            for (owner, t, _) in world.evm.holdings.keys() {
                if token.is_none_or(|k| *t == evm_address(k)) {
                    *by_owner.entry(*owner).or_default() += 1;
                }
            }
            by_owner.into_iter().max_by_key(|(_, n)| *n).unwrap()
        };
        let (collector, collectibles) = busiest_of(None);
        let erc20_holdings = fixtures::erc20_balances(&world.evm.blocks);
        let (erc20_holder, erc20_held) = erc20_holdings
            .iter()
            .max_by_key(|(_, h)| h.len())
            .map(|(a, h)| (*a, h.len()))
            .unwrap();
        let (erc721_holder, erc721_held) = busiest_of(Some(fixtures::ERC721));
        let (erc1155_holder, erc1155_held) = busiest_of(Some(fixtures::ERC1155));
        let (contract, contract_tx) = world
            .evm
            .blocks
            .iter()
            .flat_map(|b| b.txs.iter())
            .find_map(|t| t.contract_address.map(|c| (c, t.hash)))
            .unwrap();
        let delegators = world.stakers.iter().filter(|(_, s, _)| s.is_delegator).count();
        let txs = || world.evm.blocks.iter().flat_map(|b| b.txs.iter());
        let native = txs()
            .filter(|t| t.from == evm_address_1 || t.to == Some(evm_address_1) || t.contract_address == Some(evm_address_1))
            .count();
        let busy = world.evm.blocks.iter().max_by_key(|b| b.txs.len()).unwrap();
        let erc1155 = |t: &&firn_store::rows::evm::TokenTransfer| t.standard == firn_store::rows::evm::TokenStandard::Erc1155;
        let transfers = || world.evm.blocks.iter().flat_map(|b| b.transfers.iter());
        let erc1155_address = transfers().filter(erc1155).map(|t| t.to).max_by_key(|a| {
            transfers().filter(erc1155).filter(|t| t.from == *a || t.to == *a).count()
        }).unwrap();
        let erc1155_count = transfers().filter(erc1155).filter(|t| t.from == erc1155_address || t.to == erc1155_address).count();
        let activity = fixtures::activity_of(&world.evm.blocks, evm_address_1).len();
        let internal_moves = |a| fixtures::moves_of(&world.evm.blocks, a).len();
        let internal_address = (0..12).map(evm_address).max_by_key(|a| internal_moves(*a)).unwrap();
        let internal_count = internal_moves(internal_address);
        let factory = evm_address(fixtures::FACTORY);
        let deployed = world
            .evm
            .blocks
            .iter()
            .flat_map(|b| b.internal_txs.iter().map(move |i| (b, i)))
            .filter(|(b, i)| i.from == factory && !i.reverted && b.txs[i.tx_index as usize].success)
            .count();
        let mut ctx = json!({
            "pAddress": fuji(1),
            "pAddressTxCount": tx_count,
            "stakingAddress": fuji(100),
            "rewardAddress": fuji(101),
            "rewardCount": world.rewards.iter().filter(|(_, r)| r.addresses.contains(&short(101))).count(),
            "delegatorCount": delegators,
            "pBlockCount": world.p.height,
            "nodeId": node(1).to_string(),
            "blockchainId": world.blockchain.to_string(),
            "chainId": CHAIN.to_string(),
            "evmBlockCount": world.evm.number,
            "evmAddress": format!("{evm_address_1:#x}"),
            "erc20Count": erc20,
            "erc721Address": format!("{erc721_address:#x}"),
            "collector": format!("{collector:#x}"),
            "collectibleCount": collectibles,
            "contract": format!("{contract:#x}"),
            "contractTx": contract_tx.to_string(),
            "evmTxCount": txs().count(),
            "failedTxCount": txs().filter(|t| !t.success).count(),
            "busyBlock": busy.block.number,
            "busyBlockTxCount": busy.txs.len(),
            "nativeTxCount": native,
            "erc1155Address": format!("{erc1155_address:#x}"),
            "erc1155Count": erc1155_count,
            "activityCount": activity,
            "internalAddress": format!("{internal_address:#x}"),
            "internalCount": internal_count,
            "erc20Token": format!("{:#x}", evm_address(fixtures::ERC20)),
            "tokenTransferCount": transfers().filter(|t| t.token == evm_address(fixtures::ERC20)).count(),
            "deployer": format!("{factory:#x}"),
            "deployedCount": deployed,
            "allChainsTxCount": txs().count(),
            "nftCollection": format!("{:#x}", evm_address(fixtures::ERC721)),
            "nftTokenCount": fixtures::minted_ids(&world.evm.blocks, evm_address(fixtures::ERC721)).len(),
            "allChainsBlockCount": world.evm.number,
        });
        // A second object: one literal this long overflows json!'s recursion limit.
        let balances = json!({
            "erc20Holder": format!("{erc20_holder:#x}"),
            "erc20BalanceCount": erc20_held,
            "erc721Holder": format!("{erc721_holder:#x}"),
            "erc721BalanceCount": erc721_held,
            "erc1155Holder": format!("{erc1155_holder:#x}"),
            "erc1155BalanceCount": erc1155_held,
        });
        for (k, v) in balances.as_object().unwrap() {
            ctx[k] = v.clone();
        }
        ctx
    })
}

fn temp_db(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("firn-serve-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir.join("firn.db")
}

#[test]
fn serve_answers_over_http_and_shuts_down_cleanly() {
    let db = temp_db("http");
    fill(&db, "http://127.0.0.1:9/ext/bc/C/rpc");
    let served = serve(&db, &[]);
    let (status, body) = get(&served.url, "/v1/health-check");
    assert!(status.contains("200"), "{status} {body}");
    assert_eq!(body["status"], "ok");
    let (status, body) = get(
        &served.url,
        "/v1/networks/fuji/blockchains/p-chain/transactions%3AlistStaking",
    );
    assert!(
        status.contains("200"),
        "escaped colon routes: {status} {body}"
    );
    let (status, body) = get(
        &served.url,
        "/v1/networks/fuji/blockchains/p-chain/blocks?pageSize=0",
    );
    assert!(status.contains("400"), "{status}");
    assert_eq!(body["statusCode"], 400);
    let (_, doc) = get(&served.url, "/api-json");
    let paths = doc["paths"].as_object().unwrap();
    for p in [
        "/v1/networks/{network}/blockchains/{blockchainId}/transactions",
        "/v1/chains/{chainId}/addresses/{address}/balances:listCollectibles",
        "/v1/networks/{network}/delegators",
    ] {
        assert!(paths.contains_key(p), "{p} missing from /api-json");
    }
    let (status, html) = get(&served.url, "/api");
    assert!(status.contains("200"));
    assert!(
        html.as_str()
            .unwrap()
            .contains("listLatestPrimaryNetworkTransactions")
    );
    let (_, metrics) = get(&served.url, "/metrics");
    let metrics = metrics.as_str().unwrap().to_owned();
    assert!(
        metrics.contains("firn_api_requests_total{route=\"/v1/health-check\",status=\"200\"} 1"),
        "{metrics}"
    );
    assert!(
        metrics.contains("firn_indexer_height{chain=\"p-chain\"}"),
        "{metrics}"
    );
    assert!(
        metrics.contains("firn_indexer_lag_seconds{chain=\"evm:43113\"}"),
        "{metrics}"
    );
    drop(served);
    let _ = std::fs::remove_dir_all(db.parent().unwrap());
}

fn node_available() -> bool {
    Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The SDK project, installed; `None` (and a printed skip) when node is absent.
pub fn sdk_suite(test: &str) -> Option<PathBuf> {
    if !node_available() {
        eprintln!("SKIPPED {test}: node is not installed");
        return None;
    }
    Some(crate::js::project(
        "data-api",
        &[
            "@avalanche-sdk/chainkit",
            "@avalabs/avacloud-sdk",
            "@noble/hashes",
        ],
    ))
}

#[test]
fn official_sdks_validate_every_response() {
    let Some(suite) = sdk_suite("official_sdks_validate_every_response") else {
        return;
    };
    let db = temp_db("sdk");
    // The native balances the token lists carry come from a real node.
    let rt = tokio::runtime::Runtime::new().unwrap();
    let node = rt
        .block_on(firn_node::spawn(firn_node::NodeConfig::test().with_evm()))
        .unwrap();
    let context = fill(&db, &node.url_of("/ext/bc/C/rpc"));
    let served = serve(&db, &[]);
    let out = Command::new("node")
        .arg("suite.mjs")
        .current_dir(&suite)
        .env("FIRN_API_URL", &served.url)
        .env("FIRN_SDK_CONTEXT", context.to_string())
        .output()
        .expect("running node");
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "SDK suite failed:\n{stdout}");
    assert!(stdout.contains(", 0 failures"), "{stdout}");
    drop(served);
    rt.block_on(node.shutdown());
    let _ = std::fs::remove_dir_all(db.parent().unwrap());
}

/// `firn up` with generated history: once its indexer has caught up with the node, the SDKs'
/// answers must match the node's own RPC (`tests/js/data-api/node.mjs`).
#[test]
fn official_sdks_agree_with_the_node_rpc() {
    let Some(suite) = sdk_suite("official_sdks_agree_with_the_node_rpc") else {
        return;
    };
    let dir = crate::devnet::temp_dir("data-api-node");
    let up = crate::devnet::start_firn(
        "up",
        dir.path(),
        &[
            "--days",
            "6",
            "--transfers-per-day",
            "12",
            "--quiet-chain",
            "--api-addr",
            "127.0.0.1:0",
            "--metrics-addr",
            "127.0.0.1:0",
        ],
    );
    let height =
        crate::devnet::call(&up.url, "/ext/bc/P", "platform.getHeight", json!({}))["height"]
            .as_str()
            .unwrap()
            .to_owned();
    let api = crate::up::banner_value(&up.banner, "Data API     ");
    // The indexer has caught up when the newest block the Data API serves is the node's.
    crate::up::wait_for(|| {
        let page = crate::up::get_json(&format!(
            "{api}/v1/networks/fuji/blockchains/p-chain/blocks?pageSize=1"
        ))?;
        (page["blocks"].get(0)?["blockNumber"].as_str()? == height).then_some(())
    });
    teleporter_with_viem(&up, &api);
    let out = Command::new("node")
        .arg("node.mjs")
        .current_dir(&suite)
        .env("FIRN_API_URL", &api)
        .env("FIRN_NODE_URL", &up.url)
        .output()
        .expect("running node");
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}{}", String::from_utf8_lossy(&out.stderr));
    crate::devnet::stop(up);
    assert!(out.status.success(), "node suite failed:\n{stdout}");
    assert!(stdout.contains(", 0 failures"), "{stdout}");
}

/// Teleporter driven by viem on `up` (`tests/js/evm/icm.mjs`): a message C-Chain → L1 relayed
/// and executed, its receipt back, a failed execution retried, each listed by the Data API at
/// `api` with both sides. The SDK suite that follows checks them against the chains' logs too.
fn teleporter_with_viem(up: &crate::devnet::Running, api: &str) {
    // A funded key the history leaves idle (funded on both chains).
    let key = firn_devnet::DevnetConfig::default().funded_key(19);
    crate::evm_viem::node_tests(
        "icm.mjs",
        &[
            ("FIRN_RPC", format!("{}/ext/bc/C/rpc", up.url)),
            (
                "FIRN_L1_RPC",
                crate::up::banner_value(&up.banner, "  FirnL1   "),
            ),
            ("FIRN_KEY", format!("0x{}", hex::encode(key.to_bytes()))),
            ("FIRN_API_URL", api.to_owned()),
        ],
    );
}

/// Page tokens are signed with `--page-token-secret`: any process that shares it continues a
/// page another one issued (processes behind one load balancer); one with another secret,
/// and a token changed by a client, get a 400 in the API's error format, never a 500.
#[test]
fn page_tokens_work_across_processes_that_share_a_secret() {
    let db = temp_db("tokens");
    fill(&db, "http://127.0.0.1:9/ext/bc/C/rpc");
    let secret = ["--page-token-secret", "one shared secret"];
    let (a, b) = (serve(&db, &secret), serve(&db, &secret));
    let other = serve(&db, &["--page-token-secret", "another secret"]);
    let (data, metrics) = (
        format!(
            "/v1/networks/fuji/blockchains/p-chain/transactions?addresses={}&pageSize=2",
            fuji(1)
        ),
        format!("/v2/chains/{CHAIN}/metrics/txCount?timeInterval=hour&pageSize=2"),
    );
    for (urls, path) in [
        ((&a.url, &b.url, &other.url), &data),
        (
            (&a.metrics_url, &b.metrics_url, &other.metrics_url),
            &metrics,
        ),
    ] {
        let (issuer, peer, stranger) = urls;
        let (status, first) = get(issuer, path);
        assert!(status.contains("200"), "{status} {first}");
        let token = first["nextPageToken"]
            .as_str()
            .expect("a second page")
            .to_owned();
        let next = format!("{path}&pageToken={token}");
        let (status, own) = get(issuer, &next);
        assert!(status.contains("200"), "{status} {own}");
        let (status, theirs) = get(peer, &next);
        assert!(status.contains("200"), "{status} {theirs}");
        assert_eq!(theirs, own, "the peer serves the same second page");
        let (status, body) = get(stranger, &next);
        assert!(status.contains("400"), "{status} {body}");
        assert_eq!(body["statusCode"], 400);
        // A client's edit of one character.
        let mut forged = token.into_bytes();
        let i = forged.len() / 2;
        forged[i] = if forged[i] == b'A' { b'B' } else { b'A' };
        let forged = String::from_utf8(forged).unwrap();
        let (status, body) = get(issuer, &format!("{path}&pageToken={forged}"));
        assert!(status.contains("400"), "{status} {body}");
        assert_eq!(body["statusCode"], 400);
    }
    drop((a, b, other));
    let _ = std::fs::remove_dir_all(db.parent().unwrap());
}

/// `firn serve --token-list` puts the list's logos on tokens; a list that is not one stops it
/// at start with a message that names the file.
#[test]
fn serve_takes_logos_from_a_token_list() {
    let db = temp_db("token-list");
    fill(&db, "http://127.0.0.1:9/ext/bc/C/rpc");
    let dir = db.parent().unwrap();
    let token = evm_address(ERC20);
    let list = dir.join("tokens.json");
    let logo = "https://logos.example/firn.png";
    let body = json!({"name": "t", "tokens": [{"chainId": CHAIN, "address": format!("{token:#x}"), "logoURI": logo}]});
    std::fs::write(&list, body.to_string()).unwrap();
    let served = serve(&db, &["--token-list", list.to_str().unwrap()]);
    let path = format!(
        "/v1/chains/{CHAIN}/addresses/{:#x}/transactions:listErc20?pageSize=50",
        evm_address(1)
    );
    let (status, body) = get(&served.url, &path);
    assert!(status.contains("200"), "{status} {body}");
    let transfers = body["transactions"].as_array().unwrap();
    let listed: Vec<&Value> = transfers
        .iter()
        .filter(|t| t["erc20Token"]["address"] == token.to_checksum(None))
        .collect();
    assert!(!listed.is_empty(), "{body}");
    assert!(
        listed.iter().all(|t| t["erc20Token"]["logoUri"] == logo),
        "{body}"
    );
    drop(served);

    std::fs::write(&list, "{\"tokens\": {}}").unwrap();
    let out = serve_command(&db, &["--token-list", list.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("invalid token list") && err.contains("tokens.json"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(dir);
}
