//! `firn up` from a new data dir to serving, with the default history (30 days, 96 P-Chain
//! transfers and 48 EVM txs a day), and the process's peak memory.
//!
//! Not criterion: one sample is a whole start (tens of seconds), so the bench runs the binary
//! `FIRN_BENCH_RUNS` times (default 3) on fresh temp dirs and prints, per run and as medians:
//! - `serving`: from spawn to the Data API's `/v1/health-check` answering 200 (history is
//!   generated before the listeners open, so this is the user's wait);
//! - `indexed`: from spawn to the Data API listing the node's newest P-Chain block;
//! - `VmHWM`: the process's peak resident memory, read from `/proc/<pid>/status` while it runs.
//!
//! It measures the binary cargo built for the bench, and says which profile: `cargo bench -p firn
//! --bench up --profile dev` measures the dev build the README's `cargo run` uses (firn's crates
//! at opt-level 1, the API and the CLI at 0, dependencies at 2); without `--profile dev`, the
//! release build.
//! `FIRN_BENCH_DAYS`, `FIRN_BENCH_EVM_TXS` (EVM txs a day) and `FIRN_BENCH_RUNS` change the
//! history and the number of runs.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// GET `url`; the status line and body.
fn get(url: &str) -> Option<(String, String)> {
    let rest = url.strip_prefix("http://")?;
    let (host, path) = rest.split_at(rest.find('/')?);
    let mut s = TcpStream::connect(host).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut resp = String::new();
    s.read_to_string(&mut resp).ok()?;
    let (head, body) = resp.split_once("\r\n\r\n")?;
    Some((head.lines().next()?.to_owned(), body.to_owned()))
}

fn post(url: &str, body: &str) -> Option<String> {
    let rest = url.strip_prefix("http://")?;
    let (host, path) = rest.split_at(rest.find('/')?);
    let mut s = TcpStream::connect(host).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
    write!(
        s,
        "POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .ok()?;
    let mut resp = String::new();
    s.read_to_string(&mut resp).ok()?;
    Some(resp.split_once("\r\n\r\n")?.1.to_owned())
}

fn vm_hwm_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()
}

struct Sample {
    serving: Duration,
    indexed: Duration,
    hwm_kib: u64,
}

fn one_run(days: &str, evm_txs: Option<&String>, run: usize) -> Sample {
    let dir = std::env::temp_dir().join(format!("firn-bench-up-{}-{run}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_firn"))
        .args(["up", "--quiet-chain", "--days", days, "--data-dir"])
        .arg(&dir)
        .args(["--rpc-addr", "127.0.0.1:0", "--api-addr", "127.0.0.1:0"])
        .args(["--metrics-addr", "127.0.0.1:0"])
        .args(
            evm_txs
                .iter()
                .flat_map(|n| ["--evm-txs-per-day", n.as_str()]),
        )
        .env_remove("FIRN_TRANSFERS_PER_DAY")
        .env_remove("FIRN_EVM_TXS_PER_DAY")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("running firn up");
    let pid = child.id();
    let mut api = None;
    let mut rpc = None;
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let line = line.unwrap();
        if let Some(rest) = line.strip_prefix("Data API     ") {
            api = rest.split_whitespace().next().map(str::to_owned);
        }
        if let Some(url) = line.strip_prefix("Listening on ") {
            rpc = Some(url.to_owned());
            break;
        }
    }
    let (api, rpc) = (api.expect("a Data API URL"), rpc.expect("an RPC URL"));
    let serving = loop {
        if get(&format!("{api}/v1/health-check")).is_some_and(|(s, _)| s.contains(" 200")) {
            break started.elapsed();
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let height = post(
        &format!("{rpc}/ext/bc/P"),
        r#"{"jsonrpc":"2.0","id":1,"method":"platform.getHeight","params":{}}"#,
    )
    .and_then(|b| {
        let v: serde_json::Value = serde_json::from_str(b.trim()).ok()?;
        v["result"]["height"].as_str()?.parse::<u64>().ok()
    })
    .expect("the node's height");
    let indexed = loop {
        let newest = get(&format!(
            "{api}/v1/networks/fuji/blockchains/p-chain/blocks?pageSize=1"
        ))
        .and_then(|(_, body)| {
            let json = &body[body.find('{')?..=body.rfind('}')?];
            let v: serde_json::Value = serde_json::from_str(json).ok()?;
            v["blocks"][0]["blockNumber"].as_str()?.parse::<u64>().ok()
        });
        if newest.is_some_and(|n| n >= height) {
            break started.elapsed();
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let hwm_kib = vm_hwm_kib(pid).unwrap_or(0);
    let _ = Command::new("kill")
        .args(["-INT", &pid.to_string()])
        .status();
    let exit = child.wait().unwrap();
    assert!(exit.success(), "firn up exited with {exit}");
    let _ = std::fs::remove_dir_all(&dir);
    Sample {
        serving,
        indexed,
        hwm_kib,
    }
}

fn median<T: Copy + Ord>(mut v: Vec<T>) -> T {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    // `cargo bench` passes `--bench` and any filter; a filter that isn't "up" skips this.
    let filter = std::env::args().skip(1).find(|a| !a.starts_with("--"));
    if filter.is_some_and(|f| !"up".contains(f.as_str())) {
        return;
    }
    let runs: usize = std::env::var("FIRN_BENCH_RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(3)
        .max(1);
    let days = std::env::var("FIRN_BENCH_DAYS").unwrap_or_else(|_| "30".to_owned());
    // To compare with other sizes (0: P-Chain history only).
    let evm_txs = std::env::var("FIRN_BENCH_EVM_TXS").ok();
    let profile = if cfg!(debug_assertions) {
        "dev-profile"
    } else {
        "release-profile"
    };
    let size = match &evm_txs {
        Some(n) => format!("default history but {n} EVM txs a day"),
        None => "default history".to_owned(),
    };
    println!("firn up, {days} days of {size}, {profile} build, {runs} runs");
    let samples: Vec<Sample> = (0..runs)
        .map(|run| {
            let s = one_run(&days, evm_txs.as_ref(), run);
            println!(
                "run {run}: serving after {:.2} s, indexed after {:.2} s, VmHWM {:.1} MiB",
                s.serving.as_secs_f64(),
                s.indexed.as_secs_f64(),
                s.hwm_kib as f64 / 1024.0
            );
            s
        })
        .collect();
    let serving = median(samples.iter().map(|s| s.serving).collect());
    let indexed = median(samples.iter().map(|s| s.indexed).collect());
    let hwm = median(samples.iter().map(|s| s.hwm_kib).collect());
    println!(
        "median: serving {:.2} s, indexed {:.2} s, VmHWM {:.1} MiB",
        serving.as_secs_f64(),
        indexed.as_secs_f64(),
        hwm as f64 / 1024.0
    );
}
