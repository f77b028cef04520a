//! `firn index` end to end: a child process following an in-process devnet's node RPC (the
//! P-Chain and a C-Chain with token activity) into SQLite, killed with SIGKILL at random points
//! and restarted; the final store must equal an uninterrupted run's, table by table.

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use firn_core::calendar::DAY;
use firn_core::ids::NodeId;
use firn_core::network::AVAX;
use firn_devnet::genesis::derive_bls;
use firn_devnet::{PChain, Wallet};
use firn_node::{NodeConfig, NodeHandle};
use tempfile::TempDir;

/// About `transfers` blocks on `chain`, with stakers that end (reward proposals and their
/// commit blocks) along the way.
fn build_chain(chain: &PChain, transfers: usize) {
    let addrs = chain.funded_addresses().to_vec();
    let build = |chain: &PChain| {
        chain.clock().advance(1);
        chain.build_until_idle().unwrap();
    };
    for i in 0..transfers {
        if i % 500 == 0 {
            let w = Wallet::new(chain);
            let node = NodeId([0x40 + (i / 500) as u8; 20]);
            let sk = derive_bls("crash", "node", i as u32).unwrap();
            let end = chain.timestamp() + 2 * DAY;
            chain
                .issue_tx(
                    w.add_validator(node, &sk, 2_000 * AVAX, end, addrs[4], 20_000)
                        .unwrap(),
                )
                .unwrap();
            build(chain);
            chain
                .issue_tx(
                    w.add_delegator(node, 25 * AVAX, end - 10, addrs[5])
                        .unwrap(),
                )
                .unwrap();
            build(chain);
        }
        if i % 500 == 250 {
            chain.clock().advance(3 * DAY);
            chain.build_until_idle().unwrap();
        }
        let w = Wallet::with_keys(chain, vec![chain.funded_keys().swap_remove(i % 3)]);
        chain
            .issue_tx(w.send(addrs[(i + 1) % addrs.len()], AVAX).unwrap())
            .unwrap();
        build(chain);
    }
}

/// On `node`'s C-Chain, `blocks` blocks of activity from the first funded key: ERC-20
/// transfers, native transfers, and an NFT mint every few blocks (its `data:` token URI
/// decoded by the indexer).
fn build_c_chain(node: &NodeHandle, blocks: usize) -> Arc<firn_evm::EvmChain> {
    use alloy_consensus::{SignableTransaction, TxEip1559, TxEnvelope};
    use alloy_eips::eip2718::Encodable2718;
    use alloy_primitives::{Address, B256, Bytes, TxKind, U256};
    use alloy_signer::SignerSync;

    let n = node.network();
    let secret = node.funded_keys()[0].to_bytes();
    let key = alloy_signer_local::PrivateKeySigner::from_bytes(&B256::from(secret)).unwrap();
    let funds = U256::from(10u64).pow(U256::from(24));
    let chain = node.c_chain().unwrap();
    let mut nonce = 0;
    let mut send = |to: Option<Address>, value: U256, input: Vec<u8>, gas: u64| {
        let tx = TxEip1559 {
            chain_id: n.evm_chain_id,
            nonce,
            gas_limit: gas,
            max_fee_per_gas: 200_000_000_000,
            max_priority_fee_per_gas: 1_000_000_000,
            to: to.map_or(TxKind::Create, TxKind::Call),
            value,
            access_list: Default::default(),
            input: Bytes::from(input),
        };
        nonce += 1;
        let sig = key.sign_hash_sync(&tx.signature_hash()).unwrap();
        let env: TxEnvelope = tx.into_signed(sig).into();
        chain.submit_raw_tx(&env.encoded_2718()).unwrap()
    };
    let word = |v: U256| v.to_be_bytes::<32>().to_vec();
    let string = |s: &str| {
        let mut t = word(U256::from(s.len()));
        let mut b = s.as_bytes().to_vec();
        b.resize(32, 0);
        t.extend(b);
        t
    };
    let artifact = |name: &str| {
        let path = format!(
            "{}/../../contracts/artifacts/{name}.json",
            env!("CARGO_MANIFEST_DIR")
        );
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        hex::decode(v["bytecode"].as_str().unwrap().trim_start_matches("0x")).unwrap()
    };
    // FirnToken("Crash", "CRSH", 18, 1e24) and FirnCollectible("Crash Cats", "CCAT").
    let mut token_code = artifact("FirnToken");
    for w in [128u64, 192, 18] {
        token_code.extend(word(U256::from(w)));
    }
    token_code.extend(word(funds));
    token_code.extend(string("Crash"));
    token_code.extend(string("CRSH"));
    let token_tx = send(None, U256::ZERO, token_code, 3_000_000);
    let mut nft_code = artifact("FirnCollectible");
    nft_code.extend(word(U256::from(64u64)));
    nft_code.extend(word(U256::from(128u64)));
    nft_code.extend(string("Crash Cats"));
    nft_code.extend(string("CCAT"));
    let nft_tx = send(None, U256::ZERO, nft_code, 5_000_000);
    let build = |chain: &firn_evm::EvmChain| {
        node.clock().advance(2);
        chain.build_block().unwrap().unwrap();
    };
    build(&chain);
    let created = |tx: B256| {
        let (b, i) = chain.mined(&tx).unwrap();
        b.receipts[i].contract_address.unwrap()
    };
    let (token, nft) = (created(token_tx), created(nft_tx));
    for b in 0..blocks {
        for i in 0..4u8 {
            let to = Address::repeat_byte(1 + (b as u8).wrapping_mul(7).wrapping_add(i) % 50);
            let mut data = vec![0xa9, 0x05, 0x9c, 0xbb];
            data.extend([0u8; 12]);
            data.extend(to.as_slice());
            data.extend(word(U256::from(1_000 + b as u64)));
            send(Some(token), U256::ZERO, data, 100_000);
        }
        send(
            Some(Address::repeat_byte(0xee)),
            U256::from(b as u64 + 1),
            Vec::new(),
            21_000,
        );
        if b % 10 == 0 {
            let mut data = vec![0x6a, 0x62, 0x78, 0x42]; // mint(address)
            data.extend([0u8; 12]);
            data.extend(Address::repeat_byte(0xcc).as_slice());
            send(Some(nft), U256::ZERO, data, 300_000);
        }
        build(&chain);
    }
    chain
}

