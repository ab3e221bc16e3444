//! A page in a real headless Chromium (Debian's), driven by Playwright's
//! library through xtask/browser/drive.mjs: the `wasm-browser` conformance
//! target (conformance/wasm/harness.mjs) and the WASM benchmark's browser
//! column (bindings/wasm/bench/browser.mjs) are both such a page. The page's
//! half of the exchange is xtask/browser/page.mjs, served at `/xtask/page.mjs`.
//!
//! Playwright answers the page's requests from the tree itself, so nothing
//! listens on a port; the driver holds the run to its deadline and Playwright
//! kills the browser however the run ends.

use std::process::Command;
use std::time::Duration;

use anyhow::{Context, Result};
use serde_json::{json, Value};

use crate::runtimes::node;
use crate::{root, sh_out};

/// The driver's folder: its script, the page helper and its one npm dependency.
const DRIVER: &str = "xtask/browser";

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

/// Runs `page` in Chromium and returns what it left (`page.deadline` at
/// most); a page that failed is an error naming how.
pub fn run(page: Page) -> Result<Posted> {
    super::setup::chromium()?;
    node::npm_dependencies(&root().join(DRIVER), "the browser driver")?;
    let spec = root().join(format!("target/browser-run-{}.json", std::process::id()));
    let run = json!({
        "root": root(), "html": page.html, "dirs": page.dirs, "input": page.input,
        "deadlineMs": page.deadline.as_millis() as u64,
    });
    crate::write(&spec, serde_json::to_vec(&run)?)?;
    let out = sh_out(Command::new("node").arg(root().join(DRIVER).join("drive.mjs")).arg(&spec));
    let _ = std::fs::remove_file(&spec);
    let out = out?;
    let mut posted: Value =
        serde_json::from_str(&out).with_context(|| format!("drive.mjs printed non-JSON: {out:?}"))?;
    let user_agent = posted["userAgent"].as_str().unwrap_or("?").to_string();
    Ok(Posted { user_agent, result: posted["result"].take() })
}
