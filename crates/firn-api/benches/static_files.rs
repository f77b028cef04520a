//! The Data API against nginx serving the very same response bodies as files, side by side in
//! one run: `wrk` drives each with the same rotation of paths (and then each endpoint alone),
//! and the bench prints requests/s, p50 and p99 for firn rendering every request (response
//! cache off), firn with its response cache ([`firn_api::cache`]), and nginx, with the ratios.
//!
//! `cargo bench -p firn-api --bench static_files`. Needs `nginx` and `wrk` on the PATH (Debian:
//! `apt-get install nginx-light wrk`); says it is skipped without them. Environment:
//! `FIRN_STATIC_P_BLOCKS` / `FIRN_STATIC_EVM_BLOCKS` (1,000 each): the fixture's size;
//! `FIRN_STATIC_SECONDS` (5): each mixed run; `FIRN_STATIC_ENDPOINT_SECONDS` (2): each
//! endpoint's; `FIRN_STATIC_CONNS` (16) connections over `wrk -t2`.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use firn_api::{ApiConfig, AppState};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[path = "../tests/it/fixtures.rs"]
mod fixtures;

#[path = "load/client.rs"]
#[allow(dead_code)]
mod client;

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.replace('_', "").parse().ok())
        .unwrap_or(default)
}

fn on_path(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// One wrk run's figures.
#[derive(Debug, Clone, Copy, Default)]
struct Run {
    rps: f64,
    p50_ms: f64,
    p99_ms: f64,
}

fn millis(text: &str) -> f64 {
    let (num, unit) = text.split_at(
        text.find(|c: char| c.is_ascii_alphabetic())
            .unwrap_or(text.len()),
    );
    let n: f64 = num.parse().unwrap_or(f64::NAN);
    match unit {
        "us" => n / 1000.0,
        "ms" => n,
        "s" => n * 1000.0,
        _ => f64::NAN,
    }
}

/// Runs wrk against `base` cycling through `paths`.
fn wrk(dir: &Path, base: &str, paths: &[String], seconds: u64, conns: u64) -> Run {
    let script = dir.join("rotate.lua");
    let list: Vec<String> = paths.iter().map(|p| format!("{p:?}")).collect();
    std::fs::write(
        &script,
        format!(
            "local paths = {{ {} }}\nlocal i = 0\nrequest = function()\n  i = i % #paths + 1\n  return wrk.format(\"GET\", paths[i])\nend\n",
            list.join(", ")
        ),
    )
    .unwrap();
    let out = Command::new("wrk")
        .args([
            "-t2",
            &format!("-c{conns}"),
            &format!("-d{seconds}s"),
            "--latency",
            "-s",
        ])
        .arg(&script)
        .arg(base)
        .output()
        .expect("running wrk");
    let text = String::from_utf8_lossy(&out.stdout);
    let mut run = Run::default();
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["Requests/sec:", n] => run.rps = n.parse().unwrap_or(0.0),
            ["50%", t] => run.p50_ms = millis(t),
            ["99%", t] => run.p99_ms = millis(t),
            _ => {}
        }
    }
    assert!(
        !text.contains("Non-2xx"),
        "{base}: some requests failed\n{text}"
    );
    run
}

