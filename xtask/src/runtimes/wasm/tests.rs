//! The WASM package's own tests (`node --test`), and the browser driver's.

use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{ensure, Result};
use serde_json::json;

use super::browser::{self, Page};
use super::PACKAGE;
use crate::{root, sh};

/// The WASM package's own tests: the node rule, bounded memory, its version
/// (what it shares with the Node package is tested over both by the JS step).
pub fn run() -> Result<()> {
    super::build::package()?;
    sh(Command::new("node").current_dir(root().join(PACKAGE)).args(["--test", "test/"]))?;
    driver()
}

/// The browser runs cannot stall or pass on a failed page: a silent page is
/// refused at its deadline, and a page whose work throws is refused with its error.
fn driver() -> Result<()> {
    browser::prepare()?;
    let page = |html, deadline| Page { html, dirs: &[], input: json!("input"), deadline };
    let start = Instant::now();
    let silent = browser::run(page("xtask/browser/test/silent.html", Duration::from_secs(10))).err();
    let waited = start.elapsed();
    let said = format!("{silent:?}");
    ensure!(
        said.contains("did not finish in 10 s (awaiting the result)") && waited < Duration::from_secs(30),
        "a silent page: {said} in {waited:?}"
    );
    let throws = browser::run(page("xtask/browser/test/throws.html", Duration::from_secs(60))).err();
    let said = format!("{throws:?}");
    ensure!(said.contains("the page failed: RangeError: refused input"), "a page that throws: {said}");
    eprintln!("xtask: the browser driver refused a silent page at its deadline and a failed page by its error");
    Ok(())
}
