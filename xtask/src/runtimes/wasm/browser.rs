//! A page in a real headless Chromium (Debian's), driven by Playwright's
//! library through xtask/browser/drive.mjs: the `wasm-browser` conformance
//! target (conformance/wasm/harness.mjs) and the WASM benchmark's browser
//! column (bindings/wasm/bench/browser.mjs) are both such a page. The page's
//! half of the exchange is xtask/browser/page.mjs, served at `/xtask/page.mjs`.
//!
//! Playwright answers the page's requests from the tree itself, so nothing
//! listens on a port; the driver holds the run to its deadline and Playwright
//! closes the browser however the run ends (a driver that hangs past it is
//! sent SIGTERM, on which Playwright still closes it).

use std::fs::File;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};

use crate::runtimes::node;
use crate::{read, root};

/// The driver's folder: its script, the page helper and its one npm dependency.
const DRIVER: &str = "xtask/browser";

/// How long past its deadline the driver may take to report before xtask kills it:
/// the driver enforces the deadline itself, so this only catches a hung Node.
const GRACE: Duration = Duration::from_secs(30);

/// What one run serves, and how long it may take.
pub struct Page {
    /// The HTML served at `/` (a path under the workspace root).
    pub html: &'static str,
    /// URL prefixes and the directories under the root they serve; the first match wins.
    pub dirs: &'static [(&'static str, &'static str)],
    /// What the page's work is given.
    pub input: Value,
    /// Chromium starts, loads the page and works within this, or the run fails.
    pub deadline: Duration,
}

/// What the page left: the browser it ran in and what its work returned.
pub struct Posted {
    pub user_agent: String,
    pub result: Value,
}

/// Installs what [`run`] needs: Debian's Chromium and the driver's npm dependency.
pub fn prepare() -> Result<()> {
    super::setup::chromium()?;
    node::npm_dependencies(&root().join(DRIVER), "the browser driver")
}

/// Runs `page` in Chromium (after [`prepare`]) and returns what it left
/// (`page.deadline` at most); a page that failed is an error naming how.
pub fn run(page: Page) -> Result<Posted> {
    let stem = root().join(format!("target/browser-run-{}", std::process::id()));
    let [spec, out, err] = ["json", "out", "err"].map(|ext| stem.with_extension(ext));
    let run = json!({
        "root": root(), "html": page.html, "dirs": page.dirs, "input": page.input,
        "deadlineMs": page.deadline.as_millis() as u64,
    });
    crate::write(&spec, serde_json::to_vec(&run)?)?;
    let printed = drive(&spec, &out, &err, page.deadline + GRACE);
    for file in [&spec, &out, &err] {
        let _ = std::fs::remove_file(file);
    }
    let printed = printed?;
    let mut posted: Value =
        serde_json::from_str(&printed).with_context(|| format!("drive.mjs printed non-JSON: {printed:?}"))?;
    let user_agent = posted["userAgent"].as_str().unwrap_or("?").to_string();
    Ok(Posted { user_agent, result: posted["result"].take() })
}

/// Runs the driver on `spec`, its output to files (a pipe nobody reads while
/// waiting could fill and stall it), and kills it if it outlives `within`.
fn drive(spec: &Path, out: &Path, err: &Path, within: Duration) -> Result<String> {
    let mut child = Command::new("node")
        .arg(root().join(DRIVER).join("drive.mjs"))
        .arg(spec)
        .current_dir(root())
        .stdout(File::create(out).with_context(|| format!("creating {}", out.display()))?)
        .stderr(File::create(err).with_context(|| format!("creating {}", err.display()))?)
        .spawn()
        .context("starting node xtask/browser/drive.mjs")?;
    let exited = |child: &mut std::process::Child| !matches!(child.try_wait(), Ok(None));
    if !crate::poll(within, crate::POLL, || exited(&mut child)) {
        // SIGTERM first: Playwright closes the browser it started on SIGTERM,
        // while SIGKILL would leave that browser (its own session) running.
        let _ = Command::new("kill").arg("-TERM").arg(child.id().to_string()).status();
        if !crate::poll(Duration::from_secs(5), crate::POLL, || exited(&mut child)) {
            let _ = child.kill();
        }
        let _ = child.wait();
        bail!(
            "drive.mjs was still running {GRACE:?} past its deadline and was killed: {}",
            read(err).unwrap_or_default()
        );
    }
    let status = child.wait()?;
    if !status.success() {
        bail!("drive.mjs failed ({status}): {}", read(err).unwrap_or_default());
    }
    read(out)
}
