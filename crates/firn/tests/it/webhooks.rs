//! Webhooks end to end: `firn up`, the official SDK running the webhook lifecycle and a
//! receiver that checks every delivery with chainkit's `validateWebhook`
//! (`tests/js/data-api/webhooks.mjs`), C-Chain transfers to the watched address, and a
//! `kill -9` of `firn up` while deliveries wait on retries. Every transfer must arrive, under
//! one `messageId` each, however often it is sent.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::devnet::{call, start_firn, temp_dir};
use crate::up::banner_value;

const WATCH: &str = "0x00000000000000000000000000000000c0ffee01";
const SENDER: &str = "0x00000000000000000000000000000000000a11ce";

/// The receiver script's lines, as they come.
struct Script {
    child: Child,
    lines: mpsc::Receiver<Value>,
    seen: Vec<Value>,
}

impl Script {
    /// Waits up to 90 s for a line `pick` accepts, keeping every line read.
    fn wait(&mut self, what: &str, pick: impl Fn(&[Value]) -> bool) {
        let deadline = Instant::now() + Duration::from_secs(90);
        while !pick(&self.seen) {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    assert!(line.get("error").is_none(), "the SDK script failed: {line}");
                    self.seen.push(line);
                }
                Err(_) => panic!(
                    "timed out waiting for {what}; lines so far: {:?}",
                    self.seen
                ),
            }
        }
    }
}

impl Drop for Script {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Sends `n` C-Chain transfers of 1 wei from [`SENDER`] (impersonated, funded) to `to`
/// through the node at `node`; their hashes.
pub fn transfers(node: &str, to: &str, n: usize) -> Vec<String> {
    let rpc = |method: &str, params: Value| call(node, "/ext/bc/C/rpc", method, params);
    rpc("anvil_setBalance", json!([SENDER, "0xde0b6b3a7640000"]));
    rpc("anvil_impersonateAccount", json!([SENDER]));
    (0..n)
        .map(|_| {
            rpc(
                "eth_sendTransaction",
                json!([{"from": SENDER, "to": to, "value": "0x1"}]),
            )
            .as_str()
            .unwrap()
            .to_owned()
        })
        .collect()
}

fn count(lines: &[Value], key: &str) -> usize {
    lines.iter().filter(|l| l.get(key).is_some()).count()
}

#[test]
fn the_sdk_runs_webhooks_and_every_event_arrives_across_a_kill() {
    let Some(suite) =
        crate::data_api::sdk_suite("the_sdk_runs_webhooks_and_every_event_arrives_across_a_kill")
    else {
        return;
    };
    let dir = temp_dir("webhooks");
    let flags = [
        "--days",
        "1",
        "--transfers-per-day",
        "4",
        "--quiet-chain",
        "--api-addr",
        "127.0.0.1:0",
        "--metrics-addr",
        "127.0.0.1:0",
    ];
    let mut up = start_firn("up", dir.path(), &flags);
    let api = banner_value(&up.banner, "Data API     ");
    let mut child = Command::new("node")
        .arg("webhooks.mjs")
        .current_dir(&suite)
        .env("FIRN_API_URL", &api)
        .env("FIRN_CHAIN_ID", "43113")
        .env("FIRN_WATCH", WATCH)
        .stdout(Stdio::piped())
        .spawn()
        .expect("running node");
    let stdout = child.stdout.take().unwrap();
    let (tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Ok(v) = serde_json::from_str::<Value>(&line)
                && tx.send(v).is_err()
            {
                return;
            }
        }
    });
    let mut script = Script {
        child,
        lines,
        seen: Vec::new(),
    };
    script.wait("the SDK lifecycle", |l| count(l, "ready") == 1);

    // Three transfers; the receiver refuses the first attempts, and firn is killed while the
    // retries wait.
    let mut sent = transfers(&up.url, WATCH, 3);
    script.wait("two refused attempts", |l| count(l, "failed") >= 2);
    up.child.kill().unwrap();
    up.child.wait().unwrap();

    let up = start_firn("up", dir.path(), &flags);
    sent.extend(transfers(&up.url, WATCH, 3));
    let want: BTreeSet<String> = sent.iter().cloned().collect();
    script.wait("every transfer", |l| {
        let got: BTreeSet<&str> = l
            .iter()
            .filter_map(|x| x["event"]["txHash"].as_str())
            .collect();
        want.iter().all(|h| got.contains(h.as_str()))
    });

    let lines = &script.seen;
    let invalid: Vec<&Value> = lines
        .iter()
        .filter(|l| l.get("invalid").is_some())
        .collect();
    assert!(
        invalid.is_empty(),
        "deliveries chainkit refused: {invalid:?}"
    );
    assert_eq!(count(lines, "failed"), 3, "{lines:?}");
    // One messageId per transaction, whatever was sent twice.
    let mut ids: BTreeMap<&str, &str> = BTreeMap::new();
    for e in lines.iter().filter_map(|l| l.get("event")) {
        let (id, hash) = (
            e["messageId"].as_str().unwrap(),
            e["txHash"].as_str().unwrap(),
        );
        assert_eq!(
            *ids.entry(id).or_insert(hash),
            hash,
            "{id} names two transactions"
        );
    }
    let hashes: BTreeSet<&str> = ids.values().copied().collect();
    assert_eq!(
        ids.len(),
        hashes.len(),
        "a transaction under two messageIds"
    );
    assert_eq!(
        hashes,
        want.iter().map(String::as_str).collect(),
        "exactly the watched address's transfers"
    );
    drop(script);
    crate::devnet::stop(up);
}
