//! A page in a real headless Chromium (Debian's), served by a loopback server
//! of ours that also hands the page its input and takes back what it posts:
//! the `wasm-browser` conformance target (conformance/wasm/harness.mjs) and
//! the WASM benchmark's browser column (bindings/wasm/bench/browser.mjs) are
//! both such a page. The page's half of the exchange is `page.mjs`, served at
//! `/xtask/page.mjs`. Chromium is killed and its profile removed however the
//! run ends.
//!
//! The server is std only, a thread per connection: it serves a few files and
//! takes one POST, so a crate (tiny_http brings four dependencies) would save
//! a few lines of parsing and none of what matters here, which is that no
//! connection and no browser can stall a run: idle connections time out, the
//! accept loop stops with the run, and the run has a deadline.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use serde_json::Value;

use crate::root;

/// A connection that sends nothing for this long is dropped: Chromium opens
/// speculative connections it may never use.
const IDLE: Duration = Duration::from_secs(5);
/// Each write of a response (Chromium reads what it asked for at once).
const WRITE: Duration = Duration::from_secs(10);
/// How often the run looks at Chromium and the accept loop at its stop flag.
const POLL: Duration = Duration::from_millis(20);
/// The longest request head (request line and headers) read.
const MAX_HEAD: usize = 64 * 1024;
/// The largest POST body taken: the answers to the vector file are a few MB.
const MAX_POST: usize = 64 * 1024 * 1024;
/// Connections served at once (Chromium opens six per host); more get a 503.
const MAX_CONNECTIONS: usize = 32;
/// The page's half of the exchange, served at `/xtask/page.mjs`.
const PAGE_JS: &str = include_str!("page.mjs");

/// What one run serves, and how long it may take.
pub struct Page {
    /// The HTML served at `/` (a path under the workspace root).
    pub html: &'static str,
    /// URL prefixes and the directories under the root they serve; the first match wins.
    pub dirs: &'static [(&'static str, &'static str)],
    /// What the page's work is given: JSON, served at `/input`.
    pub input: Vec<u8>,
    /// Chromium starts, loads the page, works and posts within this, or the run fails.
    pub deadline: Duration,
}

/// What the page posted: the browser it ran in and what its work returned.
pub struct Posted {
    pub user_agent: String,
    pub result: Value,
}

/// Serves `page`, starts Chromium on it, and waits (`page.deadline` at most)
/// for what the page posts back; a page that failed is an error naming how.
pub fn run(page: Page) -> Result<Posted> {
    let deadline = page.deadline;
    let (tx, rx) = mpsc::channel();
    let server = Server::start(page, tx)?;
    let profile = std::env::temp_dir().join(format!("emq-id-chromium-{}", std::process::id()));
    let mut chromium = Chromium(
        Command::new("chromium")
            .args(["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"])
            .args(["--disable-component-update", "--no-first-run", "--disable-sync", "--disable-dev-shm-usage"])
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg(format!("http://127.0.0.1:{}/", server.port))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .context("starting chromium")?,
        profile,
    );
    let posted = wait_for_result(&rx, &mut chromium, deadline)?;
    chromium.stop();
    drop(server);
    let mut posted: Value = serde_json::from_slice(&posted).context("the browser posted non-JSON")?;
    if let Some(fatal) = posted.get("fatal") {
        bail!("the page failed: {}", fatal.as_str().unwrap_or("?"));
    }
    let user_agent = posted["userAgent"].as_str().unwrap_or("?").to_string();
    Ok(Posted { user_agent, result: posted["result"].take() })
}