/// Starts the API over `store` on loopback; its address.
async fn serve(store: firn_store::Store, cache_bytes: usize) -> String {
    let config = ApiConfig {
        response_cache_bytes: cache_bytes,
        ..ApiConfig::default()
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    tokio::spawn(firn_api::serve(
        listener,
        AppState::new(store, config),
        std::future::pending(),
    ));
    addr
}

/// The paths of the rotation, found through the lists themselves.
async fn rotation(host: &str) -> Vec<(&'static str, String)> {
    let c = fixtures::CHAIN;
    let p = "/v1/networks/fuji/blockchains/p-chain";
    let get = |path: &str| {
        let path = path.to_owned();
        async move {
            let (status, body) = client::fetch(host, &path).await;
            assert_eq!(status, 200, "{path}: {body}");
            serde_json::from_str::<serde_json::Value>(&body).unwrap()
        }
    };
    let txs = get(&format!("{p}/transactions?pageSize=10")).await;
    let p_tx = txs["transactions"][3]["txHash"]
        .as_str()
        .unwrap()
        .to_owned();
    let blocks = get(&format!("{p}/blocks?pageSize=10")).await;
    let p_block = blocks["blocks"][2]["blockHash"]
        .as_str()
        .unwrap()
        .to_owned();
    let evm_txs = get(&format!("/v1/chains/{c}/transactions?pageSize=10")).await;
    let evm_tx = evm_txs["transactions"][1]["txHash"]
        .as_str()
        .unwrap()
        .to_owned();
    let sender = evm_txs["transactions"][1]["from"]["address"]
        .as_str()
        .unwrap()
        .to_owned();
    vec![
        ("p_txs", format!("{p}/transactions?pageSize=10")),
        (
            "p_txs_asc",
            format!("{p}/transactions?pageSize=10&sortOrder=asc"),
        ),
        ("p_tx", format!("{p}/transactions/{p_tx}")),
        ("p_blocks", format!("{p}/blocks?pageSize=10")),
        ("p_block", format!("{p}/blocks/{p_block}")),
        (
            "validators",
            "/v1/networks/fuji/validators?pageSize=10".to_owned(),
        ),
        (
            "subnets",
            "/v1/networks/fuji/subnets?pageSize=10".to_owned(),
        ),
        ("evm_blocks", format!("/v1/chains/{c}/blocks?pageSize=10")),
        ("evm_block", format!("/v1/chains/{c}/blocks/5")),
        (
            "evm_txs",
            format!("/v1/chains/{c}/transactions?pageSize=10"),
        ),
        ("evm_tx", format!("/v1/chains/{c}/transactions/{evm_tx}")),
        (
            "address_txs",
            format!("/v1/chains/{c}/addresses/{sender}/transactions?pageSize=10"),
        ),
        (
            "address_erc20",
            format!("/v1/chains/{c}/addresses/{sender}/transactions:listErc20?pageSize=10"),
        ),
    ]
}

/// nginx serving `bodies` (file `i` holds the `i`th) from `www` on a free port.
fn start_nginx(dir: &Path, bodies: &[Vec<u8>]) -> (Child, String) {
    let www = dir.join("www");
    std::fs::create_dir_all(www.join("b")).unwrap();
    for (i, b) in bodies.iter().enumerate() {
        std::fs::write(www.join("b").join(i.to_string()), b).unwrap();
    }
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let conf = dir.join("nginx.conf");
    std::fs::write(
        &conf,
        format!(
            "worker_processes auto;\npid {pid};\nerror_log {err} error;\nevents {{ worker_connections 1024; }}\nhttp {{\n  access_log off;\n  sendfile on;\n  tcp_nopush on;\n  keepalive_requests 1000000;\n  default_type application/json;\n  client_body_temp_path {tmp};\n  proxy_temp_path {tmp};\n  fastcgi_temp_path {tmp};\n  uwsgi_temp_path {tmp};\n  scgi_temp_path {tmp};\n  server {{ listen 127.0.0.1:{port}; root {www}; }}\n}}\n",
            pid = dir.join("nginx.pid").display(),
            err = dir.join("nginx.err").display(),
            tmp = dir.display(),
            www = www.display(),
        ),
    )
    .unwrap();
    let child = Command::new("nginx")
        .args(["-e", "stderr", "-g", "daemon off;", "-p"])
        .arg(dir)
        .arg("-c")
        .arg(&conf)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("starting nginx");
    let base = format!("http://127.0.0.1:{port}");
    for _ in 0..100 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    (child, base)
}

fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

fn row(name: &str, plain: Run, cached: Run, nginx: Run) {
    println!(
        "{name:<14} {:>9.0} {:>6.2} {:>6.2} | {:>9.0} {:>6.2} {:>6.2} | {:>9.0} {:>6.2} {:>6.2} | {:>5.3}x {:>5.3}x",
        plain.rps,
        plain.p50_ms,
        plain.p99_ms,
        cached.rps,
        cached.p50_ms,
        cached.p99_ms,
        nginx.rps,
        nginx.p50_ms,
        nginx.p99_ms,
        plain.rps / nginx.rps,
        cached.rps / nginx.rps,
    );
}

fn main() {
    if !on_path("nginx") || !on_path("wrk") {
        eprintln!(
            "SKIPPED static_files: needs nginx and wrk on the PATH (apt-get install nginx-light wrk)"
        );
        return;
    }
    let dir: PathBuf = std::env::temp_dir().join(format!("firn-static-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let (plain, cached, paths) = rt.block_on(async {
        let store = firn_store::open(dir.join("firn.db").to_str().unwrap())
            .await
            .unwrap();
        fixtures::seed(
            &store,
            env_u64("FIRN_STATIC_P_BLOCKS", 1_000),
            env_u64("FIRN_STATIC_EVM_BLOCKS", 1_000),
        )
        .await;
        let plain = serve(store.clone(), 0).await;
        let cached = serve(store, 64 << 20).await;
        let paths = rotation(&cached).await;
        (plain, cached, paths)
    });
    let bodies: Vec<Vec<u8>> = rt.block_on(async {
        let mut conn = client::Conn::connect(&cached).await.unwrap();
        let mut out = Vec::new();
        for (_, path) in &paths {
            let mut body = Vec::new();
            assert_eq!(conn.get(path, &mut body).await.unwrap(), 200, "{path}");
            out.push(body);
        }
        out
    });
    let (mut nginx, nginx_base) = start_nginx(&dir, &bodies);
    let seconds = env_u64("FIRN_STATIC_SECONDS", 5);
    let each = env_u64("FIRN_STATIC_ENDPOINT_SECONDS", 2);
    let conns = env_u64("FIRN_STATIC_CONNS", 16);
    let api_paths: Vec<String> = paths.iter().map(|(_, p)| p.clone()).collect();
    let file_paths: Vec<String> = (0..paths.len()).map(|i| format!("/b/{i}")).collect();
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "wrk -t2 -c{conns}; body sizes {:?} bytes; load average before: {}",
        bodies.iter().map(Vec::len).collect::<Vec<_>>(),
        load.trim()
    );
    println!(
        "{:<14} {:>9} {:>6} {:>6} | {:>9} {:>6} {:>6} | {:>9} {:>6} {:>6} | ratios to nginx",
        "", "firn req/s", "p50", "p99", "cached", "p50", "p99", "nginx", "p50", "p99"
    );
    let run = |base: &str, p: &[String], s: u64| wrk(&dir, base, p, s, conns);
    let mixed = (
        run(&format!("http://{plain}"), &api_paths, seconds),
        run(&format!("http://{cached}"), &api_paths, seconds),
        run(&nginx_base, &file_paths, seconds),
    );
    row("mixed", mixed.0, mixed.1, mixed.2);
    for (i, (name, path)) in paths.iter().enumerate() {
        let one = std::slice::from_ref(path);
        row(
            name,
            run(&format!("http://{plain}"), one, each),
            run(&format!("http://{cached}"), one, each),
            run(&nginx_base, &[file_paths[i].clone()], each),
        );
    }
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "RSS: firn (both servers, one process) {} MiB, nginx master {} MiB; load average after: {}",
        rss_kib(std::process::id()) / 1024,
        rss_kib(nginx.id()) / 1024,
        load.trim()
    );
    // `nginx -s stop` takes its workers down with it (a killed master would leave them).
    let _ = Command::new("nginx")
        .args(["-e", "stderr", "-p"])
        .arg(&dir)
        .arg("-c")
        .arg(dir.join("nginx.conf"))
        .args(["-s", "stop"])
        .stderr(Stdio::null())
        .status();
    let _ = nginx.wait();
    let _ = std::fs::remove_dir_all(&dir);
}
