//! `firn index` end to end: a child process following an in-process devnet's node RPC into
//! SQLite, killed with SIGKILL at random points and restarted; the final store must equal an
//! uninterrupted run's, table by table.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use firn_core::ids::NodeId;
use firn_devnet::genesis::derive_bls;
use firn_devnet::{Clock, DevnetConfig, PChain, Wallet};
use firn_rpc::{Node, loopback, node_router, spawn};

const AVAX: u64 = 1_000_000_000;
const DAY: u64 = 24 * 3600;

struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> Self {
        let p = std::env::temp_dir().join(format!("firn-index-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        Self(p)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A chain of about `transfers` blocks, with stakers that end (reward proposals and their
/// commit blocks) along the way.
fn build_chain(dir: &Path, transfers: usize) -> Arc<PChain> {
    let config = DevnetConfig::default();
    let clock = Clock::frozen(config.genesis_time);
    let chain = Arc::new(PChain::open(config, dir, clock).unwrap());
    let addrs = chain.funded_addresses().to_vec();
    let build = |chain: &PChain| {
        chain.clock().advance(1);
        chain.build_until_idle().unwrap();
    };
    for i in 0..transfers {
        if i % 500 == 0 {
            let w = Wallet::new(&chain);
            let node = NodeId([0x40 + (i / 500) as u8; 20]);
            let sk = derive_bls("crash", "node", i as u32).unwrap();
            let end = chain.timestamp() + 2 * DAY;
            chain
                .issue_tx(
                    w.add_validator(node, &sk, 2_000 * AVAX, end, addrs[4], 20_000)
                        .unwrap(),
                )
                .unwrap();
            build(&chain);
            chain
                .issue_tx(
                    w.add_delegator(node, 25 * AVAX, end - 10, addrs[5])
                        .unwrap(),
                )
                .unwrap();
            build(&chain);
        }
        if i % 500 == 250 {
            chain.clock().advance(3 * DAY);
            chain.build_until_idle().unwrap();
        }
        let w = Wallet::with_keys(&chain, vec![chain.funded_keys().swap_remove(i % 3)]);
        chain
            .issue_tx(w.send(addrs[(i + 1) % addrs.len()], AVAX).unwrap())
            .unwrap();
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

/// Every table's rows, sorted, as SQL literals (the migrations table aside: it records times).
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
         AND name NOT LIKE 'sqlite_%' ORDER BY name",
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
    let out = Command::new("sqlite3")
        .arg("-readonly")
        .arg(db)
        .arg("SELECT height FROM cursors WHERE chain = 'p-chain'")
        .output()
        .ok()?;
    String::from_utf8(out.stdout).ok()?.trim().parse().ok()
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
    let dir = TempDir::new("crash");
    let chain = build_chain(&dir.0.join("chain"), 2_500);
    let height = chain.height();
    let node = Arc::new(Node::new(chain.clone(), None));
    let server = spawn(loopback(0), node_router(node).build().unwrap())
        .await
        .unwrap();
    let url = server.url();

    let reference = dir.0.join("reference.db");
    let started = Instant::now();
    let status = tokio::task::spawn_blocking({
        let mut c = index_command(&url, &reference, 64);
        move || c.status().unwrap()
    })
    .await
    .unwrap();
    assert!(status.success());
    let full_run = started.elapsed();

    // Kill points spread over the early part of a run (startup and migrations included);
    // the crashed runs commit in smaller batches than the reference, so batch edges differ.
    let crashed = dir.0.join("crashed.db");
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15 ^ u64::from(std::process::id()));
    let max_delay_ms = (full_run.as_millis() as u64 / 30).max(20);
    let mut kills = 0;
    let mut finished_early = false;
    let mut cursors = std::collections::BTreeSet::new();
    while kills < 20 {
        let mut child = index_command(&url, &crashed, 4).spawn().unwrap();
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
    assert_eq!(want.len(), got.len());
    for ((t, w), (t2, g)) in want.iter().zip(&got) {
        assert_eq!(t, t2);
        assert_eq!(w.len(), g.len(), "rows of {t} after {kills} kills");
        assert!(w == g, "table {t} differs after {kills} kills");
    }
    drop(server);
}