/// What the page posted, unless Chromium exits first or the deadline passes.
fn wait_for_result(rx: &mpsc::Receiver<Vec<u8>>, chromium: &mut Chromium, deadline: Duration) -> Result<Vec<u8>> {
    let start = Instant::now();
    loop {
        match rx.recv_timeout(POLL) {
            Ok(posted) => return Ok(posted),
            Err(mpsc::RecvTimeoutError::Disconnected) => bail!("the browser's server stopped before the page posted"),
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
        if let Some(status) = chromium.0.try_wait().context("watching chromium")? {
            bail!("chromium exited ({status}) before the page posted");
        }
        if start.elapsed() >= deadline {
            bail!("the page posted nothing in {} s", deadline.as_secs());
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

/// The loopback server: an accept loop handing each connection to a thread of
/// its own. Dropping it stops the loop; connection threads end by their
/// timeouts (or at once, when Chromium is killed and its sockets close).
struct Server {
    port: u16,
    stop: Arc<AtomicBool>,
    acceptor: Option<JoinHandle<()>>,
}

impl Server {
    /// Serves on a free loopback port; the body of `POST /result` goes to `posted`.
    fn start(page: Page, posted: mpsc::Sender<Vec<u8>>) -> Result<Server> {
        let listener = TcpListener::bind("127.0.0.1:0").context("binding a loopback port for the browser")?;
        let port = listener.local_addr().context("the browser server's port")?.port();
        // Non-blocking, so the loop sees its stop flag instead of waiting in accept().
        listener.set_nonblocking(true).context("the browser server's listener")?;
        let stop = Arc::new(AtomicBool::new(false));
        let acceptor = {
            let stop = stop.clone();
            std::thread::spawn(move || accept_until(&listener, &stop, Arc::new(page), &posted))
        };
        Ok(Server { port, stop, acceptor: Some(acceptor) })
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(acceptor) = self.acceptor.take() {
            let _ = acceptor.join();
        }
    }
}

fn accept_until(listener: &TcpListener, stop: &AtomicBool, page: Arc<Page>, posted: &mpsc::Sender<Vec<u8>>) {
    let live = Arc::new(AtomicUsize::new(0));
    while !stop.load(Ordering::Relaxed) {
        let stream = match listener.accept() {
            Ok((stream, _)) => stream,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                std::thread::sleep(POLL);
                continue;
            }
            Err(_) => continue, // e.g. a connection reset before it was accepted
        };
        let (page, posted, live) = (page.clone(), posted.clone(), live.clone());
        if live.fetch_add(1, Ordering::Relaxed) >= MAX_CONNECTIONS {
            live.fetch_sub(1, Ordering::Relaxed);
            let mut stream = stream;
            let _ = stream.set_nonblocking(false).and_then(|()| stream.set_write_timeout(Some(WRITE)));
            respond(&mut stream, "503 Service Unavailable", "text/plain", b"busy");
            continue;
        }
        std::thread::spawn(move || {
            if let Ok(Some(result)) = handle(stream, &page) {
                let _ = posted.send(result);
            }
            live.fetch_sub(1, Ordering::Relaxed);
        });
    }
}

/// Serves one request; `Some(body)` for `POST /result`. An error (a timeout,
/// a reset, a head that is not HTTP) drops the connection.
fn handle(mut stream: TcpStream, page: &Page) -> io::Result<Option<Vec<u8>>> {
    // Accepted sockets do not reliably inherit the listener's flags: set them all.
    stream.set_nonblocking(false)?;
    stream.set_read_timeout(Some(IDLE))?;
    stream.set_write_timeout(Some(WRITE))?;
    let mut reader = BufReader::new(stream.try_clone()?).take(MAX_HEAD as u64);
    let mut first = String::new();
    if reader.read_line(&mut first)? == 0 {
        return Ok(None); // a speculative connection closed unused
    }
    let mut length = None;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 {
            respond(&mut stream, "431 Request Header Fields Too Large", "text/plain", b"head too large or cut short");
            return Ok(None);
        }
        if header.trim().is_empty() {
            break;
        }
        if let Some(v) = header.to_ascii_lowercase().strip_prefix("content-length:") {
            length = v.trim().parse::<usize>().ok();
        }
    }
    let mut parts = first.split_whitespace();
    let (Some(method), Some(target)) = (parts.next(), parts.next()) else {
        respond(&mut stream, "400 Bad Request", "text/plain", b"not an HTTP request");
        return Ok(None);
    };
    let path = target.split('?').next().unwrap_or(target);
    if method == "POST" && path == "/result" {
        let Some(length) = length.filter(|n| *n <= MAX_POST) else {
            respond(&mut stream, "413 Content Too Large", "text/plain", b"a Content-Length up to 64 MiB is needed");
            return Ok(None);
        };
        let mut body = Vec::new();
        let mut reader = reader.into_inner();
        (&mut reader).take(length as u64).read_to_end(&mut body)?;
        if body.len() != length {
            return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "the result was cut short"));
        }
        respond(&mut stream, "200 OK", "text/plain", b"ok");
        return Ok(Some(body));
    }
    let file = |rel: &str| std::fs::read(root().join(rel)).ok();
    let (body, kind) = match path {
        "/" => (file(page.html), "text/html"),
        "/input" => (Some(page.input.clone()), "application/json"),
        "/xtask/page.mjs" => (Some(PAGE_JS.as_bytes().to_vec()), "text/javascript"),
        p if p.contains("..") => (None, "text/plain"),
        p => match page.dirs.iter().find_map(|(prefix, dir)| p.strip_prefix(prefix).map(|rest| (dir, rest))) {
            Some((dir, rest)) => (file(&format!("{dir}/{rest}")), mime(p)),
            None => (None, "text/plain"),
        },
    };
    match body {
        Some(b) => respond(&mut stream, "200 OK", kind, &b),
        None => respond(&mut stream, "404 Not Found", "text/plain", b"not found"),
    }
    Ok(None)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Sends `request` on a new connection and reads the whole response.
    fn get(port: u16, request: &[u8]) -> io::Result<String> {
        let mut s = TcpStream::connect(("127.0.0.1", port))?;
        s.set_read_timeout(Some(Duration::from_secs(10)))?;
        s.write_all(request)?;
        let mut out = String::new();
        s.read_to_string(&mut out)?;
        Ok(out)
    }

    #[test]
    fn idle_connections_do_not_block_others_and_the_result_arrives() {
        let (tx, rx) = mpsc::channel();
        let page = Page { html: "Cargo.toml", dirs: &[("/files/", "xtask")], input: b"[1,2]".to_vec(), deadline: IDLE };
        let server = Server::start(page, tx).unwrap();
        // Idle connections (Chromium's speculative ones) held open while the page loads.
        let idle: Vec<TcpStream> = (0..8).map(|_| TcpStream::connect(("127.0.0.1", server.port)).unwrap()).collect();
        let start = Instant::now();
        let input = get(server.port, b"GET /input HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
        assert!(input.starts_with("HTTP/1.1 200 OK") && input.ends_with("[1,2]"), "{input}");
        let html = get(server.port, b"GET / HTTP/1.1\r\n\r\n").unwrap();
        assert!(html.starts_with("HTTP/1.1 200 OK") && html.contains("[workspace]"), "{html}");
        let mounted = get(server.port, b"GET /files/Cargo.toml HTTP/1.1\r\n\r\n").unwrap();
        assert!(mounted.starts_with("HTTP/1.1 200 OK") && mounted.contains("name = \"xtask\""), "{mounted}");
        let helper = get(server.port, b"GET /xtask/page.mjs HTTP/1.1\r\n\r\n").unwrap();
        assert!(helper.starts_with("HTTP/1.1 200 OK") && helper.ends_with(PAGE_JS), "{helper}");
        for outside in ["/files/../Cargo.toml", "/Cargo.toml", "/elsewhere/x"] {
            let missing = get(server.port, format!("GET {outside} HTTP/1.1\r\n\r\n").as_bytes()).unwrap();
            assert!(missing.starts_with("HTTP/1.1 404"), "{outside}: {missing}");
        }
        let huge = get(server.port, b"POST /result HTTP/1.1\r\nContent-Length: 99999999999\r\n\r\n").unwrap();
        assert!(huge.starts_with("HTTP/1.1 413"), "{huge}");
        let ok = get(server.port, b"POST /result HTTP/1.1\r\nContent-Length: 7\r\n\r\n{\"a\":1}").unwrap();
        assert!(ok.starts_with("HTTP/1.1 200 OK"), "{ok}");
        assert_eq!(rx.recv_timeout(Duration::from_secs(5)).unwrap(), b"{\"a\":1}");
        assert!(start.elapsed() < IDLE, "served behind idle connections in {:?}", start.elapsed());
        let stopping = Instant::now();
        drop(server);
        assert!(stopping.elapsed() < Duration::from_secs(1), "the accept loop stopped in {:?}", stopping.elapsed());
        // The idle connections are closed by their read timeout.
        for mut s in idle {
            s.set_read_timeout(Some(IDLE * 2)).unwrap();
            let mut buf = [0u8; 1];
            assert!(matches!(s.read(&mut buf), Ok(0) | Err(_)));
        }
    }
}
