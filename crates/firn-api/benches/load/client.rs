//! A small HTTP/1.1 load client: keep-alive connections over loopback, each looping through its
//! share of a list of paths until a deadline, recording every request's latency.
//!
//! Hand-written rather than reqwest so the client costs as little CPU as possible: it shares
//! the two cores with the server it measures.

use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

/// One keep-alive connection.
pub struct Conn {
    stream: BufReader<TcpStream>,
    host: String,
    line: String,
}

impl Conn {
    pub async fn connect(host: &str) -> std::io::Result<Self> {
        let tcp = TcpStream::connect(host).await?;
        tcp.set_nodelay(true)?;
        Ok(Self {
            stream: BufReader::with_capacity(64 * 1024, tcp),
            host: host.to_owned(),
            line: String::new(),
        })
    }

    /// GETs `path`, reading the body into `body`; returns the status code.
    pub async fn get(&mut self, path: &str, body: &mut Vec<u8>) -> std::io::Result<u16> {
        let request = format!("GET {path} HTTP/1.1\r\nHost: {}\r\n\r\n", self.host);
        self.stream.get_mut().write_all(request.as_bytes()).await?;
        let bad =
            |what: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, what.to_owned());
        self.line.clear();
        self.stream.read_line(&mut self.line).await?;
        let status: u16 = self
            .line
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| bad("status line"))?;
        let mut length = None;
        let mut chunked = false;
        loop {
            self.line.clear();
            if self.stream.read_line(&mut self.line).await? == 0 {
                return Err(bad("eof in headers"));
            }
            let header = self.line.trim_end();
            if header.is_empty() {
                break;
            }
            let Some((name, value)) = header.split_once(':') else {
                continue;
            };
            let value = value.trim();
            if name.eq_ignore_ascii_case("content-length") {
                length = value.parse::<usize>().ok();
            } else if name.eq_ignore_ascii_case("transfer-encoding") {
                chunked = value.eq_ignore_ascii_case("chunked");
            }
        }
        body.clear();
        if chunked {
            loop {
                self.line.clear();
                self.stream.read_line(&mut self.line).await?;
                let size = usize::from_str_radix(self.line.trim_end(), 16)
                    .map_err(|_| bad("chunk size"))?;
                let start = body.len();
                body.resize(start + size, 0);
                self.stream.read_exact(&mut body[start..]).await?;
                self.line.clear();
                self.stream.read_line(&mut self.line).await?;
                if size == 0 {
                    break;
                }
            }
        } else {
            let n = length.ok_or_else(|| bad("no content-length"))?;
            body.resize(n, 0);
            self.stream.read_exact(body).await?;
        }
        Ok(status)
    }
}

/// What one run measured.
pub struct Stats {
    pub requests: usize,
    pub errors: usize,
    pub rps: f64,
    pub p50: Duration,
    pub p99: Duration,
    pub first_error: Option<String>,
}

/// Drives `paths` with `conns` concurrent connections for `seconds`: connection `c` starts at
/// path `c` and steps through the list, so every path gets its share.
pub async fn drive(host: &str, paths: &[String], conns: usize, seconds: f64) -> Stats {
    let deadline = Instant::now() + Duration::from_secs_f64(seconds);
    let started = Instant::now();
    let mut tasks = Vec::new();
    for c in 0..conns {
        let host = host.to_owned();
        let paths = paths.to_vec();
        tasks.push(tokio::spawn(async move {
            let mut lat: Vec<u32> = Vec::with_capacity(1 << 16);
            let mut errors = 0;
            let mut first_error = None;
            let mut conn = Conn::connect(&host).await.expect("connecting");
            let mut body = Vec::new();
            let mut i = c;
            while Instant::now() < deadline {
                let path = &paths[i % paths.len()];
                i += 1;
                let t = Instant::now();
                match conn.get(path, &mut body).await {
                    Ok(200) => {}
                    Ok(status) => {
                        errors += 1;
                        first_error.get_or_insert_with(|| {
                            format!("{path}: {status} {}", String::from_utf8_lossy(&body))
                        });
                    }
                    Err(e) => {
                        errors += 1;
                        first_error.get_or_insert_with(|| format!("{path}: {e}"));
                        conn = Conn::connect(&host).await.expect("reconnecting");
                    }
                }
                let micros = t.elapsed().as_micros();
                lat.push(u32::try_from(micros).unwrap_or(u32::MAX));
            }
            (lat, errors, first_error)
        }));
    }
    let mut all = Vec::new();
    let mut errors = 0;
    let mut first_error = None;
    for t in tasks {
        let (lat, e, f) = t.await.expect("load task");
        all.extend(lat);
        errors += e;
        first_error = first_error.or(f);
    }
    let elapsed = started.elapsed().as_secs_f64();
    all.sort_unstable();
    let pct = |q: f64| {
        let i = ((all.len() as f64 * q) as usize).min(all.len().saturating_sub(1));
        Duration::from_micros(u64::from(all.get(i).copied().unwrap_or(0)))
    };
    Stats {
        requests: all.len(),
        errors,
        rps: all.len() as f64 / elapsed,
        p50: pct(0.50),
        p99: pct(0.99),
        first_error,
    }
}

/// One GET on a fresh connection, body as text (for setup: fetching page tokens).
pub async fn fetch(host: &str, path: &str) -> (u16, String) {
    let mut conn = Conn::connect(host).await.expect("connecting");
    let mut body = Vec::new();
    let status = conn.get(path, &mut body).await.expect("request");
    (status, String::from_utf8_lossy(&body).into_owned())
}
