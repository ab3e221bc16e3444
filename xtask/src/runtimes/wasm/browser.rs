//! The `wasm-browser` target: a real headless Chromium (Debian's) loading the
//! package's browser entry from a loopback server of ours, which also hands
//! out the requests and takes the answers (conformance/wasm/harness.mjs).
//! Chromium is killed and its profile removed however the run ends.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use serde_json::Value;

use super::PACKAGE;
use crate::conformance::adapter::Adapter;
use crate::root;

/// Serves the harness, the package and the requests, starts Chromium on it,
/// and waits (120 s at most) for the answers the page posts back.
pub struct BrowserAdapter;

impl Adapter for BrowserAdapter {
    fn answer_all(&mut self, requests: &[Value]) -> Result<Vec<Value>> {
        let listener = TcpListener::bind("127.0.0.1:0").context("binding a loopback port for the browser")?;
        let port = listener.local_addr().context("the browser server's port")?.port();
        let body = serde_json::to_vec(requests).context("the requests as JSON")?;
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || serve(listener, body, tx));
        let profile = std::env::temp_dir().join(format!("emq-id-chromium-{}", std::process::id()));
        let mut chromium = Chromium(
            Command::new("chromium")
                .args(["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"])
                .args(["--disable-component-update", "--no-first-run", "--disable-sync", "--disable-dev-shm-usage"])
                .arg(format!("--user-data-dir={}", profile.display()))
                .arg(format!("http://127.0.0.1:{port}/"))
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .context("starting chromium")?,
            profile,
        );
        let posted = rx.recv_timeout(Duration::from_secs(120)).context("the browser posted no answers in 120 s")?;
        chromium.stop();
        let mut posted: Value = serde_json::from_slice(&posted).context("the browser posted non-JSON")?;
        if let Some(fatal) = posted.get("fatal") {
            bail!("the page failed: {}", fatal.as_str().unwrap_or("?"));
        }
        eprintln!("xtask: answered by {}", posted["userAgent"].as_str().unwrap_or("?"));
        match posted["answers"].take() {
            Value::Array(a) => Ok(a),
            _ => bail!("the browser posted no answers array"),
        }
    }
}

/// Chromium, killed and its profile removed however the run ends.
struct Chromium(Child, PathBuf);

impl Chromium {
    fn stop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
        let _ = std::fs::remove_dir_all(&self.1);
    }
}

impl Drop for Chromium {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A tiny static server: the harness, the package files, the requests; POST /answers ends it.
fn serve(listener: TcpListener, requests: Vec<u8>, done: mpsc::Sender<Vec<u8>>) {
    for stream in listener.incoming().flatten() {
        if let Some(posted) = handle(stream, &requests) {
            let _ = done.send(posted);
            return;
        }
    }
}

fn handle(mut stream: TcpStream, requests: &[u8]) -> Option<Vec<u8>> {
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut first = String::new();
    reader.read_line(&mut first).ok()?;
    let mut length = 0usize;
    loop {
        let mut header = String::new();
        reader.read_line(&mut header).ok()?;
        if header.trim().is_empty() {
            break;
        }
        if let Some(v) = header.to_ascii_lowercase().strip_prefix("content-length:") {
            length = v.trim().parse().unwrap_or(0);
        }
    }
    let mut parts = first.split_whitespace();
    let (method, path) = (parts.next()?, parts.next()?.split('?').next()?.to_string());
    if method == "POST" && path == "/answers" {
        let mut body = vec![0u8; length];
        reader.read_exact(&mut body).ok()?;
        respond(&mut stream, "200 OK", "text/plain", b"ok");
        return Some(body);
    }
    let file = |rel: &str| std::fs::read(root().join(rel)).ok();
    let (body, kind) = match path.as_str() {
        "/" => (file("conformance/wasm/harness.html"), "text/html"),
        "/harness.mjs" => (file("conformance/wasm/harness.mjs"), "text/javascript"),
        "/requests" => (Some(requests.to_vec()), "application/json"),
        p if p.starts_with("/pkg/") && !p.contains("..") => (file(&format!("{PACKAGE}/{}", &p[5..])), mime(p)),
        p if p.starts_with("/js/") && !p.contains("..") => (file(&format!("conformance/js/{}", &p[4..])), mime(p)),
        _ => (None, "text/plain"),
    };
    match body {
        Some(b) => respond(&mut stream, "200 OK", kind, &b),
        None => respond(&mut stream, "404 Not Found", "text/plain", b"not found"),
    }
    None
}

fn mime(path: &str) -> &'static str {
    match path.rsplit('.').next() {
        Some("wasm") => "application/wasm",
        Some("js" | "mjs") => "text/javascript",
        Some("json") => "application/json",
        _ => "application/octet-stream",
    }
}

fn respond(stream: &mut TcpStream, status: &str, kind: &str, body: &[u8]) {
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(body);
}