/// `firn index --once` into `db`; `batch` blocks per database transaction.
fn index_command(url: &str, db: &Path, batch: u32) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_firn"));
    c.args(["index", "--once", "--rpc", url])
        .args(["--batch-blocks", &batch.to_string()])
        .arg("--database")
        .arg(db)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    c
}

/// Every table's rows, sorted, as SQL literals; aside: the migrations table (it records times),
/// the EVM undo log and the store generation (one row or step per commit, so they depend on
/// where a run was cut) and the readings of the node's validators and supply (what the node
/// said, and when).
fn dump(db: &Path) -> Vec<(String, Vec<String>)> {
    let sqlite = |args: &[&str]| {
        let out = Command::new("sqlite3")
            .arg("-readonly")
            .arg(db)
            .args(args)
            .output()
            .expect("running sqlite3");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let tables = sqlite(&[
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '_sqlx%' \
         AND name NOT LIKE 'sqlite_%' AND name NOT IN ('evm_undo', 'p_validator_observations', 'p_supply_readings', 'l1_validator_observations', 'store_generation') \
         ORDER BY name",
    ]);
    tables
        .lines()
        .map(|t| {
            let mut rows: Vec<String> = sqlite(&[".mode quote", &format!("SELECT * FROM \"{t}\"")])
                .lines()
                .map(str::to_owned)
                .collect();
            rows.sort();
            (t.to_owned(), rows)
        })
        .collect()
}

/// The store's P-Chain cursor, or `None` before the first commit (or before the store exists).
fn cursor(db: &Path) -> Option<u64> {
    cursor_of(db, "p-chain")
}

/// The height `chain`'s cursor stands at (`p-chain`, `x-chain`).
fn cursor_of(db: &Path, chain: &str) -> Option<u64> {
    let out = Command::new("sqlite3")
        .arg("-readonly")
        .arg(db)
        .arg(format!(
            "SELECT height FROM cursors WHERE chain = '{chain}'"
        ))
        .output()
        .ok()?;
    String::from_utf8(out.stdout).ok()?.trim().parse().ok()
}

/// Every chain's cursor, as one string (empty before the store exists): it changes at each commit.
fn cursors_of(db: &Path) -> String {
    Command::new("sqlite3")
        .arg("-readonly")
        .arg(db)
        .arg("SELECT chain, height FROM cursors ORDER BY chain")
        .output()
        .map(|out| String::from_utf8_lossy(&out.stdout).into_owned())
        .unwrap_or_default()
}

/// A small deterministic generator for kill delays (no dependency for one test).
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn index_killed_at_random_points_ends_equal_to_an_uninterrupted_run() {
    if Command::new("sqlite3").arg("-version").output().is_err() {
        eprintln!("SKIPPED index_killed_at_random_points…: the sqlite3 command is not installed");
        return;
    }
    let dir = TempDir::new().unwrap();
    let node = firn_node::spawn(NodeConfig::test().with_evm())
        .await
        .unwrap();
    build_chain(node.pchain(), 2_500);
    let height = node.pchain().height();
    let c_chain = build_c_chain(&node, 400);
    let evm_height = c_chain.height();
    let url = node.url().to_owned();

    let reference = dir.path().join("reference.db");
    let started = Instant::now();
    let status = tokio::task::spawn_blocking({
        let mut c = index_command(&url, &reference, 64);
        move || c.status().unwrap()
    })
    .await
    .unwrap();
    assert!(status.success());
    let full_run = started.elapsed();

    // Half the kills land at a random point after the child starts (startup and migrations
    // included); the other half at a random point after the child's own first commit, so a
    // loaded machine whose startup outlasts every delay still kills mid-indexing. The crashed
    // runs commit in smaller batches than the reference, so batch edges differ.
    let crashed = dir.path().join("crashed.db");
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15 ^ u64::from(std::process::id()));
    let max_delay_ms = (full_run.as_millis() as u64 / 30).max(20);
    let mut kills = 0;
    let mut finished_early = false;
    let mut cursors = std::collections::BTreeSet::new();
    while kills < 20 {
        let before = cursors_of(&crashed);
        let mut child = index_command(&url, &crashed, 4).spawn().unwrap();
        if kills % 2 == 1 {
            while cursors_of(&crashed) == before && child.try_wait().unwrap().is_none() {
                tokio::time::sleep(Duration::from_millis(2)).await;
            }
        }
        let delay = Duration::from_millis(5 + rng.next() % max_delay_ms);
        tokio::time::sleep(delay).await;
        if child.try_wait().unwrap().is_some() {
            finished_early = true;
            break;
        }
        child.kill().unwrap();
        child.wait().unwrap();
        kills += 1;
        cursors.insert(cursor(&crashed));
    }
    assert!(
        !finished_early || kills >= 20,
        "the run finished after only {kills} kills; it needs a longer chain"
    );
    // Kills landed at many different heights, not all before the first commit.
    assert!(cursors.len() >= 5, "cursors seen at kills: {cursors:?}");
    eprintln!(
        "{kills} kills over {height} blocks (uninterrupted run: {full_run:?}); cursors at kills: {cursors:?}"
    );
    let status = tokio::task::spawn_blocking({
        let mut c = index_command(&url, &crashed, 4);
        move || c.status().unwrap()
    })
    .await
    .unwrap();
    assert!(status.success());

    let want = dump(&reference);
    let got = dump(&crashed);
    let blocks = want.iter().find(|(t, _)| t == "p_blocks").unwrap();
    assert_eq!(
        blocks.1.len() as u64,
        height + 1,
        "the reference run is complete"
    );
    let evm_blocks = want.iter().find(|(t, _)| t == "evm_blocks").unwrap();
    assert_eq!(
        evm_blocks.1.len() as u64,
        evm_height + 1,
        "the reference run indexed the C-Chain"
    );
    let metadata = want.iter().find(|(t, _)| t == "evm_nft_metadata").unwrap();
    assert!(
        metadata.1.iter().all(|r| r.contains("'INDEXED'")),
        "{:?}",
        metadata.1.first()
    );
    assert_eq!(metadata.1.len(), 40);
    assert_eq!(want.len(), got.len());
    for ((t, w), (t2, g)) in want.iter().zip(&got) {
        assert_eq!(t, t2);
        assert_eq!(w.len(), g.len(), "rows of {t} after {kills} kills");
        assert!(w == g, "table {t} differs after {kills} kills");
    }
    drop(node);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn index_follows_the_tip_and_stops_cleanly_on_ctrl_c() {
    if Command::new("sqlite3").arg("-version").output().is_err() {
        eprintln!("SKIPPED index_follows_the_tip…: the sqlite3 command is not installed");
        return;
    }
    let dir = TempDir::new().unwrap();
    let node = firn_node::spawn(NodeConfig::test()).await.unwrap();
    let chain = node.pchain().clone();
    build_chain(&chain, 5);
    let db = dir.path().join("follow.db");
    let mut child = Command::new(env!("CARGO_BIN_EXE_firn"))
        .args(["index", "--rpc", node.url(), "--database"])
        .arg(&db)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // New blocks after the start are followed too.
    let w = Wallet::new(&chain);
    chain
        .issue_tx(w.send(chain.funded_addresses()[3], AVAX).unwrap())
        .unwrap();
    chain.clock().advance(1);
    chain.build_until_idle().unwrap();
    // And the X-Chain's.
    let x = node.xchain();
    let xw = firn_devnet::xchain::wallet::XWallet::new(x);
    x.issue_tx(
        xw.send(node.network().avax_asset_id, x.funded_addresses()[3], AVAX)
            .unwrap(),
    )
    .unwrap();
    x.build_until_idle().unwrap();
    assert_eq!(x.height(), 1);
    let tip = chain.height();
    while cursor(&db) != Some(tip) || cursor_of(&db, "x-chain") != Some(1) {
        assert!(
            child.try_wait().unwrap().is_none(),
            "firn index exited early"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let out = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "firn index failed: {stderr}");
    assert!(stderr.contains("stopping"), "{stderr}");
    assert_eq!(cursor(&db), Some(tip));
}
