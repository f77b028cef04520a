//! `firn devnet` end to end: start on a free port with a temp data dir, read the banner, call
//! the node RPC over HTTP, stop with SIGINT, restart on the same dir at the same height.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

pub use tempfile::TempDir;

/// A fresh directory for test `name`, removed on drop.
pub fn temp_dir(name: &str) -> TempDir {
    tempfile::Builder::new()
        .prefix(&format!("firn-{name}-"))
        .tempdir()
        .expect("create a temporary directory")
}

/// A running `firn devnet` and the URL its banner announced.
pub struct Running {
    pub child: Child,
    pub url: String,
    pub banner: Vec<String>,
}

/// A test that fails mid-way must not leave its `firn` processes running.
impl Drop for Running {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

pub fn start(dir: &Path, extra: &[&str]) -> Running {
    start_firn("devnet", dir, extra)
}

/// Starts `firn <subcommand>` on a free port and reads its banner up to `Listening on`.
pub fn start_firn(subcommand: &str, dir: &Path, extra: &[&str]) -> Running {
    let mut child = Command::new(env!("CARGO_BIN_EXE_firn"))
        .args([subcommand, "--rpc-addr", "127.0.0.1:0", "--data-dir"])
        .arg(dir)
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("running firn devnet");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut banner = Vec::new();
    let url = loop {
        let Some(line) = lines.next() else {
            let mut err = String::new();
            child
                .stderr
                .take()
                .unwrap()
                .read_to_string(&mut err)
                .unwrap();
            panic!("firn {subcommand} exited before its banner: {err}");
        };
        let line = line.unwrap();
        banner.push(line.clone());
        if let Some(url) = line.strip_prefix("Listening on ") {
            break url.to_string();
        }
    };
    Running { child, url, banner }
}

/// One JSON-RPC call over a plain HTTP/1.1 connection.
pub fn call(url: &str, path: &str, method: &str, params: Value) -> Value {
    let body = json!({ "jsonrpc": "2.0", "method": method, "params": params, "id": 1 });
    let (status, v) = post_json(url, path, &body);
    assert_eq!(status, 200, "{v}");
    assert!(v.get("error").is_none(), "{method}: {v}");
    v["result"].clone()
}

/// POST the JSON `body` to `path` on `url` (`http://host:port`): the status and the JSON body.
pub fn post_json(url: &str, path: &str, body: &Value) -> (u16, Value) {
    let host = url.strip_prefix("http://").unwrap();
    let body = body.to_string();
    let mut s = TcpStream::connect(host).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    write!(
        s,
        "POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut resp = String::new();
    s.read_to_string(&mut resp).unwrap();
    let (head, body) = resp.split_once("\r\n\r\n").unwrap();
    let v: Value = serde_json::from_str(body.trim()).unwrap_or_else(|_| panic!("not JSON: {body}"));
    (head[9..12].parse().unwrap(), v)
}

pub fn stop(mut r: Running) {
    let status = Command::new("kill")
        .args(["-INT", &r.child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let exit = r.child.wait().unwrap();
    assert!(exit.success(), "firn devnet exited with {exit}");
}

#[test]
fn devnet_serves_rpc_and_restarts_at_the_same_height() {
    let dir = temp_dir("devnet-e2e");

    let r = start(dir.path(), &[]);
    let text = r.banner.join("\n");
    assert!(
        text.contains("Network      fuji (ID 5), a local devnet"),
        "{text}"
    );
    assert!(
        text.contains("P  11111111111111111111111111111111LpoYY"),
        "{text}"
    );
    assert!(text.contains("/ext/bc/P"), "{text}");
    assert!(text.contains("/ext/bc/X"), "{text}");
    assert!(text.contains("PrivateKey-"), "{text}");
    assert!(text.contains("P-fuji1"), "{text}");
    assert!(text.contains("X-fuji1"), "{text}");
    // Each private key alone on its line, as scripts read it.
    assert!(
        r.banner
            .iter()
            .any(|l| l.trim().starts_with("PrivateKey-") && !l.trim().contains(' ')),
        "{text}"
    );
    assert!(
        r.banner
            .last()
            .unwrap()
            .starts_with("Listening on http://127.0.0.1:")
    );
    assert_eq!(
        call(&r.url, "/ext/info", "info.getNetworkID", json!({})),
        json!({ "networkID": "5" })
    );
    // A block, so that the restart has something to replay.
    let built = call(
        &r.url,
        "/ext/firn",
        "firn.advanceTime",
        json!({ "seconds": 1 }),
    );
    assert!(built["heights"].is_array());
    let height = call(&r.url, "/ext/bc/P", "platform.getHeight", json!({}));
    let block = call(
        &r.url,
        "/ext/bc/P",
        "platform.getBlockByHeight",
        json!({ "height": height["height"] }),
    );
    stop(r);
    assert!(dir.path().join("devnet.toml").exists());

    let r = start(dir.path(), &[]);
    assert_eq!(
        call(&r.url, "/ext/bc/P", "platform.getHeight", json!({})),
        height
    );
    assert_eq!(
        call(
            &r.url,
            "/ext/bc/P",
            "platform.getBlockByHeight",
            json!({ "height": height["height"] })
        ),
        block
    );
    stop(r);

    // A different profile on the same dir is refused with a clear error.
    let out = Command::new(env!("CARGO_BIN_EXE_firn"))
        .args([
            "devnet",
            "--rpc-addr",
            "127.0.0.1:0",
            "--profile",
            "local",
            "--data-dir",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("was created with profile"));
}

#[test]
fn devnet_json_banner_on_the_local_profile() {
    let dir = temp_dir("devnet-json");
    let mut child = Command::new(env!("CARGO_BIN_EXE_firn"))
        .args([
            "devnet",
            "--rpc-addr",
            "127.0.0.1:0",
            "--profile",
            "local",
            "--json",
            "--data-dir",
        ])
        .arg(dir.path())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let b: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(b["networkID"], 12345);
    assert_eq!(b["networkName"], "local");
    assert_eq!(b["localDevnet"], true);
    assert_eq!(b["fundedKeys"].as_array().unwrap().len(), 20);
    let url = b["listening"].as_str().unwrap().to_string();
    assert_eq!(
        call(&url, "/ext/info", "info.getNetworkID", json!({})),
        json!({ "networkID": "12345" })
    );
    stop(Running {
        child,
        url,
        banner: Vec::new(),
    });
}

#[test]
fn devnet_config_file_seeds_a_new_data_dir_starting_now() {
    let dir = temp_dir("devnet-cfg");
    let cfg = dir.path().join("my.toml");
    std::fs::write(
        &cfg,
        "profile = \"local\"\nseed = \"cfg-test\"\nfunded_keys = 21\n",
    )
    .unwrap();
    let data = dir.path().join("data");
    let mut child = Command::new(env!("CARGO_BIN_EXE_firn"))
        .args(["devnet", "--rpc-addr", "127.0.0.1:0", "--json", "--config"])
        .arg(&cfg)
        .arg("--data-dir")
        .arg(&data)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let b: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(b["networkID"], 12345);
    assert_eq!(b["fundedKeys"].as_array().unwrap().len(), 21);
    let url = b["listening"].as_str().unwrap().to_string();
    // The genesis starts now, so the initial validators are all still validating.
    let vs = call(
        &url,
        "/ext/bc/P",
        "platform.getCurrentValidators",
        json!({}),
    );
    assert_eq!(vs["validators"].as_array().unwrap().len(), 5);
    stop(Running {
        child,
        url,
        banner: Vec::new(),
    });
    let saved = std::fs::read_to_string(data.join("devnet.toml")).unwrap();
    assert!(saved.contains("seed = \"cfg-test\""), "{saved}");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let genesis: u64 = saved
        .lines()
        .find_map(|l| l.strip_prefix("genesis_time = "))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(now - genesis < 600, "genesis {genesis} is not recent");
}
