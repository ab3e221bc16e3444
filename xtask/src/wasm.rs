//! The WebAssembly package: building it (cargo → wasm-bindgen → wasm-opt),
//! reporting its size, and running it in a real headless Chromium.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::Value;

use crate::conformance::adapter::Adapter;
use crate::{root, setup, sh, sh_out};

pub const PACKAGE: &str = "bindings/wasm";
/// The wasm-bindgen CLI must be exactly the crate's version (see bindings/wasm/Cargo.toml).
pub const WASM_BINDGEN: &str = "0.2.106";
/// The features current Rust turns on for wasm32, which wasm-opt must accept.
const WASM_FEATURES: &[&str] = &[
    "--enable-bulk-memory",
    "--enable-nontrapping-float-to-int",
    "--enable-sign-ext",
    "--enable-mutable-globals",
    "--enable-reference-types",
    "--enable-multivalue",
];

/// The toolchain: the wasm32 target, the pinned wasm-bindgen CLI, binaryen's wasm-opt.
pub fn tools() -> Result<(), String> {
    let targets = sh_out(Command::new("rustup").args(["target", "list", "--installed"]))?;
    if !targets.lines().any(|t| t.trim() == "wasm32-unknown-unknown") {
        eprintln!("xtask: installing the Rust target wasm32-unknown-unknown");
        sh(Command::new("rustup").args(["target", "add", "wasm32-unknown-unknown"]))?;
    }
    let have = sh_out(Command::new("wasm-bindgen").arg("--version")).unwrap_or_default();
    if !have.contains(WASM_BINDGEN) {
        eprintln!(
            "xtask: installing wasm-bindgen-cli {WASM_BINDGEN} (it must match the crate's version; found {:?})",
            have.trim()
        );
        sh(Command::new("cargo").args(["install", "wasm-bindgen-cli", "--version", WASM_BINDGEN, "--locked"]))?;
    }
    setup::apt(&["binaryen"], "wasm-opt, which shrinks the .wasm")
}

/// Builds the package's `web/` and `node/` outputs and its copy of the shared
/// JavaScript layer (`cargo xtask js`); returns the
/// optimised `.wasm` size (raw, gzipped).
pub fn build() -> Result<(u64, u64), String> {
    tools()?;
    sh(Command::new("cargo").args([
        "build",
        "--quiet",
        "-p",
        "emq-id-wasm",
        "--target",
        "wasm32-unknown-unknown",
        "--profile",
        "wasm-release",
    ]))?;
    let input = root().join("target/wasm32-unknown-unknown/wasm-release/emq_id_wasm.wasm");
    let pkg = root().join(PACKAGE);
    for (dir, target) in [("web", "web"), ("node", "nodejs")] {
        sh(Command::new("wasm-bindgen").arg(&input).arg("--out-dir").arg(pkg.join(dir)).args([
            "--target",
            target,
            "--weak-refs",
            "--no-typescript",
        ]))?;
        // Each output says its own module kind, whatever the package's default.
        let kind = if target == "web" { "module" } else { "commonjs" };
        std::fs::write(pkg.join(dir).join("package.json"), format!("{{ \"type\": \"{kind}\" }}\n"))
            .map_err(|e| e.to_string())?;
        let wasm = pkg.join(dir).join("emq_id_wasm_bg.wasm");
        sh(Command::new("wasm-opt").args(["-Oz", "--converge"]).args(WASM_FEATURES).arg(&wasm).arg("-o").arg(&wasm))?;
    }
    crate::js::sync(false)?;
    let wasm = std::fs::read(pkg.join("web/emq_id_wasm_bg.wasm")).map_err(|e| e.to_string())?;
    let gz = gzip_len(&pkg.join("web/emq_id_wasm_bg.wasm"))?;
    eprintln!("xtask: emq_id_wasm_bg.wasm is {} bytes raw, {} bytes gzipped (-9)", wasm.len(), gz);
    Ok((wasm.len() as u64, gz))
}

fn gzip_len(path: &Path) -> Result<u64, String> {
    let out = Command::new("gzip").args(["-9", "-c"]).arg(path).output().map_err(|e| e.to_string())?;
    Ok(out.stdout.len() as u64)
}

/// `cargo xtask wasm-build`: build and print the size.
pub fn build_task() -> Result<(), String> {
    let (raw, gz) = build()?;
    println!("| file | raw | gzip -9 |\n|---|---|---|\n| emq_id_wasm_bg.wasm | {raw} B | {gz} B |");
    Ok(())
}

/// The WASM package's own tests: the explicit range checks, the node rule.
pub fn tests() -> Result<(), String> {
    build()?;
    sh(Command::new("node").current_dir(root().join(PACKAGE)).args(["--test", "test/"]))
}

/// A real headless Chromium (Debian's), loading the package's browser entry
/// from a loopback server that also hands out the requests and takes the answers.
pub struct BrowserAdapter;

impl Adapter for BrowserAdapter {
    fn answer_all(&mut self, requests: &[Value]) -> Result<Vec<Value>, String> {
        setup::apt(&["chromium"], "the browser run of the WASM package")?;
        let listener = TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
        let port = listener.local_addr().map_err(|e| e.to_string())?.port();
        let body = serde_json::to_vec(requests).map_err(|e| e.to_string())?;
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
                .map_err(|e| format!("starting chromium: {e}"))?,
            profile,
        );
        let posted = rx.recv_timeout(Duration::from_secs(120)).map_err(|_| "the browser posted no answers in 120 s")?;
        chromium.stop();
        let mut posted: Value =
            serde_json::from_slice(&posted).map_err(|e| format!("the browser posted non-JSON: {e}"))?;
        if let Some(fatal) = posted.get("fatal") {
            return Err(format!("the page failed: {}", fatal.as_str().unwrap_or("?")));
        }
        eprintln!("xtask: answered by {}", posted["userAgent"].as_str().unwrap_or("?"));
        match posted["answers"].take() {
            Value::Array(a) => Ok(a),
            _ => Err("the browser posted no answers array".into()),
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
